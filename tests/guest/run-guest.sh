#!/bin/bash
# Boot a kernel in a qemu (TCG) guest with a busybox initramfs, run test
# scripts in it, and report TAP-like lines on stdout:
#   ok - LABEL: desc / not ok - LABEL: desc / # comment
# Exit status 0 iff no "not ok".
#
# usage: run-guest.sh --kernel IMAGE --label LABEL [--ko-dir DIR ...]
#          [--bin-dir DIR ...] [--data-dir DIR ...] [--modules-tree DIR]
#          [--host-files LIST ...]
#          --scripts 'GLOB' [--scripts 'GLOB' ...]
#          [--timeout SEC] [--script-timeout SEC] [--append 'cmdline']
#          [--mem MB] [--bzimage] [--sign KTREE] [--timeout-scale N]
#          [--numa N]
#   --data-dir        copy every file of DIR into the guest's /data
#                     (expected results computed on the host)
#   --modules-tree    DIR is a /lib/modules/KVER tree (as make install
#                     leaves it); the guest gets it as its /lib/modules/KVER,
#                     KVER being DIR's name
#   --host-files      copy the host files LIST names into the guest, at the
#                     same paths (real programs, their library trees, tools
#                     such as valgrind); format: see copy_listed below
#   --timeout         whole qemu run (default 600)
#   --script-timeout  per script (default 300); a script may set its own
#                     with a line "# mtt-timeout: SEC"
#   --numa N          N NUMA nodes (qemu -numa, memory split evenly, CPU i
#                     on node i); a kernel without ACPI (the debug kernel)
#                     also needs --append numa=fake=N
#   --timeout-scale   multiply every script timeout by N (slow debug kernels);
#                     scripts see it as $MTT_TIMEOUT_SCALE (lib.sh wait_for
#                     scales its waits by it)
#   --bzimage         boot IMAGE as is (default: if IMAGE has CONFIG_PVH,
#                     boot its uncompressed vmlinux, cached in build/guest-cache)
#   --sign KTREE      sign the guest's copies of the modules with the test key
#                     of kernel tree KTREE (KTREE/scripts/sign-file)
#   RUN_GUEST_KEEP=1  keep the temporary initramfs tree (debugging)
#   RUN_GUEST_QEMU_ARGS='...'  more qemu arguments (debugging a hung guest:
#                     '-gdb unix:/tmp/g.sock,server=on,wait=off', then gdb's
#                     target remote /tmp/g.sock shows each vCPU's stack)
#
# Guest layout: busybox applets, /memtrace/*.ko (every *.ko of each --ko-dir),
# /usr/bin/* (every executable of each --bin-dir, with the shared libraries
# ldd finds), the host paths each --host-files list names (with theirs),
# /data/* (every file of each --data-dir), /tests/<script> (run
# with sh in sorted name order; lib.sh is never run), /tests/lib.sh
# (tests/e2e/lib.sh).
# Logs: build/logs/LABEL-console.log (full serial console), LABEL-qemu.log.
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
here=$top/tests/guest

usage() {
	sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
	exit 2
}

KERNEL='' LABEL='' TIMEOUT=600 SCRIPT_TIMEOUT=300 APPEND='' MEM=${MEM:-1024} BZIMAGE=0 SIGN_TREE='' SCALE=1 NUMA=0
KO_DIRS=() BIN_DIRS=() DATA_DIRS=() GLOBS=() MOD_TREES=() HOST_LISTS=()
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) KERNEL=$2; shift 2 ;;
	--label) LABEL=$2; shift 2 ;;
	--ko-dir) KO_DIRS+=("$2"); shift 2 ;;
	--bin-dir) BIN_DIRS+=("$2"); shift 2 ;;
	--data-dir) DATA_DIRS+=("$2"); shift 2 ;;
	--modules-tree) MOD_TREES+=("$2"); shift 2 ;;
	--host-files) HOST_LISTS+=("$2"); shift 2 ;;
	--scripts) GLOBS+=("$2"); shift 2 ;;
	--timeout) TIMEOUT=$2; shift 2 ;;
	--script-timeout) SCRIPT_TIMEOUT=$2; shift 2 ;;
	--append) APPEND=$2; shift 2 ;;
	--mem) MEM=$2; shift 2 ;;
	--bzimage) BZIMAGE=1; shift ;;
	--sign) SIGN_TREE=$2; shift 2 ;;
	--timeout-scale) SCALE=$2; shift 2 ;;
	--numa) NUMA=$2; shift 2 ;;
	-h|--help) usage ;;
	*) echo "run-guest: unknown argument: $1" >&2; usage ;;
	esac
