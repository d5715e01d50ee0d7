#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Debian 11's (bullseye's) 5.10 LTS kernel, the oldest memtrace is tested
# on: its image (unsigned: no shim here), headers and kbuild, downloaded
# from the bullseye suite of the machine's own Debian mirror and
# extracted into memtrace's cache.  Nothing is installed on the host and
# the system's apt sources are not touched (a private apt state:
# scripts/apt-mirror.sh).  The 5.10 guest of `make check` boots it
# (tests/check.sh).
#
# usage: scripts/bullseye-kernel.sh [--fetch | --kver]
#   (no option)  extract the cached .debs (once; cached).  The last line on
#                stdout is the absolute path of the root they were
#                extracted into: ROOT/boot/vmlinuz-KVER is the kernel,
#                ROOT/lib/modules/KVER its modules, ROOT/usr/src/linux-headers-KVER
#                the build directory (`make -C ... M=DIR CC=gcc modules`:
#                its configuration names gcc-10, which bookworm lacks;
#                bookworm's gcc-12 builds it).
#   --fetch      (root; scripts/deps.sh runs it) download the newest ABI's
#                linux-image-ABI-amd64-unsigned, linux-headers-ABI-amd64,
#                linux-headers-ABI-common and linux-kbuild-5.10 into the
#                cache.  Idempotent: cached .debs are kept.
#   --kver       print the cached kernel's release (5.10.0-NN-amd64)
#
# Environment: MEMTRACE_CACHE (default ~/.cache/memtrace): the .debs in
# $MEMTRACE_CACHE/sources/, the tree in $MEMTRACE_CACHE/bullseye-KVER-<key>
# (<key> hashes the four .debs' names and RECIPE).
set -euo pipefail

SERIES=5.10
SUITE=bullseye
top=$(cd "$(dirname "$0")/.." && pwd)
cache=${MEMTRACE_CACHE:-${HOME:-/root}/.cache/memtrace}
srcdir=$cache/sources

log() { echo "bullseye-kernel: $*" >&2; }
die() { echo "bullseye-kernel: error: $*" >&2; exit 1; }

# The ABI (5.10.0-NN) of the newest cached image .deb, or nothing.
cached_abi() {
	local f
	for f in "$srcdir"/linux-image-"$SERIES".*-amd64-unsigned_*_amd64.deb; do
		[ -f "$f" ] || continue
		f=${f##*/linux-image-}
		echo "${f%%-amd64-unsigned_*}"
	done | sort -V | tail -n 1
}

# debs ABI: the four .debs of ABI in the cache, one a line; non-zero if
# one is missing.
debs() {
	local p f found rc=0
	for p in "linux-image-$1-amd64-unsigned_*_amd64" "linux-headers-$1-amd64_*_amd64" \
		 "linux-headers-$1-common_*_all" "linux-kbuild-${SERIES}_*_amd64"; do
		found=
		for f in "$srcdir"/$p.deb; do
			[ -f "$f" ] && found=$f
		done
		[ -n "$found" ] || { rc=1; continue; }
		echo "$found"
	done
	return "$rc"
}

fetch() {
	local abi pkgs
	abi=$(cached_abi)
	if [ -n "$abi" ] && debs "$abi" >/dev/null; then
		log "have $SUITE's $abi"
		return 0
	fi
	[ "$(id -u)" -eq 0 ] || die "--fetch must run as root (apt-get)"
	# shellcheck source=scripts/apt-mirror.sh
	. "$top/scripts/apt-mirror.sh"
	mkdir -p "$srcdir"
	private_apt_update "$SUITE" || die "apt-get update of $SUITE's index failed"
	# The newest ABI the suite has headers for.
	abi=$(private_apt "$SUITE" apt-cache pkgnames "linux-headers-$SERIES." |
		sed -n "s/^linux-headers-\($SERIES\.[0-9]*-[0-9]*\)-amd64\$/\1/p" | sort -V | tail -n 1)
	[ -n "$abi" ] || die "$SUITE has no linux-headers-$SERIES.*-amd64"
	pkgs="linux-image-$abi-amd64-unsigned linux-headers-$abi-amd64 linux-headers-$abi-common linux-kbuild-$SERIES"
	log "fetching $pkgs"
	# shellcheck disable=SC2086 # one word a package
	(cd "$srcdir" && private_apt "$SUITE" apt-get -q download $pkgs) >&2 ||
		die "apt-get download from $SUITE failed"
	private_apt_clean "$SUITE"
	debs "$abi" >/dev/null || die "apt-get download left no .deb of one of: $pkgs"
	log "fetched $SUITE's $abi"
}

case ${1:-} in
--fetch) fetch; exit 0 ;;
--kver | '') ;;
*) die "unknown argument $1 (usage: $0 [--fetch | --kver])" ;;
esac

