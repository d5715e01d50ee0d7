#!/bin/bash
# make bench: boot a Debian kernel guest once, measure the cost of a
# kmalloc+kfree pair (tests/bench/kernel-pairs.sh) and of a user program's
# malloc+free pair (tests/bench/user-pairs.sh) untraced, under an empty
# probe (the floor) and under memtrace, print tables and write them to
# docs/benchmarks.md.  Benchmarks report; they never fail on a number.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

kver=$(ls -d /lib/modules/6.1.*-amd64/build 2>/dev/null | sort -V | tail -n1 | cut -d/ -f4)
[ -n "$kver" ] || { echo "bench: no 6.1 kernel headers: make deps" >&2; exit 1; }
make -s module KVER="$kver"
make -s userspace
make -s -C tests/progs O="$top/build/progs"
tests/guest/build-test-module.sh "/lib/modules/$kver/build" "build/testkmod-$kver" >/dev/null

out=$(mktemp)
trap 'rm -f "$out"' EXIT
# tsc=reliable: with 2 vCPUs under TCG the kernel finds the TSCs out of
# sync and falls back to the HPET, whose every read (a timestamp per
# recorded allocation, clock_gettime()) is an emulated MMIO access; real
# machines read the TSC.
tests/guest/run-guest.sh --kernel "/boot/vmlinuz-$kver" --label bench \
	--ko-dir "build/kmod-$kver" --ko-dir "build/testkmod-$kver" \
	--bin-dir build/user --bin-dir build/progs --scripts 'tests/bench/*.sh' \
	--append tsc=reliable --timeout 1200 | tee "$out"

val() { sed -n "s/^# BENCH $1 //p" "$out" | head -n1; }

# row LABEL NS [PLAIN FLOOR [TARGET [floor]]]: a table row: NS, its cost
# added to PLAIN's and that as a multiple of the FLOOR's added cost; with
# no FLOOR, the untraced row; with "floor", the floor's own row.
row() {
	awk -v l="$1" -v x="$2" -v p="${3:-}" -v f="${4:-}" -v t="${5:-}" -v what="${6:-}" 'BEGIN {
		t = t == "" ? " |" : " " t " |"
		if (x == "") { printf "| %s | ? | | |%s\n", l, t; exit }
		if (f == "") { printf "| %s | %d | 0 | |%s\n", l, x, t; exit }
		if (p == "") { printf "| %s | %d | ? | |%s\n", l, x, t; exit }
		r = what == "floor" ? "1.00x" : \
		    f - p <= 0 ? "n/a" : sprintf("%.2fx", (x - p) / (f - p))
		printf "| %s | %d | %d | %s |%s\n", l, x, x - p, r, t }'
}

plain=$(val untraced) floor=$(val floor)
full=$(val memtrace-full) s100=$(val memtrace-s100) bytes=$(val memtrace-bytes512k)
[ -n "$plain" ] && [ -n "$floor" ] || { echo "bench: the guest gave no numbers" >&2; exit 1; }
table=$(
	echo "| kmalloc(64)+kfree pair | ns/pair | added ns | added / floor's added | target |"
	echo "|---|---|---|---|---|"
	row "untraced" "$plain"
	row "empty probe (floor)" "$floor" "$plain" "$floor" "" floor
	row "memtrace, full stacks" "$full" "$plain" "$floor" "<= 3x"
	row "memtrace -s 100" "$s100" "$plain" "$floor" "<= 1.2x"
	row "memtrace --sample-bytes 524288" "$bytes" "$plain" "$floor"
)

uplain=$(val user-untraced) ufloor=$(val user-floor)
ufull=$(val user-memtrace-full) us100=$(val user-memtrace-s100)
utable=$(
	echo "| malloc(32)+free pair | ns/pair | added ns | added / floor's added | target |"
	echo "|---|---|---|---|---|"
	row "untraced" "$uplain"
	row "empty uprobes (floor)" "$ufloor" "$uplain" "$ufloor" "" floor
	row "memtrace, full stacks" "$ufull" "$uplain" "$ufloor" "<= 1.3x"
	row "memtrace -s 100" "$us100" "$uplain" "$ufloor" "<= 1.1x"
	echo "| BCC memleak | not measured: needs the debootstrap guest (issue 5) | | | |"
)
{
	echo "# memtrace benchmarks"
	echo
	echo "Measured $(date -u +%Y-%m-%d) by \`make bench\` on a $(nproc)-core host,"
	echo "guest: Debian kernel $kver under qemu TCG (software emulation: absolute"
	echo "times are those of the emulator; compare the ratios), 2 vCPUs, clocksource"
	echo "tsc (tsc=reliable; else the guest reads the emulated HPET)."
	echo
	echo "## Kernel allocation tracing: cost per kmalloc+kfree pair"
	echo
	echo "In-kernel loop of 100000 pairs (tests/kmod/memtrace_bench.c), median of 5."
	echo
	echo "$table"
	echo
	echo "Where the cost goes: with full stacks, one ORC unwind (stack_trace_save)"
	echo "per allocation dominates. With -s 100, 99 allocations in 100 are decided"
	echo "by one IRQ-safe per-CPU counter before the hook does anything else, and"
	echo "most frees by a lockless look at one bucket of the live index (interrupts"
	echo "left on); what remains is the 1 in 100 recorded with a full stack."
	echo "--sample-bytes resolves the cache (size class) of every allocation, since"
	echo "its sampling depends on the size."
	echo
	echo "Live-index memory: 40 bytes per tracked allocation plus 4-8 bytes of"
	echo "bucket heads (kmod/livetab.h): at most 48 B."
	echo
	echo '```'
	grep '^# BENCHINFO' "$out" | grep -v '^# BENCHINFO user' | sed 's/^# BENCHINFO //'
	echo '```'
	echo
	echo "## User allocation tracing: cost per malloc(32)+free pair"
	echo
	echo "A program's own loop of malloc(32)+free pairs, timed by itself"
	echo "(tests/progs/mallocbench.c: the median of 5 rounds). Each configuration"
	echo "runs several times, in turn with the others, and the median run counts"
	echo "(tests/bench/user-pairs.sh; pairs per round and runs: see below). The floor"
	echo "is an empty uprobe on malloc and free and an empty return probe on"
	echo "malloc (tests/kmod/memtrace_bench.c), the probes memtrace registers: the"
	echo "cost of the traps themselves. memtrace runs the program with"
	echo "\`memtrace-read -c\` (5 s interval)."
	echo
	echo "$utable"
	echo
	echo "Where the cost goes: a pair takes the floor's traps, which no"
	echo "uprobe-based tracer avoids: malloc's entry (its first instruction, a"
	echo "push, is emulated), malloc's return (the return probe's trampoline) and"
	echo "free's entry, whose first instruction is stepped out of line (a copy to"
	echo "the XOL page and a second trap). On top of them memtrace's handlers run,"
	echo "for every call, the hooks' entry guard and the call table (malloc's entry"
	echo "waits there for its return), and per free a live-index lookup: all that"
	echo "-s 100 adds to 99 calls in 100. With full stacks every call is recorded"
	echo "too: a frame-pointer walk of the user stack (copy_from_user_nofault per"
	echo "frame), the stack table, a timestamp, the live index and the per-stack"
	echo "counters; and each free finds and removes its entry. Runs vary by some"
	echo "25% on a busy host (other guests share it): see the runs below."
	echo
	echo '```'
	grep '^# BENCHINFO user' "$out" | sed 's/^# BENCHINFO //'
	echo '```'
} >docs/benchmarks.md
echo
echo "$table"
echo
echo "$utable"
echo "(written to docs/benchmarks.md)"
