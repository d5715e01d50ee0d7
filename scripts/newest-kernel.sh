#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The newest kernel memtrace is tested on: mainline 7.2 from Debian sid's
# linux-source-7.2, built (once, cached) as tinyconfig +
# scripts/newest-kernel.config: PREEMPT_RT with lockdep and might_sleep()
# checks, kprobes/uprobes/tracepoints, KUnit built in.  The 7.2 guest of
# `make check` boots it (tests/check.sh).
#
# usage: scripts/newest-kernel.sh [--fetch | --series]
#   (no option)  build the tree.  Progress goes to stderr; the last line on
#                stdout is the absolute path of the built tree:
#                <tree>/arch/x86/boot/bzImage is the kernel, and an external
#                module builds with `make -C <tree> M=<dir> modules`.
#   --fetch      (root; scripts/deps.sh runs it) download sid's
#                linux-source-SERIES .deb into the cache, with a private apt
#                state that names sid on the machine's own bookworm mirror:
#                only that one package comes from sid, nothing is installed
#                and the system's apt sources are not touched.  Idempotent:
#                a .deb in the cache is kept (the tree is not rebuilt every
#                time sid uploads a new 7.2.x).
#   --series     print the kernel series (7.2)
#
# Booting it: as the debug kernel (scripts/debug-kernel.sh): no ACPI, no
# PCI, `-smp 2,sockets=2`, serial console, `reboot -f` + -no-reboot.
#
# Environment:
#   MEMTRACE_CACHE    cache root (default ~/.cache/memtrace): the .deb in
#                     $MEMTRACE_CACHE/sources/, the tree in
#                     $MEMTRACE_CACHE/newest-<key>
#   MEMTRACE_JOBS     make -j (default: nproc)
#   MEMTRACE_VERBOSE  1: stream the kernel build output to stderr (by
#                     default it goes to <tree>/.memtrace-build.log and
#                     its tail is shown on failure)
#
# <key> hashes the fragment, the source package's version, RECIPE (below:
# bump it when the build steps change; editing comments, messages or
# --fetch does not rebuild) and the compiler version: any change rebuilds
# in a new directory; a completed
# build (stamp file) is reused as is.  When a new build completes, the older
# newest-* trees are removed but the newest other complete one.
#
# Adding a newer kernel: change SERIES below, run `make deps` (fetches the
# new source), fix what the build's fragment check reports (renamed Kconfig
# symbols), and see docs/kernels.md.
set -euo pipefail

SERIES=7.2
PKG=linux-source-$SERIES

top=$(cd "$(dirname "$0")/.." && pwd)
self="$top/scripts/newest-kernel.sh"
frag="$top/scripts/newest-kernel.config"
cache=${MEMTRACE_CACHE:-${HOME:-/root}/.cache/memtrace}
srcdir=$cache/sources
jobs=${MEMTRACE_JOBS:-$(nproc)}
verbose=${MEMTRACE_VERBOSE:-0}

log() { echo "newest-kernel: $*" >&2; }
die() { echo "newest-kernel: error: $*" >&2; exit 1; }

# newest_deb: the newest cached .deb of $PKG, or nothing.
newest_deb() {
	local f
	for f in "$srcdir/${PKG}_"*_all.deb; do
		if [ -f "$f" ]; then echo "$f"; fi
	done | sort -V | tail -n 1
}

# --- --fetch: sid's source package, and nothing else from sid ----------------
fetch() {
	local deb
	deb=$(newest_deb)
	if [ -n "$deb" ] && dpkg-deb -f "$deb" Package >/dev/null 2>&1; then
		log "have ${deb##*/}"
		return 0
	fi
	[ "$(id -u)" -eq 0 ] || die "--fetch must run as root (apt-get)"
	# shellcheck source=scripts/apt-mirror.sh
	. "$top/scripts/apt-mirror.sh"
	mkdir -p "$srcdir"
	log "fetching $PKG from sid"
	private_apt_update sid || die "apt-get update of sid's index failed"
	(cd "$srcdir" && private_apt sid apt-get -q download "$PKG") >&2 ||
		die "sid has no $PKG any more? (apt-cache policy with $(private_apt_dir sid)/sources.list): change SERIES in $self"
	deb=$(newest_deb)
	[ -n "$deb" ] || die "apt-get download left no ${PKG}_*_all.deb in $srcdir"
	private_apt_clean sid
	log "fetched ${deb##*/}"
}

case ${1:-} in
--fetch) fetch; exit 0 ;;
--series) echo "$SERIES"; exit 0 ;;
'') ;;
*) die "unknown argument $1 (usage: $0 [--fetch | --series])" ;;
esac

# A parent make passes its command-line variables down through MAKEFLAGS;
# keep them out of the kernel's build.
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEFILES KBUILD_OUTPUT O ARCH \
	CROSS_COMPILE LLVM KCONFIG_CONFIG KBUILD_EXTMOD M
export ARCH=x86_64

# --- preflight: say everything that is missing at once ---------------------
missing=""
deb=$(newest_deb)
[ -n "$deb" ] || missing="$missing $PKG(sid; make deps fetches it)"
for t in gcc make bc bison flex openssl perl tar xz flock sha256sum dpkg-deb; do
	command -v "$t" >/dev/null 2>&1 || missing="$missing $t"
