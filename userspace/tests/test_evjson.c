// SPDX-License-Identifier: GPL-2.0
/*
 * --json of the event modes: each record builder's numbers are the
 * record's (the same the text lines print), and every record, built here
 * and written by memtrace-read in a guest (fixtures/events-guest.jsonl,
 * from tests/e2e/71-formats-pressure.sh's output), is valid against
 * docs/memtrace-report.schema.json (python3-jsonschema).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "cli.h"
#include "compaction.h"
#include "evjson.h"
#include "growthagg.h"
#include "growthcall.h"
#include "harness.h"
#include "migration.h"
#include "pressure.h"
#include "usdt.h"
#include "vmscan.h"

static json_int_t int_at(json_t *o, const char *path)
{
	char buf[128], *save = NULL, *key;
	json_t *v = o;

	snprintf(buf, sizeof(buf), "%s", path);
	for (key = strtok_r(buf, ".", &save); key && v; key = strtok_r(NULL, ".", &save))
		v = json_object_get(v, key);
	return v && json_is_integer(v) ? json_integer_value(v) : -12345;
}

static const char *str_at(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return v && json_is_string(v) ? json_string_value(v) : "(none)";
}

static bool is_str(json_t *v, const char *want)
{
	return json_is_string(v) && !strcmp(json_string_value(v), want);
}

/* Writes rec to f and returns it parsed back, as a reader sees it (json_decref it). */
static json_t *round_trip(FILE *f, json_t *rec)
{
	char *text = json_dumps(rec, JSON_COMPACT);
	json_t *back = text ? json_loads(text, 0, NULL) : NULL;

	free(text);
	evjson_emit(f, rec);
	return back;
}

static void oom_records(FILE *f)
{
	struct {
		struct memtrace_ev_oom_kill r;
		uint64_t frames[2];
	} k = {
		.r = {
			.hdr = { .size = sizeof(k), .type = MEMTRACE_EVT_OOM_KILL },
			.ts_ns = 5000, .trigger_pid = 131, .victim_pid = 127,
			.trigger_comm = "dd", .victim_comm = "memhog", .totalpages = 4096,
			.points = 3465, .memcg_id = 23, .memcg_max = 4096, .memcg_usage = 4090,
			.constraint = MEMTRACE_OOM_CONSTRAINT_MEMCG, .order = 0, .gfp_mask = 0xcc0,
			.loadavg = { 2048 + 1024, 0, 20 }, .nr_frames = 2,
		},
		.frames = { 0xffffffff81234567ULL, 0xffffffff81000010ULL },
	};
	struct memtrace_ev_oom_victim v = {
		.hdr = { .size = sizeof(v), .type = MEMTRACE_EVT_OOM_VICTIM },
		.ts_ns = 6000, .pid = 127, .trigger_pid = 131, .comm = "memhog",
		.total_vm_kb = 14548, .anon_rss_kb = 12212, .file_rss_kb = 4, .shmem_rss_kb = 1580,
		.pgtables_kb = 64, .uid = 0, .oom_score_adj = -17,
	};
	json_t *j = round_trip(f, pressure_oom_kill_json(&k.r, "02:56:01", "/mtoom", NULL));

	check(j && !strcmp(str_at(j, "type"), "oom_kill") && int_at(j, "pages") == 4096 &&
	      int_at(j, "trigger.pid") == 131 && int_at(j, "victim.pid") == 127 &&
	      int_at(j, "badness_pages") == 3465 && int_at(j, "gfp_mask") == 0xcc0 &&
	      int_at(j, "memcg.max_pages") == 4096 && int_at(j, "memcg.current_pages") == 4090 &&
	      !strcmp(str_at(j, "loadavg"), "1.50 0.00 0.01") &&
	      !strcmp(str_at(j, "constraint"), "CONSTRAINT_MEMCG") &&
	      json_array_size(json_object_get(j, "trigger_stack")) == 2,
	      "evjson: an OOM kill's record has the text's numbers (pages, badness, memcg, "
	      "loadavg as /proc/loadavg prints it, the stack)");
	json_decref(j);
	k.r.nr_frames = 0;
	k.r.memcg_id = 0;
	j = round_trip(f, pressure_oom_kill_json(&k.r, "02:56:01", NULL, NULL));
	check(j && json_is_null(json_object_get(j, "memcg")) &&
	      json_is_null(json_object_get(j, "trigger_stack")),
	      "evjson: a global OOM kill: memcg null; a hidden stack: null");
	json_decref(j);
	j = round_trip(f, pressure_oom_victim_json(&v, "02:56:01"));
	check(j && int_at(j, "anon_rss_kb") == 12212 && int_at(j, "oom_score_adj") == -17 &&
	      !strcmp(str_at(j, "comm"), "memhog"),
	      "evjson: the victim's record: its memory as the kernel's Killed process line");
	json_decref(j);
}

