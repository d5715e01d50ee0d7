#!/bin/sh
# Install memtrace.ko through DKMS, so it is rebuilt for every kernel the
# host installs.  Debian's dkms signs the module with /var/lib/dkms/mok.key
# when that key exists; on a Secure Boot host enroll it once with
#   mokutil --import /var/lib/dkms/mok.pub
# usage: dkms-install.sh [KVER...]   (default: every installed kernel with headers)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
version=$(sed -n 's/^#define MEMTRACE_MODULE_VERSION "\(.*\)"/\1/p' "$top/kmod/main.c")
src=/usr/src/memtrace-$version

command -v dkms >/dev/null || { echo "dkms-install: dkms is not installed (apt-get install dkms)" >&2; exit 1; }

# Replace an earlier registration of this version.
if dkms status -m memtrace -v "$version" 2>/dev/null | grep -q .; then
	dkms remove -m memtrace -v "$version" --all
fi
rm -rf "$src"
mkdir -p "$src"
cp -a "$top/Kbuild" "$top/kmod" "$top/include" "$src/"
rm -f "$src/kmod/compat-probed.h"
sed "s/@VERSION@/$version/" "$top/dkms/dkms.conf" >"$src/dkms.conf"
dkms add -m memtrace -v "$version"

if [ $# -eq 0 ]; then
	set -- $(ls -d /lib/modules/*/build 2>/dev/null | cut -d/ -f4)
fi
for kver in "$@"; do
	dkms build -m memtrace -v "$version" -k "$kver"
	dkms install -m memtrace -v "$version" -k "$kver" --force
done
