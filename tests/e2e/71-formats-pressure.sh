#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# --json (and --folded where there are stacks) of the pressure and growth
# modes, and --prometheus of the pressure modes (their counters, whose last
# file must hold the JSON totals record's numbers; promtool check metrics): one memtrace-read writes its text on stdout and --json=FILE (and
# --folded=FILE) from the same records, so every number of the JSON
# records must be the text's, line by line: tests/progs/memgrowth's
# system calls and page faults (--brk, --mmap, --shm, --faults,
# --ffaults), a memcg's OOM kill by memhog (--oom), a memcg reclaiming
# ext4's page cache (--reclaim, --vmscan), compact_memory (--compaction,
# --migration).  The records' schema is checked on the host
# (userspace/tests: docs/memtrace-report.schema.json); here each record
# is JSON whose fields say what the text line says.
# mtt-timeout: 400
. "${0%/*}/lib.sh"

if ! load_memtrace; then
	not_ok "load memtrace.ko"
	exit 0
fi
cd /tmp || exit 0
D=/tmp/fmt-ev
rm -rf "$D" && mkdir -p "$D"

# ev.py FILE WHAT: the JSON records of FILE (JSON Lines), as text lines the
# text report's own lines can be compared with.
cat >"$D/ev.py" <<'EOF'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
what = sys.argv[2]
for r in recs:
    assert r["memtrace_event"] == 1 and r["time"] and r["mode"], r
def last(t):
    return [r for r in recs if r["type"] == t][-1]
if what == "types":
    print(" ".join(sorted({r["mode"] + "/" + r["type"] for r in recs})))
elif what == "stack-pairs":       # --brk, --mmap --stacks, --faults: "bytes calls major"
    for s in last("report")["stacks"]:
        print(s["bytes"], s["calls"], s["major"], s["comm"], s["pid"])
elif what == "stack-frames":      # the functions of the biggest stack, innermost first
    print(" ".join(f["function"] or "?" for f in last("report")["stacks"][0]["frames"]))
elif what == "files":             # --ffaults: "file minor major"
    r = last("report")
    for f in r["files"]:
        print(f["file"], f["minor"], f["major"])
    print("[anonymous memory]", r["anonymous"]["minor"], r["anonymous"]["major"])
