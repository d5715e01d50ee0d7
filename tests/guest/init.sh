#!/bin/sh
# /init of a memtrace test guest (copied into the initramfs by run-guest.sh).
# busybox ash; reads /etc/mtt.conf (MTT_LABEL, MTT_SCRIPTS, MTT_TIMEOUT,
# MTT_TIMEOUT_SCALE).
#
# Protocol (host side: run-guest.sh).  Everything the host parses is written
# to /dev/kmsg, one printk record per line, so it reaches the serial console
# whole (never cut by a kernel message) and in order with kernel messages,
# and survives a panic (the kernel flushes its log to the console).  The
# console shows it as "[  time] MTT...":
#   MTT!INIT                        /init runs (before the kmemleak baseline)
#   MTT!START <uname -r>            tests start
#   MTT!BEGIN <script>              a test script starts
#   MTT:<line>                      one line of the script's stdout/stderr
#   MTT!END <script> <rc> <secs> <timed-out 0|1>
#   MTT!CLEANUP <script> <module> unloaded|busy   module the script left loaded
#   MTT!KMEMLEAK-SINCE <jiffies>    kmemleak baseline taken (before START)
#   MTT!KMEMLEAK-BEGIN / MTT!KMEMLEAK <line> / MTT!KMEMLEAK-END
#   MTT!KMEMLEAK-DISABLED
#   MTT!DONE                        all done; reboot follows
# The records have level 5 (notice); the kernel command line has
# printk.devkmsg=on (no rate limit) and a console loglevel that shows them.

/usr/bin/busybox --install -s
export PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root TERM=dumb
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
exec 0</dev/null 1>/dev/console 2>&1
mkdir -p /dev/shm /dev/pts /tmp /run /root
mount -t tmpfs tmpfs /dev/shm 2>/dev/null
mount -t devpts devpts /dev/pts 2>/dev/null
[ -d /sys/kernel/debug ] && mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
[ -d /sys/kernel/tracing ] && mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
hostname memtrace-guest 2>/dev/null

MTT_LABEL=guest MTT_SCRIPTS='' MTT_TIMEOUT=300 MTT_TIMEOUT_SCALE=1
# shellcheck disable=SC1091
. /etc/mtt.conf
export MTT_LABEL MTT_TIMEOUT_SCALE

# fd 4: results channel (kmsg; the console if there is no /dev/kmsg).
echo on >/proc/sys/kernel/printk_devkmsg 2>/dev/null
if (: >/dev/kmsg) 2>/dev/null; then
	exec 4>/dev/kmsg
	lvl='<5>'
else
	exec 4>/dev/console
	lvl=
fi

ctl() {
	echo "${lvl}MTT!$*" >&4
}

now() {
	read -r up _ </proc/uptime
	echo "$up"
}

# Kill whatever a test script left running (it holds the output pipe open).
# Test processes are recognised by MTT_RUN=1 in their environment.
kill_leftovers() {
	for f in $(grep -lsxz 'MTT_RUN=1' /proc/[0-9]*/environ); do
		f=${f#/proc/}
		kill -KILL "${f%/environ}" 2>/dev/null
	done
}

mods() {
	cut -d' ' -f1 /proc/modules 2>/dev/null | tr '\n' ' '
}

# Unload the modules a script left loaded (newest first, as /proc/modules
# lists them), so that the next script starts clean.
unload_new_mods() {
	for m in $(mods); do
		case " $1 " in *" $m "*) continue ;; esac
		if rmmod "$m" 2>/dev/null; then
			ctl "CLEANUP $2 $m unloaded"
		else
			ctl "CLEANUP $2 $m busy"
		fi
	done
}

# report_stuck_after: the time-out report (stuck.sh, its own file so that
# the host can test it).
# shellcheck disable=SC1091
. /stuck.sh

run_one() {
	name=$1
	mods_before=$(mods)
	t=$(sed -n 's/^#[[:space:]]*mtt-timeout:[[:space:]]*\([0-9][0-9]*\).*/\1/p' "/tests/$name" | head -n1)
	[ -n "$t" ] || t=$MTT_TIMEOUT
	t=$((t * MTT_TIMEOUT_SCALE))
	ctl "BEGIN $name"
	t0=$(now)
	rm -f /run/mtt.rc
	{
		cd /tmp || :
		# 5 s a unit of the time-out's scale: the report forks a few
		# processes per line, slow on the debug kernel under TCG
		m=$((5 * MTT_TIMEOUT_SCALE))
		report_stuck_after $((t > 2 * m ? t - m : t)) &
		watcher=$!
		MTT_RUN=1 timeout -s KILL "$t" sh "/tests/$name" </dev/null 2>&1
		echo "$?" >/run/mtt.rc
		kill "$watcher" 2>/dev/null
		kill_leftovers
	} | while IFS= read -r l || [ -n "$l" ]; do
		if [ "${#l}" -le 900 ]; then
			echo "${lvl}MTT:$l" >&4
		else
			# a kmsg record holds < 1 KiB: a longer write is refused
			printf '%s\n' "$l" | fold -b -w 900 | while IFS= read -r c; do
				echo "${lvl}MTT:$c" >&4
			done
		fi
	done
	rc=255
	[ -s /run/mtt.rc ] && read -r rc </run/mtt.rc
	t1=$(now)
	el=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
	to=0
	if [ "$rc" -ge 128 ] && awk -v a="$t0" -v b="$t1" -v t="$t" 'BEGIN { exit !(b - a >= t - 0.5) }'; then
		to=1
	fi
	ctl "END $name $rc $el $to"
	unload_new_mods "$mods_before" "$name"
}

ctl "INIT"
KML=/sys/kernel/debug/kmemleak
kml_ok=0
if [ -e "$KML" ]; then
	# Forget what the boot itself leaked: only leaks from the tests count.
	if echo scan >"$KML" 2>/dev/null; then
		echo clear >"$KML" 2>/dev/null
		kml_ok=1
	fi
fi

if [ "$kml_ok" = 1 ]; then
	# kmemleak may later report objects allocated during boot (once a
	# transient reference to them is gone): the host ignores reports of
	# objects allocated before this jiffies value.
	j=$(sed -n 's/^jiffies: *\([0-9][0-9]*\).*/\1/p' /proc/timer_list 2>/dev/null | head -n1)
	[ -n "$j" ] && ctl "KMEMLEAK-SINCE $j"
fi
ctl "START $(uname -r)"
for s in $MTT_SCRIPTS; do
	run_one "$s"
done

if [ -e "$KML" ]; then
	if [ "$kml_ok" = 1 ] && echo scan >"$KML" 2>/dev/null; then
		# Objects younger than 5 s are never reported; scan again after that.
		sleep 5
		echo scan >"$KML" 2>/dev/null
		ctl "KMEMLEAK-BEGIN"
		while IFS= read -r l; do
			ctl "KMEMLEAK $(printf '%.800s' "$l")"
		done <"$KML"
		ctl "KMEMLEAK-END"
	else
		ctl "KMEMLEAK-DISABLED"
	fi
fi

ctl "DONE"
exec 4>&-
sync
reboot -f
sleep 5
echo b >/proc/sysrq-trigger
