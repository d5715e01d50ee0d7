#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check: every memtrace test.  Prints TAP-like "ok - ..." / "not ok - ..."
# lines, each stage's wall time, and ends with exactly one line
#   N passed, N failed, N skipped
# Exit status non-zero if anything failed.  A failed stage is recorded and
# the run goes on with whatever does not depend on it.
#
# Stages:
#   unit    make -C userspace test (host unit tests); scripts/include-cycles.py:
#           no cycle in the include graph within each of INCLUDE_ACYCLIC
#   build   memtrace-read; memtrace.ko + tests/kmod for the newest Debian
#           6.1, 6.12 and 6.12 PREEMPT_RT kernels (and memtrace.ko for 6.1
#           sparse-clean and with -Wframe-larger-than=1024, warnings
#           errors); tests/progs; when a 7.2
#           guest is to run, scripts/newest-kernel.sh (mainline 7.2 with
#           PREEMPT_RT and lockdep, cached) and memtrace + tests/kmod for it
#           scripts/minimal-kernel.sh (7.2 without MEMCG, COMPACTION,
#           MIGRATION, NUMA, KPROBES, UPROBES; cached) and memtrace for it;
#           Debian 11's 5.10 (scripts/bullseye-kernel.sh: the .debs make
#           deps fetched, extracted once, cached) and memtrace + tests/kmod
#           for it (CC=gcc: its headers name gcc-10)
#   install make install/uninstall and DKMS for those kernels, on the host
#           (tests/install/check-install.sh; nothing is loaded here); the
#           DKMS build with a warning injected, which it must print and
#           install anyway (-Werror, MEMTRACE_WERROR=1, is make check's
#           own, never DKMS's or make install's)
#   debug   scripts/debug-kernel.sh (KUnit/KASAN/lockdep/kmemleak kernel,
#           cached) and memtrace (+ KUnit module, tests/kmod) for it
#   guest   tests/e2e/*.sh in qemu guests, each script where it tests
#           something the others do not (the lists below the header;
#           CHECK_FULL=1: every script on the debug kernel, 6.1 and 6.12):
#           the debug kernel every script but the user-space oracles'
#           (USER_ORACLE_SCRIPTS) and the output formats (FORMAT_SCRIPTS);
#           6.1 (booted with the module tree make install made) every
#           script but the fuzzer and the load/unload rounds
#           (STRESS_SCRIPTS); 6.12 every script but those three lists.
#           The debug kernel's run is split in two guests, debug (kernel
#           and pressure scripts) and debug-user (the user-mode ones,
#           4?-user-*.sh and 61-usdt.sh, 54-migration.sh: it boots with
#           two NUMA nodes, and DEBUG_USER_TOO), so that two lanes of
#           guests finish together; tests/lockdown/*.sh in the guest
#           labelled lockdown: the debug kernel booted with
#           lockdown=confidentiality module.sig_enforce=1, a short run of
#           its own (lockdown refuses debugfs, so it has no kmemleak
#           check).  Two guests run at a time (two lanes, each one after
#           another); their output is shown in order when all are done
#           (build/logs/guest-LABEL.out).
#           6.1-numa, 6.12-numa: those kernels with two NUMA nodes (1 GiB
#           each), running only what needs them (54-migration.sh).
#           6.12-rt (Debian's PREEMPT_RT kernel), 7.2 (the newest
#           kernel, PREEMPT_RT with lockdep) and 5.10 (Debian 11's LTS
#           kernel, the oldest; not a default yet: docs/kernels.md says
#           what fails there): the core subset CORE_SCRIPTS
#           (load, KUnit, kernel and user leak reports, bad input, a
#           soak).  The soak is 30 s (SOAK; 120 with CHECK_FULL).
#           minimal (not a default): the kernel of
#           scripts/minimal-kernel.sh --boot, without MEMCG, COMPACTION,
#           MIGRATION, NUMA, KPROBES, UPROBES: 20-kernel-leaks.sh and
#           30-reader-errors.sh (modes refused naming the option).
#           The summary names each guest's kernel (uname -r).
#   fuzz    not by default (make fuzz): tests/e2e/80-fuzz.sh alone on the
#           debug kernel for FUZZ_SECONDS (default 900)
#
# Environment:
#   CHECK_STAGES   stages to run (default "unit build install debug guest")
#   CHECK_GUESTS   guests to run (default "6.1 6.12 debug debug-user lockdown
#                  6.1-numa 6.12-numa 6.12-rt 7.2"; debug-numa, not a
#                  default, runs 54-migration.sh alone on the debug kernel;
#                  5.10, not a default yet, the core subset on Debian 11's
#                  kernel)
#   CHECK_FULL     1: every script on the debug kernel, 6.1 and 6.12, the
#                  soak 120 s there (about twice make check's time)
#   CHECK_SCRIPTS  only these tests/e2e scripts (names, e.g. "20-kernel-leaks.sh
#                  60-soak.sh"), in each guest that runs them anyway and,
#                  for a script the lists below leave to another guest, in
#                  the guests that would run it with CHECK_FULL=1 too
#   CHECK_LOAD     N: keep N busy processes (CPU hogs at the guests' own
#                  priority) running beside the guests, for a run under
#                  load on purpose: a check that depends on the host's
#                  speed fails there first (default 0)
# Logs: build/logs/ (check.tap has every result line).
set -u
export LC_ALL=C

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
B=$top/build
LOGS=$B/logs
mkdir -p "$LOGS"
TAP=$LOGS/check.tap
: >"$TAP"
# Each failure with the comments after it (its evidence), kept for the
# summary: CI shows only the tail of the output, where the guests' own
# lines are long gone.
FAILED_DETAIL=$LOGS/check-failed.txt
: >"$FAILED_DETAIL"
FAILED_DETAIL_LINES=20
STAGES=${CHECK_STAGES:-unit build install debug guest}
# 7.2 is built once (scripts/newest-kernel.sh, about 35 minutes on a busy
# 2-core machine) and cached in ~/.cache/memtrace by its config's hash,
# like the debug kernel.
GUESTS=${CHECK_GUESTS:-6.1 6.12 debug debug-user lockdown 6.1-numa 6.12-numa 6.12-rt 7.2}
# Which script runs where.  make check has one budget (CI: well under 45
# minutes on two shared cores, every guest a single-threaded TCG qemu)
# and the debug kernel (KASAN, lockdep, kmemleak, SLUB debugging) runs a
# script 3-10 times slower than Debian's kernels, so each script runs
# where it tests something the others do not, and CHECK_FULL=1 runs
# every script on the debug kernel, 6.1 and 6.12 (about twice as long).
#
# The soak (60-soak.sh) is 30 s (120 with CHECK_FULL): what it checks
# does not depend on its length, which only costs the budget.
SOAK=30
# The guests that run the core subset, not every script: what a kernel
# most likely breaks (build and load, KUnit, kernel and user leak
# reports against their oracles, bad input, pressure rings, a soak).
CORE_SCRIPTS="00-kunit.sh 10-ioctl-errors.sh 20-kernel-leaks.sh 22-kernel-paths.sh
	23-kernel-truth.sh 30-reader-errors.sh 40-user-leaks.sh 41-user-errors.sh
	50-oom.sh 59-faults.sh 60-soak.sh"
