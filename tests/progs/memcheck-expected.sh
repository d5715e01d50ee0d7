#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# memcheck-expected.sh [-o FILE] PROG [ARGS...]: run PROG under Valgrind
# Memcheck on the host and print its heap summary as two lines, worded
# exactly as Memcheck words them, without the "==PID==" prefix and the
# indentation (-o: into FILE instead, written only on success):
#   in use at exit: 2,724 bytes in 14 blocks
#   total heap usage: 1,016 allocs, 1,002 frees, 66,824 bytes allocated
# PROG's own output goes to stderr, through a regular file: stdio sizes its
# buffer (a malloc) by what stdout is, and in the guests stdout is a file.
# Exit status non-zero (and a message on stderr) if valgrind is missing,
# PROG fails, or the lines are not found.
# --run-libc-freeres=no: count what the program leaves, not what glibc's
# exit-time cleanup (which only Valgrind runs) would free.
set -u
outfile=
if [ "${1:-}" = -o ]; then
	[ $# -ge 2 ] || { echo "usage: $0 [-o FILE] PROG [ARGS...]" >&2; exit 2; }
	outfile=$2
	shift 2
fi
[ $# -ge 1 ] || { echo "usage: $0 [-o FILE] PROG [ARGS...]" >&2; exit 2; }
command -v valgrind >/dev/null 2>&1 || { echo "$0: valgrind not found" >&2; exit 2; }
log=$(mktemp "${TMPDIR:-/tmp}/memcheck.XXXXXX") || exit 2
pout=$(mktemp "${TMPDIR:-/tmp}/memcheck-out.XXXXXX") || { rm -f "$log"; exit 2; }
trap 'rm -f "$log" "$pout"' EXIT
valgrind --tool=memcheck --leak-check=full --run-libc-freeres=no \
	--log-file="$log" -- "$@" >"$pout" </dev/null
rc=$?
cat "$pout" >&2
if [ "$rc" -ne 0 ]; then
	echo "$0: valgrind $* exited $rc" >&2
	cat "$log" >&2
	exit 1
fi
out=$(sed -n -E 's/^==[0-9]+==[[:space:]]+((in use at exit|total heap usage): .*[^[:space:]])[[:space:]]*$/\1/p' "$log")
if [ "$(printf '%s\n' "$out" | grep -c .)" -ne 2 ]; then
	echo "$0: no HEAP SUMMARY in valgrind's output:" >&2
	cat "$log" >&2
	exit 1
fi
if [ -n "$outfile" ]; then
	if ! { printf '%s\n' "$out" >"$outfile.tmp$$" && mv -f "$outfile.tmp$$" "$outfile"; }; then
		rm -f "$outfile.tmp$$"
		exit 1
	fi
else
	printf '%s\n' "$out"
fi