static void vmscan_records(FILE *f)
{
	struct vmscan *v = malloc(sizeof(*v));
	struct memtrace_ev_lru_isolate iso = {
		.hdr = { .size = sizeof(iso), .type = MEMTRACE_EVT_LRU_ISOLATE },
		.ts_ns = 10, .pid = 30, .flags = MEMTRACE_VMSCAN_KSWAPD,
		.lru = MEMTRACE_LRU_INACTIVE_FILE, .nr_scanned = 32, .nr_taken = 31,
	};
	struct memtrace_ev_lru_inactive ina = {
		.hdr = { .size = sizeof(ina), .type = MEMTRACE_EVT_LRU_INACTIVE },
		.ts_ns = 11, .pid = 30, .flags = MEMTRACE_VMSCAN_KSWAPD, .file = 1,
		.nr_reclaimed = 29,
	};
	json_t *rec, *j;

	vmscan_init(v, false);
	vmscan_account(v, &iso.hdr);
	vmscan_account(v, &ina.hdr);
	rec = evjson_record("vmscan", "interval", "10:00:00");
	vmscan_counts_json(rec, vmscan_interval(v, 100), 5, NULL);
	j = round_trip(f, rec);
	check(j && int_at(j, "scanned.kswapd.file") == 32 && int_at(j, "reclaimed.kswapd.file") == 29 &&
	      int_at(j, "lru.inactive_file.taken") == 31 && int_at(j, "scanned.direct.file") == 0,
	      "evjson: --vmscan's interval: pages scanned and reclaimed per reclaimer and LRU");
	json_decref(j);
	rec = evjson_record("vmscan", "totals", "10:00:01");
	vmscan_totals_json(rec, v, 5, NULL);
	json_object_set_new(rec, "lost", json_pack("{s:i, s:{}, s:i}", "events", 0, "cpus",
						   "probe_missed", 0));
	j = round_trip(f, rec);
	check(j && int_at(j, "vmstat.pgscan_kswapd") == 32 && int_at(j, "vmstat.pgsteal_file") == 29,
	      "evjson: --vmscan's totals in /proc/vmstat's terms");
	json_decref(j);
	free(v);
}

static void compaction_records(FILE *f)
{
	struct compaction *c = malloc(sizeof(*c));
	struct memtrace_ev_compact r = {
		.hdr = { .size = sizeof(r), .type = MEMTRACE_EVT_COMPACT_BEGIN },
		.ts_ns = 1000000, .pid = 50, .comm = "sh", .flags = MEMTRACE_COMPACT_SYNC,
		.nid = 0, .order = -1, .zone = "DMA32",
	};
	json_t *rec, *j;
	char *line = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&line, &len);

	compaction_init(c);
	c->json = out;
	compaction_account(c, &r.hdr, 0, NULL);
	r.hdr.type = MEMTRACE_EVT_COMPACT_END;
	r.ts_ns = 3500000;
	r.status = MEMTRACE_COMPACT_COMPLETE;
	r.migrate_scanned = 1000;
	r.free_scanned = 3000;
	compaction_account(c, &r.hdr, 0, NULL);
	fclose(out);
	j = line ? json_loads(line, JSON_DISABLE_EOF_CHECK, NULL) : NULL;
	check(j && !strcmp(str_at(j, "type"), "run") && int_at(j, "latency_ns") == 2500000 &&
	      int_at(j, "order") == -1 && !strcmp(str_at(j, "status"), "complete") &&
	      int_at(j, "migrate_scanned") == 1000 && json_is_true(json_object_get(j, "sync")),
	      "evjson: --compaction's run: latency, order, outcome, pages scanned");
	if (line)
		fputs(line, f);
	json_decref(j);
	free(line);
	rec = evjson_record("compaction", "totals", "10:00:02");
	compaction_totals_json(rec, c, 10);
	json_object_set_new(rec, "lost", json_pack("{s:i, s:{s:i}, s:i}", "events", 3, "cpus",
						   "1", 3, "probe_missed", 0));
	j = round_trip(f, rec);
	check(j && int_at(j, "runs") == 1 && int_at(j, "vmstat.compact_free_scanned") == 3000 &&
	      json_array_size(json_object_get(j, "zones")) == 1,
	      "evjson: --compaction's totals: runs per zone, the vmstat terms");
	json_decref(j);
	free(c);
}

