#!/bin/sh
# Hostile input: tests/progs/mtfuzz throws random ioctls, reads, polls and
# mmaps at /dev/memtrace from several processes and threads, closing
# descriptors under each other, killing its own workers and letting its
# targets exit at random, while this script unloads and reloads memtrace.ko
# whenever no descriptor holds it.  MTT_FUZZ_SECONDS long (default 30 s
# times the guest's timeout scale: 90 s on the debug kernel; `make fuzz`
# boots the debug kernel with a longer one).  The kernel is the oracle: the
# guest run fails on any splat (KASAN, lockdep, WARN) or kmemleak report;
# and the module must still work afterwards.
# mtt-timeout: 1200
. "${0%/*}/lib.sh"

SECS=${MTT_FUZZ_SECONDS:-$((30 * ${MTT_TIMEOUT_SCALE:-1}))}
FLAG=/tmp/fuzz.on
UNLOADS=/tmp/fuzz.unloads
# Small tables: quicker sessions, and the paths of full tables taken too.
# Snapshot buffers of at most 16 MiB: each worker's descriptors may each
# hold one, and the default (1 GiB) would let one random request take the
# guest's memory and have the OOM killer end the run.
PARAMS="live_entries=4096 live_max_entries=16384 stack_pool_mb=1 stat_slots=1024 trace_records=256
	max_buffer_mb=16"

# shellcheck disable=SC2086 # one word per parameter
load_memtrace $PARAMS || { not_ok "load memtrace.ko"; exit 1; }
: >"$FLAG"
(
	n=0
	while [ -e "$FLAG" ]; do
		if grep -q '^memtrace ' /proc/modules; then
			rmmod memtrace 2>/dev/null && n=$((n + 1))
		fi
		if ! grep -q '^memtrace ' /proc/modules; then
			# shellcheck disable=SC2086
			insmod "$MEMTRACE_KO" $PARAMS >>/tmp/fuzz.insmod 2>&1
		fi
		sleep 0.02
	done
	echo "$n" >"$UNLOADS"
) &
LOOP=$!
mtfuzz -t "$SECS"
rc=$?
rm -f "$FLAG"
wait "$LOOP"
[ "$rc" -le 1 ] || not_ok "mtfuzz ran to its end" "exit status $rc"
diag "memtrace.ko was unloaded and reloaded $(cat "$UNLOADS" 2>/dev/null) times under the fuzzer"
[ -s /tmp/fuzz.insmod ] && diag "insmod said: $(sort /tmp/fuzz.insmod | uniq -c | head -n 5)"

[ -c "$MEMTRACE_DEV" ] || load_memtrace || { not_ok "memtrace.ko loads after the fuzzing"; exit 1; }
check "after the fuzzing, a session runs as ever (memtrace-read --kernel-leaks)" \
	timeout 120 memtrace-read --kernel-leaks 1 1
check "memtrace.ko unloads" unload_memtrace
