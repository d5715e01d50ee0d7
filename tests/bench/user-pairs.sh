#!/bin/sh
# Guest half of `make bench` (scripts/bench.sh), user mode: the added cost
# of memtrace per malloc(32)+free pair of a program (mallocbench, which
# times its own loop: tests/progs/mallocbench.c) against the floors, empty
# probes where memtrace puts its own; all in one boot.
#
# Booted with qemu's -icount shift=0,sleep=off (bench.sh appends
# mtbench=icount to the kernel's command line then), the guest's clock
# advances 1 ns per instruction: mallocbench's "ns/pair" is instructions
# per pair, the same run to run.  Otherwise it is wall-clock time under
# TCG.  Prints "# BENCH user-<unit>-<name> <per pair>" lines, unit insn
# or ns.
#
# The floors (tests/kmod/memtrace_bench.c's uprobe_arm):
#   floor        an empty uprobe on malloc's entry with a return probe
#                (uretprobe), and on free's entry: what every
#                uretprobe-based tracer pays (memleak, memtrace
#                --returns=uretprobe);
#   floor-sites  memtrace's own probes, empty: malloc's entry, each of its
#                ret instructions (the handler performs the ret: no single
#                step), and free's probe where memtrace-read puts it (its
#                je, which uprobes performs, not its test: ufnoffset
#                --entry);
#   floor-1trap  the same without malloc's entry probe: one trap per
#                allocation, what an allocator whose size could be read at
#                its return would cost (docs/design.md says why memtrace
#                keeps the entry probe).
# And memtrace with less of a stack, to attribute its cost: --unwind=fp
# (frame pointers only: glibc's frames are not walked, no mm lock), and
# --stack-depth 1 --unwind=fp (the recording without a walk).
# mtt-timeout: 900
. "${0%/*}/lib.sh"

P=/sys/module/memtrace_bench/parameters
unit=ns
grep -q 'mtbench=icount' /proc/cmdline && unit=insn
# Pairs per round (mallocbench times 5 rounds after one to warm up).  A
# pair costs tens of microseconds traced under TCG: a traced run takes a
# few seconds.
PAIRS=10000
PAIRS_UNTRACED=1000000
# Every configuration runs REPS times, in turn (so that a slow spell of the
# host weighs on all alike); the median run counts.  Instruction counts
# repeat exactly: three runs show it.
REPS=7
[ $unit = insn ] && REPS=3 PAIRS_UNTRACED=100000
NAMES="untraced floor floor-sites floor-1trap memtrace-full memtrace-s100
	memtrace-full-uretprobe memtrace-s100-uretprobe memtrace-full-fp memtrace-d1-fp"
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
	run "$name" memtrace-read -v "$@" -c "/usr/bin/mallocbench $PAIRS" || return
	# the counters of the last run, and which probes malloc got
	{
		grep -E '^(Lost|Activity):' $OUT | tail -n 2
		grep -E '^memtrace-read: (malloc|free) in ' $OUT | sort -u
	} >"/tmp/bench-user.$name.info"
}

# floor_run NAME PROBES...: mallocbench under memtrace_bench's empty probes
floor_run() {
	name=$1
	shift
	if ! echo "$libc $*" >$P/uprobe_arm; then
		not_ok "bench: arm the empty uprobes ($name)" "$(dmesg | tail -n 5)"
		return 1
	fi
	run "$name" mallocbench "$PAIRS"
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
# "PATH OFFSET..." of malloc's ret instructions
# shellcheck disable=SC2046 # split on purpose
set -- $(ufnoffset --rets malloc)
if [ $# -lt 2 ] || [ "$1" != "$libc" ]; then
	not_ok "bench: malloc's ret instructions" "$(ufnoffset --rets malloc 2>&1)"
	exit 1
fi
shift
malloc_sites=""
# shellcheck disable=SC2046 # split on purpose
free_entry=$(set -- $(ufnoffset --entry free) && echo "$2")
[ -n "$free_entry" ] || { not_ok "bench: free's entry probe" "$(ufnoffset --entry free 2>&1)"; exit 1; }
for off in "$@"; do
	malloc_sites="$malloc_sites $off:site"
done
echo "# BENCHINFO user: malloc at $libc+$malloc_off (ret instructions at $*)," \
	"free at +$free_off (memtrace's probe at +$free_entry); $PAIRS pairs a round traced, $PAIRS_UNTRACED untraced;" \
	"median of $REPS runs; unit: $unit"

load_memtrace || { not_ok "load memtrace.ko"; exit 1; }
insmod /memtrace/memtrace_bench.ko || { not_ok "load memtrace_bench.ko"; exit 1; }
for name in $NAMES; do
	rm -f "/tmp/bench-user.$name" "/tmp/bench-user.$name.info"
done

mallocbench "$PAIRS_UNTRACED" >/dev/null	# warm the caches
i=0
while [ $i -lt $REPS ]; do
	run untraced mallocbench "$PAIRS_UNTRACED"
	floor_run floor "$malloc_off:ret" "$free_off"
	# shellcheck disable=SC2086 # one word per site
	floor_run floor-sites "$malloc_off" $malloc_sites "$free_entry"
	# shellcheck disable=SC2086
	floor_run floor-1trap $malloc_sites "$free_entry"
	memtrace_run memtrace-full
	memtrace_run memtrace-s100 -s 100
	memtrace_run memtrace-full-uretprobe --returns=uretprobe
	memtrace_run memtrace-s100-uretprobe --returns=uretprobe -s 100
	memtrace_run memtrace-full-fp --unwind=fp
	memtrace_run memtrace-d1-fp --stack-depth 1 --unwind=fp
	i=$((i + 1))
done

for name in $NAMES; do
	f=/tmp/bench-user.$name
	[ -s "$f" ] || continue
	n=$(wc -l <"$f")
	echo "# BENCH user-$unit-$name $(sort -n "$f" | sed -n "$(((n + 1) / 2))p")"
	echo "# BENCHINFO user-$unit-$name runs (per pair): $(tr "\n" " " <"$f")"
	[ ! -s "$f.info" ] || sed "s/^/# BENCHINFO user-$unit-$name /" "$f.info"
	if [ "$n" -eq $REPS ]; then
		ok "bench: user-$unit-$name"
	else
		not_ok "bench: user-$unit-$name ($n of $REPS runs)"
	fi
done

rmmod memtrace_bench
unload_memtrace