# Scripts whose oracle is a program's own (Valgrind Memcheck on eight real
# programs, the command-line runs, redis's INFO memory, Memcheck under
# jemalloc, tcmalloc, mimalloc): user space, 3-4 minutes each on the
# debug kernel for what uprobes 40, 41 and 44-47 already drive there.
# 6.1 runs them (CHECK_FULL: the debug kernel and 6.12 too).
USER_ORACLE_SCRIPTS="42-user-real.sh 43-user-commands.sh 48-user-redis.sh 49-user-allocators.sh"
# The output formats (JSON, folded, Prometheus, pprof, SVG against their
# consumers), which the reader writes from records every kernel makes the
# same way: 6.1 (CHECK_FULL: the debug kernel and 6.12 too).
FORMAT_SCRIPTS="70-formats.sh 71-formats-pressure.sh"
# The fuzzer and the load/unload rounds: what sanitizers and kmemleak are
# for, so the debug kernel runs them (CHECK_FULL: 6.1 and 6.12 too).
STRESS_SCRIPTS="80-fuzz.sh 85-load-unload.sh"
# The debug kernel's run is two guests, one a lane: debug-user the
# user-mode scripts (and 54-migration.sh: it boots with two NUMA nodes)
# and, so that the two take about as long, these kernel-side ones.
DEBUG_USER_TOO="55-use.sh 80-fuzz.sh 85-load-unload.sh"
# Command-line variables of a parent make (make check KDIR=...) must not leak
# into the builds below.
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEFILES KBUILD_OUTPUT KDIR KVER O M
# Warnings are errors in the project's own builds (Kbuild and
# userspace/Makefile read this); a user's DKMS build prints them and goes
# on (tests/install/check-install.sh checks it).
export MEMTRACE_WERROR=1

T_ALL=$(date +%s.%N)
GUEST_KERNELS=

# ----------------------------------------------------------------- helpers
# tap LINE...: print result lines and record them for the summary (the
# failures in $FAILED_DETAIL too).
tap() {
	local l
	printf '%s\n' "$@"
	printf '%s\n' "$@" >>"$TAP"
	for l in "$@"; do
		case $l in "not ok"*) printf '%s\n' "$l" >>"$FAILED_DETAIL" ;; esac
	done
	return 0
}

# comment_tail LOG [N]: the last N lines of LOG as comments (evidence of
# the failure just recorded: in $FAILED_DETAIL too).
comment_tail() {
	{
		echo "#   (last ${2:-20} lines of ${1#"$top"/})"
		tail -n "${2:-20}" "$1" | sed 's/^/#   /'
	} | tee -a "$FAILED_DETAIL"
}

