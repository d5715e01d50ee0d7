#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# memtrace-read --oom on a guest-wide OOM (no memcg limit): memhog, with
# oom_score_adj 1000, writes more anonymous memory than the guest has
# available (no swap), and the OOM killer picks it; the reader and this
# shell are exempt (oom_score_adj -1000).  The record must name the
# victim as the kernel's own report in dmesg does, with no memcg and the
# kernel's constraint (CONSTRAINT_NONE), count as many kills as
# /proc/vmstat's oom_kill grew, and the trigger's stack must come from
# the page allocator's out_of_memory(), not a memcg charge.
# mtt-timeout: 300
. "${0%/*}/lib.sh"

if ! load_memtrace; then
	not_ok "load memtrace.ko"
	exit 0
fi
OUT=/tmp/oom-global.out

start_pressure_reader "$OUT" --oom || exit 0
echo -1000 >"/proc/$READER/oom_score_adj"
echo -1000 >/proc/$$/oom_score_adj

oom_kills() { awk '$1 == "oom_kill" { n = $2 } END { print n + 0 }' /proc/vmstat; }
reported() { grep -q 'killed process' "$OUT"; }
mark="memtrace-oom-global-$$"
kmsg "$mark"
kills0=$(oom_kills)
avail_mib=$(awk '$1 == "MemAvailable:" { print int($2 / 1024) }' /proc/meminfo)
sh -c "echo 1000 >/proc/self/oom_score_adj && exec memhog $((avail_mib + 64))" >/dev/null 2>&1 &
HOG=$!
wait "$HOG"
hog_rc=$?
kills1=$(oom_kills)
wait_for 30 reported
kill -INT "$READER"
wait "$READER"
echo 0 >/proc/$$/oom_score_adj
diag "$(cat "$OUT")"

dmesg | awk -v m="$mark" 'f { print } index($0, m) { f = 1 }' >/tmp/oom-global.dmesg
k_victims=$(sed -n 's/.*oom-kill:constraint=.*,task=\([^,]*\),pid=\([0-9]*\),.*/\2 \1/p' /tmp/oom-global.dmesg)
k_constraint=$(sed -n 's/.*oom-kill:constraint=\([A-Z_]*\),.*/\1/p' /tmp/oom-global.dmesg | sort -u)
m_victims=$(sed -n 's/.*OOM kill of PID \([0-9]*\) ("\([^"]*\)"), [0-9]* pages, loadavg: [0-9.]* [0-9.]* [0-9.]*$/\1 \2/p' "$OUT")
n=$(grep -c 'Triggered by PID' "$OUT")
diag "kernel: victims $(echo $k_victims), constraint $k_constraint; memhog exited $hog_rc"

check_eq "--oom guest-wide: memhog was killed (SIGKILL)" 137 "$hog_rc"
check_eq "--oom guest-wide: the victims (pid, comm) are the kernel's, in order" "$k_victims" "$m_victims"
check_eq "--oom guest-wide: the first victim is memhog" "$HOG memhog" "$(printf '%s\n' "$m_victims" | head -n 1)"
check_vmstat "--oom guest-wide: as many kills as /proc/vmstat's oom_kill grew" oom_kill \
	"$((kills1 - kills0))" "$n"
check_eq "--oom guest-wide: every kill has the kernel's constraint ($k_constraint), no memcg" \
	"$n $n" "$(grep -cE "^	constraint: $k_constraint, order [0-9]+, gfp_mask 0x[0-9a-f]+, badness [0-9]+ pages$" "$OUT") $(grep -c '^	memcg: none (a global OOM)$' "$OUT")"
check_eq "--oom guest-wide: the kernel's constraint is CONSTRAINT_NONE" CONSTRAINT_NONE "$k_constraint"
check_match "--oom guest-wide: the trigger's stack starts at oom_kill_process" \
	"^		oom_kill_process\\+0x[0-9a-f]+ \\[kernel\\]" "$(sed -n '/trigger.s kernel stack:/{n;p;}' "$OUT" | head -n 1)"
check_match "--oom guest-wide: ... from the page allocator's out_of_memory()" \
	"^		out_of_memory\\+0x[0-9a-f]+ \\[kernel\\]" "$(cat "$OUT")"
check_match "--oom guest-wide: ... not a memcg charge" '^$' \
	"$(grep 'mem_cgroup_out_of_memory' "$OUT")"
check_match "--oom guest-wide: nothing lost" "^Lost: 0 events" "$(cat "$OUT")"

check "memtrace.ko unloads" unload_memtrace
