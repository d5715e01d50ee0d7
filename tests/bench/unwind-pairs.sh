#!/bin/sh
# Guest half of `make bench`, user stacks: the cost per malloc(32)+free
# pair under memtrace-read when each allocation's stack, 5, 15 or 40
# frames deep (tests/progs/unwindbench.c), is walked by frame pointers
# (unwindbench-fp, --unwind=fp) or by unwind tables (unwindbench-nofp,
# --unwind=cfi; and unwindbench-fp with --unwind=cfi: the same code, the
# walk alone differing).  The issue's target: a full CFI stack costs no
# more than 2x a frame-pointer stack of the same depth.
#
# Booted with qemu's -icount shift=0,sleep=off (scripts/bench.sh appends
# mtbench=icount to the kernel's command line then), the guest's clock
# advances 1 ns per instruction: unwindbench's "ns/pair" is instructions
# per pair, the same run to run.  Otherwise it is wall-clock time under
# TCG.  Two more rows a depth attribute the cost: the program untraced,
# and memtrace with a one-frame stack (--stack-depth 1 --unwind=fp: the
# recording without a walk), so that a walk's own cost is the full row
# less that one; and the same by tables (--stack-depth 1 --unwind=cfi:
# the mm lock, and malloc's own frame found in libc's table).
# Prints "# BENCH user-<unit>-unwind-<how>-d<depth> <per pair>" lines
# (unit insn or ns), and the ratios.
# mtt-timeout: 1200
. "${0%/*}/lib.sh"

unit=ns
grep -q 'mtbench=icount' /proc/cmdline && unit=insn
PAIRS=5000
PAIRS_UNTRACED=200000
REPS=3
# Instruction counts repeat exactly: fewer pairs give the same number.
[ $unit = insn ] && PAIRS=2000 PAIRS_UNTRACED=50000
HOWS="untraced d1 d1-cfi fp cfi cfi-fpcode"
OUT=/tmp/bench-unwind.out

for p in unwindbench-fp unwindbench-nofp memtrace-read; do
	command -v $p >/dev/null || { not_ok "bench: $p in the guest"; exit 1; }
done
if ! load_memtrace; then
	not_ok "bench: load memtrace.ko"
	exit 1
fi

# median FILE: the median of the numbers in FILE, one a line.
median() {
	sort -n "$1" | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'
}

echo "# BENCHINFO user-unwind: unwindbench DEPTH $PAIRS pairs a round traced," \
	"$PAIRS_UNTRACED untraced; median of $REPS runs; unit: $unit"
unwindbench-nofp 5 "$PAIRS_UNTRACED" >/dev/null	# warm the caches
for depth in 5 15 40; do
	for how in $HOWS; do
		rm -f "/tmp/bench-unwind.$how.$depth"
	done
	for rep in $(seq "$REPS"); do
		for how in $HOWS; do
			case $how in
			untraced) set -- unwindbench-nofp "$depth" "$PAIRS_UNTRACED" ;;
			d1) set -- memtrace-read --stack-depth 1 --unwind=fp \
				-c "/usr/bin/unwindbench-fp $depth $PAIRS" ;;
			d1-cfi) set -- memtrace-read --stack-depth 1 --unwind=cfi \
				-c "/usr/bin/unwindbench-nofp $depth $PAIRS" ;;
			fp) set -- memtrace-read --unwind=fp -c "/usr/bin/unwindbench-fp $depth $PAIRS" ;;
			cfi) set -- memtrace-read --unwind=cfi -c "/usr/bin/unwindbench-nofp $depth $PAIRS" ;;
			cfi-fpcode) set -- memtrace-read --unwind=cfi \
				-c "/usr/bin/unwindbench-fp $depth $PAIRS" ;;
			esac
			"$@" >$OUT 2>&1
			rc=$?
			ns=$(sed -n 's/^ns\/pair \([0-9][0-9]*\)$/\1/p' $OUT | tail -n 1)
			if [ $rc -ne 0 ] || [ -z "$ns" ]; then
				not_ok "bench: user-$unit-unwind-$how-d$depth" \
					"$(printf '%s\n' "command: $*" "exit status: $rc" "$(tail -n 15 $OUT)")"
				continue
			fi
			echo "$ns" >>"/tmp/bench-unwind.$how.$depth"
			[ "$rep" = 1 ] && [ "$how" != untraced ] &&
				echo "# BENCHINFO user-$unit-unwind-$how-d$depth $(grep '^Unwind:' $OUT | tail -n 1)"
		done
	done
	for how in $HOWS; do
		f=/tmp/bench-unwind.$how.$depth
		m=$(median "$f" 2>/dev/null)
		eval "m_$(echo "$how" | tr - _)=\$m"
		[ -n "$m" ] || continue
		echo "# BENCH user-$unit-unwind-$how-d$depth $m"
		echo "# BENCHINFO user-$unit-unwind-$how-d$depth runs (per pair): $(tr "\n" " " <"$f")"
	done
	# shellcheck disable=SC2154 # set by the eval above
	if [ -n "$m_fp" ] && [ -n "$m_cfi" ]; then
		ok "unwind d$depth: fp $m_fp $unit, cfi $m_cfi $unit, cfi on fp code $m_cfi_fpcode $unit per pair ($(awk -v a="$m_cfi" -v b="$m_fp" 'BEGIN { printf "%.2fx", a / b }'))"
	fi
done

# The tables' memory for a program linking 20 of Debian's libraries
# (tests/progs/manylibs.c): the bytes memtrace-read hands the module for
# each object it maps (-v says each table's size), and the module's own
# count of them.
if ! command -v manylibs >/dev/null; then
	not_ok "bench: manylibs in the guest"
else
	memtrace-read -v -c /usr/bin/manylibs >$OUT 2>&1
	rc=$?
	tables=$(sed -n 's/^memtrace-read: unwind table of \(.*\): \([0-9]*\) rows, \([0-9]*\) bytes$/\1 \2 \3/p' $OUT)
	if [ $rc -ne 0 ] || [ -z "$tables" ]; then
		not_ok "bench: unwind tables of manylibs" "$(tail -n 15 $OUT)"
	else
		echo "$tables" | while read -r path rows bytes; do
			echo "# BENCHINFO user-unwind-table $bytes bytes, $rows rows: $path"
		done
		echo "$tables" | awk '{ n++; rows += $2; b += $3 }
			END { printf "# BENCH user-unwind-tables-manylibs-bytes %d\n", b
			      printf "# BENCH user-unwind-tables-manylibs-count %d\n", n
			      printf "# BENCH user-unwind-tables-manylibs-rows %d\n", rows }'
		sed -n 's/^memtrace-read: unwind table of \(.*\): none (.*$/# BENCHINFO user-unwind-table none (frame pointers): \1/p' $OUT
		echo "# BENCHINFO user-unwind-tables-module $(grep '^Unwind:' $OUT | tail -n 1)"
		ok "bench: unwind tables of manylibs: $(echo "$tables" | awk '{ b += $3 } END { print NR " tables, " b " bytes" }')"
	fi
fi
unload_memtrace
