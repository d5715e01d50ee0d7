// SPDX-License-Identifier: GPL-2.0
/*
 * --vmscan's accounting and formatting; see vmscan.h.
 *
 * Which reclaim a scan belongs to decides which /proc/vmstat counter it
 * is in: a kswapd's (the record's flag) in pgscan_kswapd, a memcg
 * reclaim's (the task has a memcg reclaim begun) in neither
 * pgscan_kswapd nor pgscan_direct, any other in pgscan_direct (6.12
 * splits khugepaged's off into pgscan_khugepaged).  Every one of them is
 * in pgscan_anon or pgscan_file.
 */
#include "vmscan.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "evjson.h"
#include "ksyms.h"

/* pidtab_ent.flags */
#define OPEN_RECLAIM	(1U << 0)
#define OPEN_SLAB	(1U << 1)

void vmscan_init(struct vmscan *v, bool mglru)
{
	memset(v, 0, sizeof(*v));
	v->mglru = mglru;
}

bool vmscan_mglru_on(const char *path)
{
	FILE *f = fopen(path, "r");
	char buf[32];
	bool on = false;

	if (!f)
		return false;
	if (fgets(buf, sizeof(buf), f))
		on = strtoul(buf, NULL, 0) & 1;
	fclose(f);
	return on;
}

static enum vmscan_who who_of(struct vmscan *v, uint32_t pid, uint32_t flags)
{
	struct pidtab_ent *e;

	if (flags & MEMTRACE_VMSCAN_KSWAPD)
		return VMSCAN_KSWAPD;
	e = pidtab_get(&v->open, pid, false);
	if (e && (e->flags & OPEN_RECLAIM) && e->v[1])
		return VMSCAN_MEMCG;
	return VMSCAN_DIRECT;
}

/* e is done with what flag says; the entry goes when nothing is left in flight. */
static void close_open(struct vmscan *v, struct pidtab_ent *e, uint32_t flag)
{
	e->flags &= ~flag;
	if (!e->flags)
		pidtab_del(&v->open, e);
}

static void add_shrinker(struct vmscan_counts *c, uint64_t fn, uint64_t ns, uint64_t scanned,
			 uint64_t freed)
{
	struct vmscan_shrinker *s = NULL;

	c->slab_calls++;
	c->slab_ns += ns;
	c->slab_scanned += scanned;
	c->slab_freed += freed;
	for (unsigned int i = 0; i < c->nr_shrinkers; i++)
		if (c->shrinkers[i].fn == fn)
			s = &c->shrinkers[i];
	if (!s && c->nr_shrinkers < VMSCAN_SHRINKERS) {
		s = &c->shrinkers[c->nr_shrinkers++];
		s->fn = fn;
	}
	if (!s) {
		c->shrinkers_full++;
		return;
	}
	s->calls++;
	s->ns += ns;
	s->scanned += scanned;
	s->freed += freed;
	if (ns > s->max_ns)
		s->max_ns = ns;
}

/* Adds to the interval's counts and the session's: field, then a value. */
#define BOTH(v, field, n)			\
	do {					\
		uint64_t n_ = (n);		\
		(v)->iv.field += n_;		\
		(v)->total.field += n_;		\
	} while (0)

static void on_reclaim(struct vmscan *v, const struct memtrace_ev_reclaim *r)
{
	unsigned int memcg = !!(r->flags & MEMTRACE_RECLAIM_MEMCG);
	struct pidtab_ent *e = pidtab_get(&v->open, r->pid,
					  r->hdr.type == MEMTRACE_EVT_RECLAIM_BEGIN);

	if (r->hdr.type == MEMTRACE_EVT_RECLAIM_BEGIN) {
		if (e) {
			e->flags |= OPEN_RECLAIM;
			e->v[0] = r->ts_ns;
			e->v[1] = memcg;
		}
		return;
	}
	BOTH(v, reclaims[memcg], 1);
	BOTH(v, reclaim_pages[memcg], r->nr_reclaimed);
	if (!e || !(e->flags & OPEN_RECLAIM)) {
		v->unpaired++;
		return;
	}
	if (r->ts_ns > e->v[0])
		BOTH(v, reclaim_ns[memcg], r->ts_ns - e->v[0]);
	close_open(v, e, OPEN_RECLAIM);
}

