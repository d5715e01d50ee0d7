#!/bin/sh
# Guest half of `make bench`, user stacks: the cost per malloc(32)+free
# pair under memtrace-read when each allocation's stack, 5, 15 or 40
# frames deep (tests/progs/unwindbench.c), is walked by frame pointers
# (unwindbench-fp, --unwind=fp) or by unwind tables (unwindbench-nofp,
# --unwind=cfi; and unwindbench-fp with --unwind=cfi: the same code, the
# walk alone differing).  The issue's target: a full CFI stack costs no
# more than 2x a frame-pointer stack of the same depth.
# Prints "# BENCH user-unwind-<how>-d<depth> <ns per pair>" lines, and the
# ratios.
# mtt-timeout: 900
. "${0%/*}/lib.sh"

PAIRS=5000
REPS=3
OUT=/tmp/bench-unwind.out

if ! load_memtrace; then
	not_ok "bench: load memtrace.ko"
	exit 1
fi

# median FILE: the median of the numbers in FILE, one a line.
median() {
	sort -n "$1" | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'
}

for depth in 5 15 40; do
	for how in fp cfi cfi-fpcode; do
		rm -f "/tmp/bench-unwind.$how.$depth"
	done
	for rep in $(seq "$REPS"); do
		for how in fp cfi cfi-fpcode; do
			case $how in
			fp) prog=unwindbench-fp mode=fp ;;
			cfi) prog=unwindbench-nofp mode=cfi ;;
			cfi-fpcode) prog=unwindbench-fp mode=cfi ;;
			esac
			memtrace-read --unwind="$mode" -c "/usr/bin/$prog $depth $PAIRS" >$OUT 2>&1
			rc=$?
			ns=$(sed -n 's/^ns\/pair \([0-9][0-9]*\)$/\1/p' $OUT | tail -n 1)
			if [ $rc -ne 0 ] || [ -z "$ns" ]; then
				not_ok "bench: user-unwind-$how-d$depth" "$(tail -n 15 $OUT)"
				continue
			fi
			echo "$ns" >>"/tmp/bench-unwind.$how.$depth"
			[ "$rep" = 1 ] && diag "$how d$depth: $(grep '^Unwind:' $OUT | tail -n 1)"
		done
	done
	for how in fp cfi cfi-fpcode; do
		m=$(median "/tmp/bench-unwind.$how.$depth" 2>/dev/null)
		[ -n "$m" ] && echo "# BENCH user-unwind-$how-d$depth $m"
		eval "m_$(echo "$how" | tr - _)=\$m"
	done
	# shellcheck disable=SC2154 # set by the eval above
	if [ -n "$m_fp" ] && [ -n "$m_cfi" ]; then
		ok "unwind d$depth: fp $m_fp ns, cfi $m_cfi ns, cfi on fp code $m_cfi_fpcode ns per pair ($(awk -v a="$m_cfi" -v b="$m_fp" 'BEGIN { printf "%.2fx", a / b }'))"
	fi
done
unload_memtrace
