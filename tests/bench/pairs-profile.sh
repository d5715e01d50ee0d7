#!/bin/sh
# Guest half of `make bench`'s profile boot (scripts/bench.sh, with
# scripts/bench-profile.sh): where the instructions of a kmalloc(64)+kfree
# pair (the configurations of tests/bench/kernel-pairs.sh) and of a
# malloc(32)+free pair (tests/bench/user-pairs.sh) go, per function.
# Booted under qemu's -icount with the tbprof plugin
# (tests/bench/profile/tbprof.c): `mtprof-mark open` and `close` bracket
# a run, and the plugin writes each window's instructions per translation
# block to a host file.  Prints "# BENCHPROF window N NAME PAIRS
# INSTRUCTIONS-PER-PAIR" (the loop's own count of the same run), then the
# text symbols for the host to attribute the blocks to (the modules stay
# loaded from the first window to the symbols: their addresses hold).
# mtt-timeout: 900
. "${0%/*}/lib.sh"

P=/sys/module/memtrace_bench/parameters
PAIRS=100000
window=0

load_memtrace || { not_ok "load memtrace.ko"; exit 1; }
insmod /memtrace/memtrace_bench.ko || { not_ok "load memtrace_bench.ko"; exit 1; }
echo $PAIRS >$P/pairs

# profile NAME MODE: one run of the loop in a window of its own
profile() {
	echo "$2" >$P/run	# warm: the window counts a run like the bench's
	mtprof-mark open
	echo "$2" >$P/run
	mtprof-mark close
	window=$((window + 1))
	echo "# BENCHPROF window $window $1 $PAIRS $(cut -d' ' -f4 $P/result)"
}

# with_reader NAME ARGS...: the loop while memtrace-read traces with ARGS
with_reader() {
	name=$1
	shift
	start_kernel_reader /tmp/prof-reader.out "profile: memtrace-read $* attaches" \
		"$@" 3600 1 || return
	echo plain >$P/run	# the tracer's own warm-up, outside the window
	profile "$name" plain
	kill -INT "$READER"
	wait "$READER"
	ok "profile: $name"
}

echo plain >$P/run
profile untraced plain
profile floor floor
with_reader memtrace-full
with_reader memtrace-s100 -s 100
with_reader memtrace-bytes512k --sample-bytes 524288

# User pairs: a window holds a whole command (mallocbench, under the
# uretprobe floor's empty probes or under `memtrace-read -c`, whose
# start-up, table building and report are in it), run with SMALL and
# with LARGE pairs a round: the host takes the difference of the two
# windows, which leaves what the extra pairs cost (mallocbench runs a
# warm-up round and 5 timed ones: 6 rounds).
SMALL=2000 LARGE=10000
# uwindow NAME CMD: NAME@SMALL and NAME@LARGE, of CMD PAIRS
uwindow() {
	name=$1 cmd=$2
	$cmd $SMALL >/dev/null 2>&1	# warm: the first run pays for more (code patched)
	for n in $SMALL $LARGE; do
		mtprof-mark open
		$cmd "$n" >/tmp/prof-user.out 2>&1
		mtprof-mark close
		window=$((window + 1))
		echo "# BENCHPROF window $window $name@$n $((6 * n))" \
			"$(sed -n 's/^ns\/pair \([0-9][0-9]*\)$/\1/p' /tmp/prof-user.out | tail -n 1)"
	done
	ok "profile: $name"
}
# shellcheck disable=SC2046 # "PATH OFFSET PATH OFFSET"
set -- $(ufnoffset malloc free)
uwindow user-untraced mallocbench
if echo "$1 $2:ret $4" >$P/uprobe_arm; then
	uwindow user-floor mallocbench
	echo off >$P/uprobe_arm
else
	not_ok "profile: arm the empty uprobes" "$(dmesg | tail -n 5)"
fi
under_memtrace() { memtrace-read -c "/usr/bin/mallocbench $1"; }
uwindow user-memtrace-full under_memtrace
under_memtrace_s100() { memtrace-read -s 100 -c "/usr/bin/mallocbench $1"; }
uwindow user-memtrace-s100 under_memtrace_s100

# Start-up: the guest seconds (G instructions under -icount: the guest
# clock advances 1 ns per instruction) from launching memtrace-read to its
# "Attaching" line, which it prints and flushes once attached.  A line
# reader on a FIFO stamps it when it arrives (it sleeps until then: no
# polling competes with memtrace-read for the one vCPU).
# attach_time NAME ARGS...: "# BENCH attach-NAME-s S"
attach_time() {
	name=$1
	shift
	rm -f /tmp/attach.fifo && mkfifo /tmp/attach.fifo || return
	t0=$(cut -d' ' -f1 /proc/uptime)
	memtrace-read "$@" >/tmp/attach.fifo 2>&1 &
	pid=$! t1=''
	exec 5</tmp/attach.fifo
	while IFS= read -r l <&5; do
		case $l in Attaching*) t1=$(cut -d' ' -f1 /proc/uptime); break ;; esac
	done
	cat <&5 >/dev/null &
	drain=$!
	exec 5<&-
	kill -INT $pid 2>/dev/null
	wait $pid
	wait $drain
	if [ -n "$t1" ]; then
		echo "# BENCH attach-$name-s $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')"
		ok "profile: attach-$name"
	else
		not_ok "profile: attach-$name (no \"Attaching\" line)"
	fi
}
attach_time kernel --kernel-leaks 3600 1
attach_time user -c "/usr/bin/mallocbench $SMALL"

# The text symbols, kernel and modules, to attribute the blocks to,
# written to the console itself: tens of thousands of lines, too many for
# the test runner's line-by-line relay (they stay in the console log,
# build/logs/, off the bench's output).  The addresses' low 32 bits: all
# of kernel text and modules lies in the top 2 GiB.
t0=$(cut -d' ' -f1 /proc/uptime)
awk '$2 ~ /^[tTwW]$/ && $1 ~ /^ffffffff/ {
	print "PROFSYM", substr($1, 9), $3 ($4 == "" ? "" : " " $4) }' /proc/kallsyms >/dev/console
echo "# BENCHPROF symbols written in $(awk -v a="$t0" -v b="$(cut -d' ' -f1 /proc/uptime)" \
	'BEGIN { printf "%.1f", b - a }') s"
ok "profile: symbols"
rmmod memtrace_bench
unload_memtrace
