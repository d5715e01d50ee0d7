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
# One job per CPU (make check builds for seven kernels, one after
# another), unless a parent make already runs jobs of its own.
case " ${MAKEFLAGS:-} " in
*" -j"* | *jobserver*) jobs= ;;
*) jobs=-j$(nproc) ;;
esac
# shellcheck disable=SC2086 # -jN or nothing
exec make $jobs -C "$KDIR" M="$OUTDIR" W= "$@" modules
