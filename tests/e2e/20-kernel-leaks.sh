#!/bin/sh
# memtrace-read --kernel-leaks against memtrace_leaker.ko, whose allocations
# are known (tests/kmod/memtrace_leaker.c): exact counts and bytes per stack,
# IRQ-freed allocations absent, growth marked, unloading brings it to zero.
# mtt-timeout: 300
. "${0%/*}/lib.sh"

LEAKER_PARAMS=/sys/module/memtrace_leaker/parameters
OUT=/tmp/kernel-leaks.out

# Start a reader in the background, wait until it has attached.  The old
# output goes first: the background job truncates it only when it runs, and
# the previous reader's "Attaching" must not be taken for this one's.
start_reader() {
	start_kernel_reader "$OUT" "memtrace-read attaches" "$@"
}

# The sampling checks report on SIGINT, once the whole leak is made: a
# report on a 2-second interval came in the middle of it on the debug
# kernel (287596 of 655360 bytes once).
#
# check_leak_estimate WHAT: the last report's estimate of leaker_kmalloc_leak's
# 640 x 1024 bytes, under sampling WHAT, is within 40%.
check_leak_estimate() {
	stacks=$(last_report_stacks "$OUT")
	# The stack whose first frame is leaker_kmalloc_leak (with kmemleak on,
	# its own objects have stacks through it too).
	est=$(printf '%s\n' "$stacks" | awk '/ from stack[^;]* ;; leaker_kmalloc_leak\+/ { print $1; exit }')
	diag "$1: leaker_kmalloc_leak estimated at ${est:-nothing} bytes (true: 655360)"
	if [ -n "$est" ] && [ "$est" -ge 393216 ] && [ "$est" -le 917504 ]; then
		ok "$1 estimates 640 x 1024 bytes within 40%"
	else
		# The losses and activity first: what was recorded, what was not.
		not_ok "$1 estimates 640 x 1024 bytes within 40% (it said ${est:-nothing})" \
			"$(grep -E '^(Lost|Activity):' "$OUT" | tail -n 2; printf '%s\n' "$stacks" | head -n 8)"
	fi
}

if ! load_memtrace; then
	not_ok "load memtrace.ko"
	exit 1
fi
check "load memtrace_leaker.ko" insmod /memtrace/memtrace_leaker.ko || exit 1

# --- one round of known allocations, reported exactly ---------------------
start_reader -o 0 -T 1000 2 2 || exit 1
echo 1 >"$LEAKER_PARAMS/leak"
wait "$READER"
check_eq "memtrace-read exits 0" 0 "$?"
stacks=$(last_report_stacks "$OUT")
diag "$(grep -A4 -E 'leaker|Lost' "$OUT" | head -n 40)"

# kmalloc(1000) x 10 lands in kmalloc-1k: 10 x 1024 bytes.
check_match "10 kmallocs of 1000 bytes: 10240 bytes in 10 allocations, from leaker_kmalloc_leak" \
	'^[[:space:]]*10240 bytes in 10 allocations from stack.* ;; leaker_kmalloc_leak\+0x[0-9a-f]+ \[memtrace_leaker\] ;; leaker_set_leak\+0x[0-9a-f]+ \[memtrace_leaker\]' \
	"$stacks"
# 7 objects of the module's own 200-byte cache.
check_match "7 objects of memtrace_leaker_obj: 1400 bytes in 7 allocations, from leaker_cache_leak" \
	'^[[:space:]]*1400 bytes in 7 allocations from stack.* ;; leaker_cache_leak\+0x[0-9a-f]+ \[memtrace_leaker\]' \
	"$stacks"
# Their allocation site (the first frame) is leaker_irq_alloc.  Other real
# allocations may pass through it: on the debug kernel KASAN's stack depot
# takes pages it never frees, under the leaker's kmalloc.
if printf '%s\n' "$stacks" | grep -Eq '^[^;]* ;; leaker_irq_alloc\+'; then
	not_ok "allocations freed from hrtimer and timer callbacks are not reported" \
		"$(printf '%s\n' "$stacks" | grep -E '^[^;]* ;; leaker_irq_alloc\+')"
else
	ok "allocations freed from hrtimer and timer callbacks are not reported"
