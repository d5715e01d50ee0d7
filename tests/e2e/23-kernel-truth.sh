#!/bin/sh
# The kernel leak report against oracles no one here wrote, and its names
# and filters: /proc/slabinfo's active objects, kmemleak's unreferenced
# objects and their backtraces (debug kernel), SLUB's merged-cache aliases
# in /sys/kernel/slab, a cache re-created at a destroyed one's address, and
# the task filters (--by-comm, --by-pid, --by-cgroup) and --module.
# mtt-timeout: 400
. "${0%/*}/lib.sh"

PATHS=/sys/module/memtrace_paths/parameters
LEAKER=/sys/module/memtrace_leaker/parameters
OUT=/tmp/truth.out

if ! load_memtrace; then
	not_ok "load memtrace.ko"
	exit 1
fi
check "load memtrace_leaker.ko" insmod /memtrace/memtrace_leaker.ko || exit 1
check "load memtrace_paths.ko" insmod /memtrace/memtrace_paths.ko || exit 1

# slabinfo_active CACHE: /proc/slabinfo's active objects of CACHE.
slabinfo_active() {
	awk -v c="$1" '$1 == c { print $2; f = 1 } END { if (!f) print 0 }' /proc/slabinfo
}
# slab_objects CACHE: the OBJECTS column of --slab's last report for CACHE.
slab_objects() {
	awk -v c="$1" '/^\[[0-9:]+\] Top/ { v = 0 } $1 == c && NF == 6 { v = $3 } END { print v + 0 }' "$OUT"
}

# --- /proc/slabinfo: live objects equal the cache's active-objects growth ------
# SLUB counts as active every object a CPU holds: all of a CPU's slab on
# 6.x (hence whole slabs, filled on one CPU), and on 7.x the objects its
# per-CPU sheaves took from the slabs (76 allocated read as 120).  The
# cache's shrink attribute first puts back what the CPUs hold: then the
# growth is exactly the objects allocated, on every kernel.
slab_shrink() {
	echo 1 >"/sys/kernel/slab/$1/shrink"
}
per_slab=$(awk '$1 == "memtrace_paths_truth" { print $5 }' /proc/slabinfo)
if [ -z "$per_slab" ] || [ "$per_slab" -lt 1 ]; then
	not_ok "/proc/slabinfo lists memtrace_paths_truth" "$(head -n 3 /proc/slabinfo)"
else
	n=$((4 * per_slab))
	echo "$n" >"$PATHS/truth_objs"
	slab_shrink memtrace_paths_truth
	before=$(slabinfo_active memtrace_paths_truth)
	start_memtrace_read "$OUT" "memtrace-read --slab attaches" --slab -T 1000 3600 || exit 1
	echo 1 >"$PATHS/truth"
	kill -INT "$READER"
	wait "$READER"
	slab_shrink memtrace_paths_truth
	after=$(slabinfo_active memtrace_paths_truth)
	diag "slabinfo: $before -> $after active ($per_slab per slab); memtrace: $(slab_objects memtrace_paths_truth)"
	check_eq "$n objects of memtrace_paths_truth: /proc/slabinfo's active objects grew by $n" \
		"$n" "$((after - before))"
	check_eq "memtrace's live objects of memtrace_paths_truth equal /proc/slabinfo's growth" \
		"$((after - before))" "$(slab_objects memtrace_paths_truth)"
fi

# --- SLUB's merged caches: listed under the kernel's name, with their aliases --
start_memtrace_read "$OUT" "memtrace-read --slab attaches" --slab -T 1000 3600 || exit 1
echo 1 >"$PATHS/alias"
kill -INT "$READER"
wait "$READER"
line=$(grep -B1 'merged with:.*memtrace_paths_alias' "$OUT" | tail -n 2)
diag "$line"
if [ ! -L /sys/kernel/slab/memtrace_paths_alias ]; then
	# SLUB debugging (the debug kernel's slub_debug) merges no cache.
	skip "a merged cache shows memtrace_paths_alias among its other names" \
		"this kernel did not merge it (/sys/kernel/slab/memtrace_paths_alias is no alias)"
else
	check_match "a merged cache shows memtrace_paths_alias among its other names" \
		'^[[:space:]]+\(merged with: .*memtrace_paths_alias' "$line"
	canon=$(printf '%s\n' "$line" | awk 'NR == 1 { print $1 }')
	if [ -n "$canon" ] && grep -q "^$canon " /proc/slabinfo; then
		ok "the merged cache is listed under its /proc/slabinfo name ($canon)"
	else
		not_ok "the merged cache is listed under its /proc/slabinfo name" "$line"
	fi
fi

# --- a cache destroyed and made again: the new one's name and size ------------
# memtrace_paths_obj is made again with another object size (its struct
# kmem_cache often lands where the old one was) within one session.
echo 1 >"$PATHS/release"
start_kernel_reader "$OUT" "memtrace-read attaches" --module memtrace_paths -o 0 -T 1000 3600 ||
	exit 1
