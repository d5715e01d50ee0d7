#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# memtrace-read --oom (oomkill's job): two busybox dd processes in a cgroup
# v2 memcg with memory.max 16M.  The first fills a 12 MiB buffer and blocks
# writing to a FIFO nobody reads; the second's 8 MiB read then makes the
# memcg run out, and the OOM killer picks the first.  The record must name
# the victim, the trigger, the memcg and the constraint exactly as the
# kernel's own report on the console does, with the victim's memory as its
# "Killed process" line prints it, and count as many kills as memory.events.
# mtt-timeout: 300
. "${0%/*}/lib.sh"

if ! load_memtrace; then
	not_ok "load memtrace.ko"
	exit 0
fi

CG=/sys/fs/cgroup
OUT=/tmp/oom.out
FIFO=/tmp/oom.fifo
mkdir -p "$CG"
grep -q " $CG cgroup2 " /proc/mounts || mount -t cgroup2 none "$CG" 2>/dev/null
if ! grep -q " $CG cgroup2 " /proc/mounts || ! grep -qw memory "$CG/cgroup.controllers"; then
	skip "--oom: a memcg OOM kill" "no cgroup2 memory controller"
	unload_memtrace
	exit 0
fi
echo +memory >"$CG/cgroup.subtree_control"
rmdir "$CG/mtoom" 2>/dev/null
mkdir "$CG/mtoom"
echo 16M >"$CG/mtoom/memory.max"
[ -f "$CG/mtoom/memory.swap.max" ] && echo 0 >"$CG/mtoom/memory.swap.max"

rm -f "$OUT"
memtrace-read --oom 1 3600 >"$OUT" 2>&1 &
READER=$!
if ! wait_for 60 grep -q "^Tracing OOM kills" "$OUT"; then
	not_ok "memtrace-read --oom attaches" "$(cat "$OUT")"
	kill -KILL "$READER" 2>/dev/null
	exit 0
fi
ok "memtrace-read --oom attaches"

mark="memtrace-oom-test-$$"
kmsg "$mark"
rm -f "$FIFO"
mkfifo "$FIFO"
# Held open both ways: the victim's open succeeds, its write blocks.
exec 3<>"$FIFO"
sh -c "echo \$\$ >$CG/mtoom/cgroup.procs && exec dd if=/dev/zero of=$FIFO bs=12M count=2" \
	2>/dev/null &
HOG=$!
hog_filled() {
	rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$HOG/status" 2>/dev/null)
	[ "${rss:-0}" -ge 12288 ]
}
if ! wait_for 60 hog_filled; then
	not_ok "the victim-to-be holds its 12 MiB" "$(cat "/proc/$HOG/status" 2>&1 | head -n 20)"
fi
sh -c "echo \$\$ >$CG/mtoom/cgroup.procs && exec dd if=/dev/zero of=/dev/null bs=8M count=1" \
	2>/dev/null &
TRIG=$!
wait "$TRIG"
wait "$HOG"
exec 3<&-
wait_for 30 grep -q "killed process" "$OUT"
kill -INT "$READER"
wait "$READER"
diag "$(cat "$OUT")"

# The oracle: the kernel's own report, and the memcg's own count.
dmesg | awk -v m="$mark" 'f { print } index($0, m) { f = 1 }' >/tmp/oom.dmesg
kline=$(grep -m1 'oom-kill:constraint=' /tmp/oom.dmesg)
killed=$(grep -m1 'Killed process' /tmp/oom.dmesg | sed 's/.*Killed process //')
k_victim=$(printf '%s\n' "$kline" | sed -n 's/.*,task=\([^,]*\),pid=\([0-9]*\),.*/\2 \1/p')
k_memcg=$(printf '%s\n' "$kline" | sed -n 's/.*,oom_memcg=\([^,]*\),.*/\1/p')
k_constraint=$(printf '%s\n' "$kline" | sed -n 's/.*oom-kill:constraint=\([A-Z_]*\),.*/\1/p')
# dump_stack() of the trigger: "CPU: N PID: P Comm: C" (6.12: "CPU: N UID: U PID: P Comm: C").
k_trigger=$(grep -m1 -A3 'invoked oom-killer' /tmp/oom.dmesg |
	sed -n 's/.* PID: \([0-9]*\) Comm: \([^ ]*\).*/\1 \2/p' | head -n 1)
k_kills=$(awk '$1 == "oom_kill" { print $2 }' "$CG/mtoom/memory.events")
diag "kernel: $kline"
diag "kernel: Killed process $killed; trigger $k_trigger; memory.events oom_kill $k_kills"

rec=$(sed -n 's/.*Triggered by PID \([0-9]*\) ("\([^"]*\)"), OOM kill of PID \([0-9]*\) ("\([^"]*\)"), \([0-9]*\) pages, loadavg: [0-9.]* [0-9.]* [0-9.]*$/\1 \2;\3 \4;\5/p' "$OUT")
m_trigger=$(printf '%s\n' "$rec" | head -n 1 | cut -d';' -f1)
m_victim=$(printf '%s\n' "$rec" | head -n 1 | cut -d';' -f2)

check_eq "--oom: one kill, as memory.events' oom_kill counts" "$k_kills" "$(grep -c 'Triggered by PID' "$OUT")"
check_eq "--oom: the victim (pid, comm) is the kernel's, and the process that held 12 MiB" \
	"$k_victim" "$m_victim"
check_eq "--oom: the victim is the first dd" "$HOG dd" "$m_victim"
check_eq "--oom: the trigger (pid, comm) is the kernel's" "$k_trigger" "$m_trigger"
check_eq "--oom: the trigger is the second dd" "$TRIG dd" "$m_trigger"
check_match "--oom: the memcg is the kernel's oom_memcg ($k_memcg), its limit 16 MiB" \
	"^	memcg: $k_memcg \\(id [0-9]+\\), memory.max 4096 pages, memory.current [0-9]+ pages$" \
	"$(cat "$OUT")"
check_match "--oom: the constraint is the kernel's ($k_constraint)" \
	"^	constraint: $k_constraint, order [0-9]+, gfp_mask 0x[0-9a-f]+, badness [0-9]+ pages$" \
	"$(cat "$OUT")"
check_eq "--oom: the victim's memory is the kernel's Killed process line" \
	"$killed" "$(sed -n 's/^	killed process //p' "$OUT" | head -n 1)"
check_match "--oom: the trigger's kernel stack starts at oom_kill_process, from the memcg charge" \
	"oom_kill_process\\+0x[0-9a-f]+ \\[kernel\\]" "$(sed -n '/trigger.s kernel stack:/,/^[^	]/p' "$OUT")"
check_match "--oom: ... through mem_cgroup_out_of_memory" \
	"mem_cgroup_out_of_memory\\+0x[0-9a-f]+ \\[kernel\\]" "$(cat "$OUT")"
check_match "--oom: nothing lost" "^Lost: 0 events" "$(cat "$OUT")"

rm -f "$FIFO"
rmdir "$CG/mtoom" 2>/dev/null
check "memtrace.ko unloads" unload_memtrace
