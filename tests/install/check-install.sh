#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Installing memtrace, checked on the host (no module is loaded here):
#   - make install / make uninstall into a staging root (DESTDIR), per kernel;
#   - DKMS add, build (signed with a MOK key pair) and install, then
#     removal, for all the kernels at once, with all of DKMS's state in a
#     private root (dkms/dkms-install.sh --root): nothing outside it
#     changes, and it is removed at the end.  The DKMS build runs as a
#     user's would, without make check's MEMTRACE_WERROR, and with a
#     warning injected that the module's code trips on purpose (a frame
#     limit below its largest frames): DKMS must print it and install.
# Leaves OUT/modtree/KVER, the module tree make install made, for a guest
# booted with it to modprobe memtrace (tests/e2e/05-modprobe.sh).
# Prints TAP-like lines.
# usage: check-install.sh OUT KVER...
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$1
shift
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
log=$OUT/install.log
: >"$log"

ok() { echo "ok - install: $*"; }
not_ok() {
	echo "not ok - install: $1"
	[ $# -lt 2 ] || printf '%s\n' "$2" | head -n 20 | sed 's/^/#   /'
}
# check DESC CMD...: ok if CMD succeeds; its output goes to the log.
check() {
	local d=$1
	shift
	echo "+ $*" >>"$log"
	if "$@" >>"$log" 2>&1; then
		ok "$d"
	else
		not_ok "$d" "$(tail -n 15 "$log")"
		return 1
	fi
}
check_eq() {
	if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1" "expected: '$2'
got:      '$3'"; fi
}

# What exists of memtrace in the system's own DKMS and source trees.
system_dkms_state() {
	ls -d /usr/src/memtrace-* /var/lib/dkms/memtrace 2>/dev/null
}
dkms_before=$(system_dkms_state)

# ---- make install / make uninstall ---------------------------------------
for kver in "$@"; do
	dest=$OUT/destdir-$kver
	rm -rf "$dest" "$OUT/modtree/$kver"
	check "make install KVER=$kver DESTDIR=..." \
		make -C "$top" install KVER="$kver" DESTDIR="$dest" PREFIX=/usr/local || continue
	files="lib/modules/$kver/updates/memtrace.ko usr/local/bin/memtrace-read
		usr/local/share/man/man8/memtrace-read.8 etc/udev/rules.d/60-memtrace.rules"
	missing=
	for f in $files; do
		[ -f "$dest/$f" ] || missing="$missing $f"
	done
	check_eq "$kver: module, reader, man page and udev rule installed" "" "$missing"
	check_eq "$kver: depmod lists the module (under updates/)" \
		"updates/memtrace.ko:" "$(grep -o '^updates/memtrace.ko:' "$dest/lib/modules/$kver/modules.dep" 2>/dev/null)"
	check_eq "$kver: the installed module is built for $kver" "$kver" \
		"$(modinfo -F vermagic "$dest/lib/modules/$kver/updates/memtrace.ko" 2>/dev/null | cut -d' ' -f1)"
	mkdir -p "$OUT/modtree" && cp -a "$dest/lib/modules/$kver" "$OUT/modtree/$kver"

	check "make uninstall KVER=$kver DESTDIR=..." \
		make -C "$top" uninstall KVER="$kver" DESTDIR="$dest" PREFIX=/usr/local
	left=
	for f in $files; do
		[ -e "$dest/$f" ] && left="$left $f"
	done
	check_eq "$kver: make uninstall removes them" "" "$left"
	check_eq "$kver: ... and depmod forgets the module" "" \
		"$(grep -c memtrace "$dest/lib/modules/$kver/modules.dep" 2>/dev/null | grep -v '^0$')"
	rm -rf "$dest"
done

# ---- DKMS ------------------------------------------------------------------
root=$OUT/dkms-root
rm -rf "$root"
if ! command -v dkms >/dev/null; then
	not_ok "dkms is installed (make deps)"
	exit 0
fi
dkms_in_root() {
	dkms "$@" --sourcetree "$root/src" --dkmstree "$root/dkms" --installtree "$root/modules"
}
# The injected warning: kbuild adds KCFLAGS to every compile, and dkms
# passes its environment on to make.
warn=-Wframe-larger-than=256
if check "dkms-install.sh: add, build, install for $* (no -Werror, $warn injected)" \
	env -u MEMTRACE_WERROR KCFLAGS="$warn" "$top/dkms/dkms-install.sh" --root "$root" "$@"; then
	serial=$(openssl x509 -inform DER -in "$root/mok.pub" -noout -serial 2>/dev/null |
		sed 's/^serial=//; s/../&:/g; s/:$//')
	for kver in "$@"; do
		ko=$(ls "$root/modules/$kver/updates/dkms/memtrace.ko"* 2>/dev/null | head -n 1)
		if [ -z "$ko" ]; then
			not_ok "dkms: $kver: memtrace.ko installed" "$(ls -R "$root/modules" | head)"
			continue
		fi
		check_eq "dkms: $kver: memtrace.ko installed, built for $kver" "$kver" \
			"$(modinfo -F vermagic "$ko" | cut -d' ' -f1)"
		mlog=$(ls "$root"/dkms/memtrace/*/"$kver"/*/log/make.log 2>/dev/null | head -n 1)
		nwarn=$(grep -c 'warning: the frame size of [0-9]* bytes is larger than 256 bytes' "$mlog" 2>/dev/null)
		if [ "${nwarn:-0}" -gt 0 ]; then
			ok "dkms: $kver: the build printed the injected warning ($nwarn times) and went on"
		else
			not_ok "dkms: $kver: the build printed the injected warning ($warn)" \
				"$(tail -n 5 "${mlog:-/dev/null}" 2>&1)"
		fi
		check_eq "dkms: $kver: signed with the MOK key pair (mokutil --import mok.pub)" \
			"DKMS module signing key $serial" \
			"$(modinfo -F signer "$ko") $(modinfo -F sig_key "$ko")"
		check_match=$(dkms_in_root status -m memtrace -k "$kver" 2>/dev/null)
		case $check_match in
		*installed*) ok "dkms: $kver: dkms status says installed" ;;
		*) not_ok "dkms: $kver: dkms status says installed" "$check_match" ;;
		esac
	done
fi
check "dkms-install.sh --remove" "$top/dkms/dkms-install.sh" --root "$root" --remove
check_eq "dkms: nothing of memtrace left in its trees" "" \
	"$(dkms_in_root status -m memtrace 2>/dev/null; find "$root/modules" "$root/src" -name '*memtrace*' 2>/dev/null)"
rm -rf "$root"
check_eq "dkms: the system's DKMS and source trees untouched" "$dkms_before" "$(system_dkms_state)"