static void migration_records(FILE *f)
{
	struct migration *m = malloc(sizeof(*m));
	struct memtrace_ev_migrate r = {
		.hdr = { .size = sizeof(r), .type = MEMTRACE_EVT_MIGRATE_BEGIN },
		.ts_ns = 100, .pid = 9, .comm = "migratepages", .reason = MEMTRACE_MR_SYSCALL,
	};
	json_t *rec, *j;

	migration_init(m);
	migration_account(m, &r.hdr);
	r.hdr.type = MEMTRACE_EVT_MIGRATE_END;
	r.ts_ns = 400;
	r.succeeded = 256;
	r.failed = 2;
	migration_account(m, &r.hdr);
	rec = evjson_record("migration", "interval", "10:00:03");
	migration_counts_json(rec, migration_interval(m));
	j = round_trip(f, rec);
	check(j && json_array_size(json_object_get(j, "reasons")) == 1 &&
	      int_at(json_array_get(json_object_get(j, "reasons"), 0), "succeeded") == 256 &&
	      !strcmp(str_at(json_array_get(json_object_get(j, "reasons"), 0), "reason"),
		      "syscall_or_cpuset"),
	      "evjson: --migration's interval: pages migrated and failed per reason");
	json_decref(j);
	rec = evjson_record("migration", "totals", "10:00:04");
	migration_totals_json(rec, m, 10);
	json_object_set_new(rec, "lost", json_pack("{s:i, s:{}, s:i}", "events", 0, "cpus",
						   "probe_missed", 0));
	j = round_trip(f, rec);
	check(j && int_at(j, "vmstat.pgmigrate_success") == 256 &&
	      int_at(j, "vmstat.pgmigrate_fail") == 2 && int_at(j, "all.ns") == 300,
	      "evjson: --migration's totals: all reasons, the vmstat terms");
	json_decref(j);
	free(m);
}

static void call_records(FILE *f)
{
	struct memtrace_ev_syscall r = {
		.hdr = { .size = sizeof(r), .type = MEMTRACE_EVT_MMAP },
		.ts_ns = 77, .pid = 200, .tid = 201, .comm = "memgrowth", .ret = 0x7f0000000000,
		.args = { 0, 65536, 3, 0x22, (uint64_t)-1, 8192 },
	};
	json_t *j = round_trip(f, growth_call_json(&r, "mmap", "11:00:00"));

	check(j && !strcmp(str_at(j, "type"), "mmap") && int_at(j, "length") == 65536 &&
	      int_at(j, "offset") == 8192 && !strcmp(str_at(j, "prot"), "RW-") &&
	      !strcmp(str_at(j, "map"), "-P-A") && !strcmp(str_at(j, "address"), "0x7f0000000000") &&
	      json_is_null(json_object_get(j, "file")) && json_is_null(json_object_get(j, "error")),
	      "evjson: an mmap's record: mmapsnoop's columns, the address mapped");
	json_decref(j);
	r.ret = -ENOMEM;
	memcpy(r.file, "data.bin", 9);
	j = round_trip(f, growth_call_json(&r, "mmap", "11:00:00"));
	check(j && !strcmp(str_at(j, "error"), "ENOMEM") &&
	      json_is_null(json_object_get(j, "address")) && !strcmp(str_at(j, "file"), "data.bin"),
	      "evjson: a failed mmap: its error by name, no address");
	json_decref(j);
	memset(r.file, 0, sizeof(r.file));
	r.hdr.type = MEMTRACE_EVT_MUNMAP;
	r.ret = 0;
	r.args[0] = 0x7f0000000000;
	evjson_emit(f, growth_call_json(&r, "mmap", "11:00:00"));
	r.hdr.type = MEMTRACE_EVT_MREMAP;
	r.args[2] = 131072;
	r.ret = 0x7f0000100000;
	evjson_emit(f, growth_call_json(&r, "mmap", "11:00:00"));
	r.hdr.type = MEMTRACE_EVT_SHMGET;
	r.args[0] = 0x1234;
	r.args[1] = 4096;
	r.args[2] = 01000 | 0600;
	r.ret = 5;
	j = round_trip(f, growth_call_json(&r, "shm", "11:00:00"));
	check(j && !strcmp(str_at(j, "shmflg_text"), "IPC_CREAT|0600") && int_at(j, "size") == 4096 &&
	      int_at(j, "ret") == 5, "evjson: a shmget's record: its flags as shmsnoop decodes them");
	json_decref(j);
	r.hdr.type = MEMTRACE_EVT_SHMAT;
	evjson_emit(f, growth_call_json(&r, "shm", "11:00:00"));
	r.hdr.type = MEMTRACE_EVT_SHMDT;
	evjson_emit(f, growth_call_json(&r, "shm", "11:00:00"));
	r.hdr.type = MEMTRACE_EVT_SHMCTL;
	evjson_emit(f, growth_call_json(&r, "shm", "11:00:00"));
}