done
[ -r /usr/include/openssl/opensslv.h ] || missing="$missing libssl-dev"
[ -r /usr/include/gelf.h ] || missing="$missing libelf-dev"
[ -z "$missing" ] || die "missing:$missing (run: make deps)"
[ -r "$frag" ] || die "no config fragment $frag"
pkgver=$(dpkg-deb -f "$deb" Version) || die "cannot read $deb"

ccver=$(gcc --version | sed -n 1p)
RECIPE=1
key=$({ cat "$frag"; echo "$PKG $pkgver"; echo "recipe $RECIPE"; echo "$ccver"; } |
	sha256sum | cut -c1-12)
tree="$cache/newest-$key"
stamp="$tree/.memtrace-complete"
buildlog="$tree/.memtrace-build.log"

mkdir -p "$cache"
exec 9>"$cache/newest-kernel.lock"
if ! flock -n 9; then
	log "another build holds $cache/newest-kernel.lock; waiting"
	flock 9
fi

if [ -f "$stamp" ] && [ -f "$tree/arch/x86/boot/bzImage" ]; then
	log "cached: $tree (key $key, $PKG $pkgver)"
	echo "$tree"
	exit 0
fi

t0=$(date +%s)
log "building $PKG $pkgver: key $key, $ccver, -j$jobs"
log "tree: $tree"

kmake() {
	local rc=0
	if [ "$verbose" = 1 ]; then
		make -C "$tree" "$@" >&2 || rc=$?
	else
		make -C "$tree" "$@" >>"$buildlog" 2>&1 || rc=$?
	fi
	if [ "$rc" -ne 0 ]; then
		[ "$verbose" = 1 ] || { log "last lines of $buildlog:"; tail -n 60 "$buildlog" >&2; }
		die "make $* failed (exit $rc)"
	fi
}

# --- 1. extract (atomically: a half-extracted tree is never reused) --------
if [ ! -f "$tree/.memtrace-extracted" ]; then
	rm -rf "$tree" "$tree.partial"
	mkdir -p "$tree.partial"
	log "extracting $PKG from ${deb##*/}"
	dpkg-deb --fsys-tarfile "$deb" | tar -xO "./usr/src/$PKG.tar.xz" |
		tar -xJ -C "$tree.partial" --strip-components=1 ||
		die "cannot extract usr/src/$PKG.tar.xz from $deb"
	touch "$tree.partial/.memtrace-extracted"
	mv "$tree.partial" "$tree"
	log "extracted in $(($(date +%s) - t0)) s"
else
	log "reusing the extracted tree of an interrupted build"
fi
: >"$buildlog"

# --- 2. configure: tinyconfig + fragment, then verify ----------------------
log "configuring: tinyconfig + $(basename "$frag")"
kmake tinyconfig
(cd "$tree" && scripts/kconfig/merge_config.sh -m .config "$frag") >>"$buildlog" 2>&1 ||
	die "merge_config.sh failed (see $buildlog)"
kmake olddefconfig

# Kconfig silently drops a requested value whose dependencies are unmet
# (or whose symbol was renamed in a newer kernel): check every line.
bad=""
while IFS= read -r line || [ -n "$line" ]; do
	case "$line" in
	CONFIG_*=*)
		sym=${line%%=*}
		if ! grep -qxF -- "$line" "$tree/.config"; then
			got=$(grep -E "^$sym=|^# $sym is not set" "$tree/.config" || true)
			bad="$bad
  want: $line   got: ${got:-(absent)}"
		fi
		;;
	"# CONFIG_"*" is not set")
		sym=${line#\# }
		sym=${sym%% *}
		if got=$(grep -E "^$sym=" "$tree/.config"); then
			bad="$bad
  want: $line   got: $got"
		fi
		;;
	esac
done <"$frag"
[ -z "$bad" ] ||
	die "these options of $(basename "$frag") did not survive olddefconfig (unmet dependencies?):$bad"
log "all $(grep -cE '^(CONFIG_|# CONFIG_.* is not set)' "$frag") fragment options verified in .config"

# --- 3. build ----------------------------------------------------------------
# `modules` (no in-tree modules: cheap) writes Module.symvers, which modpost
# needs to resolve an external module's symbols against vmlinux.
log "make -j$jobs bzImage modules_prepare modules (log: $buildlog)"
tb=$(date +%s)
kmake -j"$jobs" bzImage modules_prepare modules
log "compiled in $(($(date +%s) - tb)) s"
for f in arch/x86/boot/bzImage vmlinux Module.symvers scripts/module.lds include/config/kernel.release; do
	[ -e "$tree/$f" ] || die "build finished but $tree/$f is missing"
done

# --- 4. done: stamp, prune older builds ---------------------------------------
touch "$stamp"
keep=""
for d in "$cache"/newest-*; do
	[ -d "$d" ] || continue # not newest-kernel.lock
	if [ "$d" = "$tree" ] || [ ! -f "$d/.memtrace-complete" ]; then
		continue
	fi
	if [ -z "$keep" ] || [ "$d/.memtrace-complete" -nt "$keep/.memtrace-complete" ]; then
		keep=$d
	fi
done
for d in "$cache"/newest-*; do
	[ -d "$d" ] || continue
	if [ "$d" = "$tree" ] || [ "$d" = "$keep" ]; then
		continue
	fi
	log "removing older build $d"
	rm -rf "$d"
done
log "built $(cat "$tree/include/config/kernel.release") in $(($(date +%s) - t0)) s (wall, extraction included)"
echo "$tree"
