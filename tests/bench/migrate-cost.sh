#!/bin/sh
# Guest half of `make bench` (scripts/bench.sh), in its -icount boot with
# two NUMA nodes (one vCPU; the guest clock counts instructions): the cost
# of the migration hooks per page migrated.  `migratepages 64` writes 64 MiB
# bound to node 0 and moves them to node 1 with migrate_pages(2): the same
# work every run.  Its whole run's instructions (nstime run: fork to wait),
# the median of ROUNDS runs, untraced (the floor: the tracepoints are
# there and off) and under `memtrace-read --migration` (mm_migrate_pages
# and mm_migrate_pages_start: two records per batch of pages); the pages
# moved are migratepages' own count (/proc/self/numa_maps).
# Prints "# BENCH migrate-<config>-{ns,pages}" lines and never fails on a
# number.
# mtt-timeout: 900
. "${0%/*}/lib.sh"

ROUNDS=5
MIB=64

if [ ! -d /sys/devices/system/node/node1 ]; then
	skip "bench: migration cost" "one NUMA node (run-guest.sh --numa 2)"
	exit 0
fi
load_memtrace || { not_ok "load memtrace.ko"; exit 1; }

# one_round: "NS PAGES_MOVED" of one migratepages run.
one_round() {
	ns=$(nstime run migratepages $MIB 2>/tmp/bench-mp.out) || return
	pages=$(sed -n 's/^after: node0 [0-9]* node1 \([0-9]*\)$/\1/p' /tmp/bench-mp.out)
	echo "$ns ${pages:-0}"
}

# measure NAME: the median of ROUNDS rounds, as BENCH lines.
measure() {
	bench_median $ROUNDS "migrate-$1" ns pages one_round
}

one_round >/dev/null	# warm up
measure untraced
if start_pressure_reader /tmp/bench-migrate.out --migration; then
	measure migration
	kill -INT "$READER"
	wait "$READER"
	grep -E '^Lost:' /tmp/bench-migrate.out | tail -n 1 | sed "s/^/# BENCHINFO migrate-migration /"
	ok "bench: migration cost under memtrace-read --migration"
fi
unload_memtrace
