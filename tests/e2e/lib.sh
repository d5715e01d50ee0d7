# SPDX-License-Identifier: GPL-2.0
# Helpers for guest test scripts (POSIX sh, busybox ash).  In the guest this
# file is /tests/lib.sh; a script sources it with
#   . "${0%/*}/lib.sh"
# Scripts print one line per result ("ok - desc" / "not ok - desc"; "# ..."
# lines are comments).  A script's exit status says whether the script itself
# ran to the end: a failed check does not make it exit non-zero, a non-zero
# exit is reported as a separate failure ("<script> exited N").
# A script may set its timeout (default 300 s) with a line "# mtt-timeout: SEC";
# the debug guest multiplies timeouts by $MTT_TIMEOUT_SCALE (exported).

MEMTRACE_KO=${MEMTRACE_KO:-/memtrace/memtrace.ko}
MEMTRACE_DEV=${MEMTRACE_DEV:-/dev/memtrace}

# diag TEXT...: comment lines ("# " prefixed, one per input line).
diag() {
	printf '%s\n' "$*" | sed 's/^/# /'
}

ok() {
	echo "ok - $*"
}

# not_ok DESC [DETAIL]: DETAIL (may be multi-line) is printed as comments.
not_ok() {
	echo "not ok - $1"
	[ $# -lt 2 ] || [ -z "$2" ] || diag "$2"
	return 0
}

# skip DESC REASON
skip() {
	echo "ok - $1 # SKIP ${2:-}"
}

# check DESC CMD...: ok if CMD succeeds; else not ok with the command's last
# output lines as comments.  Returns CMD's status.
check() {
	_d=$1
	shift
	_out=$("$@" 2>&1)
	_rc=$?
	if [ "$_rc" -eq 0 ]; then
		ok "$_d"
	else
		not_ok "$_d" "$(printf '%s\n' "command: $*" "exit status: $_rc" "$_out" | tail -n 15)"
	fi
	return "$_rc"
}

# check_eq DESC EXPECTED ACTUAL
check_eq() {
	if [ "$2" = "$3" ]; then
		ok "$1"
	else
		not_ok "$1" "expected: '$2'
got:      '$3'"
		return 1
	fi
}

# check_match DESC REGEX TEXT: ok if TEXT (any line) matches the extended REGEX.
check_match() {
	if printf '%s\n' "$3" | grep -Eq -e "$2"; then
		ok "$1"
	else
		not_ok "$1" "$(printf '%s\n' "regex: $2" "text:" "$3" | head -n 15)"
		return 1
	fi
}

# check_no_match DESC REGEX TEXT: ok if no line of TEXT matches the extended REGEX.
check_no_match() {
	if ! printf '%s\n' "$3" | grep -Eq -e "$2"; then
		ok "$1"
	else
		not_ok "$1" "$(printf '%s\n' "regex: $2" "matching:" "$(printf '%s\n' "$3" |
			grep -E -e "$2")" | head -n 15)"
		return 1
	fi
}

# wait_for SECS CMD...: poll CMD every 0.1 s until it succeeds or SECS pass
# (SECS times $MTT_TIMEOUT_SCALE, which is > 1 on slow debug kernels).
wait_for() {
	_n=$(($1 * 10 * ${MTT_TIMEOUT_SCALE:-1}))
	shift
	while ! "$@" 2>/dev/null; do
		_n=$((_n - 1))
		[ "$_n" -gt 0 ] || return 1
		sleep 0.1
	done
	return 0
}

# load_memtrace [module params]: insmod memtrace.ko, wait for /dev/memtrace.
# Returns non-zero (with comments saying why) on failure.
load_memtrace() {
	if [ ! -f "$MEMTRACE_KO" ]; then
		diag "load_memtrace: $MEMTRACE_KO not in the guest"
		return 1
	fi
	if ! _out=$(insmod "$MEMTRACE_KO" "$@" 2>&1); then
		diag "load_memtrace: insmod $MEMTRACE_KO $*: $_out"
		dmesg | tail -n 10 | sed 's/^/# /'
		return 1
	fi
	if ! wait_for 10 test -c "$MEMTRACE_DEV"; then
		diag "load_memtrace: $MEMTRACE_DEV did not appear"
		return 1
	fi
	return 0
}

# unload_memtrace: rmmod memtrace, wait until /dev/memtrace is gone.
unload_memtrace() {
	if ! _out=$(rmmod memtrace 2>&1); then
		diag "unload_memtrace: rmmod memtrace: $_out"
		return 1
	fi
	wait_for 10 test ! -e "$MEMTRACE_DEV" || {
		diag "unload_memtrace: $MEMTRACE_DEV still present"
		return 1
	}
	return 0
}

# kmsg TEXT: write TEXT to the kernel log (to find a test's messages later).
kmsg() {
	echo "<6>$*" >/dev/kmsg 2>/dev/null || :
}

# start_memtrace_read OUT LABEL ARGS...: memtrace-read ARGS (a kernel mode)
# in the background, its output in OUT (emptied first: an earlier reader's
# "Attaching" line is not taken for this one's); READER is its pid.  Waits
# until it has attached; else reports "not ok - LABEL", kills it and
# returns 1.
start_memtrace_read() {
	_out=$1 _label=$2
	shift 2
	rm -f "$_out"
	memtrace-read "$@" >"$_out" 2>&1 &
	READER=$!
	if ! wait_for 60 grep -q "^Attaching to kernel" "$_out"; then
		not_ok "$_label" "$(cat "$_out")"
		kill -KILL "$READER" 2>/dev/null
		return 1
	fi
}

# start_kernel_reader OUT LABEL ARGS...: start_memtrace_read with
# --kernel-leaks ARGS.
start_kernel_reader() {
	_skr_out=$1 _skr_label=$2
	shift 2
	start_memtrace_read "$_skr_out" "$_skr_label" --kernel-leaks "$@"
}

# The last report of a memtrace-read output, one stack a line:
#   "<header> ;; <frame> ;; <frame> ..."
# A report starts with "[HH:MM:SS] Top N stacks with outstanding allocations:"
# (every interval, and the final one on SIGINT) or with
# "[HH:MM:SS] pid PID exited; allocations in use at exit:" (or exec'd ... exec).
last_report_stacks() {
	# Two passes: the report's first line, then its stacks.  One awk
	# keeping each report in a growing string reallocates it a line at a
	# time, which on a debug kernel under memtrace takes minutes.
	_lrs_start=$(awk '/^\[[0-9:]+\] (Top [0-9]+ stacks|pid [0-9]+ (exited|exec.d))/ { n = NR }
		END { print n + 0 }' "$1")
	[ "$_lrs_start" -gt 0 ] || return 0
	tail -n "+$_lrs_start" "$1" |
	awk '/ bytes in [0-9]+ allocations from stack/ { if (s != "") print s; s = $0; next }
	     /^[ \t]+[^ \t]/ && s != "" { sub(/^[ \t]+/, ""); s = s " ;; " $0; next }
	     { if (s != "") print s; s = "" }
	     END { if (s != "") print s }'
}

# ---- user mode ------------------------------------------------------------

# unwind_count FILE WORDS: the count before WORDS in FILE's last "Unwind:"
# line (user stacks: how their frames were found, why they ended).
unwind_count() {
	grep '^Unwind:' "$1" | tail -n 1 | sed -n -E "s/.*[ ;:,] *([0-9]+) $2.*/\1/p"
}

# fr FUNC BINARY: ERE of one frame, "FUNC+0xOFF [BINARY]" and maybe " file.c:LINE".
fr() {
	printf '%s\n' "$1\\+0x[0-9a-f]+ \\[$2\\]( [^ ;]+:[0-9]+)?"
}

# stack_re BYTES COUNT FUNC CALLER BINARY: ERE of a stack (a line of
# last_report_stacks) of BYTES in COUNT allocations, frame FUNC directly
# followed by its caller CALLER, both in BINARY.
stack_re() {
	printf '%s\n' "^[[:space:]]*$1 bytes in $2 allocations from stack[^;]*( ;; [^;]*)* ;; $(fr "$3" "$5") ;; $(fr "$4" "$5")( ;; |\$)"
}

# memcheck_summary LOG: the two HEAP SUMMARY lines of a Memcheck log,
# without "==PID==" and the indentation:
#   in use at exit: 2,724 bytes in 14 blocks
#   total heap usage: 1,016 allocs, 1,002 frees, 66,824 bytes allocated
memcheck_summary() {
	sed -n -E 's/^==[0-9]+==[[:space:]]+((in use at exit|total heap usage): .*[^[:space:]])[[:space:]]*$/\1/p' "$1"
}

# memcheck LOG OPTS PROG ARGS...: PROG under Valgrind Memcheck in this
# guest, with Memcheck options OPTS (one word each, or ""), its log in LOG
# (the program's output on stdout), stdin /dev/null.
# --run-libc-freeres=no --run-cxx-freeres=no: no exit-time frees an
# ordinary run never makes.  --undef-value-errors=no: the oracle here is
# the heap (its replaced allocators' counts, the leak search), which the
# definedness tracking does not touch; it is a fifth of Memcheck's time.
# (Options are not passed through the environment: the program would see
# one variable more.)
memcheck() {
	_log=$1 _opts=$2
	shift 2
	# shellcheck disable=SC2086 # _opts: words meant to split
	timeout -s KILL $((600 * ${MTT_TIMEOUT_SCALE:-1})) valgrind.bin --tool=memcheck \
		--run-libc-freeres=no --run-cxx-freeres=no --undef-value-errors=no $_opts \
		--log-file="$_log" -- "$@" </dev/null
}

# check_summary DESC VGLOG OUT PATH: the heap summary memtrace-read gave
# in OUT for the image running PATH equals Memcheck's in VGLOG, which
# must have one (an empty one on both sides is no agreement).
check_summary() {
	_cs_want=$(memcheck_summary "$2")
	if [ -z "$_cs_want" ]; then
		not_ok "$1" "Memcheck gave no heap summary: $(tail -n 15 "$2" 2>&1)"
	else
		check_eq "$1" "$_cs_want" "$(memtrace_summary "$3" "$4")"
	fi
}

# memtrace_summary OUT PATH: from memtrace-read's output OUT, the heap
# summary of the image running PATH (symlinks resolved, as the process's
# executable is named), worded as memcheck_summary's ("in use at exit").
memtrace_summary() {
	awk -v img="$(readlink -f "$2")" '
		/^HEAP SUMMARY \(/ { want = (index($0, " " img "):") > 0); next }
		want && /in use at (exit|exec):|total heap usage:/ { sub(/^[ \t]+/, ""); print }
		/^$/ { want = 0 }' "$1" | sed 's/in use at exec:/in use at exit:/'
}

# attached_pid OUT: the pid of "Attaching to pid PID, Ctrl+C to quit." in OUT.
attached_pid() {
	sed -n 's/^Attaching to pid \([0-9][0-9]*\), Ctrl+C to quit\.$/\1/p' "$1" | head -n 1
}

# memcheck_preload: the LD_PRELOAD Memcheck gives the programs it runs (its
# preload libraries, which define no symbol a program could bind to outside
# Valgrind).  A program's heap may depend on its environment (an
# interpreter copies it, setenv() grows environ): to run it as Memcheck
# does, run it as "env LD_PRELOAD=$(memcheck_preload) PROG".
memcheck_preload() {
	valgrind.bin --tool=memcheck -q /usr/bin/env 2>/dev/null | sed -n 's/^LD_PRELOAD=//p'
}

# ---- userleak (tests/progs/userleak.c), whose allocations are known -------

# userleak's numbers, as userleak.c counts them (Memcheck's way): what is
# expected where Memcheck cannot run.
EXPECT_INUSE='in use at exit: 2,724 bytes in 14 blocks'
EXPECT_TOTAL='total heap usage: 1,016 allocs, 1,002 frees, 66,824 bytes allocated'

# check_userleak_stacks WHAT OUTFILE: the last report of OUTFILE holds exactly
# userleak's four leaking stacks (2724 bytes) and nothing of what it freed.
check_userleak_stacks() {
	_what=$1
	_stacks=$(last_report_stacks "$2")
	check_match "$_what: 5 x malloc(100) = 500 bytes in 5 allocations, from leak_malloc called by main" \
		"$(stack_re 500 5 leak_malloc main userleak)" "$_stacks"
	check_match "$_what: 3 x calloc(10, 20) = 600 bytes in 3 allocations, from leak_calloc called by main" \
		"$(stack_re 600 3 leak_calloc main userleak)" "$_stacks"
	check_match "$_what: 2 x realloc(p, 300) = 600 bytes in 2 allocations, from leak_realloc called by main" \
		"$(stack_re 600 2 leak_realloc main userleak)" "$_stacks"
	check_match "$_what: 4 x posix_memalign(64, 256) = 1024 bytes in 4 allocations, from leak_memalign called by main" \
		"$(stack_re 1024 4 leak_memalign main userleak)" "$_stacks"
	if printf '%s\n' "$_stacks" | grep -Eq ' ;; (churn|realloc_seed)\+'; then
		not_ok "$_what: nothing freed is reported (churn's malloc/free, the malloc(50)s realloc took over)" \
			"$(printf '%s\n' "$_stacks" | grep -E ' ;; (churn|realloc_seed)\+')"
	else
		ok "$_what: nothing freed is reported (churn's malloc/free, the malloc(50)s realloc took over)"
	fi
	check_eq "$_what: exactly 4 stacks, 2724 bytes in 14 allocations" "4 stacks, 2724 bytes in 14" \
		"$(printf '%s\n' "$_stacks" | awk '/ bytes in [0-9]+ allocations from stack/ {
			n++; b += $1; c += $4 } END { printf "%d stacks, %d bytes in %d", n, b, c }')"
}

# check_userleak_c WHAT [ARGS...]: memtrace-read ARGS -c userleak reports, at
# the command's exit, exactly userleak's leaks, and a heap summary equal to
# that of Memcheck run in this guest (userleak.c's numbers where there is no
# Valgrind).  Its output stays in /tmp/c.out.
check_userleak_c() {
	_what=$1
	shift
	_out=/tmp/c.out
	timeout -s KILL $((120 * ${MTT_TIMEOUT_SCALE:-1})) memtrace-read "$@" -c /usr/bin/userleak \
		>"$_out" 2>&1
	check_eq "$_what: memtrace-read exits 0 when the command has exited" 0 "$?"
	_cpid=$(attached_pid "$_out")
	if [ -n "$_cpid" ]; then
		ok "$_what: 'Attaching to pid PID, Ctrl+C to quit.'"
	else
		not_ok "$_what: 'Attaching to pid PID, Ctrl+C to quit.'" "$(head -n 20 "$_out")"
		_cpid=NONE
	fi
	check_match "$_what: '[HH:MM:SS] pid PID exited; allocations in use at exit:'" \
		"^\\[[0-9:]+\\] pid $_cpid exited; allocations in use at exit:\$" "$(cat "$_out")"
	diag "$(sed -n '/exited; allocations in use at exit/,$p' "$_out" | head -n 40)"
	check_userleak_stacks "$_what" "$_out"

	# The heap summary, worded as Memcheck words it, with Memcheck's numbers.
	check_match "$_what: 'HEAP SUMMARY (pid PID /usr/bin/userleak):'" \
		"^HEAP SUMMARY \\(pid $_cpid /usr/bin/userleak\\):\$" "$(cat "$_out")"
	_summary=$(memtrace_summary "$_out" /usr/bin/userleak)
	_inuse=$(printf '%s\n' "$_summary" | grep '^in use at exit:')
	_total=$(printf '%s\n' "$_summary" | grep '^total heap usage:')
	_want_inuse=$EXPECT_INUSE
	_want_total=$EXPECT_TOTAL
	if ! command -v valgrind.bin >/dev/null 2>&1; then
		diag "no Valgrind in this guest: comparing with userleak.c's numbers"
	elif memcheck /tmp/vg-userleak.log "" /usr/bin/userleak >/dev/null 2>&1; then
		_want_inuse=$(memcheck_summary /tmp/vg-userleak.log | grep '^in use at exit:')
		_want_total=$(memcheck_summary /tmp/vg-userleak.log | grep '^total heap usage:')
		if [ "$_want_inuse" != "$EXPECT_INUSE" ] || [ "$_want_total" != "$EXPECT_TOTAL" ]; then
			diag "Memcheck differs from userleak.c's numbers: '$_want_inuse' / '$_want_total'"
		fi
	else
		not_ok "$_what: Memcheck runs userleak in the guest" "$(tail -n 15 /tmp/vg-userleak.log)"
	fi
	diag "expected heap summary: $_want_inuse / $_want_total"
	check_eq "$_what: heap summary 'in use at exit: ...' as Memcheck's" "$_want_inuse" "$_inuse"
	check_eq "$_what: heap summary 'total heap usage: ...' as Memcheck's" "$_want_total" "$_total"
}

# ---- modules and lockdown --------------------------------------------------

# strip_module_signature SRC DST: DST is SRC without its appended signature
# ([module][PKCS#7][struct module_signature: sig_len, big endian, at byte 8
# of 12]["~Module signature appended~\n"]), i.e. the module as built.
strip_module_signature() {
	_sz=$(wc -c <"$1")
	if [ "$(tail -c 28 "$1")" != "~Module signature appended~" ]; then
		cp "$1" "$2"
		return
	fi
	_len=$(od -An -tu1 -j $((_sz - 32)) -N 4 "$1" |
		awk '{ print $1 * 16777216 + $2 * 65536 + $3 * 256 + $4 }')
	head -c $((_sz - 40 - _len)) "$1" >"$2"
}

# mount_securityfs: /sys/kernel/security, for the lockdown LSM's state.
mount_securityfs() {
	[ -e /sys/kernel/security/lockdown ] ||
		mount -t securityfs securityfs /sys/kernel/security 2>/dev/null
	[ -e /sys/kernel/security/lockdown ]
}

# ---- memory cgroups ---------------------------------------------------------

# new_memcg NAME MAX: a fresh cgroup v2 memcg $MEMCG_ROOT/NAME (cgroup2
# mounted at /sys/fs/cgroup if it is not yet) with memory.max MAX and no
# swap; 1 if this kernel has no cgroup2 memory controller.
MEMCG_ROOT=/sys/fs/cgroup
new_memcg() {
	mkdir -p "$MEMCG_ROOT"
	grep -q " $MEMCG_ROOT cgroup2 " /proc/mounts ||
		mount -t cgroup2 none "$MEMCG_ROOT" 2>/dev/null
	grep -q " $MEMCG_ROOT cgroup2 " /proc/mounts &&
		grep -qw memory "$MEMCG_ROOT/cgroup.controllers" || return 1
	echo +memory >"$MEMCG_ROOT/cgroup.subtree_control" || return 1
	rmdir "$MEMCG_ROOT/$1" 2>/dev/null
	mkdir "$MEMCG_ROOT/$1" && echo "$2" >"$MEMCG_ROOT/$1/memory.max" || return 1
	[ ! -f "$MEMCG_ROOT/$1/memory.swap.max" ] || echo 0 >"$MEMCG_ROOT/$1/memory.swap.max"
}

# start_pressure_reader OUT MODE: memtrace-read MODE (--oom, --reclaim) in
# the background until SIGINT, its output in OUT; READER is its pid.  Waits
# until it is tracing ("ok - memtrace-read MODE attaches"); else "not ok",
# kills it and returns 1.
start_pressure_reader() {
	rm -f "$1"
	memtrace-read "$2" 1 3600 >"$1" 2>&1 &
	READER=$!
	if ! wait_for 60 grep -q "^Tracing " "$1"; then
		not_ok "memtrace-read $2 attaches" "$(cat "$1")"
		kill -KILL "$READER" 2>/dev/null
		return 1
	fi
	ok "memtrace-read $2 attaches"
}

# Counter snapshots for the pressure modes' /proc/vmstat oracles, as
# "name value name value ..." lines (each script picks its names).
# vmstat_delta BEFORE AFTER: AFTER - BEFORE, name by name, the same form.
vmstat_delta() {
	printf '%s\n%s\n' "$1" "$2" | awk '
		NR == 1 { for (i = 1; i < NF; i += 2) b[$i] = $(i + 1) }
		NR == 2 { s = ""
			  for (i = 1; i < NF; i += 2)
				s = s sprintf("%s%s %d", s ? " " : "", $i, $(i + 1) - b[$i])
			  print s }'
}
# vmstat_term NAME LIST: NAME's value in such a line (or a reader's "vmstat:" line).
vmstat_term() {
	printf '%s\n' "$2" | awk -v k="$1" '{ for (i = 1; i < NF; i += 2) if ($i == k) print $(i + 1) }'
}
# check_vmstat DESC COUNTER EXPECTED GOT: check_eq where /proc/vmstat has
# COUNTER; a SKIP where it has none (the debug kernel is built without
# CONFIG_VM_EVENT_COUNTERS: no oracle there).
check_vmstat() {
	if grep -q "^$2 " /proc/vmstat; then
		check_eq "$1" "$3" "$4"
	else
		skip "$1" "no $2 in /proc/vmstat (CONFIG_VM_EVENT_COUNTERS off)"
	fi
}
# alive PID / gone PID: PID runs / has exited.
alive() {
	! gone "$1"
}

gone() {
	! kill -0 "$1" 2>/dev/null && return 0
	# a child that exited and is not reaped yet (a zombie) is gone too;
	# not a process whose main thread exited while others run (also Z)
	[ "$(sed -n 's/^[0-9]* (.*) \(.\) .*/\1/p' "/proc/$1/stat" 2>/dev/null)" = Z ] &&
		[ "$(ls "/proc/$1/task" 2>/dev/null | wc -l)" -le 1 ]
}

# kill_quiet PID...: kill what a failed step left running (a reader holds
# /dev/memtrace), and reap it.
kill_quiet() {
	for _p in "$@"; do
		[ -n "$_p" ] && kill -KILL "$_p" 2>/dev/null && wait "$_p" 2>/dev/null
	done
	return 0
}

# reports_at_least FILE N: FILE holds N interval reports (their
# "[hh:mm:ss] Top N stacks" headers) or more.
reports_at_least() {
	[ "$(grep -c '^\[[0-9:]*\] Top [0-9]* stacks' "$1" 2>/dev/null)" -ge "$2" ]
}

# wait_reports SECS FILE N: wait (at most SECS, scaled as wait_for's) until
# a reader writing FILE has begun N more interval reports than it had when
# called, so that N - 1 whole ones came after the call; what a report
# does (the reader reads a new image's symbols, say) is then done, however
# slow the host.  Non-zero, with a comment, if they did not come.
wait_reports() {
	_want=$(($(grep -c '^\[[0-9:]*\] Top [0-9]* stacks' "$2" 2>/dev/null) + $3))
	wait_for "$1" reports_at_least "$2" "$_want" && return 0
	diag "wait_reports: $2 did not reach $_want reports in $1 s"
	return 1
}

# counters_still CMD: CMD (a counter snapshot) prints the same two seconds
# apart: the guest is quiet, for a run bounded by two snapshots.
counters_still() {
	_still=$("$1")
	sleep 2
	[ "$_still" = "$("$1")" ]
}

# ext4_image_mount IMG MNT: ext4 on a loop device at MNT, from the soak's
# image (/data/soak-ext4.img.gz) copied to IMG: page cache that reclaim
# can drop (the guest's own files are in RAM, and it has no swap).  Loads
# Debian's ext4 and loop modules where they are modules (EXT4_MODULES:
# the ones it loaded).  Returns non-zero if it cannot.
ext4_image_mount() {
	EXT4_MODULES=
	for _m in crc16 mbcache jbd2 crc32c_generic ext4 loop; do
		[ -f "/memtrace/$_m.ko" ] && insmod "/memtrace/$_m.ko" 2>/dev/null &&
			EXT4_MODULES="$_m $EXT4_MODULES"
	done
	mkdir -p "$2"
	[ -f /data/soak-ext4.img.gz ] && gunzip -c /data/soak-ext4.img.gz >"$1" &&
		mount -o loop -t ext4 "$1" "$2"
}
# ext4_image_umount IMG MNT: unmounts it, removes IMG and the modules it loaded.
ext4_image_umount() {
	umount "$2" 2>/dev/null
	rm -f "$1"
	for _m in $EXT4_MODULES; do
		rmmod "$_m" 2>/dev/null
	done
}

# report_stack_frames OUT BYTES N: the stack of memtrace-read's last report
# for BYTES in 1 allocation, its first N frames as "f1;f2;...": one per
# return address (inlined calls dropped: the last line of an address
# names its function), offsets, objects and lines cut off, an unnamed
# address as "???" (as Memcheck's and gdb's stacks are compared).
report_stack_frames() {
	last_report_stacks "$1" | grep -E "^[[:space:]]*$2 bytes in 1 allocations? from stack" |
		head -n 1 | awk -F' ;; ' -v n="$3" '{
			out = ""; k = 0
			for (i = 2; i <= NF && k < n; i++) {
				if ($i ~ /\(inlined\)$/) continue
				f = $i
				if (f ~ /^0x[0-9a-f]+ \[/) f = "???"
				else sub(/\+0x[0-9a-f]+ \[.*$/, "", f)
				sub(/ \[[^]]*\]( [^ ]+:[0-9]+)?$/, "", f)
				out = (k ? out ";" : "") f; k++
			}
			print out }'
}

# growth_stack OUT REGEX: the frames under the first line of OUT matching
# REGEX, one per line (memtrace-read --brk, --mmap --stacks and --shm
# --stacks print a stack's frames on the lines after it, tab-indented).
growth_stack() {
	_n=$(grep -E -n -e "$2" "$1" | head -n 1 | cut -d: -f1)
	[ -n "$_n" ] || return 0
	awk -v n="$_n" 'NR > n && /^\t\t/ { sub(/^\t\t/, ""); print; next }
		NR > n { exit }' "$1"
}

# run_read NAME ARGS...: memtrace-read ARGS into /tmp/NAME.out (stdout and
# stderr), killed after 120 s (scaled): ok if it exits 0, else not ok with
# its last lines.
run_read() {
	_rr_name=$1
	shift
	timeout -s KILL $((120 * ${MTT_TIMEOUT_SCALE:-1})) memtrace-read "$@" \
		>"/tmp/$_rr_name.out" 2>&1
	check_eq "$_rr_name: memtrace-read $* exits 0" 0 "$?" ||
		diag "$(tail -n 20 "/tmp/$_rr_name.out")"
}

# own_frames PROG: of the frames on stdin, the functions of PROG itself,
# innermost first, space-separated (inlined ones too), to main: as gdb's
# backtraces, not past it into libc's start-up code and PROG's _start,
# which stacks walked by unwind tables reach and frame pointers do not.
own_frames() {
	sed -n "s/^\([A-Za-z_][A-Za-z0-9_]*\)\(+0x[0-9a-f]*\)\{0,1\} \[$1\].*/\1/p" |
		sed '/^main$/q' | tr '\n' ' ' | sed 's/ $//'
}

# growth_stacks_framed OUT REGEX PROG: for every line of OUT matching
# REGEX (extended, as grep -E's), "FRAMES|LINE": FRAMES the own_frames
# PROG of the stack under it.  One awk for the file: a pipeline a stack
# took a minute and a half on the debug kernel for --faults' hundred.
growth_stacks_framed() {
	MTT_RE=$2 MTT_PROG=$3 awk '
		function flush() { if (hdr != "") print frames "|" hdr; hdr = "" }
		BEGIN { re = ENVIRON["MTT_RE"]
			own = "^[A-Za-z_][A-Za-z0-9_]*(\\+0x[0-9a-f]*)? \\[" ENVIRON["MTT_PROG"] "\\]" }
		hdr != "" && /^\t\t/ {
			f = substr($0, 3)
			if (!done && f ~ own) {
				sub(/[+ ].*$/, "", f)
				frames = frames (frames == "" ? "" : " ") f
				done = f == "main"
			}
			next
		}
		{ flush() }
		$0 ~ re { hdr = $0; frames = ""; done = 0 }
		END { flush() }' "$1"
}

# growth_own_stacks OUT REGEX PROG: for every line of OUT matching REGEX,
# the own_frames PROG of the stack under it, one line each.
growth_own_stacks() {
	growth_stacks_framed "$@" | sed 's/|.*$//'
}

# bench_median ROUNDS LABEL KEY1 KEY2 CMD...: CMD ROUNDS times, each run
# printing "V1 V2"; of the median run by V1, "# BENCH LABEL-KEY1 V1" and
# "# BENCH LABEL-KEY2 V2" (tests/bench: scripts/bench.sh reads them).
bench_median() {
	_bm_n=$1 _bm_label=$2 _bm_k1=$3 _bm_k2=$4
	shift 4
	_bm_i=0
	while [ "$_bm_i" -lt "$_bm_n" ]; do
		"$@"
		_bm_i=$((_bm_i + 1))
	done | grep -E '^[0-9]+ [0-9]+$' | sort -n >/tmp/bench-rounds
	diag "$_bm_label rounds ($_bm_k1 $_bm_k2): $(tr '\n' ' ' </tmp/bench-rounds)"
	# The median of the rounds that gave numbers; none: no BENCH lines.
	_bm_got=$(wc -l </tmp/bench-rounds)
	[ "$_bm_got" -gt 0 ] || return 0
	_bm_line=$(sed -n "$(((_bm_got + 1) / 2))p" /tmp/bench-rounds)
	echo "# BENCH $_bm_label-$_bm_k1 ${_bm_line% *}"
	echo "# BENCH $_bm_label-$_bm_k2 ${_bm_line#* }"
}
