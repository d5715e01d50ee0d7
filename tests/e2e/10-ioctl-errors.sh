#!/bin/sh
# Bad input to /dev/memtrace gets a clear errno and loses nothing
# (tests/progs/ioctl_errors.c prints one result per check).
# mtt-timeout: 120
. "${0%/*}/lib.sh"

if ! load_memtrace; then
	not_ok "load memtrace.ko"
	exit 1
fi
ok "load memtrace.ko"
ioctl_errors
check "memtrace.ko unloads after the bad input" unload_memtrace
