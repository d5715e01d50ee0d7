// SPDX-License-Identifier: GPL-2.0
/*
 * --compaction's accounting and formatting; see compaction.h.
 *
 * A run is a mm_compaction_begin/end pair by one task (a task compacts one
 * zone at a time).  The end carries the run's scanner counts as the
 * kernel adds them to /proc/vmstat's compact_migrate_scanned and
 * compact_free_scanned just before it.  Which of kcompactd's runs are
 * also in compact_daemon_*_scanned differs by kernel (6.1 leaves its
 * proactive runs out, 6.12 counts them): kcompactd's runs are shown by
 * its name, not summed in those terms.
 */
#include "compaction.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "evjson.h"
#include "util.h"

void compaction_init(struct compaction *c)
{
	memset(c, 0, sizeof(*c));
}

const char *compaction_status_name(uint32_t status)
{
	static const char *const names[] = {
		[MEMTRACE_COMPACT_NOT_SUITABLE_ZONE] = "not_suitable_zone",
		[MEMTRACE_COMPACT_SKIPPED] = "skipped",
		[MEMTRACE_COMPACT_DEFERRED] = "deferred",
		[MEMTRACE_COMPACT_NO_SUITABLE_PAGE] = "no_suitable_page",
		[MEMTRACE_COMPACT_CONTINUE] = "continue",
		[MEMTRACE_COMPACT_COMPLETE] = "complete",
		[MEMTRACE_COMPACT_PARTIAL_SKIPPED] = "partial_skipped",
		[MEMTRACE_COMPACT_CONTENDED] = "contended",
		[MEMTRACE_COMPACT_SUCCESS] = "success",
	};

	return status < sizeof(names) / sizeof(names[0]) ? names[status] : "unknown";
}

static struct compaction_zone_stats *zone_of(struct compaction *c,
					     const struct memtrace_ev_compact *r)
{
	char zone[MEMTRACE_NAME_LEN];

	memcpy(zone, r->zone, sizeof(zone));
	zone[sizeof(zone) - 1] = '\0';
	for (unsigned int i = 0; i < c->nr_zones; i++) {
		struct compaction_zone_stats *z = &c->zones[i];

		if (z->nid == r->nid && z->order == r->order && !strcmp(z->zone, zone))
			return z;
	}
	if (c->nr_zones == COMPACTION_KEYS)
		return NULL;
	c->zones[c->nr_zones].nid = r->nid;
	c->zones[c->nr_zones].order = r->order;
	memcpy(c->zones[c->nr_zones].zone, zone, sizeof(zone));
	return &c->zones[c->nr_zones++];
}

static struct compaction_staller *staller_of(struct compaction *c, uint32_t pid,
					     const char *comm)
{
	for (unsigned int i = 0; i < c->nr_stallers; i++)
		if (c->stallers[i].pid == pid && !strcmp(c->stallers[i].comm, comm))
			return &c->stallers[i];
	if (c->nr_stallers == COMPACTION_STALLERS)
		return NULL;
	c->stallers[c->nr_stallers].pid = pid;
	strcpy(c->stallers[c->nr_stallers].comm, comm);
	return &c->stallers[c->nr_stallers++];
}

void compaction_print_head(FILE *out)
{
	fprintf(out, "%-8s %-16s %-7s %4s %-8s %5s %-5s %9s %-17s %9s %9s\n", "TIME", "COMM",
		"PID", "NODE", "ZONE", "ORDER", "MODE", "LAT(ms)", "STATUS", "MIGRSCAN",
		"FREESCAN");
}

