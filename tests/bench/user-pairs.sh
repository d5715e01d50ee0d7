#!/bin/sh
# Guest half of `make bench` (scripts/bench.sh), user mode: the added cost
# of memtrace per malloc(32)+free pair of a program (mallocbench, which
# times its own loop: tests/progs/mallocbench.c) against the floor, an
# empty uprobe on malloc (entry and return) and on free (entry), the probes
# memtrace registers; all in one boot.
# Prints "# BENCH user-<name> <ns per pair>" lines.
# mtt-timeout: 900
. "${0%/*}/lib.sh"

P=/sys/module/memtrace_bench/parameters
# Pairs per round (mallocbench times 5 rounds after one to warm up).  A
# pair costs tens of microseconds traced under TCG: a traced run takes a
# few seconds.
PAIRS=10000
PAIRS_UNTRACED=1000000
# Every configuration runs REPS times, in turn (so that a slow spell of the
# host weighs on all alike); the median run counts.
REPS=7
NAMES="untraced floor memtrace-full memtrace-s100"
OUT=/tmp/bench-user.out

# run NAME CMD...: run CMD (output to $OUT), keep the ns/pair it printed
run() {
	name=$1
	shift
	"$@" >$OUT 2>&1
	rc=$?
	ns=$(sed -n 's/^ns\/pair \([0-9][0-9]*\)$/\1/p' $OUT | tail -n 1)
	if [ $rc -ne 0 ] || [ -z "$ns" ]; then
		not_ok "bench: user-$name" "$(printf '%s\n' "command: $*" "exit status: $rc" \
			"$(tail -n 15 $OUT)")"
		return 1
	fi
	echo "$ns" >>"/tmp/bench-user.$name"
}

# memtrace_run NAME ARGS...: mallocbench under memtrace-read ARGS -c
memtrace_run() {
	name=$1
	shift
	run "$name" memtrace-read "$@" -c "/usr/bin/mallocbench $PAIRS" || return
	# the counters of the last run
	grep -E '^(Lost|Activity):' $OUT | tail -n 2 >"/tmp/bench-user.$name.info"
}

floor_run() {
	if ! echo "$libc $malloc_off:ret $free_off" >$P/uprobe_arm; then
		not_ok "bench: arm the empty uprobes" "$(dmesg | tail -n 5)"
		return 1
	fi
	run floor mallocbench "$PAIRS"
	echo off >$P/uprobe_arm
}

for p in mallocbench ufnoffset memtrace-read; do
	command -v $p >/dev/null || { not_ok "bench: $p in the guest"; exit 1; }
done
# "PATH OFFSET" of malloc, then of free
# shellcheck disable=SC2046 # split on purpose
set -- $(ufnoffset malloc free)
if [ $# -ne 4 ] || [ "$1" != "$3" ]; then
	not_ok "bench: file offsets of malloc and free" "$(ufnoffset malloc free 2>&1)"
	exit 1
fi
libc=$1 malloc_off=$2 free_off=$4
echo "# BENCHINFO user: malloc at $libc+$malloc_off, free at +$free_off;" \
	"$PAIRS pairs a round traced, $PAIRS_UNTRACED untraced; median of $REPS runs"

load_memtrace || { not_ok "load memtrace.ko"; exit 1; }
insmod /memtrace/memtrace_bench.ko || { not_ok "load memtrace_bench.ko"; exit 1; }
for name in $NAMES; do
	rm -f "/tmp/bench-user.$name" "/tmp/bench-user.$name.info"
done

mallocbench "$PAIRS_UNTRACED" >/dev/null	# warm the caches
i=0
while [ $i -lt $REPS ]; do
	run untraced mallocbench "$PAIRS_UNTRACED"
	floor_run
	memtrace_run memtrace-full
	memtrace_run memtrace-s100 -s 100
	i=$((i + 1))
done

for name in $NAMES; do
	f=/tmp/bench-user.$name
	[ -s "$f" ] || continue
	n=$(wc -l <"$f")
	echo "# BENCH user-$name $(sort -n "$f" | sed -n "$(((n + 1) / 2))p")"
	echo "# BENCHINFO user-$name runs (ns/pair): $(tr "\n" " " <"$f")"
	[ ! -s "$f.info" ] || sed "s/^/# BENCHINFO user-$name /" "$f.info"
	if [ "$n" -eq $REPS ]; then
		ok "bench: user-$name"
	else
		not_ok "bench: user-$name ($n of $REPS runs)"
	fi
done

rmmod memtrace_bench
unload_memtrace
