#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build (once, cached) memtrace's debug kernel from Debian's linux-source-6.1:
# tinyconfig + scripts/debug-kernel.config (KUnit built in, KASAN, lockdep,
# kmemleak, SLUB debug, kprobes/uprobes/tracepoints, module signing), for
# KUnit and sanitizer runs of memtrace under qemu.
#
# usage: scripts/debug-kernel.sh
#   Progress goes to stderr. The last line on stdout is the absolute path of
#   the built tree: <tree>/arch/x86/boot/bzImage is the kernel, and an
#   external module builds with `make -C <tree> M=<dir> modules`; sign it
#   with `<tree>/scripts/sign-file sha256 <tree>/certs/signing_key.pem
#   <tree>/certs/signing_key.x509 mod.ko` (the kernel trusts that key).
#
# Booting it (no ACPI, no PCI, serial console):
#   qemu-system-x86_64 -accel tcg -cpu max -smp 2,sockets=2 -m 1024 \
#     -nographic -no-reboot -kernel <tree>/arch/x86/boot/bzImage \
#     -initrd <initramfs> -append 'console=ttyS0 panic=-1'
#   - `sockets=2`: without ACPI the CPUs come from SeaBIOS's MP table,
#     which lists one CPU per package; plain `-smp 2` boots with 1 CPU.
#   - No ACPI means no poweroff: end the guest with `reboot -f` + -no-reboot.
#   - KUnit is built in: loading a kunit_test_suite() module prints KTAP.
#   - `lockdown=confidentiality module.sig_enforce=1` works; lockdown then
#     also refuses debugfs (kmemleak) and tracefs.
#   - SLUB_DEBUG_ON can be switched off at boot with `slub_debug=-`.
#
# Environment:
#   MEMTRACE_CACHE    cache root (default ~/.cache/memtrace); the tree is
#                     $MEMTRACE_CACHE/debug-<key>
#   MEMTRACE_JOBS     make -j (default: nproc)
#   MEMTRACE_VERBOSE  1: stream the kernel build output to stderr (by
#                     default it goes to <tree>/.memtrace-build.log and
#                     its tail is shown on failure)
#
# <key> hashes the fragment, the linux-source-6.1 package version, this
# script and the compiler version: any change rebuilds from scratch in a
# new directory; a completed build (stamp file) is reused as is. When a
# new build completes, older debug-* directories are removed except the
# newest other complete one (at most two trees, ~1.6 GB each).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
self="$top/scripts/debug-kernel.sh"
frag="$top/scripts/debug-kernel.config"
tarball=/usr/src/linux-source-6.1.tar.xz
cache=${MEMTRACE_CACHE:-${HOME:-/root}/.cache/memtrace}
jobs=${MEMTRACE_JOBS:-$(nproc)}
verbose=${MEMTRACE_VERBOSE:-0}

log() { echo "debug-kernel: $*" >&2; }
die() { echo "debug-kernel: error: $*" >&2; exit 1; }

# A parent make (`make debug-kernel FOO=bar`) passes its command-line
# variables down through MAKEFLAGS; keep them out of the kernel's build.
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEFILES KBUILD_OUTPUT O ARCH \
	CROSS_COMPILE LLVM KCONFIG_CONFIG KBUILD_EXTMOD M
export ARCH=x86_64

# --- preflight: say everything that is missing at once ---------------------
missing=""
pkgver=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null) || pkgver=""
[ -n "$pkgver" ] && [ -r "$tarball" ] || missing="$missing linux-source-6.1"
for t in gcc make bc bison flex openssl perl tar xz flock sha256sum; do
	command -v "$t" >/dev/null 2>&1 || missing="$missing $t"
done
[ -r /usr/include/openssl/opensslv.h ] || missing="$missing libssl-dev"
[ -r /usr/include/gelf.h ] || missing="$missing libelf-dev"
[ -z "$missing" ] || die "missing:$missing (run: make deps)"
[ -r "$frag" ] || die "no config fragment $frag"

ccver=$(gcc --version | sed -n 1p)
key=$({ cat "$frag"; echo "linux-source-6.1 $pkgver"; cat "$self"; echo "$ccver"; } |
	sha256sum | cut -c1-12)
tree="$cache/debug-$key"
stamp="$tree/.memtrace-complete"
buildlog="$tree/.memtrace-build.log"

mkdir -p "$cache"
# One build at a time per cache: a second caller waits, then finds the stamp.
exec 9>"$cache/debug-kernel.lock"
if ! flock -n 9; then
	log "another debug-kernel build holds $cache/debug-kernel.lock; waiting"
	flock 9