/* --usdt: a hit's arguments as the text prints them, typed; "?" null. */
static void usdt_records(FILE *f)
{
	struct usdt_site site;
	struct memtrace_ev_usdt r = {
		.hdr = { .size = sizeof(r), .type = MEMTRACE_EVT_USDT },
		.ts_ns = 5000001000, .pid = 300, .tid = 301, .comm = "usdtprog", .probe = 0,
		.nr_args = 5, .args = { (uint64_t)-3, 0xffff880012345678ULL, 65535, 0, 7 },
		.arg_faults = 1U << 3,
	};
	struct mt_err err;
	json_t *j, *a;
	char text[256];
	int n;

	memset(&site, 0, sizeof(site));
	n = usdt_parse_args("-4@%edi 8@%rax 2@%cx 8@-8(%rbp) 8@var(%rip)", site.args,
			    &site.unsupported, &err);
	site.nr_args = (uint32_t)n;
	usdt_format_args(text, sizeof(text), &r, site.args, site.unsupported);
	j = round_trip(f, usdt_hit_json(&r, &site, "memtrace_test:plain", 5000000000ULL,
					"12:00:00"));
	a = j ? json_object_get(j, "args") : NULL;
	check(n == 5 && !strcmp(text, "arg1=-3 arg2=0xffff880012345678 arg3=65535 arg4=? arg5=?") &&
	      a && json_array_size(a) == 5 &&
	      json_integer_value(json_array_get(a, 0)) == -3 &&
	      is_str(json_array_get(a, 1), "0xffff880012345678") &&
	      json_integer_value(json_array_get(a, 2)) == 65535 &&
	      json_is_null(json_array_get(a, 3)) && json_is_null(json_array_get(a, 4)),
	      "evjson: a --usdt hit's arguments: decimal ones integers, hex ones strings, "
	      "unread (? in '%s') null", text);
	check(j && !strcmp(str_at(j, "type"), "hit") && !strcmp(str_at(j, "mode"), "usdt") &&
	      int_at(j, "elapsed_ns") == 1000 && int_at(j, "monotonic_ns") == 5000001000LL &&
	      int_at(j, "pid") == 300 && int_at(j, "tid") == 301 && int_at(j, "site") == 0 &&
	      !strcmp(str_at(j, "comm"), "usdtprog") &&
	      !strcmp(str_at(j, "probe"), "memtrace_test:plain"),
	      "evjson: a --usdt hit's record: the text line's time from the start, task, probe");
	json_decref(j);
	/* A hit of a site the reader does not know: 8-byte unsigned, as the text. */
	r.arg_faults = 0;
	r.nr_args = 1;
	j = round_trip(f, usdt_hit_json(&r, NULL, "memtrace_test:plain", 9000000000ULL,
					"12:00:00"));
	check(j && int_at(j, "elapsed_ns") == 0 &&
	      is_str(json_array_get(json_object_get(j, "args"), 0), "0xfffffffffffffffd"),
	      "evjson: a --usdt hit of an unknown site: arguments as 8-byte unsigned");
	json_decref(j);
}

static int validate(const char *path, char *out, size_t len)
{
	char cmd[1024];
	FILE *p;
	size_t n;
	int st;

	snprintf(cmd, sizeof(cmd), "/usr/bin/python3 %s/../validate-json.py "
		 "%s/../../../docs/memtrace-report.schema.json %s 2>&1", fixture_dir,
		 fixture_dir, path);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	n = fread(out, 1, len - 1, p);
	out[n] = '\0';
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

void evjson_tests(void)
{
	char dir[64], path[128], out[4096];
	FILE *f;
	int st;

	if (!make_tmpdir(dir, sizeof(dir), "evjson")) {
		check(false, "evjson: a temporary directory");
		return;
	}
	snprintf(path, sizeof(path), "%s/events.jsonl", dir);
	f = fopen(path, "w");
	if (!check(f != NULL, "evjson: a file for the records")) {
		remove_tree(dir);
		return;
	}
	oom_records(f);
	vmscan_records(f);
	compaction_records(f);
	migration_records(f);
	call_records(f);
	usdt_records(f);
	fclose(f);
	st = validate(path, out, sizeof(out));
	check(st == 0 && !strcmp(out, "valid 19\n"),
	      "evjson: every record built here is valid against "
	      "docs/memtrace-report.schema.json (python3-jsonschema)");
	if (st)
		diag("%s", out);
	/* A leak report is not an event record, nor the reverse. */
	f = fopen(path, "w");
	if (f) {
		fputs("{\"memtrace_event\": 1, \"mode\": \"oom\", \"type\": \"oom_kill\", "
		      "\"time\": \"10:00:00\", \"pages\": 1}\n", f);
		fclose(f);
	}
	st = validate(path, out, sizeof(out));
	check(st == 1, "evjson: a record missing its fields is refused by the schema");
	st = validate(fixture_path("events-guest.jsonl"), out, sizeof(out));
	check(st == 0 && !strncmp(out, "valid ", 6),
	      "evjson: the records memtrace-read wrote in a guest (fixtures/events-guest.jsonl) "
	      "are valid against the schema: %s", out);
	remove_tree(dir);
}
