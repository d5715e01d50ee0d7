// SPDX-License-Identifier: GPL-2.0
/*
 * --use; see use.h.  Each interval reads /proc/meminfo, /proc/vmstat,
 * /proc/pressure/memory and the memcgs' files, the kernel log's new
 * records, and (when the module is loaded) the reclaim, compaction and
 * OOM records of its event rings, then prints one screen (or one --json
 * record) with what changed since the last.
 */
#include "use.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "compaction.h"
#include "device.h"
#include "driver.h"
#include "evjson.h"
#include "evprom.h"
#include "evreader.h"
#include "fmt.h"
#include "pressure.h"
#include "vmscan.h"

#define PROG "memtrace-read"

/* ---- parsers ---- */

/* The value of "Key:" at the start of a line of text (kB in /proc/meminfo). */
static bool line_value(const char *text, const char *key, uint64_t *v)
{
	size_t n = strlen(key);

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		char *end;

		if (strncmp(p, key, n))
			continue;
		*v = strtoull(p + n, &end, 10);
		return end != p + n;
	}
	return false;
}

int use_parse_meminfo(const char *text, struct use_meminfo *m)
{
	static const struct {
		const char *key;
		size_t off;
	} keys[] = {
		{ "MemTotal:", offsetof(struct use_meminfo, total) },
		{ "MemFree:", offsetof(struct use_meminfo, free) },
		{ "MemAvailable:", offsetof(struct use_meminfo, available) },
		{ "Buffers:", offsetof(struct use_meminfo, buffers) },
		{ "Cached:", offsetof(struct use_meminfo, cached) },
		{ "Shmem:", offsetof(struct use_meminfo, shmem) },
		{ "Slab:", offsetof(struct use_meminfo, slab) },
		{ "SReclaimable:", offsetof(struct use_meminfo, sreclaimable) },
		{ "AnonPages:", offsetof(struct use_meminfo, anon) },
		{ "SwapTotal:", offsetof(struct use_meminfo, swap_total) },
		{ "SwapFree:", offsetof(struct use_meminfo, swap_free) },
	};

	memset(m, 0, sizeof(*m));
	for (size_t i = 0; i < MT_ARRAY_SIZE(keys); i++)
		line_value(text, keys[i].key, (uint64_t *)((char *)m + keys[i].off));
	return m->total ? 0 : -EPROTO;
}

static const char *const counter_names[USE_NR_COUNTERS] = {
	[USE_PSWPIN] = "pswpin", [USE_PSWPOUT] = "pswpout", [USE_ALLOCSTALL] = "allocstall",
	[USE_COMPACT_STALL] = "compact_stall", [USE_COMPACT_FAIL] = "compact_fail",
	[USE_PGSCAN_KSWAPD] = "pgscan_kswapd", [USE_PGSCAN_DIRECT] = "pgscan_direct",
	[USE_PGSTEAL_KSWAPD] = "pgsteal_kswapd", [USE_PGSTEAL_DIRECT] = "pgsteal_direct",
	[USE_PGSCAN_ANON] = "pgscan_anon", [USE_PGSCAN_FILE] = "pgscan_file",
	[USE_PGSTEAL_ANON] = "pgsteal_anon", [USE_PGSTEAL_FILE] = "pgsteal_file",
	[USE_PGMAJFAULT] = "pgmajfault", [USE_OOM_KILL] = "oom_kill",
};

const char *use_counter_name(enum use_counter c)
{
	return c < USE_NR_COUNTERS ? counter_names[c] : "?";
}

int use_parse_vmstat(const char *text, struct use_vmstat *v)
{
	bool any = false;

	memset(v, 0, sizeof(*v));
	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		const char *sp = strchr(p, ' ');
		size_t n = sp ? (size_t)(sp - p) : 0;
		uint64_t val;

		if (!sp)
			break;
		val = strtoull(sp + 1, NULL, 10);
		/* allocstall_dma, _dma32, _normal, _movable (and _device): one stall each. */
		if (n > 11 && !strncmp(p, "allocstall_", 11)) {
			v->v[USE_ALLOCSTALL] += val;
			v->have[USE_ALLOCSTALL] = any = true;
			continue;
		}
		for (int c = 0; c < USE_NR_COUNTERS; c++)
			if (c != USE_ALLOCSTALL && strlen(counter_names[c]) == n &&
			    !strncmp(p, counter_names[c], n)) {
				v->v[c] = val;
				v->have[c] = any = true;
			}
	}
	return any ? 0 : -EPROTO;
}

