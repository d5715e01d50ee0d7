#!/bin/sh
# The time-out report of a guest's test scripts, sourced by /init (init.sh;
# run-guest.sh copies it to /stuck.sh) and by tests/guest/test-stuck.sh,
# which checks it on the host.  busybox ash and dash both run it.
#
# report_stuck_after SECS: SECS from now, one comment line for each process
# of the running script (what it waits in, the innermost kernel frames) and
# one of free memory, so that a script killed at its time-out says where it
# hung: the host shows a failure's last 20 lines.  The script's processes
# are those with MTT_RUN=1 in their environment.  Killed (TERM) when the
# script ends in time, and its sleep with it; the sleep holds none of the
# output pipe.
report_stuck_after() {
	sleep "$1" >/dev/null 2>&1 &
	_sleep=$!
	trap 'kill "$_sleep" 2>/dev/null; exit 0' TERM
	wait "$_sleep"
	echo "# at the time-out, $(awk '$1 ~ /^(MemFree|MemAvailable):$/ { printf "%s %d MiB ", $1, $2 / 1024 }' /proc/meminfo)"
	for f in $(grep -lsxz 'MTT_RUN=1' /proc/[0-9]*/environ); do
		d=${f%/environ}
		read -r _ comm st _ 2>/dev/null <"$d/stat" || continue
		k=$(sed -n '1,6s/^\[<[0-9a-f]*>\] //p' "$d/stack" 2>/dev/null | sed 's/+0x[0-9a-f/x]*//' | tr '\n' '<')
		echo "# at the time-out: pid ${d#/proc/} $comm $st in $(cat "$d/wchan" 2>/dev/null): ${k%<}"
	done | head -n 16
}
