#!/bin/sh
# memtrace-read -t: one line per allocation recorded and per free of one,
# from the module's per-CPU event rings, checked against allocations known
# exactly: memtrace_leaker.ko's in the kernel (including the ones freed
# from hard and soft interrupt context) and userleak's in user mode.  Then
# what a reader that falls behind costs: a stopped reader, its rings full,
# stalls nothing, and every call is printed or counted lost; a SIGKILLed
# one leaves nothing behind.  And a reader older than the rings (read(2),
# tests/progs/mtsession -t) still gets every record.
# mtt-timeout: 420
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
check_eq "-t: and the rings say so, at the end" "Lost: 0 trace records (ring full, or nested in another on its CPU)" \
	"$(grep -E '^Lost: [0-9]+ trace records' "$OUT")"
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
check_eq "-t -c userleak: no trace record lost" "Lost: 0 trace records (ring full, or nested in another on its CPU)" \
	"$(grep -E '^Lost: [0-9]+ trace records' "$OUT")"

# --- an older reader: read(2) of the one trace ring, as before ------------
# userleak --wait allocates on SIGUSR1: all of its 2018 calls are in the
# session.  mtsession -t configures as a reader built before the per-CPU
# rings (a shorter memtrace_config) and counts what read(2) hands it.

# start_userleak OUT: userleak --wait in the background (UL), ready.
start_userleak() {
	rm -f "$1"
	userleak --wait >"$1" 2>&1 &
	UL=$!
	wait_for 30 grep -qx ready "$1" || { not_ok "userleak --wait starts" "$(cat "$1")"; return 1; }
}

# end_userleak LABEL: SIGTERM to UL, which must exit 0.
end_userleak() {
	kill -TERM "$UL" 2>/dev/null
	wait "$UL"
	check_eq "$1" 0 "$?"
}

# lost_trace FILE: the count of memtrace-read's final "Lost: N trace records".
lost_trace() {
	sed -n 's/^Lost: \([0-9]*\) trace records .*/\1/p' "$1"
}

OUT=/tmp/old-reader.out
if start_userleak /tmp/ul-old.out; then
	mtsession -t -p "$UL" -m $((8000 * SCALE)) >"$OUT" 2>&1 &
	MS=$!
	if wait_for 60 grep -qx tracing "$OUT"; then
		kill -USR1 "$UL"
		wait_for 60 grep -qx done /tmp/ul-old.out
	fi
	wait "$MS"
	check_eq "an older reader: read(2) hands it every call of userleak" \
		"trace: 1016 allocs, 1002 frees" "$(grep '^trace:' "$OUT" || cat "$OUT")"
	end_userleak "an older reader: userleak ends normally"
fi

# stopped_reader OUT ULOUT LABEL: memtrace-read -t -p UL (R) into OUT,
# attached, then stopped (SIGSTOP) while userleak (its output in ULOUT)
# makes its 2018 calls: checked under LABEL that they all happen, the
# reader's rings full.  1 if the reader never attached (then killed).
stopped_reader() {
	rm -f "$1"
	memtrace-read -t -p "$UL" >"$1" 2>&1 &
	R=$!
	if ! wait_for 60 grep -qx "Attaching to pid $UL, Ctrl+C to quit." "$1"; then
		not_ok "-t -p userleak attaches" "$(tail -n 20 "$1")"
		kill -KILL "$R"
		return 1
	fi
	kill -STOP "$R"
	kill -USR1 "$UL"
	check "$3" wait_for $((60 * SCALE)) grep -qx done "$2"
	return 0	# attached, and stopped: the caller continues or kills it
}

# --- a slow reader: one page of ring per CPU (56 records), reader stopped --
check "memtrace.ko unloads" unload_memtrace
load_memtrace evring_pages=1 trace_records=2 || { not_ok "load memtrace.ko with one-page rings"; exit 1; }
OUT=/tmp/slow.out
if start_userleak /tmp/ul-slow.out; then
	if stopped_reader "$OUT" /tmp/ul-slow.out \
		"a stopped -t reader stalls nothing: userleak makes its 2018 calls"; then
		kill -CONT "$R"
		kill -INT "$R"
	fi
	wait "$R"
	check_eq "-t -p, stopped and continued: memtrace-read exits 0" 0 "$?"
	printed=$(count "$TS (alloc|free ) kind=malloc " "$OUT")
	lost=$(lost_trace "$OUT")
	diag "printed $printed, lost ${lost:-?}: $(grep -E '^Lost: [0-9]+ trace records' "$OUT")"
	check "-t: the full rings dropped records" [ "${lost:-0}" -gt 0 ]
	check_eq "-t: every call printed or counted lost (printed + lost = 2018)" 2018 \
		"$((printed + ${lost:-0}))"
	end_userleak "userleak ends normally after a stopped reader"
fi

# --- a SIGKILLed reader, its rings full: nothing stalls, nothing is left --
if start_userleak /tmp/ul-killed.out; then
	stopped_reader /tmp/killed.out /tmp/ul-killed.out "a stopped reader's full rings stall nothing"
	kill -KILL "$R" 2>/dev/null
	wait "$R" 2>/dev/null
	end_userleak "userleak ends normally after its reader was SIGKILLed"
fi
OUT=/tmp/after-kill.out
timeout -s KILL $((120 * SCALE)) memtrace-read -t -c /usr/bin/userleak >"$OUT" 2>&1
check_eq "-t -c userleak after a SIGKILLed reader: memtrace-read exits 0" 0 "$?"
check_eq "-t -c userleak after a SIGKILLed reader: every call printed or counted lost" 2018 \
	"$(($(count "$TS (alloc|free ) kind=malloc " "$OUT") + $(lost_trace "$OUT")))"

check "memtrace.ko unloads" unload_memtrace
