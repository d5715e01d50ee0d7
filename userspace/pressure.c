// SPDX-License-Identifier: GPL-2.0
/*
 * --oom, --reclaim, --vmscan, --compaction and --migration; see
 * pressure.h.  Each is a row (mode.h) that the session driver
 * (driver.h) runs: the module configured for that mode's pressure
 * events alone (no allocation tables), each record printed or counted
 * as it comes, in time order across CPUs; --vmscan and --migration also
 * print a row per interval, and each prints its totals at the end.
 */
#include "pressure.h"

#include <errno.h>
#include <ftw.h>
#include <inttypes.h>
#include <mntent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "device.h"
#include "driver.h"
#include "evjson.h"
#include "evprom.h"
#include "evreader.h"
#include "fmt.h"
#include "ksyms.h"
#include "reclaim.h"
#include "vmscan.h"
#include "compaction.h"
#include "migration.h"

#define PROG "memtrace-read"

/* ---- formatting ---- */

#define LOAD_FSHIFT	11
#define LOAD_FIXED_1	(1U << LOAD_FSHIFT)

void pressure_loadavg(const uint32_t load[3], char *buf, size_t len)
{
	unsigned long v[3];

	/* As /proc/loadavg: rounded to the hundredth (get_avenrun's offset). */
	for (int i = 0; i < 3; i++)
		v[i] = load[i] + LOAD_FIXED_1 / 200;
	snprintf(buf, len, "%lu.%02lu %lu.%02lu %lu.%02lu",
		 v[0] >> LOAD_FSHIFT, ((v[0] & (LOAD_FIXED_1 - 1)) * 100) >> LOAD_FSHIFT,
		 v[1] >> LOAD_FSHIFT, ((v[1] & (LOAD_FIXED_1 - 1)) * 100) >> LOAD_FSHIFT,
		 v[2] >> LOAD_FSHIFT, ((v[2] & (LOAD_FIXED_1 - 1)) * 100) >> LOAD_FSHIFT);
}

static const char *constraint_name(uint32_t c)
{
	/* The kernel's own names, as its oom-kill: line prints them. */
	switch (c) {
	case MEMTRACE_OOM_CONSTRAINT_NONE:
		return "CONSTRAINT_NONE";
	case MEMTRACE_OOM_CONSTRAINT_CPUSET:
		return "CONSTRAINT_CPUSET";
	case MEMTRACE_OOM_CONSTRAINT_MEMORY_POLICY:
		return "CONSTRAINT_MEMORY_POLICY";
	case MEMTRACE_OOM_CONSTRAINT_MEMCG:
		return "CONSTRAINT_MEMCG";
	default:
		return "CONSTRAINT_UNKNOWN";
	}
}

/*
 * A frame of an OOM kill's trigger stack, its text in text (len bytes):
 * named by ks, or without ks the address alone (text and function alike).
 */
static void trigger_frame(struct ksyms *ks, uint64_t ip, struct rm_frame *f, char *text,
			  size_t len)
{
	if (ks) {
		ksyms_frame(ks, NULL, 0, ip, f);
		rm_frame_text(f, text, len);
	} else {
		snprintf(text, len, "0x%" PRIx64, ip);
		*f = (struct rm_frame){ .addr = ip, .function = text };
	}
	f->text = text;
}

