#!/bin/sh
# Build memtrace.ko (and, where the kernel has KUnit, memtrace_kunit.ko)
# against one kernel.  Out-of-tree kbuild writes its objects next to the
# sources, so each kernel gets its own copy of the kernel sources in OUTDIR:
# builds for several kernels never share object files.
# usage: build-module.sh KDIR OUTDIR [extra kbuild args]
set -eu
KDIR=$1 OUTDIR=$2
shift 2
top=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$OUTDIR"
# Copy only what changed so kbuild's own dependency tracking stays valid.
for f in Kbuild kmod include; do
	cp -a -u "$top/$f" "$OUTDIR/"
done
# shellcheck disable=SC2046 # -jN or nothing
exec make $("$top/scripts/make-jobs.sh") -C "$KDIR" M="$OUTDIR" W= "$@" modules
