#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# memtrace-read --oom (oomkill's job): two busybox dd processes in a cgroup
# v2 memcg with memory.max 16M.  The first fills a 12 MiB buffer and blocks
# writing to a FIFO nobody reads; the second's 8 MiB read then makes the
# memcg run out, and the OOM killer picks the first.  The record must name
# the victim, the trigger, the memcg and the constraint exactly as the
# kernel's own report in dmesg does, the victim's memory as the kernel's
# oom:mark_victim event has it, and count as many kills as memory.events.
# mtt-timeout: 300
. "${0%/*}/lib.sh"

# stacks_after_victim FILE PID TITLE: the stacks' TITLE line comes after the
# victim's "killed process PID" line, with exactly one blank line between.
stacks_after_victim() {
	awk -v pid="$2" -v t="$3" '
		index($0, "killed process " pid " (") { k = NR }
		index($0, t) && !s { s = NR; blank = (prev == "") }
		{ prev = $0 }
		END { exit !(k && s > k && blank) }' "$1"
}

if ! load_memtrace; then
	not_ok "load memtrace.ko"
	exit 0
fi

CG=$MEMCG_ROOT
OUT=/tmp/oom.out
FIFO=/tmp/oom.fifo
if ! new_memcg mtoom 16M; then
	skip "--oom: a memcg OOM kill" "no cgroup2 memory controller"
	unload_memtrace
	exit 0
fi

# The kernel's own oom:mark_victim event, read where memtrace reads the
# victim's memory: the same numbers, exactly.  (The "Killed process" line
# reads them again a little later: counters the victim's exit syncs in
# between may have moved, so its RSS is compared apart.)
TR=/sys/kernel/tracing
mount -t tracefs nodev "$TR" 2>/dev/null
have_tp=0
# Up to 6.8 (5.10; not Debian's 6.1) the event passes the victim's pid
# alone: nothing to compare memtrace's numbers with.
if [ -f "$TR/events/oom/mark_victim/enable" ] &&
	grep -q total_vm "$TR/events/oom/mark_victim/format"; then
	echo 0 >"$TR/tracing_on"
	: >"$TR/trace"
	echo 1 >"$TR/events/oom/mark_victim/enable" && echo 1 >"$TR/tracing_on" && have_tp=1
fi

# provoke_oom: the two dd in the memcg mtoom; HOG is the first, TRIG the
# second; returns once both are gone.
provoke_oom() {
	rm -f "$FIFO"
	mkfifo "$FIFO"
	# Held open both ways: the victim's open succeeds, its write blocks.
	exec 3<>"$FIFO"
	sh -c "echo \$\$ >$CG/mtoom/cgroup.procs && exec dd if=/dev/zero of=$FIFO bs=12M count=2" \
		2>/dev/null &
	HOG=$!
	if ! wait_for 60 hog_filled; then
		not_ok "the victim-to-be holds its 12 MiB" "$(head -n 20 "/proc/$HOG/status" 2>&1)"
	fi
	sh -c "echo \$\$ >$CG/mtoom/cgroup.procs && exec dd if=/dev/zero of=/dev/null bs=8M count=1" \
		2>/dev/null &
	TRIG=$!
	wait "$TRIG"
	wait "$HOG"
	exec 3<&-
	rm -f "$FIFO"
}
hog_filled() {
	rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$HOG/status" 2>/dev/null)
	[ "${rss:-0}" -ge 12288 ]
}
# all_reported FILE: FILE has as many victims as memory.events' oom_kill.
all_reported() {
	[ "$(grep -c 'killed process' "$1")" -ge "${k_kills:-1}" ]
}

start_pressure_reader "$OUT" --oom || exit 0

mark="memtrace-oom-test-$$"
kmsg "$mark"
provoke_oom
k_kills=$(awk '$1 == "oom_kill" { print $2 }' "$CG/mtoom/memory.events")
wait_for 30 all_reported "$OUT"
kill -INT "$READER"
wait "$READER"
echo 0 >"$TR/tracing_on" 2>/dev/null
diag "$(cat "$OUT")"