void pressure_print_oom_kill(FILE *out, const struct memtrace_ev_oom_kill *r, time_t when,
			     const char *memcg, struct ksyms *ks)
{
	char trig[MEMTRACE_COMM_LEN + 1], vict[MEMTRACE_COMM_LEN + 1], hms[16], load[64];
	const uint64_t *frames = (const uint64_t *)(r + 1);
	uint32_t nr = r->nr_frames;

	mt_comm(trig, r->trigger_comm);
	mt_comm(vict, r->victim_comm);
	mt_hms(when, hms, sizeof(hms));
	pressure_loadavg(r->loadavg, load, sizeof(load));
	fprintf(out, "%s Triggered by PID %" PRIu32 " (\"%s\"), OOM kill of PID %" PRIu32
		" (\"%s\"), %" PRIu64 " pages, loadavg: %s\n",
		hms, r->trigger_pid, trig, r->victim_pid, vict, (uint64_t)r->totalpages, load);
	fprintf(out, "\tconstraint: %s, order %" PRId32 ", gfp_mask 0x%" PRIx32
		", badness %" PRId64 " pages\n",
		constraint_name(r->constraint), r->order, r->gfp_mask, (int64_t)r->points);
	if (r->memcg_id)
		fprintf(out, "\tmemcg: %s (id %" PRIu64 "), memory.max %" PRIu64
			" pages, memory.current %" PRIu64 " pages\n",
			memcg ? memcg : "?", (uint64_t)r->memcg_id, (uint64_t)r->memcg_max,
			(uint64_t)r->memcg_usage);
	else
		fprintf(out, "\tmemcg: none (a global OOM)\n");
	if (!nr) {
		fprintf(out, "\ttrigger's kernel stack: hidden (needs CAP_SYSLOG)\n");
		return;
	}
	if (nr > (r->hdr.size - sizeof(*r)) / sizeof(uint64_t))
		nr = (r->hdr.size - sizeof(*r)) / sizeof(uint64_t);
	fprintf(out, "\ttrigger's kernel stack:\n");
	for (uint32_t i = 0; i < nr; i++) {
		struct rm_frame f;
		char name[256];

		trigger_frame(ks, frames[i], &f, name, sizeof(name));
		fprintf(out, "\t\t%s\n", f.text);
	}
}

void pressure_print_oom_victim(FILE *out, const struct memtrace_ev_oom_victim *r)
{
	char comm[MEMTRACE_COMM_LEN + 1];

	mt_comm(comm, r->comm);
	fprintf(out, "\tkilled process %" PRIu32 " (%s) total-vm:%" PRIu64 "kB, anon-rss:%"
		PRIu64 "kB, file-rss:%" PRIu64 "kB, shmem-rss:%" PRIu64 "kB, UID:%" PRIu32
		" pgtables:%" PRIu64 "kB oom_score_adj:%d\n",
		r->pid, comm, (uint64_t)r->total_vm_kb, (uint64_t)r->anon_rss_kb,
		(uint64_t)r->file_rss_kb, (uint64_t)r->shmem_rss_kb, r->uid,
		(uint64_t)r->pgtables_kb, (int)r->oom_score_adj);
}

json_t *pressure_oom_kill_json(const struct memtrace_ev_oom_kill *r, const char *hms,
			       const char *memcg, struct ksyms *ks)
{
	const uint64_t *frames = (const uint64_t *)(r + 1);
	uint32_t nr = r->nr_frames;
	json_t *rec = evjson_record("oom", "oom_kill", hms), *stack = json_null(), *mc;
	char load[64];

	if (!rec)
		return NULL;
	pressure_loadavg(r->loadavg, load, sizeof(load));
	if (nr > (r->hdr.size - sizeof(*r)) / sizeof(uint64_t))
		nr = (r->hdr.size - sizeof(*r)) / sizeof(uint64_t);
	if (nr) {
		json_decref(stack);
		stack = json_array();
		for (uint32_t i = 0; stack && i < nr; i++) {
			struct rm_frame f;
			char name[256];

			trigger_frame(ks, frames[i], &f, name, sizeof(name));
			json_array_append_new(stack, fmt_json_frame(&f));
		}
	}
	mc = !r->memcg_id ? json_null() :
	     json_pack("{s:o, s:o, s:o, s:o}", "id", evjson_u64(r->memcg_id),
		       "path", memcg ? json_string(memcg) : json_null(),
		       "max_pages", evjson_u64(r->memcg_max),
		       "current_pages", evjson_u64(r->memcg_usage));
	if (json_object_update_new(rec, json_pack(
		"{s:o, s:{s:I, s:o}, s:{s:I, s:o}, s:o, s:s, s:s, s:i, s:I, s:I, s:o, s:o}",
		"monotonic_ns", evjson_u64(r->ts_ns),
		"trigger", "pid", (json_int_t)r->trigger_pid, "comm", evjson_comm(r->trigger_comm),
		"victim", "pid", (json_int_t)r->victim_pid, "comm", evjson_comm(r->victim_comm),
		"pages", evjson_u64(r->totalpages), "loadavg", load,
		"constraint", constraint_name(r->constraint), "order", (int)r->order,
		"gfp_mask", (json_int_t)r->gfp_mask, "badness_pages", (json_int_t)r->points,
		"memcg", mc, "trigger_stack", stack ? stack : json_null()))) {
		json_decref(rec);
		return NULL;
	}
	return rec;
}

