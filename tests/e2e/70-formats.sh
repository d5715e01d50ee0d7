#!/bin/sh
# The report formats (--folded, --json, --pprof, --prometheus, --svg) and
# memleak's text
# (--memleak-format) from real snapshots: each format written by the same
# memtrace-read as the text report, from the same snapshots, must carry the
# text report's stacks with the same bytes and counts; the profile is read
# by go tool pprof's own binary, the metrics checked by promtool.  Programs
# whose allocations are known: userleak (tests/progs/userleak.c) and
# memtrace_leaker.ko.
# mtt-timeout: 300
. "${0%/*}/lib.sh"

PPROF=$(ls /usr/lib/go-*/pkg/tool/linux_amd64/pprof 2>/dev/null | head -n 1)
export HOME=/tmp

# text_pairs OUT: "BYTES COUNT" of each stack of OUT's last text report, sorted.
text_pairs() {
	last_report_stacks "$1" | awk '{ print $1, $4 }' | sort -n
}

# json_pairs FILE: the same from the last JSON report of FILE.
json_pairs() {
	python3 -c 'import json, sys
r = [json.loads(l) for l in open(sys.argv[1]) if l.strip()][-1]
for s in r["stacks"]:
    print(s["bytes"], s["count"])' "$1" | sort -n
}

# pprof_pairs FILE: "INUSE_SPACE INUSE_OBJECTS" of each sample, as pprof reads them.
pprof_pairs() {
	"$PPROF" -raw -symbolize=none "$1" |
		awk '/^Samples:/ { on = 1; next } /^Locations/ { on = 0 }
		     on && $4 ~ /:$/ { sub(/:$/, "", $4); print $4, $3 }' | sort -n
}

# sys_build_id FILE: the GNU build-id among the ELF notes of FILE (a sysfs
# notes file), in hex, or "(none)"; read here with od, apart from
# memtrace-read's libelf.
sys_build_id() {
	od -A n -v -t x1 "$1" 2>/dev/null | awk '
		function num(h,  i, v) {
			v = 0
			for (i = 1; i <= 2; i++)
				v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
			return v
		}
		function word(at) {	# little-endian 32 bits
			return num(b[at]) + 256 * num(b[at + 1]) + 65536 * num(b[at + 2]) + 16777216 * num(b[at + 3])
		}
		{ for (i = 1; i <= NF; i++) b[n++] = $i }
		END {
			at = 0
			while (at + 12 <= n) {
				namesz = word(at); descsz = word(at + 4); type = word(at + 8)
				name = at + 12; desc = name + int((namesz + 3) / 4) * 4
				if (type == 3 && namesz == 4 && b[name] b[name + 1] b[name + 2] == "474e55") {
					for (i = 0; i < descsz; i++)
						id = id b[desc + i]
					print id
					exit
				}
				at = desc + int((descsz + 3) / 4) * 4
			}
			print "(none)"
		}'
}

