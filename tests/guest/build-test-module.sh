#!/bin/sh
# Build the test module(s) of tests/kmod against one kernel, like
# scripts/build-module.sh does for memtrace: kbuild writes objects next to
# the sources, so each kernel gets its own copy of tests/kmod in OUTDIR.
# MEMTRACE_TOP (the repository) is passed to kbuild for includes.
# usage: build-test-module.sh KDIR OUTDIR [extra kbuild args]
set -eu
KDIR=$1 OUTDIR=$2
shift 2
top=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$OUTDIR"
OUTDIR=$(cd "$OUTDIR" && pwd)	# kbuild needs an absolute M=
# Copy only what changed so kbuild's own dependency tracking stays valid.
cp -a -u "$top/tests/kmod/." "$OUTDIR/"
# shellcheck disable=SC2046 # -jN or nothing
exec make $("$top/scripts/make-jobs.sh") -C "$KDIR" M="$OUTDIR" MEMTRACE_TOP="$top" W= "$@" modules
