// SPDX-License-Identifier: GPL-2.0
/*
 * The event rings' reader (records out of a ring as the module lays them
 * out: padding, wrap, malformed sizes; time order across CPUs) and the
 * --oom/--reclaim formatting.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "evreader.h"
#include "harness.h"
#include "pressure.h"

struct rec {
	struct memtrace_ev_hdr hdr;
	uint64_t ts;
	uint64_t tag;
};

static void put(uint8_t *data, uint64_t size, uint64_t pos, uint16_t type, uint32_t len,
		uint64_t ts, uint64_t tag)
{
	struct rec r = { .hdr = { .size = len, .type = type }, .ts = ts, .tag = tag };

	memcpy(data + (pos & (size - 1)), &r, len < sizeof(r) ? len : sizeof(r));
}

struct seen {
	uint64_t tags[16];
	unsigned int n;
};

static void collect_tag(void *ctx, const struct memtrace_ev_hdr *h)
{
	struct seen *s = ctx;
	struct rec r;

	memcpy(&r, h, sizeof(r));
	if (s->n < 16)
		s->tags[s->n++] = r.tag;
}

static void test_collect(void)
{
	uint8_t data[256 + 32] = { 0 }, *buf = NULL;	/* slack: a test record written across the end */
	size_t len = 0, cap = 0;
	struct seen s = { .n = 0 };
	struct mt_err err;
	int ret;

	/* A ring that went round: a record at 200, the end padded at 232, one at 0 (256). */
	put(data, 256, 200, MEMTRACE_EVT_OOM_KILL, 32, 50, 1);
	put(data, 256, 232, MEMTRACE_EVT_PAD, 24, 0, 0);
	put(data, 256, 256, MEMTRACE_EVT_OOM_VICTIM, 24, 40, 2);
	ret = evring_collect(data, 256, 200, 280, &buf, &len, &cap, &err);
	check(ret == 0 && len == 56, "evreader: records across the end of the ring, the pad skipped "
	      "(%d, %zu bytes)", ret, len);
	/* A second CPU's records: dispatched in time order with the first's. */
	put(data, 256, 0, MEMTRACE_EVT_RECLAIM_BEGIN, 24, 45, 3);
	put(data, 256, 24, MEMTRACE_EVT_RECLAIM_END, 24, 60, 4);
	ret = evring_collect(data, 256, 0, 48, &buf, &len, &cap, &err);
	check(ret == 0 && evring_dispatch(buf, len, collect_tag, &s) == 4 && s.n == 4 &&
	      s.tags[0] == 2 && s.tags[1] == 3 && s.tags[2] == 1 && s.tags[3] == 4,
	      "evreader: records of all CPUs in time order");

	len = 0;
	put(data, 256, 0, MEMTRACE_EVT_OOM_KILL, 20, 1, 1);
	check(evring_collect(data, 256, 0, 24, &buf, &len, &cap, &err) == -EPROTO &&
	      strstr(err.msg, "bad record size 20"), "evreader: a size not of 8 bytes is refused");
	put(data, 256, 0, MEMTRACE_EVT_OOM_KILL, 32, 1, 1);
	check(evring_collect(data, 256, 0, 24, &buf, &len, &cap, &err) == -EPROTO,
	      "evreader: a record past the producer's position is refused");
	put(data, 256, 240, MEMTRACE_EVT_OOM_KILL, 32, 1, 1);
	check(evring_collect(data, 256, 240, 300, &buf, &len, &cap, &err) == -EPROTO,
	      "evreader: a record across the end of the data is refused");
	put(data, 256, 0, MEMTRACE_EVT_OOM_KILL, 0, 1, 1);
	check(evring_collect(data, 256, 0, 64, &buf, &len, &cap, &err) == -EPROTO,
	      "evreader: a zero size (no progress) is refused");
	free(buf);
}

/*
 * -t's drains: records stamped before the drain began are handed on in
 * time order; later ones wait and merge, in order, with the next drain's;
 * the final drain hands on everything.
 */
