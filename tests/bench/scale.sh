#!/bin/sh
# Guest half of `make bench` (scripts/bench.sh), scale: its own boot, with
# memory for 16M live objects.  Reports, never asserts on a number:
#  - live index: N kmalloc(32) objects kept live (memtrace_bench.ko
#    hold:N, then release) untraced and under a snaptime session
#    (tests/progs/snaptime.c): cost per insert and per delete, memory per
#    tracked entry (MemFree), capacity, drops, the snapshot ioctl's time;
#  - 100K distinct stacks (memtrace_bench.ko stacks:N): the snapshot
#    ioctl's time, and memtrace-read's snapshot + symbolize + report time;
#  - the trace ring (memtrace-read -t) under a loop of kmalloc+kfree pairs.
# Prints "# BENCH scale-<name> <value>" and "# BENCHINFO scale ..." lines.
# mtt-timeout: 3000
. "${0%/*}/lib.sh"

P=/sys/module/memtrace_bench/parameters
COUNTS="1048576 4194304 16777216"
# A count whose traced hold + release would take longer than this (from
# the last count's time) is skipped, and said so.
BUDGET_S=900
STACKS=100000

memfree() { sed -n 's/^MemFree: *\([0-9]*\) kB$/\1/p' /proc/meminfo; }
# centiseconds since boot
now_cs() {
	read -r u _ </proc/uptime
	echo "${u%.*}${u#*.}"
}
# field N of the bench module's result
res() { cut -d' ' -f"$1" $P/result; }
# kv KEY LINE: the value of KEY=value in LINE
kv() { printf '%s\n' "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }

bench_load() {
	load_memtrace "$@" || { not_ok "bench: load memtrace.ko $*"; return 1; }
	if ! insmod /memtrace/memtrace_bench.ko; then
		not_ok "bench: load memtrace_bench.ko"
		unload_memtrace
		return 1
	fi
	echo 32 >$P/size
}

bench_unload() {
	rmmod memtrace_bench
	unload_memtrace
}

# snap_start: a snaptime session in the background ($snap), tracing
snap_start() {
	rm -f /tmp/snap.out
	snaptime >/tmp/snap.out 2>&1 &
	snap=$!
	wait_for 60 grep -q '^ready' /tmp/snap.out && return 0
	not_ok "bench: snaptime starts" "$(cat /tmp/snap.out)"
	kill $snap 2>/dev/null
	return 1
}

# snap_take SIG: signal snaptime, print its next "snap" line
# snaps_above N: snaptime has printed more than N "snap" lines (a function,
# so that wait_for counts them again at each try)
snaps_above() {
	[ "$(grep -c '^snap' /tmp/snap.out)" -gt "$1" ]
}

snap_take() {
	n=$(grep -c '^snap' /tmp/snap.out)
	kill -"$1" $snap
	wait_for 900 snaps_above "$n" || { echo "snap none"; return 1; }
	grep '^snap' /tmp/snap.out | tail -n 1
}

# step TEXT: a progress comment, with the time since boot
step() { echo "# scale: $(cut -d' ' -f1 /proc/uptime) s: $*"; }

# live_index N
live_index() {
	n=$1
	step "live index $n: untraced"
	# the default maximum (16M) or room for 2N, whichever is more
	max=$((2 * n > 16777216 ? 2 * n : 16777216))
	bench_load live_max_entries=$max stack_pool_mb=4 stat_slots=4096 || return 1
	echo release >$P/run
	m0=$(memfree)
	echo "hold:$n" >$P/run || { not_ok "bench: scale hold:$n untraced" "$(cat $P/result)"; bench_unload; return 1; }
	uhold=$(res 5)
	m1=$(memfree)
	echo release >$P/run
	urel=$(res 5)
	m2=$(memfree)
	step "live index $n: traced hold"
	snap_start || { bench_unload; return 1; }
	m3=$(memfree)
	t0=$(now_cs)
	echo "hold:$n" >$P/run || not_ok "bench: scale hold:$n traced" "$(cat $P/result)"
	thold=$(res 5)
	m4=$(memfree)
	step "live index $n: snapshot"
	held=$(snap_take USR1)
	step "live index $n: traced release"
	echo release >$P/run
	trel=$(res 5)
	t1=$(now_cs)
	last=$(snap_take INT)
	wait $snap
	bench_unload

	objects=$((m0 - m1))
	total=$((m2 - m4 - objects))
	echo "# BENCH scale-live-$n-entries $(kv live "$held")"
	echo "# BENCH scale-live-$n-capacity $(kv capacity "$held")"
	echo "# BENCH scale-live-$n-bytes $(awk -v t="$total" -v n="$n" 'BEGIN { printf "%.1f", t * 1024 / n }')"
	echo "# BENCH scale-live-$n-insert-ns $(((thold - uhold) / n))"
	echo "# BENCH scale-live-$n-delete-ns $(((trel - urel) / n))"
	echo "# BENCH scale-live-$n-snap-ms $(($(kv ns "$held") / 1000000))"
	echo "# BENCH scale-live-$n-live-full $(kv live_full "$last")"
	echo "# BENCH scale-live-$n-lost $(kv lost "$last")"
	echo "# BENCHINFO scale live:$n: hold ns untraced $uhold traced $thold; release ns" \
		"untraced $urel traced $trel; MemFree kB: objects $objects, memtrace at start" \
		"$((m2 - m3)), memtrace in all $total"
	echo "# BENCHINFO scale live:$n: held: $held"
	echo "# BENCHINFO scale live:$n: released: $last"
	echo "# BENCHINFO scale live:$n: traced hold+release took $(((t1 - t0) / 100)) s"
	ok "bench: scale live index $n"
	last_s=$(((t1 - t0) / 100))
	last_n=$n
}

stacks() {
	bench_load stack_pool_mb=128 stat_slots=262144 || return 1
	# The snapshot ioctl alone
	snap_start || { bench_unload; return 1; }
	echo "stacks:$STACKS" >$P/run || not_ok "bench: stacks:$STACKS" "$(cat $P/result)"
	echo "# BENCHINFO scale stacks: $(cat $P/result) (traced)"
	held=$(snap_take USR1)
	echo release >$P/run
	snap_take INT >/dev/null
	wait $snap
	echo "# BENCH scale-stacks-count $(kv stacks "$held")"
	echo "# BENCH scale-stacks-snap-ms $(($(kv ns "$held") / 1000000))"
	echo "# BENCHINFO scale stacks: snaptime: $held"

	# memtrace-read: from SIGINT to its exit, the last snapshot, its
	# symbolization and the report of every stack
	rm -f /tmp/stacks.out
	memtrace-read --kernel-leaks -T $((STACKS * 2)) 3600 1 >/tmp/stacks.out 2>&1 &
	r=$!
	if ! wait_for 60 grep -q Attaching /tmp/stacks.out; then
		not_ok "bench: memtrace-read attaches" "$(cat /tmp/stacks.out)"
		kill $r 2>/dev/null
		bench_unload
		return 1
	fi
	echo "stacks:$STACKS" >$P/run || not_ok "bench: stacks:$STACKS" "$(cat $P/result)"
	sleep 1		# older than -o's 500 ms
	t0=$(now_cs)
	kill -INT $r
	wait $r
	t1=$(now_cs)
	echo release >$P/run
	echo "# BENCH scale-stacks-report-ms $(((t1 - t0) * 10))"
	echo "# BENCH scale-stacks-reported $(grep -c 'allocations from stack' /tmp/stacks.out)"
	echo "# BENCHINFO scale stacks: memtrace-read output $(wc -l </tmp/stacks.out) lines"
	grep -E '^(Lost|Activity):' /tmp/stacks.out | tail -n 2 | sed 's/^/# BENCHINFO scale stacks: /'
	bench_unload
	ok "bench: scale 100K stacks"
}

trace_ring() {
	pairs=200000
	bench_load || return 1
	echo $pairs >$P/pairs
	echo 64 >$P/size
	rm -f /tmp/trace.out
	memtrace-read --kernel-leaks -t 3600 1 >/tmp/trace.out 2>&1 &
	r=$!
	if ! wait_for 60 grep -q Attaching /tmp/trace.out; then
		not_ok "bench: memtrace-read -t attaches" "$(cat /tmp/trace.out)"
		kill $r 2>/dev/null
		bench_unload
		return 1
	fi
	echo plain >$P/run
	ns=$(res 4)
	sleep 2		# let the reader drain the ring
	kill -INT $r
	wait $r
	dropped=$(sed -n 's/^Trace: \([0-9]*\) records dropped.*/\1/p' /tmp/trace.out | tail -n 1)
	# the loop's kmallocs and kfrees: two events a pair
	echo "# BENCH scale-trace-events-per-s $((2000000000 / ns))"
	echo "# BENCH scale-trace-dropped ${dropped:-0}"
	echo "# BENCH scale-trace-events $((2 * pairs))"
	echo "# BENCHINFO scale trace: $pairs pairs at $ns ns/pair; $(wc -l </tmp/trace.out) lines of output"
	grep -E '^(Trace|Lost|Activity):' /tmp/trace.out | tail -n 3 | sed 's/^/# BENCHINFO scale trace: /'
	bench_unload
	ok "bench: scale trace ring"
}

for p in snaptime memtrace-read; do
	command -v $p >/dev/null || { not_ok "bench: $p in the guest"; exit 1; }
done
echo "# BENCHINFO scale guest: $(sed -n 's/^MemTotal: *//p' /proc/meminfo) memory, $(nproc) CPUs"
last_s='' last_n=''
for n in $COUNTS; do
	if [ -n "$last_s" ] && [ $((last_s * n / last_n)) -gt $BUDGET_S ]; then
		echo "# BENCH scale-live-$n-skipped $((last_s * n / last_n))"
		echo "# BENCHINFO scale live:$n: skipped: about $((last_s * n / last_n)) s traced (budget $BUDGET_S s)"
		continue
	fi
	live_index "$n"
done
stacks
trace_ring