static void on_kswapd(struct vmscan *v, const struct memtrace_ev_kswapd *r)
{
	uint64_t *since;

	if (r->hdr.type == MEMTRACE_EVT_WAKEUP_KSWAPD) {
		BOTH(v, kswapd_wakeups, 1);
		return;
	}
	if (r->nid < 0 || r->nid >= VMSCAN_MAX_NODES)
		return;
	since = &v->awake_since[r->nid];
	if (r->hdr.type == MEMTRACE_EVT_KSWAPD_WAKE) {
		BOTH(v, kswapd_runs, 1);
		if (!*since)
			*since = r->ts_ns;
		return;
	}
	/* A sleep with no wake seen: awake since before the session, time unknown. */
	if (*since && r->ts_ns > *since)
		BOTH(v, kswapd_ns, r->ts_ns - *since);
	*since = 0;
}

static void on_lru_isolate(struct vmscan *v, const struct memtrace_ev_lru_isolate *r)
{
	unsigned int file;

	if (r->lru < 0 || r->lru >= VMSCAN_NR_LRU)
		return;
	BOTH(v, lru_scanned[r->lru], r->nr_scanned);
	BOTH(v, lru_taken[r->lru], r->nr_taken);
	if (r->lru != MEMTRACE_LRU_INACTIVE_ANON && r->lru != MEMTRACE_LRU_INACTIVE_FILE)
		return;		/* an active list's: pgrefill, not pgscan */
	file = r->lru == MEMTRACE_LRU_INACTIVE_FILE;
	BOTH(v, scan[who_of(v, r->pid, r->flags)][file], v->mglru ? r->nr_taken : r->nr_scanned);
}

static void on_lru_inactive(struct vmscan *v, const struct memtrace_ev_lru_inactive *r)
{
	unsigned int file = !!r->file;
	unsigned int lru = file ? MEMTRACE_LRU_INACTIVE_FILE : MEMTRACE_LRU_INACTIVE_ANON;

	BOTH(v, lru_reclaimed[lru], r->nr_reclaimed);
	BOTH(v, lru_activated[lru], (uint64_t)r->nr_activate[0] + r->nr_activate[1]);
	BOTH(v, steal[who_of(v, r->pid, r->flags)][file], r->nr_reclaimed);
}

static void on_lru_active(struct vmscan *v, const struct memtrace_ev_lru_active *r)
{
	unsigned int lru = r->file ? MEMTRACE_LRU_ACTIVE_FILE : MEMTRACE_LRU_ACTIVE_ANON;

	BOTH(v, lru_deactivated[lru], r->nr_deactivated);
}

static void on_slab(struct vmscan *v, const struct memtrace_ev_shrink_slab *r)
{
	struct pidtab_ent *e = pidtab_get(&v->open, r->pid, r->hdr.type == MEMTRACE_EVT_SLAB_BEGIN);
	uint64_t ns = 0, scanned = 0, freed = r->freed > 0 ? (uint64_t)r->freed : 0;

	if (r->hdr.type == MEMTRACE_EVT_SLAB_BEGIN) {
		if (e) {
			e->flags |= OPEN_SLAB;
			e->v[2] = r->ts_ns;
			e->v[3] = r->total_scan;
		}
		return;
	}
	if (e && (e->flags & OPEN_SLAB)) {
		ns = r->ts_ns > e->v[2] ? r->ts_ns - e->v[2] : 0;
		/* What do_shrink_slab() took off total_scan is what it scanned. */
		scanned = e->v[3] > r->total_scan ? e->v[3] - r->total_scan : 0;
		close_open(v, e, OPEN_SLAB);
	} else {
		v->unpaired++;
	}
	add_shrinker(&v->iv, r->scan_fn, ns, scanned, freed);
	add_shrinker(&v->total, r->scan_fn, ns, scanned, freed);
}

