#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# memtrace-read --use (memory's utilization, saturation and errors each
# interval) against the kernel's own files: in a memcg of 16 MiB, busybox
# cat reads a 32 MiB file from ext4 (the memcg reclaims its page cache),
# then memhog asks for 64 MiB (the memcg's OOM killer kills it).  With the
# guest quiet before and after, the reader's per-interval deltas of
# /proc/vmstat's counters must add up to the counters' growth over the
# run, its OOM kills to oom_kill's growth and the memcg's memory.events,
# the module's memcg reclaims to memory.events' "max" growth (one per
# reclaim, as 51-reclaim.sh has it), its memcg line to memory.max and
# memory.events, MemTotal to /proc/meminfo's; the text says what the JSON
# records say.
# mtt-timeout: 300
. "${0%/*}/lib.sh"

if ! load_memtrace; then
	not_ok "load memtrace.ko"
	exit 0
fi
CG=$MEMCG_ROOT
D=/tmp/use
OUT=$D/use.out
J=$D/use.json
MNT=/mnt/use-ext4
IMG=/tmp/use-ext4.img
rm -rf "$D" && mkdir -p "$D"

if ! new_memcg mtuse 16M; then
	skip "--use" "no cgroup2 memory controller"
	unload_memtrace
	exit 0
fi
have_ext4=0
if ext4_image_mount "$IMG" "$MNT"; then
	have_ext4=1
	dd if=/dev/zero of="$MNT/big" bs=1M count=32 2>/dev/null
	sync
	echo 3 >/proc/sys/vm/drop_caches
fi

# The counters --use shows, as "name value" pairs (allocstall summed over zones).
counters() {
	awk '$1 ~ /^allocstall_/ { a += $2; next }
	     $1 ~ /^(pswpin|pswpout|compact_stall|compact_fail|pgscan_kswapd|pgscan_direct|pgsteal_kswapd|pgsteal_direct|pgscan_anon|pgscan_file|pgsteal_anon|pgsteal_file|oom_kill)$/ { printf "%s %s ", $1, $2 }
	     END { printf "allocstall %d\n", a }' /proc/vmstat
}
psi_some() { sed -n 's/^some .*total=\([0-9]*\)$/\1/p' /proc/pressure/memory 2>/dev/null; }
events() { awk -v k="$1" '$1 == k { print $2 }' "$CG/mtuse/memory.events"; }
allocfail() { dmesg | grep -c ': page allocation failure: '; }

wait_for 60 counters_still counters || diag "the guest did not go quiet before the run"
before=$(counters)
psi0=$(psi_some)
max0=$(events max)
af0=$(allocfail)
P=$D/use.prom
memtrace-read --use --json="$J" --prometheus "$P" 1 3600 >"$OUT" 2>&1 &
READER=$!
if ! wait_for 60 grep -q "^Tracing " "$OUT"; then
	not_ok "memtrace-read --use attaches" "$(cat "$OUT")"
	kill -KILL "$READER" 2>/dev/null
	exit 0
fi
ok "memtrace-read --use attaches"
if [ "$have_ext4" = 1 ]; then
	sh -c "echo \$\$ >$CG/mtuse/cgroup.procs && exec cat $MNT/big" >/dev/null
else
	skip "--use: memcg reclaim of page cache" "no ext4 image on a loop device"
fi
sh -c "echo \$\$ >$CG/mtuse/cgroup.procs && exec memhog 64" >/dev/null 2>&1
wait_for 30 counters_still counters
sleep 1
kill -INT "$READER"
wait "$READER"
after=$(counters)
psi1=$(psi_some)
max1=$(events max)
af1=$(allocfail)
diag "$(tail -n 12 "$OUT")"
diag "/proc/vmstat growth: $(vmstat_delta "$before" "$after")"

# sums NAME: the sum over the JSON records of field NAME (a dotted path).
sums() {
	python3 -c 'import json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
tot = 0
for r in recs:
    v = r
    for k in sys.argv[2].split("."):
        v = v[k] if v is not None else None
    tot += v or 0
print(tot)' "$J" "$1" 2>&1
}
# last NAME: the field in the last record.
last() {
	python3 -c 'import json, sys
r = [json.loads(l) for l in open(sys.argv[1]) if l.strip()][-1]
v = r
for k in sys.argv[2].split("."):
    v = v[k]
print(v)' "$J" "$1" 2>&1
}
memcg_field() {
	python3 -c 'import json, sys
r = [json.loads(l) for l in open(sys.argv[1]) if l.strip()][-1]
for m in r["utilization"]["memcgs"]:
    if m["path"] == "/mtuse":
        v = m
        for k in sys.argv[2].split("."):
            v = v[k]
        print(v)' "$J" "$1" 2>&1
}