static int parse_psi_line(const char *line, const char *kind, struct use_psi_line *l)
{
	char k[8];

	return sscanf(line, "%7s avg10=%lf avg60=%lf avg300=%lf total=%" SCNu64, k, &l->avg10,
		      &l->avg60, &l->avg300, &l->total_us) == 5 && !strcmp(k, kind) ? 0 : -EPROTO;
}

int use_parse_psi(const char *text, struct use_psi *p)
{
	const char *full = strstr(text, "\nfull ");

	memset(p, 0, sizeof(*p));
	if (parse_psi_line(text, "some", &p->some))
		return -EPROTO;
	/* Memory has had a "full" line since PSI came (4.20): refuse text without one. */
	if (!full || parse_psi_line(full + 1, "full", &p->full))
		return -EPROTO;
	return 0;
}

bool use_kmsg_alloc_failure(const char *record, size_t len)
{
	const char *msg = memchr(record, ';', len);
	static const char needle[] = ": page allocation failure: ";

	if (!msg)
		return false;
	msg++;
	len -= (size_t)(msg - record);
	/* The message is the first line; continuation lines (" KEY=VALUE") follow it. */
	for (size_t i = 0; i + sizeof(needle) - 1 <= len && msg[i] != '\n'; i++)
		if (!memcmp(msg + i, needle, sizeof(needle) - 1))
			return true;
	return false;
}

int use_parse_memcg_max(const char *text, uint64_t *max)
{
	char *end;

	if (!strncmp(text, "max", 3) && (text[3] == '\n' || !text[3])) {
		*max = UINT64_MAX;
		return 0;
	}
	*max = strtoull(text, &end, 10);
	return end != text && (*end == '\n' || !*end) ? 0 : -EPROTO;
}

/* ---- reading ---- */

/* All of a small file (procfs, cgroupfs) into buf, NUL-terminated; false if unreadable. */
static bool read_small(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t at = 0;
	ssize_t n;

	if (fd < 0)
		return false;
	while (at < len - 1 && (n = read(fd, buf + at, len - 1 - at)) > 0)
		at += (size_t)n;
	close(fd);
	buf[at] = '\0';
	return at > 0;
}

struct use_memcg {
	char path[1024];		/* below the cgroup2 mount */
	uint64_t current, max;		/* bytes; max UINT64_MAX: none */
	uint64_t ev_max, ev_oom_kill;	/* memory.events: times at memory.max, OOM kills */
};

#define USE_MEMCGS_MAX	4096

static struct {
	struct use_memcg *v;
	size_t n, cap, root_len;
} walk;

static int memcg_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	char file[4096 + 32], buf[1024];
	struct use_memcg *m;

	(void)st;
	(void)ftw;
	if (flag != FTW_D || walk.n == USE_MEMCGS_MAX)
		return 0;
	snprintf(file, sizeof(file), "%s/memory.current", path);
	if (!read_small(file, buf, sizeof(buf)))
		return 0;	/* the root, or a cgroup without the memory controller */
	if (walk.n == walk.cap) {
		size_t cap = walk.cap ? walk.cap * 2 : 32;
		void *p = realloc(walk.v, cap * sizeof(*walk.v));

		if (!p)
			return 1;
		walk.v = p;
		walk.cap = cap;
	}
	m = &walk.v[walk.n];
	memset(m, 0, sizeof(*m));
	/*
	 * A path cut short could name two memcgs alike (one --prometheus
	 * series for both) and end inside a UTF-8 character: such a memcg
	 * (nested past 1 KiB of names) is left out.
	 */
	if ((size_t)snprintf(m->path, sizeof(m->path), "%s",
			     path[walk.root_len] ? path + walk.root_len : "/") >= sizeof(m->path))
		return 0;
	m->current = strtoull(buf, NULL, 10);
	snprintf(file, sizeof(file), "%s/memory.max", path);
	if (!read_small(file, buf, sizeof(buf)) || use_parse_memcg_max(buf, &m->max))
		m->max = UINT64_MAX;
	snprintf(file, sizeof(file), "%s/memory.events", path);
	if (read_small(file, buf, sizeof(buf))) {
		line_value(buf, "max ", &m->ev_max);
		line_value(buf, "oom_kill ", &m->ev_oom_kill);
	}
	walk.n++;
	return 0;
}

static int by_current(const void *a, const void *b)
{
	const struct use_memcg *x = a, *y = b;

	if (x->current != y->current)
		return x->current < y->current ? 1 : -1;
	return strcmp(x->path, y->path);
}

