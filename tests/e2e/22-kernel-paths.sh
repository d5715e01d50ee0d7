#!/bin/sh
# The kernel's less common allocation and free paths, from memtrace_paths.ko
# (tests/kmod/memtrace_paths.c, whose comment lists what each path keeps):
# what was freed is not reported, what is kept is reported once, with its
# exact count and bytes; frames in module init code (freed after load) and
# in an unloaded module keep their names; an unloaded module's leftovers
# are reported.  All in one session, from the module's load to its unload.
# mtt-timeout: 400
. "${0%/*}/lib.sh"

PATHS=/sys/module/memtrace_paths/parameters
OUT=/tmp/paths.out

if ! load_memtrace; then
	not_ok "load memtrace.ko"
	exit 1
fi
check "load memtrace_leaker.ko" insmod /memtrace/memtrace_leaker.ko || exit 1

# A report every interval, of the stacks through memtrace_paths only
# (--module): the rest of the kernel allocates too.
interval=$((3 * ${MTT_TIMEOUT_SCALE:-1}))
start_kernel_reader "$OUT" "memtrace-read attaches" --module memtrace_paths -o 0 -T 1000 \
	"$interval" || exit 1
check "load memtrace_paths.ko while traced" insmod /memtrace/memtrace_paths.ko || exit 1
for p in kfree_rcu cache_kfree bulk krealloc kvmalloc vmalloc kmalloc_large split \
	batched percpu mempool orphans; do
	check "memtrace_paths: $p" sh -c "echo 1 >$PATHS/$p"
done

# The report's stacks, but for a debug kernel's bookkeeping: kmemleak's
# record of an object, and SLUB debugging's stack depot pages, are made in
# the module's calls and live on (a depot page for ever).
paths_stacks() {
	last_report_stacks "$OUT" |
		grep -Ev ' ;; (__create_object|__stack_depot_save|stack_depot_save)\+'
}

# kfree_rcu() frees in batches after a grace period, and vfree() from
# interrupt context in a worker: wait until a report shows them done.
settled() {
	s=$(paths_stacks)
	[ -n "$s" ] || return 1
	printf '%s\n' "$s" | grep -q ' ;; paths_kfree_rcu+' && return 1
	printf '%s\n' "$s" | grep -Eq '^[[:space:]]*409600 bytes in 10 allocations from stack[^;]* ;; __vmalloc_node[_a-z]*\+0x[0-9a-f]+ \[kernel\] ;; paths_vmalloc\+|^[[:space:]]*409600 bytes in 10 allocations from stack[^;]* ;; paths_vmalloc\+'
}
n=0
while ! settled && [ "$n" -lt $((60 * ${MTT_TIMEOUT_SCALE:-1})) ]; do
	sleep 1
	n=$((n + 1))
done
if settled; then
	ok "kfree_rcu() batches and deferred vfree()s are done"
else
	not_ok "kfree_rcu() batches and deferred vfree()s are done" \
		"$(paths_stacks | grep -E 'paths_(kfree_rcu|vmalloc)' | cut -c1-200)"
fi
kill -INT "$READER"
wait "$READER"
stacks=$(paths_stacks)
diag "$(printf '%s\n' "$stacks" | grep 'paths_' | sed 's/ ;; param_attr_store.*//' | cut -c1-220)"

# expect DESC REGEX: the last report has a stack matching REGEX.
expect() {
	check_match "$1" "$2" "$stacks"
}
# none DESC REGEX: no stack of the last report matches REGEX.
none() {
	if printf '%s\n' "$stacks" | grep -Eq -e "$2"; then
		not_ok "$1" "$(printf '%s\n' "$stacks" | grep -E -e "$2" | cut -c1-300)"
	else
		ok "$1"
	fi
}
N='[[:space:]]*'
F='\+0x[0-9a-f]+ \[memtrace_paths\]'

none "kfree_rcu(): 1000 kmalloc(128) and 100 kvfree_rcu_mightsleep() freed, none reported" \
	' ;; paths_kfree_rcu\+'