done
[ -n "$KERNEL" ] && [ -n "$LABEL" ] || usage
case $TIMEOUT$SCRIPT_TIMEOUT$MEM$SCALE$NUMA in *[!0-9]*) echo "run-guest: timeouts, --mem and --numa are integers" >&2; exit 2 ;; esac
# --numa: the guest has 2 CPUs, one per node at most.
[ "$NUMA" -le 2 ] || { echo "run-guest: --numa is at most 2 (the guest's CPUs)" >&2; exit 2; }
NUMA_ARGS=()
for ((n = 0; n < NUMA; n++)); do
	NUMA_ARGS+=(-object "memory-backend-ram,id=mem$n,size=$((MEM / NUMA))M"
		    -numa "node,nodeid=$n,cpus=$n,memdev=mem$n")
done

fail() {
	echo "not ok - $LABEL: $*"
	exit 1
}

[ -r "$KERNEL" ] || fail "guest setup (no kernel image $KERNEL)"
BUSYBOX=$(command -v busybox 2>/dev/null)
[ -n "$BUSYBOX" ] || fail "guest setup (busybox not found: make deps)"
command -v qemu-system-x86_64 >/dev/null || fail "guest setup (qemu-system-x86_64 not found: make deps)"
command -v cpio >/dev/null || fail "guest setup (cpio not found: make deps)"