/* ---- the session ---- */

struct use {
	const struct mt_options *o;
	FILE *text;
	const struct evjson_out *json;	/* the driver's */
	char *cgroot;
	struct use_vmstat vm0;		/* at the last report */
	bool have_vm;
	struct use_psi psi0;
	bool have_psi;
	int kmsg;			/* /dev/kmsg; -1: unreadable */
	uint64_t alloc_failures;	/* warnings since the last report */
	/* The module's records, when it is loaded. */
	bool module;
	const char *module_why;		/* the driver's: why not */
	struct mt_device *dev;		/* the driver's */
	struct evreader *er;
	struct vmscan *reclaim;		/* its reclaim pairing and counts */
	struct compaction *compaction;
	uint64_t compact_runs0, compact_ns0;	/* direct compaction at the last report */
	uint64_t oom_records;		/* OOM kills since the last report */
	uint64_t lost0;
	/* --prometheus's counters: the reports' numbers summed since the start. */
	uint64_t vm_sum[USE_NR_COUNTERS];
	uint64_t oom_sum, alloc_failures_sum;
	bool prom_failed;		/* a write failed (said once) */
};

static void on_record(struct mt_driver *d, const struct memtrace_ev_hdr *h)
{
	struct use *u = d->state;

	switch (h->type) {
	case MEMTRACE_EVT_RECLAIM_BEGIN:
	case MEMTRACE_EVT_RECLAIM_END:
		vmscan_account(u->reclaim, h);
		break;
	case MEMTRACE_EVT_COMPACT_BEGIN:
	case MEMTRACE_EVT_COMPACT_END:
	case MEMTRACE_EVT_COMPACT_TRY:
	case MEMTRACE_EVT_KCOMPACTD_WAKE:
		compaction_account(u->compaction, h, 0, NULL);
		break;
	case MEMTRACE_EVT_OOM_KILL:
		u->oom_records++;
		break;
	default:
		break;
	}
}

/* New kernel log records: counts the page allocation failure warnings. */
static void read_kmsg(struct use *u)
{
	char rec[8192];
	ssize_t n;

	if (u->kmsg < 0)
		return;
	for (;;) {
		n = read(u->kmsg, rec, sizeof(rec));
		if (n < 0 && errno == EPIPE)
			continue;	/* records overwritten before we read them */
		if (n <= 0)
			break;
		u->alloc_failures += use_kmsg_alloc_failure(rec, (size_t)n);
	}
}

static void direct_compaction(const struct compaction *c, uint64_t *runs, uint64_t *ns)
{
	*runs = c->direct_runs;
	*ns = c->direct_ns;
}

static void mib(char *buf, size_t len, uint64_t kb)
{
	snprintf(buf, len, "%.1f MiB", kb / 1024.0);
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * part / whole : 0.0;
}

/* What one report shows: read at its end, deltas against the last. */
struct use_report {
	char hms[16];
	struct use_meminfo mi;
	bool have_mi;
	struct use_vmstat vm, dvm;
	struct use_psi psi;
	bool have_psi;
	uint64_t psi_some_us, psi_full_us;	/* stall time in the interval */
	struct use_memcg *memcgs;
	size_t nr_memcgs;
	/* The module's, in the interval. */
	const struct vmscan_counts *rc;
	uint64_t compact_runs, compact_ns, oom_records, lost;
};