elif what == "mmap-lines":        # --mmap: mmapsnoop's columns
    for r in recs:
        if r["type"] == "mmap":
            print(r["pid"], r["comm"], r["prot"], r["map"], r["offset"] // 1024,
                  r["length"] // 1024, r["file"] or "")
elif what == "calls":             # "type pid" of each call
    for r in recs:
        if r["type"] not in ("totals", "report"):
            print(r["type"], r["pid"])
elif what == "lost":
    print(last("totals")["lost"]["events"])
elif what == "oom-lines":         # the text's first two lines and the victim's
    for r in recs:
        if r["type"] == "oom_kill":
            print('Triggered by PID %d ("%s"), OOM kill of PID %d ("%s"), %d pages, loadavg: %s'
                  % (r["trigger"]["pid"], r["trigger"]["comm"], r["victim"]["pid"],
                     r["victim"]["comm"], r["pages"], r["loadavg"]))
            print("\tconstraint: %s, order %d, gfp_mask 0x%x, badness %d pages"
                  % (r["constraint"], r["order"], r["gfp_mask"], r["badness_pages"]))
            m = r["memcg"]
            print("\tmemcg: %s (id %d), memory.max %d pages, memory.current %d pages"
                  % (m["path"], m["id"], m["max_pages"], m["current_pages"]))
            print("\tstack frames %d" % len(r["trigger_stack"] or []))
        elif r["type"] == "oom_victim":
            print("\tkilled process %d (%s) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, "
                  "shmem-rss:%dkB, UID:%d pgtables:%dkB oom_score_adj:%d"
                  % (r["pid"], r["comm"], r["total_vm_kb"], r["anon_rss_kb"],
                     r["file_rss_kb"], r["shmem_rss_kb"], r["uid"], r["pgtables_kb"],
                     r["oom_score_adj"]))
    print("%d OOM kills" % last("totals")["oom_kills"])
elif what == "reclaim-lines":     # drsnoop's lines, then the summary's first line
    for r in recs:
        if r["type"] == "reclaim":
            print("%-8s %-16s %-7d %9.3f %7d%s" % (r["time"], r["comm"], r["pid"],
                  r["latency_ns"] / 1e6, r["pages"], " memcg" if r["memcg"] else ""))
    t = last("totals")
    print("Direct reclaim: %d reclaims, %d pages reclaimed; memcg reclaim: %d reclaims, "
          "%d pages reclaimed" % (t["direct_reclaim"]["reclaims"], t["direct_reclaim"]["pages"],
                                  t["memcg_reclaim"]["reclaims"], t["memcg_reclaim"]["pages"]))
elif what == "vmscan-rows":       # each interval's row without its time, then the vmstat: line
    for r in recs:
        if r["type"] == "interval":
            sa = sum(r["scanned"][w]["anon"] for w in ("kswapd", "direct", "memcg"))
            sf = sum(r["scanned"][w]["file"] for w in ("kswapd", "direct", "memcg"))
            ra = sum(r["reclaimed"][w]["anon"] for w in ("kswapd", "direct", "memcg"))
            rf = sum(r["reclaimed"][w]["file"] for w in ("kswapd", "direct", "memcg"))
            print("%6d %9.3f %6d %9.3f %6d %9.3f %9.3f %6d %8d %8d %8d %8d" % (
                r["kswapd"]["runs"], r["kswapd"]["ns"] / 1e6,
                r["direct_reclaim"]["reclaims"], r["direct_reclaim"]["ns"] / 1e6,
                r["memcg_reclaim"]["reclaims"], r["memcg_reclaim"]["ns"] / 1e6,
                r["slab"]["ns"] / 1e6, r["written"]["anon"] + r["written"]["file"],
                sa, ra, sf, rf))
    print("vmstat: " + " ".join("%s %d" % kv for kv in last("totals")["vmstat"].items()))
elif what == "compaction-lines":  # compactsnoop's lines without the time, then vmstat:
    for r in recs:
        if r["type"] == "run":
            lat = "%9s" % "?" if r["latency_ns"] is None else "%9.3f" % (r["latency_ns"] / 1e6)
            print("%-16s %-7d %4d %-8s %5d %-5s %s %-17s %9d %9d%s" % (
                r["comm"], r["pid"], r["node"], r["zone"], r["order"],
                "sync" if r["sync"] else "async", lat,
                r["status"], r["migrate_scanned"], r["free_scanned"],
                " direct" if r["direct"] else ""))
    print("vmstat: " + " ".join("%s %d" % kv for kv in last("totals")["vmstat"].items()))
elif what == "migration":         # the intervals' rows (reason calls succeeded failed), vmstat:
    for r in recs:
        if r["type"] == "interval":
            for x in r["reasons"]:
                print(x["reason"], x["calls"], x["succeeded"], x["failed"])
    print("vmstat: " + " ".join("%s %d" % kv for kv in last("totals")["vmstat"].items()))
EOF
ev() { python3 "$D/ev.py" "$@" 2>&1; }

# pe.py JSON MODE PROM want|got: "metric{labels} value" of each counter
# --prometheus writes for MODE, its value from the JSON totals record (and
# records: --reclaim's latencies) or as the metrics file has it.
cat >"$D/pe.py" <<'EOF2'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
mode, which = sys.argv[2], sys.argv[4]
T = [r for r in recs if r["type"] == "totals"][-1]
def s(ns):
    return "%d.%09d" % divmod(ns, 10**9)
want = []
def w(k, v):
    want.append((k, str(v)))
w('memtrace_lost_total{reason="event_ring_full"}', T["lost"]["events"])
w('memtrace_lost_total{reason="probe_hits_missed"}', T["lost"]["probe_missed"])
def reclaims(ns):
    for who in ("direct", "memcg"):
        x = T[who + "_reclaim"]
        w('memtrace_reclaims_total{reclaimer="%s"}' % who, x["reclaims"])
        w('memtrace_reclaim_pages_total{reclaimer="%s"}' % who, x["pages"])
        w('memtrace_reclaim_seconds_total{reclaimer="%s"}' % who, s(ns[who]))
got = {}
# Every series carries the file's mode first (several files share node_exporter's
# directory); the comparisons below are of the rest.
unlabelled = 0
for l in open(sys.argv[3]):
    if l.strip() and not l.startswith("#"):
        k, v = l.split()
        tag = '{mode="%s"' % mode
        if tag in k:
            k = k.replace(tag + ",", "{").replace(tag + "}", "")
        else:
            unlabelled += 1
        got[k] = v
want.append(("series without mode=\"%s\"" % mode, "0"))
got["series without mode=\"%s\"" % mode] = str(unlabelled)
if mode == "oom":
    w("memtrace_oom_kills_total", T["oom_kills"])
elif mode == "reclaim":
    ns = {"direct": 0, "memcg": 0}
    for r in recs:
        if r["type"] == "reclaim":
            ns["memcg" if r["memcg"] else "direct"] += r["latency_ns"]
    reclaims(ns)
elif mode == "vmscan":
    reclaims({"direct": T["direct_reclaim"]["ns"], "memcg": T["memcg_reclaim"]["ns"]})
    w("memtrace_kswapd_runs_total", T["kswapd"]["runs"])
    w("memtrace_kswapd_awake_seconds_total", s(T["kswapd"]["ns"]))
    w("memtrace_kswapd_wakeups_total", T["kswapd"]["wakeups"])
    for f in ("scanned", "reclaimed"):
        for who in ("kswapd", "direct", "memcg"):
            for t in ("anon", "file"):
                w('memtrace_vmscan_%s_pages_total{reclaimer="%s",type="%s"}' % (f, who, t),
                  T[f][who][t])
    for t in ("anon", "file"):
        w('memtrace_vmscan_written_pages_total{type="%s"}' % t, T["written"][t])
    w("memtrace_shrinker_calls_total", T["slab"]["calls"])
    w("memtrace_shrinker_seconds_total", s(T["slab"]["ns"]))
    w("memtrace_shrinker_scanned_objects_total", T["slab"]["scanned"])
    w("memtrace_shrinker_freed_objects_total", T["slab"]["freed"])
elif mode == "compaction":
    w("memtrace_compaction_runs_total", T["runs"])
    w("memtrace_compaction_direct_total", T["direct_compactions"])
    w("memtrace_kcompactd_wakes_total", T["kcompactd_wakes"])
    w('memtrace_compaction_scanned_pages_total{scanner="migrate"}',
      T["vmstat"]["compact_migrate_scanned"])
    w('memtrace_compaction_scanned_pages_total{scanner="free"}',
      T["vmstat"]["compact_free_scanned"])
    outcomes, ns = {}, 0
    for z in T["zones"]:
        ns += z["ns"]
        for k, v in z["outcomes"].items():
            outcomes[k] = outcomes.get(k, 0) + v
    for k, v in sorted(outcomes.items()):
        w('memtrace_compaction_outcomes_total{status="%s"}' % k, v)
    w("memtrace_compaction_seconds_total", s(ns))
    if T["stalled_tasks"] == len(T["stallers"]):    # all of them under -T
        w("memtrace_compaction_stalls_total", sum(x["runs"] for x in T["stallers"]))
        w("memtrace_compaction_stall_seconds_total", s(sum(x["ns"] for x in T["stallers"])))
    # The outcomes that happened, and no other: zero series for the rest.
    want.append(("outcomes that happened", str(len(outcomes))))
    got["outcomes that happened"] = str(sum(1 for k, v in got.items()
        if k.startswith("memtrace_compaction_outcomes_total{") and v != "0"))
elif mode == "migration":
    for x in T["reasons"]:
        lab = '{reason="%s"}' % x["reason"]
        for f, m in (("calls", "calls_total"), ("succeeded", "succeeded_pages_total"),
                     ("failed", "failed_pages_total"), ("thp_succeeded", "thp_succeeded_total"),
                     ("thp_failed", "thp_failed_total"), ("thp_split", "thp_split_total")):
            w("memtrace_migration_" + m + lab, x[f])
        w("memtrace_migration_seconds_total" + lab, s(x["ns"]))
    want.append(("reasons", str(len(T["reasons"]))))
    got["reasons"] = str(sum(1 for k in got if k.startswith("memtrace_migration_calls_total{")))
for k, v in want:
    print(k, v if which == "want" else got.get(k, "missing"))
EOF2
# check_prom MODE: MODE's --prometheus file is promtool's valid metrics, its
# counters the JSON totals' (and so the text's: the checks above).
check_prom() {
	check "--$1 --prometheus: promtool check metrics accepts the file" \
		sh -c "promtool check metrics <'$D/$1.prom'"
	check_eq "--$1 --prometheus: the counters are the JSON totals record's" \
		"$(python3 "$D/pe.py" "$D/$1.json" "$1" "$D/$1.prom" want 2>&1)" \
		"$(python3 "$D/pe.py" "$D/$1.json" "$1" "$D/$1.prom" got 2>&1)"
	diag "--$1 --prometheus: the counters that are not 0: $(python3 "$D/pe.py" "$D/$1.json" "$1" \
		"$D/$1.prom" got 2>&1 | awk '$NF != "0" && $NF !~ /^0\.0+$/' | tr '\n' ' ')"
	check_eq "--$1 --prometheus: no FILE.tmp left behind" "" "$(ls "$D/$1.prom.tmp" 2>/dev/null)"
}

# gf.py JSON PROM MODE want|got: a growth mode's metrics, as its JSON (the
# last report, the totals) has them, or as its --prometheus file has them:
# the top stacks by rank (their functions left out), the counters, the losses.
cat >"$D/gf.py" <<'EOF3'
import json, re, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
mode, which = sys.argv[3], sys.argv[4]
T = [r for r in recs if r["type"] == "totals"][-1]
want = []
def w(k, v):
    want.append((k, str(v)))
def ranked(metric, values):
    for i, v in enumerate(values[:20], 1):
        w('%s{rank="%d"}' % (metric, i), v)
    w(metric + " series", len(values[:20]))
untracked = 0
if mode == "shm":
    calls = sum(1 for r in recs if r["type"].startswith("shm"))
    w("memtrace_growth_calls_total", calls)
    w("memtrace_growth_stack_calls sum", calls)
else:
    R = [r for r in recs if r["type"] == "report"][-1]
    untracked = R["untracked"]
    if mode in ("brk", "mmap"):
        ranked("memtrace_growth_stack_bytes", [s["bytes"] for s in R["stacks"]])
        ranked("memtrace_growth_stack_calls", [s["calls"] for s in R["stacks"]])
        w("memtrace_growth_calls_total", R["calls"])
        w("memtrace_growth_bytes_total", sum(s["bytes"] for s in R["stacks"]))
    else:
        if mode == "faults":
            rows = [(s["calls"], s["major"]) for s in R["stacks"]]
            total = R["calls"]
        else:
            rows = [(f["minor"] + f["major"], f["major"]) for f in R["files"]]
            a = R["anonymous"]
            if a["minor"] + a["major"]:
                rows.append((a["minor"] + a["major"], a["major"]))
            total = R["faults"]
        ranked("memtrace_growth_stack_faults", [r[0] for r in rows])
        ranked("memtrace_growth_stack_major_faults", [r[1] for r in rows])
        w('memtrace_page_faults_total{type="minor"}', total - R["major"])
        w('memtrace_page_faults_total{type="major"}', R["major"])
w('memtrace_lost_total{reason="event_ring_full"}', T["lost"]["events"])
w('memtrace_lost_total{reason="probe_hits_missed"}', T["lost"]["probe_missed"])
w('memtrace_lost_total{reason="growth_table_full"}', untracked)
got, unlabelled = {}, 0
for l in open(sys.argv[2]):
    if not l.strip() or l.startswith("#"):
        continue
    k, v = l.split()
    tag = '{mode="%s"' % mode
    if tag not in k:
        unlabelled += 1
    k = k.replace(tag + ",", "{").replace(tag + "}", "")
    k = re.sub(r',(functions|file)="(\\.|[^"\\])*"', "", k)
    got[k] = v
    m = re.match(r'(memtrace_growth_stack_[a-z_]+)\{rank=', k)
    if m:
        got[m.group(1) + " series"] = str(int(got.get(m.group(1) + " series", "0")) + 1)
        got[m.group(1) + " sum"] = str(int(got.get(m.group(1) + " sum", "0")) + int(v))
want.append(('series without mode="%s"' % mode, "0"))
got['series without mode="%s"' % mode] = str(unlabelled)
for k, v in want:
    print(k, v if which == "want" else got.get(k, "missing"))
EOF3

PPROF=$(ls /usr/lib/go-*/pkg/tool/linux_amd64/pprof 2>/dev/null | head -n 1)
export HOME=/tmp
# pprof_samples FILE: each sample's values, as go tool pprof reads them.
pprof_samples() {
	"$PPROF" -raw -symbolize=none "$1" 2>&1 |
		awk '/^Samples:/ { on = 1; getline; next } /^Locations/ { on = 0 }
		     on && /^ *[0-9]+( +[0-9]+)*: / { sub(/:.*/, ""); $1 = $1; print }' | sort -n
}

# check_growth_formats NAME MODE WHAT FRAME: NAME's --pprof, --prometheus and
# --svg files against its --json (itself checked against the text above):
# go tool pprof reads each stack's numbers (WHAT: a line per stack, the
# profile's sample types in order) and -top the first one's total, with
# FRAME among its functions;
# promtool accepts the metrics, whose numbers are the JSON's; the flame
# graph's root holds every stack and FRAME has a box.
check_growth_formats() {
	_n=$1 _m=$2 _what=$3 _frame=$4
	if [ -z "$_what" ]; then
		not_ok "--$_n: stacks counted, to check the formats against"
		return
	fi
	if [ -z "$PPROF" ]; then
		not_ok "--$_n --pprof: go tool pprof's binary in the guest (tests/e2e/host-files.list)"
	else
		check_eq "--$_n --pprof: go tool pprof reads each stack's numbers, as --json's" \
			"$_what" "$(pprof_samples "$D/$_n.pb.gz")"
		_top=$("$PPROF" -top -sample_index=0 -symbolize=none "$D/$_n.pb.gz" 2>&1)
		check_eq "--$_n --pprof: go tool pprof -top's total is the stacks' sum" \
			"$(printf '%s\n' "$_what" | awk '{ s += $1 } END { print s + 0 }')" \
			"$(printf '%s\n' "$_top" | sed -n 's/^Showing nodes accounting for .* of \([0-9]*\) total$/\1/p')"
		check_match "--$_n --pprof: go tool pprof -top names $_frame" " $_frame\$" "$_top"
	fi
	check "--$_n --prometheus: promtool check metrics accepts the file" \
		sh -c "promtool check metrics <'$D/$_n.prom'"
	check_eq "--$_n --prometheus: the top stacks by rank, the counters and losses as --json's" \
		"$(python3 "$D/gf.py" "$D/$_n.json" "$D/$_n.prom" "$_m" want 2>&1)" \
		"$(python3 "$D/gf.py" "$D/$_n.json" "$D/$_n.prom" "$_m" got 2>&1)"
	# The root's title: bytes and calls (--brk, --mmap), faults and major ones, calls.
	check_eq "--$_n --svg: the flame graph's root holds every stack" \
		"$(printf '%s\n' "$_what" | awk -v m="$_m" '{ s += $1; t += $2 }
			END { if (m == "brk" || m == "mmap") print t + 0, s + 0; else print s + 0, t + 0 }')" \
		"$(sed -n 's/.*<title>all (\([0-9]*\) [a-z]*, \([0-9]*\) [a-z]*, 100\.00%)<.*/\1 \2/p;
			s/.*<title>all (\([0-9]*\) [a-z]*, 100\.00%)<.*/\1 0/p' "$D/$_n.svg")"
	check_match "--$_n --svg: a box for $_frame" "<title>$_frame \\(" "$(cat "$D/$_n.svg")"
}

# --- growth modes: memgrowth's calls and faults ------------------------------
N=5
memtrace-read --brk -T 100 --json="$D/brk.json" --folded="$D/brk.folded" \
	--pprof "$D/brk.pb.gz" --prometheus "$D/brk.prom" --svg "$D/brk.svg" -- memgrowth brk $N \
	>"$D/brk.out" 2>&1
check_eq "--brk --json=FILE --folded=FILE: the command's exit status" 0 "$?" ||
	diag "$(cat "$D/brk.out")"
check_eq "--brk --json: each stack's bytes and calls as the text report's" \
	"$(sed -n 's/^	\([0-9]*\) bytes grown in \([0-9]*\) brk calls by \(.*\) \[\([0-9]*\)\] from stack$/\1 \2 0 \3 \4/p' \
	   "$D/brk.out" | tail -n "$(ev "$D/brk.json" stack-pairs | wc -l)" | sort)" \
	"$(ev "$D/brk.json" stack-pairs | sort)"
check_match "--brk --json: the biggest stack's frames, grow_heap < run_brk < main" \
	' grow_heap run_brk main' "$(ev "$D/brk.json" stack-frames)"
check_eq "--brk --folded: a line per stack, each with the JSON's bytes" \
	"$(ev "$D/brk.json" stack-pairs | awk '{ print $1 }' | sort -n)" \
	"$(awk '{ print $NF }' "$D/brk.folded" | sort -n)"
check_match "--brk --folded: memgrowth's stack root first, to grow_heap" \
	"^memgrowth;.*main;run_brk;grow_heap;[^ ]* $((N * 65536))\$" "$(cat "$D/brk.folded")"
check_eq "--brk --json: the totals' lost events are the text's" \
	"$(sed -n 's/^Lost: \([0-9]*\) events.*/\1/p' "$D/brk.out")" "$(ev "$D/brk.json" lost)"
check_growth_formats brk brk "$(ev "$D/brk.json" stack-pairs | awk '{ print $2, $1 }' | sort -n)" \
	grow_heap
# The profile's mappings: memgrowth's with the GNU build-id its ELF notes
# hold (read here by python from the program headers, apart from libelf).
if [ -n "$PPROF" ]; then
	check_eq "--brk --pprof: memgrowth's mapping carries its build-id" \
		"/usr/bin/memgrowth $(python3 -c 'import struct, sys
d = open(sys.argv[1], "rb").read()
phoff, = struct.unpack_from("<Q", d, 32)
phsz, phn = struct.unpack_from("<HH", d, 54)
for i in range(phn):
    typ, _, off, _, _, size = struct.unpack_from("<IIQQQQ", d, phoff + i * phsz)
    at = off
    while typ == 4 and at + 12 <= off + size:
        nsz, dsz, nt = struct.unpack_from("<III", d, at)
        name = at + 12
        desc = name + (nsz + 3) // 4 * 4
        if nt == 3 and d[name:name + nsz] == b"GNU\0":
            print(d[desc:desc + dsz].hex())
            sys.exit()
        at = desc + (dsz + 3) // 4 * 4' /usr/bin/memgrowth 2>&1)" \
		"$("$PPROF" -raw -symbolize=none "$D/brk.pb.gz" 2>&1 |
			awk '/^Mappings/ { on = 1; next } on && $3 == "/usr/bin/memgrowth" { print $3, $4 }')"