LOGDIR=$top/build/logs
mkdir -p "$LOGDIR"
safe_label=${LABEL//[^A-Za-z0-9._+-]/_}
CONSOLE_LOG=$LOGDIR/$safe_label-console.log
QEMU_LOG=$LOGDIR/$safe_label-qemu.log

work=$(mktemp -d "${TMPDIR:-/tmp}/memtrace-guest.XXXXXX") || fail "guest setup (mktemp)"
# qemu writes into $work; the logs are moved to build/logs at the end (during
# the run, build/logs/LABEL-console.log is a symlink to the live file), so
# two runs with the same label never parse each other's console.
CONSOLE=$work/console.log
QEMULOG=$work/qemu.log
# shellcheck disable=SC2317 # called from the EXIT trap
save_logs() {
	local f
	for f in console qemu; do
		[ -f "$work/$f.log" ] || continue
		cp "$work/$f.log" "$LOGDIR/.$safe_label-$f.log.$$" &&
			mv -f "$LOGDIR/.$safe_label-$f.log.$$" "$LOGDIR/$safe_label-$f.log"
	done
}
# RUN_GUEST_KEEP=1 keeps the initramfs tree and image (for debugging).
if [ "${RUN_GUEST_KEEP:-0}" = 1 ]; then
	echo "# $LABEL: keeping $work"
	trap 'save_logs' EXIT
else
	trap 'save_logs; rm -rf "$work"' EXIT
fi
trap 'exit 130' INT TERM
root=$work/root
t_start=$(date +%s.%N)

# ---------------------------------------------------------------- initramfs
mkdir -p "$root"/{usr/bin,usr/sbin,usr/lib,usr/lib64,etc,proc,sys,dev,tmp,run,root,memtrace,tests}
ln -s usr/bin "$root/bin"
ln -s usr/sbin "$root/sbin"
ln -s usr/lib "$root/lib"
ln -s usr/lib64 "$root/lib64"
cp "$BUSYBOX" "$root/usr/bin/busybox"
# The other applet links are made by /init (busybox --install -s): faster
# than ~270 ln processes here.
ln -s busybox "$root/usr/bin/sh"
printf 'root:x:0:0:root:/root:/bin/sh\n' >"$root/etc/passwd"
printf 'root:x:0:\n' >"$root/etc/group"

# Copy a host file (following symlinks) to the same path in the guest; the
# guest's /lib, /lib64 are symlinks into /usr as on a merged-/usr host.
copy_host() {
	local p=$1 dst
	case $p in
	/lib/*|/lib64/*|/bin/*|/sbin/*) dst=/usr$p ;;
	*) dst=$p ;;
	esac
	[ -e "$root$dst" ] && return 0
	mkdir -p "$root${dst%/*}"
	cp -L "$p" "$root$dst"
}

nko=0
for d in "${KO_DIRS[@]}"; do
	[ -d "$d" ] || { echo "# $LABEL: --ko-dir $d does not exist"; continue; }
	for f in "$d"/*.ko; do
		[ -f "$f" ] || continue
		cp "$f" "$root/memtrace/"
		if [ -n "$SIGN_TREE" ]; then
			"$SIGN_TREE/scripts/sign-file" sha256 "$SIGN_TREE/certs/signing_key.pem" \
				"$SIGN_TREE/certs/signing_key.x509" "$root/memtrace/${f##*/}" ||
				fail "guest setup (cannot sign ${f##*/} with $SIGN_TREE)"
		fi
		nko=$((nko + 1))
	done
done

declare -A libs=()
add_libs() {
	local a b c
	# ldd: "libx.so => /path (0x...)" and "/lib64/ld-linux-x86-64.so.2 (0x...)";
	# for a program of another libc (musl), "/path/prog: error while ...".
	while read -r a b c _; do
		if [ "$b" = "=>" ] && [ "${c:0:1}" = / ]; then libs[$c]=1
		elif [ "${a:0:1}" = / ] && [ "${b:0:1}" = "(" ]; then libs[$a]=1
		fi
	done < <(ldd "$1" 2>/dev/null)
}
add_libs "$BUSYBOX"	# busybox-static: none
nbin=0
for d in "${BIN_DIRS[@]}"; do
	[ -d "$d" ] || { echo "# $LABEL: --bin-dir $d does not exist"; continue; }
	for f in "$d"/*; do
		[ -f "$f" ] && [ -x "$f" ] || continue
		rm -f "$root/usr/bin/${f##*/}"
		cp -L "$f" "$root/usr/bin/"
		nbin=$((nbin + 1))
		add_libs "$f"
	done
done