static void on_end(struct compaction *c, const struct memtrace_ev_compact *r, time_t when,
		   FILE *out)
{
	struct pidtab_ent *e = pidtab_get(&c->open, r->pid, false);
	char comm[MEMTRACE_COMM_LEN + 1], hms[16], lat[32];
	struct compaction_zone_stats *z;
	uint32_t status = r->status < COMPACTION_NR_STATUS - 1 ? r->status :
			  COMPACTION_NR_STATUS - 1;
	bool direct = r->flags & MEMTRACE_COMPACT_DIRECT, paired = e != NULL;
	uint64_t ns = 0;

	mt_comm(comm, r->comm);
	if (e) {
		ns = r->ts_ns > e->v[0] ? r->ts_ns - e->v[0] : 0;
		pidtab_del(&c->open, e);
	} else {
		c->unpaired++;
	}
	c->runs++;
	if (r->flags & MEMTRACE_COMPACT_NO_CONTROL)
		c->no_control++;
	c->migrate_scanned += r->migrate_scanned;
	c->free_scanned += r->free_scanned;
	z = zone_of(c, r);
	if (z) {
		z->runs++;
		z->ns += ns;
		if (ns > z->max_ns)
			z->max_ns = ns;
		z->direct += direct;
		z->status[status]++;
		z->migrate_scanned += r->migrate_scanned;
		z->free_scanned += r->free_scanned;
	} else {
		c->full++;
	}
	if (direct) {
		struct compaction_staller *s = staller_of(c, r->pid, comm);

		c->direct_runs++;
		c->direct_ns += ns;
		if (s) {
			s->runs++;
			s->ns += ns;
			if (ns > s->max_ns)
				s->max_ns = ns;
		} else {
			c->full++;
		}
	}
	if (!out && !c->json)
		return;
	mt_hms(when, hms, sizeof(hms));
	if (c->json) {
		json_t *rec = evjson_record("compaction", "run", hms);

		if (rec && json_object_update_new(rec, json_pack(
			"{s:o, s:I, s:o, s:i, s:s, s:i, s:b, s:o, s:s, s:o, s:o, s:b}",
			"monotonic_ns", evjson_u64(r->ts_ns), "pid", (json_int_t)r->pid,
			"comm", evjson_comm(r->comm), "node", (int)r->nid,
			"zone", r->zone[0] ? r->zone : "?", "order", (int)r->order,
			"sync", !!(r->flags & MEMTRACE_COMPACT_SYNC),
			"latency_ns", paired ? evjson_u64(ns) : json_null(),
			"status", compaction_status_name(r->status),
			"migrate_scanned", evjson_u64(r->migrate_scanned),
			"free_scanned", evjson_u64(r->free_scanned), "direct", direct))) {
			json_decref(rec);
			rec = NULL;
		}
		evjson_emit(c->json, rec);
	}
	if (!out)
		return;
	if (paired)
		snprintf(lat, sizeof(lat), "%9.3f", ns / 1e6);
	else
		snprintf(lat, sizeof(lat), "%9s", "?");
	fprintf(out, "%-8s %-16s %-7" PRIu32 " %4" PRId32 " %-8s %5" PRId32 " %-5s %s %-17s %9"
		PRIu64 " %9" PRIu64 "%s\n", hms, comm, r->pid, r->nid, r->zone[0] ? r->zone : "?",
		r->order, (r->flags & MEMTRACE_COMPACT_SYNC) ? "sync" : "async", lat,
		compaction_status_name(r->status), (uint64_t)r->migrate_scanned,
		(uint64_t)r->free_scanned, direct ? " direct" : "");
}

void compaction_account(struct compaction *c, const struct memtrace_ev_hdr *h, time_t when,
			FILE *out)
{
	switch (h->type) {
	case MEMTRACE_EVT_COMPACT_BEGIN:
		if (h->size >= sizeof(struct memtrace_ev_compact)) {
			const struct memtrace_ev_compact *r = (const void *)h;
			struct pidtab_ent *e = pidtab_get(&c->open, r->pid, true);

			if (e)
				e->v[0] = r->ts_ns;
		}
		break;
	case MEMTRACE_EVT_COMPACT_END:
		if (h->size >= sizeof(struct memtrace_ev_compact))
			on_end(c, (const void *)h, when, out);
		break;
	case MEMTRACE_EVT_COMPACT_TRY:
		c->direct_calls++;
		/*
		 * A stall is the entry: a direct compaction whose every zone
		 * was deferred, or already had the page, ran no zone but
		 * stalled all the same (and compact_stall counts it; only
		 * one that skipped every zone it leaves out).
		 */
		if (h->size >= sizeof(struct memtrace_ev_compact_try)) {
			const struct memtrace_ev_compact_try *r = (const void *)h;
			char comm[MEMTRACE_COMM_LEN + 1];
			struct compaction_staller *s;

			mt_comm(comm, r->comm);
			/* Past the table: in direct_calls only. */
			s = staller_of(c, r->pid, comm);
			if (s)
				s->calls++;
		}
		break;
	case MEMTRACE_EVT_KCOMPACTD_WAKE:
		c->kcompactd_wakes++;
		break;
	default:
		break;
	}
}

static int by_time(const void *a, const void *b)
{
	const struct compaction_staller *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns < y->ns ? 1 : -1;
	return x->calls < y->calls ? 1 : x->calls > y->calls ? -1 : 0;
}

