#!/bin/sh
# Least privilege at /dev/memtrace: with the device's group and mode as
# udev/60-memtrace.rules sets them, the module's own checks on every
# operation (tests/progs/privcheck.c prints one result per check), and
# what memtrace-read tells a user without the capabilities.
# mtt-timeout: 300
. "${0%/*}/lib.sh"

RULE=/data/60-memtrace.rules
GID=990

load_memtrace || { not_ok "load memtrace.ko"; exit 1; }
if [ ! -f "$RULE" ]; then
	not_ok "the udev rule is in the guest ($RULE)"
	exit 1
fi
# What udev does with the rule: OWNER, GROUP and MODE of the device.
group=$(sed -n 's/^KERNEL=="memtrace".*GROUP="\([^"]*\)".*/\1/p' "$RULE")
mode=$(sed -n 's/^KERNEL=="memtrace".*MODE="\([0-7]*\)".*/\1/p' "$RULE")
grep -q "^$group:" /etc/group || echo "$group:x:$GID:" >>/etc/group
chgrp "$group" "$MEMTRACE_DEV" && chmod "$mode" "$MEMTRACE_DEV"
check_eq "the device's owner, group and mode as the udev rule sets them" \
	"crw-rw---- root $group" "$(ls -l "$MEMTRACE_DEV" | awk '{ print $1, $3, $4 }')"

# The module looks ptrace_may_access() up when it first needs it: a target.
mtsession -p $$ -m 1 >/dev/null 2>&1
fallback=
if dmesg | grep -q 'memtrace: .*takes CAP_SYS_PTRACE'; then
	diag "the module cannot reach ptrace_may_access(): $(dmesg | grep 'memtrace: .*CAP_SYS_PTRACE' | tail -n 1)"
	fallback=--ptrace-fallback
fi
privcheck "$GID" $fallback
rc=$?
[ "$rc" -le 1 ] || not_ok "privcheck ran to its end" "exit status $rc"

# memtrace-read, run as a member of the group.
out=$(privcheck run-as 1000 "$GID" "" memtrace-read --kernel-leaks 1 1 2>&1)
rc=$?
check_match "memtrace-read without capabilities fails" '^[1-9]' "$rc"
check_match "... saying which capabilities it needs" 'needs CAP_PERFMON or CAP_SYS_ADMIN' "$out"

out=$(privcheck run-as 1000 "$GID" cap_perfmon memtrace-read --kernel-leaks 1 1 2>&1)
rc=$?
check_eq "memtrace-read with CAP_PERFMON alone traces the kernel" 0 "$rc"
check_match "... and says that kernel stacks are hidden from it" \
	'\[kernel stack hidden: CAP_SYSLOG needed\]' "$out"
[ "$rc" -eq 0 ] || diag "$out"

check "memtrace.ko unloads" unload_memtrace