# --host-files LIST: one host path or glob a line ('#' starts a comment),
# copied to the same path in the guest (/lib... into /usr/lib...):
#   a file       copied; a symlink is copied as a symlink, and what it
#                points to as well;
#   a directory  copied whole, but for the paths that a "!PATH" line of
#                the same list names (e.g. !/usr/lib/python3.11/test);
#   debug:PATH   the detached debug file of ELF file PATH, by its build-id
#                (/usr/lib/debug/.build-id/xx/yyyy.debug);
# every ELF file among them brings the libraries ldd finds for it.  A
# path that does not exist is an error (make deps installs them).
add_libs_if_elf() {
	[ "$(head -c 4 "$1" 2>/dev/null)" = $'\x7fELF' ] && add_libs "$1"
	return 0
}
nlisted=0
copy_listed() {
	local p=$1 dst link x
	shift
	case $p in /lib/*|/lib64/*|/bin/*|/sbin/*) dst=/usr$p ;; *) dst=$p ;; esac
	{ [ -e "$root$dst" ] || [ -L "$root$dst" ]; } && return 0
	mkdir -p "$root${dst%/*}"
	if [ -L "$p" ]; then
		link=$(readlink "$p")
		ln -s "$link" "$root$dst"
		case $link in /*) ;; *) link=${p%/*}/$link ;; esac
		copy_listed "$link" "$@"
	elif [ -d "$p" ]; then
		local excl=()
		for x in "$@"; do
			case $x in "$p"/*) excl+=(--exclude="./${x#"$p"/}") ;; esac
		done
		mkdir -p "$root$dst"
		(cd "$p" && tar --anchored "${excl[@]}" -cf - .) | tar -C "$root$dst" -xf - ||
			return 1
		while IFS= read -r -d '' x; do
			add_libs_if_elf "$x"
		done < <(find "$root$dst" -type f \( -name '*.so*' -o -perm -u+x \) -print0)
	elif [ -f "$p" ]; then
		cp -p "$p" "$root$dst" || return 1
		add_libs_if_elf "$p"
	else
		return 1
	fi
	nlisted=$((nlisted + 1))
}
for list in "${HOST_LISTS[@]}"; do
	[ -r "$list" ] || fail "guest setup (no host file list $list)"
	excludes=() paths=()
	while read -r line; do
		line=${line%%#*}
		line=${line%"${line##*[![:space:]]}"}
		case $line in
		'') ;;
		!*) excludes+=("${line#!}") ;;
		debug:*)
			id=$(LC_ALL=C readelf -n "${line#debug:}" 2>/dev/null |
				sed -n 's/^[[:space:]]*Build ID: \([0-9a-f]\{3,\}\)$/\1/p' | head -n 1)
			[ -n "$id" ] || fail "guest setup (${line#debug:}, listed in $list, has no build-id)"
			paths+=("/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug")
			;;
		*) paths+=("$line") ;;
		esac
	done <"$list"
	for pat in "${paths[@]}"; do
		matched=0
		# shellcheck disable=SC2086 # a glob, meant to expand
		for p in $pat; do
			{ [ -e "$p" ] || [ -L "$p" ]; } || continue
			matched=1
			copy_listed "$p" "${excludes[@]}" ||
				fail "guest setup (cannot copy $p, listed in $list)"
		done
		[ "$matched" = 1 ] ||
			fail "guest setup ($pat, listed in $list, is not on this host: make deps)"
	done
done
for l in "${!libs[@]}"; do
	copy_host "$l" || fail "guest setup (cannot copy $l)"
done
ndata=0
for d in "${DATA_DIRS[@]}"; do
	[ -d "$d" ] || { echo "# $LABEL: --data-dir $d does not exist"; continue; }
	mkdir -p "$root/data"
	for f in "$d"/*; do
		[ -f "$f" ] || continue
		cp -L "$f" "$root/data/" || fail "guest setup (cannot copy $f)"
		ndata=$((ndata + 1))
	done
done

for d in "${MOD_TREES[@]}"; do
	[ -d "$d" ] || { echo "# $LABEL: --modules-tree $d does not exist"; continue; }
	mkdir -p "$root/usr/lib/modules"
	cp -a "$d" "$root/usr/lib/modules/$(basename "$d")" ||
		fail "guest setup (cannot copy $d)"
done

scripts=()
for g in "${GLOBS[@]}"; do
	# shellcheck disable=SC2206 # the glob is meant to expand
	for f in $g; do
		[ -f "$f" ] || continue
		n=${f##*/}
		[ "$n" = lib.sh ] && continue
		[ -e "$root/tests/$n" ] && fail "guest setup (two test scripts named $n)"
		cp "$f" "$root/tests/$n"
		scripts+=("$n")
	done
done
[ "${#scripts[@]}" -gt 0 ] || fail "guest setup (no test script matches ${GLOBS[*]:-(no --scripts)})"
cp "$top/tests/e2e/lib.sh" "$root/tests/lib.sh" 2>/dev/null ||
	echo "# $LABEL: tests/e2e/lib.sh missing"
sorted=$(printf '%s\n' "${scripts[@]}" | LC_ALL=C sort | tr '\n' ' ')
{
	printf 'MTT_LABEL=%q\n' "$LABEL"
	printf 'MTT_SCRIPTS=%q\n' "$sorted"
	printf 'MTT_TIMEOUT=%s\n' "$SCRIPT_TIMEOUT"
	printf 'MTT_TIMEOUT_SCALE=%s\n' "$SCALE"
} >"$root/etc/mtt.conf"
cp "$here/init.sh" "$root/init"
cp "$here/stuck.sh" "$root/stuck.sh"
chmod 0755 "$root/init"

(cd "$root" && find . -print0 | LC_ALL=C sort -z |
	cpio --null -o -H newc -R 0:0 --quiet) >"$work/initrd" ||
	fail "guest setup (cpio)"
