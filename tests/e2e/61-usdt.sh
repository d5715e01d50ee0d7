#!/bin/sh
# memtrace-read --usdt BINARY:PROVIDER:NAME against tests/progs/usdtprog,
# built with <sys/sdt.h>: memtrace_test:plain (no semaphore; arguments in
# registers, in memory at rbp-8 and a constant) and memtrace_test:gated
# (reached only while its semaphore is set, as a program guards costly
# arguments).  The program's own account is the oracle: each probe must
# fire exactly as often as the program reached it, with the values it
# passed, from hit_plain < run_loop < main; the semaphore the program reads
# must be nonzero only while traced: -c from the exec, -p from attach to
# detach, system-wide for every run of the program while the reader runs;
# the same probe in a shared library (usdtprog-shared, libusdtgate.so);
# -p stays on a process whose main thread ended while another runs on;
# --json's records carry the numbers of the text beside them.
# mtt-timeout: 300
. "${0%/*}/lib.sh"

if ! load_memtrace; then
	not_ok "load memtrace.ko"
	exit 0
fi
cd /tmp || exit 0
BIN=/usr/bin/usdtprog
OUT=/tmp/usdt.out
N=5

# The arguments hit i passes, as the reader prints them.
plain_args() {
	printf 'arg1=%d arg2=%d arg3=0x%x arg4=%d arg5=42 arg6=0x%x\n' \
		"$1" $((-3 * $1)) $((1000000007 * $1)) $((-$1)) $((0x1122334455667700 + $1))
}
# The arguments of every hit of probe $2 in output $1, one line each.
hits_of() {
	sed -n "s/^[0-9.][0-9.]*  *[0-9][0-9]*  *[0-9][0-9]*  *usdtprog  *$2  *//p" "$1"
}
# hits_reach OUT PROBE N: OUT has N hits of PROBE (wait_for evaluates it anew each time).
hits_reach() {
	[ "$(hits_of "$1" "$2" | wc -l)" -ge "$3" ]
}

# start_driven_usdtprog: usdtprog driven through fd 3 (a fifo), its output
# in $PROG_OUT, its pid in TARGET, once it has printed its semaphore.
start_driven_usdtprog() {
	rm -f /tmp/usdt.fifo "$PROG_OUT"
	mkfifo /tmp/usdt.fifo
	usdtprog - </tmp/usdt.fifo >"$PROG_OUT" 2>&1 &
	TARGET=$!
	exec 3>/tmp/usdt.fifo
	echo sem >&3
	wait_for 10 grep -q '^semaphore=' "$PROG_OUT"
}

out=$(usdtprog 3)
check_eq "untraced: the semaphore is 0, the gated probe never reached" \
	"semaphore=0
ran 3 plain=3 gated=0
semaphore=0" "$out"

# -c: the plain probe, every hit with its arguments.
memtrace-read --usdt "$BIN:memtrace_test:plain" -- usdtprog $N >"$OUT" 2>&1
check_eq "--usdt -c: the command's exit status" 0 "$?" || diag "$(cat "$OUT")"
check_match "--usdt -c: the program reached plain $N times" "^ran $N plain=$N gated=0\$" \
	"$(cat "$OUT")"
want=$(i=1; while [ $i -le $N ]; do plain_args $i; i=$((i + 1)); done)
check_eq "--usdt: $N hits of plain, each with the values passed (registers, memory, constant)" \
	"$want" "$(hits_of "$OUT" memtrace_test:plain)" || diag "$(cat "$OUT")"
check_match "--usdt: the hits counted by stack" \
	"^	$N hits by usdtprog \[[0-9]+\] from stack\$" "$(cat "$OUT")"
check_eq "--usdt: the stack is hit_plain < run_loop < main" "hit_plain run_loop main" \
	"$(growth_stack "$OUT" "^	$N hits by usdtprog " | own_frames usdtprog)"
check_eq "--usdt: plain has no semaphore, gated's stays 0" "semaphore=0 semaphore=0" \
	"$(grep '^semaphore=' "$OUT" | tr '\n' ' ' | sed 's/ $//')"