static void test_dispatch_before(void)
{
	uint8_t data[256] = { 0 }, *buf = NULL;
	size_t len = 0, cap = 0, held = 0;
	struct seen s = { .n = 0 };
	struct mt_err err;
	size_t n;

	/* CPU 0: times 10 and 70; CPU 1: 30 and 90.  The drain began at 50. */
	put(data, 256, 0, MEMTRACE_EVT_ALLOC_TRACE, 24, 10, 1);
	put(data, 256, 24, MEMTRACE_EVT_ALLOC_TRACE, 24, 70, 4);
	put(data, 256, 48, MEMTRACE_EVT_FREE_TRACE, 24, 30, 2);
	put(data, 256, 72, MEMTRACE_EVT_FREE_TRACE, 24, 90, 6);
	check(evring_collect(data, 256, 0, 96, &buf, &len, &cap, &err) == 0 && len == 96,
	      "evreader: four trace records collected");
	n = evring_dispatch_before(buf, len, 50, collect_tag, &s, &held);
	check(n == 2 && s.n == 2 && s.tags[0] == 1 && s.tags[1] == 2 && held == 48,
	      "evreader: the records stamped before the drain, in time order; two kept back "
	      "(%zu handed on, %zu bytes held)", n, held);
	/* The next drain brings a record stamped 50, published late, and one at 80. */
	len = held;
	put(data, 256, 96, MEMTRACE_EVT_ALLOC_TRACE, 24, 80, 5);
	put(data, 256, 120, MEMTRACE_EVT_ALLOC_TRACE, 24, 50, 3);
	check(evring_collect(data, 256, 96, 144, &buf, &len, &cap, &err) == 0 && len == 96,
	      "evreader: new records behind the ones kept back");
	n = evring_dispatch_before(buf, len, 85, collect_tag, &s, &held);
	check(n == 3 && s.n == 5 && s.tags[2] == 3 && s.tags[3] == 4 && s.tags[4] == 5 &&
	      held == 24, "evreader: kept-back records merged in time order with the next "
	      "drain's (%zu, %zu bytes held)", n, held);
	n = evring_dispatch_before(buf, held, UINT64_MAX, collect_tag, &s, &held);
	check(n == 1 && s.n == 6 && s.tags[5] == 6 && held == 0,
	      "evreader: the final drain hands on the rest");
	free(buf);
}

/*
 * A drain that fails (here: a ring whose positions make no sense) ends the
 * reader; the records it had kept back for ordering are handed on first.
 */
static void test_drain_error_keeps_held(void)
{
	static uint8_t ring[4096 + 256];
	struct memtrace_evring_meta *meta = (void *)ring;
	struct evreader r = {
		.info = { .nr_cpus = 1, .cpu_stride = sizeof(ring), .data_offset = 4096,
			  .data_size = 256 },
		.map = ring,
	};
	uint64_t upto = 0;
	size_t len = 0;
	struct seen s = { .n = 0 };
	struct mt_err err;
	int ret;

	r.upto = &upto;
	put(ring + 4096, 256, 0, MEMTRACE_EVT_ALLOC_TRACE, 24, 70, 7);
	put(ring + 4096, 256, 24, MEMTRACE_EVT_FREE_TRACE, 24, 90, 8);
	check(evring_collect(ring + 4096, 256, 0, 48, &r.buf, &len, &r.cap, &err) == 0 &&
	      len == 48, "evreader: two records kept back by an earlier drain");
	r.held = len;
	meta->consumer_pos = 100;
	meta->producer_pos = 60;	/* behind the consumer: refused */
	ret = evreader_drain_ordered(&r, false, collect_tag, &s, &err);
	check(ret == -EPROTO && s.n == 2 && s.tags[0] == 7 && s.tags[1] == 8 && r.held == 0,
	      "evreader: a failed drain hands on the records it held (%u)", s.n);
	free(r.buf);
}

/* Bursty modes' rings: as deep as 16 MiB for all CPUs allows, never below the floor. */
static void test_ring_pages(void)
{
	check(evreader_ring_pages_for(2, 4096, 64) == 2048, "evreader: 2 CPUs get 8 MiB rings");
	check(evreader_ring_pages_for(64, 4096, 16) == 64, "evreader: 64 CPUs get 256 KiB rings");
	check(evreader_ring_pages_for(256, 4096, 64) == 64,
	      "evreader: past the budget, the floor (256 CPUs: 64 pages each)");
	check(evreader_ring_pages_for(1, 4096, 64) == 4096, "evreader: at most the module's 4096 pages");
	check(evreader_ring_pages_for(-1, 4096, 64) == 64, "evreader: no CPU count: the floor");
}

static void test_loadavg(void)
{
	char buf[64];

	/* /proc/loadavg of the same fixed-point values (FSHIFT 11). */
	pressure_loadavg((const uint32_t[]){ 0, 2048, 7168 }, buf, sizeof(buf));
	check(!strcmp(buf, "0.00 1.00 3.50"), "pressure: load averages as /proc/loadavg (%s)", buf);
	pressure_loadavg((const uint32_t[]){ 2027, 798, 614 }, buf, sizeof(buf));
	check(!strcmp(buf, "0.99 0.39 0.30"), "pressure: rounded to the hundredth (%s)", buf);
}