# stream PREFIX: pass TAP lines of stdin through (ok/not ok recorded, with
# PREFIX inserted in the description if non-empty), "# " comments printed;
# the comments after a failure also go to $FAILED_DETAIL (as tap() the
# failure).
stream() {
	local pfx=$1 l st desc detail=0
	while IFS= read -r l; do
		if [[ $l =~ ^(not\ ok|ok)([[:space:]]+[0-9]+)?([[:space:]]+-)?([[:space:]]+(.*))?$ ]]; then
			st=${BASH_REMATCH[1]}
			desc=${BASH_REMATCH[5]:-(no description)}
			tap "$st - ${pfx:+$pfx: }$desc"
			detail=0
			[ "$st" = "not ok" ] && detail=$FAILED_DETAIL_LINES
		elif [[ $l == \#* ]]; then
			printf '%s\n' "$l"
			if [ "$detail" -gt 0 ]; then
				printf '%s\n' "${l:0:300}" >>"$FAILED_DETAIL"
				detail=$((detail - 1))
			fi
		fi
	done
}

elapsed() {
	awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'
}

STAGE_T0=
STAGE_NAME=
stage() {
	[ -n "$STAGE_NAME" ] && echo "== $STAGE_NAME: $(elapsed "$STAGE_T0") s"
	STAGE_NAME=$1
	STAGE_T0=$(date +%s.%N)
	[ -n "$1" ] && echo "== $1"
}

wants() {
	case " $STAGES " in *" $1 "*) return 0 ;; esac
	return 1
}

# Builds use every core: make check is on the clock (CI's budget).
JOBS=-j$(nproc)

# build DESC LOG TIMEOUT CMD...: run a build step, one ok/not ok line.
build() {
	local desc=$1 log=$2 t=$3 rc
	shift 3
	MAKEFLAGS=$JOBS timeout -k 10 "$t" "$@" >"$log" 2>&1 </dev/null
	rc=$?
	if [ "$rc" -eq 0 ]; then
		tap "ok - build: $desc"
	else
		[ "$rc" -eq 124 ] && tap "not ok - build: $desc (timed out after $t s)" ||
			tap "not ok - build: $desc (exit $rc)"
		comment_tail "$log"
	fi
	return "$rc"
}

# newest KVER under /lib/modules matching a glob, with a build dir; a
# PREEMPT_RT kernel (-rt-) only if the glob asks for one.
newest_kver() {
	local d
	for d in /lib/modules/$1/build; do
		[ -d "$d" ] || continue
		d=${d#/lib/modules/}
		d=${d%/build}
		case $1:$d in *-rt-*:*) ;; *:*-rt-*) continue ;; esac
		echo "$d"
	done | sort -V | tail -n 1
}

wants_guest() {
	case " $GUESTS " in *" $1 "*) return 0 ;; esac
	return 1
}

# --------------------------------------------------------------- a. unit
if wants unit; then
	stage "unit tests (host)"
	if [ ! -f userspace/Makefile ]; then
		tap "not ok - unit: userspace/Makefile does not exist"
	else
		log=$LOGS/unit.log
		timeout -k 10 900 make "$JOBS" -C userspace O="$B/user" test </dev/null 2>&1 |
			tee "$log" | stream unit
		rc=${PIPESTATUS[0]}
		if [ "$rc" -ne 0 ] && ! grep -Eq '^not ok( |$)' "$log"; then
			[ "$rc" -eq 124 ] && tap "not ok - unit: make test timed out after 900 s" ||
				tap "not ok - unit: make test exited $rc"
			comment_tail "$log"
		elif ! grep -Eq '^(not )?ok( |$)' "$log"; then
			tap "not ok - unit: make test printed no results"
			comment_tail "$log"
		fi
	fi
	# The guests' time-out report, in their shell (busybox ash).
	log=$LOGS/unit-stuck.log
	timeout -k 10 120 tests/guest/test-stuck.sh </dev/null 2>&1 |
		tee "$log" | stream "unit: time-out report"
	rc=${PIPESTATUS[0]}
	if [ "$rc" -ne 0 ] && ! grep -Eq '^not ok( |$)' "$log"; then
		tap "not ok - unit: time-out report: tests/guest/test-stuck.sh exited $rc"
		comment_tail "$log"
	fi
	# The directories whose include graph is kept free of cycles (a.c or
	# a.h including b.h is an edge a->b), between files and between the
	# folders under them (their layers); one ok/not ok line each, the
	# cycles and their edges in the comments after a not ok.
	INCLUDE_ACYCLIC="userspace kmod"
	if [ -n "$INCLUDE_ACYCLIC" ]; then
		# shellcheck disable=SC2086 # a list of directories
		python3 scripts/include-cycles.py $INCLUDE_ACYCLIC 2>&1 |
			tee "$LOGS/include-cycles.log" | stream unit
		rc=${PIPESTATUS[0]}
		if [ "$rc" -ne 0 ] && ! grep -Eq '^not ok( |$)' "$LOGS/include-cycles.log"; then
			tap "not ok - unit: scripts/include-cycles.py exited $rc"
			comment_tail "$LOGS/include-cycles.log"
		fi
	fi
fi

# -------------------------------------------------------------- b. build
declare -A KVER_OF=() KO_OK=() TKO_OK=()
NEWEST_TREE=
MINIMAL_TREE=
BULLSEYE_TREE=
KVER_OF[6.1]=$(newest_kver '6.1.0-*-amd64')
KVER_OF[6.12]=$(newest_kver '6.12*-amd64')
KVER_OF[6.12-rt]=$(newest_kver '6.12*-rt-amd64')
HAVE_TKMOD=0
[ -f tests/kmod/Kbuild ] && HAVE_TKMOD=1