fi

if [ -f "$stamp" ] && [ -f "$tree/arch/x86/boot/bzImage" ]; then
	log "cached: $tree (key $key, linux-source-6.1 $pkgver)"
	echo "$tree"
	exit 0
fi

t0=$(date +%s)
log "building debug kernel: key $key, linux-source-6.1 $pkgver, $ccver, -j$jobs"
log "tree: $tree"

# Run a kernel make in the tree; output to the build log (or stderr).
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
	log "extracting $tarball"
	tar -xJf "$tarball" -C "$tree.partial" --strip-components=1
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

# Kconfig silently drops a requested value whose dependencies are unmet:
# check every line of the fragment against the final .config.
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
if [ -n "$bad" ]; then
	die "these options of $(basename "$frag") did not survive olddefconfig (unmet dependencies?):$bad"
fi
log "all $(grep -cE '^(CONFIG_|# CONFIG_.* is not set)' "$frag") fragment options verified in .config"

# --- 3. build ----------------------------------------------------------------
# `modules` (there are no in-tree modules, so it is cheap) writes
# Module.symvers; without it modpost cannot resolve an external module's
# symbols against vmlinux.
log "make -j$jobs bzImage modules_prepare modules (log: $buildlog)"
tb=$(date +%s)
kmake -j"$jobs" bzImage modules_prepare modules
log "compiled in $(($(date +%s) - tb)) s"

for f in arch/x86/boot/bzImage vmlinux Module.symvers scripts/sign-file \
	certs/signing_key.pem certs/signing_key.x509 scripts/module.lds; do
	[ -e "$tree/$f" ] || die "build finished but $tree/$f is missing"
done

# --- 4. self-test: an external module using exported symbols and KUnit -------
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/dk_selftest.c" <<'EOF'
// SPDX-License-Identifier: GPL-2.0
#include <linux/module.h>
#include <linux/miscdevice.h>
#include <linux/stacktrace.h>
#include <linux/tracepoint.h>
#include <kunit/test.h>

static void dk_check(struct kunit *test)
{
	unsigned long entries[8];

	KUNIT_EXPECT_GT(test, stack_trace_save(entries, 8, 0), 0U);
	KUNIT_EXPECT_NE(test, (unsigned long)&tracepoint_probe_register, 0UL);
	KUNIT_EXPECT_NE(test, (unsigned long)&misc_register, 0UL);
}

static struct kunit_case dk_cases[] = {
	KUNIT_CASE(dk_check),
	{}
};

static struct kunit_suite dk_suite = {
	.name = "dk_selftest",
	.test_cases = dk_cases,
};
kunit_test_suite(dk_suite);

MODULE_LICENSE("GPL");
EOF
echo 'obj-m := dk_selftest.o' >"$tmp/Kbuild"
if ! make -C "$tree" M="$tmp" modules >"$tmp/build.log" 2>&1 ||
	grep -qE 'WARNING: modpost|ERROR: modpost|undefined!' "$tmp/build.log"; then
	cat "$tmp/build.log" >&2
	die "an external test module does not build cleanly against $tree"
fi
"$tree/scripts/sign-file" sha256 "$tree/certs/signing_key.pem" \
	"$tree/certs/signing_key.x509" "$tmp/dk_selftest.ko" ||
	die "scripts/sign-file cannot sign an external module"
log "self-test: external KUnit module builds and signs against the tree"

# --- 5. done: stamp, prune older builds ---------------------------------------
# Keep this build and the newest other complete one (a guest or a module
# build of another checkout may still be using it, and two checkouts at
# different versions then do not rebuild each other's tree every time);
# remove every other debug-* directory. We hold the lock: nothing else here
# is being built.
touch "$stamp"
keep=""
for d in "$cache"/debug-*; do
	if [ "$d" = "$tree" ] || [ ! -f "$d/.memtrace-complete" ]; then
		continue
	fi
	if [ -z "$keep" ] || [ "$d/.memtrace-complete" -nt "$keep/.memtrace-complete" ]; then
		keep=$d
	fi
done
for d in "$cache"/debug-*; do
	[ -d "$d" ] || continue # not debug-kernel.lock
	if [ "$d" = "$tree" ] || [ "$d" = "$keep" ]; then
		continue
	fi
	log "removing older build $d"
	rm -rf "$d"
done
log "built in $(($(date +%s) - t0)) s (wall, extraction included)"
echo "$tree"
