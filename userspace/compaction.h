/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --compaction: each zone's compaction run as compactsnoop(8) prints it
 * (task, node, zone, order, sync or async, latency, outcome), and at the
 * end the runs per node, zone and order, the tasks that stalled in direct
 * compaction, and the totals in /proc/vmstat's terms.  Accounting and
 * formatting only: pressure.c runs the session and feeds the records in
 * time order.
 */
#ifndef MEMTRACE_READ_COMPACTION_H
#define MEMTRACE_READ_COMPACTION_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include <jansson.h>
#include <linux/memtrace.h>

#include "pidtab.h"

#define COMPACTION_KEYS		128	/* (node, zone, order) kept */
#define COMPACTION_STALLERS	256	/* tasks kept */
#define COMPACTION_NR_STATUS	(MEMTRACE_COMPACT_SUCCESS + 2)	/* the last: unknown */

struct compaction_zone_stats {
	int32_t nid, order;
	char zone[MEMTRACE_NAME_LEN];
	uint64_t runs, ns, max_ns, direct;
	uint64_t status[COMPACTION_NR_STATUS];
	uint64_t migrate_scanned, free_scanned;
};

struct compaction_staller {
	uint32_t pid;
	char comm[MEMTRACE_COMM_LEN + 1];
	uint64_t calls;			/* try_to_compact_pages() entered */
	uint64_t runs, ns, max_ns;	/* zone runs and their time */
};

struct compaction {
	struct pidtab open;		/* runs begun: v[0] time */
	struct compaction_zone_stats zones[COMPACTION_KEYS];
	unsigned int nr_zones;
	struct compaction_staller stallers[COMPACTION_STALLERS];
	unsigned int nr_stallers;
	uint64_t runs, direct_calls, kcompactd_wakes;
	uint64_t direct_runs, direct_ns;	/* every task's, the table's or not */
	uint64_t migrate_scanned, free_scanned;	/* every run */
	uint64_t unpaired, no_control, full;
	FILE *json;			/* --json: each run's record goes there too */
};

void compaction_init(struct compaction *c);
/*
 * One record, in time order; a run's end prints its line on out (when
 * is its wall clock time).
 */
void compaction_account(struct compaction *c, const struct memtrace_ev_hdr *h, time_t when,
			FILE *out);
void compaction_print_head(FILE *out);
/* Runs per node, zone and order; stallers; the vmstat: line. */
void compaction_print_totals(FILE *out, const struct compaction *c, unsigned int top);
/* --json: the totals, added to the record rec; 0, or -1 out of memory. */
int compaction_totals_json(json_t *rec, const struct compaction *c, unsigned int top);
/* compactsnoop's name of a result ("complete", "partial_skipped", ...). */
const char *compaction_status_name(uint32_t status);

#endif
