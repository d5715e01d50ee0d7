#!/bin/sh
# modprobe memtrace from the module tree make install made for this kernel
# (tests/install/check-install.sh leaves it; tests/check.sh boots the 6.1
# and 6.12 guests with it as their /lib/modules/KVER).
# mtt-timeout: 60
. "${0%/*}/lib.sh"

tree=/lib/modules/$(uname -r)
if [ ! -f "$tree/updates/memtrace.ko" ]; then
	skip "modprobe memtrace from the installed module tree" "no installed tree for $(uname -r) in this guest"
	exit 0
fi
check "modprobe memtrace (the installed module tree)" modprobe memtrace || exit 0
check "... /dev/memtrace appears" wait_for 10 test -c "$MEMTRACE_DEV"
check "... memtrace-read talks to it" memtrace-read --version
check "modprobe -r memtrace" modprobe -r memtrace