if wants build; then
	stage "build"
	build "memtrace-read (make userspace)" "$LOGS/build-userspace.log" 600 make userspace
	for l in 6.1 6.12 6.12-rt; do
		kv=${KVER_OF[$l]}
		if [ -z "$kv" ]; then
			tap "not ok - build: memtrace.ko for $l (no $l kernel headers in /lib/modules: make deps)"
			continue
		fi
		build "memtrace.ko for $kv" "$LOGS/build-kmod-$kv.log" 600 \
			make module KVER="$kv" && KO_OK[$l]=1
		if [ "$HAVE_TKMOD" = 1 ]; then
			build "tests/kmod for $kv" "$LOGS/build-testkmod-$kv.log" 600 \
				tests/guest/build-test-module.sh "/lib/modules/$kv/build" "$B/testkmod-$kv" &&
				TKO_OK[$l]=1
		fi
		# sparse on the module (kernel code must have no sparse
		# warnings): once, against 6.1, in a copy of its own.
		if [ "$l" = 6.1 ] && [ -n "${KO_OK[$l]:-}" ]; then
			rm -rf "$B/sparse-$kv"
			build "memtrace.ko is sparse-clean (C=2, $kv)" "$LOGS/sparse-$kv.log" 600 \
				sh -c "scripts/build-module.sh /lib/modules/$kv/build '$B/sparse-$kv' C=2 >'$LOGS/sparse-$kv.out' 2>&1;
				       rc=\$?; grep -E 'warning:|error:' '$LOGS/sparse-$kv.out'; [ \$rc -eq 0 ] &&
				       ! grep -qE 'warning:|error:' '$LOGS/sparse-$kv.out'"
		fi
		# No stack frame over 1024 bytes (some distributions' FRAME_WARN;
		# Debian's is 2048): once, against 6.1, in a copy of its own,
		# a warning fails it (MEMTRACE_WERROR).
		if [ "$l" = 6.1 ] && [ -n "${KO_OK[$l]:-}" ]; then
			build "memtrace.ko has no stack frame over 1024 bytes ($kv)" "$LOGS/frame-$kv.log" 600 \
				scripts/build-module.sh "/lib/modules/$kv/build" "$B/frame-$kv" \
				KCFLAGS=-Wframe-larger-than=1024
		fi
		# ext4 on a loop device for the soak (tests/e2e/60-soak.sh).
		rm -rf "$B/guest-kmods-$kv"
		build "Debian's ext4 and loop modules for the $kv guest" "$LOGS/stage-kmods-$kv.log" 120 \
			tests/guest/stage-kmods.sh "/lib/modules/$kv" "$B/guest-kmods-$kv" \
			ext4 loop crc32c_generic
	done
	# The newest kernel (7.2), built once and cached like the debug kernel.
	if wants_guest 7.2; then
		log=$LOGS/newest-kernel.log
		out=$LOGS/newest-kernel.out
		timeout -k 10 7200 bash scripts/newest-kernel.sh </dev/null 2>&1 >"$out" |
			tee "$log" | sed -u 's/^/# /'
		rc=${PIPESTATUS[0]}
		tree=$(tail -n 1 "$out" 2>/dev/null)
		if [ "$rc" -ne 0 ] || [ -z "$tree" ] || [ ! -f "$tree/arch/x86/boot/bzImage" ]; then
			tap "not ok - build: the 7.2 kernel (scripts/newest-kernel.sh exited $rc)"
		else
			tap "ok - build: the 7.2 kernel $(cat "$tree/include/config/kernel.release") in ${tree/#$HOME/\~}"
			NEWEST_TREE=$tree
			KVER_OF[7.2]=7.2
			build "memtrace.ko (+ KUnit) for 7.2" "$LOGS/build-kmod-7.2.log" 600 \
				make module KDIR="$tree" KVER=7.2 && KO_OK[7.2]=1
			if [ "$HAVE_TKMOD" = 1 ]; then
				build "tests/kmod for 7.2" "$LOGS/build-testkmod-7.2.log" 600 \
					tests/guest/build-test-module.sh "$tree" "$B/testkmod-7.2" &&
					TKO_OK[7.2]=1
			fi
		fi
	fi
	# Debian 11's 5.10, the oldest kernel: the .debs make deps fetched
	# from bullseye (scripts/bullseye-kernel.sh --fetch), extracted once
	# into the cache.  Its headers name gcc-10, which bookworm lacks:
	# CC=gcc.
	log=$LOGS/bullseye-kernel.log
	timeout -k 10 600 scripts/bullseye-kernel.sh </dev/null 2>"$log" >"$LOGS/bullseye-kernel.out"
	rc=$?
	tree=$(tail -n 1 "$LOGS/bullseye-kernel.out" 2>/dev/null)
	kv=$(scripts/bullseye-kernel.sh --kver 2>/dev/null)
	if [ "$rc" -ne 0 ] || [ ! -d "$tree" ] || [ -z "$kv" ]; then
		tap "not ok - build: Debian 11's 5.10 kernel (scripts/bullseye-kernel.sh exited $rc; make deps fetches it)"
		comment_tail "$log"
	else
		BULLSEYE_TREE=$tree
		KVER_OF[5.10]=$kv
		build "memtrace.ko for $kv" "$LOGS/build-kmod-$kv.log" 600 \
			make module KDIR="$tree/usr/src/linux-headers-$kv" KVER="$kv" CC=gcc &&
			KO_OK[5.10]=1
		if [ "$HAVE_TKMOD" = 1 ]; then
			build "tests/kmod for $kv" "$LOGS/build-testkmod-$kv.log" 600 \
				tests/guest/build-test-module.sh "$tree/usr/src/linux-headers-$kv" \
				"$B/testkmod-$kv" CC=gcc && TKO_OK[5.10]=1
		fi
		rm -rf "$B/guest-kmods-$kv"
		build "Debian's ext4 and loop modules for the $kv guest" "$LOGS/stage-kmods-$kv.log" 120 \
			tests/guest/stage-kmods.sh "$tree/lib/modules/$kv" "$B/guest-kmods-$kv" \
			ext4 loop crc32c_generic
	fi
	# A kernel configured without MEMCG, COMPACTION, MIGRATION, NUMA,
	# KPROBES and UPROBES (scripts/minimal-kernel.sh: 7.2's sources and
	# configuration with those off; configured and modules_prepare'd once,
	# about 5 minutes, then cached): memtrace must build against it.  No
	# Module.symvers there unless a minimal guest was booted: modpost
	# cannot resolve symbols (KBUILD_MODPOST_WARN).
	log=$LOGS/minimal-kernel.log
	margs=
	wants_guest minimal && margs=--boot
	# shellcheck disable=SC2086 # --boot or nothing
	timeout -k 10 7200 scripts/minimal-kernel.sh $margs </dev/null 2>"$log" >"$LOGS/minimal-kernel.out"
	rc=$?
	tree=$(tail -n 1 "$LOGS/minimal-kernel.out" 2>/dev/null)
	if [ "$rc" -ne 0 ] || [ ! -d "$tree" ]; then
		tap "not ok - build: the kernel without MEMCG, COMPACTION, MIGRATION, NUMA, KPROBES, UPROBES (scripts/minimal-kernel.sh exited $rc)"
		comment_tail "$log"
	else
		MINIMAL_TREE=$tree
		KVER_OF[minimal]=minimal
		build "memtrace.ko for a kernel without MEMCG, COMPACTION, MIGRATION, NUMA, KPROBES, UPROBES" \
			"$LOGS/build-kmod-minimal.log" 600 \
			make module KDIR="$tree" KVER=minimal KBUILD_MODPOST_WARN=1 && KO_OK[minimal]=1
		if [ -n "$margs" ] && [ "$HAVE_TKMOD" = 1 ]; then
			build "tests/kmod for the kernel without them" "$LOGS/build-testkmod-minimal.log" 600 \
				tests/guest/build-test-module.sh "$tree" "$B/testkmod-minimal" &&
				TKO_OK[minimal]=1
		fi
	fi
	if [ -f tests/progs/Makefile ]; then
		build "tests/progs" "$LOGS/build-progs.log" 600 make -C tests/progs O="$B/progs"
	fi
	# The guests' /data: the udev rule (tests/e2e/15-privileges.sh applies it).
	rm -rf "$B/guest-data"
	mkdir -p "$B/guest-data"
	cp udev/60-memtrace.rules "$B/guest-data/"
	# The JSON Schema and its validator: the guests check every mode's live --json.
	cp docs/memtrace-report.schema.json userspace/tests/validate-json.py "$B/guest-data/"
	# An empty ext4 file system for the soak, small compressed.
	build "ext4 image for the soak" "$LOGS/soak-ext4.log" 120 sh -c \
		"rm -f '$B/soak-ext4.img' && truncate -s 48M '$B/soak-ext4.img' &&
		 mkfs.ext4 -q -F '$B/soak-ext4.img' && gzip -c '$B/soak-ext4.img' >'$B/guest-data/soak-ext4.img.gz' &&
		 rm -f '$B/soak-ext4.img'"