json_t *pressure_oom_victim_json(const struct memtrace_ev_oom_victim *r, const char *hms)
{
	json_t *rec = evjson_record("oom", "oom_victim", hms);

	if (rec && json_object_update_new(rec, json_pack(
		"{s:o, s:I, s:o, s:o, s:o, s:o, s:o, s:I, s:o, s:i}",
		"monotonic_ns", evjson_u64(r->ts_ns), "pid", (json_int_t)r->pid,
		"comm", evjson_comm(r->comm), "total_vm_kb", evjson_u64(r->total_vm_kb),
		"anon_rss_kb", evjson_u64(r->anon_rss_kb), "file_rss_kb", evjson_u64(r->file_rss_kb),
		"shmem_rss_kb", evjson_u64(r->shmem_rss_kb), "uid", (json_int_t)r->uid,
		"pgtables_kb", evjson_u64(r->pgtables_kb), "oom_score_adj", (int)r->oom_score_adj))) {
		json_decref(rec);
		return NULL;
	}
	return rec;
}

/* ---- cgroup ids ---- */

static uint64_t walk_id;
static char walk_found[4096];

static int walk_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)ftw;
	if (flag == FTW_D && (uint64_t)st->st_ino == walk_id) {
		snprintf(walk_found, sizeof(walk_found), "%s", path);
		return 1;
	}
	return 0;
}

bool pressure_cgroup_path(const char *root, uint64_t id, char *buf, size_t len)
{
	size_t rl = strlen(root);

	walk_id = id;
	walk_found[0] = '\0';
	if (nftw(root, walk_one, 16, FTW_PHYS | FTW_MOUNT) != 1)
		return false;
	/* Below the mount, as the kernel's oom_memcg= names it. */
	snprintf(buf, len, "%s", walk_found[rl] ? walk_found + rl : "/");
	return true;
}

char *pressure_cgroup2_root(void)
{
	FILE *f = setmntent("/proc/self/mounts", "r");
	struct mntent *m;
	char *root = NULL;

	if (!f)
		return NULL;
	while ((m = getmntent(f)))
		if (!strcmp(m->mnt_type, "cgroup2")) {
			root = strdup(m->mnt_dir);
			break;
		}
	endmntent(f);
	return root;
}

/* ---- the session ---- */

struct pressure {
	const struct mt_options *o;
	FILE *text;			/* the text report: stdout, or NULL with --json on stdout */
	FILE *json;			/* --json's records; NULL without */
	struct ksyms *ksyms;
	char *cgroot;
	struct reclaim_state *reclaim;
	struct vmscan *vmscan;
	struct compaction *compaction;
	struct migration *migration;
	int64_t mono_to_real_ns;	/* CLOCK_REALTIME - CLOCK_MONOTONIC */
	uint64_t kills;
	const struct evreader *er;	/* --prometheus: its losses */
	bool counts_kills;		/* --oom: its totals count the kills */
	bool prom_failed;		/* --prometheus: a write failed (said once) */
	/* --oom --folded: each distinct trigger stack, folded, and its kills */
	char **folds;
	uint64_t *fold_kills;
	size_t nr_folds;
	bool folds_full, folded_failed;
};

/* Trigger stacks --oom --folded keeps apart: kills are rare, stacks few. */
#define OOM_FOLDS_MAX	4096

/*
 * --oom --folded: the trigger's name, then its kernel stack root first,
 * as one folded line (without its count); NULL out of memory.  A hidden
 * stack folds as the trigger under "[kernel stack hidden]".
 */