void vmscan_account(struct vmscan *v, const struct memtrace_ev_hdr *h)
{
	switch (h->type) {
	case MEMTRACE_EVT_RECLAIM_BEGIN:
	case MEMTRACE_EVT_RECLAIM_END:
		if (h->size >= sizeof(struct memtrace_ev_reclaim))
			on_reclaim(v, (const void *)h);
		break;
	case MEMTRACE_EVT_KSWAPD_WAKE:
	case MEMTRACE_EVT_KSWAPD_SLEEP:
	case MEMTRACE_EVT_WAKEUP_KSWAPD:
		if (h->size >= sizeof(struct memtrace_ev_kswapd))
			on_kswapd(v, (const void *)h);
		break;
	case MEMTRACE_EVT_LRU_ISOLATE:
		if (h->size >= sizeof(struct memtrace_ev_lru_isolate))
			on_lru_isolate(v, (const void *)h);
		break;
	case MEMTRACE_EVT_LRU_INACTIVE:
		if (h->size >= sizeof(struct memtrace_ev_lru_inactive))
			on_lru_inactive(v, (const void *)h);
		break;
	case MEMTRACE_EVT_LRU_ACTIVE:
		if (h->size >= sizeof(struct memtrace_ev_lru_active))
			on_lru_active(v, (const void *)h);
		break;
	case MEMTRACE_EVT_SLAB_BEGIN:
	case MEMTRACE_EVT_SLAB_END:
		if (h->size >= sizeof(struct memtrace_ev_shrink_slab))
			on_slab(v, (const void *)h);
		break;
	case MEMTRACE_EVT_VMSCAN_WRITE:
		if (h->size >= sizeof(struct memtrace_ev_vmscan_write)) {
			const struct memtrace_ev_vmscan_write *r = (const void *)h;

			BOTH(v, written[!!r->file], r->nr_pages);
		}
		break;
	default:
		break;
	}
}

const struct vmscan_counts *vmscan_interval(struct vmscan *v, uint64_t now_ns)
{
	/* A kswapd still awake: its time so far is this interval's. */
	for (unsigned int n = 0; n < VMSCAN_MAX_NODES; n++) {
		if (!v->awake_since[n])
			continue;
		if (now_ns > v->awake_since[n]) {
			BOTH(v, kswapd_ns, now_ns - v->awake_since[n]);
			v->awake_since[n] = now_ns;
		}
	}
	v->last = v->iv;
	memset(&v->iv, 0, sizeof(v->iv));
	return &v->last;
}

/* ---- formatting ---- */

void vmscan_shrinker_name(struct ksyms *ks, uint64_t fn, char *buf, size_t len)
{
	struct ksym s;

	if (!fn)
		snprintf(buf, len, "(hidden: needs CAP_SYSLOG)");
	else if (ks && ksyms_lookup(ks, fn, &s) && !strcmp(s.module, "kernel"))
		snprintf(buf, len, "%s", s.name);
	else if (ks && ksyms_lookup(ks, fn, &s))
		snprintf(buf, len, "%s [%s]", s.name, s.module);
	else
		snprintf(buf, len, "0x%" PRIx64, fn);
}

static int by_time(const void *a, const void *b)
{
	const struct vmscan_shrinker *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns < y->ns ? 1 : -1;
	return x->calls < y->calls ? 1 : x->calls > y->calls ? -1 : 0;
}

static uint64_t sum_who(const uint64_t a[VMSCAN_NR_WHO][2], unsigned int file)
{
	return a[VMSCAN_KSWAPD][file] + a[VMSCAN_DIRECT][file] + a[VMSCAN_MEMCG][file];
}

void vmscan_print_head(FILE *out)
{
	fprintf(out, "%-8s %6s %9s %6s %9s %6s %9s %9s %6s %8s %8s %8s %8s\n", "TIME", "KSWAPD",
		"KSWAPDms", "DRECL", "DRECLms", "MRECL", "MRECLms", "SLABms", "WRITE", "SCAN-A",
		"STEAL-A", "SCAN-F", "STEAL-F");
}