# check_formats WHAT OUT DIR: the formats in DIR against OUT's last text report.
check_formats() {
	_tp=$(text_pairs "$2")
	if [ -z "$_tp" ]; then
		not_ok "$1: the text report has stacks" "$(tail -n 30 "$2")"
		return
	fi
	diag "$1: text report (bytes count): $(echo $_tp)"
	check_eq "$1: --folded has the text report's stacks and bytes" \
		"$(printf '%s\n' "$_tp" | awk '{ print $1 }')" \
		"$(awk '{ print $NF }' "$3/folded" | sort -n)"
	check_eq "$1: --json has the text report's stacks, bytes and counts" "$_tp" \
		"$(json_pairs "$3/report.json")"
	if [ -z "$PPROF" ]; then
		not_ok "$1: go tool pprof's binary in the guest (tests/e2e/host-files.list)"
	else
		check_eq "$1: go tool pprof reads --pprof's profile: the text report's stacks, bytes and counts" \
			"$_tp" "$(pprof_pairs "$3/heap.pb.gz")"
	fi
	check "$1: promtool check metrics accepts --prometheus's file" \
		sh -c "promtool check metrics <'$3/memtrace.prom'"
	# The top stacks (at most 20) have series of their own, the report's total all.
	check_eq "$1: --prometheus has the text report's top stacks' bytes and counts" \
		"$(printf '%s\n' "$_tp" | sort -k1,1rn -k2,2rn | head -n 20 | sort -n)" \
		"$(awk '/^memtrace_stack_bytes\{/ { split($1, k, "stack_id=\""); b[k[2]] = $2 }
			/^memtrace_stack_allocations\{/ { split($1, k, "stack_id=\""); c[k[2]] = $2 }
			END { for (s in b) print b[s], c[s] }' "$3/memtrace.prom" | sort -n)"
	check_eq "$1: --prometheus's report total is the text report's" \
		"$(printf '%s\n' "$_tp" | awk '{ s += $1 } END { print s + 0 }')" \
		"$(awk '/^memtrace_report_bytes\{/ { print $2 }' "$3/memtrace.prom")"
	# The flame graph's root box holds every stack (its script is checked
	# in Chromium on the host: userspace/tests/test_formats.c).
	check_eq "$1: --svg's flame graph holds the text report's bytes and allocations" \
		"$(printf '%s\n' "$_tp" | awk '{ b += $1; c += $2 } END { print b + 0, c + 0 }')" \
		"$(sed -n 's/.*<title>all (\([0-9]*\) bytes, \([0-9]*\) allocations.*/\1 \2/p' "$3/leaks.svg")"
}

if ! load_memtrace; then
	not_ok "load memtrace.ko"
	exit 1
fi

# --- user mode: userleak's leaks at its exit --------------------------------
D=/tmp/fmt-user
rm -rf "$D" && mkdir -p "$D"
memtrace-read -T 100 --folded="$D/folded" --json="$D/report.json" --pprof "$D/heap.pb.gz" \
	--prometheus "$D/memtrace.prom" --svg "$D/leaks.svg" -c userleak >"$D/out" 2>&1
check_eq "-c userleak with every format: exit status 0" 0 "$?"
check_formats "user mode" "$D/out" "$D"
# The JSON report itself, for a look (and a schema check by hand on the
# host): in 150-column pieces, as the console cuts longer lines.
diag "user mode JSON, folded at 150 columns:"
tail -n 1 "$D/report.json" | fold -w 150 | sed 's/^/#json /'
check_eq "user mode: the four leaking stacks, as userleak makes them" \
	"500 5
600 2
600 3
1024 4" "$(text_pairs "$D/out")"
check_match "user mode: --folded names the leaking function, root first" \
	';leak_malloc(;[^ ]*)? 500$' "$(cat "$D/folded")"
# The closing summary in Memcheck's words: every stack still in use, with
# source lines (tests/progs are built with -g).
check_match "user mode: LEAK SUMMARY totals, as Memcheck's in use at exit (2,724 bytes in 14 blocks)" \
	'^   still in use: 2,724 bytes in 14 blocks, in 4 records$' "$(cat "$D/out")"
check_match "user mode: the largest record last, its frames with source lines" \
	'^1,024 bytes in 4 blocks are still in use in record 4 of 4$' "$(cat "$D/out")"
check_match "user mode: a record's frames as Memcheck writes them" \
	'^   (at|by) 0x[0-9A-F]+: leak_memalign \(userleak\.c:[0-9]+\)$' "$(cat "$D/out")"
check_match "user mode: the profile's functions are the text report's" \
	'leak_memalign' "$("$PPROF" -top -symbolize=none "$D/heap.pb.gz" 2>&1)"

# -v: what is traced, and what each report read, on stderr only.
memtrace-read -v -c userleak >"$D/v.out" 2>"$D/v.err"
check_eq "-v -c userleak: exit status 0" 0 "$?"
check_match "-v: the module and what it traces, on stderr" \
	'^memtrace-read: memtrace.ko .*; tracing: .*; sampling: off$' "$(cat "$D/v.err")"
