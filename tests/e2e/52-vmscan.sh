#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# memtrace-read --vmscan (vmscan(8)'s job), against /proc/vmstat: with the
# reader running, busybox cat reads a 40 MiB file from ext4 (on a loop
# device) in a memcg of memory.max 8M, which reclaims its own page cache;
# then cat reads it again outside any memcg, filling the page cache, and
# memhog writes anonymous memory past the watermarks, so kswapd (and
# maybe the allocating task) reclaims that cache guest-wide.  Over the whole
# run, with the guest quiet at both ends, every total the reader prints in
# /proc/vmstat's terms must equal the growth of that counter: pages
# scanned and reclaimed by kswapd, directly, anon and file (memcg reclaim
# is in the anon/file counts only), kswapd's balancing runs (pageoutrun),
# objects scanned by slab shrinkers (slabs_scanned), pages written out by
# reclaim (nr_vmscan_write).  allocstall_* counts passes of
# do_try_to_free_pages(), which retries a failing direct reclaim: at least
# one per direct reclaim, and none without one.
# mtt-timeout: 400
. "${0%/*}/lib.sh"

if ! load_memtrace; then
	not_ok "load memtrace.ko"
	exit 0
fi

CG=$MEMCG_ROOT
OUT=/tmp/vmscan.out
MNT=/mnt/vmscan-ext4
IMG=/tmp/vmscan-ext4.img

cleanup() {
	ext4_image_umount "$IMG" "$MNT"
	rmdir "$CG/mtvmscan" 2>/dev/null
}
if ! ext4_image_mount "$IMG" "$MNT"; then
	skip "--vmscan: reclaim of page cache" "no ext4 image on a loop device"
	cleanup
	unload_memtrace
	exit 0
fi
dd if=/dev/zero of="$MNT/big" bs=1M count=40 2>/dev/null
sync
if ! new_memcg mtvmscan 8M; then
	skip "--vmscan: memcg reclaim" "no cgroup2 memory controller"
	cleanup
	unload_memtrace
	exit 0
fi
echo 3 >/proc/sys/vm/drop_caches

start_pressure_reader "$OUT" --vmscan || { cleanup; exit 0; }

# The counters the reader's "vmstat:" line names, from /proc/vmstat:
# direct reclaim by khugepaged is apart on 6.12 (pgscan_khugepaged), and
# in pgscan_direct before; allocstall is per zone.
vmstat_terms() {
	awk '{ v[$1] = $2 }
	     $1 ~ /^allocstall_/ { stall += $2 }
	     END { printf "pgscan_kswapd %d pgscan_direct %d pgsteal_kswapd %d pgsteal_direct %d ",
		v["pgscan_kswapd"], v["pgscan_direct"] + v["pgscan_khugepaged"],
		v["pgsteal_kswapd"], v["pgsteal_direct"] + v["pgsteal_khugepaged"]
		   printf "pgscan_anon %d pgscan_file %d pgsteal_anon %d pgsteal_file %d ",
		v["pgscan_anon"], v["pgscan_file"], v["pgsteal_anon"], v["pgsteal_file"]
		   printf "pageoutrun %d allocstall %d slabs_scanned %d nr_vmscan_write %d\n",
		v["pageoutrun"], stall, v["slabs_scanned"], v["nr_vmscan_write"] }' /proc/vmstat
}
wait_for 60 counters_still vmstat_terms || diag "the guest did not go quiet before the run"
before=$(vmstat_terms)

# memcg reclaim: the cat's own page cache, in 8M.
sh -c "echo \$\$ >$CG/mtvmscan/cgroup.procs && exec cat $MNT/big" >/dev/null
memcg_events=$(awk '$1 == "max" { print $2 }' "$CG/mtvmscan/memory.events")
# Guest-wide: 40 MiB of page cache, then anonymous memory past what is free.
cat "$MNT/big" >/dev/null
# Free memory above the zones' high watermarks, plus half the file cache:
# writing that much takes free memory below the watermarks by half the
# cache, which kswapd (and maybe the writer) must reclaim, with cache left
# over.  Free memory alone would count the watermarks' reserve, which
# khugepaged raises to tens of MiB (an OOM kill, not reclaim); the
# kernel's MemAvailable estimate stays above the watermarks (no reclaim).
free_kb=$(awk '$1 == "MemFree:" { print $2 }' /proc/meminfo)
file_kb=$(awk '$1 == "Active(file):" || $1 == "Inactive(file):" { n += $2 } END { print n + 0 }' /proc/meminfo)
high_kb=$(awk '$1 == "high" { n += $2 } END { print n * 4 }' /proc/zoneinfo)
hog=$(((free_kb - high_kb + file_kb / 2) / 1024))
diag "MemFree $((free_kb / 1024)) MiB, high watermarks $((high_kb / 1024)) MiB, file cache $((file_kb / 1024)) MiB: memhog writes $hog MiB"
hog_failed=
memhog "$hog" >/dev/null || hog_failed="memhog exited $?"
# kswapd may wake and balance without scanning (6.12's multi-generational
# LRU ages first, as seen in a make check): once more, a quarter of the
# cache further below the watermarks.
guest_wide_scans() {
	_gw=$(vmstat_delta "$before" "$(vmstat_terms)")
	echo $(($(vmstat_term pgscan_kswapd "$_gw") + $(vmstat_term pgscan_direct "$_gw")))
}
if [ -z "$hog_failed" ] && grep -q '^pgscan_kswapd ' /proc/vmstat &&
   [ "$(guest_wide_scans)" -eq 0 ]; then
	hog=$((hog + file_kb / 4 / 1024))
	diag "no guest-wide scan yet: memhog writes $hog MiB"
	memhog "$hog" >/dev/null || hog_failed="memhog exited $?"
