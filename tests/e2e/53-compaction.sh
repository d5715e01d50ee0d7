#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# memtrace-read --compaction (compactsnoop(8)'s job), against /proc/vmstat:
# memhog writes nearly all available memory and gives every other page back,
# leaving free memory in single pages; another memhog faults in 96 MiB of
# transparent huge pages, more than is left unfragmented, whose
# allocations compact directly (a stall, with THP's defrag "madvise");
# then this shell writes 1 to /proc/sys/vm/compact_memory, which compacts
# every zone (order -1, sync) in the writer's own context.  With the
# guest quiet at both ends, the pages the migration and free scanners
# looked at over all runs (direct, kcompactd's, this shell's), and
# kcompactd's wakes, must equal the growth of compact_*; each run of this
# shell is a line naming it, its node, zone and outcome; direct
# compactions begun are at least compact_stall (a stall is one that did
# not skip every zone).
# mtt-timeout: 300
. "${0%/*}/lib.sh"

if ! load_memtrace; then
	not_ok "load memtrace.ko"
	exit 0
fi
if [ ! -w /proc/sys/vm/compact_memory ]; then
	skip "--compaction" "no /proc/sys/vm/compact_memory (CONFIG_COMPACTION off)"
	unload_memtrace
	exit 0
fi
OUT=/tmp/compaction.out
HOG_OUT=/tmp/compaction-hog.out

# kcompactd's proactive compaction would undo the fragmenting before the
# huge pages are asked for.
PROACTIVE=/proc/sys/vm/compaction_proactiveness
proactive=$(cat "$PROACTIVE" 2>/dev/null)
[ -n "$proactive" ] && echo 0 >"$PROACTIVE"
# MemAvailable, not MemFree: the watermarks' reserve is not for memhog.
# What memhog leaves unfragmented (MARGIN) is for the rest of the guest:
# 16 MiB, but 48 on a kernel with KASAN, whose quarantine of freed objects
# grows to 1/32 of memory, else the fragmenting memhog is OOM-killed
# (seen on a loaded host and once in CI, where the script then ran out
# of time).  The THP memhog asks for MARGIN more than the 96 MiB it must
# get by compaction, so unfragmented memory does not serve it all.
avail_mib=$(awk '$1 == "MemAvailable:" { print int($2 / 1024) }' /proc/meminfo)
MARGIN=16
grep -q ' kasan_report$' /proc/kallsyms && MARGIN=48
diag "MemAvailable $avail_mib MiB; fragmenting all but $MARGIN MiB"
memhog -f $((avail_mib - MARGIN)) >"$HOG_OUT" 2>&1 &
HOG=$!
wait_for 120 grep -q fragmented "$HOG_OUT" || diag "memhog: $(cat "$HOG_OUT")"

vmstat_terms() {
	awk '{ v[$1] = $2 }
	     END { printf "compact_migrate_scanned %d compact_free_scanned %d compact_daemon_wake %d ",
		v["compact_migrate_scanned"], v["compact_free_scanned"], v["compact_daemon_wake"]
		   printf "\n" }' /proc/vmstat
}
compact_stall() { awk '$1 == "compact_stall" { n = $2 } END { print n + 0 }' /proc/vmstat; }
THP=/sys/kernel/mm/transparent_hugepage
# The reader's totals and the counters' growth must cover the same runs:
# it starts once the fragmenting (and any kcompactd run it caused, seen
# recorded but counted before "before" in a make check) is over.
wait_for 60 counters_still vmstat_terms || diag "the guest did not go quiet before the run"
before=$(vmstat_terms)
if ! start_pressure_reader "$OUT" --compaction; then
	kill "$HOG"
	[ -n "$proactive" ] && echo "$proactive" >"$PROACTIVE"
	exit 0
fi
[ "$(vmstat_terms)" = "$before" ] ||
	diag "compaction ran while the reader attached: $before -> $(vmstat_terms)"
