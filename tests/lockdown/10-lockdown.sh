#!/bin/sh
# A locked-down host: booted with lockdown=confidentiality
# module.sig_enforce=1 (tests/check.sh's "lockdown" guest, the debug
# kernel, whose config has the lockdown LSM, module signing with a test
# key, kprobe events and BPF events).  In this one boot: the signed
# memtrace.ko loads and an unsigned copy is refused; a BPF tracer that
# reads kernel memory and a tracefs kprobe event are refused (the same
# kernel allows all three without lockdown: tests/e2e/60-lockdown-control.sh);
# and memtrace reports a kernel leak and a user leak exactly.
# Lockdown refuses debugfs and tracefs, so this boot has no kmemleak
# check: the debug guest's own run has.
# mtt-timeout: 600
. "${0%/*}/lib.sh"

LEAKER_PARAMS=/sys/module/memtrace_leaker/parameters

if mount_securityfs; then
	check_match "lockdown is confidentiality" '\[confidentiality\]' \
		"$(cat /sys/kernel/security/lockdown)"
else
	not_ok "lockdown is confidentiality" "no /sys/kernel/security/lockdown"
fi
check_eq "module signatures are enforced" Y "$(cat /sys/module/module/parameters/sig_enforce)"

# --- signing ---------------------------------------------------------------
strip_module_signature "$MEMTRACE_KO" /tmp/memtrace-unsigned.ko
out=$(insmod /tmp/memtrace-unsigned.ko 2>&1)
rc=$?
check_match "an unsigned memtrace.ko is refused" 'rejected|not permitted|Required key' \
	"$rc: $out"
[ "$rc" -ne 0 ] || rmmod memtrace
check "the signed memtrace.ko loads" load_memtrace || exit 1
check "the signed memtrace_leaker.ko loads" insmod /memtrace/memtrace_leaker.ko || exit 1

# --- what the tracers that need kernel memory get ----------------------------
bpfread refused
check_match "the kernel log names lockdown as the reason for BPF" \
	'Lockdown: bpfread: use of bpf to read kernel RAM is restricted' "$(dmesg)"
KPROBES=/sys/kernel/tracing/kprobe_events
mkdir -p /sys/kernel/tracing
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
out=$(sh -c "echo 'p:mtt_lockdown __x64_sys_getppid' >>$KPROBES" 2>&1)
rc=$?
check_match "tracefs: a kprobe event is refused" '^[1-9][0-9]*: .*(Permission denied|not permitted)' \
	"$rc: $out"
check_match "the kernel log names lockdown as the reason for tracefs" \
	'Lockdown: .*: use of tracefs is restricted' "$(dmesg)"

# --- memtrace: a kernel leak, exactly ---------------------------------------
OUT=/tmp/lockdown-kernel.out
start_kernel_reader "$OUT" "kernel mode: memtrace-read attaches" -o 0 -T 1000 2 2 || exit 1
echo 1 >"$LEAKER_PARAMS/leak"
wait "$READER"
check_eq "kernel mode: memtrace-read exits 0" 0 "$?"
stacks=$(last_report_stacks "$OUT")
check_match "kernel mode: memtrace_leaker's 10 x kmalloc(1000): 10240 bytes in 10 allocations from leaker_kmalloc_leak" \
	'^[[:space:]]*10240 bytes in 10 allocations from stack.* ;; leaker_kmalloc_leak\+0x[0-9a-f]+ \[memtrace_leaker\]' \
	"$stacks"
check_match "kernel mode: its 7 cache objects: 1400 bytes in 7 allocations from leaker_cache_leak" \
	'^[[:space:]]*1400 bytes in 7 allocations from stack.* ;; leaker_cache_leak\+0x[0-9a-f]+ \[memtrace_leaker\]' \
	"$stacks"
check "rmmod memtrace_leaker" rmmod memtrace_leaker

# --- memtrace: a user leak, exactly (against Memcheck's numbers) --------------
check_userleak_c "user mode: -c userleak"

check "memtrace.ko unloads" unload_memtrace