static void print_shrinkers(FILE *out, const struct vmscan_counts *c, unsigned int top,
			    struct ksyms *ks, const char *indent)
{
	struct vmscan_shrinker s[VMSCAN_SHRINKERS];
	unsigned int n = c->nr_shrinkers;

	memcpy(s, c->shrinkers, n * sizeof(s[0]));
	qsort(s, n, sizeof(s[0]), by_time);
	for (unsigned int i = 0; i < n && i < top; i++) {
		char name[256];

		vmscan_shrinker_name(ks, s[i].fn, name, sizeof(name));
		fprintf(out, "%s%-36s %7" PRIu64 " %10" PRIu64 " %10" PRIu64 " %10.3f %9.3f\n",
			indent, name, s[i].calls, s[i].scanned, s[i].freed, s[i].ns / 1e6,
			s[i].max_ns / 1e6);
	}
	if (n > top)
		fprintf(out, "%s(%u more shrinkers)\n", indent, n - top);
	if (c->shrinkers_full)
		fprintf(out, "%s(%" PRIu64 " calls of shrinkers past the first %d: in the "
			"totals only)\n", indent, c->shrinkers_full, VMSCAN_SHRINKERS);
}

void vmscan_print_row(FILE *out, const char *hms, const struct vmscan_counts *c,
		      unsigned int top, struct ksyms *ks)
{
	fprintf(out, "%-8s %6" PRIu64 " %9.3f %6" PRIu64 " %9.3f %6" PRIu64 " %9.3f %9.3f %6"
		PRIu64 " %8" PRIu64 " %8" PRIu64 " %8" PRIu64 " %8" PRIu64 "\n", hms,
		c->kswapd_runs, c->kswapd_ns / 1e6, c->reclaims[0], c->reclaim_ns[0] / 1e6,
		c->reclaims[1], c->reclaim_ns[1] / 1e6, c->slab_ns / 1e6,
		c->written[0] + c->written[1], sum_who(c->scan, 0), sum_who(c->steal, 0),
		sum_who(c->scan, 1), sum_who(c->steal, 1));
	if (c->nr_shrinkers && top)
		print_shrinkers(out, c, top, ks, "         slab: ");
}

static const char *const lru_names[VMSCAN_NR_LRU] = {
	"inactive_anon", "active_anon", "inactive_file", "active_file",
};