t_initrd=$(date +%s.%N)
echo "# $LABEL: initramfs $(du -k "$work/initrd" | cut -f1) KiB: ${#scripts[@]} scripts, $nko modules, $nbin programs, $nlisted listed host paths, ${#libs[@]} libraries, $ndata data files"

# ------------------------------------------------------------------ kernel
# Booting a compressed bzImage under TCG spends 5-7 s in the decompressor.
# A kernel with CONFIG_PVH boots directly from its uncompressed ELF vmlinux
# (qemu's PVH entry), so extract it once and cache it under build/.
# --bzimage skips this.  (PVH boot also means no KASLR.)
pvh_vmlinux() {
	local img=$1 cache name key out tmp dec magic off old
	head -c 4 "$img" | grep -q 'ELF' && { pvh_ok "$img" && echo "$img"; return; }
	cache=$top/build/guest-cache
	# name: image file name + hash of its path; key: size + mtime
	name=${img##*/}-$(readlink -f "$img" | md5sum | cut -c1-8)
	key=$(stat -L -c '%s-%Y' "$img") || return 1
	out=$cache/vmlinux-$name-$key
	[ -s "$out" ] && { echo "$out"; return 0; }
	[ -e "$out.nopvh" ] && return 1
	mkdir -p "$cache"
	# What was extracted from an older build of the same image is stale;
	# not this key's, nor a file being made, by a run beside this one.
	for old in "$cache/vmlinux-$name-"*[0-9] "$cache/vmlinux-$name-"*.nopvh; do
		case $old in "$out" | "$out.nopvh" | *.tmp*) ;; *) rm -f "$old" ;; esac
	done
	tmp=$out.tmp$$
	for dec in 'xz -dc:\xfd7zXZ\x00' 'zstd -dc:\x28\xb5\x2f\xfd' 'gzip -dc:\x1f\x8b\x08' 'lz4 -dc:\x02\x21\x4c\x18'; do
		magic=${dec#*:} dec=${dec%%:*}
		command -v "${dec%% *}" >/dev/null || continue
		for off in $(LC_ALL=C grep -obUaP "$magic" "$img" 2>/dev/null | cut -d: -f1 | head -n 5); do
			tail -c +$((off + 1)) "$img" | $dec >"$tmp" 2>/dev/null
			if head -c 4 "$tmp" | grep -q 'ELF' && pvh_ok "$tmp"; then
				mv "$tmp" "$out"
				echo "$out"
				return 0
			fi
		done
	done
	rm -f "$tmp"
	: >"$out.nopvh"
	return 1
}
pvh_ok() {
	LC_ALL=C readelf -n "$1" 2>/dev/null | grep -Eq 'Xen[[:space:]].*\(0x00000012\)'
}
BOOT=$KERNEL
if [ "$BZIMAGE" = 0 ] && v=$(pvh_vmlinux "$KERNEL"); then
	BOOT=$v
	echo "# $LABEL: PVH boot of ${v#"$top"/}"
fi

