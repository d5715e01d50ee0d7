#!/bin/sh
# Host test of the guests' time-out report (tests/guest/stuck.sh), in the
# shell the guests run it in (busybox ash; dash if there is no busybox).
# Prints TAP lines; make check's unit stage runs it (root: /proc/PID/stack).
#
# The report must name each process of the hung script (MTT_RUN=1 in its
# environment) with its state and what it waits in, and no other process;
# cancelled in time (TERM), it must print nothing and leave no sleep behind.
if [ -z "${MTT_STUCK_SHELL:-}" ]; then
	MTT_STUCK_SHELL=sh
	command -v busybox >/dev/null 2>&1 && MTT_STUCK_SHELL="busybox sh"
	export MTT_STUCK_SHELL
	exec $MTT_STUCK_SHELL "$0" "$@"
fi

here=$(cd "$(dirname "$0")" && pwd)
. "$here/stuck.sh"

n=0
failed=0
ok() {
	n=$((n + 1))
	echo "ok $n - $1"
}
not_ok() {
	n=$((n + 1))
	failed=$((failed + 1))
	echo "not ok $n - $1"
}
check() {
	desc=$1
	shift
	if "$@"; then ok "$desc"; else not_ok "$desc"; fi
}

work=$(mktemp -d) || exit 1
pids=
cleanup() {
	# shellcheck disable=SC2086
	[ -z "$pids" ] || kill $pids 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

# state PID: the process's one-letter state from /proc/PID/stat.
state() {
	read -r _ _ st _ 2>/dev/null <"/proc/$1/stat" && echo "$st"
}

# A hung script: `cat` blocked reading a pipe no one writes to, the shell
# running it waiting for it.  The writer holds the pipe open without the
# script's marker: it must not be reported.
mkfifo "$work/fifo"
sleep 60 >"$work/fifo" &
writer=$!
MTT_RUN=1 sh -c 'cat <"$1" >/dev/null; :' sh "$work/fifo" &
script=$!
pids="$writer $script"
cat_pid=
i=0
while [ $i -lt 100 ]; do
	cat_pid=$(grep -lsxz 'MTT_RUN=1' /proc/[0-9]*/environ |
		while read -r f; do
			d=${f%/environ}
			read -r _ comm _ 2>/dev/null <"$d/stat"
			[ "$comm" = "(cat)" ] && echo "${d#/proc/}"
		done | head -n 1)
	[ -n "$cat_pid" ] && [ "$(state "$cat_pid")" = S ] && break
	sleep 0.1
	i=$((i + 1))
done
pids="$pids $cat_pid"

report_stuck_after 1 >"$work/report" 2>&1 &
watcher=$!
i=0
while [ $i -lt 200 ] && kill -0 "$watcher" 2>/dev/null; do
	sleep 0.1
	i=$((i + 1))
done
check "the time-out report ends after its delay" \
	sh -c '! kill -0 "$1" 2>/dev/null' sh "$watcher"
wait "$watcher" 2>/dev/null
sed 's/^/#   /' "$work/report"

check "one line of free memory, in MiB" \
	grep -Eqx '# at the time-out, MemFree: [0-9]+ MiB MemAvailable: [0-9]+ MiB ' "$work/report"
check "the blocked cat (pid $cat_pid) named with its state" \
	grep -Eq "^# at the time-out: pid $cat_pid \\(cat\\) S in " "$work/report"
check "the script's shell (pid $script) named too" \
	grep -Eq "^# at the time-out: pid $script \\(sh\\) S in " "$work/report"
check "no process without the script's marker (the writer, pid $writer)" \
	sh -c '! grep -q "pid $1 " "$2"' sh "$writer" "$work/report"

# What the cat waits in: its wchan, and its innermost kernel frame where
# this kernel shows stacks (read now: it has not moved).
wchan=$(cat "/proc/$cat_pid/wchan" 2>/dev/null)
case $wchan in
'' | 0) ok "# SKIP the kernel shows no wchan" ;;
*) check "the cat's wait channel ($wchan)" \
	grep -Eq "^# at the time-out: pid $cat_pid \\(cat\\) S in $wchan: " "$work/report" ;;
esac
frame=$(sed -n '1s/^\[<[0-9a-f]*>\] \([^+]*\)+.*/\1/p' "/proc/$cat_pid/stack" 2>/dev/null)
if [ -n "$frame" ]; then
	check "the cat's innermost kernel frame ($frame)" \
		grep -Eq "^# at the time-out: pid $cat_pid \\(cat\\) S in [^:]*: $frame(<|\$)" "$work/report"
else
	ok "# SKIP the kernel shows no stacks here"
fi

# Cancelled before its delay, as init.sh does when a script ends in time:
# nothing printed, the report and its sleep both gone at once.
report_stuck_after 30 >"$work/cancelled" 2>&1 &
watcher=$!
sleeper=
i=0
while [ $i -lt 100 ] && [ -z "$sleeper" ]; do
	for s in /proc/[0-9]*/stat; do
		read -r p comm _ ppid _ 2>/dev/null <"$s" || continue
		[ "$ppid" = "$watcher" ] && [ "$comm" = "(sleep)" ] && sleeper=$p
	done
	[ -n "$sleeper" ] || sleep 0.1
	i=$((i + 1))
done
pids="$pids $watcher $sleeper"
kill "$watcher"
i=0
while [ $i -lt 50 ] && { kill -0 "$watcher" 2>/dev/null || kill -0 "$sleeper" 2>/dev/null; }; do
	sleep 0.1
	i=$((i + 1))
done
wait "$watcher" 2>/dev/null
check "cancelled: the report ends at once" \
	sh -c '! kill -0 "$1" 2>/dev/null' sh "$watcher"
check "cancelled: its sleep (pid ${sleeper:-none found}) is gone" \
	sh -c '[ -n "$1" ] && ! kill -0 "$1" 2>/dev/null' sh "$sleeper"
check "cancelled: nothing printed" test ! -s "$work/cancelled"

echo "# $MTT_STUCK_SHELL: $n checks, $failed failed"
[ "$failed" -eq 0 ]