void vmscan_print_totals(FILE *out, const struct vmscan *v, unsigned int top, struct ksyms *ks)
{
	const struct vmscan_counts *c = &v->total;
	static const char *const who[VMSCAN_NR_WHO] = { "kswapd", "direct", "memcg" };

	fprintf(out, "\nTotals:\n");
	fprintf(out, "kswapd: %" PRIu64 " balancing runs, %.3f ms awake; woken by %" PRIu64
		" allocations\n", c->kswapd_runs, c->kswapd_ns / 1e6, c->kswapd_wakeups);
	fprintf(out, "direct reclaim: %" PRIu64 " reclaims, %.3f ms, %" PRIu64 " pages; "
		"memcg reclaim: %" PRIu64 " reclaims, %.3f ms, %" PRIu64 " pages\n",
		c->reclaims[0], c->reclaim_ns[0] / 1e6, c->reclaim_pages[0], c->reclaims[1],
		c->reclaim_ns[1] / 1e6, c->reclaim_pages[1]);
	fprintf(out, "%-10s %10s %10s %10s %10s\n", "RECLAIMER", "SCAN-ANON", "STEAL-ANON",
		"SCAN-FILE", "STEAL-FILE");
	for (unsigned int w = 0; w < VMSCAN_NR_WHO; w++)
		fprintf(out, "%-10s %10" PRIu64 " %10" PRIu64 " %10" PRIu64 " %10" PRIu64 "\n",
			who[w], c->scan[w][0], c->steal[w][0], c->scan[w][1], c->steal[w][1]);
	fprintf(out, "%-14s %10s %10s %10s %10s %11s\n", "LRU", "SCANNED", "TAKEN", "RECLAIMED",
		"ACTIVATED", "DEACTIVATED");
	for (unsigned int l = 0; l < VMSCAN_NR_LRU; l++)
		fprintf(out, "%-14s %10" PRIu64 " %10" PRIu64 " %10" PRIu64 " %10" PRIu64 " %11"
			PRIu64 "\n", lru_names[l], c->lru_scanned[l], c->lru_taken[l],
			c->lru_reclaimed[l], c->lru_activated[l], c->lru_deactivated[l]);
	fprintf(out, "slab shrinkers: %" PRIu64 " calls, %" PRIu64 " objects scanned, %" PRIu64
		" freed, %.3f ms\n", c->slab_calls, c->slab_scanned, c->slab_freed,
		c->slab_ns / 1e6);
	if (c->nr_shrinkers) {
		fprintf(out, "  %-36s %7s %10s %10s %10s %9s\n", "SHRINKER", "CALLS", "SCANNED",
			"FREED", "TOTALms", "MAXms");
		print_shrinkers(out, c, top, ks, "  ");
	}
	fprintf(out, "writeback from reclaim: %" PRIu64 " pages (anon %" PRIu64 ", file %" PRIu64
		")\n", c->written[0] + c->written[1], c->written[0], c->written[1]);
	if (v->mglru)
		fprintf(out, "(multi-generational LRU: pages scanned are the pages it took)\n");
	if (v->unpaired)
		fprintf(out, "(%" PRIu64 " ends without their begin: counted, no latency)\n",
			v->unpaired);
	/* The same terms /proc/vmstat counts in, for comparing with its deltas. */
	fprintf(out, "vmstat: pgscan_kswapd %" PRIu64 " pgscan_direct %" PRIu64
		" pgsteal_kswapd %" PRIu64 " pgsteal_direct %" PRIu64 " pgscan_anon %" PRIu64
		" pgscan_file %" PRIu64 " pgsteal_anon %" PRIu64 " pgsteal_file %" PRIu64
		" pageoutrun %" PRIu64 " slabs_scanned %" PRIu64
		" nr_vmscan_write %" PRIu64 "\n",
		c->scan[VMSCAN_KSWAPD][0] + c->scan[VMSCAN_KSWAPD][1],
		c->scan[VMSCAN_DIRECT][0] + c->scan[VMSCAN_DIRECT][1],
		c->steal[VMSCAN_KSWAPD][0] + c->steal[VMSCAN_KSWAPD][1],
		c->steal[VMSCAN_DIRECT][0] + c->steal[VMSCAN_DIRECT][1],
		sum_who(c->scan, 0), sum_who(c->scan, 1), sum_who(c->steal, 0),
		sum_who(c->steal, 1), c->kswapd_runs, c->slab_scanned,
		c->written[0] + c->written[1]);
}

/* ---- --json ---- */

static json_t *anon_file_json(const uint64_t v[2])
{
	return json_pack("{s:o, s:o}", "anon", evjson_u64(v[0]), "file", evjson_u64(v[1]));
}

static json_t *per_who_json(const uint64_t a[VMSCAN_NR_WHO][2])
{
	return json_pack("{s:o, s:o, s:o}", "kswapd", anon_file_json(a[VMSCAN_KSWAPD]),
			 "direct", anon_file_json(a[VMSCAN_DIRECT]),
			 "memcg", anon_file_json(a[VMSCAN_MEMCG]));
}

static json_t *shrinkers_json(const struct vmscan_counts *c, unsigned int top, struct ksyms *ks)
{
	struct vmscan_shrinker s[VMSCAN_SHRINKERS];
	unsigned int n = c->nr_shrinkers;
	json_t *a = json_array();

	memcpy(s, c->shrinkers, n * sizeof(s[0]));
	qsort(s, n, sizeof(s[0]), by_time);
	for (unsigned int i = 0; a && i < n && i < top; i++) {
		char name[256], addr[24];

		vmscan_shrinker_name(ks, s[i].fn, name, sizeof(name));
		snprintf(addr, sizeof(addr), "0x%016" PRIx64, s[i].fn);
		json_array_append_new(a, json_pack("{s:s, s:s, s:o, s:o, s:o, s:o, s:o}",
						   "name", name, "scan_objects", addr,
						   "calls", evjson_u64(s[i].calls),
						   "scanned", evjson_u64(s[i].scanned),
						   "freed", evjson_u64(s[i].freed),
						   "ns", evjson_u64(s[i].ns),
						   "max_ns", evjson_u64(s[i].max_ns)));
	}
	return a;
}