# --------------------------------------------------------------------- qemu
# loglevel=6: the console shows every message of level notice or worse
# (WARN(), lockdep, KASAN, BUG, and the guest's MTT records, level 5).
# printk.devkmsg=on: no rate limit on the guest's /dev/kmsg writes.
# watchdog_thresh=60: a soft lockup is reported after 120 s, not 20.  The
# guest's clock is the host's, and a TCG vCPU on a loaded two-core host
# can miss 20 s of it: make check once saw "soft lockup - CPU#0 stuck for
# 22s" inside clear_page() of a vmalloc that reschedules every 100 pages.
# A lockup that is real (a hook spinning) lasts, and is still reported.
# rcupdate.rcu_cpu_stall_timeout=120: RCU's stall warning likewise, after
# 120 s, not 21: with a busy process beside them on each host core
# (CHECK_LOAD=2), a guest reported "rcu_preempt self-detected stall" in
# khugepaged's clear_page() of a huge page, 21 s of the host's clock in
# which its vCPU thread ran little.
cmdline="console=ttyS0,115200 panic=-1 printk.time=1 printk.devkmsg=on loglevel=6 watchdog_thresh=60 rcupdate.rcu_cpu_stall_timeout=120 rdinit=/init${APPEND:+ $APPEND}"
: >"$CONSOLE"
ln -sfn "$CONSOLE" "$CONSOLE_LOG"
# thread=single: both vCPUs run on one host thread.  With multi-threaded
# TCG, a 6.12 guest took "Oops: int3" in __kmalloc_noprof while memtrace
# registered its tracepoints: the byte before RIP already read as the
# patched jump, i.e. one vCPU ran a stale translation of code that
# text_poke_bp() was patching on the other.  The guest still has two CPUs
# and real SMP interleavings, just not host-parallel ones.
# sockets=2: a kernel without ACPI (the debug kernel) finds its CPUs in
# SeaBIOS's MP table, which lists one CPU per socket.
timeout -k 10 "$TIMEOUT" qemu-system-x86_64 \
	-accel tcg,thread=single -cpu max -smp 2,sockets=2 -m "$MEM" \
	-nodefaults -no-user-config -display none -no-reboot \
	-serial "file:$CONSOLE" \
	-kernel "$BOOT" -initrd "$work/initrd" -append "$cmdline" \
	"${NUMA_ARGS[@]}" ${RUN_GUEST_QEMU_ARGS:-} </dev/null >"$QEMULOG" 2>&1
qrc=$?
t_end=$(date +%s.%N)

# ------------------------------------------------------------------ results
# The console without CRs and printk timestamps ("[    1.234567] ").
con=$work/console
tr -d '\r' <"$CONSOLE" | sed -E 's/^(\[[ 0-9.]+\] ?)+//' >"$con"

