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
	awk '/^\[[0-9:]+\] (Top [0-9]+ stacks|pid [0-9]+ (exited|exec.d))/ { n++; r[n] = "" }
	     n { r[n] = r[n] $0 "\n" }
	     END { printf "%s", r[n] }' "$1" |
	awk '/ bytes in [0-9]+ allocations from stack/ { if (s != "") print s; s = $0; next }
	     /^[ \t]+[^ \t]/ && s != "" { sub(/^[ \t]+/, ""); s = s " ;; " $0; next }
	     { if (s != "") print s; s = "" }
	     END { if (s != "") print s }'
}