static char *oom_fold(const struct memtrace_ev_oom_kill *r, struct ksyms *ks)
{
	const uint64_t *frames = (const uint64_t *)(r + 1);
	char comm[MEMTRACE_COMM_LEN + 1], name[512], text[256];
	uint32_t nr = r->nr_frames;
	char *line = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&line, &len);

	if (!out)
		return NULL;
	mt_comm(comm, r->trigger_comm);
	fputs(fmt_frame_name(&(struct rm_frame){ .function = comm }, name, sizeof(name)), out);
	if (nr > (r->hdr.size - sizeof(*r)) / sizeof(uint64_t))
		nr = (r->hdr.size - sizeof(*r)) / sizeof(uint64_t);
	if (!nr)
		fputs(";[kernel stack hidden]", out);
	while (nr-- > 0) {
		struct rm_frame f;

		trigger_frame(ks, frames[nr], &f, text, sizeof(text));
		fprintf(out, ";%s", fmt_frame_name(&f, name, sizeof(name)));
	}
	if (fclose(out)) {
		free(line);
		return NULL;
	}
	return line;
}

/* Counts a kill under its trigger stack's folded line. */
static void oom_count_fold(struct pressure *p, const struct memtrace_ev_oom_kill *r)
{
	char *line = oom_fold(r, p->ksyms), **lines;
	uint64_t *kills;

	for (size_t i = 0; line && i < p->nr_folds; i++)
		if (!strcmp(p->folds[i], line)) {
			p->fold_kills[i]++;
			free(line);
			return;
		}
	lines = line && p->nr_folds < OOM_FOLDS_MAX ?
		realloc(p->folds, (p->nr_folds + 1) * sizeof(*lines)) : NULL;
	if (lines)
		p->folds = lines;
	kills = lines ? realloc(p->fold_kills, (p->nr_folds + 1) * sizeof(*kills)) : NULL;
	if (!kills) {
		if (!p->folds_full)
			fprintf(stderr, PROG ": --folded: out of room for more OOM trigger stacks\n");
		p->folds_full = true;
		free(line);
		return;
	}
	p->fold_kills = kills;
	p->folds[p->nr_folds] = line;
	p->fold_kills[p->nr_folds++] = 1;
}

static int render_folds(FILE *out, const void *ctx, struct mt_err *err)
{
	const struct pressure *p = ctx;

	for (size_t i = 0; i < p->nr_folds; i++)
		fprintf(out, "%s %" PRIu64 "\n", p->folds[i], p->fold_kills[i]);
	return ferror(out) ? mt_errf(err, EIO, "cannot write the folded stacks") : 0;
}

/* --oom --folded=FILE: rewritten (atomically) each interval and at the end. */
static void write_folds(struct pressure *p)
{
	struct mt_err err;

	if (!p->o->folded || !p->o->folded_file || !fmt_write_any(p->o->folded_file, p,
								   render_folds, &err))
		return;
	if (!p->folded_failed)
		fprintf(stderr, PROG ": %s\n", err.msg);
	p->folded_failed = true;
}

static time_t wall_of(const struct pressure *p, uint64_t mono_ns)
{
	return (time_t)(((int64_t)mono_ns + p->mono_to_real_ns) / 1000000000LL);
}

static void vmscan_record(struct mt_driver *d, const struct memtrace_ev_hdr *h)
{
	struct pressure *p = d->state;

	vmscan_account(p->vmscan, h);
}

static void migration_record(struct mt_driver *d, const struct memtrace_ev_hdr *h)
{
	struct pressure *p = d->state;

	migration_account(p->migration, h);
}

static void compaction_record(struct mt_driver *d, const struct memtrace_ev_hdr *h)
{
	struct pressure *p = d->state;
	uint64_t ts;

	/* Every record's time follows its header (evreader.h). */
	memcpy(&ts, h + 1, sizeof(ts));
	compaction_account(p->compaction, h, wall_of(p, ts), p->text);
}