fi

# Without the build stage, the 5.10 guest boots the cached extraction
# with the modules an earlier build left, as the Debian kernels' guests.
if ! wants build && wants_guest 5.10; then
	tree=$(scripts/bullseye-kernel.sh 2>"$LOGS/bullseye-kernel.log" | tail -n 1)
	if [ -d "$tree" ]; then
		BULLSEYE_TREE=$tree
		KVER_OF[5.10]=$(scripts/bullseye-kernel.sh --kver 2>/dev/null)
	fi
fi

# ------------------------------------------------------------ b2. install
if wants install; then
	stage "install (host)"
	kvs=
	for l in 6.1 6.12; do
		[ -n "${KVER_OF[$l]}" ] && kvs="$kvs ${KVER_OF[$l]}"
	done
	if [ -z "$kvs" ]; then
		tap "not ok - install: no Debian kernel headers (make deps)"
	else
		# shellcheck disable=SC2086 # one word per kernel
		timeout -k 10 900 tests/install/check-install.sh "$B/install" $kvs </dev/null 2>&1 |
			stream ""
		rc=${PIPESTATUS[0]}
		[ "$rc" -eq 0 ] || tap "not ok - install: check-install.sh exited $rc"
	fi
fi

# -------------------------------------------------------------- c. debug
DEBUG_TREE=
if wants debug; then
	stage "debug kernel"
	if [ ! -f scripts/debug-kernel.sh ]; then
		tap "not ok - debug: scripts/debug-kernel.sh does not exist"
	else
		log=$LOGS/debug-kernel.log
		out=$LOGS/debug-kernel.out
		# Progress (stderr) is shown as comments; the tree is the last stdout line.
		timeout -k 10 7200 bash scripts/debug-kernel.sh </dev/null 2>&1 >"$out" |
			tee "$log" | sed -u 's/^/# /'
		rc=${PIPESTATUS[0]}
		tree=$(tail -n 1 "$out" 2>/dev/null)
		if [ "$rc" -ne 0 ]; then
			tap "not ok - debug: scripts/debug-kernel.sh exited $rc"
		elif [ -z "$tree" ] || [ ! -f "$tree/arch/x86/boot/bzImage" ]; then
			tap "not ok - debug: scripts/debug-kernel.sh printed no kernel tree ('$tree')"
		else
			tap "ok - debug: kernel tree ${tree/#$HOME/\~}"
			DEBUG_TREE=$tree
			# Kernel style: the module, the test modules and the uapi
			# header, with the kernel's own checkpatch.pl.
			build "checkpatch --no-tree -f: kmod, tests/kmod, the uapi header" \
				"$LOGS/checkpatch.log" 600 sh -c "out=\$('$tree/scripts/checkpatch.pl' --no-tree -q -f \
					kmod/*/*.c kmod/*/*.h kmod/compat/probes/*.c tests/kmod/*.c \
					include/uapi/linux/memtrace.h 2>&1); printf '%s\n' \"\$out\"; [ -z \"\$out\" ]"
			KVER_OF[debug]=debug
			build "memtrace.ko (+ KUnit) for the debug kernel" "$LOGS/build-kmod-debug.log" 600 \
				make module KDIR="$tree" KVER=debug && KO_OK[debug]=1
			if [ "$HAVE_TKMOD" = 1 ]; then
				build "tests/kmod for the debug kernel" "$LOGS/build-testkmod-debug.log" 600 \
					tests/guest/build-test-module.sh "$tree" "$B/testkmod-debug" &&
					TKO_OK[debug]=1
			fi
		fi
	fi