static void print_text(const struct use *u, const struct use_report *r)
{
	FILE *t = u->text;
	const struct use_meminfo *m = &r->mi;
	char a[32], b[32], c[32], d[32], e[32];
	uint64_t scanned, reclaimed;

	fprintf(t, "[%s] Memory: utilization, saturation, errors (interval %u s)\n", r->hms,
		u->o->interval_s);
	if (r->have_mi) {
		mib(a, sizeof(a), m->total);
		mib(b, sizeof(b), m->free);
		mib(c, sizeof(c), m->available);
		fprintf(t, "Utilization: MemTotal %s, MemFree %s (%.1f%%), MemAvailable %s (%.1f%%)\n",
			a, b, pct(m->free, m->total), c, pct(m->available, m->total));
		mib(a, sizeof(a), m->cached + m->buffers);
		mib(b, sizeof(b), m->slab);
		mib(c, sizeof(c), m->sreclaimable);
		mib(d, sizeof(d), m->anon);
		mib(e, sizeof(e), m->swap_total - m->swap_free);
		fprintf(t, "             page cache %s, slab %s (reclaimable %s), anon %s, "
			"swap used %s", a, b, c, d, e);
		mib(a, sizeof(a), m->swap_total);
		fprintf(t, " of %s\n", a);
	} else {
		fprintf(t, "Utilization: /proc/meminfo unreadable\n");
	}
	if (r->nr_memcgs) {
		fprintf(t, "  %-36s %12s %12s %6s %8s %9s\n", "MEMCG", "CURRENT", "MAX", "USE%",
			"AT-MAX", "OOM-KILLS");
		for (size_t i = 0; i < r->nr_memcgs && i < u->o->top; i++) {
			const struct use_memcg *g = &r->memcgs[i];

			mib(a, sizeof(a), g->current / 1024);
			if (g->max == UINT64_MAX) {
				snprintf(b, sizeof(b), "max");
				snprintf(c, sizeof(c), "-");
			} else {
				mib(b, sizeof(b), g->max / 1024);
				snprintf(c, sizeof(c), "%.1f", pct(g->current, g->max));
			}
			fprintf(t, "  %-36s %12s %12s %6s %8" PRIu64 " %9" PRIu64 "\n", g->path, a, b,
				c, g->ev_max, g->ev_oom_kill);
		}
		if (r->nr_memcgs > u->o->top)
			fprintf(t, "  (%zu more memcgs)\n", r->nr_memcgs - u->o->top);
	}
	if (r->have_psi)
		fprintf(t, "Saturation:  PSI some avg10 %.2f avg60 %.2f avg300 %.2f (%" PRIu64
			" us stalled), full avg10 %.2f avg60 %.2f avg300 %.2f (%" PRIu64 " us)\n",
			r->psi.some.avg10, r->psi.some.avg60, r->psi.some.avg300, r->psi_some_us,
			r->psi.full.avg10, r->psi.full.avg60, r->psi.full.avg300, r->psi_full_us);
	else
		fprintf(t, "Saturation:  PSI: none (/proc/pressure/memory unreadable: boot with psi=1)\n");
	/*
	 * pgscan_anon/_file count every reclaimer (memcg reclaim too, which
	 * pgscan_kswapd and _direct leave out); kernels before 5.8 lack them.
	 */
	scanned = r->dvm.have[USE_PGSCAN_FILE] ?
		  r->dvm.v[USE_PGSCAN_ANON] + r->dvm.v[USE_PGSCAN_FILE] :
		  r->dvm.v[USE_PGSCAN_KSWAPD] + r->dvm.v[USE_PGSCAN_DIRECT];
	reclaimed = r->dvm.have[USE_PGSTEAL_FILE] ?
		    r->dvm.v[USE_PGSTEAL_ANON] + r->dvm.v[USE_PGSTEAL_FILE] :
		    r->dvm.v[USE_PGSTEAL_KSWAPD] + r->dvm.v[USE_PGSTEAL_DIRECT];
	fprintf(t, "             swap in %" PRIu64 " out %" PRIu64 " pages; stalls: direct reclaim %"
		PRIu64 ", compaction %" PRIu64 "; pages scanned %" PRIu64 " (kswapd %" PRIu64
		", direct %" PRIu64 "), reclaimed %" PRIu64 "; major faults %" PRIu64 "\n",
		r->dvm.v[USE_PSWPIN], r->dvm.v[USE_PSWPOUT], r->dvm.v[USE_ALLOCSTALL],
		r->dvm.v[USE_COMPACT_STALL], scanned, r->dvm.v[USE_PGSCAN_KSWAPD],
		r->dvm.v[USE_PGSCAN_DIRECT], reclaimed, r->dvm.v[USE_PGMAJFAULT]);
	if (u->module)
		fprintf(t, "             memtrace: direct reclaims %" PRIu64 " (%.3f ms, %" PRIu64
			" pages), memcg reclaims %" PRIu64 " (%.3f ms, %" PRIu64 " pages), "
			"direct compactions %" PRIu64 " (%.3f ms)\n", r->rc->reclaims[0],
			r->rc->reclaim_ns[0] / 1e6, r->rc->reclaim_pages[0], r->rc->reclaims[1],
			r->rc->reclaim_ns[1] / 1e6, r->rc->reclaim_pages[1], r->compact_runs,
			r->compact_ns / 1e6);
	else
		fprintf(t, "             memtrace: none (%s)\n", u->module_why);
	fprintf(t, "Errors:      OOM kills %" PRIu64 "%s; failed compactions %" PRIu64
		"; page allocation failures ", r->dvm.v[USE_OOM_KILL],
		r->dvm.have[USE_OOM_KILL] ? "" : " (no oom_kill in /proc/vmstat)",
		r->dvm.v[USE_COMPACT_FAIL]);
	if (u->kmsg >= 0)
		fprintf(t, "%" PRIu64 " (kernel log)", u->alloc_failures);
	else
		fprintf(t, "unknown (/dev/kmsg unreadable)");
	if (u->module)
		fprintf(t, "; memtrace: %" PRIu64 " OOM kills recorded, %" PRIu64 " events lost",
			r->oom_records, r->lost);
	fprintf(t, "\n");
}

