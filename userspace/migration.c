// SPDX-License-Identifier: GPL-2.0
/*
 * --migration's accounting and formatting; see migration.h.  A call's end
 * (mm_migrate_pages) carries the counts the kernel has just added to
 * pgmigrate_success/_fail and thp_migration_*; a NUMA balancing call's
 * pages migrated are also numa_pages_migrated.
 */
#include "migration.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "evjson.h"
#include "util.h"

void migration_init(struct migration *m)
{
	memset(m, 0, sizeof(*m));
}

const char *migration_reason_name(uint32_t reason)
{
	static const char *const names[] = {
		[MEMTRACE_MR_COMPACTION] = "compaction",
		[MEMTRACE_MR_MEMORY_FAILURE] = "memory_failure",
		[MEMTRACE_MR_MEMORY_HOTPLUG] = "memory_hotplug",
		[MEMTRACE_MR_SYSCALL] = "syscall_or_cpuset",
		[MEMTRACE_MR_MEMPOLICY_MBIND] = "mempolicy_mbind",
		[MEMTRACE_MR_NUMA_MISPLACED] = "numa_misplaced",
		[MEMTRACE_MR_CONTIG_RANGE] = "contig_range",
		[MEMTRACE_MR_LONGTERM_PIN] = "longterm_pin",
		[MEMTRACE_MR_DEMOTION] = "demotion",
		[MEMTRACE_MR_DAMON] = "damon",
		[MIGRATION_REASON_OTHER] = "other",
	};

	return reason < sizeof(names) / sizeof(names[0]) ? names[reason] : "other";
}

static void add(struct migration_stats *s, const struct memtrace_ev_migrate *r, uint64_t ns)
{
	s->calls++;
	s->ns += ns;
	if (ns > s->max_ns)
		s->max_ns = ns;
	s->succeeded += r->succeeded;
	s->failed += r->failed;
	s->thp_succeeded += r->thp_succeeded;
	s->thp_failed += r->thp_failed;
	s->thp_split += r->thp_split;
	s->large_split += r->large_split;
}

/* Adds s's numbers to all's (a sum over reasons). */
static void sum_stats(struct migration_stats *all, const struct migration_stats *s)
{
	all->calls += s->calls;
	all->succeeded += s->succeeded;
	all->failed += s->failed;
	all->thp_succeeded += s->thp_succeeded;
	all->thp_failed += s->thp_failed;
	all->thp_split += s->thp_split;
	all->large_split += s->large_split;
	all->ns += s->ns;
	if (s->max_ns > all->max_ns)
		all->max_ns = s->max_ns;
}

static struct migration_task *task_of(struct migration *m, const struct memtrace_ev_migrate *r)
{
	char comm[MEMTRACE_COMM_LEN + 1];

	mt_comm(comm, r->comm);
	for (unsigned int i = 0; i < m->nr_tasks; i++)
		if (m->tasks[i].pid == r->pid && !strcmp(m->tasks[i].comm, comm))
			return &m->tasks[i];
	if (m->nr_tasks == MIGRATION_TASKS)
		return NULL;
	m->tasks[m->nr_tasks].pid = r->pid;
	strcpy(m->tasks[m->nr_tasks].comm, comm);
	return &m->tasks[m->nr_tasks++];
}

void migration_account(struct migration *m, const struct memtrace_ev_hdr *h)
{
	const struct memtrace_ev_migrate *r = (const void *)h;
	struct migration_task *t;
	struct pidtab_ent *e;
	unsigned int reason;
	uint64_t ns = 0;

	if ((h->type != MEMTRACE_EVT_MIGRATE_BEGIN && h->type != MEMTRACE_EVT_MIGRATE_END) ||
	    h->size < sizeof(*r))
		return;
	e = pidtab_get(&m->open, r->pid, h->type == MEMTRACE_EVT_MIGRATE_BEGIN);
	if (h->type == MEMTRACE_EVT_MIGRATE_BEGIN) {
		if (e)
			e->v[0] = r->ts_ns;
		return;
	}
	if (e) {
		ns = r->ts_ns > e->v[0] ? r->ts_ns - e->v[0] : 0;
		pidtab_del(&m->open, e);
	} else {
		m->unpaired++;
	}
	reason = r->reason < MIGRATION_REASON_OTHER ? r->reason : MIGRATION_REASON_OTHER;
	add(&m->iv.reason[reason], r, ns);
	add(&m->total.reason[reason], r, ns);
	t = task_of(m, r);
	if (t)
		add(&t->s, r, ns);
	else
		m->tasks_full++;
}

const struct migration_counts *migration_interval(struct migration *m)
{
	m->last = m->iv;
	memset(&m->iv, 0, sizeof(m->iv));
	return &m->last;
}

void migration_print_head(FILE *out)
{
	fprintf(out, "%-8s %-18s %6s %10s %8s %7s %8s %9s %10s\n", "TIME", "REASON", "CALLS",
		"SUCCEEDED", "FAILED", "THP-OK", "THP-FAIL", "THP-SPLIT", "TOTALms");
}

static void print_stats(FILE *out, const char *first, const char *name,
			const struct migration_stats *s)
{
	fprintf(out, "%-8s %-18s %6" PRIu64 " %10" PRIu64 " %8" PRIu64 " %7" PRIu64 " %8" PRIu64
		" %9" PRIu64 " %10.3f\n", first, name, s->calls, s->succeeded, s->failed,
		s->thp_succeeded, s->thp_failed, s->thp_split, s->ns / 1e6);
}