/* --oom's and --reclaim's records: each printed as it comes. */
static void on_record(struct mt_driver *d, const struct memtrace_ev_hdr *h)
{
	struct pressure *p = d->state;

	switch (h->type) {
	case MEMTRACE_EVT_OOM_KILL: {
		const struct memtrace_ev_oom_kill *r = (const void *)h;
		char path[4096];
		bool named = false;

		if (h->size < sizeof(*r))
			return;
		if (r->memcg_id && p->cgroot)
			named = pressure_cgroup_path(p->cgroot, r->memcg_id, path, sizeof(path));
		if (p->text)
			pressure_print_oom_kill(p->text, r, wall_of(p, r->ts_ns),
						named ? path : NULL, p->ksyms);
		if (p->json) {
			char hms[16];

			mt_hms(wall_of(p, r->ts_ns), hms, sizeof(hms));
			evjson_emit(p->json, pressure_oom_kill_json(r, hms, named ? path : NULL,
								      p->ksyms));
		}
		if (p->o->folded)
			oom_count_fold(p, r);
		p->kills++;
		break;
	}
	case MEMTRACE_EVT_OOM_VICTIM:
		if (h->size < sizeof(struct memtrace_ev_oom_victim))
			break;
		if (p->text)
			pressure_print_oom_victim(p->text, (const void *)h);
		if (p->json) {
			const struct memtrace_ev_oom_victim *v = (const void *)h;
			char hms[16];

			mt_hms(wall_of(p, v->ts_ns), hms, sizeof(hms));
			evjson_emit(p->json, pressure_oom_victim_json(v, hms));
		}
		break;
	case MEMTRACE_EVT_RECLAIM_BEGIN:
	case MEMTRACE_EVT_RECLAIM_END: {
		const struct memtrace_ev_reclaim *r = (const void *)h;

		if (p->reclaim && h->size >= sizeof(*r))
			reclaim_event(p->reclaim, r, wall_of(p, r->ts_ns), p->text, p->json);
		break;
	}
	default:
		break;		/* a type newer than this reader */
	}
}

/* The module's drops: the text's Lost: (and Missed:) lines, and --json's "lost". */
static void print_lost(const struct pressure *p, const struct evreader *er, json_t *rec)
{
	struct memtrace_evstats st;
	unsigned int cpus;
	uint64_t lost = evreader_lost(er, &cpus), missed = 0;
	json_t *per_cpu = json_object();
	struct mt_err err;

	if (device_evstats(er->dev, &st, &err) == 0)
		missed = st.probe_missed;
	for (uint32_t c = 0; c < er->info.nr_cpus; c++) {
		const struct memtrace_evring_meta *m =
			(const void *)(er->map + c * er->info.cpu_stride);
		uint64_t l = __atomic_load_n(&m->lost, __ATOMIC_RELAXED);
		char cpu[16];

		if (!l)
			continue;
		snprintf(cpu, sizeof(cpu), "%u", c);
		if (per_cpu)
			json_object_set_new(per_cpu, cpu, evjson_u64(l));
	}
	if (rec)
		json_object_set_new(rec, "lost", json_pack("{s:o, s:o, s:o}",
							   "events", evjson_u64(lost),
							   "cpus", per_cpu ? per_cpu : json_object(),
							   "probe_missed", evjson_u64(missed)));
	else
		json_decref(per_cpu);
	if (!p->text)
		return;
	evreader_print_lost(er, p->text, "events");
	/* The OOM kprobe's hits the kernel dropped (nested in another probe). */
	if (missed)
		fprintf(p->text, "Missed: %" PRIu64 " OOM kill events (kprobe hits the kernel "
			"dropped)\n", missed);
}

/* Shrinkers are named from /proc/kallsyms as it is now (modules come and go). */
static void refresh_ksyms(struct pressure *p)
{
	struct mt_err err;

	if (p->ksyms)
		ksyms_refresh(p->ksyms, &err);
}

