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

# start_kernel_reader OUT LABEL ARGS...: memtrace-read --kernel-leaks ARGS
# in the background, its output in OUT (emptied first: an earlier reader's
# "Attaching" line is not taken for this one's); READER is its pid.  Waits
# until it has attached; else reports "not ok - LABEL", kills it and
# returns 1.
start_kernel_reader() {
	_out=$1 _label=$2
	shift 2
	rm -f "$_out"
	memtrace-read --kernel-leaks "$@" >"$_out" 2>&1 &
	READER=$!
	if ! wait_for 60 grep -q "Attaching to kernel allocators" "$_out"; then
		not_ok "$_label" "$(cat "$_out")"
		kill -KILL "$READER" 2>/dev/null
		return 1
	fi
}

# The last report of a memtrace-read output, one stack a line:
#   "<header> ;; <frame> ;; <frame> ..."
# A report starts with "[HH:MM:SS] Top N stacks with outstanding allocations:"
# (every interval, and the final one on SIGINT) or with
# "[HH:MM:SS] pid PID exited; allocations in use at exit:" (or exec'd ... exec).
last_report_stacks() {
	awk '/^\[[0-9:]+\] (Top [0-9]+ stacks|pid [0-9]+ (exited|exec.d))/ { n++; r[n] = "" }
	     n { r[n] = r[n] $0 "\n" }
	     END { printf "%s", r[n] }' "$1" |
	awk '/ bytes in [0-9]+ allocations from stack/ { if (s != "") print s; s = $0; next }
	     /^[ \t]+[^ \t]/ && s != "" { sub(/^[ \t]+/, ""); s = s " ;; " $0; next }
	     { if (s != "") print s; s = "" }
	     END { if (s != "") print s }'
}

# ---- user mode ------------------------------------------------------------

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
# ordinary run never makes.  (Options are not passed through the
# environment: the program would see one variable more.)
memcheck() {
	_log=$1 _opts=$2
	shift 2
	# shellcheck disable=SC2086 # _opts: words meant to split
	timeout -s KILL $((600 * ${MTT_TIMEOUT_SCALE:-1})) valgrind.bin --tool=memcheck \
		--run-libc-freeres=no --run-cxx-freeres=no $_opts \
		--log-file="$_log" -- "$@" </dev/null
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