fi

# -------------------------------------------------------------- d. guest
# listed NAME WORD...: NAME is one of the WORDs.
listed() {
	local n=$1 w
	shift
	for w in "$@"; do
		[ "$w" = "$n" ] && return 0
	done
	return 1
}

# runs_elsewhere NAME WORD...: NAME is one of the WORDs, scripts this guest
# leaves to another, unless CHECK_FULL=1 asks for every script everywhere
# or CHECK_SCRIPTS names it.
runs_elsewhere() {
	[ "${CHECK_FULL:-0}" = 1 ] && return 1
	# shellcheck disable=SC2086 # a list of names
	listed "$1" ${CHECK_SCRIPTS:-} && return 1
	listed "$@"
}

# guest_args LABEL: set args to run-guest.sh's arguments for guest LABEL, or
# print why it cannot run (a "not ok" line) and return 1.
guest_args() {
	local l=$1 kv img tl numa= label=$1 scripts= s n w append=
	# LABEL-numa: that kernel with two NUMA nodes, for the script that needs
	# them (54-migration.sh; the other guests skip it); the debug kernel has
	# no ACPI to learn qemu's nodes from, so it makes them up (numa=fake).
	# debug-user has the two nodes itself and runs 54-migration.sh: a debug
	# boot of its own for one script was a minute and a half, most of it
	# the boot and kmemleak's scans.
	case $l in
	*-numa) numa=${l%-numa}; l=$numa; scripts=$top/tests/e2e/54-migration.sh ;;
	debug | debug-user)
		for s in "$top"/tests/e2e/*.sh; do
			n=${s##*/}
			# shellcheck disable=SC2086 # lists of names
			runs_elsewhere "$n" $USER_ORACLE_SCRIPTS $FORMAT_SCRIPTS && continue
			case $n in
			4?-user-*.sh | 61-usdt.sh | 54-migration.sh) w=debug-user ;;
			*)
				w=debug
				# shellcheck disable=SC2086 # a list of names
				listed "$n" $DEBUG_USER_TOO && w=debug-user
				;;
			esac
			[ "$l" = "$w" ] && scripts="$scripts $s"
		done
		[ "$l" = debug-user ] && numa=debug
		l=debug
		[ "${CHECK_FULL:-0}" = 1 ] || append="SOAK_SECONDS=$SOAK"
		;;
	6.1 | 6.12)
		for s in "$top"/tests/e2e/*.sh; do
			n=${s##*/}
			# shellcheck disable=SC2086 # lists of names
			runs_elsewhere "$n" $STRESS_SCRIPTS && continue
			if [ "$l" = 6.12 ]; then
				# shellcheck disable=SC2086 # lists of names
				runs_elsewhere "$n" $USER_ORACLE_SCRIPTS $FORMAT_SCRIPTS && continue
			fi
			scripts="$scripts $s"
		done
		[ "${CHECK_FULL:-0}" = 1 ] || append="SOAK_SECONDS=$SOAK"
		;;
	minimal)
		# The kernel leak report, and the modes refused by name.
		for s in 20-kernel-leaks.sh 30-reader-errors.sh; do
			scripts="$scripts $top/tests/e2e/$s"
		done
		;;
	6.12-rt | 7.2 | 5.10)
		for s in $CORE_SCRIPTS; do
			scripts="$scripts $top/tests/e2e/$s"
		done
		append="SOAK_SECONDS=$SOAK"
		;;
	lockdown) ;;	# tests/lockdown/*.sh, below
	*)
		echo "not ok - $label: no such guest (CHECK_GUESTS)"
		return 1
		;;
	esac
	# The lockdown guest runs tests/lockdown/*.sh, whatever CHECK_SCRIPTS says.
	if [ -n "${CHECK_SCRIPTS:-}" ] && [ "$l" != lockdown ]; then
		s=$scripts scripts=
		for s in $s; do
			case " $CHECK_SCRIPTS " in *" ${s##*/} "*) scripts="$scripts $s" ;; esac
		done
		if [ -z "$scripts" ]; then
			echo "# $label: none of CHECK_SCRIPTS runs here"
			return 1
		fi
	fi
	kv=${KVER_OF[$l]:-}
	args=(--label "$label" --scripts "$scripts")
	case $l in
	debug)
		img=${DEBUG_TREE:+$DEBUG_TREE/arch/x86/boot/bzImage}
		# KASAN + lockdep + kmemleak under TCG: slow.
		args+=(--timeout 3600 --timeout-scale 3 --sign "$DEBUG_TREE")
		;;
	7.2)
		img=${NEWEST_TREE:+$NEWEST_TREE/arch/x86/boot/bzImage}
		# lockdep under TCG: slower than Debian's kernels.
		args+=(--timeout 2400 --timeout-scale 2)
		;;
	minimal)
		img=${MINIMAL_TREE:+$MINIMAL_TREE/arch/x86/boot/bzImage}
		args+=(--timeout 1200 --timeout-scale 2)
		;;
	5.10)
		# Extracted, not installed: the image is in the cache.
		img=${BULLSEYE_TREE:+$BULLSEYE_TREE/boot/vmlinuz-$kv}
		args+=(--timeout 1800)
		;;
	lockdown)
		# The debug kernel, locked down; kmemleak off (lockdown
		# refuses debugfs: it could not be read anyway).
		kv=${KVER_OF[debug]:-}
		img=${DEBUG_TREE:+$DEBUG_TREE/arch/x86/boot/bzImage}
		args=(--label "$l" --scripts "$top/tests/lockdown/*.sh" --timeout 1200
		      --timeout-scale 3 --sign "$DEBUG_TREE"
		      --append "lockdown=confidentiality module.sig_enforce=1 kmemleak=off")
		;;
	*)
		img=${kv:+/boot/vmlinuz-$kv}
		# User mode under Valgrind Memcheck takes minutes of it.
		args+=(--timeout 1800)
		[ -d "$B/install/modtree/$kv" ] && args+=(--modules-tree "$B/install/modtree/$kv")
		;;
	esac
	if { [ "$l" = debug ] || [ "$l" = lockdown ]; } && [ -z "$DEBUG_TREE" ]; then
		echo "not ok - $label: guest run skipped (no debug kernel: see the debug stage)"
		return 1
	fi
	if [ -z "$kv" ] || [ ! -f "$img" ]; then
		echo "not ok - $label: guest run skipped (no kernel image for $l)"
		return 1
	fi
	# The lockdown guest runs the debug kernel's builds.
	tl=$l
	[ "$l" = lockdown ] && tl=debug
	if [ "$l" = minimal ] && [ ! -f "$img" ]; then
		echo "not ok - $label: guest run skipped (no bzImage of the kernel without MEMCG, ...: see the build stage)"
		return 1
	fi
	if [ "$l" = 7.2 ] && [ -z "$NEWEST_TREE" ]; then
		echo "not ok - $label: guest run skipped (no 7.2 kernel: see the build stage)"
		return 1
	fi
	if [ "$l" = 5.10 ] && [ -z "$BULLSEYE_TREE" ]; then
		echo "not ok - $label: guest run skipped (no 5.10 kernel: see the build stage)"
		return 1
	fi
	if wants build || [ "$tl" = debug ] || [ "$tl" = 7.2 ] || [ "$tl" = minimal ]; then
		if [ -z "${KO_OK[$tl]:-}" ]; then
			echo "not ok - $label: guest run skipped (memtrace.ko for $kv did not build)"
			return 1
		fi
	elif [ ! -f "$B/kmod-$kv/memtrace.ko" ]; then
		echo "not ok - $label: guest run skipped (no $B/kmod-$kv/memtrace.ko)"
		return 1
	fi
	args+=(--kernel "$img" --ko-dir "$B/kmod-$kv")
	if [ -n "$numa" ]; then
		# 1 GiB a node: on the debug kernel, node 0 also holds the
		# initramfs (200 MiB of tmpfs) and KASAN's shadow, and 512 MiB
		# left too little for 54-migration.sh's 64 MiB bound to it.
		args+=(--mem 2048)
		if [ "$numa" = debug ]; then
			append="${append:+$append }numa=fake=2"
		else
			args+=(--numa 2)
		fi
	fi
	if [ -n "${TKO_OK[$tl]:-}" ] || { ! wants build && [ "$tl" != debug ] && [ "$tl" != 7.2 ] &&
					   [ "$tl" != minimal ]; }; then
		[ -d "$B/testkmod-$kv" ] && args+=(--ko-dir "$B/testkmod-$kv")
	fi
	[ -n "$append" ] && args+=(--append "$append")
	[ -d "$B/guest-kmods-$kv" ] && args+=(--ko-dir "$B/guest-kmods-$kv")
	[ -d "$B/user" ] && args+=(--bin-dir "$B/user")
	[ -d "$B/progs" ] && args+=(--bin-dir "$B/progs")
	[ -d "$B/guest-data" ] && args+=(--data-dir "$B/guest-data")
	# Real programs and Valgrind Memcheck, for the user-mode tests.
	args+=(--host-files "$top/tests/e2e/host-files.list")
	return 0
}

