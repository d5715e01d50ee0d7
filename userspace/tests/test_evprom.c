// SPDX-License-Identifier: GPL-2.0
/*
 * --prometheus of the pressure modes (evprom.c): each mode's counters
 * with their labels and exact values, seconds from nanoseconds digit for
 * digit, one series per label set (migration's "other" reasons as one),
 * and the whole file accepted by promtool check metrics (Debian's
 * prometheus package), as node_exporter's textfile collector would read
 * it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evprom.h"
#include "fmt.h"
#include "harness.h"

static void render(FILE *out)
{
	static struct vmscan_counts v;
	static struct compaction c;
	static struct migration_counts m;

	/* Every family in one file, under one mode label. */
	evprom_begin("vmscan");
	memset(&v, 0, sizeof(v));
	v.kswapd_runs = 2;
	v.kswapd_ns = 1500000000;
	v.reclaims[0] = 6;
	v.reclaim_ns[0] = 7;
	v.reclaim_pages[1] = 9;
	v.scan[VMSCAN_MEMCG][1] = 11;
	v.steal[VMSCAN_KSWAPD][0] = 12;
	v.written[1] = 13;
	v.slab_calls = 14;
	evprom_vmscan(out, &v);

	compaction_init(&c);
	c.runs = 5;
	c.nr_zones = 2;
	c.zones[0].status[MEMTRACE_COMPACT_COMPLETE] = 2;
	c.zones[1].status[MEMTRACE_COMPACT_COMPLETE] = 1;
	c.zones[1].status[MEMTRACE_COMPACT_SKIPPED] = 2;
	c.zones[0].ns = 250;
	c.zones[1].ns = 750;
	c.nr_stallers = 2;
	c.stallers[0].runs = 1;
	c.stallers[0].ns = 100;
	c.stallers[1].runs = 2;
	c.stallers[1].ns = 200;
	c.direct_runs = 3;	/* the stallers' and any past their table */
	c.direct_ns = 300;
	c.migrate_scanned = 77;
	evprom_compaction(out, &c);

	memset(&m, 0, sizeof(m));
	m.reason[MEMTRACE_MR_COMPACTION].calls = 2;
	m.reason[MEMTRACE_MR_COMPACTION].succeeded = 64;
	m.reason[MEMTRACE_MR_COMPACTION].ns = 2000000001;
	m.reason[MIGRATION_REASON_OTHER].calls = 2;
	m.reason[MIGRATION_REASON_OTHER].succeeded = 7;
	evprom_migration(out, &m);

	evprom_oom_kills(out, 1);
	evprom_lost(out, 8, 2);
	evprom_timestamp(out);
}

static int render_file(FILE *out, const void *ctx, struct mt_err *err)
{
	(void)ctx;
	(void)err;
	render(out);
	return 0;
}

static unsigned int count_lines(const char *text, const char *prefix)
{
	unsigned int n = 0;
	size_t len = strlen(prefix);

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, prefix, len))
			n++;
	return n;
}