fi

DAT=/tmp/memgrowth-fmt.dat
memtrace-read --mmap --json="$D/mmap.json" -- memgrowth mmap "$DAT" >"$D/mmap.out" 2>&1
check_eq "--mmap --json=FILE: the command's exit status" 0 "$?" || diag "$(cat "$D/mmap.out")"
# The text's mmap lines (not munmap, mremap nor the program's own lines), their
# columns up to the file name.
text_mmaps=$(awk '$1 ~ /^[0-9]+$/ && $3 ~ /^[R-][W-][E-]$/ && $4 ~ /^[S-][P-][F-][A-]$/ {
		print $1, $2, $3, $4, $5, $6, ($7 == "=" || $7 == "(failed:") ? "" : $7 }' \
	"$D/mmap.out" | sort)
check_match "--mmap: the text has memgrowth's mmap lines" ' memgrowth ' "$text_mmaps"
check_eq "--mmap --json: a record per mmap line, with its columns" "$text_mmaps" \
	"$(ev "$D/mmap.json" mmap-lines | sort)"
check_eq "--mmap --json: as many mmap, munmap and mremap records as text lines" \
	"$(awk '$1 ~ /^[0-9]+$/ && ($3 ~ /^[R-][W-][E-]$/ || $3 == "munmap" || $3 == "mremap")' \
	   "$D/mmap.out" | wc -l)" "$(ev "$D/mmap.json" calls | wc -l)"
