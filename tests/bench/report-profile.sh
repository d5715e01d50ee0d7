#!/bin/sh
# Guest half of `make bench`'s report profile (scripts/bench.sh, with
# scripts/bench-profile.sh): where the instructions of memtrace-read's
# report of many distinct kernel stacks go, per function, kernel and user.
# The scale boot (tests/bench/scale.sh, stacks()) times the same report in
# wall-clock TCG time; here it runs under qemu's -icount with the tbprof
# plugin (tests/bench/profile/tbprof.c), one vCPU.
#
# memtrace_bench.ko's stacks:N keeps N objects live, each allocated
# through its own chain of calls; `memtrace-read --kernel-leaks -T 2N`
# traces them, and a window (`mtprof-mark open` / `close`) brackets its
# SIGINT to its exit: the last snapshot, symbolizing every stack and the
# report (to a file in RAM).  N is 100000 as in the scale boot, or the
# kernel command line's mtprof_stacks=N.
#
# Prints "# BENCHPROF window N report STACKS INSTRUCTIONS" (the window's
# guest clock: 1 ns an instruction), "PROFMAP <line>" for each line of
# memtrace-read's /proc/PID/maps (read just before the window: the host
# maps its user blocks to functions of memtrace-read and its libraries
# by them), and PROFSYM lines, the kernel's text symbols, as
# tests/bench/pairs-profile.sh does.
# mtt-timeout: 1500
. "${0%/*}/lib.sh"

P=/sys/module/memtrace_bench/parameters
STACKS=$(sed -n 's/.*mtprof_stacks=\([0-9][0-9]*\).*/\1/p' /proc/cmdline)
STACKS=${STACKS:-100000}

# nanoseconds since boot (the guest clock: instructions under -icount)
now_ns() { awk '{ printf "%.0f", $1 * 1000000000 }' /proc/uptime; }

# memtrace.ko's defaults hold fewer stacks (as in tests/bench/scale.sh)
load_memtrace stack_pool_mb=128 stat_slots=262144 || { not_ok "load memtrace.ko"; exit 1; }
insmod /memtrace/memtrace_bench.ko || { not_ok "load memtrace_bench.ko"; exit 1; }
echo 32 >$P/size

start_kernel_reader /tmp/report.out "profile: memtrace-read attaches" \
	-T $((STACKS * 2)) 3600 1 || exit 1
echo "stacks:$STACKS" >$P/run || not_ok "profile: stacks:$STACKS" "$(cat $P/result)"
sleep 1		# older than -o's 500 ms: every object is reported
# The maps before the window: memtrace-read has loaded its libraries by
# now (it opens none while reporting), and is gone after it.
maps=$(cat /proc/"$READER"/maps)
t0=$(now_ns)
mtprof-mark open
kill -INT "$READER"
wait "$READER"
rc=$?
mtprof-mark close
t1=$(now_ns)
reported=$(grep -c 'allocations from stack' /tmp/report.out)
echo release >$P/run
# A report that failed or stopped short would count few instructions:
# no figure then, so the target is not judged on it.
if [ "$rc" -ne 0 ] || [ "$reported" -lt "$STACKS" ]; then
	not_ok "profile: report of $STACKS stacks" \
		"memtrace-read exited $rc having reported $reported stacks: $(tail -n 5 /tmp/report.out)"
else
	echo "# BENCHPROF window 1 report $STACKS $((t1 - t0))"
	echo "# BENCH report-profile-stacks $STACKS"
	echo "# BENCH report-profile-reported $reported"
	echo "# BENCH report-profile-instructions $((t1 - t0))"
	ok "profile: report of $STACKS stacks"
fi

echo "$maps" | sed 's/^/PROFMAP /' >/dev/console
# The kernel's text symbols (as tests/bench/pairs-profile.sh prints them)
awk '$2 ~ /^[tTwW]$/ && $1 ~ /^ffffffff/ {
	print "PROFSYM", substr($1, 9), $3 ($4 == "" ? "" : " " $4) }' /proc/kallsyms >/dev/console
ok "profile: symbols"
rmmod memtrace_bench
unload_memtrace