out=$work/out
awk -v label="$LABEL" '
function tail_comments(   i, s) {
	s = (nbuf > 20) ? nbuf - 20 : 0
	for (i = s; i < nbuf; i++) print "#   " buf[i % 20]
}
/^MTT!BEGIN / { cur = $2; nbuf = 0; next }
/^MTT!END / {
	name = $2; rc = $3; secs = $4; to = $5
	if (to == 1) { print "not ok - " label ": " name " timed out after " secs " s"; tail_comments() }
	else if (rc != 0) { print "not ok - " label ": " name " exited " rc; tail_comments() }
	cur = ""; next
}
/^MTT!CLEANUP / { print "# " label ": " $2 " left module " $3 " loaded (" ($4 == "unloaded" ? "unloaded it" : "rmmod failed") ")"; next }
/^MTT!KMEMLEAK-SINCE / { since = $2 + 0; next }
/^MTT!KMEMLEAK-BEGIN/ { kml = 1; next }
/^MTT!KMEMLEAK-END/ { kml_done = 1; next }
/^MTT!KMEMLEAK-DISABLED/ { print "ok - " label ": no kmemleak reports # SKIP kmemleak disabled at run time"; next }
/^MTT!KMEMLEAK / {
	# one report: "unreferenced object ..." then "comm ..., pid N, jiffies J"
	l = substr($0, 14)
	if (l ~ /unreferenced object/) { obj = l; keep = -1; next }
	if (keep == -1) {
		# Objects from boot do not count: allocated in process
		# context of an idle task ("swapper/N": only start_kernel and CPU
		# bring-up) or before the baseline (when the kernel says jiffies).
		keep = 1
		if (l ~ /comm "swapper\//) keep = 0
		if (since > 0 && match(l, /jiffies [0-9]+/) && substr(l, RSTART + 8, RLENGTH - 8) + 0 < since) keep = 0
		if (keep) { nleak++; if (nk < 80) kbuf[nk++] = obj }
		else nold++
	}
	if (keep && nk < 80) kbuf[nk++] = l
	next
}
/^MTT!DONE/ { done = 1; next }
/^MTT:/ {
	l = substr($0, 5)
	if (l ~ /^(not )?ok([ \t]|$)/) {
		res = (l ~ /^not /) ? "not ok" : "ok"
		sub(/^(not )?ok[ \t]*([0-9]+)?[ \t]*(-[ \t]*)?/, "", l)
		if (l == "") l = "(no description)"
		print res " - " label ": " l
	} else if (l ~ /^#/) {
		print l
	}
	buf[nbuf % 20] = l; nbuf++
	next
}
END {
	if (cur != "") print "# " label ": guest stopped while running " cur
	if (kml_done) {
		if (nold) print "# " label ": kmemleak: ignored " nold " objects allocated during boot"
		if (nleak == 0) print "ok - " label ": no kmemleak reports"
		else {
			print "not ok - " label ": no kmemleak reports (" nleak " unreferenced objects)"
			for (i = 0; i < nk; i++) print "#   " kbuf[i]
		}
	}
	if (done) print "MTT-DONE"
}' "$con" >"$out"

done_seen=0
grep -qx MTT-DONE "$out" && done_seen=1
grep -vx MTT-DONE "$out"

if [ "$done_seen" = 1 ]; then
	echo "ok - $LABEL: guest finished"
else
	if [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then reason="timed out after $TIMEOUT s"
	elif l=$(grep -m1 'Kernel panic' "$con"); then reason=$l
	elif ! grep -q '^MTT!START' "$con"; then reason="init never started, qemu exit $qrc"
	else reason="qemu exited $qrc before DONE"
	fi
	echo "not ok - $LABEL: guest finished ($reason)"
	echo "# last 40 console lines (${CONSOLE_LOG#"$top"/}):"
	tr -d '\r' <"$CONSOLE" | tail -n 40 | sed 's/^/# /'
	if [ "$qrc" != 0 ] && [ "$qrc" != 124 ] && [ -s "$QEMULOG" ]; then
		echo "# qemu log (${QEMU_LOG#"$top"/}):"
		tail -n 10 "$QEMULOG" | sed 's/^/# /'
	fi
fi

# Kernel splats anywhere on the console; lines starting with MTT are the
# guest's results, not kernel messages.  The stack the OOM killer's own
# report dumps (its "invoked oom-killer" line, then the task's stack: an
# OOM a test provokes, tests/e2e/50-oom.sh) is not a splat.
splat_re='WARNING:|BUG:|KASAN:|UBSAN:|Oops|general protection fault|Kernel panic|possible circular locking|possible recursive locking|inconsistent lock state|INFO: lockdep|sleeping function called from invalid context|unreferenced object|Call Trace:'
n=$(grep -n -v '^MTT' "$con" | awk -v re="$splat_re" '
	/invoked oom-killer:/ { oom = NR }
	$0 ~ re {
		if ($0 ~ /Call Trace:/ && oom && NR - oom <= 8) next
		sub(/:.*/, ""); print; exit
	}')
if [ -n "$n" ]; then
	echo "not ok - $LABEL: no kernel splat ($(sed -n "${n}p" "$con"))"
	s=$((n > 5 ? n - 5 : 1))
	tr -d '\r' <"$CONSOLE" | sed -n "${s},$((s + 29))p" | sed 's/^/# /'
else
	echo "ok - $LABEL: no kernel splat"
fi

# Guest clock (printk time) of the markers: boot, kmemleak baseline, tests.
gclock() { tr -d '\r' <"$CONSOLE" | sed -n "s/^\[ *\([0-9.]*\)\] $1.*/\1/p" | head -n1; }
awk -v a="$t_start" -v b="$t_initrd" -v c="$t_end" -v l="$LABEL" \
	-v i="$(gclock 'MTT!INIT')" -v s="$(gclock 'MTT!START')" -v d="$(gclock 'MTT!DONE')" '
	BEGIN {
		printf "# %s: initramfs %.1f s, qemu boot+run %.1f s", l, b - a, c - b
		if (i != "") printf "; guest clock: /init at %.1f s", i
		if (i != "" && s != "" && s - i > 0.5) printf ", kmemleak baseline %.1f s", s - i
		if (s != "" && d != "") printf ", tests done %.1f s later", d - s
		printf "\n"
	}'

grep -q '^not ok' "$out" && exit 1
[ "$done_seen" = 1 ] && [ -z "$n" ] || exit 1
exit 0