# --mmap --stacks counts bytes mapped by stack: --folded has them, a line a stack.
memtrace-read --mmap --stacks -T 50 --json="$D/mmaps.json" --folded="$D/mmaps.folded" \
	--pprof "$D/mmaps.pb.gz" --prometheus "$D/mmaps.prom" --svg "$D/mmaps.svg" -- \
	memgrowth mmap "$DAT" >"$D/mmaps.out" 2>&1
check_eq "--mmap --stacks --json=FILE --folded=FILE: the command's exit status" 0 "$?" ||
	diag "$(cat "$D/mmaps.out")"
check_eq "--mmap --stacks --folded: a line per stack, each with the JSON's bytes" \
	"$(ev "$D/mmaps.json" stack-pairs | awk '{ print $1 }' | sort -n)" \
	"$(awk '{ print $NF }' "$D/mmaps.folded" | sort -n)"
check_match "--mmap --stacks --folded: memgrowth's run_mmap under main, root first" \
	'^memgrowth;.*main;run_mmap(;[^ ]*)? [1-9][0-9]*$' "$(cat "$D/mmaps.folded")"
check_growth_formats mmaps mmap "$(ev "$D/mmaps.json" stack-pairs | awk '{ print $2, $1 }' |
	sort -n)" run_mmap