# The objects paths_cache_kfree() allocated itself (its frame first).  On
# 7.x the slab allocator also keeps per-CPU sheaves of a cache's objects,
# kmalloc()ed inside the first kmem_cache_alloc() and kfree() on a CPU
# (__alloc_empty_sheaf+ ;; ... ;; paths_cache_kfree+): live until the
# cache goes, and reported as such, but not among the 300.
none "kfree() of 300 cache objects: none reported" '^[^;]* from stack[^;]* ;; paths_cache_kfree\+'
expect "kmem_cache_alloc_bulk() 64, kmem_cache_free_bulk() 48: 16 objects of 192 bytes" \
	"^${N}3072 bytes in 16 allocations from stack[^;]* ;; paths_alloc_bulk$F"
expect "32 kmalloc(64), kfree_bulk() 24: 8 left" \
	"^${N}512 bytes in 8 allocations from stack[^;]* ;; paths_kfree_bulk$F"
expect "krealloc() in place: one kmalloc-128 object" \
	"^${N}128 bytes in 1 allocations from stack[^;]* ;; paths_krealloc$F"
expect "krealloc() that moves: the new kmalloc-1k object, the old one freed" \
	"^${N}1024 bytes in 1 allocations from stack.* ;; paths_krealloc$F"
# (kvmalloc_node() is the kmalloc's caller where the kernel does not inline it.)
expect "kvmalloc(1000): kmalloc-1k" \
	"^${N}1024 bytes in 1 allocations from stack[^;]*( ;; kvmalloc_node\+0x[0-9a-f]+ \[kernel\])? ;; paths_kvmalloc$F"
expect "kvmalloc(8 MiB): 8388608 bytes of vmalloc, counted once" \
	"^${N}8388608 bytes in 1 allocations from stack[^;]* ;; paths_kvmalloc$F"
expect "20 vmalloc(40960), 10 freed by vfree() (5 deferred): 409600 bytes in 10" \
	"^${N}409600 bytes in 10 allocations from stack.* ;; paths_vmalloc$F"
expect "15 kmalloc(65536), 5 freed: 655360 bytes in 10 allocations" \
	"^${N}655360 bytes in 10 allocations from stack[^;]* ;; paths_kmalloc_large$F"
none "a large kmalloc's pages are not counted again" \
	'^[[:space:]]*[0-9]+ bytes in [0-9]+ allocations from stack[^;]* ;; __alloc_pages.* ;; paths_kmalloc_large\+'
expect "split_page() of an order-3 block, 5 pages freed: 3 pages" \
	"^${N}12288 bytes in 3 allocations from stack.* ;; paths_split$F"
expect "alloc_pages_exact(5 pages): 20480 bytes (its unused tail freed)" \
	"^${N}20480 bytes in 2 allocations from stack.* ;; alloc_pages_exact[_a-z]*\+.* ;; paths_split$F"
expect "32 pages, 24 freed by release_pages(): 8 pages, each free counted once" \
	"^${N}32768 bytes in 8 allocations from stack.* ;; paths_batched$F"
ncpu=$(awk -F- '{ print $NF + 1 }' /sys/devices/system/cpu/possible)
plain=$((16 * 8192 * ncpu)) memcg=$((16 * (8192 * ncpu + 16384)))
# 5.10's percpu tracepoint names no call site: its stacks start in
# pcpu_alloc(), which the others' call site leaves out.
expect "16 __alloc_percpu(8192) on $ncpu CPUs: $plain (or $memcg with memcg) bytes" \
	"^${N}($plain|$memcg) bytes in 16 allocations from stack[^;]*( ;; pcpu_alloc\+0x[0-9a-f]+ \[kernel\])? ;; paths_percpu$F"
none "the pages of the percpu chunks are not counted again" \
	' ;; pcpu_(populate_chunk|alloc_pages)'
expect "mempool: the element taken from the reserve and kept is its taker's" \
	"^${N}192 bytes in 1 allocations from stack.* ;; paths_mempool_take$F"