echo 1 >"$PATHS/bulk"
check "unload memtrace_paths.ko" rmmod memtrace_paths
check "load memtrace_paths.ko again, with 512-byte objects" \
	insmod /memtrace/memtrace_paths.ko obj_size=512
echo 1 >"$PATHS/bulk"
kill -INT "$READER"
wait "$READER"
stacks=$(last_report_stacks "$OUT")
check_match "16 objects of the re-made cache count 512 bytes each: 8192 bytes" \
	'^[[:space:]]*8192 bytes in 16 allocations from stack[^;]* ;; paths_alloc_bulk\+' "$stacks"
echo 1 >"$PATHS/release"

# --- kmemleak (debug kernel): every leak it reports, with its backtrace --------
KML=/sys/kernel/debug/kmemleak
if [ ! -w "$KML" ] || ! echo scan >"$KML" 2>/dev/null; then
	skip "memtrace reports what kmemleak reports, with the same stack" "no kmemleak"
else
	# The backtrace frames ("func+0xoff") of the objects kmemleak reports
	# allocated under paths_unreachable, "N frame" for the Nth object.
	# Not picked by size: kmemleak records the cache's object size (512),
	# not the 300 asked for.
	kmemleak_ours() {
		awk 'function flush(i) {
			if (mine) { n++; for (i = 1; i <= nf; i++) print n, f[i] }
			nf = 0; mine = 0 }
		     /^unreferenced object/ { flush(); next }
		     /\[<[0-9a-f]+>\]/ { sub(/.*\] /, ""); sub(/\/0x[0-9a-f]+.*/, "");
			if ($0 ~ /^paths_unreachable\+/) mine = 1
			f[++nf] = $0 }
		     END { flush() }' "$KML"
	}
	# kmemleak has false negatives: any stale copy of an address in memory
	# it scans is a reference.  The shell that writes the trigger keeps the
	# last pointer kmalloc returned in the dead part of its kernel stack,
	# and with task stack scanning on kmemleak reported 2 of the 3: off for
	# this check only.  Even so, one more stays hidden at times (a copy
	# somewhere else it scans, such as registers an interrupt saved on a
	# CPU's IRQ stack, which it scans as per-CPU data): one more double
	# scan gives such a copy time to be overwritten (each is some 40 s on
	# the debug kernel under TCG; more did not find more).  What is
	# checked is the issue's rule: every leak kmemleak reports is in
	# memtrace's report, with the same stack.
	echo stack=off >"$KML"
	if ! start_kernel_reader "$OUT" "memtrace-read attaches" --module memtrace_paths -o 0 \
		-T 1000 3600; then
		echo stack=on >"$KML"
		exit 1
	fi
	echo 1 >"$PATHS/unreachable"
	# kmemleak reports objects older than 5 s, found unreferenced twice.
	sleep $((6 * ${MTT_TIMEOUT_SCALE:-1}))
	tries=0
	while :; do
		echo scan >"$KML"
		echo scan >"$KML"
		leaks=$(kmemleak_ours)
		nleaks=$(printf '%s\n' "$leaks" | awk 'NF { n[$1] = 1 } END { print length(n) }')
		[ "$nleaks" -lt 3 ] && [ "$tries" -lt 1 ] || break
		tries=$((tries + 1))
		sleep 1
	done
	kill -INT "$READER"
	wait "$READER"
	diag "kmemleak, after $((tries + 1)) double scans: $(printf '%s\n' "$leaks" | head -n 12)"
	if [ "$nleaks" -eq 0 ]; then
		# Does memtrace hide them (its tables hold their addresses), or
		# does kmemleak not see them here at all?  Again, untraced.
		echo 1 >"$PATHS/reclaim"
		echo clear >"$KML"
		echo 1 >"$PATHS/unreachable"
		sleep $((6 * ${MTT_TIMEOUT_SCALE:-1}))
		echo scan >"$KML"
		echo scan >"$KML"
		if grep -q 'paths_unreachable+' "$KML"; then
			not_ok "kmemleak reports the unreachable kmalloc(300)" \
				"it does untraced: memtrace hides them from it"
		else
			skip "kmemleak reports the unreachable kmalloc(300)" \
				"this kmemleak reports none of them even untraced: the oracle is blind here"
			skip "each kmemleak backtrace equals memtrace's stack, frame by frame" \
				"no kmemleak report to compare"
		fi
		echo 1 >"$PATHS/reclaim"
		echo clear >"$KML"
	else
		[ "$nleaks" -eq 3 ] ||
			diag "kmemleak found $nleaks of the 3 unreferenced (a stale copy of an address hides the others)"
		check_match "kmemleak reports the unreachable kmalloc(300), 1 to 3 of them" '^[1-3]$' \
			"$nleaks"
	fi
	# memtrace's stack of them, from paths_unreachable on: "func+0xoff" each.
	mine=$(last_report_stacks "$OUT" | awk -F' ;; ' '/ ;; paths_unreachable\+/ {
		for (i = 2; i <= NF; i++) {
			f = $i; sub(/ \[[a-z_0-9]*\]$/, "", f)
			if (f ~ /^paths_unreachable\+/) p = 1
			if (p) print f
		}
		exit }')
	check_match "memtrace reports them: 1536 bytes in 3 allocations (kmalloc-512)" \
		'^[[:space:]]*1536 bytes in 3 allocations from stack[^;]* ;; paths_unreachable\+' \
		"$(last_report_stacks "$OUT")"
	# Each kmemleak backtrace, from paths_unreachable on, is memtrace's stack.
	bad=0
	i=0
	while [ "$i" -lt "$nleaks" ]; do
		i=$((i + 1))
		theirs=$(printf '%s\n' "$leaks" | awk -v i="$i" '$1 == i { print $2 }' |
			sed -n '/^paths_unreachable+/,$p')
		nt=$(printf '%s\n' "$theirs" | grep -c .)
		if [ "$nt" -lt 2 ] ||
		   [ "$(printf '%s\n' "$mine" | head -n "$nt")" != "$theirs" ]; then
			bad=$((bad + 1))
			diag "kmemleak #$i: $theirs"
			diag "memtrace: $mine"
		fi
	done
	[ "$nleaks" -eq 0 ] ||
		check_eq "each kmemleak backtrace equals memtrace's stack, frame by frame" 0 "$bad"
	echo 1 >"$PATHS/reclaim"
	echo clear >"$KML"
	echo stack=on >"$KML"