static void test_values(void)
{
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);

	render(out);
	fclose(out);
	check(strstr(text, "memtrace_kswapd_runs_total{mode=\"vmscan\"} 2\n") &&
	      strstr(text, "memtrace_kswapd_awake_seconds_total{mode=\"vmscan\"} 1.500000000\n") &&
	      strstr(text, "memtrace_reclaims_total{mode=\"vmscan\",reclaimer=\"direct\"} 6\n") &&
	      strstr(text, "memtrace_reclaim_seconds_total{mode=\"vmscan\",reclaimer=\"direct\"} 0.000000007\n") &&
	      strstr(text, "memtrace_reclaim_pages_total{mode=\"vmscan\",reclaimer=\"memcg\"} 9\n") &&
	      strstr(text, "memtrace_vmscan_scanned_pages_total{mode=\"vmscan\",reclaimer=\"memcg\",type=\"file\"} "
		     "11\n") &&
	      strstr(text, "memtrace_vmscan_reclaimed_pages_total{mode=\"vmscan\",reclaimer=\"kswapd\","
		     "type=\"anon\"} 12\n") &&
	      strstr(text, "memtrace_vmscan_written_pages_total{mode=\"vmscan\",type=\"file\"} 13\n") &&
	      strstr(text, "memtrace_shrinker_calls_total{mode=\"vmscan\"} 14\n"),
	      "evprom: --vmscan's counters, labelled by reclaimer and type, seconds exact");
	check(count_lines(text, "memtrace_vmscan_scanned_pages_total{mode=\"vmscan\",") == 6,
	      "evprom: --vmscan: every reclaimer and type has its series, zero or not");
	check(strstr(text, "memtrace_compaction_runs_total{mode=\"vmscan\"} 5\n") &&
	      strstr(text, "memtrace_compaction_outcomes_total{mode=\"vmscan\",status=\"complete\"} 3\n") &&
	      strstr(text, "memtrace_compaction_outcomes_total{mode=\"vmscan\",status=\"skipped\"} 2\n") &&
	      strstr(text, "memtrace_compaction_seconds_total{mode=\"vmscan\"} 0.000001000\n") &&
	      strstr(text, "memtrace_compaction_stalls_total{mode=\"vmscan\"} 3\n") &&
	      strstr(text, "memtrace_compaction_stall_seconds_total{mode=\"vmscan\"} 0.000000300\n") &&
	      strstr(text, "memtrace_compaction_scanned_pages_total{mode=\"vmscan\",scanner=\"migrate\"} 77\n"),
	      "evprom: --compaction: the zones' outcomes summed, direct runs and time");
	check(strstr(text, "memtrace_migration_calls_total{mode=\"vmscan\",reason=\"compaction\"} 2\n") &&
	      strstr(text, "memtrace_migration_succeeded_pages_total{mode=\"vmscan\",reason=\"compaction\"} 64\n") &&
	      strstr(text, "memtrace_migration_seconds_total{mode=\"vmscan\",reason=\"compaction\"} 2.000000001\n") &&
	      strstr(text, "memtrace_migration_succeeded_pages_total{mode=\"vmscan\",reason=\"other\"} 7\n") &&
	      count_lines(text, "memtrace_migration_calls_total{mode=\"vmscan\",reason=\"other\"}") == 1 &&
	      !strstr(text, "reason=\"numa_misplaced\""),
	      "evprom: --migration: per reason that migrated, the unknown reasons as one "
	      "\"other\" series");
	check(strstr(text, "memtrace_oom_kills_total{mode=\"vmscan\"} 1\n") &&
	      strstr(text, "memtrace_lost_total{mode=\"vmscan\",reason=\"event_ring_full\"} 8\n") &&
	      strstr(text, "memtrace_lost_total{mode=\"vmscan\",reason=\"probe_hits_missed\"} 2\n"),
	      "evprom: OOM kills, and the losses by reason");
	if (!strstr(text, "memtrace_lost_total{mode=\"vmscan\",reason=\"event_ring_full\"} 8\n"))
		diag("%s", text);
	free(text);
}

static void test_promtool(void)
{
	char dir[64], path[128], cmd[256];
	struct mt_err err;
	int st;

	if (!make_tmpdir(dir, sizeof(dir), "evprom")) {
		check(false, "evprom: a temporary directory for the metrics");
		return;
	}
	snprintf(path, sizeof(path), "%s/pressure.prom", dir);
	st = fmt_write_any(path, NULL, render_file, &err);
	check(st == 0, "evprom: the metrics written atomically (fmt_write_any)");
	snprintf(cmd, sizeof(cmd), "promtool check metrics < %s >%s/promtool.out 2>&1", path, dir);
	st = run_quiet("%s", cmd);
	check(st, "evprom: promtool check metrics accepts the pressure modes' file");
	if (!st) {
		char *o;

		snprintf(path, sizeof(path), "%s/promtool.out", dir);
		o = read_file(path, NULL);
		diag("%s", o ? o : "(no output)");
		free(o);
	}
	remove_tree(dir);
}

void evprom_tests(void)
{
	test_values();
	test_promtool();
}
