#!/bin/sh
# Guest half of `make bench` (scripts/bench.sh): the added cost of memtrace
# per kmalloc+kfree pair against the empty-probe floor, in one boot.
# Prints "# BENCH <name> <ns per pair>" lines: instructions per pair in
# scripts/bench.sh's -icount boot, where the guest clock counts them.
# mtt-timeout: 900
. "${0%/*}/lib.sh"

P=/sys/module/memtrace_bench/parameters
ROUNDS=5

load_memtrace || { not_ok "load memtrace.ko"; exit 1; }
insmod /memtrace/memtrace_bench.ko || { not_ok "load memtrace_bench.ko"; exit 1; }
echo 100000 >$P/pairs

# median_of MODE: ns per pair, the median of ROUNDS runs
median_of() {
	i=0
	while [ $i -lt $ROUNDS ]; do
		echo "$1" >$P/run && cut -d' ' -f4 $P/result
		i=$((i + 1))
	done | sort -n | sed -n "$(((ROUNDS + 1) / 2))p"
}

# with_reader NAME ARGS...: "# BENCH NAME N", plain runs while memtrace-read
# traces with ARGS.  Sampling by address (-s N) decides per session (a
# seed each), and the loop allocates and frees the same object again and
# again: about one session in N samples every pair and reads as full
# stacks.  So with -s, the median of 3 sessions (each one listed).
with_reader() {
	name=$1
	shift
	sessions=1
	case " $* " in *" -s "*) sessions=3 ;; esac
	: >/tmp/bench-sessions
	s=0	# not i: median_of sets i
	while [ $s -lt $sessions ]; do
		start_kernel_reader /tmp/bench-reader.out "bench: memtrace-read $* attaches" \
			"$@" 3600 1 || return
		median_of plain >>/tmp/bench-sessions
		kill -INT "$READER"
		wait "$READER"
		grep -E '^(Lost|Activity):' /tmp/bench-reader.out | tail -n 2 | sed "s/^/# BENCHINFO $name /"
		s=$((s + 1))
	done
	echo "# BENCH $name $(sort -n /tmp/bench-sessions | sed -n "$(((sessions + 1) / 2))p")"
	[ $sessions -eq 1 ] ||
		echo "# BENCHINFO $name sessions (each the median of $ROUNDS runs): $(tr '\n' ' ' </tmp/bench-sessions)"
	ok "bench: $name"
}

median_of plain >/dev/null	# warm the caches
echo "# BENCH untraced $(median_of plain)"
echo "# BENCH floor $(median_of floor)"
with_reader memtrace-full
with_reader memtrace-s100 -s 100
with_reader memtrace-bytes512k --sample-bytes 524288

# Full stacks again with the stack memo off (kmod/unwind/kstack.h): every
# recorded allocation unwinds its stack.
unload_memtrace && load_memtrace stack_memo_slots=0 ||
	{ not_ok "reload memtrace.ko with stack_memo_slots=0"; exit 1; }
with_reader memtrace-full-nomemo
unload_memtrace && load_memtrace || { not_ok "reload memtrace.ko"; exit 1; }

# By size, and kmem_cache pairs: "# BENCH k-<what>-<config> <ns>", fewer
# pairs per round (5 configurations each).
echo 50000 >$P/pairs
sweep() {
	what=$1
	median_of plain >/dev/null
	echo "# BENCH k-$what-untraced $(median_of plain)"
	echo "# BENCH k-$what-floor $(median_of floor)"
	with_reader "k-$what-full"
	with_reader "k-$what-s100" -s 100
	with_reader "k-$what-bytes512k" --sample-bytes 524288
}
for sz in 32 512 4096; do
	echo "$sz" >$P/size
	sweep "kmalloc$sz"
done
echo 1 >$P/use_cache
echo 64 >$P/size
sweep cache64
echo 0 >$P/use_cache
rmmod memtrace_bench
unload_memtrace