expect "mempool: the element left in the reserve is the pool's" \
	"^${N}192 bytes in 1 allocations from stack.* ;; mempool_create[_a-z]*\+.* ;; paths_mempool$F"
expect "allocations made in module init code, freed since, are named right" \
	"^${N}1536 bytes in 3 allocations from stack[^;]* ;; paths_init_alloc$F ;; paths_init$F"
none "no frame of these stacks is [unknown]" '\[unknown\]'
check_match "no free unseen, no probe hit missed, nothing lost" \
	'^Lost: 0 recursion, 0 nmi, 0 index full, 0 stack table full, 0 counter table full, 0 cache table full, 0 task name table full, [0-9]+ frees of untracked addresses, 0 frees never seen \(address reused\), 0 probe hits missed$' \
	"$(grep '^Lost:' "$OUT" | tail -n 1)"
if grep -q '^Not seen on this kernel' "$OUT"; then
	not_ok "every path has a hook on this kernel" "$(grep '^Not seen' "$OUT" | tail -n 1)"
else
	ok "every path has a hook on this kernel"
fi

# -a: the object resized in place has its new requested size.
start_kernel_reader "$OUT" "memtrace-read attaches" --module memtrace_paths -a -o 0 -T 1000 \
	3600 || exit 1
echo 1 >"$PATHS/krealloc"
kill -INT "$READER"
wait "$READER"
check_eq "krealloc() in place updates the requested size to 120" 1 \
	"$(awk '/addr = .* size = 128 requested = 120 / { n++ } END { print n + 0 }' "$OUT")"

# --- the module-leak check: unloading with allocations left -------------------
start_kernel_reader "$OUT" "memtrace-read attaches" --module memtrace_paths -o 0 -T 1000 \
	"$interval" || exit 1
echo 1 >"$PATHS/orphans"
echo 1 >"$PATHS/orphan_on_unload"
check "unload memtrace_paths.ko, which leaves 4 kmalloc(256) behind" rmmod memtrace_paths
unloaded() {
	grep -q '^\[[0-9:]*\] Module memtrace_paths unloaded' "$OUT"
}
wait_for 60 unloaded
kill -INT "$READER"
wait "$READER"
report=$(awk '/^\[[0-9:]+\] Module memtrace_paths unloaded/ { p = 1 } p && /^$/ { exit } p' "$OUT")
diag "$report"
if [ -e /sys/kernel/debug/kmemleak ]; then
	# A debug kernel allocates in the module's calls too, and keeps it as
	# long as the object: kmemleak's record of it, SLUB debugging's stack
	# depot pages.  Those are live, and made through its code.
	check_match "the unload is reported with what its code left: 4 kmalloc(256), 1024 bytes" \
		'^[[:space:]]+1024 bytes in 4 allocations from stack$' "$report"
	others=$(printf '%s\n' "$report" | awk '
		function judge() {
			if (what != "" && what != "1024 4" && !bookkeeping) print what
			what = ""
		}
		/ bytes in [0-9]+ allocations from stack$/ { judge(); what = $1 " " $4; bookkeeping = 0; next }
		/^[[:space:]]+(__create_object|__stack_depot_save|stack_depot_save)\+/ { bookkeeping = 1 }
		END { judge() }')
	check_eq "and, besides, only the debug kernel's bookkeeping of them" "" "$others"
else
	check_match "the unload is reported with what its code left: 1024 bytes in 4 allocations" \
		'^\[[0-9:]+\] Module memtrace_paths unloaded: 1024 bytes in 4 allocations made through its code are still live:$' \
		"$report"
fi
check_match "the leftovers' stack is named from the gone module's own symbols" \
	'^[[:space:]]+paths_orphans\+0x[0-9a-f]+ \[memtrace_paths\]$' "$report"

check "memtrace_leaker.ko unloads (freeing what it adopted)" rmmod memtrace_leaker
check "memtrace.ko unloads" unload_memtrace
