// SPDX-License-Identifier: GPL-2.0
/*
 * --reclaim's accounting; see reclaim.h.  Apart from pressure.c's rows
 * so that each pressure mode's counting has a file of its own, as
 * vmscan.c, compaction.c and migration.c do.
 */
#include "reclaim.h"

#include <inttypes.h>
#include <string.h>

#include "evjson.h"
#include "util.h"

static unsigned int log2_slot(uint64_t us)
{
	unsigned int s = 0;

	while (us > 1 && s < RECLAIM_HIST_SLOTS - 1) {
		us >>= 1;
		s++;
	}
	return us ? s + 1 : 0;
}

void reclaim_event(struct reclaim_state *st, const struct memtrace_ev_reclaim *r,
		   time_t when, FILE *out, FILE *json)
{
	bool memcg = r->flags & MEMTRACE_RECLAIM_MEMCG;
	struct pidtab_ent *o = pidtab_get(&st->open, r->pid,
					  r->hdr.type == MEMTRACE_EVT_RECLAIM_BEGIN);
	struct reclaim_proc *p = NULL;
	char comm[MEMTRACE_COMM_LEN + 1], hms[16];
	uint64_t lat;

	if (r->hdr.type == MEMTRACE_EVT_RECLAIM_BEGIN) {
		if (o)
			o->v[0] = r->ts_ns;
		return;
	}
	st->events[memcg]++;
	st->pages[memcg] += r->nr_reclaimed;
	if (!o) {
		st->unpaired++;
		return;
	}
	lat = r->ts_ns - o->v[0];
	st->ns[memcg] += lat;
	pidtab_del(&st->open, o);
	mt_comm(comm, r->comm);
	mt_hms(when, hms, sizeof(hms));
	if (out)
		fprintf(out, "%-8s %-16s %-7" PRIu32 " %9.3f %7" PRIu64 "%s\n", hms, comm, r->pid,
			lat / 1e6, (uint64_t)r->nr_reclaimed, memcg ? " memcg" : "");
	if (json) {
		json_t *rec = evjson_record("reclaim", "reclaim", hms);

		if (rec && json_object_update_new(rec, json_pack(
			"{s:o, s:I, s:o, s:o, s:o, s:b}", "monotonic_ns", evjson_u64(r->ts_ns),
			"pid", (json_int_t)r->pid, "comm", evjson_comm(r->comm),
			"latency_ns", evjson_u64(lat), "pages", evjson_u64(r->nr_reclaimed),
			"memcg", memcg))) {
			json_decref(rec);
			rec = NULL;
		}
		evjson_emit(json, rec);
	}
	for (unsigned int i = 0; i < st->nr_procs; i++)
		if (st->procs[i].pid == r->pid && !strcmp(st->procs[i].comm, comm))
			p = &st->procs[i];
	if (!p && st->nr_procs < RECLAIM_PROCS) {
		p = &st->procs[st->nr_procs++];
		p->pid = r->pid;
		memcpy(p->comm, comm, sizeof(p->comm));
	}
	if (!p) {
		st->procs_full++;
		return;
	}
	p->count++;
	p->total_ns += lat;
	p->pages += r->nr_reclaimed;
	p->hist[log2_slot(lat / 1000)]++;
}

void reclaim_summary(const struct reclaim_state *st, FILE *out)
{
	fprintf(out, "\nDirect reclaim: %" PRIu64 " reclaims, %" PRIu64 " pages reclaimed; "
		"memcg reclaim: %" PRIu64 " reclaims, %" PRIu64 " pages reclaimed\n",
		st->events[0], st->pages[0], st->events[1], st->pages[1]);
	if (st->unpaired)
		fprintf(out, "(%" PRIu64 " ends without their begin: counted, no latency)\n",
			st->unpaired);
	for (unsigned int i = 0; i < st->nr_procs; i++) {
		const struct reclaim_proc *p = &st->procs[i];
		unsigned int last = 0;
		uint64_t max = 0;

		for (unsigned int s = 0; s < RECLAIM_HIST_SLOTS; s++) {
			if (p->hist[s])
				last = s;
			if (p->hist[s] > max)
				max = p->hist[s];
		}
		fprintf(out, "\npid %" PRIu32 " (%s): %" PRIu64 " reclaims, %" PRIu64
			" pages, avg %.3f ms\n", p->pid, p->comm, p->count, p->pages,
			p->count ? p->total_ns / 1e6 / p->count : 0.0);
		fprintf(out, "%24s : %-10s distribution\n", "usecs", "count");
		for (unsigned int s = 0; s <= last; s++) {
			uint64_t lo = s ? 1ULL << (s - 1) : 0, hi = (1ULL << s) - 1;
			char stars[41];
			unsigned int n = max ? (unsigned int)(p->hist[s] * 40 / max) : 0;

			memset(stars, '*', n);
			stars[n] = '\0';
			fprintf(out, "%10" PRIu64 " -> %-10" PRIu64 " : %-10" PRIu64 " |%-40s|\n",
				lo, hi, p->hist[s], stars);
		}
	}
	if (st->procs_full)
		fprintf(out, "(%" PRIu64 " reclaims of processes past the first %d not "
			"in the histograms)\n", st->procs_full, RECLAIM_PROCS);
}

int reclaim_summary_json(json_t *rec, const struct reclaim_state *st)
{
	json_t *procs = json_array();

	for (unsigned int i = 0; procs && i < st->nr_procs; i++) {
		const struct reclaim_proc *p = &st->procs[i];
		json_t *hist = json_array();
		unsigned int last = 0;

		for (unsigned int s = 0; s < RECLAIM_HIST_SLOTS; s++)
			if (p->hist[s])
				last = s;
		for (unsigned int s = 0; hist && s <= last; s++)
			json_array_append_new(hist, json_pack(
				"{s:o, s:o, s:o}", "usecs_min", evjson_u64(s ? 1ULL << (s - 1) : 0),
				"usecs_max", evjson_u64((1ULL << s) - 1),
				"count", evjson_u64(p->hist[s])));
		json_array_append_new(procs, json_pack(
			"{s:I, s:o, s:o, s:o, s:o, s:o}", "pid", (json_int_t)p->pid,
			"comm", evjson_comm(p->comm), "reclaims", evjson_u64(p->count),
			"pages", evjson_u64(p->pages), "ns", evjson_u64(p->total_ns),
			"histogram", hist ? hist : json_array()));
	}
	return json_object_update_new(rec, json_pack(
		"{s:{s:o, s:o}, s:{s:o, s:o}, s:o, s:o, s:o}",
		"direct_reclaim", "reclaims", evjson_u64(st->events[0]),
		"pages", evjson_u64(st->pages[0]),
		"memcg_reclaim", "reclaims", evjson_u64(st->events[1]),
		"pages", evjson_u64(st->pages[1]),
		"unpaired", evjson_u64(st->unpaired),
		"processes", procs ? procs : json_array(),
		"processes_untracked", evjson_u64(st->procs_full)));
}
