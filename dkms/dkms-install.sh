#!/bin/sh
# Install memtrace.ko through DKMS, so that it is rebuilt for every kernel
# the host installs, and signed for Secure Boot.
#
# usage: dkms-install.sh [--root DIR] [--remove] [KVER...]
#   KVER        kernels to build for (default: every installed kernel with
#               headers, /lib/modules/*/build)
#   --remove    take memtrace out of DKMS (all kernels, all its files)
#   --root DIR  keep all of DKMS's state under DIR: source tree, DKMS tree,
#               install tree and the MOK key pair; run no depmod.  For
#               tests and packaging: nothing outside DIR changes, and
#               removing DIR removes every trace.
#
# Signing: Debian's dkms signs each module it builds with the MOK key pair
# /var/lib/dkms/mok.key and mok.pub (under --root: DIR/mok.key, DIR/mok.pub),
# made on first use.  On a Secure Boot host, enroll the certificate once:
#   mokutil --import /var/lib/dkms/mok.pub   (then reboot: MokManager asks
#   for the one-time password to enroll it)
# after which the kernel trusts every module DKMS signs with it.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
version=$(sed -n 's/^#define MEMTRACE_MODULE_VERSION "\(.*\)"/\1/p' "$top/kmod/device/main.c")

root= remove=0
while [ $# -gt 0 ]; do
	case $1 in
	--root) root=$2; shift 2 ;;
	--remove) remove=1; shift ;;
	-h|--help) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	-*) echo "dkms-install: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done

command -v dkms >/dev/null || { echo "dkms-install: dkms is not installed (apt-get install dkms)" >&2; exit 1; }

src_tree=/usr/src
if [ -n "$root" ]; then
	mkdir -p "$root/src" "$root/dkms" "$root/modules"
	root=$(cd "$root" && pwd)
	src_tree=$root/src
	# dkms reads the key pair's paths from its environment (as from
	# /etc/dkms/framework.conf).
	mok_signing_key=$root/mok.key
	mok_certificate=$root/mok.pub
	export mok_signing_key mok_certificate
fi

# dkms ARGS...: dkms on the system's trees, or on those under --root.
run_dkms() {
	if [ -n "$root" ]; then
		dkms "$@" --sourcetree "$root/src" --dkmstree "$root/dkms" \
			--installtree "$root/modules" --no-depmod
	else
		dkms "$@"
	fi
}

registered() {
	[ -n "$(run_dkms status -m memtrace -v "$version" 2>/dev/null)" ]
}

if registered; then
	run_dkms remove -m memtrace -v "$version" --all
fi
rm -rf "$src_tree/memtrace-$version"
[ "$remove" = 1 ] && exit 0

src=$src_tree/memtrace-$version
mkdir -p "$src"
cp -a "$top/Kbuild" "$top/kmod" "$top/include" "$src/"
rm -f "$src/kmod/compat/compat-probed.h"
sed "s/@VERSION@/$version/" "$top/dkms/dkms.conf" >"$src/dkms.conf"
run_dkms add -m memtrace -v "$version"

if [ $# -eq 0 ]; then
	# shellcheck disable=SC2046 # one word per kernel
	set -- $(ls -d /lib/modules/*/build 2>/dev/null | cut -d/ -f4)
fi
for kver in "$@"; do
	# dkms installs only for a kernel its install tree has.
	[ -z "$root" ] || mkdir -p "$root/modules/$kver"
	run_dkms build -m memtrace -v "$version" -k "$kver"
	run_dkms install -m memtrace -v "$version" -k "$kver" --force
done
