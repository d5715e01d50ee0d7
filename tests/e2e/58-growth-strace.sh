#!/bin/sh
# The growth modes on a program no one here wrote (Debian's python3
# starting up and building and dropping large objects), each against an
# oracle that watched the same process:
#   --mmap   strace(1) -X raw -y: every mmap, munmap and mremap strace saw,
#            with the same arguments and result, and no call it did not;
#   --brk    the same strace: as many brk calls, and the bytes the break
#            grew as strace's results add up;
#   --faults the process's own page-fault counts (min_flt and maj_flt,
#            which /usr/bin/time reads from wait4's rusage): the faults
#            memtrace counted for that pid, from its fork to its exit.
# mtt-timeout: 600
. "${0%/*}/lib.sh"

if ! load_memtrace; then
	not_ok "load memtrace.ko"
	exit 0
fi
cd /tmp || exit 0
# Large lists (malloc's mmap threshold), a grown bytearray (mremap), a
# dict of small objects (the break), all dropped again (munmap).
PROG='import json
x = [bytes(200000 + i * 4096) for i in range(8)]
b = bytearray(300000)
for i in range(6):
    b += bytes(300000)
d = {str(i): [i] * 10 for i in range(20000)}
s = json.dumps(d)
del x, b, d, s'
export PYTHONHASHSEED=0

# start_growth_reader OUT ARGS...: memtrace-read ARGS in the background,
# until it says it is tracing; READER its pid.
start_growth_reader() {
	_out=$1
	shift
	rm -f "$_out"
	memtrace-read "$@" >"$_out" 2>&1 &
	READER=$!
	wait_for 60 grep -qE '^(PID|Tracing)' "$_out" && return 0
	not_ok "memtrace-read $* attaches" "$(cat "$_out")"
	kill -KILL "$READER" 2>/dev/null
	return 1
}

# No wait before the stop: the command's calls were all written to the
# rings before it exited, and the reader drains them after the stop.
stop_growth_reader() {
	kill -INT "$READER"
	wait "$READER"
}

