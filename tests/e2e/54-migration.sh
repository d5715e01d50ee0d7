#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# memtrace-read --migration, against /proc/vmstat, on a guest with two
# NUMA nodes (run-guest.sh --numa 2): migratepages writes 64 MiB bound to
# node 0, then moves its pages to node 1 with migrate_pages(2).  With the
# guest quiet at both ends, the pages migrated and failed over the run
# (pgmigrate_*, thp_migration_*, numa_pages_migrated) must equal the
# reader's totals; the program's call is a syscall_or_cpuset migration of
# at least the pages numa_maps saw move.  Then NUMA balancing: 16 MiB
# bound to node 1 read from CPU 0 for a few seconds, with the scanner's
# delay and period cut short (debugfs); the pages it moved back are
# numa_misplaced migrations, numa_pages_migrated.
# mtt-timeout: 300
. "${0%/*}/lib.sh"

if [ ! -d /sys/devices/system/node/node1 ]; then
	skip "--migration" "one NUMA node (run-guest.sh --numa 2)"
	exit 0
fi
if ! load_memtrace; then
	not_ok "load memtrace.ko"
	exit 0
fi
OUT=/tmp/migration.out
PROG_OUT=/tmp/migratepages.out

start_pressure_reader "$OUT" --migration || exit 0

vmstat_terms() {
	awk '{ v[$1] = $2 }
	     END { printf "pgmigrate_success %d pgmigrate_fail %d thp_migration_success %d ",
		v["pgmigrate_success"], v["pgmigrate_fail"], v["thp_migration_success"]
		   printf "thp_migration_fail %d thp_migration_split %d numa_pages_migrated %d\n",
		v["thp_migration_fail"], v["thp_migration_split"], v["numa_pages_migrated"] }' /proc/vmstat
}
wait_for 60 counters_still vmstat_terms || diag "the guest did not go quiet before the run"
before=$(vmstat_terms)
migratepages 64 >"$PROG_OUT" 2>&1 &
PROG=$!
wait "$PROG"
prog_rc=$?
NB=/sys/kernel/debug/sched/numa_balancing
BAL_OUT=/tmp/numa-balance.out
balanced=
if [ -w /proc/sys/kernel/numa_balancing ] && [ -w "$NB/scan_delay_ms" ]; then
	nb_was=$(cat /proc/sys/kernel/numa_balancing)
	delay_was=$(cat "$NB/scan_delay_ms")
	period_was=$(cat "$NB/scan_period_min_ms")
	echo 1 >/proc/sys/kernel/numa_balancing
	echo 0 >"$NB/scan_delay_ms"
	echo 100 >"$NB/scan_period_min_ms"
	migratepages -b 16 8 >"$BAL_OUT" 2>&1 &
	balanced=$!
	wait "$balanced"
	echo "$nb_was" >/proc/sys/kernel/numa_balancing
	echo "$delay_was" >"$NB/scan_delay_ms"
	echo "$period_was" >"$NB/scan_period_min_ms"
fi
wait_for 60 counters_still vmstat_terms || diag "the guest did not go quiet after the run"
after=$(vmstat_terms)
kill -INT "$READER"
wait "$READER"

diag "$(cat "$PROG_OUT")"
diag "$(cat "$OUT")"
diag "/proc/vmstat before: $before"
diag "/proc/vmstat after:  $after"
delta=$(vmstat_delta "$before" "$after")
got=$(sed -n 's/^vmstat: //p' "$OUT")

check_eq "--migration: migratepages ran" 0 "$prog_rc"
# Its mapping may have merged with a neighbour (whose pages may have been
# on node 1 already): what moved is node 1's growth, at least its 16384.
node1_before=$(sed -n 's/^before: node0 [0-9]* node1 \([0-9]*\)$/\1/p' "$PROG_OUT")
node1_after=$(sed -n 's/^after: node0 0 node1 \([0-9]*\)$/\1/p' "$PROG_OUT")
moved=
[ -n "$node1_before" ] && [ -n "$node1_after" ] && moved=$((node1_after - node1_before))
check "--migration: numa_maps saw its pages all move to node 1 (${moved:-none})" \
	[ "${moved:-0}" -ge 16384 ]
for k in pgmigrate_success pgmigrate_fail thp_migration_success thp_migration_fail \
	 thp_migration_split numa_pages_migrated; do
	check_vmstat "--migration: $k is /proc/vmstat's growth" "$k" "$(vmstat_term "$k" "$delta")" \
		"$(vmstat_term "$k" "$got")"
done
mine=$(awk -v pid="$PROG" '$1 == pid && $2 == "migratepages" { print $4 }' "$OUT")
check "--migration: migratepages (pid $PROG) migrated at least the pages that moved ($mine)" \
	[ "${mine:-0}" -ge "${moved:-16384}" ]
check_match "--migration: a syscall_or_cpuset row in its interval" \
	'^[0-9:]{8} syscall_or_cpuset +[1-9][0-9]* +[0-9]+ ' "$(cat "$OUT")"
if [ -n "$balanced" ]; then
	diag "$(cat "$BAL_OUT")"
	back=$(sed -n 's/^after: node0 \([0-9]*\) node1 [0-9]*$/\1/p' "$BAL_OUT")
	check_match "--migration: NUMA balancing moved pages back to node 0 ($back)" '^[1-9]' "$back"
	check_match "--migration: its numa_misplaced migrations" \
		'^[0-9:]{8} numa_misplaced +[1-9][0-9]* +[1-9][0-9]* ' "$(cat "$OUT")"
else
	skip "--migration: NUMA balancing" "no numa_balancing switch or no debugfs"
fi
check_match "--migration: nothing lost" "^Lost: 0 events" "$(cat "$OUT")"
check_match "--migration: every end had its begin" '^$' "$(grep 'without their begin' "$OUT")"

check "memtrace.ko unloads" unload_memtrace