out=$(memtrace-read --mmap --folded 2>&1)
check_match "--mmap --folded without --stacks: refused, saying why" \
	'--mmap reports system calls.*--folded \(it prints each call' "$out"

# --json on stdout: the records alone there (the banner on stderr).
memtrace-read --shm --stacks --json -- sh -c "exec memgrowth shm >$D/shm.prog" \
	>"$D/shm.json" 2>"$D/shm.err"
check_eq "--shm --stacks --json: the command's exit status" 0 "$?" || diag "$(cat "$D/shm.err")"
check_eq "--shm --json on stdout: nothing but records there" "" \
	"$(python3 -c 'import json, sys
for l in open(sys.argv[1]):
    if "memtrace_event" not in json.loads(l): print(l)' "$D/shm.json" 2>&1)"
memtrace-read --shm -- memgrowth shm >"$D/shm.out" 2>&1
# --shm --stacks counts its calls by stack for --folded and the other formats.
memtrace-read --shm --stacks --json="$D/shms.json" --folded="$D/shms.folded" \
	--pprof "$D/shms.pb.gz" --prometheus "$D/shms.prom" --svg "$D/shms.svg" -- memgrowth shm \
	>"$D/shms.out" 2>&1
check_eq "--shm --stacks with every format: the command's exit status" 0 "$?" ||
	diag "$(cat "$D/shms.out")"