int vmscan_counts_json(json_t *rec, const struct vmscan_counts *c, unsigned int top,
		       struct ksyms *ks)
{
	json_t *lru = json_object();

	for (unsigned int l = 0; lru && l < VMSCAN_NR_LRU; l++)
		json_object_set_new(lru, lru_names[l],
				    json_pack("{s:o, s:o, s:o, s:o, s:o}",
					      "scanned", evjson_u64(c->lru_scanned[l]),
					      "taken", evjson_u64(c->lru_taken[l]),
					      "reclaimed", evjson_u64(c->lru_reclaimed[l]),
					      "activated", evjson_u64(c->lru_activated[l]),
					      "deactivated", evjson_u64(c->lru_deactivated[l])));
	return json_object_update_new(rec, json_pack(
		"{s:{s:o, s:o, s:o}, s:{s:o, s:o, s:o}, s:{s:o, s:o, s:o}, s:o, s:o, s:o, "
		"s:{s:o, s:o, s:o, s:o}, s:o, s:o, s:o}",
		"kswapd", "runs", evjson_u64(c->kswapd_runs), "ns", evjson_u64(c->kswapd_ns),
		"wakeups", evjson_u64(c->kswapd_wakeups),
		"direct_reclaim", "reclaims", evjson_u64(c->reclaims[0]),
		"ns", evjson_u64(c->reclaim_ns[0]), "pages", evjson_u64(c->reclaim_pages[0]),
		"memcg_reclaim", "reclaims", evjson_u64(c->reclaims[1]),
		"ns", evjson_u64(c->reclaim_ns[1]), "pages", evjson_u64(c->reclaim_pages[1]),
		"scanned", per_who_json(c->scan),
		"reclaimed", per_who_json(c->steal),
		"lru", lru ? lru : json_object(),
		"slab", "calls", evjson_u64(c->slab_calls), "scanned", evjson_u64(c->slab_scanned),
		"freed", evjson_u64(c->slab_freed), "ns", evjson_u64(c->slab_ns),
		"shrinkers", shrinkers_json(c, top, ks),
		"shrinkers_untracked", evjson_u64(c->shrinkers_full),
		"written", anon_file_json(c->written)));
}

int vmscan_totals_json(json_t *rec, const struct vmscan *v, unsigned int top, struct ksyms *ks)
{
	const struct vmscan_counts *c = &v->total;

	if (vmscan_counts_json(rec, c, top, ks))
		return -1;
	return json_object_update_new(rec, json_pack(
		"{s:b, s:o, s:{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}}",
		"mglru", v->mglru, "unpaired", evjson_u64(v->unpaired),
		"vmstat",
		"pgscan_kswapd", evjson_u64(c->scan[VMSCAN_KSWAPD][0] + c->scan[VMSCAN_KSWAPD][1]),
		"pgscan_direct", evjson_u64(c->scan[VMSCAN_DIRECT][0] + c->scan[VMSCAN_DIRECT][1]),
		"pgsteal_kswapd", evjson_u64(c->steal[VMSCAN_KSWAPD][0] + c->steal[VMSCAN_KSWAPD][1]),
		"pgsteal_direct", evjson_u64(c->steal[VMSCAN_DIRECT][0] + c->steal[VMSCAN_DIRECT][1]),
		"pgscan_anon", evjson_u64(sum_who(c->scan, 0)),
		"pgscan_file", evjson_u64(sum_who(c->scan, 1)),
		"pgsteal_anon", evjson_u64(sum_who(c->steal, 0)),
		"pgsteal_file", evjson_u64(sum_who(c->steal, 1)),
		"pageoutrun", evjson_u64(c->kswapd_runs),
		"slabs_scanned", evjson_u64(c->slab_scanned),
		"nr_vmscan_write", evjson_u64(c->written[0] + c->written[1])));
}
