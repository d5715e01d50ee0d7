#!/bin/sh
# memtrace-read --faults (faults' job: page faults by user stack) and
# --ffaults (ffaults': by file) against tests/progs/memgrowth, which touches
# N fresh anonymous pages from touch_pages() and reads N pages of a file
# through a mapping from read_pages(), counting each step's page faults
# with getrusage(), the kernel's own count (the task's min_flt and maj_flt,
# which memtrace's rule follows): touch_pages' stack must carry exactly as
# many faults, at least N; the file's name as many as the reading took.
# mtt-timeout: 300
. "${0%/*}/lib.sh"

if ! load_memtrace; then
	not_ok "load memtrace.ko"
	exit 0
fi
cd /tmp || exit 0
N=64
DAT=/tmp/memgrowth-faults.dat
OUT=/tmp/faults.out

memtrace-read --faults -T 100 -- memgrowth faults $N "$DAT" >"$OUT" 2>&1
check_eq "--faults -c: the command's exit status" 0 "$?" || diag "$(cat "$OUT")"
touched=$(awk '$1 == "TOUCH" { print $5 }' "$OUT")
check "memgrowth took at least $N minor faults touching $N pages ($touched)" \
	test "${touched:-0}" -ge "$N"
# FAULTS_RE: a --faults stack's header line.
FAULTS_RE="^	[0-9]+ page faults \(0 major\) by memgrowth \[[0-9]+\] from stack$"
# The stack itself must carry them, not any stack with as many.  By
# default (--unwind=auto) memgrowth, built with frame pointers, is walked
# by them, and touch_pages is a leaf GCC gives no frame: the walk goes from
# its fault to the frame rbp still holds, run_faults', and on to the
# return into main.  Unwind tables see run_faults (below).
line=$(growth_stacks_framed "$OUT" "$FAULTS_RE" memgrowth |
	sed -n 's/^touch_pages main|//p; s/^touch_pages run_faults main|//p' | head -n 1)
check_match "--faults: touch_pages (< run_faults) < main has the $touched faults" \
	"^	$touched page faults \(0 major\) by memgrowth " "$line" ||
	diag "$(head -n 60 "$OUT")"
check_match "--faults: nothing lost" '^Lost: 0 events' "$(cat "$OUT")"
check_match "--faults: no fault missed" '^Missed: 0 events' "$(cat "$OUT")" ||
	diag "$(grep '^Missed:' "$OUT"; dmesg | grep 'hits missed')"

OUT=/tmp/faults-cfi.out
memtrace-read --faults --unwind=cfi -T 100 -- memgrowth faults $N "$DAT" >"$OUT" 2>&1
check_eq "--faults --unwind=cfi -c: the command's exit status" 0 "$?" || diag "$(cat "$OUT")"
touched=$(awk '$1 == "TOUCH" { print $5 }' "$OUT")
line=$(growth_stacks_framed "$OUT" "$FAULTS_RE" memgrowth |
	sed -n 's/^touch_pages run_faults main|//p' | head -n 1)
check_match "--faults --unwind=cfi: touch_pages < run_faults < main has the $touched faults" \
	"^	$touched page faults \(0 major\) by memgrowth " "$line" ||
	diag "$(head -n 60 "$OUT")"

OUT=/tmp/ffaults.out
memtrace-read --ffaults -- memgrowth faults $N "$DAT" >"$OUT" 2>&1
check_eq "--ffaults -c: the command's exit status" 0 "$?" || diag "$(cat "$OUT")"
read_min=$(awk '$1 == "READ" { print $6 }' "$OUT")
read_maj=$(awk '$1 == "READ" { print $8 }' "$OUT")
check_match "--ffaults: the file read through a mapping has its $read_min minor, $read_maj major faults" \
	"^${DAT##*/} +$read_min +$read_maj\$" "$(cat "$OUT")"
check_match "--ffaults: memgrowth's own code faulted in under its name" \
	'^memgrowth +[1-9][0-9]* +[0-9]+$' "$(cat "$OUT")"
anon=$(awk '$1 == "[anonymous" { print $3 }' "$OUT")
check "--ffaults: anonymous memory apart, at least the $N pages touched ($anon)" \
	test "${anon:-0}" -ge "$N"
check_match "--ffaults: nothing lost" '^Lost: 0 events' "$(cat "$OUT")"

unload_memtrace
