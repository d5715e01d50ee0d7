#!/bin/sh
# How an allocator's returns are seen, each way forced: probes on its ret
# instructions (memtrace-read finds them by disassembling the function; the
# module performs the ret), and the return probe (uretprobe) every
# allocator gets with --returns=uretprobe, or where the disassembly finds a
# way out that is no ret (Debian's calloc and realloc tail-call).  Each
# way: what -v says each allocator got, userleak's exact leaks and a heap
# summary equal to Valgrind Memcheck's in this guest, mallocbench's exact
# call counts, and no breakpoint left in a process attached to with -p.
# mtt-timeout: 400
. "${0%/*}/lib.sh"

SCALE=${MTT_TIMEOUT_SCALE:-1}
LIBC_RE='/usr/lib/x86_64-linux-gnu/libc\.so\.6'

# check_paths WHAT OUT MALLOC_RE CALLOC_RE: the -v lines of malloc and calloc.
check_paths() {
	check_match "$1: -v: malloc's returns $3" \
		"^memtrace-read: malloc in $LIBC_RE: $3\$" "$(cat "$2")"
	check_match "$1: -v: calloc's returns $4" \
		"^memtrace-read: calloc in $LIBC_RE: $4\$" "$(cat "$2")"
	check_eq "$1: -v: free needs no return probe (no line for it)" "" \
		"$(grep '^memtrace-read: free in ' "$2")"
}

# check_counts WHAT ARGS...: mallocbench 1000 (6 rounds of 1000 malloc+free
# pairs, and the one malloc of its stdout buffer) under memtrace-read ARGS:
# every call seen and recorded once, every free matched.
check_counts() {
	_what=$1
	shift
	timeout -s KILL $((120 * SCALE)) memtrace-read "$@" -c "/usr/bin/mallocbench 1000" \
		>/tmp/mb.out 2>&1
	check_eq "$_what: memtrace-read -c mallocbench exits 0" 0 "$?"
	check_match "$_what: mallocbench: 6001 allocations seen and recorded, 6000 frees matched" \
		'^Activity: 6001 allocs seen, 6000 frees seen, 6001 recorded, 6000 frees matched, ' \
		"$(grep '^Activity:' /tmp/mb.out | tail -n 1)"
	check_match "$_what: mallocbench: nothing lost" \
		'^Lost: 0 recursion, 0 nmi, 0 index full, 0 stack table full, 0 counter table full, 0 cache table full, 0 task name table full, 0 frees of untracked addresses, 0 frees never seen \(address reused\), 0 probe hits missed' \
		"$(grep '^Lost:' /tmp/mb.out | tail -n 1)"
}

if ! load_memtrace; then
	not_ok "load memtrace.ko"
	exit 1
fi
for p in memtrace-read userleak mallocbench probecheck; do
	command -v $p >/dev/null || { not_ok "$p in the guest"; exit 1; }
done

# --- a. ret-instruction probes (the default, auto) -------------------------
check_userleak_c "return sites" -v
check_paths "return sites" /tmp/c.out '[0-9]+ ret-instruction probes?' \
	'a return probe \(uretprobe\): a jump out of the function at \+0x[0-9a-f]+ \(a tail call\)'
check_counts "return sites" -v

# --- b. return probes for all: --returns=uretprobe -------------------------
check_userleak_c "--returns=uretprobe" -v --returns=uretprobe
check_paths "--returns=uretprobe" /tmp/c.out \
	'a return probe \(uretprobe\): --returns=uretprobe' \
	'a return probe \(uretprobe\): --returns=uretprobe'
check_counts "--returns=uretprobe" --returns=uretprobe

# --- c. -p: return sites in a running process, none left behind ------------
rm -f /tmp/ul.out
userleak --wait >/tmp/ul.out 2>&1 &
TARGET=$!
if wait_for 30 grep -qx ready /tmp/ul.out; then
	memtrace-read -v -p "$TARGET" -o 0 2 >/tmp/p.out 2>&1 &
	READER=$!
	if wait_for 60 grep -qx "Attaching to pid $TARGET, Ctrl+C to quit." /tmp/p.out; then
		kill -USR1 "$TARGET"
		wait_for 60 grep -qx 'done' /tmp/ul.out || diag "userleak did not say done"
		kill -INT "$READER"
		wait_for 60 eval "! kill -0 $READER 2>/dev/null"
		wait "$READER"
		check_eq "-p with return sites: memtrace-read exits 0 on SIGINT" 0 "$?"
		check_match "-p: -v: malloc's returns by ret-instruction probes" \
			"^memtrace-read: malloc in $LIBC_RE: [0-9]+ ret-instruction probes?\$" \
			"$(cat /tmp/p.out)"
		check_userleak_stacks "-p with return sites" /tmp/p.out
		check_eq "-p with return sites: no breakpoint left in the target" clean \
			"$(probecheck "$TARGET" 2>&1)"
	else
		not_ok "-p with return sites: memtrace-read attaches" "$(tail -n 20 /tmp/p.out)"
		kill -KILL "$READER" 2>/dev/null
	fi
	kill -TERM "$TARGET"
	wait "$TARGET"
	check_eq "-p with return sites: userleak ends normally after it was traced" 0 "$?"
else
	not_ok "userleak --wait starts" "$(cat /tmp/ul.out)"
	kill -KILL "$TARGET" 2>/dev/null
fi

unload_memtrace