/* Ends an interval of --vmscan or --migration: its rows, its record. */
static void interval_rows(struct pressure *p)
{
	const struct vmscan_counts *vc = NULL;
	const struct migration_counts *mc = NULL;
	struct timespec now;
	json_t *rec = NULL;
	char hms[16];

	clock_gettime(CLOCK_MONOTONIC, &now);
	mt_hms(time(NULL), hms, sizeof(hms));
	if (p->json)
		rec = evjson_record(evjson_mode_name(p->o->mode), "interval", hms);
	if (p->migration) {
		mc = migration_interval(p->migration);
		if (p->text)
			migration_print_rows(p->text, hms, mc);
		if (rec && migration_counts_json(rec, mc)) {
			json_decref(rec);
			rec = NULL;
		}
	} else {
		refresh_ksyms(p);
		vc = vmscan_interval(p->vmscan, (uint64_t)now.tv_sec * 1000000000ULL +
				     (uint64_t)now.tv_nsec);
		if (p->text)
			vmscan_print_row(p->text, hms, vc, p->o->top, p->ksyms);
		if (rec && vmscan_counts_json(rec, vc, p->o->top, p->ksyms)) {
			json_decref(rec);
			rec = NULL;
		}
	}
	if (p->json)
		evjson_emit(p->json, rec);
}

/* The end: the mode's totals in text and as --json's "totals" record. */
static void totals(struct pressure *p, const struct evreader *er)
{
	FILE *t = p->text;
	json_t *rec = NULL;
	char hms[16];
	int ret = 0;

	mt_hms(time(NULL), hms, sizeof(hms));
	if (p->json)
		rec = evjson_record(evjson_mode_name(p->o->mode), "totals", hms);
	if (p->reclaim) {
		if (t)
			reclaim_summary(p->reclaim, t);
		if (rec)
			ret = reclaim_summary_json(rec, p->reclaim);
	}
	if (p->compaction) {
		if (t)
			compaction_print_totals(t, p->compaction, p->o->top);
		if (rec)
			ret = compaction_totals_json(rec, p->compaction, p->o->top);
	}
	if (p->migration) {
		if (t)
			migration_print_totals(t, p->migration, p->o->top);
		if (rec)
			ret = migration_totals_json(rec, p->migration, p->o->top);
	}
	if (p->vmscan) {
		refresh_ksyms(p);
		if (t)
			vmscan_print_totals(t, p->vmscan, p->o->top, p->ksyms);
		if (rec)
			ret = vmscan_totals_json(rec, p->vmscan, p->o->top, p->ksyms);
	}
	if (p->counts_kills) {
		if (t)
			fprintf(t, "%" PRIu64 " OOM kills\n", p->kills);
		if (rec)
			ret = json_object_set_new(rec, "oom_kills", evjson_u64(p->kills));
	}
	if (ret) {
		json_decref(rec);
		rec = NULL;
	}
	print_lost(p, er, rec);
	if (p->json)
		evjson_emit(p->json, rec);
}

/* --prometheus: the mode's counters so far (evprom.h). */
static int render_prom(FILE *out, const void *ctx, struct mt_err *err)
{
	const struct pressure *p = ctx;
	struct memtrace_evstats st;
	unsigned int cpus;
	uint64_t missed = 0;

	evprom_begin(evjson_mode_name(p->o->mode));
	if (p->reclaim)
		evprom_reclaims(out, p->reclaim->events, p->reclaim->ns, p->reclaim->pages);
	if (p->vmscan)
		evprom_vmscan(out, &p->vmscan->total);
	if (p->compaction)
		evprom_compaction(out, p->compaction);
	if (p->migration)
		evprom_migration(out, &p->migration->total);
	if (p->counts_kills)
		evprom_oom_kills(out, p->kills);
	if (device_evstats(p->er->dev, &st, err) == 0)
		missed = st.probe_missed;
	evprom_lost(out, evreader_lost(p->er, &cpus), missed);
	evprom_timestamp(out);
	return ferror(out) ? mt_errf(err, EIO, "cannot write the metrics") : 0;
}

/* Rewrites --prometheus's file (atomically); a failure is said once.  0 or -1. */
static int write_prom(struct pressure *p)
{
	struct mt_err err;

	if (!p->o->prometheus_file)
		return 0;
	if (!fmt_write_any(p->o->prometheus_file, p, render_prom, &err))
		return 0;
	if (!p->prom_failed)
		fprintf(stderr, PROG ": %s\n", err.msg);
	p->prom_failed = true;
	return -1;
}