fi

wait_for 60 counters_still vmstat_terms || diag "the guest did not go quiet after the run"
after=$(vmstat_terms)
kill -INT "$READER"
wait "$READER"
cleanup

diag "$(grep -v '^[0-9:]\{8\} ' "$OUT")"
diag "/proc/vmstat before: $before"
diag "/proc/vmstat after:  $after"
delta=$(vmstat_delta "$before" "$after")
got=$(sed -n 's/^vmstat: //p' "$OUT")

check_match "--vmscan: the memcg reclaimed (memory.events max $memcg_events)" '^[1-9]' "$memcg_events"
if grep -q '^pgscan_kswapd ' /proc/vmstat; then
	# A precondition of the guest-wide comparison, not memtrace's result:
	# on 6.12 kswapd has balanced without scanning under both memhogs
	# (pageoutrun grew, pgscan did not).  The totals below are compared
	# either way; the guest-wide part is then a comparison of zeros.
	gw=$(($(vmstat_term pgscan_kswapd "$delta") + $(vmstat_term pgscan_direct "$delta")))
	if [ "$gw" -gt 0 ]; then
		ok "--vmscan: page cache was scanned guest-wide (pgscan_kswapd + pgscan_direct grew)"
	else
		skip "--vmscan: page cache was scanned guest-wide" \
			"kswapd ran $(vmstat_term pageoutrun "$delta") times and scanned nothing"
	fi
else
	skip "--vmscan: page cache was scanned guest-wide" "no pgscan_* in /proc/vmstat"
fi
check_match "--vmscan: memcg reclaims seen" \
	'memcg reclaim: [1-9][0-9]* reclaims' "$(cat "$OUT")"
for k in pgscan_kswapd pgscan_direct pgsteal_kswapd pgsteal_direct pgscan_anon pgscan_file \
	 pgsteal_anon pgsteal_file pageoutrun slabs_scanned nr_vmscan_write; do
	check_vmstat "--vmscan: $k is /proc/vmstat's growth" "$k" "$(vmstat_term "$k" "$delta")" \
		"$(vmstat_term "$k" "$got")"
done
direct=$(sed -n 's/^direct reclaim: \([0-9]*\) reclaims.*/\1/p' "$OUT")
stalls=$(vmstat_term allocstall "$delta")
if grep -q '^allocstall_' /proc/vmstat; then
	check "--vmscan: direct reclaims ($direct) are some if and only if allocstall grew ($stalls), and no more" \
		[ "$direct" -le "$stalls" -a \( "$direct" -gt 0 -o "$stalls" -eq 0 \) ]
else
	skip "--vmscan: direct reclaims against allocstall" "no allocstall_* in /proc/vmstat"
fi
check_match "--vmscan: an interval row each second" \
	'^[0-9:]{8} +[0-9]+ +[0-9]+\.[0-9]{3} ' "$(cat "$OUT")"
check_match "--vmscan: slab shrinkers named by their scan function" \
	'^  [a-z_][a-z_0-9.]*( \[[a-z_0-9]+\])? +[0-9]+ +[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+$' "$(cat "$OUT")"
check_match "--vmscan: memhog was not OOM-killed (reclaim kept up)" '^$' "$hog_failed"
# The Lost: line alone: on a failure, its per-CPU counts are the evidence.
check_match "--vmscan: nothing lost" "^Lost: 0 events" "$(grep '^Lost:' "$OUT")"
check_match "--vmscan: every end had its begin" '^$' "$(grep 'without their begin' "$OUT")"

check "memtrace.ko unloads" unload_memtrace
