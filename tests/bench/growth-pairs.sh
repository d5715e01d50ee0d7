#!/bin/sh
# Guest half of `make bench` (scripts/bench.sh), process memory growth:
# the cost per mmap+munmap pair and per page fault of a program
# (memgrowth bench: tests/progs/memgrowth.c times its own loops) untraced,
# with memtrace's system-wide hooks attached but the program filtered out
# (--by-comm of another name: every call still takes the kretprobe and the
# filter), and traced system-wide (every call recorded, with its stack).
# Prints "# BENCH growth-<name>-mmap|fault <ns>" lines.
# mtt-timeout: 900
. "${0%/*}/lib.sh"

N=2000
REPS=5
NAMES="untraced mmap-filtered mmap-traced faults-filtered faults-traced"
OUT=/tmp/bench-growth.out

# run NAME [MODE ARGS...]: memgrowth bench under memtrace-read MODE ARGS
# (system-wide, in the background), or untraced; keeps its two numbers.
run() {
	name=$1
	shift
	reader=
	if [ $# -gt 0 ]; then
		memtrace-read "$@" 1 100000 >/tmp/bench-growth.reader 2>&1 &
		reader=$!
		if ! wait_for 60 grep -q "^\(PID\|Tracing\)" /tmp/bench-growth.reader; then
			not_ok "bench: growth-$name attaches" "$(cat /tmp/bench-growth.reader)"
			kill -KILL "$reader" 2>/dev/null
			return 1
		fi
	fi
	memgrowth bench $N >$OUT 2>&1
	rc=$?
	if [ -n "$reader" ]; then
		kill -INT "$reader"
		wait "$reader"
		grep -E '^(Lost|Missed):' /tmp/bench-growth.reader >"/tmp/bench-growth.$name.info"
	fi
	m=$(sed -n 's/^ns\/mmap \([0-9]*\)$/\1/p' $OUT) f=$(sed -n 's/^ns\/fault \([0-9]*\)$/\1/p' $OUT)
	if [ $rc -ne 0 ] || [ -z "$m" ] || [ -z "$f" ]; then
		not_ok "bench: growth-$name" "$(tail -n 15 $OUT)"
		return 1
	fi
	echo "$m" >>"/tmp/bench-growth.$name.mmap"
	echo "$f" >>"/tmp/bench-growth.$name.fault"
}

command -v memgrowth >/dev/null || { not_ok "bench: memgrowth in the guest"; exit 1; }
load_memtrace || { not_ok "load memtrace.ko"; exit 1; }
for name in $NAMES; do
	rm -f "/tmp/bench-growth.$name."*
done
echo "# BENCHINFO growth: $N mmap+munmap pairs (64 KiB) and $N page faults a round," \
	"median of 5 rounds; median of $REPS runs"
memgrowth bench $N >/dev/null	# warm the caches
i=0
while [ $i -lt $REPS ]; do
	run untraced
	run mmap-filtered --mmap --by-comm nosuchtask
	run mmap-traced --mmap
	run faults-filtered --faults --by-comm nosuchtask
	run faults-traced --faults
	i=$((i + 1))
done

for name in $NAMES; do
	for what in mmap fault; do
		f=/tmp/bench-growth.$name.$what
		[ -s "$f" ] || continue
		n=$(wc -l <"$f")
		echo "# BENCH growth-$name-$what $(sort -n "$f" | sed -n "$(((n + 1) / 2))p")"
		echo "# BENCHINFO growth-$name-$what runs (ns): $(tr "\n" " " <"$f")"
	done
	[ ! -s "/tmp/bench-growth.$name.info" ] ||
		sed "s/^/# BENCHINFO growth-$name /" "/tmp/bench-growth.$name.info"
	if [ "$(wc -l <"/tmp/bench-growth.$name.mmap" 2>/dev/null || echo 0)" -eq $REPS ]; then
		ok "bench: growth-$name"
	else
		not_ok "bench: growth-$name (fewer than $REPS runs)"
	fi
done
unload_memtrace