# The oracle: the kernel's own report, in order of the kills (the slow
# debug kernel may kill the trigger too, before the first victim's memory
# is back), and the memcg's own count.
dmesg | awk -v m="$mark" 'f { print } index($0, m) { f = 1 }' >/tmp/oom.dmesg
k_victims=$(sed -n 's/.*oom-kill:constraint=.*,task=\([^,]*\),pid=\([0-9]*\),.*/\2 \1/p' /tmp/oom.dmesg)
k_memcgs=$(sed -n 's/.*oom-kill:constraint=.*,oom_memcg=\([^,]*\),.*/\1/p' /tmp/oom.dmesg | sort -u)
k_constraint=$(sed -n 's/.*oom-kill:constraint=\([A-Z_]*\),.*/\1/p' /tmp/oom.dmesg | sort -u)
# After each "invoked oom-killer", dump_stack()'s "CPU: N PID: P Comm: C"
# (6.12: "CPU: N UID: U PID: P Comm: C"): the trigger.
k_triggers=$(awk '/invoked oom-killer/ { want = 1; next }
	want && / PID: [0-9]+ Comm: / { sub(/.* PID: /, ""); sub(/ Comm: /, " "); sub(/ .*/, "", $2); print $1, $2; want = 0 }' /tmp/oom.dmesg)
k_killed=$(sed -n 's/.*Killed process //p' /tmp/oom.dmesg)
diag "kernel: victims $(echo $k_victims), triggers $(echo $k_triggers), memcg $k_memcgs, memory.events oom_kill $k_kills"

m_triggers=$(sed -n 's/.*Triggered by PID \([0-9]*\) ("\([^"]*\)"), OOM kill of PID.*/\1 \2/p' "$OUT")
m_victims=$(sed -n 's/.*OOM kill of PID \([0-9]*\) ("\([^"]*\)"), [0-9]* pages, loadavg: [0-9.]* [0-9.]* [0-9.]*$/\1 \2/p' "$OUT")
m_killed=$(sed -n 's/^	killed process //p' "$OUT")

check_eq "--oom: as many kills as memory.events' oom_kill counts" "$k_kills" "$(grep -c 'Triggered by PID' "$OUT")"
check_eq "--oom: the victims (pid, comm) are the kernel's, in order" "$k_victims" "$m_victims"
check_eq "--oom: the first victim is the dd that held 12 MiB" "$HOG dd" "$(printf '%s\n' "$m_victims" | head -n 1)"
check_eq "--oom: the triggers (pid, comm) are the kernel's, in order" "$k_triggers" "$m_triggers"
check_eq "--oom: the first trigger is the second dd" "$TRIG dd" "$(printf '%s\n' "$m_triggers" | head -n 1)"
check_eq "--oom: every kill names the kernel's oom_memcg ($k_memcgs) with its 16 MiB limit" \
	"$k_kills" "$(grep -cE "^	memcg: $k_memcgs \\(id [0-9]+\\), memory.max 4096 pages, memory.current [0-9]+ pages$" "$OUT")"
check_eq "--oom: every kill has the kernel's constraint ($k_constraint)" "$k_kills" \
	"$(grep -cE "^	constraint: $k_constraint, order [0-9]+, gfp_mask 0x[0-9a-f]+, badness [0-9]+ pages$" "$OUT")"
if [ "$have_tp" = 1 ]; then
	k_marked=$(sed -n 's/.*mark_victim: pid=\([0-9]*\) comm=\([^ ]*\) total-vm=\([0-9]*kB\) anon-rss=\([0-9]*kB\) file-rss:\([0-9]*kB\) shmem-rss:\([0-9]*kB\) uid=\([0-9]*\) pgtables=\([0-9]*kB\) oom_score_adj=\(-*[0-9]*\).*/\1 (\2) total-vm:\3, anon-rss:\4, file-rss:\5, shmem-rss:\6, UID:\7 pgtables:\8 oom_score_adj:\9/p' "$TR/trace")
	# Each probe of the event reads the victim's RSS counters itself: a
	# victim still running on the other CPU, or exiting, may fold its
	# task-cached counts in between (up to 64 pages a thread,
	# TASK_RSS_EVENTS_THRESH).  All else must be equal.
	norss() { sed 's/\(anon\|file\|shmem\)-rss:[0-9]*kB/\1-rss:_/g'; }
	check_eq "--oom: the victims' memory is the kernel's oom:mark_victim event's (RSS apart)" \
		"$(printf '%s\n' "$k_marked" | norss)" "$(printf '%s\n' "$m_killed" | norss)"
	rss_apart=$(printf '%s\n%s\n' "$k_marked" "$m_killed" | awk '
		{ for (i = 1; i <= NF; i++) if ($i ~ /-rss:[0-9]+kB/) { v = $i; gsub(/[^0-9]/, "", v); r[NR, i] = v } n = NF }
		END {
			half = NR / 2
			for (l = 1; l <= half; l++)
				for (i = 1; i <= n; i++)
					if ((l, i) in r) {
						d = r[l, i] - r[l + half, i]
						if (d < 0) d = -d
						if (d > 256) print "line " l " field " i ": " r[l, i] " vs " r[l + half, i]
					}
		}')
	check_eq "--oom: ... and its RSS within the kernel's 64-page batching of it" "" "$rss_apart"
	echo 0 >"$TR/events/oom/mark_victim/enable"
else
	skip "--oom: the victims' memory is the kernel's oom:mark_victim event's" \
		"no tracefs event with the victim's memory"
fi
no_rss() { sed 's/anon-rss:[0-9]*kB, file-rss:[0-9]*kB, shmem-rss:[0-9]*kB, //'; }
check_eq "--oom: ... and the kernel's Killed process lines (RSS apart)" \
	"$(printf '%s\n' "$k_killed" | no_rss)" "$(printf '%s\n' "$m_killed" | no_rss)"
check_match "--oom: the trigger's kernel stack starts at oom_kill_process, from the memcg charge" \
	"^		oom_kill_process\\+0x[0-9a-f]+ \\[kernel\\]" "$(sed -n '/trigger.s kernel stack:/{n;p;}' "$OUT" | head -n 1)"
check_match "--oom: ... through mem_cgroup_out_of_memory" \
	"mem_cgroup_out_of_memory\\+0x[0-9a-f]+ \\[kernel\\]" "$(cat "$OUT")"
check_match "--oom: nothing lost" "^Lost: 0 events" "$(cat "$OUT")"

# A reader with CAP_PERFMON alone (in the device's group, as the udev rule
# has it): the same kill, named the same, the trigger's stack hidden.
OUT2=/tmp/oom-perfmon.out
if command -v privcheck >/dev/null && new_memcg mtoom 16M; then
	chgrp 990 "$MEMTRACE_DEV" && chmod 0660 "$MEMTRACE_DEV"
	privcheck run-as 1000 990 cap_perfmon memtrace-read --oom 1 3600 >"$OUT2" 2>&1 &
	READER=$!
	if wait_for 60 grep -q "^Tracing " "$OUT2"; then
		provoke_oom
		k_kills=$(awk '$1 == "oom_kill" { print $2 }' "$CG/mtoom/memory.events")
		wait_for 30 all_reported "$OUT2"
		kill -INT "$READER"
		wait "$READER"
		check_eq "--oom with CAP_PERFMON alone: the victim is the first dd" "$HOG dd" \
			"$(sed -n 's/.*OOM kill of PID \([0-9]*\) ("\([^"]*\)").*/\1 \2/p' "$OUT2" | head -n 1)"
		check_match "... and the trigger's stack is hidden from it" \
			"^	trigger's kernel stack: hidden \\(needs CAP_SYSLOG\\)$" "$(cat "$OUT2")"
	else
		not_ok "--oom with CAP_PERFMON alone attaches" "$(cat "$OUT2")"
		kill -KILL "$READER" 2>/dev/null
	fi
	chgrp 0 "$MEMTRACE_DEV" && chmod 0600 "$MEMTRACE_DEV"
else
	skip "--oom with CAP_PERFMON alone" "no privcheck or no memcg"
fi

rmdir "$CG/mtoom" 2>/dev/null

# --oom -p: memleak and oomkill at once.  userleak (its leaks known: 2724
# bytes in 14 allocations from 4 stacks) is traced in a memcg of 16 MiB and
# then touches 64 MiB: the OOM killer ends it.  The reader is stopped
# (SIGSTOP) from before the kill until the victim has been reaped, so it
# reads the kill's record and takes its snapshot after the victim is gone:
# the stacks must be there all the same, exactly, as they were at the kill.
OUT3=/tmp/oom-p.out
UL_OUT=/tmp/oom-ul.out
oom_p_reader_gone() { ! kill -0 "$READER" 2>/dev/null; }
if new_memcg mtoomp 16M; then
	rm -f "$UL_OUT" "$OUT3"
	sh -c "echo \$\$ >$CG/mtoomp/cgroup.procs && exec userleak --wait-oom 64" >"$UL_OUT" 2>&1 &
	UL=$!
	if wait_for 30 grep -qx ready "$UL_OUT"; then
		memtrace-read --oom -p "$UL" 3600 >"$OUT3" 2>&1 &
		READER=$!
		if wait_for 60 grep -qx "Attaching to pid $UL, Ctrl+C to quit." "$OUT3"; then
			kill -STOP "$READER"
			kill -USR1 "$UL"
			wait "$UL"
			ul_status=$?
			kill -CONT "$READER"
			check_eq "--oom -p: the traced userleak is killed (SIGKILL)" 137 "$ul_status"
			if wait_for 60 oom_p_reader_gone; then
				wait "$READER"
				check_eq "--oom -p: memtrace-read exits 0 once its target is gone" 0 "$?"
			else
				not_ok "--oom -p: memtrace-read exits once its target is gone" "$(tail -n 20 "$OUT3")"
				kill -KILL "$READER" 2>/dev/null
			fi
			diag "$(cat "$OUT3")"
			check_match "--oom -p: the kill names the traced victim" \
				"OOM kill of PID $UL \\(\"userleak\"\\)" "$(cat "$OUT3")"
			# The victim's section: from its title to the blank line after it.
			awk -v t="stacks of pid $UL (\"userleak\") at its OOM kill:" \
				'index($0, t) { f = 1 } f { print } f && /^$/ { exit }' "$OUT3" >/tmp/oom-p.stacks
			check_eq "--oom -p: one report of the victim's stacks at its kill" 1 \
				"$(grep -c '^\[[0-9:]*\] Top [0-9]* stacks of pid' "$OUT3")"
			check "--oom -p: the stacks follow the victim's \"killed process\" line" \
				stacks_after_victim "$OUT3" "$UL" "stacks of pid $UL "
			check_userleak_stacks "--oom -p, at the kill (read after the victim was reaped)" \
				/tmp/oom-p.stacks
			check_userleak_stacks "--oom -p, in use at exit" "$OUT3"
		else
			not_ok "--oom -p attaches to userleak" "$(cat "$OUT3")"
			kill -KILL "$READER" "$UL" 2>/dev/null
			wait "$UL" 2>/dev/null
		fi
	else
		not_ok "userleak --wait-oom starts in the memcg" "$(cat "$UL_OUT")"
		kill -KILL "$UL" 2>/dev/null
	fi
	rmdir "$CG/mtoomp" 2>/dev/null
else
	skip "--oom -p: the victim's stacks at the kill" "no memcg"
fi

# --kernel-leaks --oom: the same memcg kill of a dd; the kernel's top live
# stacks follow the kill (read when the record is, so the report says how
# long after the kill it was taken).
OUT4=/tmp/oom-k.out
if new_memcg mtoom 16M; then
	rm -f "$OUT4"
	memtrace-read --kernel-leaks --oom 3600 >"$OUT4" 2>&1 &
	READER=$!
	if wait_for 60 grep -q "^Attaching to kernel" "$OUT4"; then
		provoke_oom
		wait_for 30 grep -q "kernel stacks at the OOM kill of pid $HOG" "$OUT4"
		kill -INT "$READER"
		wait "$READER"
		check_eq "--kernel-leaks --oom: exits 0 on SIGINT" 0 "$?"
		check_match "--kernel-leaks --oom: the kill of the dd that held 12 MiB" \
			"OOM kill of PID $HOG \\(\"dd\"\\)" "$(cat "$OUT4")"
		awk -v t="kernel stacks at the OOM kill of pid $HOG (\"dd\"), " \
			'index($0, t) { f = 1 } f { print } f && /^$/ { exit }' "$OUT4" >/tmp/oom-k.stacks
		diag "$(head -n 30 /tmp/oom-k.stacks)"
		check_match "--kernel-leaks --oom: the kernel's top stacks follow it, with the time since the kill" \
			"^\\[[0-9:]+\\] Top 10 kernel stacks at the OOM kill of pid $HOG \\(\"dd\"\\), [0-9]+\\.[0-9]{3} ms after it:" \
			"$(cat /tmp/oom-k.stacks)"
		check "--kernel-leaks --oom: the stacks follow the victim's \"killed process\" line" \
			stacks_after_victim "$OUT4" "$HOG" "kernel stacks at the OOM kill of pid $HOG "
		check_match "--kernel-leaks --oom: ... symbolized kernel stacks" \
			"^		[a-z_0-9.]+\\+0x[0-9a-f]+ \\[kernel\\]" "$(cat /tmp/oom-k.stacks)"
	else
		not_ok "--kernel-leaks --oom attaches" "$(cat "$OUT4")"
		kill -KILL "$READER" 2>/dev/null
	fi
	rmdir "$CG/mtoom" 2>/dev/null
else
	skip "--kernel-leaks --oom" "no memcg"
fi

check "memtrace.ko unloads" unload_memtrace
