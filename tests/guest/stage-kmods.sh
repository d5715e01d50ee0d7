#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Copy kernel modules of an installed Debian kernel, and every module they
# depend on (modules.dep), into a directory, decompressed (.ko.xz, .ko.zst),
# for a guest that has no /lib/modules: run-guest.sh --ko-dir puts them in
# the guest's /memtrace.  A module the kernel has built in is not there,
# which is fine: the guest loads what it finds.
# usage: stage-kmods.sh /lib/modules/KVER OUTDIR MODULE...
set -eu
moddir=$1 out=$2
shift 2
dep=$moddir/modules.dep
[ -r "$dep" ] || { echo "stage-kmods: no $dep" >&2; exit 1; }
mkdir -p "$out"

# path of module NAME (relative to moddir), or nothing
path_of() {
	awk -F: -v n="$1" '{ f = $1; sub(/.*\//, "", f); sub(/\.ko(\.(xz|zst|gz))?$/, "", f)
		gsub(/-/, "_", f); m = n; gsub(/-/, "_", m); if (f == m) { print $1; exit } }' "$dep"
}

stage() {
	rel=$1
	name=${rel##*/}
	base=${name%%.ko*}.ko
	[ -e "$out/$base" ] && return 0
	case $name in
	*.ko.xz) xz -dc "$moddir/$rel" >"$out/$base" ;;
	*.ko.zst) zstd -qdc "$moddir/$rel" >"$out/$base" ;;
	*.ko.gz) gzip -dc "$moddir/$rel" >"$out/$base" ;;
	*) cp "$moddir/$rel" "$out/$base" ;;
	esac
	for d in $(awk -F: -v r="$rel" '$1 == r { print $2 }' "$dep"); do
		stage "$d"
	done
}

for m in "$@"; do
	rel=$(path_of "$m")
	if [ -z "$rel" ]; then
		echo "stage-kmods: $m is not a module of $moddir (built in?)" >&2
		continue
	fi
	stage "$rel"
done