check_match "--usdt: nothing lost" '^Lost: 0 events' "$(cat "$OUT")"
check_match "--usdt: no stack cut short, no argument unreadable" \
	'^Missed: 0 stacks cut short; 0 hits' "$(cat "$OUT")"

# --folded: the same hits as one folded line, root first, valued in hits.
memtrace-read --usdt "$BIN:memtrace_test:plain" --folded=/tmp/usdt.folded -- usdtprog $N \
	>/tmp/usdt-f.out 2>&1
check_eq "--usdt --folded=FILE: the command's exit status" 0 "$?" || diag "$(cat /tmp/usdt-f.out)"
check_match "--usdt --folded: usdtprog;...;main;run_loop;hit_plain $N" \
	"^usdtprog;(.*;)?main;run_loop;hit_plain $N\$" "$(cat /tmp/usdt.folded)"

# --json=FILE: a record per hit, the report and the totals, from the same
# hits as the text beside it: every number the text's (docs/report-json.md).
cat >/tmp/usdt-ev.py <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
what = sys.argv[2]
for r in recs:
    assert r["memtrace_event"] == 1 and r["mode"] == "usdt" and r["time"], r
def arg(v):
    return "?" if v is None else str(v)
if what == "hits":                # the text's hit lines: time, task, probe, arguments
    for r in recs:
        if r["type"] == "hit":
            print("%.6f" % (r["elapsed_ns"] / 1e9), r["pid"], r["tid"], r["comm"], r["probe"],
                  " ".join("arg%d=%s" % (i + 1, arg(v)) for i, v in enumerate(r["args"])))
elif what == "report":            # the text's report, less its time
    r = [r for r in recs if r["type"] == "report"][-1]
    print("Top %d stacks by hits of %s (%d hits):" % (len(r["stacks"]), r["probe"], r["hits"]))
    for s in r["stacks"]:
        print("\t%d hits by %s [%d] from stack" % (s["hits"], s["comm"], s["pid"]))
        for f in s["frames"] or [{"text": "[no user stack]"}]:
            print("\t\t" + f["text"])
elif what == "totals":
    l = [r for r in recs if r["type"] == "totals"][-1]["lost"]
    print("Lost: %d events; Missed: %d stacks cut short; %d hits" % (l["events"],
          l["stacks_cut"], l["args_unread"]))
elif what == "types":
    print(" ".join(r["type"] for r in recs))
PY
usdt_ev() { python3 /tmp/usdt-ev.py "$@" 2>&1; }
memtrace-read --usdt "$BIN:memtrace_test:plain" --json=/tmp/usdt.json --pprof /tmp/usdt.pb.gz \
	--prometheus /tmp/usdt.prom --svg /tmp/usdt.svg -- usdtprog $N >/tmp/usdt-j.out 2>&1
check_eq "--usdt --json=FILE --pprof --prometheus --svg: the command's exit status" 0 "$?" ||
	diag "$(cat /tmp/usdt-j.out)"
check "--usdt --json: every record valid against docs/memtrace-report.schema.json" \
	python3 /data/validate-json.py /data/memtrace-report.schema.json /tmp/usdt.json
# The other formats: the $N hits from hit_plain < run_loop < main, read by
# their consumers (go tool pprof, promtool; the flame graph's boxes).
PPROF=$(ls /usr/lib/go-*/pkg/tool/linux_amd64/pprof 2>/dev/null | head -n 1)
if [ -z "$PPROF" ]; then
	not_ok "--usdt --pprof: go tool pprof's binary in the guest (tests/e2e/host-files.list)"
else
	out=$(HOME=/tmp "$PPROF" -top -symbolize=none /tmp/usdt.pb.gz 2>&1)
	check_match "--usdt --pprof: go tool pprof -top: the $N hits, all in hit_plain" \
		"^ +$N +100% +100% +$N +100% +hit_plain\$" "$out"
	check_match "--usdt --pprof: go tool pprof reads the sample type, hits" \
		'^Type: hits$' "$out"
fi
check "--usdt --prometheus: promtool check metrics accepts the file" \
	sh -c "promtool check metrics </tmp/usdt.prom"
