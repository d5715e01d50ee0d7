#!/bin/sh
# memtrace-read -t: one line per allocation recorded and per free of one,
# from the module's trace ring (read(2) of /dev/memtrace), checked against
# allocations known exactly: memtrace_leaker.ko's in the kernel (including
# the ones freed from hard and soft interrupt context) and userleak's in
# user mode.
# mtt-timeout: 300
. "${0%/*}/lib.sh"

LEAKER_PARAMS=/sys/module/memtrace_leaker/parameters
SCALE=${MTT_TIMEOUT_SCALE:-1}
TS='^\[[0-9]+\.[0-9]{6}\]'

# count ERE FILE: lines of FILE matching ERE
count() {
	grep -cE -e "$1" "$2"
}

load_memtrace || { not_ok "load memtrace.ko"; exit 1; }
check "load memtrace_leaker.ko" insmod /memtrace/memtrace_leaker.ko || exit 1

# --- kernel: kmalloc-1k .. kmalloc-4k, with the leaker's round in it -------
OUT=/tmp/ktrace.out
start_kernel_reader "$OUT" "-t: memtrace-read attaches" \
	-t -z 1024 -Z 4096 $((3 * SCALE)) 1 || exit 1
echo 1 >"$LEAKER_PARAMS/leak"
wait "$READER"
check_eq "-t: memtrace-read exits 0" 0 "$?"
diag "$(grep -E ' from leaker_' "$OUT" | head -n 12)"
check_eq "-t: an alloc line per kmalloc(1000) of leaker_kmalloc_leak" 10 \
	"$(count "$TS alloc kind=kmalloc size=1000 addr=0x[0-9a-f]+ pid=[0-9]+ comm=[^ ]+ from leaker_kmalloc_leak\+0x[0-9a-f]+ \[memtrace_leaker\]\$" "$OUT")"
check_eq "-t: an alloc line per kmalloc(3000) of leaker_irq_alloc" 10 \
	"$(count "$TS alloc kind=kmalloc size=3000 .* from leaker_irq_alloc\+0x" "$OUT")"
check_eq "-t: a free line, in hard IRQ context, per buffer the hrtimer frees" 5 \
	"$(count "$TS free  kind=kmalloc size=3000 .* comm=\[hardirq\] from leaker_irq_alloc\+0x" "$OUT")"
check_eq "-t: a free line, in softirq context, per buffer the timer frees" 5 \
	"$(count "$TS free  kind=kmalloc size=3000 .* comm=\[softirq\] from leaker_irq_alloc\+0x" "$OUT")"
check_eq "-t: the kept kmalloc(1000)s are never freed" 0 \
	"$(count "$TS free .* from leaker_kmalloc_leak\+0x" "$OUT")"
check_match "-t: the report still follows" '^\[[0-9:]+\] Top [0-9]+ stacks' "$(cat "$OUT")"
check_eq "-t: no trace record dropped (the reader keeps up)" "" \
	"$(grep -E '^Trace: [0-9]+ records dropped' "$OUT")"
check "rmmod memtrace_leaker" rmmod memtrace_leaker

# --- user mode: userleak's 1016 allocations and 1002 frees ----------------
OUT=/tmp/utrace.out
timeout -s KILL $((120 * SCALE)) memtrace-read -t -c /usr/bin/userleak >"$OUT" 2>&1
check_eq "-t -c userleak: memtrace-read exits 0" 0 "$?"
check_eq "-t -c userleak: an alloc line per malloc-family allocation (as Memcheck counts)" 1016 \
	"$(count "$TS alloc kind=malloc " "$OUT")"
check_eq "-t -c userleak: a free line per free of one" 1002 \
	"$(count "$TS free  kind=malloc " "$OUT")"
check_eq "-t -c userleak: 5 x malloc(100) from leak_malloc" 5 \
	"$(count "$TS alloc kind=malloc size=100 addr=0x[0-9a-f]+ pid=[0-9]+ comm=userleak from leak_malloc\+0x[0-9a-f]+ \[userleak\]" "$OUT")"
check_eq "-t -c userleak: 1000 x malloc(64) and its free, from churn" "1000 1000" \
	"$(count "$TS alloc kind=malloc size=64 .* from churn\+0x" "$OUT") $(count "$TS free  kind=malloc size=64 .* from churn\+0x" "$OUT")"
check_match "-t -c userleak: and the heap summary" 'in use at exit: 2,724 bytes in 14 blocks' "$(cat "$OUT")"

check "memtrace.ko unloads" unload_memtrace
