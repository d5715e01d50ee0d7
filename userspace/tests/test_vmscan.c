// SPDX-License-Identifier: GPL-2.0
/*
 * --vmscan's accounting: records as the module writes them, in time
 * order, summed the way /proc/vmstat counts (kswapd, direct and memcg
 * reclaim told apart), kswapd's time awake split at interval ends, slab
 * shrinker calls paired by task; its command line and output.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "harness.h"
#include "pidtab.h"
#include "vmscan.h"

static void reclaim(struct vmscan *v, uint16_t type, uint64_t ts, uint32_t pid, bool memcg,
		    uint64_t pages)
{
	struct memtrace_ev_reclaim r = {
		.hdr = { .size = sizeof(r), .type = type }, .ts_ns = ts, .pid = pid,
		.flags = memcg ? MEMTRACE_RECLAIM_MEMCG : 0, .nr_reclaimed = pages,
	};

	vmscan_account(v, &r.hdr);
}

static void isolate(struct vmscan *v, uint64_t ts, uint32_t pid, uint32_t flags, int lru,
		    uint64_t scanned, uint64_t taken)
{
	struct memtrace_ev_lru_isolate r = {
		.hdr = { .size = sizeof(r), .type = MEMTRACE_EVT_LRU_ISOLATE }, .ts_ns = ts,
		.pid = pid, .flags = flags, .lru = lru, .nr_scanned = scanned, .nr_taken = taken,
	};

	vmscan_account(v, &r.hdr);
}

static void inactive(struct vmscan *v, uint64_t ts, uint32_t pid, uint32_t flags, bool file,
		     uint64_t reclaimed)
{
	struct memtrace_ev_lru_inactive r = {
		.hdr = { .size = sizeof(r), .type = MEMTRACE_EVT_LRU_INACTIVE }, .ts_ns = ts,
		.pid = pid, .flags = flags, .file = file, .nr_reclaimed = reclaimed,
		.nr_activate = { 1, 2 },
	};

	vmscan_account(v, &r.hdr);
}

static void kswapd(struct vmscan *v, uint16_t type, uint64_t ts, int nid)
{
	struct memtrace_ev_kswapd r = {
		.hdr = { .size = sizeof(r), .type = type }, .ts_ns = ts, .pid = 30,
		.flags = MEMTRACE_VMSCAN_KSWAPD, .nid = nid,
	};

	vmscan_account(v, &r.hdr);
}

static void slab(struct vmscan *v, uint16_t type, uint64_t ts, uint32_t pid, uint64_t fn,
		 uint64_t total_scan, int64_t freed)
{
	struct memtrace_ev_shrink_slab r = {
		.hdr = { .size = sizeof(r), .type = type }, .ts_ns = ts, .pid = pid,
		.scan_fn = fn, .total_scan = total_scan, .freed = freed,
	};

	vmscan_account(v, &r.hdr);
}

static void test_accounting(void)
{
	struct vmscan *v = malloc(sizeof(*v));
	const struct vmscan_counts *c;
	struct memtrace_ev_vmscan_write w = {
		.hdr = { .size = sizeof(w), .type = MEMTRACE_EVT_VMSCAN_WRITE }, .pid = 30,
		.flags = MEMTRACE_VMSCAN_KSWAPD, .nr_pages = 4, .file = 0,
	};
	struct memtrace_ev_hdr unknown = { .size = 8, .type = 31 };

	vmscan_init(v, false);
	/* kswapd (node 0) wakes at 1000, scans file pages, sleeps at 5000. */
	kswapd(v, MEMTRACE_EVT_KSWAPD_WAKE, 1000, 0);
	isolate(v, 1100, 30, MEMTRACE_VMSCAN_KSWAPD, MEMTRACE_LRU_INACTIVE_FILE, 32, 30);
	inactive(v, 1200, 30, MEMTRACE_VMSCAN_KSWAPD, true, 28);
	isolate(v, 1300, 30, MEMTRACE_VMSCAN_KSWAPD, MEMTRACE_LRU_ACTIVE_FILE, 16, 16);
	kswapd(v, MEMTRACE_EVT_KSWAPD_WAKE, 1400, 0);	/* a second run, still awake */
	vmscan_account(v, &w.hdr);
	kswapd(v, MEMTRACE_EVT_KSWAPD_SLEEP, 5000, 0);
	/* Task 40 in memcg reclaim, task 41 in direct reclaim, at the same time. */
	reclaim(v, MEMTRACE_EVT_RECLAIM_BEGIN, 6000, 40, true, 0);
	reclaim(v, MEMTRACE_EVT_RECLAIM_BEGIN, 6001, 41, false, 0);
	isolate(v, 6100, 40, 0, MEMTRACE_LRU_INACTIVE_FILE, 10, 10);
	isolate(v, 6101, 41, 0, MEMTRACE_LRU_INACTIVE_ANON, 7, 7);
	inactive(v, 6200, 40, 0, true, 9);
	inactive(v, 6201, 41, 0, false, 5);
	slab(v, MEMTRACE_EVT_SLAB_BEGIN, 6300, 40, 0xffffffff81000000ULL, 128, 0);
	slab(v, MEMTRACE_EVT_SLAB_END, 6800, 40, 0xffffffff81000000ULL, 28, 90);
	reclaim(v, MEMTRACE_EVT_RECLAIM_END, 7000, 40, true, 9);
	reclaim(v, MEMTRACE_EVT_RECLAIM_END, 9001, 41, false, 5);
	/* Task 40 again, outside any reclaim: a direct scan (node reclaim, say). */
	isolate(v, 9500, 40, 0, MEMTRACE_LRU_INACTIVE_FILE, 3, 3);
	vmscan_account(v, &unknown);
	c = vmscan_interval(v, 10000);

	check(c->kswapd_runs == 2 && c->kswapd_ns == 4000,
	      "vmscan: kswapd's runs counted, its time from first wake to sleep (%llu runs, %llu ns)",
	      (unsigned long long)c->kswapd_runs, (unsigned long long)c->kswapd_ns);
	check(c->scan[VMSCAN_KSWAPD][1] == 32 && c->steal[VMSCAN_KSWAPD][1] == 28,
	      "vmscan: kswapd's file scan is the inactive list's, not the active list's");
	check(c->scan[VMSCAN_MEMCG][1] == 10 && c->steal[VMSCAN_MEMCG][1] == 9 &&
	      c->scan[VMSCAN_DIRECT][0] == 7 && c->steal[VMSCAN_DIRECT][0] == 5 &&
	      c->scan[VMSCAN_DIRECT][1] == 3,
	      "vmscan: a scan is the memcg's only between its task's memcg reclaim begin and end");
	check(c->reclaims[1] == 1 && c->reclaim_ns[1] == 1000 && c->reclaim_pages[1] == 9 &&
	      c->reclaims[0] == 1 && c->reclaim_ns[0] == 3000 && c->reclaim_pages[0] == 5,
	      "vmscan: direct and memcg reclaims, their time and pages");
	check(c->lru_scanned[MEMTRACE_LRU_ACTIVE_FILE] == 16 &&
	      c->lru_scanned[MEMTRACE_LRU_INACTIVE_FILE] == 45 &&
	      c->lru_reclaimed[MEMTRACE_LRU_INACTIVE_FILE] == 37 &&
	      c->lru_activated[MEMTRACE_LRU_INACTIVE_FILE] == 6,
	      "vmscan: per LRU list");
	check(c->slab_calls == 1 && c->slab_scanned == 100 && c->slab_freed == 90 &&
	      c->slab_ns == 500 && c->nr_shrinkers == 1 && c->shrinkers[0].max_ns == 500,
	      "vmscan: a shrinker's scan is what it took off total_scan, its latency end - begin");
	check(c->written[0] == 4 && c->written[1] == 0, "vmscan: writeback from reclaim, anon");
	check(v->unpaired == 0, "vmscan: every end had its begin");

	/* kswapd awake across an interval end: its time is split there. */
	kswapd(v, MEMTRACE_EVT_KSWAPD_WAKE, 11000, 1);
	c = vmscan_interval(v, 12000);
	check(c->kswapd_runs == 1 && c->kswapd_ns == 1000 && c->scan[VMSCAN_DIRECT][1] == 0,
	      "vmscan: an awake kswapd's time so far is the interval's");
	kswapd(v, MEMTRACE_EVT_KSWAPD_SLEEP, 12500, 1);
	kswapd(v, MEMTRACE_EVT_KSWAPD_SLEEP, 12600, 0);	/* no wake seen: no time */
	slab(v, MEMTRACE_EVT_SLAB_END, 12700, 50, 0, 0, 3);
	c = vmscan_interval(v, 13000);
	check(c->kswapd_runs == 0 && c->kswapd_ns == 500 && c->slab_calls == 1 &&
	      c->slab_freed == 3 && v->unpaired == 1,
	      "vmscan: the rest at its sleep; an end without begin counted, unpaired");
	check(v->total.kswapd_ns == 5500 && v->total.kswapd_runs == 3 &&
	      v->total.slab_calls == 2, "vmscan: the session's totals");

	/* With the multi-generational LRU, pgscan counts what was taken. */
	vmscan_init(v, true);
	isolate(v, 100, 30, MEMTRACE_VMSCAN_KSWAPD, MEMTRACE_LRU_INACTIVE_FILE, 500, 64);
	c = vmscan_interval(v, 200);
	check(c->scan[VMSCAN_KSWAPD][1] == 64, "vmscan: MGLRU scans are the pages taken");
	free(v);
}

