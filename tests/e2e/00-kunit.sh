# SPDX-License-Identifier: GPL-2.0
# KUnit suites of memtrace (memtrace_kunit.ko, built only for kernels with
# KUnit).  Loading the module runs its suites; their KTAP output goes to the
# kernel log and is converted here to "ok - kunit: suite.case" lines.
#   sh 00-kunit.sh --convert <ktap     converts KTAP on stdin (host testing)
# mtt-timeout: 600

# ktap_convert: KTAP as printed by kunit (6.1-6.12) on stdin, with or without
# printk timestamps, to one line per test case:
#   "ok - kunit: suite.case" / "not ok - kunit: suite.case" / "... # SKIP why"
# A suite that reports no cases (e.g. its suite_init failed) gives one line
# "ok/not ok - kunit: suite"; a suite without a result line gives
# "not ok - kunit: suite (incomplete KTAP output)".  The diagnostics printed
# before a failed case's result (EXPECTATION FAILED ...) become comments.
ktap_convert() {
	awk '
	function level(s,   n) {	# 4 spaces (or a tab) per nesting level
		match(s, /^[ \t]*/)
		n = substr(s, 1, RLENGTH)
		gsub(/\t/, "    ", n)
		return int(length(n) / 4)
	}
	function emit(l, name,   st, dir) {
		st = (l ~ /^not /) ? "not ok" : "ok"
		dir = ""
		if (match(l, /[ \t]#[ \t]*SKIP/)) {
			dir = substr(l, RSTART + RLENGTH)
			sub(/^[ \t]+/, "", dir)
			dir = " # SKIP " dir
		}
		print st " - kunit: " name dir
		if (st == "not ok")
			for (i = 0; i < ndiag; i++) print "#   " diag[i]
		ndiag = 0
	}
	function rname(l) {
		sub(/^(not ok|ok) [0-9]+ /, "", l)
		sub(/[ \t]+#.*$/, "", l)
		return l
	}
	{
		sub(/\r$/, "")
		sub(/^(\[[ 0-9.]+\] ?)+/, "")		# printk timestamp
		lv = level($0)
		l = $0
		sub(/^[ \t]+/, "", l)
	}
	lv == 1 && l ~ /^# Subtest: / {
		suite = substr(l, 12); open_suite[suite] = 1; ncases = 0; ndiag = 0
		next
	}
	lv == 1 && l ~ /^(not ok|ok) [0-9]+ / {
		emit(l, suite "." rname(l)); ncases++
		next
	}
	lv == 0 && l ~ /^(not ok|ok) [0-9]+ / {
		name = rname(l)
		if (!(name in open_suite) || ncases == 0) emit(l, name)
		delete open_suite[name]
		suite = ""; ncases = 0; ndiag = 0
		next
	}
	lv >= 1 && l !~ /^(KTAP version|1\.\.[0-9])/ && l !~ /^# Subtest:/ && l !~ /^# .*: pass:[0-9]+ fail:/ {
		if (lv >= 2 && l ~ /^(not ok|ok) [0-9]+ / && l !~ /^not /) next	# passed parameter
		if (ndiag < 40) diag[ndiag++] = l
		next
	}
	lv == 0 && l ~ /^# .*failed to initialize/ { if (ndiag < 40) diag[ndiag++] = l }
	END {
		for (s in open_suite) print "not ok - kunit: " s " (incomplete KTAP output)"
	}'
}

# KTAP progress on stdin: "<suites still running> <suite results seen>".
ktap_progress() {
	awk '
	{ sub(/\r$/, ""); sub(/^(\[[ 0-9.]+\] ?)+/, "") }
	/^    # Subtest: / { open[substr($0, 16)] = 1 }
	/^(not ok|ok) [0-9]+ / {
		n = $0; sub(/^(not ok|ok) [0-9]+ /, "", n); sub(/[ \t]+#.*$/, "", n)
		delete open[n]; f++
	}
	END { for (s in open) o++; print o + 0, f + 0 }'
}

if [ "${1:-}" = --convert ]; then
	ktap_convert
	exit 0
fi

. "${0%/*}/lib.sh"

KO=/memtrace/memtrace_kunit.ko
if [ ! -f "$KO" ]; then
	echo "# no KUnit on this kernel"
	exit 0
fi

mark="memtrace-kunit-start-$$-$(date +%s)"
kmsg "$mark"
log=/tmp/kunit.$$
if ! out=$(insmod "$KO" 2>&1); then
	not_ok "kunit: insmod memtrace_kunit.ko" "$out"
	dmesg | tail -n 20 | sed 's/^/# /'
	exit 0
fi

# The suites run during insmod (module notifier); wait until every suite
# that started has its result line, and the log has stopped growing.
i=0
prev=
while :; do
	dmesg | awk -v m="$mark" 'f { print } index($0, m) { f = 1 }' >"$log"
	# shellcheck disable=SC2046 # two numbers
	set -- $(ktap_progress <"$log")
	cur="$1 $2 $(wc -l <"$log")"
	if [ "$1" -eq 0 ] && [ "$2" -gt 0 ] && [ "$cur" = "$prev" ]; then
		break
	fi
	prev=$cur
	i=$((i + 1))
	if [ "$i" -ge 300 ]; then
		diag "kunit: KTAP output incomplete after 60 s ($1 suites unfinished, $2 finished)"
		break
	fi
	sleep 0.2
done

if [ "$(ktap_progress <"$log")" = "0 0" ] && ! grep -q 'Subtest:' "$log"; then
	not_ok "kunit: KTAP output" "no KTAP found in dmesg after loading $KO
$(tail -n 20 "$log")"
else
	ktap_convert <"$log"
fi
rm -f "$log"

if ! out=$(rmmod memtrace_kunit 2>&1); then
	not_ok "kunit: rmmod memtrace_kunit" "$out"
fi
exit 0
