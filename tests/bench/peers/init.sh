#!/bin/sh
# GUEST ONLY: never run this on the host (it mounts, loads modules and
# reboots the machine it runs on).
#
# PID 1 of scripts/bench-peers.sh's Debian guest: measures memtrace's peers
# on the loops `make bench` uses and on a realistic program, prints
# "# BENCH name value" and "# BENCHINFO ..." lines on the console, then
# reboots (qemu runs with -no-reboot, so it exits).
#   kernel: memtrace_bench.ko's kmalloc(64)+kfree pairs (ns/pair) untraced,
#           under its empty tracepoint probe (floor), under memleak-bpfcc
#           (no -p) and under memtrace-read --kernel-leaks
#   user:   mallocbench's malloc(32)+free pairs (ns/pair) untraced, under
#           memleak-bpfcc -p, valgrind (memcheck), heaptrack and
#           memtrace-read -c
#   perl:   alloc.pl (wall ms) untraced, under valgrind, heaptrack,
#           memtrace-read -c and memleak-bpfcc -p
#   start-up: seconds from launching memleak-bpfcc (or memtrace-read) to its
#           "Attaching" line, and to its going idle (attached: for -p,
#           memleak prints "Attaching" before it attaches the uprobes)
# Settings come from /opt/memtrace-bench/peers.conf (written by the host).
B=/opt/memtrace-bench
export PATH=$B/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export LC_ALL=C.UTF-8 HOME=/root
exec </dev/null >/dev/console 2>&1

mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t bpf bpf /sys/fs/bpf 2>/dev/null
hostname bench-peers 2>/dev/null
cd /tmp || exit 1

# defaults (peers.conf overrides)
KPAIRS=100000 KROUNDS=5
UPAIRS_UNTRACED=1000000 UPAIRS_TRACED=10000 UPAIRS_TOOL=100000
PERL_N=20000 REPS=3 ATTACH_TIMEOUT=2400
# shellcheck disable=SC1091
[ -r $B/peers.conf ] && . $B/peers.conf

bench() { echo "# BENCH $1 $2"; }
info() { echo "# BENCHINFO $*"; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }
ms_to_s() { awk -v m="$1" 'BEGIN { printf "%.1f", m / 1000 }'; }
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }
finish() {
	info "guest: done after $(cut -d' ' -f1 /proc/uptime) s of uptime"
	echo "# BENCH-DONE"
	sync
	echo b >/proc/sysrq-trigger
	$B/bin/busybox reboot -f
	sleep 10
}

# Libraries memtrace-read needs that the image lacks.
for l in $B/lib/*; do
	[ -f "$l" ] || continue
	[ -e "/usr/lib/x86_64-linux-gnu/${l##*/}" ] || cp "$l" /usr/lib/x86_64-linux-gnu/
done
ldconfig

info "guest: kernel $(uname -r), $(nproc) CPUs, $(awk '/MemTotal/ { print int($2 / 1024) }' /proc/meminfo) MiB," \
	"clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
info "guest: $(dpkg-query -W -f='${Package} ${Version}; ' bpfcc-tools python3-bpfcc valgrind heaptrack perl-base python3 2>/dev/null)"
[ -e "/lib/modules/$(uname -r)/build/Makefile" ] ||
	info "guest: no /lib/modules/$(uname -r)/build: BCC cannot compile"

# cpu_ticks PID: user+system clock ticks of PID (empty once it has gone)
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null; }

# start_tool NAME OUT CMD...: start CMD in the background (output to OUT),
# wait for its "Attaching" line, then for it to go idle (no CPU time used
# for 2 s); report both times as NAME-attach-s and NAME-ready-s. Sets
# $tool_pid. Returns non-zero (with the tool's output as BENCHINFO) if it
# died or timed out.
start_tool() {
	name=$1 out=$2
	shift 2
	rm -f "$out"
	t0=$(now_ms)
	"$@" >"$out" 2>&1 &
	tool_pid=$!
	deadline=$(($(date +%s) + ATTACH_TIMEOUT))
	while ! grep -q Attaching "$out" 2>/dev/null; do
		if ! kill -0 $tool_pid 2>/dev/null || [ "$(date +%s)" -ge $deadline ]; then
			info "$name: no \"Attaching\" line after $(ms_to_s $(($(now_ms) - t0))) s; last output:"
			tail -n 25 "$out" | sed "s/^/# BENCHINFO $name:   /"
			kill -INT $tool_pid 2>/dev/null
			sleep 2
			kill -KILL $tool_pid 2>/dev/null
			wait $tool_pid 2>/dev/null
			return 1
		fi
		sleep 0.2
	done
	t1=$(now_ms)
	bench "$name-attach-s" "$(ms_to_s $((t1 - t0)))"
	# idle: its CPU time unchanged over 2 s (10 ms ticks)
	last=$(cpu_ticks $tool_pid) t_last=$(now_ms) still=0
	while [ $still -lt 2 ] && [ "$(date +%s)" -lt $deadline ]; do
		sleep 1
		c=$(cpu_ticks $tool_pid)
		[ -n "$c" ] || break
		if [ "$c" = "$last" ]; then
			still=$((still + 1))
		else
			still=0 last=$c t_last=$(now_ms)
		fi
	done
	if ! kill -0 $tool_pid 2>/dev/null; then
		info "$name: exited after its \"Attaching\" line; last output:"
		tail -n 25 "$out" | sed "s/^/# BENCHINFO $name:   /"
		wait $tool_pid 2>/dev/null
		return 1
	fi
	bench "$name-ready-s" "$(ms_to_s $((t_last - t0)))"
	info "$name: cpu time to attach $(awk -v t="$last" 'BEGIN { printf "%.1f", t / 100 }') s;" \
		"rss $(awk '/VmRSS/ { print $2, $3 }' /proc/$tool_pid/status)"
	return 0
}