# run_guests LABEL...: each guest in turn, its output in $LOGS/guest-LABEL.out.
run_guests() {
	local l rc t0 args
	for l in "$@"; do
		t0=$(date +%s.%N)
		echo "# guest $l: started"
		if guest_args "$l" >"$LOGS/guest-$l.out"; then
			# run-guest.sh has its own qemu timeout; this one is a backstop.
			timeout -k 10 3900 tests/guest/run-guest.sh "${args[@]}" \
				</dev/null >>"$LOGS/guest-$l.out" 2>&1
			rc=$?
			[ "$rc" -eq 0 ] || grep -q "^not ok - $l: " "$LOGS/guest-$l.out" ||
				echo "not ok - $l: run-guest.sh exited $rc" >>"$LOGS/guest-$l.out"
		fi
		echo "# guest $l: done in $(elapsed "$t0") s"
	done
}

# start_load N: N CPU hogs for the guest stage (CHECK_LOAD), in LOAD_PIDS.
LOAD_PIDS=
start_load() {
	local i
	for ((i = 0; i < $1; i++)); do
		sh -c 'while :; do :; done' </dev/null >/dev/null 2>&1 &
		LOAD_PIDS="$LOAD_PIDS $!"
	done
	[ -z "$LOAD_PIDS" ] || trap 'kill $LOAD_PIDS 2>/dev/null' EXIT
}