check_eq "--usdt --prometheus: the top stack's hits by rank and functions, the total" \
	"memtrace_growth_stack_hits{mode=\"usdt\",rank=\"1\",functions=\"hit_plain;run_loop;main\"} $N
memtrace_usdt_hits_total{mode=\"usdt\"} $N" \
	"$(grep -E '^memtrace_(growth_stack_hits|usdt_hits_total)\{' /tmp/usdt.prom)"
check_match "--usdt --svg: the flame graph's root holds the $N hits" \
	"<title>all \\($N hits, 100\\.00%\\)</title>" "$(cat /tmp/usdt.svg)"
check_match "--usdt --svg: hit_plain's box, with the $N hits" \
	"<title>hit_plain \\($N hits, 100\\.00%\\)</title>" "$(cat /tmp/usdt.svg)"
check_eq "--usdt --json: a record per hit: the text line's time, task, probe, arguments" \
	"$(awk '$1 ~ /^[0-9]+\.[0-9]+$/ && $5 == "memtrace_test:plain"' /tmp/usdt-j.out |
	   tr -s ' ')" "$(usdt_ev /tmp/usdt.json hits)"
check_eq "--usdt --json: the $N hits' arguments, the values the program passed" "$want" \
	"$(usdt_ev /tmp/usdt.json hits | cut -d' ' -f6-)"
check_eq "--usdt --json: the report, its stacks' hits, tasks and frames, as the text's" \
	"$(awk '/^\[[0-9:]+\] Top [0-9]+ stacks by hits of / { sub(/^\[[0-9:]+\] /, ""); on = 1 }
		on && !/^(Top |\t)/ { exit } on' /tmp/usdt-j.out)" \
	"$(usdt_ev /tmp/usdt.json report)"
check_eq "--usdt --json: the totals' lost and missed, as the text's" \
	"$(sed -n 's/^\(Lost: [0-9]* events\).*/\1/p' /tmp/usdt-j.out); $(sed -n 's/^\(Missed: [0-9]* stacks cut short; [0-9]* hits\).*/\1/p' /tmp/usdt-j.out)" \
	"$(usdt_ev /tmp/usdt.json totals)"
# --json on stdout: the records there in place of the text, the banner on stderr.
memtrace-read --usdt "$BIN:memtrace_test:plain" --json -- usdtprog 2 >/tmp/usdt-j2.out \
	2>/tmp/usdt-j2.err
check_eq "--usdt --json: the command's exit status" 0 "$?" || diag "$(cat /tmp/usdt-j2.err)"
grep '^{' /tmp/usdt-j2.out >/tmp/usdt-j2.json
check_eq "--usdt --json on stdout: two hits, the report, the totals" \
	"hit hit report totals" "$(usdt_ev /tmp/usdt-j2.json types)"
check_eq "--usdt --json on stdout: nothing else there but the program's own lines" \
	"semaphore=0 ran 2 plain=2 gated=0 semaphore=0" \
	"$(grep -v '^{' /tmp/usdt-j2.out | tr '\n' ' ' | sed 's/ $//')"
check_match "--usdt --json on stdout: the banner on stderr" '^Tracing memtrace_test:plain ' \
	"$(cat /tmp/usdt-j2.err)"
diag "--usdt JSON, folded at 150 columns:"
{ head -n 2 /tmp/usdt.json; tail -n 2 /tmp/usdt.json; } | fold -w 150 | sed 's/^/#json /'

# -c: the gated probe: its semaphore is set from the exec on.
OUT=/tmp/usdt-gated.out
memtrace-read --usdt "$BIN:memtrace_test:gated" -- usdtprog 4 >"$OUT" 2>&1
check_eq "--usdt gated -c: the command's exit status" 0 "$?" || diag "$(cat "$OUT")"
check_eq "--usdt gated -c: the semaphore is 1 while traced, the probe reached 4 times" \
	"semaphore=1 ran 4 plain=4 gated=4 semaphore=1" \
	"$(grep -E '^(semaphore|ran)' "$OUT" | tr '\n' ' ' | sed 's/ $//')"
check_eq "--usdt gated: 4 hits, with i and the semaphore's value" \
	"arg1=1 arg2=1
arg1=2 arg2=1
arg1=3 arg2=1
arg1=4 arg2=1" "$(hits_of "$OUT" memtrace_test:gated)"

