#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A kernel configured without what some kernels go without: the 7.2 of
# scripts/newest-kernel.sh (same linux-source-7.2 .deb, tinyconfig +
# scripts/newest-kernel.config) with scripts/minimal-kernel.config merged
# last (no MEMCG, COMPACTION, MIGRATION, NUMA, KPROBES, UPROBES).
# memtrace must build against it, load there, and refuse only the modes
# that need what is missing (make check's build stage builds against it).
#
# usage: scripts/minimal-kernel.sh [--boot]
#   (no option)  configure and `make modules_prepare`: enough for an
#                external module to compile (no Module.symvers: modpost
#                cannot check its symbols); about a minute.
#   --boot       also bzImage and modules (Module.symvers), for a guest:
#                a full kernel build (tens of minutes on two busy cores).
# Progress goes to stderr; the last line on stdout is the tree's path.
#
# Cached in $MEMTRACE_CACHE/minimal-<key> (default ~/.cache/memtrace),
# <key> a hash of both fragments, the source package's version, the
# script's RECIPE number and the compiler; .memtrace-prepared and .memtrace-complete mark
# the two stages done.  Older minimal-* trees are removed.
set -euo pipefail

PKG=linux-source-7.2
top=$(cd "$(dirname "$0")/.." && pwd)
base="$top/scripts/newest-kernel.config"
frag="$top/scripts/minimal-kernel.config"
cache=${MEMTRACE_CACHE:-${HOME:-/root}/.cache/memtrace}
jobs=${MEMTRACE_JOBS:-$(nproc)}
boot=0
case ${1:-} in
--boot) boot=1 ;;
'') ;;
*) echo "usage: $0 [--boot]" >&2; exit 2 ;;
esac

log() { echo "minimal-kernel: $*" >&2; }
die() { echo "minimal-kernel: error: $*" >&2; exit 1; }

unset MAKEFLAGS MFLAGS MAKELEVEL MAKEFILES KBUILD_OUTPUT O ARCH \
	CROSS_COMPILE LLVM KCONFIG_CONFIG KBUILD_EXTMOD M
export ARCH=x86_64

deb=$(for f in "$cache/sources/${PKG}_"*_all.deb; do [ -f "$f" ] && echo "$f"; done | sort -V | tail -n 1)
[ -n "$deb" ] || die "no $PKG .deb in $cache/sources (make deps fetches it)"
pkgver=$(dpkg-deb -f "$deb" Version) || die "cannot read $deb"
ccver=$(gcc --version | sed -n 1p)
# What the tree is made of; RECIPE names how (bump it when the build
# steps below change), so that editing this script's comments or messages
# does not rebuild the kernel.
RECIPE=1
key=$({ cat "$base" "$frag"; echo "$PKG $pkgver"; echo "recipe $RECIPE"; echo "$ccver"; } |
	sha256sum | cut -c1-12)
tree="$cache/minimal-$key"
buildlog="$tree/.memtrace-build.log"
stamp="$tree/.memtrace-prepared"
[ "$boot" = 0 ] || stamp="$tree/.memtrace-complete"

# Done already: no lock (a --boot build of the same tree may hold it for
# long; it leaves what modules_prepare made as it was).
if [ -f "$stamp" ]; then
	log "cached: $tree"
	echo "$tree"
	exit 0
fi
mkdir -p "$cache"
exec 9>"$cache/minimal-kernel.lock"
flock 9
if [ -f "$stamp" ]; then
	log "cached: $tree (built meanwhile)"
	echo "$tree"
	exit 0
fi

kmake() {
	make -C "$tree" "$@" >>"$buildlog" 2>&1 ||
		{ tail -n 40 "$buildlog" >&2; die "make $* failed (log: $buildlog)"; }
}

t0=$(date +%s)
if [ ! -f "$tree/.memtrace-extracted" ]; then
	rm -rf "$tree" "$tree.partial"
	mkdir -p "$tree.partial"
	log "extracting $PKG from ${deb##*/}"
	dpkg-deb --fsys-tarfile "$deb" | tar -xO "./usr/src/$PKG.tar.xz" |
		tar -xJ -C "$tree.partial" --strip-components=1 ||
		die "cannot extract $PKG"
	touch "$tree.partial/.memtrace-extracted"
	mv "$tree.partial" "$tree"
fi

if [ ! -f "$tree/.memtrace-prepared" ]; then
	: >"$buildlog"
	log "configuring: tinyconfig + $(basename "$base") + $(basename "$frag")"
	kmake tinyconfig
	(cd "$tree" && scripts/kconfig/merge_config.sh -m .config "$base" "$frag") >>"$buildlog" 2>&1 ||
		die "merge_config.sh failed (see $buildlog)"
	kmake olddefconfig
	# Every option of the minimal fragment must be what it says.
	bad=
	while IFS= read -r line; do
		case $line in
		"# CONFIG_"*" is not set")
			sym=${line#\# }
			sym=${sym%% *}
			if got=$(grep -E "^$sym=" "$tree/.config"); then
				bad="$bad $got"
			fi
			;;
		esac
	done <"$frag"
	[ -z "$bad" ] || die "still on after olddefconfig (selected by something else?):$bad"
	log "make -j$jobs modules_prepare"
	kmake -j"$jobs" modules_prepare
	touch "$tree/.memtrace-prepared"
fi
if [ "$boot" = 1 ]; then
	log "make -j$jobs bzImage modules (log: $buildlog)"
	kmake -j"$jobs" bzImage modules
	touch "$tree/.memtrace-complete"
fi

for d in "$cache"/minimal-*; do
	[ -d "$d" ] && [ "$d" != "$tree" ] || continue
	log "removing older build $d"
	rm -rf "$d"
done
log "done in $(($(date +%s) - t0)) s: $tree"
echo "$tree"