static json_t *psi_json(const struct use_psi_line *l, uint64_t stalled)
{
	return json_pack("{s:f, s:f, s:f, s:o, s:o}", "avg10", l->avg10, "avg60", l->avg60,
			 "avg300", l->avg300, "total_us", evjson_u64(l->total_us),
			 "stalled_us", evjson_u64(stalled));
}

static json_t *report_json(const struct use *u, const struct use_report *r)
{
	json_t *rec = evjson_record("use", "interval", r->hms), *memcgs = json_array();
	json_t *vm = json_object(), *util, *sat, *err, *mod = json_null(), *mmod = json_null();
	const struct use_meminfo *m = &r->mi;

	if (!rec || !memcgs || !vm)
		goto fail;
	for (size_t i = 0; i < r->nr_memcgs && i < u->o->top; i++) {
		const struct use_memcg *g = &r->memcgs[i];

		json_array_append_new(memcgs, json_pack(
			"{s:s, s:o, s:o, s:{s:o, s:o}}", "path", g->path,
			"current_bytes", evjson_u64(g->current),
			"max_bytes", g->max == UINT64_MAX ? json_null() : evjson_u64(g->max),
			"events", "max", evjson_u64(g->ev_max), "oom_kill", evjson_u64(g->ev_oom_kill)));
	}
	for (int c = 0; c < USE_NR_COUNTERS; c++)
		json_object_set_new(vm, counter_names[c],
				    r->dvm.have[c] ? evjson_u64(r->dvm.v[c]) : json_null());
	util = json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:I}",
			 "mem_total_kb", evjson_u64(m->total), "mem_free_kb", evjson_u64(m->free),
			 "mem_available_kb", evjson_u64(m->available),
			 "buffers_kb", evjson_u64(m->buffers), "cached_kb", evjson_u64(m->cached),
			 "shmem_kb", evjson_u64(m->shmem), "slab_kb", evjson_u64(m->slab),
			 "slab_reclaimable_kb", evjson_u64(m->sreclaimable),
			 "anon_kb", evjson_u64(m->anon), "swap_total_kb", evjson_u64(m->swap_total),
			 "swap_free_kb", evjson_u64(m->swap_free), "memcgs", memcgs,
			 "memcgs_total", (json_int_t)r->nr_memcgs);
	memcgs = NULL;
	if (u->module) {
		mod = json_pack("{s:{s:o, s:o, s:o}, s:{s:o, s:o, s:o}, s:{s:o, s:o}}",
				"direct_reclaim", "reclaims", evjson_u64(r->rc->reclaims[0]),
				"ns", evjson_u64(r->rc->reclaim_ns[0]),
				"pages", evjson_u64(r->rc->reclaim_pages[0]),
				"memcg_reclaim", "reclaims", evjson_u64(r->rc->reclaims[1]),
				"ns", evjson_u64(r->rc->reclaim_ns[1]),
				"pages", evjson_u64(r->rc->reclaim_pages[1]),
				"direct_compaction", "runs", evjson_u64(r->compact_runs),
				"ns", evjson_u64(r->compact_ns));
		mmod = json_pack("{s:o, s:o}", "oom_kills", evjson_u64(r->oom_records),
				 "lost", evjson_u64(r->lost));
	}
	sat = json_pack("{s:o, s:o, s:o}",
			"psi", r->have_psi ? json_pack("{s:o, s:o}",
						       "some", psi_json(&r->psi.some, r->psi_some_us),
						       "full", psi_json(&r->psi.full, r->psi_full_us)) :
			json_null(),
			"vmstat", vm, "memtrace", mod);
	vm = NULL;
	err = json_pack("{s:o, s:o, s:o, s:o}",
			"oom_kills", r->dvm.have[USE_OOM_KILL] ? evjson_u64(r->dvm.v[USE_OOM_KILL]) :
			json_null(),
			"compaction_failures", r->dvm.have[USE_COMPACT_FAIL] ?
			evjson_u64(r->dvm.v[USE_COMPACT_FAIL]) : json_null(),
			"alloc_failures", u->kmsg >= 0 ? evjson_u64(u->alloc_failures) : json_null(),
			"memtrace", mmod);
	if (json_object_update_new(rec, json_pack("{s:I, s:o, s:o, s:o, s:o}",
						  "interval_s", (json_int_t)u->o->interval_s,
						  "memtrace_loaded", json_boolean(u->module),
						  "utilization", util, "saturation", sat, "errors", err)))
		goto fail;
	return rec;