abi=$(cached_abi)
if [ -z "$abi" ] || ! list=$(debs "$abi"); then
	die "no $SUITE $SERIES kernel in $srcdir (make deps fetches it)"
fi
kver=$abi-amd64
if [ "${1:-}" = --kver ]; then
	echo "$kver"
	exit 0
fi

# What the tree is made of; RECIPE names how (bump it when the steps
# below change).
RECIPE=1
key=$({ printf '%s\n' "$list" | sed 's,.*/,,'; echo "recipe $RECIPE"; } | sha256sum | cut -c1-12)
root=$cache/$SUITE-$kver-$key
stamp=$root/.memtrace-complete
if [ -f "$stamp" ]; then
	log "cached: $root"
	echo "$root"
	exit 0
fi

mkdir -p "$cache"
exec 9>"$cache/$SUITE-kernel.lock"
flock 9
if [ -f "$stamp" ]; then
	log "cached: $root (made meanwhile)"
	echo "$root"
	exit 0
fi
rm -rf "$root" "$root.partial"
mkdir -p "$root.partial"
while IFS= read -r deb; do
	log "extracting ${deb##*/}"
	dpkg-deb -x "$deb" "$root.partial" || die "cannot extract $deb"
done <<<"$list"

# The headers include the common headers' Makefile by its installed,
# absolute path: point it at the extracted copy.
hdr=$root.partial/usr/src/linux-headers-$kver
[ -f "$hdr/Makefile" ] || die "no usr/src/linux-headers-$kver/Makefile in the headers .deb"
grep -q "^include /usr/src/linux-headers-$abi-common/Makefile" "$hdr/Makefile" ||
	die "$hdr/Makefile does not include /usr/src/linux-headers-$abi-common/Makefile: its layout changed"
sed -i "s|^include /usr/src/linux-headers-$abi-common/Makefile|include $root/usr/src/linux-headers-$abi-common/Makefile|" \
	"$hdr/Makefile"
# Its relative links (scripts, tools: into linux-kbuild) resolve in the
# extracted tree; an absolute one would be the host's.
while IFS= read -r l; do
	case $(readlink "$l") in
	/*) die "absolute link ${l#"$root.partial"} -> $(readlink "$l"): not in the extracted tree" ;;
	esac
done < <(find "$hdr" "$root.partial/usr/src/linux-headers-$abi-common" -maxdepth 1 -type l)
# The image ships no modules.dep (its postinst runs depmod): the guest's
# module staging (tests/guest/stage-kmods.sh) reads it.
depmod -b "$root.partial" "$kver" || die "depmod -b $root.partial $kver failed"
for f in "boot/vmlinuz-$kver" "lib/modules/$kver/modules.dep" \
	 "usr/src/linux-headers-$kver/scripts/basic/fixdep" \
	 "usr/src/linux-headers-$kver/Module.symvers"; do
	[ -e "$root.partial/$f" ] || die "extracted, but $f is missing"
done
touch "$root.partial/.memtrace-complete"
mv "$root.partial" "$root"
# Older extractions (an older ABI, an older RECIPE) go.
for d in "$cache/$SUITE"-*; do
	[ -d "$d" ] || continue
	case $d in "$root" | *-apt) continue ;; esac
	log "removing $d"
	rm -rf "$d"
done
log "extracted $kver in $root"
echo "$root"