check_eq "--use: MemTotal is /proc/meminfo's" \
	"$(awk '$1 == "MemTotal:" { print $2 }' /proc/meminfo)" "$(last utilization.mem_total_kb)"
growth=$(vmstat_delta "$before" "$after")
for c in oom_kill compact_stall compact_fail pswpin pswpout pgscan_kswapd pgscan_direct \
	 pgsteal_kswapd pgsteal_direct pgscan_anon pgscan_file pgsteal_anon pgsteal_file; do
	check_vmstat "--use: the intervals' $c deltas add up to /proc/vmstat's growth" "$c" \
		"$(vmstat_term "$c" "$growth")" "$(sums "saturation.vmstat.$c")"
done
# allocstall_<zone>: one counter per zone, summed.
check_vmstat "--use: the intervals' allocstall deltas add up to allocstall_*'s growth" \
	allocstall_normal "$(vmstat_term allocstall "$growth")" "$(sums saturation.vmstat.allocstall)"
if [ "$have_ext4" != 1 ]; then
	skip "--use: the memcg's reclaim is in pgsteal_file's growth" \
		"no page cache read in the memcg (no ext4 image on a loop device)"
elif grep -q '^pgsteal_file ' /proc/vmstat; then
	check_match "--use: the memcg's reclaim is in pgsteal_file's growth" '^[1-9]' \
		"$(vmstat_term pgsteal_file "$growth")"
else
	skip "--use: the memcg's reclaim is in pgsteal_file's growth" \
		"no pgsteal_file in /proc/vmstat (CONFIG_VM_EVENT_COUNTERS off)"
fi
check_eq "--use: the OOM kill is one (memory.events oom_kill)" 1 "$(events oom_kill)"
check_vmstat "--use: its errors count it (oom_kill's growth)" oom_kill \
	"$(vmstat_term oom_kill "$growth")" "$(sums errors.oom_kills)"
check_eq "--use: the module recorded it" 1 "$(sums errors.memtrace.oom_kills)"
check_eq "--use: the module's memcg reclaims are memory.events' max growth" \
	"$((max1 - max0))" "$(sums saturation.memtrace.memcg_reclaim.reclaims)"
check_match "--use: the memcg reclaimed" '^[1-9]' "$((max1 - max0))"
check_eq "--use: the memcg's limit is memory.max" "$(cat "$CG/mtuse/memory.max")" \
	"$(memcg_field max_bytes)"
check_eq "--use: the memcg's OOM kills and times at its limit are memory.events'" \
	"$(events oom_kill) $max1" "$(memcg_field events.oom_kill) $(memcg_field events.max)"
check_eq "--use: page allocation failures are the kernel log's" "$((af1 - af0))" \
	"$(sums errors.alloc_failures)"
if [ -n "$psi0" ]; then
	check_eq "--use: PSI's stall time over the intervals is /proc/pressure/memory's growth" \
		"$((psi1 - psi0))" "$(sums saturation.psi.some.stalled_us)"
else
	skip "--use: PSI" "no /proc/pressure/memory (the kernel boots with PSI off)"
	check_eq "--use --json: no PSI where the kernel has none" None "$(last saturation.psi)"
fi
# The text says what the JSON says.
check_eq "--use: the text's OOM kills add up to the JSON's" "$(sums errors.oom_kills)" \
	"$(sed -n 's/^Errors: *OOM kills \([0-9]*\).*/\1/p' "$OUT" | awk '{ s += $1 } END { print s + 0 }')"
check_eq "--use: the text's MemTotal is the JSON's" \
	"$(awk -v k="$(last utilization.mem_total_kb)" 'BEGIN { printf "%.1f MiB", k / 1024 }')" \
	"$(sed -n 's/^Utilization: MemTotal \([0-9.]* MiB\),.*/\1/p' "$OUT" | tail -n 1)"
check_match "--use: the text's memcg line, its limit and OOM kill" \
	'^  /mtuse +[0-9.]+ MiB +16\.0 MiB +[0-9.]+ +[0-9]+ +1$' "$(cat "$OUT")"