static void test_format(void)
{
	struct vmscan *v = malloc(sizeof(*v));
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	vmscan_init(v, false);
	kswapd(v, MEMTRACE_EVT_KSWAPD_WAKE, 1000000, 0);
	isolate(v, 1100000, 30, MEMTRACE_VMSCAN_KSWAPD, MEMTRACE_LRU_INACTIVE_FILE, 32, 30);
	inactive(v, 1200000, 30, MEMTRACE_VMSCAN_KSWAPD, true, 28);
	kswapd(v, MEMTRACE_EVT_KSWAPD_SLEEP, 3500000, 0);
	reclaim(v, MEMTRACE_EVT_RECLAIM_BEGIN, 4000000, 40, false, 0);
	isolate(v, 4100000, 40, 0, MEMTRACE_LRU_INACTIVE_FILE, 12, 12);
	inactive(v, 4200000, 40, 0, true, 10);
	slab(v, MEMTRACE_EVT_SLAB_BEGIN, 4300000, 40, 0, 64, 0);
	slab(v, MEMTRACE_EVT_SLAB_END, 4550000, 40, 0, 0, 60);
	reclaim(v, MEMTRACE_EVT_RECLAIM_END, 5000000, 40, false, 10);
	f = open_memstream(&text, &len);
	vmscan_print_head(f);
	vmscan_print_row(f, "12:00:01", vmscan_interval(v, 6000000), 10, NULL);
	vmscan_print_totals(f, v, 10, NULL);
	fclose(f);
	check(same_as_golden(text, "vmscan.golden"), "vmscan: interval row and totals");
	free(text);
	free(v);
}