check_eq "--shm --stacks --folded: its stacks' calls add up to the calls --json has" \
	"$(ev "$D/shms.json" calls | wc -l)" "$(awk '{ s += $NF } END { print s + 0 }' "$D/shms.folded")"
check_match "--shm --stacks --folded: memgrowth's calls under main, root first" \
	'^memgrowth;(.*;)?main;.* [1-9][0-9]*$' "$(cat "$D/shms.folded")"
check_growth_formats shms shm "$(awk '{ print $NF }' "$D/shms.folded" | sort -n)" main
check_eq "--shm --json: the calls of a text run of the same program, in order" \
	"$(awk '$2 == "memgrowth" && $3 ~ /^SHM/ { print tolower($3) }' "$D/shm.out")" \
	"$(ev "$D/shm.json" calls | awk '{ print $1 }')"
check_eq "--shm --stacks --json: each call's stack, under memgrowth's main" \
	"$(ev "$D/shm.json" calls | wc -l)" \
	"$(python3 -c 'import json, sys
print(sum(1 for l in open(sys.argv[1]) for r in [json.loads(l)]
          if "frames" in r and "main" in [f["function"] for f in r["frames"]]))' "$D/shm.json")"

N=64
DAT=/tmp/memgrowth-faults.dat
memtrace-read --faults -T 100 --json="$D/faults.json" --folded="$D/faults.folded" \
	--pprof "$D/faults.pb.gz" --prometheus "$D/faults.prom" --svg "$D/faults.svg" -- \
	memgrowth faults $N "$DAT" >"$D/faults.out" 2>&1
check_eq "--faults --json=FILE --folded=FILE: the command's exit status" 0 "$?" ||
	diag "$(cat "$D/faults.out")"
check_eq "--faults --json: each stack's faults and major faults as the text report's" \
	"$(sed -n 's/^	\([0-9]*\) page faults (\([0-9]*\) major) by \(.*\) \[\([0-9]*\)\] from stack$/0 \1 \2 \3 \4/p' \
	   "$D/faults.out" | tail -n "$(ev "$D/faults.json" stack-pairs | wc -l)" | sort)" \
	"$(ev "$D/faults.json" stack-pairs | sort)"
check_eq "--faults --folded: a line per stack, its faults" \
	"$(ev "$D/faults.json" stack-pairs | awk '{ print $2 }' | sort -n)" \
	"$(awk '{ print $NF }' "$D/faults.folded" | sort -n)"
# (run_faults calls touch_pages last: gcc may make it a jump, leaving no frame.)
check_match "--faults --folded: memgrowth's touch_pages under main, root first" \
	'^memgrowth;.*main;(run_faults;)?touch_pages [1-9][0-9]*$' "$(cat "$D/faults.folded")"
