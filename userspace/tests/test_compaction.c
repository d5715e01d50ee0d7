// SPDX-License-Identifier: GPL-2.0
/*
 * --compaction's accounting: begin and end paired by task, runs per node,
 * zone and order with their outcomes, direct compaction stalls per task,
 * kcompactd's share of the scanner counts; its lines and command line.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "compaction.h"
#include "harness.h"

static void run(struct compaction *c, FILE *out, uint64_t t0, uint64_t t1, uint32_t pid,
		const char *comm, uint32_t flags, int order, const char *zone, uint32_t status,
		uint64_t migr, uint64_t free_)
{
	struct memtrace_ev_compact r = {
		.hdr = { .size = sizeof(r), .type = MEMTRACE_EVT_COMPACT_BEGIN },
		.ts_ns = t0, .pid = pid, .flags = flags, .nid = 0, .order = order,
	};

	strncpy(r.comm, comm, sizeof(r.comm) - 1);
	strncpy(r.zone, zone, sizeof(r.zone) - 1);
	compaction_account(c, &r.hdr, 0, out);
	r.hdr.type = MEMTRACE_EVT_COMPACT_END;
	r.ts_ns = t1;
	r.status = status;
	r.migrate_scanned = migr;
	r.free_scanned = free_;
	compaction_account(c, &r.hdr, 0, out);
}

static void test_accounting(void)
{
	struct compaction *c = malloc(sizeof(*c));
	struct memtrace_ev_compact_try t = {
		.hdr = { .size = sizeof(t), .type = MEMTRACE_EVT_COMPACT_TRY }, .pid = 40, .order = 9,
		.comm = "thp",
	};
	/* Every zone deferred: a stall, as compact_stall counts it, with no run. */
	struct memtrace_ev_compact_try deferred = {
		.hdr = { .size = sizeof(t), .type = MEMTRACE_EVT_COMPACT_TRY }, .pid = 41, .order = 4,
		.comm = "fork",
	};
	struct memtrace_ev_kswapd w = {
		.hdr = { .size = sizeof(w), .type = MEMTRACE_EVT_KCOMPACTD_WAKE }, .nid = 0,
	};
	struct memtrace_ev_compact orphan = {
		.hdr = { .size = sizeof(orphan), .type = MEMTRACE_EVT_COMPACT_END }, .pid = 77,
		.nid = 0, .order = -1, .status = MEMTRACE_COMPACT_COMPLETE, .migrate_scanned = 5,
	};
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	compaction_init(c);
	compaction_print_head(out);
	/* compact_memory by sh: two zones, order -1. */
	run(c, out, 1000000, 3000000, 50, "sh", MEMTRACE_COMPACT_SYNC, -1, "DMA", 5, 100, 200);
	run(c, out, 3000000, 9000000, 50, "sh", MEMTRACE_COMPACT_SYNC, -1, "DMA32", 5, 1000, 3000);
	/* A direct compaction for a THP, twice, by task 40. */
	compaction_account(c, &t.hdr, 0, out);
	run(c, out, 10000000, 10500000, 40, "thp", MEMTRACE_COMPACT_DIRECT, 9, "DMA32", 8, 64, 32);
	run(c, out, 11000000, 12500000, 40, "thp", MEMTRACE_COMPACT_DIRECT, 9, "DMA32", 6, 32, 16);
	/* kcompactd. */
	compaction_account(c, &w.hdr, 0, out);
	run(c, out, 20000000, 20250000, 31, "kcompactd0", 0, 9, "DMA32", 8, 10, 20);
	compaction_account(c, &orphan.hdr, 0, out);
	compaction_account(c, &deferred.hdr, 0, out);
	compaction_print_totals(out, c, 10);
	fclose(out);

	check(c->runs == 6 && c->unpaired == 1 && c->direct_calls == 2 && c->kcompactd_wakes == 1,
	      "compaction: runs, direct compactions, kcompactd wakes, one end unpaired");
	check(c->migrate_scanned == 1211 && c->free_scanned == 3268,
	      "compaction: scanner counts of every run");
	/* kcompactd's order-9 run on DMA32 shares the direct ones' line. */
	check(c->nr_zones == 4 && c->zones[2].runs == 3 && c->zones[2].direct == 2 &&
	      c->zones[2].ns == 2250000 && c->zones[2].max_ns == 1500000 &&
	      c->zones[2].status[MEMTRACE_COMPACT_SUCCESS] == 2 &&
	      c->zones[2].status[MEMTRACE_COMPACT_PARTIAL_SKIPPED] == 1,
	      "compaction: per node, zone and order: runs, latency, outcomes");
	check(c->nr_stallers == 2 && c->stallers[0].pid == 40 && c->stallers[0].calls == 1 &&
	      c->stallers[0].runs == 2 && c->stallers[0].ns == 2000000,
	      "compaction: direct compaction stalls by task");
	check(c->stallers[1].pid == 41 && c->stallers[1].calls == 1 && c->stallers[1].runs == 0,
	      "compaction: a direct compaction that ran no zone is a stall too");
	check(same_as_golden(text, "compaction.golden"), "compaction: lines and totals");
	free(text);
	free(c);
}

static void test_cli(void)
{
	struct mt_options o;
	struct mt_err err;

	check(cli_parse_words(&o, &err, 4, "--compaction", "-T", "5") == 0 &&
	      o.mode == MT_MODE_COMPACTION && o.top == 5, "compaction cli: --compaction -T 5");
	check(cli_parse_words(&o, &err, 3, "--compaction", "--vmscan") == -EINVAL &&
	      strstr(err.msg, "--vmscan and --compaction are different modes"),
	      "compaction cli: one mode (%s)", err.msg);
	check(cli_parse_words(&o, &err, 4, "--compaction", "-p", "1") == -EINVAL &&
	      strstr(err.msg, "--compaction reports memory pressure events"),
	      "compaction cli: not with -p");
}

void compaction_tests(void)
{
	test_accounting();
	test_cli();
	check(!strcmp(compaction_status_name(MEMTRACE_COMPACT_PARTIAL_SKIPPED), "partial_skipped") &&
	      !strcmp(compaction_status_name(200), "unknown"), "compaction: outcome names");
}