if wants guest; then
	stage "guests ($GUESTS)"
	case ${CHECK_LOAD:-0} in
	'' | *[!0-9]*) echo "CHECK_LOAD must be a number of busy processes" >&2; exit 2 ;;
	0) ;;
	*)
		echo "# under load: ${CHECK_LOAD} busy processes beside the guests"
		start_load "$CHECK_LOAD"
		;;
	esac
	# Each guest is one single-threaded TCG qemu: two lanes of guests, one
	# after another in each, keep two cores busy.  The two halves of the
	# debug kernel's run are the longest: one starts each lane; the rest
	# is shared so that the lanes take about as long (seconds, a fresh
	# clone's run on an idle 2-core machine, 2026-11-28: debug 994 +
	# 6.12 412 + lockdown 54 + 6.1-numa 37 + 6.12-numa 36 + 6.12-rt 210
	# = 1743; debug-user 892 + 6.1 710 + 7.2 257 = 1859).
	lane_a= lane_b=
	for l in $GUESTS; do
		rm -f "$LOGS/guest-$l.out"
		case $l in
		debug) lane_a="debug $lane_a" ;;
		6.12 | 6.12-rt | 5.10 | lockdown | *-numa) lane_a="$lane_a $l" ;;
		debug-user) lane_b="debug-user $lane_b" ;;
		*) lane_b="$lane_b $l" ;;
		esac
	done
	# shellcheck disable=SC2086 # lists of labels
	{
		run_guests $lane_a &
		pid_a=$!
		run_guests $lane_b &
		wait "$pid_a" $!	# not the load's hogs
	}
	if [ -n "$LOAD_PIDS" ]; then
		# shellcheck disable=SC2086 # a list of pids
		kill $LOAD_PIDS 2>/dev/null
		trap - EXIT
	fi
	for l in $GUESTS; do
		echo "== guest $l"
		stream "" <"$LOGS/guest-$l.out"
	done
	# Which kernel each guest ran: its /init said (tests/guest/init.sh).
	for l in $GUESTS; do
		kr=$(tr -d '\r' <"$LOGS/$l-console.log" 2>/dev/null |
			sed -n 's/^.*MTT!START \([^ ]*\).*$/\1/p' | head -n 1)
		GUEST_KERNELS="$GUEST_KERNELS $l=${kr:-(did not boot)}"
	done
fi

# --------------------------------------------------------------- e. fuzz
if wants fuzz; then
	stage "fuzz (debug kernel, ${FUZZ_SECONDS:-900} s)"
	secs=${FUZZ_SECONDS:-900}
	if [ -z "$DEBUG_TREE" ] || [ -z "${KO_OK[debug]:-}" ]; then
		tap "not ok - fuzz: skipped (no debug kernel or module: see the debug stage)"
	else
		args=(--label fuzz --kernel "$DEBUG_TREE/arch/x86/boot/bzImage"
		      --scripts "$top/tests/e2e/80-fuzz.sh" --sign "$DEBUG_TREE"
		      --ko-dir "$B/kmod-debug" --bin-dir "$B/user" --bin-dir "$B/progs"
		      --timeout $((secs * 2 + 900)) --timeout-scale 3
		      --append "MTT_FUZZ_SECONDS=$secs")
		timeout -k 10 $((secs * 2 + 1000)) tests/guest/run-guest.sh "${args[@]}" </dev/null 2>&1 |
			stream ""
	fi
fi

stage ""
[ -n "$GUEST_KERNELS" ] && echo "== kernels:$GUEST_KERNELS"
echo "== total: $(elapsed "$T_ALL") s"
npass=$(grep -Ec '^ok( |$)' "$TAP")
nskip=$(grep -Ec '^ok( |$).*#[[:space:]]*SKIP' "$TAP")
nfail=$(grep -Ec '^not ok( |$)' "$TAP")
# The failures again, next to the summary: CI keeps only an output's tail.
if [ "$nfail" -gt 0 ]; then
	echo "== failed, with the comments that followed each (build/logs/check-failed.txt):"
	head -n 200 "$FAILED_DETAIL"
	echo "== failed:"
	grep -E '^not ok( |$)' "$TAP" | head -n 40
fi
echo "$((npass - nskip)) passed, $nfail failed, $nskip skipped"
[ "$nfail" -eq 0 ] && [ "$npass" -gt 0 ]