fail:
	json_decref(memcgs);
	json_decref(vm);
	json_decref(rec);
	return NULL;
}

/* --prometheus: the latest report's gauges, the counters summed since the start. */
struct use_prom {
	struct use *u;
	const struct use_report *r;
};

static void memcg_sample(FILE *out, const char *name, const char *path, const char *event,
			 uint64_t v)
{
	fprintf(out, "%s{mode=\"use\",memcg=\"", name);
	fmt_prom_label_value(out, path[0] ? path : "/");
	if (event)
		fprintf(out, "\",event=\"%s", event);
	fprintf(out, "\"} %" PRIu64 "\n", v);
}

static int render_prom(FILE *out, const void *ctx, struct mt_err *err)
{
	const struct use_prom *up = ctx;
	struct use *u = up->u;
	const struct use_report *r = up->r;
	const struct use_meminfo *m = &r->mi;
	const struct { const char *kind; uint64_t kb; } mem[] = {
		{ "mem_total", m->total }, { "mem_free", m->free },
		{ "mem_available", m->available }, { "buffers", m->buffers },
		{ "cached", m->cached }, { "shmem", m->shmem }, { "slab", m->slab },
		{ "slab_reclaimable", m->sreclaimable }, { "anon", m->anon },
		{ "swap_total", m->swap_total }, { "swap_free", m->swap_free },
	};
	size_t memcgs = r->nr_memcgs < u->o->top ? r->nr_memcgs : u->o->top;
	char labels[96];

	evprom_begin("use");
	if (r->have_mi) {
		evprom_gauge(out, "memtrace_memory_bytes", "/proc/meminfo's lines --use shows, "
			     "in bytes (kind: the --json utilization field without _kb).");
		for (size_t i = 0; i < MT_ARRAY_SIZE(mem); i++) {
			snprintf(labels, sizeof(labels), "kind=\"%s\"", mem[i].kind);
			evprom_u64(out, "memtrace_memory_bytes", labels, mem[i].kb * 1024);
		}
	}
	/* The -T largest memcgs only: -T bounds the series. */
	evprom_gauge(out, "memtrace_memcg_bytes", "memory.current of the -T memcgs using most.");
	for (size_t i = 0; i < memcgs; i++)
		memcg_sample(out, "memtrace_memcg_bytes", r->memcgs[i].path, NULL,
			     r->memcgs[i].current);
	evprom_gauge(out, "memtrace_memcg_max_bytes", "memory.max of those with a limit.");
	for (size_t i = 0; i < memcgs; i++)
		if (r->memcgs[i].max != UINT64_MAX)
			memcg_sample(out, "memtrace_memcg_max_bytes", r->memcgs[i].path, NULL,
				     r->memcgs[i].max);
	evprom_counter(out, "memtrace_memcg_events_total",
		       "memory.events of those memcgs: max (times at memory.max), oom_kill.");
	for (size_t i = 0; i < memcgs; i++) {
		memcg_sample(out, "memtrace_memcg_events_total", r->memcgs[i].path, "max",
			     r->memcgs[i].ev_max);
		memcg_sample(out, "memtrace_memcg_events_total", r->memcgs[i].path, "oom_kill",
			     r->memcgs[i].ev_oom_kill);
	}
	if (r->have_psi) {
		const struct { const char *kind; const struct use_psi_line *l; } psi[] = {
			{ "some", &r->psi.some }, { "full", &r->psi.full },
		};

		evprom_counter(out, "memtrace_psi_stall_seconds_total",
			       "/proc/pressure/memory's total stall time (since boot).");
		for (size_t i = 0; i < MT_ARRAY_SIZE(psi); i++) {
			snprintf(labels, sizeof(labels), "kind=\"%s\"", psi[i].kind);
			evprom_seconds(out, "memtrace_psi_stall_seconds_total", labels,
				       psi[i].l->total_us * 1000);
		}
		evprom_gauge(out, "memtrace_psi_avg_percent",
			     "/proc/pressure/memory's averages over 10, 60 and 300 s.");
		for (size_t i = 0; i < MT_ARRAY_SIZE(psi); i++) {
			const double avg[] = { psi[i].l->avg10, psi[i].l->avg60, psi[i].l->avg300 };
			const char *const window[] = { "10", "60", "300" };

			for (size_t w = 0; w < 3; w++) {
				snprintf(labels, sizeof(labels), "kind=\"%s\",window_s=\"%s\"",
					 psi[i].kind, window[w]);
				evprom_percent(out, "memtrace_psi_avg_percent", labels, avg[w]);
			}
		}
	}
	evprom_counter(out, "memtrace_vmstat_total", "/proc/vmstat's counters --use shows, "
		       "counted since memtrace-read started (the reports' deltas summed).");
	for (int c = 0; c < USE_NR_COUNTERS; c++) {
		if (!r->dvm.have[c])
			continue;
		snprintf(labels, sizeof(labels), "counter=\"%s\"", counter_names[c]);
		evprom_u64(out, "memtrace_vmstat_total", labels, u->vm_sum[c]);
	}
	if (u->kmsg >= 0) {
		evprom_counter(out, "memtrace_page_allocation_failures_total",
			       "The kernel's page allocation failure warnings (its log).");
		evprom_u64(out, "memtrace_page_allocation_failures_total", NULL,
			   u->alloc_failures_sum);
	}
	if (u->module) {
		struct memtrace_evstats st;
		uint64_t runs, ns, missed = 0;

		evprom_reclaims(out, u->reclaim->total.reclaims, u->reclaim->total.reclaim_ns,
				u->reclaim->total.reclaim_pages);
		direct_compaction(u->compaction, &runs, &ns);
		evprom_compaction_stalls(out, runs, ns);
		evprom_oom_kills(out, u->oom_sum);
		if (device_evstats(u->dev, &st, err) == 0)
			missed = st.probe_missed;
		evprom_lost(out, u->lost0, missed);
	}
	evprom_timestamp(out);
	return ferror(out) ? mt_errf(err, EIO, "cannot write the metrics") : 0;
}

