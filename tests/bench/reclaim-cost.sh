#!/bin/sh
# Guest half of `make bench` (scripts/bench.sh), in its -icount boot (one
# vCPU; the guest clock counts instructions): the cost of the pressure
# hooks per memcg reclaim.  nstime reads a 32 MiB file of an ext4 image
# (on a loop device) from a cold page cache in a memcg of 8 MiB, which
# reclaims its own page cache as it goes, once per charge that finds the
# memcg full: memory.events' "max" counts those reclaims.  Each round's
# instructions per reclaim (the read's whole time over its reclaims); the
# median of ROUNDS rounds, untraced (the floor: the tracepoints are there
# and off), under `memtrace-read --reclaim` (the begin and end of each
# reclaim: two records) and under `memtrace-read --vmscan` (every LRU
# batch and shrinker besides).
# Prints "# BENCH reclaim-<config>-{per,reclaims}" lines and never fails on
# a number.
# mtt-timeout: 900
. "${0%/*}/lib.sh"

ROUNDS=3
CG=$MEMCG_ROOT
MNT=/mnt/bench-ext4
IMG=/tmp/bench-ext4.img

load_memtrace || { not_ok "load memtrace.ko"; exit 1; }
if ! ext4_image_mount "$IMG" "$MNT"; then
	skip "bench: reclaim cost" "no ext4 image on a loop device"
	unload_memtrace
	exit 0
fi
dd if=/dev/zero of="$MNT/big" bs=1M count=32 2>/dev/null
sync
if ! new_memcg mtbench 8M; then
	skip "bench: reclaim cost" "no cgroup2 memory controller"
	ext4_image_umount "$IMG" "$MNT"
	unload_memtrace
	exit 0
fi

reclaims() { awk '$1 == "max" { print $2 }' "$CG/mtbench/memory.events"; }

# one_round: "INSTRUCTIONS_PER_RECLAIM RECLAIMS" of one cold read.
one_round() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
	m0=$(reclaims)
	ns=$(sh -c "echo \$\$ >$CG/mtbench/cgroup.procs && exec nstime read $MNT/big" | cut -d' ' -f1)
	m1=$(reclaims)
	n=$((m1 - m0))
	# A failed round (no time, no reclaim) gives no line: bench_median
	# takes the median of those that did.
	case $ns in '' | *[!0-9]*) return 0 ;; esac
	[ "$n" -gt 0 ] && echo "$((ns / n)) $n"
}

# measure NAME: the median of ROUNDS rounds, as BENCH lines.
measure() {
	bench_median $ROUNDS "reclaim-$1" per reclaims one_round
}

# with_reader NAME MODE: measure while memtrace-read MODE traces.
with_reader() {
	start_pressure_reader /tmp/bench-reclaim.out "$2" || return
	measure "$1"
	kill -INT "$READER"
	wait "$READER"
	grep -E '^Lost:' /tmp/bench-reclaim.out | tail -n 1 | sed "s/^/# BENCHINFO reclaim-$1 /"
	ok "bench: reclaim cost under memtrace-read $2"
}

one_round >/dev/null	# warm up: the file's metadata, the memcg
measure untraced
with_reader reclaim --reclaim
with_reader vmscan --vmscan
rmdir "$CG/mtbench" 2>/dev/null
ext4_image_umount "$IMG" "$MNT"
unload_memtrace
