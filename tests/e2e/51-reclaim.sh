#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# memtrace-read --reclaim (drsnoop's job), on memcg reclaim: busybox cat
# reads a 32 MiB file from ext4 (on a loop device) in a cgroup v2 memcg
# with memory.max 8M, which reclaims its own page cache as it goes.  The
# reclaims memtrace reports must be as many as memory.events' "max" count
# grew (try_charge_memcg() raises it once before each reclaim it makes),
# all by that cat, and the pages they reclaimed the memcg's memory.stat
# pgsteal_direct growth.
# mtt-timeout: 300
. "${0%/*}/lib.sh"

if ! load_memtrace; then
	not_ok "load memtrace.ko"
	exit 0
fi

CG=$MEMCG_ROOT
OUT=/tmp/reclaim.out
MNT=/mnt/reclaim-ext4
IMG=/tmp/reclaim-ext4.img

start_pressure_reader "$OUT" --reclaim || exit 0
stop_reader() {
	kill -INT "$READER"
	wait "$READER"
}

# ext4 on a loop device, as the soak has it.  Its modules come and go
# under the reader: a session of pressure events alone has no allocation
# tables for the module notifier to update.
if ! ext4_image_mount "$IMG" "$MNT"; then
	skip "--reclaim: memcg reclaim of page cache" "no ext4 image on a loop device"
	stop_reader
	unload_memtrace
	exit 0
fi
dd if=/dev/zero of="$MNT/big" bs=1M count=32 2>/dev/null
sync
echo 3 >/proc/sys/vm/drop_caches
if ! new_memcg mtreclaim 8M; then
	skip "--reclaim: memcg reclaim of page cache" "no cgroup2 memory controller"
	stop_reader
	ext4_image_umount "$IMG" "$MNT"
	unload_memtrace
	exit 0
fi

stat_of() { awk -v k="$2" '$1 == k { print $2 }' "$CG/mtreclaim/$1"; }
max0=$(stat_of memory.events max)
steal0=$(stat_of memory.stat pgsteal_direct)
sh -c "echo \$\$ >$CG/mtreclaim/cgroup.procs && exec cat $MNT/big" >/dev/null &
CAT=$!
wait "$CAT"
max1=$(stat_of memory.events max)
steal1=$(stat_of memory.stat pgsteal_direct)
ext4_image_umount "$IMG" "$MNT"
check_eq "--reclaim: still tracing after modules came and went" running \
	"$(kill -0 "$READER" 2>/dev/null && echo running)"
stop_reader
diag "$(grep -v '^[0-9:]* ' "$OUT")"
diag "memory.events max $max0 -> $max1, memory.stat pgsteal_direct $steal0 -> $steal1"

summary=$(sed -n 's/.*memcg reclaim: \([0-9]*\) reclaims, \([0-9]*\) pages reclaimed$/\1 \2/p' "$OUT")
n=${summary% *}
pages=${summary#* }
check_match "--reclaim: the cat's memcg reclaimed (memory.events max grew)" '^[1-9]' "$((max1 - max0))"
check_eq "--reclaim: as many memcg reclaims as memory.events' max count grew" \
	"$((max1 - max0))" "$n"
check_eq "--reclaim: the pages they reclaimed are memory.stat's pgsteal_direct growth" \
	"$((steal1 - steal0))" "$pages"
check_eq "--reclaim: each is a line by the cat (pid $CAT), with its latency and pages" "$n" \
	"$(grep -cE "^[0-9:]{8} cat +$CAT +[0-9]+\.[0-9]{3} +[0-9]+ memcg$" "$OUT")"
check_match "--reclaim: the cat's latency histogram counts them" \
	"^pid $CAT \\(cat\\): $n reclaims, $pages pages, avg [0-9.]+ ms$" "$(cat "$OUT")"
check_match "--reclaim: nothing lost" "^Lost: 0 events" "$(cat "$OUT")"

rmdir "$CG/mtreclaim" 2>/dev/null
check "memtrace.ko unloads" unload_memtrace