static void test_pidtab(void)
{
	struct pidtab *t = calloc(1, sizeof(*t));
	struct pidtab_ent *e;
	bool ok = true;

	/* Pids that share a home slot, then deletions in the middle of the chain. */
	for (uint32_t i = 1; i <= 5; i++) {
		e = pidtab_get(t, i * PIDTAB_SLOTS + 7, true);
		ok &= e && e->v[0] == 0;
		if (e)
			e->v[0] = i;
	}
	pidtab_del(t, pidtab_get(t, 2 * PIDTAB_SLOTS + 7, false));
	pidtab_del(t, pidtab_get(t, 4 * PIDTAB_SLOTS + 7, false));
	for (uint32_t i = 1; i <= 5; i++) {
		e = pidtab_get(t, i * PIDTAB_SLOTS + 7, false);
		ok &= (i == 2 || i == 4) ? !e : e && e->v[0] == i;
	}
	ok &= !pidtab_get(t, 0, true);
	check(ok, "pidtab: colliding pids found after deletions in their chain");
	memset(t, 0, sizeof(*t));
	for (uint32_t i = 1; i <= PIDTAB_SLOTS; i++)
		pidtab_get(t, i, true);
	check(!pidtab_get(t, PIDTAB_SLOTS + 1, true) && pidtab_get(t, PIDTAB_SLOTS, false),
	      "pidtab: a full table says so");
	free(t);
}

static void test_cli(void)
{
	struct mt_options o;
	struct mt_err err;

	check(cli_parse_words(&o, &err, 6, "--vmscan", "-T", "3", "2", "5") == 0 &&
	      o.mode == MT_MODE_VMSCAN && o.top == 3 && o.interval_s == 2 && o.count == 5,
	      "vmscan cli: --vmscan -T 3 2 5");
	check(cli_parse_words(&o, &err, 3, "--vmscan", "--reclaim") == -EINVAL &&
	      strstr(err.msg, "different modes"), "vmscan cli: one mode (%s)", err.msg);
	check(cli_parse_words(&o, &err, 4, "--vmscan", "-p", "1") == -EINVAL &&
	      strstr(err.msg, "--vmscan reports memory pressure events") &&
	      strstr(err.msg, "-p"), "vmscan cli: not with -p (%s)", err.msg);
	check(cli_parse_words(&o, &err, 4, "--vmscan", "-c", "true") == -EINVAL &&
	      strstr(err.msg, "-c"), "vmscan cli: not with -c");
}

static void test_mglru_switch(void)
{
	char dir[64], path[128];
	FILE *f;

	if (!make_tmpdir(dir, sizeof(dir), "vmscan"))
		return;
	snprintf(path, sizeof(path), "%s/enabled", dir);
	f = fopen(path, "w");
	fputs("0x0007\n", f);
	fclose(f);
	check(vmscan_mglru_on(path), "vmscan: lru_gen 0x0007 is on");
	f = fopen(path, "w");
	fputs("0x0000\n", f);
	fclose(f);
	check(!vmscan_mglru_on(path), "vmscan: lru_gen 0x0000 is off");
	check(!vmscan_mglru_on("/nonexistent/lru_gen"), "vmscan: no lru_gen is off");
	remove_tree(dir);
}

void vmscan_tests(void)
{
	test_accounting();
	test_format();
	test_pidtab();
	test_cli();
	test_mglru_switch();
}
