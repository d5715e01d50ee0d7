#!/bin/sh
# memtrace-read's errors against the real module: each bad situation gets a
# clear message and a non-zero exit, and leaves the module usable.
# mtt-timeout: 180
. "${0%/*}/lib.sh"

# expect_fail DESC REGEX CMD...: CMD fails and its output matches REGEX.
expect_fail() {
	_d=$1 _re=$2
	shift 2
	_out=$("$@" 2>&1)
	_rc=$?
	if [ "$_rc" -ne 0 ] && printf '%s\n' "$_out" | grep -Eq -e "$_re"; then
		ok "$_d"
	else
		not_ok "$_d" "exit $_rc, expected a message matching: $_re
$_out"
	fi
}

expect_fail "no module loaded: says to load it" 'modprobe memtrace' \
	memtrace-read --kernel-leaks 1 1
expect_fail "interval 0 is a usage error" "interval '0' out of range" \
	memtrace-read --kernel-leaks 0 1

load_memtrace || { not_ok "load memtrace.ko"; exit 1; }
expect_fail "unknown cache name is named" 'no_such_cache' \
	memtrace-read --kernel-leaks --cache no_such_cache 1 1
expect_fail "-t with --slab is refused" 'applies to --kernel-leaks' \
	memtrace-read --slab -t 1 1

memtrace-read --kernel-leaks 30 1 >/tmp/first.out 2>&1 &
first=$!
wait_for 60 grep -q Attaching /tmp/first.out
expect_fail "a second reader is told tracing is already running" 'already running' \
	memtrace-read --kernel-leaks 1 1
kill -INT "$first"
wait "$first"
check_eq "the first reader ends cleanly on SIGINT" 0 "$?"
check_match "and prints its final report" 'Top [0-9]+ stacks' "$(cat /tmp/first.out)"

# A reader killed with SIGKILL leaves no hook behind: another can start.
memtrace-read --kernel-leaks 30 1 >/tmp/killed.out 2>&1 &
victim=$!
wait_for 60 grep -q Attaching /tmp/killed.out
kill -KILL "$victim"
wait "$victim" 2>/dev/null
check "after SIGKILL of a reader, a new one traces" memtrace-read --kernel-leaks 1 1
# A kernel built without an option memtrace has a mode for (the minimal
# guest): the mode is refused with a message that names the option.  On
# the kernels that have them, nothing to check here.
has_sym() { grep -q " $1\$" /proc/kallsyms; }
# Which options a kernel has: its functions (kallsyms) or /proc/vmstat's
# counters; not the counters alone, which need CONFIG_VM_EVENT_COUNTERS
# (off in the debug kernel).
has_sym kcompactd || grep -q '^compact_stall ' /proc/vmstat ||
	expect_fail "--compaction, no CONFIG_COMPACTION: refused, naming it" 'CONFIG_COMPACTION' \
		memtrace-read --compaction 1 1
has_sym migrate_pages || grep -q '^pgmigrate_success ' /proc/vmstat ||
	expect_fail "--migration, no CONFIG_MIGRATION: refused, naming it" 'CONFIG_MIGRATION' \
		memtrace-read --migration 1 1
# A kernel with no hook for a mode (5.10: no mm_migrate_pages_start
# tracepoint): refused, naming the hook.
if has_sym migrate_pages &&
	! grep -Eq ' __trace(point|iter)_mm_migrate_pages_start$' /proc/kallsyms; then
	expect_fail "--migration, no mm_migrate_pages_start tracepoint: refused, naming it" \
		'no hook for it: no mm_migrate_pages_start' memtrace-read --migration 1 1
fi
has_sym register_kprobe ||
	expect_fail "--oom, no CONFIG_KPROBES: refused, naming it" 'CONFIG_KPROBES' \
		memtrace-read --oom 1 1
has_sym uprobe_register ||
	expect_fail "user mode, no CONFIG_UPROBES: refused, naming it" 'CONFIG_UPROBES' \
		memtrace-read -c true

check "memtrace.ko unloads" unload_memtrace