# A probe and its semaphore in a shared library (as libc's memory_* probes
# would be): named by the library's path, set as the loader maps it.
OUT=/tmp/usdt-shared.out
memtrace-read --usdt /usr/bin/libusdtgate.so:memtrace_test:gated -- usdtprog-shared 3 >"$OUT" 2>&1
check_eq "--usdt, a library's probe -c: the command's exit status" 0 "$?" || diag "$(cat "$OUT")"
check_eq "--usdt, a library's probe: semaphore 1 while traced, reached 3 times" \
	"semaphore=1 ran 3 plain=3 gated=3 semaphore=1" \
	"$(grep -E '^(semaphore|ran)' "$OUT" | tr '\n' ' ' | sed 's/ $//')"
check_eq "--usdt, a library's probe: 3 hits with their arguments" \
	"arg1=1 arg2=1
arg1=2 arg2=1
arg1=3 arg2=1" "$(sed -n 's/^[0-9.][0-9.]*  *[0-9][0-9]*  *[0-9][0-9]*  *usdtprog-shared  *memtrace_test:gated  *//p' "$OUT")"

# -p: a running process's semaphore, set from attach to detach.
OUT=/tmp/usdt-p.out
PROG_OUT=/tmp/usdt-p.prog
start_driven_usdtprog
memtrace-read --usdt "$BIN:memtrace_test:gated" -p $TARGET >"$OUT" 2>&1 &
READER=$!
if wait_for 60 grep -q "^Tracing " "$OUT"; then
	echo sem >&3
	echo "run 3" >&3
	wait_for 30 grep -q '^ran 3 ' "$PROG_OUT"
	wait_for 30 hits_reach "$OUT" memtrace_test:gated 3
	kill -INT "$READER"
	wait "$READER"
	check_eq "--usdt -p: the reader's exit status" 0 "$?"
	echo sem >&3
	echo "run 2" >&3
	exec 3>&-
	wait "$TARGET"
	check_eq "--usdt -p: the semaphore 0 before, 1 while attached, 0 after; reached only then" \
		"semaphore=0 semaphore=1 ran 3 plain=3 gated=3 semaphore=0 ran 2 plain=5 gated=3" \
		"$(tr '\n' ' ' <"$PROG_OUT" | sed 's/ $//')"
	check_eq "--usdt -p: its 3 hits, by its pid" "3" \
		"$(grep -c "^[0-9.]*  *$TARGET  *[0-9]*  *usdtprog  *memtrace_test:gated  *arg1=[123] arg2=1\$" "$OUT")"
else
	not_ok "--usdt -p attaches" "$(cat "$OUT")"
	exec 3>&-
	kill -KILL "$READER" "$TARGET" 2>/dev/null
fi
rm -f /tmp/usdt.fifo

# -p on a process whose main thread ends (pthread_exit) while another runs
# on: its probes stay armed, the other thread's hits are seen.
OUT=/tmp/usdt-p2.out
PROG_OUT=/tmp/usdt-p2.prog
start_driven_usdtprog
memtrace-read --usdt "$BIN:memtrace_test:plain" -p $TARGET >"$OUT" 2>&1 &
READER=$!
if wait_for 60 grep -q "^Tracing " "$OUT"; then
	echo "run 2" >&3
	wait_for 30 hits_reach "$OUT" memtrace_test:plain 2
	echo thread >&3
	wait_for 30 grep -q '^commands to a new thread' "$PROG_OUT"
	wait_for 10 grep -q '^State:.*zombie' "/proc/$TARGET/status"
	echo "run 3" >&3
	wait_for 30 grep -q '^ran 3 ' "$PROG_OUT"
	wait_for 30 hits_reach "$OUT" memtrace_test:plain 5
	leader=$(sed -n 's/^State:[[:space:]]*//p' "/proc/$TARGET/status")
	kill -INT "$READER"
	wait "$READER"
	check_eq "--usdt -p, main thread gone: the reader's exit status" 0 "$?"
	exec 3>&-
	wait "$TARGET"
	check_match "--usdt -p: the process ran on without its main thread" '^Z' "$leader"
	check_eq "--usdt -p: 2 hits before and 3 after its main thread ended, all of pid $TARGET" \
		"5 3" "$(grep -c "^[0-9.]*  *$TARGET  *[0-9]*  *usdtprog  *memtrace_test:plain " "$OUT") \
$(awk -v p="$TARGET" '$2 == p && $3 != p && $5 == "memtrace_test:plain"' "$OUT" | wc -l)"
else
	not_ok "--usdt -p attaches" "$(cat "$OUT")"
	exec 3>&-
	kill -KILL "$READER" "$TARGET" 2>/dev/null