static void test_oom_format(void)
{
	struct {
		struct memtrace_ev_oom_kill k;
		uint64_t frames[2];
	} r = { .k = {
		.hdr = { .size = sizeof(r), .type = MEMTRACE_EVT_OOM_KILL },
		.trigger_pid = 120, .victim_pid = 118,
		.trigger_comm = "dd", .victim_comm = "0123456789abcdef",	/* unterminated */
		.totalpages = 4096, .points = 3121, .memcg_id = 42, .memcg_max = 4096,
		.memcg_usage = 4090, .constraint = MEMTRACE_OOM_CONSTRAINT_MEMCG,
		.order = 0, .gfp_mask = 0xcc0, .loadavg = { 2048, 0, 0 }, .nr_frames = 2,
	}, .frames = { 0xffffffff81000010ULL, 0xffffffff81000020ULL } };
	struct memtrace_ev_oom_victim v = {
		.hdr = { .size = sizeof(v), .type = MEMTRACE_EVT_OOM_VICTIM },
		.pid = 118, .comm = "dd", .total_vm_kb = 14000, .anon_rss_kb = 12300,
		.file_rss_kb = 900, .pgtables_kb = 60, .oom_score_adj = -5,
	};
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!check(f != NULL, "pressure: memstream"))
		return;
	pressure_print_oom_kill(f, &r.k, 3600 + 61, "/mtoom", NULL);
	pressure_print_oom_victim(f, &v);
	fclose(f);
	check(!strcmp(text,
		"01:01:01 Triggered by PID 120 (\"dd\"), OOM kill of PID 118 (\"0123456789abcdef\"), "
		"4096 pages, loadavg: 1.00 0.00 0.00\n"
		"\tconstraint: CONSTRAINT_MEMCG, order 0, gfp_mask 0xcc0, badness 3121 pages\n"
		"\tmemcg: /mtoom (id 42), memory.max 4096 pages, memory.current 4090 pages\n"
		"\ttrigger's kernel stack:\n"
		"\t\t0xffffffff81000010\n"
		"\t\t0xffffffff81000020\n"
		"\tkilled process 118 (dd) total-vm:14000kB, anon-rss:12300kB, file-rss:900kB, "
		"shmem-rss:0kB, UID:0 pgtables:60kB oom_score_adj:-5\n"),
	      "pressure: an OOM kill as oomkill prints it, then the kernel's own details");
	if (text && !strstr(text, "Triggered"))
		diag("%s", text);
	free(text);
}

static void test_cgroup_path(void)
{
	char dir[64], sub[128], got[256];
	struct stat st;

	if (!make_tmpdir(dir, sizeof(dir), "cgpath"))
		return;
	snprintf(sub, sizeof(sub), "%s/a", dir);
	mkdir(sub, 0700);
	snprintf(sub, sizeof(sub), "%s/a/b", dir);
	mkdir(sub, 0700);
	stat(sub, &st);
	check(pressure_cgroup_path(dir, st.st_ino, got, sizeof(got)) && !strcmp(got, "/a/b"),
	      "pressure: a cgroup id is named by its path below the mount (%s)", got);
	stat(dir, &st);
	check(pressure_cgroup_path(dir, st.st_ino, got, sizeof(got)) && !strcmp(got, "/"),
	      "pressure: the root cgroup is /");
	check(!pressure_cgroup_path(dir, 1, got, sizeof(got)),
	      "pressure: a cgroup gone is not named");
	remove_tree(dir);
}

static void test_cli(void)
{
	struct mt_options o;
	struct mt_err err;

	check(cli_parse_words(&o, &err, 2, "--oom") == 0 && o.mode == MT_MODE_OOM && o.count == 0,
	      "pressure cli: --oom runs until a signal");
	check(cli_parse_words(&o, &err, 4, "--reclaim", "2", "3") == 0 && o.mode == MT_MODE_RECLAIM &&
	      o.interval_s == 2 && o.count == 3, "pressure cli: --reclaim with interval and count");
	check(cli_parse_words(&o, &err, 3, "--oom", "--reclaim") == -EINVAL &&
	      strstr(err.msg, "different modes"), "pressure cli: --oom and --reclaim: one mode");
	check(cli_parse_words(&o, &err, 4, "--reclaim", "-p", "1") == -EINVAL &&
	      strstr(err.msg, "cannot be combined with -p"), "pressure cli: not with -p (%s)", err.msg);
	/* --oom with -p is memleak and oomkill at once (test_cli.c). */
	check(cli_parse_words(&o, &err, 4, "--oom", "-p", "1") == 0 && o.mode == MT_MODE_USER &&
	      o.oom_kills, "pressure cli: --oom -p traces the process and its kills");
	check(cli_parse_words(&o, &err, 3, "--reclaim", "--slab") == -EINVAL &&
	      strstr(err.msg, "--slab"), "pressure cli: not with --slab");
	check(cli_parse_words(&o, &err, 4, "--oom", "--cache", "dentry") == -EINVAL &&
	      strstr(err.msg, "allocation filter"), "pressure cli: not with an allocation filter");
	check(cli_parse_words(&o, &err, 3, "--oom", "-t") == -EINVAL && strstr(err.msg, "-t"),
	      "pressure cli: not with -t");
}

void pressure_tests(void)
{
	test_cli();
	test_collect();
	test_dispatch_before();
	test_drain_error_keeps_held();
	test_ring_pages();
	test_loadavg();
	test_oom_format();
	test_cgroup_path();
}