fi
reports=$(grep -c '^\[[0-9:]*\] Top ' "$OUT")
losses=$(grep -c '^Lost:' "$OUT")
check_eq "every report carries its loss counters" "$reports" "$losses"
check_match "no event lost to recursion, full tables or NMI" \
	'^Lost: 0 recursion, 0 nmi, 0 index full, 0 stack table full, 0 counter table full' \
	"$(grep '^Lost:' "$OUT" | tail -n 1)"

# --- -a lists each allocation with its size --------------------------------
# Each reader starts a fresh session: it sees only what is allocated after it.
start_reader -a -o 0 -T 1000 2 1 || exit 1
echo 1 >"$LEAKER_PARAMS/leak"
wait "$READER"
# The "addr = ... size = ..." lines come before the stack they belong to.
check_eq "-a lists the 10 kmalloc-1k allocations of a round with their size" 10 \
	"$(awk '/addr = / { buf[n++] = $0; next }
		/ bytes in .* from stack/ { hdr = 1; next }
		hdr { if ($0 ~ /leaker_kmalloc_leak/)
			for (i = 0; i < n; i++) if (buf[i] ~ /size = 1024 /) c++
		      hdr = 0; n = 0 }
		END { print c + 0 }' "$OUT")"

# --- filters: size range and cache ------------------------------------------
start_reader -z 1024 -Z 1024 -o 0 -T 1000 2 1 || exit 1
echo 1 >"$LEAKER_PARAMS/leak"
wait "$READER"
stacks=$(last_report_stacks "$OUT")
check_match "-z 1024 -Z 1024 keeps the kmalloc-1k leak" \
	'^[[:space:]]*10240 bytes in 10 allocations from stack.* ;; leaker_kmalloc_leak' "$stacks"
if printf '%s\n' "$stacks" | grep -q 'leaker_cache_leak'; then
	not_ok "-z 1024 -Z 1024 leaves out the 200-byte objects" "$stacks"
else
	ok "-z 1024 -Z 1024 leaves out the 200-byte objects"
fi

start_reader --cache memtrace_leaker_obj -o 0 -T 1000 2 1 || exit 1
echo 1 >"$LEAKER_PARAMS/leak"
wait "$READER"
stacks=$(last_report_stacks "$OUT")
check_eq "--cache memtrace_leaker_obj reports only that cache's stack" \
	"1400 bytes in 7 allocations from stack ;; leaker_cache_leak" \
	"$(printf '%s\n' "$stacks" | sed -E 's/^[[:space:]]+//; s/ ;; ([a-z_]+)\+.*/ ;; \1/')"

# -C counts every live allocation whatever its age, as memleak's combined
# mode does: a leak made a moment ago is no leak yet for -o 600000 (ten
# minutes), but -C with the same -o reports it.
start_reader -o 600000 -T 1000 2 1 || exit 1
echo 1 >"$LEAKER_PARAMS/leak"
wait "$READER"
check_eq "-o 600000: a leak a moment old is not reported yet" "" \
	"$(last_report_stacks "$OUT" | grep ' ;; leaker_kmalloc_leak+')"
start_reader -C -o 600000 -T 1000 2 1 || exit 1
echo 1 >"$LEAKER_PARAMS/leak"
wait "$READER"
check_match "-C -o 600000: the same leak is reported, -o ignored as memleak's combined mode does" \
	'^[[:space:]]*10240 bytes in 10 allocations from stack[^;]* ;; \(total: 10 allocs, 10240 bytes; 0 frees\) ;; (.* ;; )?leaker_kmalloc_leak\+' \
	"$(last_report_stacks "$OUT")"

# --- byte sampling: the estimate comes back to the true bytes ---------------
# 64 rounds: 640 kmalloc(1000) of 1024 bytes each, 655360 bytes, sampled
# about once per 8192 bytes (80 samples expected).  The estimate's relative
# standard deviation is then about 1/sqrt(80) = 11%: the check allows 40%
# (3.6 sigma) either way.  The KUnit suite checks the estimator to 1% over
# 200000 allocations.
start_reader --sample-bytes 8192 -o 0 -T 1000 3600 1 || exit 1
echo 64 >"$LEAKER_PARAMS/leak"
kill -INT "$READER"
wait "$READER"
check_leak_estimate "--sample-bytes 8192"
check_match "--sample-bytes says its counts are estimates" \
	'^Sampling about once per 8192 bytes allocated: counts are estimates\.$' "$(cat "$OUT")"