fi
rm -f /tmp/usdt.fifo

# System-wide: every process that maps the program, while the reader runs.
OUT=/tmp/usdt-all.out
memtrace-read --usdt "$BIN:memtrace_test:gated" >"$OUT" 2>&1 &
READER=$!
if wait_for 60 grep -q "^Tracing " "$OUT"; then
	a=$(usdtprog 2 | tr '\n' ' ')
	b=$(usdtprog 1 | tr '\n' ' ')
	wait_for 30 hits_reach "$OUT" memtrace_test:gated 3
	kill -INT "$READER"
	wait "$READER"
	c=$(usdtprog 1 | tr '\n' ' ')
	check_eq "--usdt system-wide: each run's semaphore set while traced, not after" \
		"semaphore=1 ran 2 plain=2 gated=2 semaphore=1 |semaphore=1 ran 1 plain=1 gated=1 semaphore=1 |semaphore=0 ran 1 plain=1 gated=0 semaphore=0 " \
		"$a|$b|$c"
	check_eq "--usdt system-wide: 3 hits in two processes" "3 2" \
		"$(hits_of "$OUT" memtrace_test:gated | wc -l) $(grep -c ' hits by usdtprog ' "$OUT")"
else
	not_ok "--usdt system-wide starts" "$(cat "$OUT")"
	kill -KILL "$READER" 2>/dev/null
fi

# Bad input: clear errors.
out=$(memtrace-read --usdt "$BIN:memtrace_test:nosuch" -- usdtprog 1 2>&1)
check_eq "--usdt: a probe the binary does not have is an error" 1 "$?"
check_match "--usdt: ... naming those it has" "no USDT probe memtrace_test:nosuch.*memtrace_test:plain" \
	"$out"
out=$(memtrace-read --usdt "/usr/bin/memtrace-read:a:b" 2>&1)
check_eq "--usdt: a binary without notes is an error" 1 "$?"
check_match "--usdt: ... said so" "no USDT probes" "$out"
out=$(memtrace-read --usdt "/nonexistent:a:b" 2>&1)
check_match "--usdt: a missing binary is said so" "/nonexistent: No such file" "$out"
out=$(memtrace-read --usdt "$BIN:memtrace_test:gated" -p 999999 2>&1)
check_eq "--usdt -p: no such process is an error" 1 "$?"
check_match "--usdt -p: says so" "pid 999999: no such process" "$out"

# Least privilege: probes set breakpoints and raise semaphores in the
# address spaces they are armed in.  A reader with CAP_PERFMON alone may
# not arm them in every process (CAP_SYS_ADMIN, as perf's uprobes).
chgrp 990 "$MEMTRACE_DEV" && chmod 0660 "$MEMTRACE_DEV"
out=$(privcheck run-as 1000 990 cap_perfmon memtrace-read --usdt "$BIN:memtrace_test:plain" 1 1 2>&1)
check_eq "--usdt system-wide by a CAP_PERFMON-only reader: refused, exit 1" 1 "$?"
check_match "... saying it needs CAP_SYS_ADMIN" "needs CAP_SYS_ADMIN" "$out"
out=$(privcheck run-as 1000 990 cap_perfmon memtrace-read --usdt "$BIN:memtrace_test:plain" \
	-- usdtprog 2 2>&1)
check_eq "... while -c of its own command is allowed, exit 0" 0 "$?" || diag "$out"
check_match "... and sees that command's hits" "^	2 hits by usdtprog " "$out"
chgrp 0 "$MEMTRACE_DEV" && chmod 0600 "$MEMTRACE_DEV"

unload_memtrace
