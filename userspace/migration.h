/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --migration: page migration per interval and reason (compaction,
 * migrate_pages(2) and cpusets, mbind, NUMA balancing, ...): calls, pages
 * migrated and failed, THPs, time in migrate_pages(); at the end the
 * totals per reason and per task, in /proc/vmstat's terms too.
 * Accounting and formatting only: pressure.c runs the session.
 */
#ifndef MEMTRACE_READ_MIGRATION_H
#define MEMTRACE_READ_MIGRATION_H

#include <stdint.h>
#include <stdio.h>

#include <jansson.h>
#include <linux/memtrace.h>

#include "pidtab.h"

/*
 * Each MEMTRACE_MR_* this reader names has its counters; reasons a newer
 * module or kernel adds share one, "other": every output then has one
 * line, record or series per name.
 */
#define MIGRATION_REASON_OTHER	(MEMTRACE_MR_DAMON + 1)
#define MIGRATION_REASONS	(MIGRATION_REASON_OTHER + 1)
#define MIGRATION_TASKS		256

struct migration_stats {
	uint64_t calls, ns, max_ns;
	uint64_t succeeded, failed, thp_succeeded, thp_failed, thp_split, large_split;
};

struct migration_task {
	uint32_t pid;
	char comm[MEMTRACE_COMM_LEN + 1];
	struct migration_stats s;
};

struct migration_counts {
	struct migration_stats reason[MIGRATION_REASONS];
};

struct migration {
	struct pidtab open;		/* calls begun: v[0] time */
	struct migration_counts iv, total, last;
	struct migration_task tasks[MIGRATION_TASKS];
	unsigned int nr_tasks;
	uint64_t unpaired, tasks_full;
};

void migration_init(struct migration *m);
void migration_account(struct migration *m, const struct memtrace_ev_hdr *h);
/* Ends the interval: its counts (valid until the next call). */
const struct migration_counts *migration_interval(struct migration *m);
/* The kernel's name of a reason, as its migrate:mm_migrate_pages event prints it. */
const char *migration_reason_name(uint32_t reason);

void migration_print_head(FILE *out);
/* One row per reason that migrated in the interval ("-" if none). */
void migration_print_rows(FILE *out, const char *hms, const struct migration_counts *c);
void migration_print_totals(FILE *out, const struct migration *m, unsigned int top);
/*
 * --json: one interval's reasons, or the totals (reasons, their sum, the
 * -T tasks, the vmstat terms), added to the record rec; 0, or -1 out of
 * memory.
 */
int migration_counts_json(json_t *rec, const struct migration_counts *c);
int migration_totals_json(json_t *rec, const struct migration *m, unsigned int top);

#endif