void migration_print_rows(FILE *out, const char *hms, const struct migration_counts *c)
{
	bool any = false;

	for (unsigned int i = 0; i < MIGRATION_REASONS; i++) {
		if (!c->reason[i].calls)
			continue;
		print_stats(out, hms, migration_reason_name(i), &c->reason[i]);
		any = true;
	}
	if (!any)
		fprintf(out, "%-8s -\n", hms);
}

static int by_pages(const void *a, const void *b)
{
	const struct migration_task *x = a, *y = b;
	uint64_t px = x->s.succeeded + x->s.failed, py = y->s.succeeded + y->s.failed;

	return px < py ? 1 : px > py ? -1 : 0;
}

void migration_print_totals(FILE *out, const struct migration *m, unsigned int top)
{
	struct migration_task t[MIGRATION_TASKS];
	struct migration_stats all = { 0 };

	fprintf(out, "\nTotals:\n");
	migration_print_head(out);
	for (unsigned int i = 0; i < MIGRATION_REASONS; i++) {
		const struct migration_stats *s = &m->total.reason[i];

		if (!s->calls)
			continue;
		print_stats(out, "", migration_reason_name(i), s);
		sum_stats(&all, s);
	}
	print_stats(out, "", "all", &all);
	memcpy(t, m->tasks, m->nr_tasks * sizeof(t[0]));
	qsort(t, m->nr_tasks, sizeof(t[0]), by_pages);
	fprintf(out, "%-7s %-16s %6s %10s %8s %10s\n", "PID", "COMM", "CALLS", "SUCCEEDED",
		"FAILED", "TOTALms");
	for (unsigned int i = 0; i < m->nr_tasks && i < top; i++)
		fprintf(out, "%-7" PRIu32 " %-16s %6" PRIu64 " %10" PRIu64 " %8" PRIu64 " %10.3f\n",
			t[i].pid, t[i].comm, t[i].s.calls, t[i].s.succeeded, t[i].s.failed,
			t[i].s.ns / 1e6);
	if (m->unpaired)
		fprintf(out, "(%" PRIu64 " ends without their begin: counted, no latency)\n",
			m->unpaired);
	if (m->tasks_full)
		fprintf(out, "(%" PRIu64 " calls by tasks past the first %d: in the totals only)\n",
			m->tasks_full, MIGRATION_TASKS);
	fprintf(out, "vmstat: pgmigrate_success %" PRIu64 " pgmigrate_fail %" PRIu64
		" thp_migration_success %" PRIu64 " thp_migration_fail %" PRIu64
		" thp_migration_split %" PRIu64 " numa_pages_migrated %" PRIu64 "\n",
		all.succeeded, all.failed, all.thp_succeeded, all.thp_failed, all.thp_split,
		m->total.reason[MEMTRACE_MR_NUMA_MISPLACED].succeeded);
}

/* ---- --json ---- */

static json_t *stats_json(const struct migration_stats *s)
{
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
			 "calls", evjson_u64(s->calls), "succeeded", evjson_u64(s->succeeded),
			 "failed", evjson_u64(s->failed),
			 "thp_succeeded", evjson_u64(s->thp_succeeded),
			 "thp_failed", evjson_u64(s->thp_failed),
			 "thp_split", evjson_u64(s->thp_split),
			 "large_split", evjson_u64(s->large_split),
			 "ns", evjson_u64(s->ns), "max_ns", evjson_u64(s->max_ns));
}

/* The reasons that migrated, as the text's rows; their sum in *all if not NULL. */
static json_t *reasons_json(const struct migration_counts *c, struct migration_stats *all)
{
	json_t *a = json_array();

	for (unsigned int i = 0; a && i < MIGRATION_REASONS; i++) {
		const struct migration_stats *s = &c->reason[i];
		json_t *o;

		if (!s->calls)
			continue;
		o = stats_json(s);
		if (o)
			json_object_set_new(o, "reason", json_string(migration_reason_name(i)));
		json_array_append_new(a, o);
		if (all)
			sum_stats(all, s);
	}
	return a;
}

int migration_counts_json(json_t *rec, const struct migration_counts *c)
{
	return json_object_set_new(rec, "reasons", reasons_json(c, NULL));
}

int migration_totals_json(json_t *rec, const struct migration *m, unsigned int top)
{
	struct migration_task t[MIGRATION_TASKS];
	struct migration_stats all = { 0 };
	json_t *reasons = reasons_json(&m->total, &all), *tasks = json_array();

	memcpy(t, m->tasks, m->nr_tasks * sizeof(t[0]));
	qsort(t, m->nr_tasks, sizeof(t[0]), by_pages);
	for (unsigned int i = 0; tasks && i < m->nr_tasks && i < top; i++) {
		json_t *o = stats_json(&t[i].s);

		if (o) {
			json_object_set_new(o, "pid", json_integer(t[i].pid));
			json_object_set_new(o, "comm", evjson_comm(t[i].comm));
		}
		json_array_append_new(tasks, o);
	}
	return json_object_update_new(rec, json_pack(
		"{s:o, s:o, s:o, s:o, s:o, s:{s:o, s:o, s:o, s:o, s:o, s:o}}",
		"reasons", reasons ? reasons : json_array(), "all", stats_json(&all),
		"tasks", tasks ? tasks : json_array(), "unpaired", evjson_u64(m->unpaired),
		"tasks_untracked", evjson_u64(m->tasks_full),
		"vmstat", "pgmigrate_success", evjson_u64(all.succeeded),
		"pgmigrate_fail", evjson_u64(all.failed),
		"thp_migration_success", evjson_u64(all.thp_succeeded),
		"thp_migration_fail", evjson_u64(all.thp_failed),
		"thp_migration_split", evjson_u64(all.thp_split),
		"numa_pages_migrated",
		evjson_u64(m->total.reason[MEMTRACE_MR_NUMA_MISPLACED].succeeded)));
}