static int write_prom(struct use *u, const struct use_report *r)
{
	struct use_prom up = { .u = u, .r = r };
	struct mt_err err;

	if (!u->o->prometheus_file || !fmt_write_any(u->o->prometheus_file, &up, render_prom, &err))
		return 0;
	if (!u->prom_failed)
		fprintf(stderr, PROG ": %s\n", err.msg);
	u->prom_failed = true;
	return -1;
}

static char procbuf[65536];

/* The baseline: the counters a first report's deltas start from. */
static void baseline(struct use *u)
{
	u->have_vm = read_small("/proc/vmstat", procbuf, sizeof(procbuf)) &&
		     !use_parse_vmstat(procbuf, &u->vm0);
	u->have_psi = read_small("/proc/pressure/memory", procbuf, sizeof(procbuf)) &&
		      !use_parse_psi(procbuf, &u->psi0);
}

static int report(struct use *u)
{
	struct use_report r = { 0 };
	time_t now = time(NULL);
	unsigned int cpus;

	mt_hms(now, r.hms, sizeof(r.hms));
	r.have_mi = read_small("/proc/meminfo", procbuf, sizeof(procbuf)) &&
		    !use_parse_meminfo(procbuf, &r.mi);
	if (read_small("/proc/vmstat", procbuf, sizeof(procbuf)) &&
	    !use_parse_vmstat(procbuf, &r.vm)) {
		for (int c = 0; c < USE_NR_COUNTERS; c++) {
			r.dvm.have[c] = r.vm.have[c];
			r.dvm.v[c] = u->have_vm && r.vm.v[c] >= u->vm0.v[c] ?
				     r.vm.v[c] - u->vm0.v[c] : 0;
		}
		u->vm0 = r.vm;
		u->have_vm = true;
	}
	r.have_psi = read_small("/proc/pressure/memory", procbuf, sizeof(procbuf)) &&
		     !use_parse_psi(procbuf, &r.psi);
	if (r.have_psi && u->have_psi) {
		r.psi_some_us = r.psi.some.total_us - u->psi0.some.total_us;
		r.psi_full_us = r.psi.full.total_us - u->psi0.full.total_us;
	}
	if (r.have_psi) {
		u->psi0 = r.psi;
		u->have_psi = true;
	}
	walk.n = 0;
	if (u->cgroot) {
		walk.root_len = strlen(u->cgroot);
		nftw(u->cgroot, memcg_one, 16, FTW_PHYS | FTW_MOUNT);
		qsort(walk.v, walk.n, sizeof(*walk.v), by_current);
	}
	r.memcgs = walk.v;
	r.nr_memcgs = walk.n;
	read_kmsg(u);
	if (u->module) {
		struct timespec ts;
		uint64_t runs, ns, lost = evreader_lost(u->er, &cpus);

		clock_gettime(CLOCK_MONOTONIC, &ts);
		r.rc = vmscan_interval(u->reclaim, (uint64_t)ts.tv_sec * 1000000000ULL +
				       (uint64_t)ts.tv_nsec);
		direct_compaction(u->compaction, &runs, &ns);
		r.compact_runs = runs - u->compact_runs0;
		r.compact_ns = ns - u->compact_ns0;
		u->compact_runs0 = runs;
		u->compact_ns0 = ns;
		r.oom_records = u->oom_records;
		r.lost = lost - u->lost0;
		u->lost0 = lost;
	}
	if (u->text)
		print_text(u, &r);
	if (u->json->f)
		evjson_emit(u->json->f, report_json(u, &r));
	for (int c = 0; c < USE_NR_COUNTERS; c++)
		u->vm_sum[c] += r.dvm.v[c];
	u->oom_sum += u->oom_records;
	u->alloc_failures_sum += u->alloc_failures;
	write_prom(u, &r);
	u->oom_records = 0;
	u->alloc_failures = 0;
	return evjson_flush(u->json, u->o);
}