check_match "-v: each report's snapshot, on stderr" \
	'^memtrace-read: snapshot: [0-9]+ stacks, [0-9]+ counters' "$(cat "$D/v.err")"
check_eq "-v: the report on stdout is the same" "$(text_pairs "$D/out")" "$(text_pairs "$D/v.out")"

# -F (--wa-missing-free) is accepted; -S names the allocator's prefix: libc
# as an -O object with -S je_ has no je_malloc, and says so.
memtrace-read -F -c userleak >"$D/f.out" 2>&1
check_eq "-F (memleak's --wa-missing-free) is accepted: exit status 0" 0 "$?"
out=$(memtrace-read -S je_ -O c -c userleak 2>&1)
check_match "-S je_ -O c: libc defines no je_malloc, and the error says so" \
	'defines none of the allocator functions \(je_malloc, je_calloc' "$out"
# A prefix libc does define: glibc exports its allocator as __libc_malloc,
# __libc_calloc, __libc_realloc, __libc_free, ... (the very functions
# malloc, ... are), but has no __libc_posix_memalign.  Probed by those
# names only, userleak's malloc, calloc and realloc leaks are there, its
# posix_memalign ones are not (tests/progs/userleak.c's own account).
memtrace-read -S __libc_ -O c -c userleak >"$D/s.out" 2>&1
check_eq "-S __libc_ -O c -c userleak: exit status 0" 0 "$?" || diag "$(tail -n 20 "$D/s.out")"
check_eq "-S __libc_ -O c: the leaks made through __libc_malloc, __libc_calloc, __libc_realloc" \
	"500 5
600 2
600 3" "$(text_pairs "$D/s.out")"

# --- memleak's text: what memleak prints and nothing else ------------------
memtrace-read --memleak-format -c userleak >"$D/memleak" 2>&1
check_eq "--memleak-format -c userleak: exit status 0" 0 "$?"
# Lines memleak prints: its header, a stack's line, frames.
bad=$(grep -v -E "^Executing 'userleak' and tracing the resulting process\.\$|"'^Attaching to pid [0-9]+, Ctrl\+C to quit\.$|^\[[0-9:]{8}\] Top [0-9]+ stacks with outstanding allocations:$|^	[0-9]+ bytes in [0-9]+ allocations from stack$|^		([^ ].*\+0x[0-9a-f]+ \[[^]]+\]|\[unknown\]( \[[^]]+\])?)$|^$' "$D/memleak")
check_eq "--memleak-format: only lines memleak prints (no tags, totals, footer, source lines)" "" "$bad"
check_eq "--memleak-format -c: memleak's first two lines, what it runs then whom it traces" \
	"Executing 'userleak' and tracing the resulting process. Attaching to pid" \
	"$(head -n 2 "$D/memleak" | tr '\n' ' ' | sed 's/ [0-9]*, Ctrl+C to quit\. $//')"
check_eq "--memleak-format: the same stacks" "$(text_pairs "$D/out")" \
	"$(awk '/^\[/ { delete p; n = 0 } / bytes in / { p[n++] = $1 " " $4 }
		END { for (i = 0; i < n; i++) print p[i] }' "$D/memleak" | sort -n)"