echo 1 >"$LEAKER_PARAMS/free"

# --- 1-in-N sampling: decided before the hook does anything else ------------
# 640 kmalloc(1000) again, 1 in 10 recorded and counted 10 times: the
# addresses are chosen by a hash drawn anew per session, so about
# 64 of the leak's 640 distinct addresses are recorded; the check allows
# 40% either way.
start_reader -s 10 -o 0 -T 1000 3600 1 || exit 1
echo 64 >"$LEAKER_PARAMS/leak"
kill -INT "$READER"
wait "$READER"
check_leak_estimate "-s 10"
check_match "-s 10 says its counts are estimates" \
	'^Sampling 1 in 10 allocations: counts are estimates\.$' "$(cat "$OUT")"
sampled_out=$(sed -n 's/^Activity: .* \([0-9][0-9]*\) sampled out.*/\1/p' "$OUT" | tail -n 1)
if [ "${sampled_out:-0}" -gt 0 ]; then
	ok "-s 10 counts what it leaves out ($sampled_out sampled out)"
else
	not_ok "-s 10 counts what it leaves out" "$(grep '^Activity:' "$OUT")"
fi
echo 1 >"$LEAKER_PARAMS/free"

# The free of an address -s sampled finds it recorded, whatever CPU frees
# it: 64 rounds made and freed under one reader leave no leaker stack.
# Frees of addresses never sampled are answered by the address alone and
# are no loss: "frees of untracked addresses" stays far below the frees
# seen (before, every one of them was counted there).
start_reader -s 10 -o 0 -T 1000 3600 1 || exit 1
echo 64 >"$LEAKER_PARAMS/leak"
echo 1 >"$LEAKER_PARAMS/free"
kill -INT "$READER"
wait "$READER"
# The leaker's own allocations: stacks whose first frame is the leaker's.
# Others pass through it and live on: kmemleak's metadata of each object
# (freed an RCU grace period after the object), KASAN's stack depot pages.
check_eq "-s 10: leaks made and freed under the reader are not reported" "" \
	"$(last_report_stacks "$OUT" | grep -E '^[^;]* ;; leaker_(kmalloc|cache)_leak\+')"
activity=$(grep '^Activity:' "$OUT" | tail -n 1)
lost=$(grep '^Lost:' "$OUT" | tail -n 1)
diag "-s 10, made and freed: $activity; $lost"
recorded=$(printf '%s\n' "$activity" | sed -n 's/.* \([0-9][0-9]*\) recorded, \([0-9][0-9]*\) frees matched.*/\1/p')
matched=$(printf '%s\n' "$activity" | sed -n 's/.* \([0-9][0-9]*\) recorded, \([0-9][0-9]*\) frees matched.*/\2/p')
seen=$(printf '%s\n' "$activity" | sed -n 's/.* \([0-9][0-9]*\) frees seen.*/\1/p')
untracked=$(printf '%s\n' "$lost" | sed -n 's/.* \([0-9][0-9]*\) frees of untracked addresses.*/\1/p')
# 640 kmallocs and 448 cache objects: about 109 of them sampled.
if [ "${recorded:-0}" -ge 50 ] && [ "${matched:-0}" -ge 50 ]; then
	ok "-s 10 recorded and matched the frees of about 1 in 10 ($recorded recorded, $matched matched)"
else
	not_ok "-s 10 recorded and matched the frees of about 1 in 10" "$activity"
fi
if [ -n "$untracked" ] && [ -n "$seen" ] && [ "$untracked" -lt $((seen / 3)) ]; then
	ok "-s 10: frees of addresses never sampled are not counted as untracked ($untracked of $seen)"
else
	not_ok "-s 10: frees of addresses never sampled are not counted as untracked" "$activity; $lost"
fi

# --- pages and percpu, each checked in its own report ----------------------
start_reader -o 0 -T 1000 2 1 || exit 1
echo 1 >"$LEAKER_PARAMS/leak_pages_percpu"
wait "$READER"
stacks=$(last_report_stacks "$OUT")
diag "$(printf '%s\n' "$stacks" | grep -E 'leaker_(page|percpu)_leak' | cut -c1-160)"
check_match "3 x alloc_pages(order 2): 49152 bytes in 3 allocations, from leaker_page_leak" \
	'^[[:space:]]*49152 bytes in 3 allocations from stack.* ;; leaker_page_leak\+0x[0-9a-f]+ \[memtrace_leaker\]' \
	"$stacks"