stop_tool() {
	kill -INT "$tool_pid" 2>/dev/null
	i=0
	while kill -0 "$tool_pid" 2>/dev/null && [ $i -lt 300 ]; do sleep 0.2; i=$((i + 1)); done
	kill -KILL "$tool_pid" 2>/dev/null
	wait "$tool_pid" 2>/dev/null
}

# ns_of FILE: the "ns/pair N" mallocbench printed in FILE
ns_of() { sed -n 's/^ns\/pair \([0-9][0-9]*\)$/\1/p' "$1" | tail -n 1; }

# ---------------------------------------------------------------- kernel
P=/sys/module/memtrace_bench/parameters
kmedian() {
	i=0
	while [ $i -lt "$KROUNDS" ]; do
		echo "$1" >$P/run && cut -d' ' -f4 $P/result
		i=$((i + 1))
	done | median
}
kernel_bench() {
	insmod $B/ko/memtrace.ko || { info "kernel: insmod memtrace.ko failed"; return; }
	insmod $B/ko/memtrace_bench.ko || { info "kernel: insmod memtrace_bench.ko failed"; return; }
	echo "$KPAIRS" >$P/pairs
	kmedian plain >/dev/null	# warm the caches
	bench k-untraced "$(kmedian plain)"
	bench k-floor "$(kmedian floor)"
	if start_tool k-memtrace /tmp/k-memtrace.out memtrace-read --kernel-leaks 3600 1; then
		bench k-memtrace "$(kmedian plain)"
		stop_tool
	fi
	if start_tool k-memleak /tmp/k-memleak.out env PYTHONUNBUFFERED=1 memleak-bpfcc 3600; then
		bench k-memleak "$(kmedian plain)"
		stop_tool
		info "k-memleak: $(grep -c . /tmp/k-memleak.out) lines of output"
	fi
	if [ "${MEMLEAK_SAMPLED:-1}" = 1 ] &&
		start_tool k-memleak-s100 /tmp/k-memleak-s.out env PYTHONUNBUFFERED=1 memleak-bpfcc -s 100 3600; then
		bench k-memleak-s100 "$(kmedian plain)"
		stop_tool
	fi
	rmmod memtrace_bench
	rmmod memtrace
}

# ------------------------------------------------------------------ user
# urun NAME CMD...: run CMD REPS times; NAME = median ns/pair
urun() {
	name=$1
	shift
	: >/tmp/u.$name
	i=0
	while [ $i -lt "$REPS" ]; do
		t0=$(now_ms)
		"$@" >/tmp/u.out 2>&1
		rc=$? t1=$(now_ms)
		ns=$(ns_of /tmp/u.out)
		if [ $rc -ne 0 ] || [ -z "$ns" ]; then
			info "$name: \"$*\" exited $rc without ns/pair:"
			tail -n 15 /tmp/u.out | sed "s/^/# BENCHINFO $name:   /"
			return 1
		fi
		echo "$ns" >>/tmp/u.$name
		echo "$((t1 - t0))" >>/tmp/u.$name.wall
		i=$((i + 1))
	done
	bench "$name" "$(median </tmp/u.$name)"
	info "$name: runs (ns/pair) $(tr '\n' ' ' </tmp/u.$name); wall ms $(tr '\n' ' ' </tmp/u.$name.wall)"
}

# memleak_p NAME SIG CMD...: run CMD (which must wait for SIGUSR1, or stop
# itself with SIGSTOP, before its work) under memleak-bpfcc -p; NAME-* are
# the start-up times, NAME-wall-ms the time from the signal to its exit.
memleak_p() {
	name=$1 sig=$2
	shift 2
	"$@" >/tmp/$name.prog 2>&1 &
	prog=$!
	# the program is waiting (mallocbench says so; a SIGSTOPped one is "T")
	i=0
	while [ $i -lt 600 ]; do
		grep -q '^waiting' /tmp/$name.prog 2>/dev/null && break
		[ "$(awk '{ print $3 }' /proc/$prog/stat 2>/dev/null)" = T ] && break
		sleep 0.1
		i=$((i + 1))
	done
	if start_tool "$name" "/tmp/$name.out" env PYTHONUNBUFFERED=1 memleak-bpfcc -p $prog 3600; then
		t0=$(now_ms)
		kill -$sig $prog
		wait $prog
		rc=$?
		t1=$(now_ms)
		stop_tool
		info "$name: program exited $rc"
		bench "$name-wall-ms" "$((t1 - t0))"
		return 0
	fi
	kill -KILL $prog 2>/dev/null
	kill -CONT $prog 2>/dev/null
	wait $prog 2>/dev/null
	return 1
}

