#!/bin/sh
# memtrace-read --mmap (mmapsnoop's job) against tests/progs/memgrowth,
# which makes mmap calls of each PROT/MAP kind (anonymous and of a file,
# shared and private, fixed, one failing), an mremap and munmaps, each from
# a function of its own, and prints what it asked and got: every call must
# appear with those values (PROT, MAP, offset, size, the file's name, the
# address), and --mmap --stacks must count each call's bytes under a stack
# whose own frames are the calling function, run_mmap and main.
# mtt-timeout: 300
. "${0%/*}/lib.sh"

if ! load_memtrace; then
	not_ok "load memtrace.ko"
	exit 0
fi
cd /tmp || exit 0
OUT=/tmp/mmap.out
DAT=/tmp/memgrowth.dat
rm -f "$DAT"

memtrace-read --mmap -- memgrowth mmap "$DAT" >"$OUT" 2>&1
check_eq "--mmap -c: the command's exit status" 0 "$?" || diag "$(cat "$OUT")"
check_match "--mmap prints mmapsnoop's columns" \
	'^PID +COMM +PROT MAP +OFFS\(KB\) SIZE\(KB\) FILE$' "$(cat "$OUT")"

# Every call the program made, as memtrace must print it: the program's
# lines (MMAP/MREMAP/MUNMAP ...) turned into the fields of memtrace's.
missing=$(awk -v file="${DAT##*/}" '
function protstr(p) { return (and(p, 1) ? "R" : "-") (and(p, 2) ? "W" : "-") (and(p, 4) ? "E" : "-") }
function mapstr(f) { return (and(f, 1) ? "S" : "-") (and(f, 2) ? "P" : "-") (and(f, 16) ? "F" : "-") (and(f, 32) ? "A" : "-") }
function hex(s) { return s + 0 }	# busybox awk reads 0x.. as hex
$1 == "MMAP" {
	off = 0
	for (i = 2; i < NF; i++) {
		if ($i == "len") len = $(i + 1) / 1024
		else if ($i == "off") off = $(i + 1) / 1024
		else if ($i == "prot") prot = $(i + 1) + 0
		else if ($i == "flags") flags = hex($(i + 1))
		else if ($i == "=") addr = $(i + 1)
	}
	res = addr == "0xffffffffffffffff" ? "(failed: EBADF)" : "= " addr
	want[++n] = protstr(prot) " " mapstr(flags) " " off " " len " " \
		($2 == "file" && res !~ /failed/ ? file " " : "") res
	next
}
$1 == "MREMAP" { want[++n] = "mremap " $3 / 1024 " " $5 / 1024 " addr " $2 " flags 0x1 = " $7; next }
$1 == "MUNMAP" { want[++n] = "munmap - " $3 / 1024 " addr " $2; next }
$2 == "memgrowth" { line = $3; for (i = 4; i <= NF; i++) line = line " " $i; seen[line] = 1 }
END {
	if (!n) print "the program printed no calls"
	for (i = 1; i <= n; i++) if (!(want[i] in seen)) print "missing: " want[i]
}' "$OUT")
if [ -z "$missing" ]; then
	ok "--mmap: every mmap, mremap and munmap of memgrowth with its values ($(grep -c '^M[MRU]' "$OUT") calls)"
else
	not_ok "--mmap: every mmap, mremap and munmap of memgrowth with its values" \
		"$missing
$(cat "$OUT")"
fi
check_match "--mmap: nothing lost" '^Lost: 0 events' "$(cat "$OUT")"
check_match "--mmap: no call missed, every file named" \
	'^Missed: 0 events .* 0 mapped files not named$' "$(cat "$OUT")"

# --stacks: bytes mapped by stack, each under the function that mapped.
OUT=/tmp/mmap-stacks.out
memtrace-read --mmap --stacks -T 50 -- memgrowth mmap "$DAT" >"$OUT" 2>&1
check_eq "--mmap --stacks -c: the command's exit status" 0 "$?" || diag "$(cat "$OUT")"
for want in "65536 map_anon" "131072 map_anon" "16384 map_anon" "4096 map_anon" \
	    "16384 map_file" "32768 map_file" "4096 map_file" "196608 grow_mapping"; do
	bytes=${want% *} fn=${want#* }
	# Several stacks may map as many bytes: one of them must be fn's.
	found=$(growth_own_stacks "$OUT" "^	$bytes bytes mapped in 1 calls by memgrowth " memgrowth |
		grep -x "$fn run_mmap main")
	if [ -n "$found" ]; then
		ok "--mmap --stacks: $bytes bytes under $fn < run_mmap < main"
	else
		not_ok "--mmap --stacks: $bytes bytes under $fn < run_mmap < main" "$(cat "$OUT")"
	fi
done
check_match "--mmap --stacks: the failed mmap maps nothing" \
	'^	0 bytes mapped in 1 calls by memgrowth ' "$(cat "$OUT")"

# System-wide, by task name: the reader selects its callers in the kernel.
OUT=/tmp/mmap-comm.out
rm -f "$OUT"
memtrace-read --mmap --by-comm memgrowth 1 30 >"$OUT" 2>&1 &
READER=$!
if wait_for 60 grep -q "^PID" "$OUT"; then
	memgrowth mmap "$DAT" >/tmp/mmap-comm.prog
	wait_for 10 grep -q "^ *[0-9]* *memgrowth *munmap .* 4 addr " "$OUT"
	kill -INT "$READER"
	wait "$READER"
	n=$(grep -c "^M[MRU]" /tmp/mmap-comm.prog)
	got=$(awk '$2 == "memgrowth" && ($3 ~ /^[-R][-W][-E]$/ || $3 == "munmap" || $3 == "mremap")' "$OUT" | wc -l)
	others=$(awk '$1 ~ /^[0-9]+$/ && $2 != "memgrowth"' "$OUT" | wc -l)
	# The loader's mappings of memgrowth are its calls too: at least n.
	if [ "$got" -ge "$n" ] && [ "$others" -eq 0 ]; then
		ok "--mmap --by-comm: memgrowth's $n calls (of $got), no other task's"
	else
		not_ok "--mmap --by-comm: memgrowth's calls only" "n=$n got=$got others=$others
$(cat "$OUT")"
	fi
else
	not_ok "--mmap --by-comm attaches" "$(cat "$OUT")"
	kill -KILL "$READER" 2>/dev/null
fi

unload_memtrace