stall0=$(compact_stall)
thp=
if [ -w "$THP/enabled" ] && echo madvise >"$THP/enabled" && echo madvise >"$THP/defrag"; then
	diag "faulting in $((96 + MARGIN)) MiB of huge pages"
	memhog -H $((96 + MARGIN)) >/dev/null &
	thp=$!
	# Bounded (wait_for scales it as the time-out): a stuck fault fails
	# this check, with the time-out's budget left for the rest.
	if wait_for 60 gone "$thp"; then
		ok "the THP memhog finishes"
	else
		not_ok "the THP memhog finishes" "still running after $((60 * ${MTT_TIMEOUT_SCALE:-1})) s"
		kill_quiet "$thp"
	fi
	wait "$thp" 2>/dev/null
fi
stall1=$(compact_stall)
diag "compact_memory"
echo 1 >/proc/sys/vm/compact_memory
wait_for 60 counters_still vmstat_terms || diag "the guest did not go quiet after the run"
after=$(vmstat_terms)
# The reader stops before what makes kcompactd run again (the fragmenting
# memhog's exit, after which kswapd wakes it; proactive compaction back
# on), so that its counts and the counters' growth cover the same runs:
# stopped after them, it once counted a kcompactd wake that "after" had
# not (a loaded host, make check on 6.1).
kill -INT "$READER"
wait "$READER"
[ "$(vmstat_terms)" = "$after" ] ||
	diag "compaction ran while the reader stopped: $after -> $(vmstat_terms)"
kill "$HOG"
wait "$HOG" 2>/dev/null
[ -n "$proactive" ] && echo "$proactive" >"$PROACTIVE"

diag "$(cat "$OUT")"
diag "/proc/vmstat before: $before"
diag "/proc/vmstat after:  $after"
delta=$(vmstat_delta "$before" "$after")
got=$(sed -n 's/^vmstat: //p' "$OUT")

if grep -q '^compact_migrate_scanned ' /proc/vmstat; then
	check_match "--compaction: compact_memory scanned pages (compact_migrate_scanned grew)" \
		'^[1-9]' "$(vmstat_term compact_migrate_scanned "$delta")"
else
	skip "--compaction: compact_memory scanned pages" "no compact_* in /proc/vmstat"
fi
for k in compact_migrate_scanned compact_free_scanned compact_daemon_wake; do
	check_vmstat "--compaction: $k is /proc/vmstat's growth" "$k" "$(vmstat_term "$k" "$delta")" \
		"$(vmstat_term "$k" "$got")"
done
check_match "--compaction: this shell's whole-zone runs, each a line with its zone and outcome" \
	"^[0-9:]{8} sh +$$ +0 DMA32 +-1 sync +[0-9]+\\.[0-9]{3} [a-z_]+ +[0-9]+ +[0-9]+$" "$(cat "$OUT")"
check_match "--compaction: runs per node, zone and order" \
	'^   0 DMA32 +-1 +[1-9][0-9]* +0 ' "$(cat "$OUT")"
check_match "--compaction: the control's zone and counts were read" '^$' \
	"$(grep "compact_control did not show" "$OUT")"
if [ -n "$thp" ]; then
	begun=$(sed -n 's/.* zone runs; \([0-9]*\) direct compactions begun;.*/\1/p' "$OUT")
	check "--compaction: direct compactions begun ($begun) are at least compact_stall's growth ($((stall1 - stall0)))" \
		[ "$begun" -ge $((stall1 - stall0)) ]
	if [ $((stall1 - stall0)) -gt 0 ] || { ! grep -q '^compact_stall ' /proc/vmstat && [ "$begun" -gt 0 ]; }; then
		# Or this shell: its forks stall too in memory this fragmented
		# where kernel stacks are of order 3 (the debug kernel's KASAN
		# doubles them, and it has no vmap stacks): seen there in a
		# make check, 96 stalls of the shell's and none of the
		# memhog's.  compact_stall counts both.
		check_match "--compaction: the THP memhog (pid $thp) or this shell ($$) stalled in direct compaction" \
			"^  pid ($thp +memhog|$$ +sh) +[1-9][0-9]* compactions +[0-9]+ runs " "$(cat "$OUT")"
	else
		skip "--compaction: a task stalled in direct compaction" "no compact_stall in this run"
	fi
else
	skip "--compaction: direct compaction" "no transparent huge pages"
fi
check_match "--compaction: nothing lost" "^Lost: 0 events" "$(cat "$OUT")"
check_match "--compaction: every end had its begin" '^$' "$(grep 'without their begin' "$OUT")"

check "memtrace.ko unloads" unload_memtrace