/* ---- the rows: what each of the five does beyond the driver ---- */

/* The state all five share; 0, or -1 said. */
static int pressure_setup(struct mt_driver *d)
{
	struct pressure *p = calloc(1, sizeof(*p));

	if (!p) {
		fprintf(stderr, PROG ": out of memory\n");
		return -1;
	}
	d->state = p;
	p->o = d->o;
	p->text = d->text;
	p->json = d->json.f;
	p->er = &d->er;
	p->ksyms = ksyms_new(NULL);
	p->cgroot = pressure_cgroup2_root();
	p->mono_to_real_ns = mt_realtime_offset_ns();
	return 0;
}

/* A mode's tables: NULL said (out of memory). */
static void *mode_state(void *mem)
{
	if (!mem)
		fprintf(stderr, PROG ": out of memory\n");
	return mem;
}

static int oom_setup(struct mt_driver *d)
{
	if (pressure_setup(d))
		return -1;
	((struct pressure *)d->state)->counts_kills = true;
	return 0;
}

static int reclaim_setup(struct mt_driver *d)
{
	struct pressure *p;

	if (pressure_setup(d))
		return -1;
	p = d->state;
	p->reclaim = mode_state(calloc(1, sizeof(*p->reclaim)));
	return p->reclaim ? 0 : -1;
}

static int vmscan_setup(struct mt_driver *d)
{
	struct pressure *p;

	if (pressure_setup(d))
		return -1;
	p = d->state;
	p->vmscan = mode_state(malloc(sizeof(*p->vmscan)));
	if (!p->vmscan)
		return -1;
	vmscan_init(p->vmscan, vmscan_mglru_on(VMSCAN_LRU_GEN_PATH));
	return 0;
}

static int compaction_setup(struct mt_driver *d)
{
	struct pressure *p;

	if (pressure_setup(d))
		return -1;
	p = d->state;
	p->compaction = mode_state(malloc(sizeof(*p->compaction)));
	if (!p->compaction)
		return -1;
	compaction_init(p->compaction);
	p->compaction->json = p->json;
	return 0;
}

static int migration_setup(struct mt_driver *d)
{
	struct pressure *p;

	if (pressure_setup(d))
		return -1;
	p = d->state;
	p->migration = mode_state(malloc(sizeof(*p->migration)));
	if (!p->migration)
		return -1;
	migration_init(p->migration);
	return 0;
}

/* With --json on stdout the banner goes to stderr: the records alone on stdout. */
static FILE *banner_stream(const struct mt_driver *d)
{
	return d->text ? d->text : stderr;
}

static void oom_banner(struct mt_driver *d)
{
	fprintf(banner_stream(d), "Tracing OOM kills, Ctrl+C to quit.\n");
}

static void reclaim_banner(struct mt_driver *d)
{
	fprintf(banner_stream(d), "Tracing %s, Ctrl+C to quit.\n", "direct reclaim");
	if (d->text)
		fprintf(d->text, "%-8s %-16s %-7s %9s %7s\n", "TIME", "COMM", "PID", "LAT(ms)",
			"PAGES");
}

static void vmscan_banner(struct mt_driver *d)
{
	fprintf(banner_stream(d), "Tracing %s every %u s, Ctrl+C to quit.\n", "page reclaim",
		d->o->interval_s);
	if (d->text)
		vmscan_print_head(d->text);
}

static void compaction_banner(struct mt_driver *d)
{
	fprintf(banner_stream(d), "Tracing %s, Ctrl+C to quit.\n", "compaction");
	if (d->text)
		compaction_print_head(d->text);
}

static void migration_banner(struct mt_driver *d)
{
	fprintf(banner_stream(d), "Tracing %s every %u s, Ctrl+C to quit.\n", "page migration",
		d->o->interval_s);
	if (d->text)
		migration_print_head(d->text);
}

/* Each interval: --prometheus's and --folded=FILE's files rewritten. */
static int pressure_interval(struct mt_driver *d, bool signalled)
{
	struct pressure *p = d->state;

	if (!signalled) {
		write_prom(p);
		write_folds(p);
	}
	return 0;
}

