#!/bin/sh
# Guest half of `make bench` (scripts/bench.sh): what -t loses at a known
# rate.  memtrace_bench.ko's paced run offers kmalloc(5000)+kfree pairs at
# RATE events a second (two a pair) for about a second, while
# `memtrace-read --kernel-leaks -t -z 8192 -Z 8192` (kmalloc-8k only: the
# size filter is on the bytes allocated; few others use it, and they are
# counted apart) prints a line per event into a file in the guest's RAM.
# Produced: the loop's events; printed: the reader's lines of them; lost:
# its last "Lost: N trace records" (every CPU's full-ring drops, an
# other 8 KiB allocation's among them).  Printed + lost must be produced:
# the BENCHINFO line says whether it is.
# Under TCG the loop cannot offer more than it can make: "achieved" is the
# rate it reached.  Prints "# BENCH trace-RATE-{achieved,produced,printed,lost}".
# Reports; never fails on a number.
# mtt-timeout: 900
. "${0%/*}/lib.sh"

P=/sys/module/memtrace_bench/parameters
SIZE=5000
SLAB=8192
OUT=/tmp/trace-pairs.out

load_memtrace || { not_ok "load memtrace.ko"; exit 1; }
insmod /memtrace/memtrace_bench.ko || { not_ok "load memtrace_bench.ko"; exit 1; }
echo $SIZE >$P/size

# paced RATE: one paced run of a second's pairs at RATE events/s, traced.
paced() {
	rate=$1 pairs=$(($1 / 2))
	echo "$rate" >$P/rate
	echo "$pairs" >$P/pairs
	start_kernel_reader "$OUT" "bench: memtrace-read -t attaches" \
		-t -z $SLAB -Z $SLAB 3600 1 || return
	echo paced >$P/run
	achieved=$(cut -d' ' -f5 $P/result)
	sleep 2		# the reader drains what it can; the rest is lost or in the rings
	kill -INT "$READER"
	wait "$READER"
	printed=$(grep -cE "^\[[0-9.]+\] (alloc|free ) kind=kmalloc size=$SIZE " "$OUT")
	others=$(grep -E "^\[[0-9.]+\] (alloc|free ) " "$OUT" | grep -cv " size=$SIZE ")
	lost=$(sed -n 's/^Lost: \([0-9]*\) trace records.*/\1/p' "$OUT")
	produced=$((2 * pairs))
	echo "# BENCH trace-$rate-achieved $achieved"
	echo "# BENCH trace-$rate-produced $produced"
	echo "# BENCH trace-$rate-printed $printed"
	echo "# BENCH trace-$rate-lost ${lost:-?}"
	if [ -n "$lost" ] && [ $((printed + lost)) -eq "$produced" ]; then
		exact="printed + lost = produced"
	else
		exact="printed + lost != produced"
	fi
	echo "# BENCHINFO trace $rate/s offered, $achieved/s achieved: $produced produced," \
		"$printed printed, ${lost:-?} lost ($exact), $others lines of other 8 KiB blocks;" \
		"$(grep -E '^Lost: [0-9]+ trace records' "$OUT")"
	ok "bench: -t at $rate events/s"
}

for rate in 1000000 200000 50000; do
	paced $rate
done
rmmod memtrace_bench
unload_memtrace
