#!/bin/sh
# Load and unload memtrace.ko 20 times while a kmalloc storm runs and a
# process that allocates (fibonacci, a calloc every 10 ms) is traced
# through uprobes on its allocators; on the debug kernel, kmemleak (the
# oracle for leaks) finds what any round leaked.  (make check's time: 20
# rounds is 45 s on 6.1, five minutes on the debug kernel.)
# Each round loads the module, runs a session on the process (every tenth
# round: on the kernel's allocators) with tests/progs/mtsession, which must
# record allocations, ends it (a stop, an exit with the session running, or
# SIGKILL mid-way, in turn) and unloads the module; the last round's reader
# is memtrace-read itself.  Afterwards nothing of memtrace is left: no
# breakpoint in the process's code (tests/progs/probecheck.c compares it
# with its files), no kprobe, no slab cache, no vmalloc area of an
# unloaded module; kmemleak (debug kernel) covers the rest.
# mtt-timeout: 900
. "${0%/*}/lib.sh"

ROUNDS=20
KPROBES=/sys/kernel/debug/kprobes/list
# Small tables: what a round costs is loading, tracing and unloading.
PARAMS="live_entries=4096 live_max_entries=16384 stack_pool_mb=1 stat_slots=1024"
OUT=/tmp/lu.out

# vmalloc areas whose caller no longer resolves to a symbol: made by a
# module that is gone, never freed.
orphan_vmallocs() {
	awk '$3 ~ /^0x/' /proc/vmallocinfo | wc -l
}

kprobe_count() {
	if [ -r "$KPROBES" ]; then wc -l <"$KPROBES"; else echo none; fi
}

# The storm runs at the lowest priority: it takes what the rounds leave.
sh -c 'while :; do ls -R /sys/kernel/slab /proc/self >/dev/null 2>&1; done' &
STORM=$!
renice -n 19 -p "$STORM" >/dev/null
fibonacci 0 10 >/dev/null &
FIB=$!
kprobes0=$(kprobe_count)
orphans0=$(orphan_vmallocs)

rounds=0 loads=0 sessions=0
while [ "$rounds" -lt $((ROUNDS - 1)) ]; do
	rounds=$((rounds + 1))
	# shellcheck disable=SC2086 # one word per parameter
	load_memtrace $PARAMS || break
	loads=$((loads + 1))
	target="-p $FIB"
	[ $((rounds % 10)) -eq 0 ] && target=
	case $((rounds % 3)) in
	0)	# SIGKILL in the middle of the session
		mtsession $target -m 5000 >"$OUT" 2>&1 &
		READER=$!
		sleep 0.1
		kill -KILL "$READER"
		wait "$READER"
		sessions=$((sessions + 1)) ;;
	1)	mtsession $target -m 50 -a >"$OUT" 2>&1 && sessions=$((sessions + 1)) ;;
	2)	mtsession $target -m 50 >"$OUT" 2>&1 && sessions=$((sessions + 1)) ;;
	esac
	[ -s "$OUT" ] && [ $((rounds % 3)) -ne 0 ] && ! grep -q '^recorded [1-9]' "$OUT" &&
		diag "round $rounds: $(cat "$OUT")"
	unload_memtrace || break
done
# The last round: memtrace-read, ended by SIGINT, reports what it traced.
rounds=$((rounds + 1))
if load_memtrace; then
	loads=$((loads + 1))
	rm -f "$OUT"
	memtrace-read -p "$FIB" 1 >"$OUT" 2>&1 &
	READER=$!
	if wait_for 60 grep -q "Attaching to pid $FIB" "$OUT"; then
		# fibonacci callocs every 10 ms: a report names it soon,
		# however slow the host.
		wait_for 60 grep -q 'fibonacci+0x' "$OUT"
		kill -INT "$READER"
		wait "$READER" && sessions=$((sessions + 1))
	else
		kill -KILL "$READER"
	fi
	check_match "memtrace-read, the last round, reports fibonacci's callocs" \
		'fibonacci\+0x[0-9a-f]+ \[fibonacci\]' "$(grep -E 'fibonacci' "$OUT" | head -n 3)"
	unload_memtrace
fi
check_eq "$ROUNDS rounds of load, trace (allocations recorded), unload" \
	"$ROUNDS $ROUNDS $ROUNDS" "$rounds $loads $sessions"

kill $STORM 2>/dev/null
check "the traced process lives on" kill -0 "$FIB"
check_eq "no breakpoint left in its code" clean "$(probecheck "$FIB" 2>&1)"
kill "$FIB"
check_eq "no memtrace.ko loaded" "" "$(grep '^memtrace ' /proc/modules)"
check_eq "no kprobe left" "$kprobes0" "$(kprobe_count)"
check_eq "no slab cache of memtrace left" "" "$(grep -i memtrace /proc/slabinfo)"
check_eq "no vmalloc area of an unloaded module" "$orphans0" "$(orphan_vmallocs)"