start_reader -P -o 0 -T 1000 2 1 || exit 1
echo 1 >"$LEAKER_PARAMS/leak_pages_percpu"
wait "$READER"
stacks=$(last_report_stacks "$OUT")
diag "$(printf '%s\n' "$stacks" | grep -E 'leaker_(page|percpu)_leak' | cut -c1-160)"
# The percpu tracepoint's size is the object's on every possible CPU, plus,
# with memcg accounting, an obj_cgroup pointer per 4 bytes on one of them
# (pcpu_obj_full_size()): 4 x 64 x CPUs, or 4 x (64 x CPUs + 128).
ncpu=$(awk -F- '{ print $NF + 1 }' /sys/devices/system/cpu/possible)
plain=$((4 * 64 * ncpu)) memcg=$((4 * (64 * ncpu + 128)))
check_match "-P: 4 x __alloc_percpu(64) on $ncpu CPUs: $plain (or $memcg with memcg) bytes in 4 allocations, from leaker_percpu_leak" \
	"^[[:space:]]*($plain|$memcg) bytes in 4 allocations from stack.* ;; leaker_percpu_leak\\+0x[0-9a-f]+ \\[memtrace_leaker\\]" \
	"$stacks"
if printf '%s\n' "$stacks" | grep -q 'leaker_page_leak'; then
	not_ok "-P reports percpu allocations only" "$(printf '%s\n' "$stacks" | grep leaker_page_leak)"
else
	ok "-P reports percpu allocations only"
fi
echo 1 >"$LEAKER_PARAMS/free"

# --- growth across intervals, then unload ------------------------------------
# report_or_gone N: the reader printed more than N reports, or has exited.
report_or_gone() {
	[ "$(grep -c '^\[[0-9:]*\] Top ' "$OUT")" -gt "$1" ] || ! kill -0 "$READER"
}
nreports() {
	grep -c '^\[[0-9:]*\] Top ' "$OUT"
}
# An interval long enough for a round of leaks even on the debug kernel;
# the reader runs until told to stop, so it never finishes before the rounds.
interval=$((2 * ${MTT_TIMEOUT_SCALE:-1}))
start_reader -o 0 -T 1000 "$interval" 1000 || exit 1
# One round of leaks in each interval: trigger, then wait for the report.
for round in 1 2 3 4 5; do
	seen=$(nreports)
	echo 1 >"$LEAKER_PARAMS/leak"
	if ! wait_for 120 report_or_gone "$seen" || ! kill -0 "$READER"; then
		not_ok "memtrace-read reports every interval (round $round)" "$(tail -n 30 "$OUT")"
		break
	fi
done
check "unload memtrace_leaker.ko while traced" rmmod memtrace_leaker
seen=$(nreports)
wait_for 120 report_or_gone "$seen"
kill -INT "$READER"
wait "$READER"
check_eq "memtrace-read exits 0 on SIGINT after the module it watched is gone" 0 "$?"
check_match "a stack that grows every interval is marked as growing" \
	'bytes in [0-9]+ allocations from stack.*growing' "$(grep -B0 -A3 'from stack' "$OUT" | grep -B1 leaker_kmalloc_leak)"
stacks=$(last_report_stacks "$OUT")
# Allocated by the module itself: the allocation site, the first frame
# (a page's is __alloc_pages, where its tracepoint fires: then the
# second), is the module's own (as above: KASAN's stack depot takes
# pages under the module's frees and keeps them).
own='^[^;]* ;; (__alloc_pages\+[^;]* ;; )?[^ ]+ \[memtrace_leaker\]'
if printf '%s\n' "$stacks" | grep -Eq "$own"; then
	not_ok "after unload nothing of memtrace_leaker is outstanding" \
		"$(printf '%s\n' "$stacks" | grep -E "$own")"
else
	ok "after unload nothing of memtrace_leaker is outstanding"
fi

check "memtrace.ko unloads" unload_memtrace