void compaction_print_totals(FILE *out, const struct compaction *c, unsigned int top)
{
	struct compaction_staller s[COMPACTION_STALLERS];

	fprintf(out, "\nCompaction: %" PRIu64 " zone runs; %" PRIu64 " direct compactions "
		"begun; kcompactd woken %" PRIu64 " times\n", c->runs, c->direct_calls,
		c->kcompactd_wakes);
	if (c->nr_zones) {
		fprintf(out, "%4s %-8s %5s %6s %6s %10s %9s %10s %10s  %s\n", "NODE", "ZONE",
			"ORDER", "RUNS", "DIRECT", "TOTALms", "MAXms", "MIGRSCAN", "FREESCAN",
			"OUTCOMES");
		for (unsigned int i = 0; i < c->nr_zones; i++) {
			const struct compaction_zone_stats *z = &c->zones[i];

			fprintf(out, "%4" PRId32 " %-8s %5" PRId32 " %6" PRIu64 " %6" PRIu64
				" %10.3f %9.3f %10" PRIu64 " %10" PRIu64 " ", z->nid,
				z->zone[0] ? z->zone : "?", z->order, z->runs, z->direct,
				z->ns / 1e6, z->max_ns / 1e6, z->migrate_scanned,
				z->free_scanned);
			for (unsigned int st = 0; st < COMPACTION_NR_STATUS; st++)
				if (z->status[st])
					fprintf(out, " %s:%" PRIu64, compaction_status_name(st),
						z->status[st]);
			fprintf(out, "\n");
		}
	}
	memcpy(s, c->stallers, c->nr_stallers * sizeof(s[0]));
	qsort(s, c->nr_stallers, sizeof(s[0]), by_time);
	fprintf(out, "Stalled in direct compaction: %u tasks\n", c->nr_stallers);
	for (unsigned int i = 0; i < c->nr_stallers && i < top; i++)
		fprintf(out, "  pid %-7" PRIu32 " %-16s %6" PRIu64 " compactions %6" PRIu64
			" runs %10.3f ms (max %.3f ms)\n", s[i].pid, s[i].comm, s[i].calls,
			s[i].runs, s[i].ns / 1e6, s[i].max_ns / 1e6);
	if (c->unpaired)
		fprintf(out, "(%" PRIu64 " ends without their begin: counted, no latency)\n",
			c->unpaired);
	if (c->no_control)
		fprintf(out, "(%" PRIu64 " runs whose zone, order and counts this kernel's "
			"compact_control did not show)\n", c->no_control);
	if (c->full)
		fprintf(out, "(%" PRIu64 " runs past the tables: in the totals only)\n", c->full);
	fprintf(out, "vmstat: compact_migrate_scanned %" PRIu64 " compact_free_scanned %" PRIu64
		" compact_daemon_wake %" PRIu64 "\n", c->migrate_scanned, c->free_scanned,
		c->kcompactd_wakes);
}

int compaction_totals_json(json_t *rec, const struct compaction *c, unsigned int top)
{
	struct compaction_staller s[COMPACTION_STALLERS];
	json_t *zones = json_array(), *stallers = json_array();

	for (unsigned int i = 0; zones && i < c->nr_zones; i++) {
		const struct compaction_zone_stats *z = &c->zones[i];
		json_t *outcomes = json_object();

		for (unsigned int st = 0; outcomes && st < COMPACTION_NR_STATUS; st++)
			if (z->status[st])
				json_object_set_new(outcomes, compaction_status_name(st),
						    evjson_u64(z->status[st]));
		json_array_append_new(zones, json_pack(
			"{s:i, s:s, s:i, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
			"node", (int)z->nid, "zone", z->zone[0] ? z->zone : "?",
			"order", (int)z->order, "runs", evjson_u64(z->runs),
			"direct", evjson_u64(z->direct), "ns", evjson_u64(z->ns),
			"max_ns", evjson_u64(z->max_ns),
			"migrate_scanned", evjson_u64(z->migrate_scanned),
			"free_scanned", evjson_u64(z->free_scanned),
			"outcomes", outcomes ? outcomes : json_object()));
	}
	memcpy(s, c->stallers, c->nr_stallers * sizeof(s[0]));
	qsort(s, c->nr_stallers, sizeof(s[0]), by_time);
	for (unsigned int i = 0; stallers && i < c->nr_stallers && i < top; i++)
		json_array_append_new(stallers, json_pack(
			"{s:I, s:o, s:o, s:o, s:o, s:o}", "pid", (json_int_t)s[i].pid,
			"comm", evjson_comm(s[i].comm),
			"direct_compactions", evjson_u64(s[i].calls), "runs", evjson_u64(s[i].runs),
			"ns", evjson_u64(s[i].ns), "max_ns", evjson_u64(s[i].max_ns)));
	return json_object_update_new(rec, json_pack(
		"{s:o, s:o, s:o, s:o, s:I, s:o, s:o, s:o, s:o, s:{s:o, s:o, s:o}}",
		"runs", evjson_u64(c->runs), "direct_compactions", evjson_u64(c->direct_calls),
		"kcompactd_wakes", evjson_u64(c->kcompactd_wakes),
		"zones", zones ? zones : json_array(), "stalled_tasks", (json_int_t)c->nr_stallers,
		"stallers", stallers ? stallers : json_array(),
		"unpaired", evjson_u64(c->unpaired), "no_control", evjson_u64(c->no_control),
		"untracked", evjson_u64(c->full),
		"vmstat", "compact_migrate_scanned", evjson_u64(c->migrate_scanned),
		"compact_free_scanned", evjson_u64(c->free_scanned),
		"compact_daemon_wake", evjson_u64(c->kcompactd_wakes)));
}