user_bench() {
	mallocbench "$UPAIRS_UNTRACED" >/dev/null	# warm the caches
	urun u-untraced mallocbench "$UPAIRS_UNTRACED"
	urun u-untraced-small mallocbench "$UPAIRS_TRACED"
	insmod $B/ko/memtrace.ko || info "user: insmod memtrace.ko failed"
	# the floor: memtrace_bench.ko's empty uprobes on malloc (entry and
	# return) and free (entry), as in tests/bench/user-pairs.sh
	# shellcheck disable=SC2046 # split on purpose
	set -- $(ufnoffset malloc free)
	if [ $# -eq 4 ] && [ "$1" = "$3" ] && insmod $B/ko/memtrace_bench.ko &&
		echo "$1 $2:ret $4" >/sys/module/memtrace_bench/parameters/uprobe_arm; then
		urun u-floor mallocbench "$UPAIRS_TRACED"
		echo off >/sys/module/memtrace_bench/parameters/uprobe_arm
		rmmod memtrace_bench
	else
		info "u-floor: cannot arm the empty uprobes ($(ufnoffset malloc free 2>&1))"
	fi
	urun u-memtrace memtrace-read -c "$B/bin/mallocbench $UPAIRS_TRACED"
	urun u-memtrace-uretprobe memtrace-read --returns=uretprobe \
		-c "$B/bin/mallocbench $UPAIRS_TRACED"
	urun u-valgrind valgrind --tool=memcheck --leak-check=full mallocbench "$UPAIRS_TOOL"
	urun u-heaptrack heaptrack -o /tmp/ht-mallocbench mallocbench "$UPAIRS_TOOL"
	if memleak_p u-memleak USR1 mallocbench --wait-usr1 "$UPAIRS_TRACED"; then
		ns=$(ns_of /tmp/u-memleak.prog)
		if [ -n "$ns" ]; then
			bench u-memleak "$ns"
		else
			info "u-memleak: mallocbench printed no ns/pair:"
			tail -n 10 /tmp/u-memleak.prog | sed 's/^/# BENCHINFO u-memleak:   /'
		fi
	fi
	rmmod memtrace
}

# ------------------------------------------------------------------ perl
# prun NAME CMD...: wall ms of CMD, median of REPS (REPS=1 for slow tools)
prun() {
	name=$1 reps=$2
	shift 2
	: >/tmp/p.$name
	i=0
	while [ $i -lt "$reps" ]; do
		t0=$(now_ms)
		"$@" >/tmp/p.out 2>&1
		rc=$? t1=$(now_ms)
		if [ $rc -ne 0 ] || ! grep -qx "$PERL_N" /tmp/p.out; then
			info "$name: \"$*\" exited $rc:"
			tail -n 15 /tmp/p.out | sed "s/^/# BENCHINFO $name:   /"
			return 1
		fi
		echo "$((t1 - t0))" >>/tmp/p.$name
		i=$((i + 1))
	done
	bench "$name" "$(median </tmp/p.$name)"
	info "$name: runs (wall ms) $(tr '\n' ' ' </tmp/p.$name)"
}

perl_bench() {
	pl=$B/alloc.pl
	perl $pl "$PERL_N" >/dev/null	# warm the caches
	prun p-untraced "$REPS" perl $pl "$PERL_N"
	insmod $B/ko/memtrace.ko || info "perl: insmod memtrace.ko failed"
	prun p-memtrace "$REPS" memtrace-read -c "/usr/bin/perl $pl $PERL_N"
	grep -E '^(Lost|Activity):' /tmp/p.out | tail -n 2 | sed 's/^/# BENCHINFO p-memtrace: /'
	prun p-valgrind 1 valgrind --tool=memcheck --leak-check=full perl $pl "$PERL_N"
	grep -E 'total heap usage' /tmp/p.out | sed 's/^/# BENCHINFO p-valgrind: /'
	prun p-heaptrack "$REPS" heaptrack -o /tmp/ht-perl perl $pl "$PERL_N"
	# memleak -p needs a running process: a shell that stops itself and,
	# continued, becomes perl (same pid: the uprobes stay)
	if [ "${MEMLEAK_PERL:-1}" = 1 ] &&
		memleak_p p-memleak CONT sh -c "kill -STOP \$\$; exec perl $pl $PERL_N"; then
		grep -qx "$PERL_N" /tmp/p-memleak.prog ||
			info "p-memleak: perl printed $(tail -n 3 /tmp/p-memleak.prog)"
	fi
	rmmod memtrace
}

info "guest: init started at $(cut -d' ' -f1 /proc/uptime) s of uptime"
bench perl-n "$PERL_N"
for part in ${PARTS:-kernel user perl}; do
	part_t0=$(now_ms)
	"${part}_bench"
	info "guest: $part took $(ms_to_s $(($(now_ms) - part_t0))) s"
done
finish