# --- kernel mode: memtrace_leaker's allocations, one run, every format -------
D=/tmp/fmt-kernel
rm -rf "$D" && mkdir -p "$D"
if check "load memtrace_leaker.ko" insmod /memtrace/memtrace_leaker.ko; then
	memtrace-read --kernel-leaks -o 0 -T 1000 --folded="$D/folded" --json="$D/report.json" \
		--pprof "$D/heap.pb.gz" --prometheus "$D/memtrace.prom" --svg "$D/leaks.svg" 2 2 \
		>"$D/out" 2>&1 &
	READER=$!
	wait_for 30 grep -q "^Attaching to kernel allocators" "$D/out"
	echo 1 >/sys/module/memtrace_leaker/parameters/leak
	wait "$READER"
	check_eq "--kernel-leaks with every format: exit status 0" 0 "$?"
	check_formats "kernel mode" "$D/out" "$D"
	check_match "kernel mode: --folded, leaker_kmalloc_leak's 10240 bytes, root first" \
		';leaker_set_leak;leaker_kmalloc_leak(;[^ ]*)? 10240$' "$(cat "$D/folded")"
	# The profile's kernel mappings carry the build-ids sysfs shows: vmlinux's
	# and each module's whose frames are in the stacks (memtrace_leaker's,
	# Debian's modules', memtrace's own where its frames are there).
	if [ -n "$PPROF" ]; then
		got=$("$PPROF" -raw -symbolize=none "$D/heap.pb.gz" 2>&1 |
			awk '/^Mappings/ { on = 1; next }
			     on && /^[0-9]+: / && $3 ~ /^[A-Za-z0-9_-]+$/ {
				print $3, ($4 ~ /^[0-9a-f]+$/ ? $4 : "(none)") }' | sort)
		want=$(for m in $(printf '%s\n' "$got" | awk '{ print $1 }'); do
			if [ "$m" = kernel ]; then
				f=/sys/kernel/notes
			else
				f=/sys/module/$m/notes/.note.gnu.build-id
			fi
			echo "$m $(sys_build_id "$f")"
		done)
		diag "kernel mode: the profile's kernel mappings: $(echo $got)"
		check_eq "kernel mode: --pprof's mappings: vmlinux and memtrace_leaker, with sha1 build-ids" \
			"kernel 40 memtrace_leaker 40" \
			"$(printf '%s\n' "$got" | awk '$1 == "kernel" || $1 == "memtrace_leaker" {
				print $1, length($2) }' | tr '\n' ' ' | sed 's/ $//')"
		check_eq "kernel mode: go tool pprof reads each kernel mapping's build-id as /sys's notes give it" \
			"$want" "$got"
	fi

	# --slab: per cache, the text's live bytes are the folded stacks' sums.
	memtrace-read --slab -T 5 --folded="$D/slab.folded" 1 1 >"$D/slab" 2>&1
	check_eq "--slab --folded=FILE: exit status 0" 0 "$?"
	want=$(awk '/^CACHE / { on = 1; next } on && /^[^ \t]/ && NF >= 6 && $4 > 0 { print $1, $4 }
		/^Lost:/ { on = 0 }' "$D/slab" | sort)
	got=$(awk '{ split($1, f, ";"); b[f[1]] += $NF } END { for (c in b) print c, b[c] }' \
		"$D/slab.folded" | sort)
	check_eq "--slab --folded: each cache's live bytes as the text report's" "$want" "$got"

	# A file that cannot be written: said once, by name; the text report
	# is still printed; the exit status says it failed.
	out=$(memtrace-read --kernel-leaks --pprof /nonexistent/heap.pb.gz 1 1 2>&1)
	rc=$?
	check_eq "--pprof into a missing directory: exit status 1" 1 "$rc"
	check_eq "--pprof into a missing directory: one message, naming the file" \
		"memtrace-read: /nonexistent/heap.pb.gz.tmp: No such file or directory" \
		"$(printf '%s\n' "$out" | grep '^memtrace-read:')"
	check_match "--pprof into a missing directory: the text report is still printed" \
		'^Lost: ' "$out"
	rmmod memtrace_leaker
fi
# The live JSON reports of both modes, valid against the documented schema
# (python3-jsonschema; one run: python starts slowly here).
files=
for f in /tmp/fmt-user/report.json /tmp/fmt-kernel/report.json; do
	[ -s "$f" ] && files="$files $f"
done
check "--json's live reports (user and kernel mode) valid against docs/memtrace-report.schema.json" \
	python3 /data/validate-json.py /data/memtrace-report.schema.json $files
unload_memtrace
exit 0