/*
 * --vmscan and --migration: a row per interval too; on a signal, of what
 * the rings hold by then (not if that drain failed: it said why).
 */
static int rows_interval(struct mt_driver *d, bool signalled)
{
	if (!signalled || driver_drain(d, false) == 0)
		interval_rows(d->state);
	return pressure_interval(d, signalled);
}

static int pressure_end(struct mt_driver *d, int status)
{
	struct pressure *p = d->state;
	struct mt_err err;

	if (d->er.map && !status) {
		totals(p, &d->er);
		write_prom(p);
		write_folds(p);
		/* --folded on stdout: in place of the text, once, at the end. */
		if (p->o->folded && !p->o->folded_file)
			render_folds(stdout, p, &err);
	}
	if (p->prom_failed || p->folded_failed)
		status = 1;
	return status;
}

static void pressure_fini(struct mt_driver *d)
{
	struct pressure *p = d->state;

	if (!p)
		return;
	ksyms_free(p->ksyms);
	free(p->cgroot);
	free(p->reclaim);
	free(p->vmscan);
	free(p->compaction);
	free(p->migration);
	for (size_t i = 0; i < p->nr_folds; i++)
		free(p->folds[i]);
	free(p->folds);
	free(p->fold_kills);
	free(p);
	d->state = NULL;
}

/*
 * Event rings for --vmscan, --compaction and --migration: a reclaim pass
 * writes a record per LRU batch and per shrinker, for each memory cgroup
 * (offline ones too, while they hold pages), compaction one per zone run,
 * migration two per batch of pages.  A kswapd burst overflowed 64 pages a
 * CPU (256 KiB) in make check's guests, so these take what the budget
 * allows (evreader_ring_pages()), at least that.
 */
#define VMSCAN_EVRING_MIN_PAGES	64

#define PRESSURE_ROW						\
	.totals = true, .end = pressure_end, .fini = pressure_fini

const struct mt_mode_row pressure_oom_row = {
	.mode = MT_MODE_OOM, .option = "--oom", .events = MEMTRACE_EV_OOM,
	.missing = "oom_kill_process cannot be probed",
	.setup = oom_setup, .banner = oom_banner, .record = on_record,
	.interval = pressure_interval, PRESSURE_ROW,
};

const struct mt_mode_row pressure_reclaim_row = {
	.mode = MT_MODE_RECLAIM, .option = "--reclaim", .events = MEMTRACE_EV_RECLAIM,
	.missing = "no direct reclaim tracepoints",
	.setup = reclaim_setup, .banner = reclaim_banner, .record = on_record,
	.interval = pressure_interval, PRESSURE_ROW,
};

const struct mt_mode_row pressure_vmscan_row = {
	.mode = MT_MODE_VMSCAN, .option = "--vmscan", .events = MEMTRACE_EV_VMSCAN,
	/* Reclaims' begins and ends say whose the scans are (memcg or not). */
	.events_if_any = MEMTRACE_EV_RECLAIM,
	.missing = "no vmscan tracepoints", .evring_min_pages = VMSCAN_EVRING_MIN_PAGES,
	.setup = vmscan_setup, .banner = vmscan_banner, .record = vmscan_record,
	.interval = rows_interval, PRESSURE_ROW,
};

const struct mt_mode_row pressure_compaction_row = {
	.mode = MT_MODE_COMPACTION, .option = "--compaction", .events = MEMTRACE_EV_COMPACTION,
	.missing = "no compaction tracepoints", .evring_min_pages = VMSCAN_EVRING_MIN_PAGES,
	.setup = compaction_setup, .banner = compaction_banner, .record = compaction_record,
	.interval = pressure_interval, PRESSURE_ROW,
};

const struct mt_mode_row pressure_migration_row = {
	.mode = MT_MODE_MIGRATION, .option = "--migration", .events = MEMTRACE_EV_MIGRATION,
	.missing = "no migration tracepoints", .evring_min_pages = VMSCAN_EVRING_MIN_PAGES,
	.setup = migration_setup, .banner = migration_banner, .record = migration_record,
	.interval = rows_interval, PRESSURE_ROW,
};
