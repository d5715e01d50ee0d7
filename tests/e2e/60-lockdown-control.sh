#!/bin/sh
# The control half of tests/lockdown/10-lockdown.sh: booted without
# lockdown, the same kernel lets a BPF tracer read kernel memory
# (tests/progs/bpfread.c), accepts a tracefs kprobe event and loads an
# unsigned module, so that their refusal in the lockdown boot is the
# lockdown's doing, not a missing feature.
# mtt-timeout: 120
. "${0%/*}/lib.sh"

if mount_securityfs; then
	check_match "no lockdown in this boot" '\[none\]' "$(cat /sys/kernel/security/lockdown)"
else
	diag "no lockdown LSM in this kernel"
fi

if [ -e /sys/kernel/btf ] || [ -e /proc/sys/kernel/unprivileged_bpf_disabled ]; then
	bpfread allowed
else
	skip "bpf: a tracer reads kernel memory" "no bpf(2) in this kernel"
fi

KPROBES=/sys/kernel/tracing/kprobe_events
if [ -e "$KPROBES" ]; then
	check "tracefs: a kprobe event is accepted" \
		sh -c "echo 'p:mtt_control __x64_sys_getppid' >>$KPROBES"
	echo '-:mtt_control' >>"$KPROBES" 2>/dev/null
else
	skip "tracefs: a kprobe event is accepted" "no $KPROBES"
fi

strip_module_signature /memtrace/memtrace_leaker.ko /tmp/leaker-unsigned.ko
check "an unsigned module loads" insmod /tmp/leaker-unsigned.ko &&
	rmmod memtrace_leaker