check_growth_formats faults faults "$(ev "$D/faults.json" stack-pairs |
	awk '{ print $2, $3, $2 - $3 }' | sort -n)" touch_pages

memtrace-read --ffaults -T 100 --json="$D/ffaults.json" --folded="$D/ffaults.folded" \
	--pprof "$D/ffaults.pb.gz" --prometheus "$D/ffaults.prom" --svg "$D/ffaults.svg" -- \
	memgrowth faults $N "$DAT" >"$D/ffaults.out" 2>&1
check_eq "--ffaults --json=FILE --folded=FILE: the command's exit status" 0 "$?" ||
	diag "$(cat "$D/ffaults.out")"
check_eq "--ffaults --json: each file's minor and major faults as the text report's" \
	"$(awk '/^FILE +MINOR +MAJOR$/ { f = 1; next }
		f && $(NF - 1) ~ /^[0-9]+$/ && $NF ~ /^[0-9]+$/ {
			s = $1; for (i = 2; i <= NF - 2; i++) s = s " " $i
			print s, $(NF - 1), $NF }
		/^\[anonymous memory\]/ { f = 0 }' "$D/ffaults.out" |
	   tail -n "$(ev "$D/ffaults.json" files | wc -l)" | sort)" \
	"$(ev "$D/ffaults.json" files | sort)"
check_eq "--ffaults --folded: each file once, its minor and major faults" \
	"$(ev "$D/ffaults.json" files | awk '$2 + $3 > 0 { print $2 + $3 }' | sort -n)" \
	"$(awk '{ print $NF }' "$D/ffaults.folded" | sort -n)"
check_growth_formats ffaults ffaults "$(ev "$D/ffaults.json" files |
	awk '$(NF - 1) + $NF > 0 { print $(NF - 1) + $NF, $NF, $(NF - 1) }' | sort -n)" \
	'\[anonymous memory\]'