# --- mmap, munmap, mremap ---------------------------------------------------
OUT=/tmp/gs-mmap.out
ST=/tmp/gs-mmap.strace
if start_growth_reader "$OUT" --mmap --by-comm python3; then
	strace -X raw -y -e trace=mmap,munmap,mremap -e signal=none -o "$ST" \
		python3 -c "$PROG"
	check_eq "python3 under strace: exit 0" 0 "$?"
	stop_growth_reader
	# Both sides as "call args... = result" in memtrace's units (KiB,
	# PROT/MAP letters, the file's last path component), sorted: the
	# per-CPU rings need not keep the calls' order.
	awk '
	function letters(v, names, bits,   s, i) {
		s = ""
		for (i = 1; i <= length(names); i++)
			s = s (and(v, bits[i]) ? substr(names, i, 1) : "-")
		return s
	}
	BEGIN { pb[1] = 1; pb[2] = 2; pb[3] = 4; mb[1] = 1; mb[2] = 2; mb[3] = 16; mb[4] = 32 }
	{
		line = $0
		sub(/^[0-9]+ +/, "", line)
		call = line; sub(/\(.*/, "", call)
		args = line; sub(/^[a-z]+\(/, "", args); sub(/\) += .*/, "", args)
		res = line; sub(/.*\) += /, "", res); sub(/ .*/, "", res)
		n = split(args, a, /, /)
		if (call == "mmap") {
			file = ""
			if (a[5] ~ /</) { file = a[5]; sub(/^[0-9]+</, "", file); sub(/>$/, "", file); sub(/.*\//, "", file) }
			r = res == "-1" ? "failed" : "= " res
			print "mmap " letters(a[3] + 0, "RWE", pb) " " letters(a[4] + 0, "SPFA", mb) " " \
				int((a[6] + 0) / 1024) " " int(a[2] / 1024) (file == "" ? "" : " " file) " " r
		} else if (call == "munmap") {
			print "munmap " int(a[2] / 1024) " " a[1] (res == "0" ? "" : " failed")
		} else if (call == "mremap") {
			print "mremap " int(a[2] / 1024) " " int(a[3] / 1024) " " a[1] " " a[4] + 0 " = " res
		}
	}' "$ST" | sort >/tmp/gs-mmap.want
	awk '$2 == "python3" {
		if ($3 == "munmap") { print "munmap " $5 " " $7 ($8 == "(failed:" ? " failed" : ""); next }
		if ($3 == "mremap") {
			# mremap OLD NEW [FILE] addr A flags F = R
			for (i = 6; i <= NF; i++) if ($i == "addr") break
			print "mremap " $4 " " $5 " " $(i + 1) " " $(i + 3) + 0 " = " $(i + 5); next
		}
		if ($3 ~ /^[-R][-W][-E]$/) {
			r = $0; f = ""
			if (r ~ /\(failed: /) { r = "failed"; last = NF - 2 } else { r = "= " $NF; last = NF - 2 }
			for (i = 7; i <= last; i++) f = f " " $i
			print "mmap " $3 " " $4 " " $5 " " $6 f " " r
		}
	}' "$OUT" | sort >/tmp/gs-mmap.got
	n=$(wc -l </tmp/gs-mmap.want)
	diff=$(diff /tmp/gs-mmap.want /tmp/gs-mmap.got)
	if [ "$n" -gt 20 ] && [ -z "$diff" ]; then
		ok "--mmap: python3's $n mmap, munmap and mremap calls as strace saw them"
	else
		not_ok "--mmap: python3's mmap, munmap and mremap calls as strace saw them ($n)" \
			"$diff"
	fi
	check_match "--mmap: python3 grew a bytearray through mremap" \
		'^mremap ' "$(cat /tmp/gs-mmap.want)"
	check_match "--mmap: nothing lost" '^Lost: 0 events' "$(cat "$OUT")"
fi

# --- brk -------------------------------------------------------------------
OUT=/tmp/gs-brk.out
ST=/tmp/gs-brk.strace
if start_growth_reader "$OUT" --brk --by-comm python3 -T 100000; then
	strace -X raw -e trace=brk -e signal=none -o "$ST" python3 -c "$PROG"
	check_eq "python3 under strace: exit 0" 0 "$?"
	stop_growth_reader
	want=$(awk '/^brk\(/ {
		r = $NF + 0
		if (n++ && r > brk) grown += r - brk
		brk = r
	} END { print n + 0, grown + 0 }' "$ST")
	# The last report's lines (each report counts from the start).
	got=$(awk '/ Top [0-9]+ stacks by / { calls = bytes = 0 }
		$3 == "grown" && $9 == "python3" { bytes += $1; calls += $5 }
		END { print calls + 0, bytes + 0 }' "$OUT")
	check_eq "--brk: python3's brk calls and bytes grown as strace's results add up" \
		"$want" "$got" || diag "$(cat "$OUT" "$ST")"
	check "--brk: python3 grew its break (${want#* } bytes)" test "${want#* }" -gt 0
	check_match "--brk: nothing lost" '^Lost: 0 events' "$(cat "$OUT")"
fi

# --- faults ----------------------------------------------------------------
OUT=/tmp/gs-faults.out
if start_growth_reader "$OUT" --faults -T 1000000; then
	/usr/bin/time -f 'RUSAGE %R %F' -o /tmp/gs-faults.time python3 -c "$PROG"
	check_eq "python3 under time: exit 0" 0 "$?"
	stop_growth_reader
	# The child's pid: the one python3 line; its faults under any name
	# (before its exec the child of time is called time).
	pid=$(sed -n 's/.* by python3 \[\([0-9]*\)\] from stack$/\1/p' "$OUT" | head -n 1)
	want=$(awk '$1 == "RUSAGE" { print $2, $3 }' /tmp/gs-faults.time)
	got=$(awk -v p="[$pid]" '/ Top [0-9]+ stacks by / { n = m = 0 }
		$3 == "faults" && $NF == "stack" && $(NF - 2) == p {
		n += $1; m += substr($4, 2) } END { print n - m, m }' "$OUT")
	lost=$(sed -n 's/^Lost: \([0-9]*\) events.*/\1/p' "$OUT" | tail -n 1)
	if [ "${lost:-0}" = 0 ]; then
		check_eq "--faults: python3's minor and major faults, as its rusage counts them" \
			"$want" "$got" || diag "$(grep "\[$pid\]" "$OUT" | head -n 20)"
	else
		# A reader that fell behind (a slow kernel) loses records, but
		# counts them: what it has is true, and the losses cover the rest.
		set -- $want $got
		check "--faults: python3's $3 + $4 faults of its $1 + $2, $lost lost system-wide" \
			test "$3" -le "$1" -a "$4" -le "$2" -a $(($1 + $2 - $3 - $4)) -le "$lost"
	fi
	check_match "--faults: no fault missed" '^Missed: 0 events' "$(cat "$OUT")"
fi

unload_memtrace
