#!/bin/bash
# make demo: build memtrace for Debian's 6.1 kernel, boot it in a qemu
# guest, load the module and a module that leaks, and print the reports
# memtrace-read makes of it; then those of a user-space leak (memleak's
# fibonacci example).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

kver=$(ls -d /lib/modules/6.1.*-amd64/build 2>/dev/null | sort -V | tail -n1 | cut -d/ -f4)
[ -n "$kver" ] || { echo "demo: no 6.1 kernel headers: make deps" >&2; exit 1; }
echo "demo: building memtrace.ko for $kver, memtrace-read, the test module and programs..."
make -s module KVER="$kver" >/dev/null
make -s userspace >/dev/null
make -s -C tests/progs O="$top/build/progs" >/dev/null
tests/guest/build-test-module.sh "/lib/modules/$kver/build" "build/testkmod-$kver" >/dev/null
echo "demo: booting $kver under qemu (TCG; about a minute)..."

out=$(mktemp)
trap 'rm -f "$out"' EXIT
status=0
tests/guest/run-guest.sh --kernel "/boot/vmlinuz-$kver" --label demo \
	--ko-dir "build/kmod-$kver" --ko-dir "build/testkmod-$kver" \
	--bin-dir build/user --bin-dir build/progs --scripts 'tests/demo/*.sh' --timeout 600 \
	>"$out" || status=$?
echo
sed -n 's/^# | \{0,1\}//p' "$out"
echo
if [ "$status" -ne 0 ]; then
	echo "demo: the guest run failed:" >&2
	grep -v '^# | ' "$out" >&2
	exit "$status"
fi
echo "demo: done (console log: build/logs/demo-console.log)"