fi

# --- task filters and --module ------------------------------------------------
# One round of memtrace_leaker's leak is 10 kmalloc(1000) from
# leaker_kmalloc_leak; each writer below makes one.
leak_rounds() {
	last_report_stacks "$OUT" | awk '/ from stack[^;]* ;; leaker_kmalloc_leak\+/ { print $4; f = 1 }
		END { if (!f) print 0 }'
}

start_kernel_reader "$OUT" "memtrace-read --by-comm attaches" --by-comm dd -o 0 -T 1000 3600 ||
	exit 1
echo 1 | dd of="$LEAKER/leak" 2>/dev/null
echo 1 >"$LEAKER/leak"
kill -INT "$READER"
wait "$READER"
check_eq "--by-comm dd: the 10 allocations dd made, not the shell's" 10 "$(leak_rounds)"
echo 1 >"$LEAKER/free"

# The writer waits until the reader has attached, however long that takes
# on a busy host (a fixed sleep lost that race).
go=/tmp/by-pid.go
rm -f "$go"
( while [ ! -e "$go" ]; do sleep 0.1; done; echo 1 >"$LEAKER/leak" ) &
writer=$!
start_kernel_reader "$OUT" "memtrace-read --by-pid attaches" --by-pid "$writer" -o 0 -T 1000 \
	3600 || { kill "$writer"; exit 1; }
echo 1 >"$LEAKER/leak"
: >"$go"
wait "$writer"
kill -INT "$READER"
wait "$READER"
check_eq "--by-pid: the 10 allocations of that process, not the others'" 10 "$(leak_rounds)"
echo 1 >"$LEAKER/free"

memtrace-read --by-pid 999999 1 1 >/tmp/by-pid.err 2>&1
check_eq "--by-pid of no process fails" 1 "$?"
check_match "--by-pid of no process says so" 'by-pid 999999: no such process' "$(cat /tmp/by-pid.err)"

CG=/sys/fs/cgroup
mkdir -p "$CG"
grep -q " $CG cgroup2 " /proc/mounts || mount -t cgroup2 none "$CG" 2>/dev/null
if ! grep -q " $CG cgroup2 " /proc/mounts; then
	skip "--by-cgroup: the allocations of tasks in that cgroup" "no cgroup2"
else
	mkdir -p "$CG/memtrace-test"
	start_kernel_reader "$OUT" "memtrace-read --by-cgroup attaches" \
		--by-cgroup "$CG/memtrace-test" -o 0 -T 1000 3600 || exit 1
	sh -c "echo \$\$ >$CG/memtrace-test/cgroup.procs && echo 1 >$LEAKER/leak"
	echo 1 >"$LEAKER/leak"
	kill -INT "$READER"
	wait "$READER"
	check_eq "--by-cgroup: the 10 allocations of the task in that cgroup" 10 "$(leak_rounds)"
	rmdir "$CG/memtrace-test" 2>/dev/null
	echo 1 >"$LEAKER/free"
fi

start_kernel_reader "$OUT" "memtrace-read --module attaches" --module memtrace_leaker -o 0 \
	-T 1000 3600 || exit 1
echo 1 >"$LEAKER/leak"
kill -INT "$READER"
wait "$READER"
others=$(last_report_stacks "$OUT" | grep -v 'memtrace_leaker\]' | grep -c .)
check_eq "--module memtrace_leaker: every stack passes through memtrace_leaker" 0 "$others"
check_eq "--module memtrace_leaker: its 10 kmalloc(1000) are there" 10 "$(leak_rounds)"
echo 1 >"$LEAKER/free"

check "memtrace_paths.ko unloads" rmmod memtrace_paths
check "memtrace_leaker.ko unloads" rmmod memtrace_leaker
check "memtrace.ko unloads" unload_memtrace