# --prometheus: the last report's gauges, and counters that are the
# intervals' numbers summed (so /proc/vmstat's growth over the run).
# prom 'NAME{LABELS}': its value; every series of --use's file has mode="use" first.
prom() {
	case $1 in
	*'{'*) set -- "${1%%\{*}{mode=\"use\",${1#*\{}" ;;
	*) set -- "$1{mode=\"use\"}" ;;
	esac
	awk -v k="$1" '$1 == k { print $2 }' "$P"
}
check "--use --prometheus: promtool check metrics accepts the file" \
	sh -c "promtool check metrics <'$P'"
check_eq "--use --prometheus: MemTotal in bytes, as the last report's" \
	"$(($(last utilization.mem_total_kb) * 1024))" "$(prom 'memtrace_memory_bytes{kind="mem_total"}')"
want= got=
for c in oom_kill compact_stall compact_fail pswpin pswpout allocstall pgscan_kswapd \
	 pgscan_direct pgsteal_kswapd pgsteal_direct pgscan_anon pgscan_file pgsteal_anon \
	 pgsteal_file; do
	grep -q "^memtrace_vmstat_total{mode=\"use\",counter=\"$c\"}" "$P" || continue
	want="$want $c $(sums "saturation.vmstat.$c")"
	got="$got $c $(prom "memtrace_vmstat_total{counter=\"$c\"}")"
done
check_eq "--use --prometheus: each vmstat counter is the intervals' deltas summed" "$want" "$got"
if [ "$have_ext4" != 1 ]; then
	skip "--use --prometheus: the memcg's reclaim is in pgsteal_file's counter" \
		"no page cache read in the memcg (no ext4 image on a loop device)"
elif grep -q '^pgsteal_file ' /proc/vmstat; then
	check_match "--use --prometheus: the memcg's reclaim is in pgsteal_file's counter" '^[1-9]' \
		"$(prom 'memtrace_vmstat_total{counter="pgsteal_file"}')"
else
	check_eq "--use --prometheus: no pgsteal_file series where /proc/vmstat has none" "" \
		"$(prom 'memtrace_vmstat_total{counter="pgsteal_file"}')"
fi
check_eq "--use --prometheus: the module's OOM kill and memcg reclaims, as the JSON's" \
	"1 $(sums saturation.memtrace.memcg_reclaim.reclaims) $(sums saturation.memtrace.memcg_reclaim.pages)" \
	"$(prom memtrace_oom_kills_total) $(prom 'memtrace_reclaims_total{reclaimer="memcg"}') $(prom 'memtrace_reclaim_pages_total{reclaimer="memcg"}')"
check_eq "--use --prometheus: the memcg's usage, limit and events, as the last report's" \
	"$(memcg_field current_bytes) $(memcg_field max_bytes) $(memcg_field events.max) $(memcg_field events.oom_kill)" \
	"$(prom 'memtrace_memcg_bytes{memcg="/mtuse"}') $(prom 'memtrace_memcg_max_bytes{memcg="/mtuse"}') $(prom 'memtrace_memcg_events_total{memcg="/mtuse",event="max"}') $(prom 'memtrace_memcg_events_total{memcg="/mtuse",event="oom_kill"}')"
check_eq "--use --prometheus: page allocation failures, as the JSON's" \
	"$(sums errors.alloc_failures)" "$(prom memtrace_page_allocation_failures_total)"
check_eq "--use --prometheus: events lost, as the JSON's" \
	"$(sums errors.memtrace.lost)" "$(prom 'memtrace_lost_total{reason="event_ring_full"}')"
if [ -n "$psi0" ]; then
	check_eq "--use --prometheus: PSI's stall time is /proc/pressure/memory's total" \
		"$(last saturation.psi.some.total_us | awk '{ printf "%d.%06d000", $1 / 1000000, $1 % 1000000 }')" \
		"$(prom 'memtrace_psi_stall_seconds_total{kind="some"}')"
fi

check "--use --json: every record valid against docs/memtrace-report.schema.json" \
	python3 /data/validate-json.py /data/memtrace-report.schema.json "$J"

# The last record, for a look and for the host's schema check (part of
# userspace/tests/fixtures/events-guest.jsonl), in 150-column pieces.
diag "use JSON, folded at 150 columns:"
tail -n 1 "$J" | fold -w 150 | sed 's/^/#json /'

# Without the module: the kernel's counters alone, and why.
unload_memtrace
out=$(memtrace-read --use 1 1 2>&1)
check_eq "--use without the module: exit status 0" 0 "$?"
check_match "--use without the module: says why" '^ *memtrace: none \(.*not loaded' "$out"
[ "$have_ext4" = 1 ] && ext4_image_umount "$IMG" "$MNT"
rmdir "$CG/mtuse" 2>/dev/null