/* ---- the row: what --use does beyond the driver ---- */

static int use_setup(struct mt_driver *d)
{
	struct use *u = calloc(1, sizeof(*u));

	if (!u) {
		fprintf(stderr, PROG ": out of memory\n");
		return -1;
	}
	d->state = u;
	u->o = d->o;
	u->text = d->text;
	u->json = &d->json;
	u->dev = &d->dev;
	u->er = &d->er;
	u->module_why = d->module_why;
	u->cgroot = pressure_cgroup2_root();
	/* From the end of the log: warnings from now on (SEEK_END skips the rest). */
	u->kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (u->kmsg >= 0)
		lseek(u->kmsg, 0, SEEK_END);
	/* Not an error without the module's records: the screen says why. */
	if (d->er.map) {
		u->reclaim = malloc(sizeof(*u->reclaim));
		u->compaction = malloc(sizeof(*u->compaction));
		if (!u->reclaim || !u->compaction) {
			driver_module_off(d, "out of memory");
		} else {
			vmscan_init(u->reclaim, false);
			compaction_init(u->compaction);
			u->module = true;
		}
	}
	baseline(u);
	return 0;
}

static void use_banner(struct mt_driver *d)
{
	fprintf(d->text ? d->text : stderr, "Tracing memory utilization, saturation and errors "
		"every %u s, Ctrl+C to quit.\n", d->o->interval_s);
}

/* Every interval, the last (a signal's) too: one screen. */
static int use_interval(struct mt_driver *d, bool signalled)
{
	(void)signalled;
	return report(d->state);
}

static int use_end(struct mt_driver *d, int status)
{
	const struct use *u = d->state;

	return u->prom_failed ? 1 : status;
}

static void use_fini(struct mt_driver *d)
{
	struct use *u = d->state;

	if (!u)
		return;
	if (u->kmsg >= 0)
		close(u->kmsg);
	free(u->cgroot);
	free(u->reclaim);
	free(u->compaction);
	free(walk.v);
	walk.v = NULL;
	walk.n = walk.cap = 0;
	free(u);
	d->state = NULL;
}

/*
 * The module's reclaim, compaction and OOM records, as far as this
 * kernel has them, a frame each (only counted); without them --use shows
 * the kernel's own counters.
 */
const struct mt_mode_row use_row = {
	.mode = MT_MODE_USE, .option = "--use",
	.events_if_any = MEMTRACE_EV_RECLAIM | MEMTRACE_EV_COMPACTION | MEMTRACE_EV_OOM,
	.module_optional = true, .missing = "no pressure events on this kernel",
	.stack_depth = 1,
	.setup = use_setup, .banner = use_banner, .record = on_record,
	.interval = use_interval, .end = use_end, .fini = use_fini,
};