# --- --oom: memhog in a memcg of 16 MiB --------------------------------------
CG=$MEMCG_ROOT
if new_memcg mtfmt 16M; then
	memtrace-read --oom --json="$D/oom.json" --prometheus "$D/oom.prom" \
		--folded="$D/oom.folded" 1 3600 >"$D/oom.out" 2>&1 &
	READER=$!
	if wait_for 60 grep -q "^Tracing " "$D/oom.out"; then
		sh -c "echo \$\$ >$CG/mtfmt/cgroup.procs && exec memhog 64" >/dev/null 2>&1
		wait_for 30 grep -q "killed process" "$D/oom.out"
		kill -INT "$READER"
		wait "$READER"
		# The text's lines, the stack's frames counted rather than shown.
		check_eq "--oom --json: the kill's and the victim's numbers as the text's" \
			"$(awk '/^\ttrigger.s kernel stack:$/ { n = 0; on = 1; next }
				on && /^\t\t/ { n++; next }
				on { print "\tstack frames " n; on = 0 }
				/ Triggered by PID / { sub(/^[0-9:]+ /, ""); print; next }
				/^\t(constraint|memcg|killed process)/ { print }
				/ OOM kills$/ { print }' "$D/oom.out")" \
			"$(ev "$D/oom.json" oom-lines)"
		check_match "--oom: the kill was recorded" '^1 OOM kills$' "$(cat "$D/oom.out")"
		check_prom oom
		# --folded: the kill under its trigger's name and kernel stack, root first.
		check_eq "--oom --folded: a line per trigger stack, its kills: the JSON's" \
			"$(python3 -c 'import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r["type"] == "oom_kill":
        print(r["trigger"]["comm"], len(r["trigger_stack"] or []))' "$D/oom.json")" \
			"$(awk '{ n = split($1, f, ";"); print f[1], n - 1, $2 }' "$D/oom.folded" |
			   sed 's/ 1$//')"
		check_match "--oom --folded: memhog's page fault, through out_of_memory, root first" \
			'^memhog;.*;out_of_memory;.* 1$' "$(cat "$D/oom.folded")"
		check_eq "--oom --prometheus: the text's OOM kills" \
			"$(sed -n 's/^\([0-9]*\) OOM kills$/\1/p' "$D/oom.out")" \
			"$(awk '$1 == "memtrace_oom_kills_total{mode=\"oom\"}" { print $2 }' "$D/oom.prom")"
	else
		not_ok "memtrace-read --oom --json=FILE attaches" "$(cat "$D/oom.out")"
		kill -KILL "$READER" 2>/dev/null
	fi
	rmdir "$CG/mtfmt" 2>/dev/null
else
	skip "--oom --json" "no cgroup2 memory controller"
fi
out=$(memtrace-read --reclaim --folded 2>&1)
check_match "--reclaim --folded: refused, saying why" '--folded \(it has no stacks to fold' "$out"

# --- --reclaim and --vmscan: a memcg of 8 MiB reads ext4's page cache ---------
MNT=/mnt/fmt-ext4
IMG=/tmp/fmt-ext4.img
if ext4_image_mount "$IMG" "$MNT" && new_memcg mtfmtr 8M; then
	dd if=/dev/zero of="$MNT/big" bs=1M count=32 2>/dev/null
	sync
	for mode in reclaim vmscan; do
		echo 3 >/proc/sys/vm/drop_caches
		memtrace-read --$mode --json="$D/$mode.json" --prometheus "$D/$mode.prom" 1 3600 \
			>"$D/$mode.out" 2>&1 &
		READER=$!
		if ! wait_for 60 grep -q "^Tracing " "$D/$mode.out"; then
			not_ok "memtrace-read --$mode --json=FILE attaches" "$(cat "$D/$mode.out")"
			kill -KILL "$READER" 2>/dev/null
			continue
		fi
		sh -c "echo \$\$ >$CG/mtfmtr/cgroup.procs && exec cat $MNT/big" >/dev/null
		# Rewritten each interval (1 s): there before the end, whole.
		wait_for 60 test -s "$D/$mode.prom"
		check "--$mode --prometheus: the file is there during the run, and valid" \
			sh -c "promtool check metrics <'$D/$mode.prom'"
		kill -INT "$READER"
		wait "$READER"
		check_prom $mode
	done
	check_eq "--reclaim --json: each reclaim's line and the totals as the text's" \
		"$(grep -E '^[0-9:]{8} |^Direct reclaim: ' "$D/reclaim.out")" \
		"$(ev "$D/reclaim.json" reclaim-lines)"
	check_match "--reclaim: the cat's memcg reclaimed" ' memcg$' "$(cat "$D/reclaim.out")"
	check_eq "--vmscan --json: each interval's row and the vmstat: terms as the text's" \
		"$(awk '/^[0-9:]{8} / { sub(/^[0-9:]+ /, ""); print } /^vmstat: / { print }' \
		   "$D/vmscan.out" | grep -v '^ *slab: ')" \
		"$(ev "$D/vmscan.json" vmscan-rows)"
	rmdir "$CG/mtfmtr" 2>/dev/null
else
	skip "--reclaim --json, --vmscan --json" "no ext4 image on a loop device, or no memcg"
fi
ext4_image_umount "$IMG" "$MNT"

# --- --compaction and --migration: compact_memory ---------------------------
if [ -w /proc/sys/vm/compact_memory ]; then
	for mode in compaction migration; do
		memtrace-read --$mode --json="$D/$mode.json" --prometheus "$D/$mode.prom" 1 3600 \
			>"$D/$mode.out" 2>&1 &
		READER=$!
		if ! wait_for 60 grep -q "^Tracing " "$D/$mode.out"; then
			not_ok "memtrace-read --$mode --json=FILE attaches" "$(cat "$D/$mode.out")"
			kill -KILL "$READER" 2>/dev/null
			continue
		fi
		echo 1 >/proc/sys/vm/compact_memory
		# Lets the system settle; nothing below waits on it: the reader
		# drains its rings after the stop, and compact_memory's write
		# returns when its runs are done.
		sleep 2
		kill -INT "$READER"
		wait "$READER"
		check_prom $mode
	done
	check_match "--compaction --prometheus: compact_memory's runs counted" \
		'^memtrace_compaction_runs_total\{mode="compaction"\} [1-9]' "$(cat "$D/compaction.prom")"
	check_eq "--compaction --json: each run's line and the vmstat: terms as the text's" \
		"$(awk '/^[0-9:]{8} / { sub(/^[0-9:]+ /, ""); print } /^vmstat: / { print }' \
		   "$D/compaction.out")" "$(ev "$D/compaction.json" compaction-lines)"
	check_match "--compaction: this shell's runs were recorded" '^[0-9:]{8} sh ' \
		"$(cat "$D/compaction.out")"
	check_eq "--migration --json: each interval's rows and the vmstat: terms as the text's" \
		"$(awk '/^Totals:$/ { done = 1 }
			done && /^vmstat: / { print }
			!done && /^[0-9:]{8} [a-z_]+ / { print $2, $3, $4, $5 }' "$D/migration.out")" \
		"$(ev "$D/migration.json" migration)"
else
	skip "--compaction --json, --migration --json" "no /proc/sys/vm/compact_memory"
fi

# Every mode's live --json, valid against the documented schema
# (python3-jsonschema): one run for all, python starts slowly here.
files= modes=
for f in brk mmap mmaps shm shms faults ffaults oom reclaim vmscan compaction migration; do
	[ -s "$D/$f.json" ] || continue
	files="$files $D/$f.json"
	modes="$modes $f"
done
check "--json of every mode ($modes ): each record valid against docs/memtrace-report.schema.json" \
	python3 /data/validate-json.py /data/memtrace-report.schema.json $files

# Records of each mode, for a look and for the host's schema check
# (userspace/tests/fixtures/events-guest.jsonl is made of them): the first
# three and the totals, in 150-column pieces as the console cuts longer lines.
for f in brk mmap shm faults ffaults oom reclaim vmscan compaction migration; do
	[ -s "$D/$f.json" ] || continue
	diag "$f JSON, folded at 150 columns:"
	{ head -n 3 "$D/$f.json"; tail -n 1 "$D/$f.json"; } | fold -w 150 | sed 's/^/#json /'
done

check "memtrace.ko unloads" unload_memtrace
