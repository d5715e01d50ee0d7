// SPDX-License-Identifier: GPL-2.0
/*
 * --oom, --reclaim, --vmscan, --compaction and --migration; see
 * pressure.h.  The session: configure the module
 * for the pressure events alone (no allocation tables), start, then sleep
 * in poll(2) on the device (the event rings' wake-up) and a signalfd, and
 * print each record as it comes, in time order across CPUs.
 */
#include "pressure.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <mntent.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "device.h"
#include "evjson.h"
#include "evprom.h"
#include "evreader.h"
#include "fmt.h"
#include "ksyms.h"
#include "pidtab.h"
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

/* ---- --reclaim: begin/end pairs, per-process latency ---- */

#define RECLAIM_PROCS	256	/* processes in the summary */
#define HIST_SLOTS	40

struct reclaim_proc {
	uint32_t pid;
	char comm[MEMTRACE_COMM_LEN + 1];
	uint64_t count, total_ns, pages;
	uint64_t hist[HIST_SLOTS];	/* log2 of microseconds */
};

struct reclaim_state {
	struct pidtab open;		/* reclaims in flight: v[0] the begin's time */
	struct reclaim_proc procs[RECLAIM_PROCS];
	unsigned int nr_procs;
	uint64_t events[2], pages[2];	/* [0] direct, [1] memcg */
	uint64_t ns[2];			/* their time, of those whose begin was seen */
	uint64_t unpaired;		/* ends without their begin (lost, or begun before start) */
	uint64_t procs_full;
};

static unsigned int log2_slot(uint64_t us)
{
	unsigned int s = 0;

	while (us > 1 && s < HIST_SLOTS - 1) {
		us >>= 1;
		s++;
	}
	return us ? s + 1 : 0;
}

static void reclaim_event(struct reclaim_state *st, const struct memtrace_ev_reclaim *r,
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

static void reclaim_summary(const struct reclaim_state *st, FILE *out)
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

		for (unsigned int s = 0; s < HIST_SLOTS; s++) {
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

static int reclaim_summary_json(json_t *rec, const struct reclaim_state *st)
{
	json_t *procs = json_array();

	for (unsigned int i = 0; procs && i < st->nr_procs; i++) {
		const struct reclaim_proc *p = &st->procs[i];
		json_t *hist = json_array();
		unsigned int last = 0;

		for (unsigned int s = 0; s < HIST_SLOTS; s++)
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

/* ---- the session ---- */

struct pressure {
	const struct mt_options *o;
	FILE *text;			/* the text report: stdout, or NULL with --json on stdout */
	struct evjson_out json;		/* --json */
	struct ksyms *ksyms;
	char *cgroot;
	struct reclaim_state *reclaim;
	struct vmscan *vmscan;
	struct compaction *compaction;
	struct migration *migration;
	int64_t mono_to_real_ns;	/* CLOCK_REALTIME - CLOCK_MONOTONIC */
	uint64_t kills;
	const struct evreader *er;	/* --prometheus: its losses */
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

static void on_record(void *ctx, const struct memtrace_ev_hdr *h)
{
	struct pressure *p = ctx;

	if (p->vmscan) {
		vmscan_account(p->vmscan, h);
		return;
	}
	if (p->migration) {
		migration_account(p->migration, h);
		return;
	}
	if (p->compaction) {
		uint64_t ts;

		/* Every record's time follows its header (evreader.h). */
		memcpy(&ts, h + 1, sizeof(ts));
		compaction_account(p->compaction, h, wall_of(p, ts), p->text);
		return;
	}
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
		if (p->json.f) {
			char hms[16];

			mt_hms(wall_of(p, r->ts_ns), hms, sizeof(hms));
			evjson_emit(p->json.f, pressure_oom_kill_json(r, hms, named ? path : NULL,
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
		if (p->json.f) {
			const struct memtrace_ev_oom_victim *v = (const void *)h;
			char hms[16];

			mt_hms(wall_of(p, v->ts_ns), hms, sizeof(hms));
			evjson_emit(p->json.f, pressure_oom_victim_json(v, hms));
		}
		break;
	case MEMTRACE_EVT_RECLAIM_BEGIN:
	case MEMTRACE_EVT_RECLAIM_END: {
		const struct memtrace_ev_reclaim *r = (const void *)h;

		if (p->reclaim && h->size >= sizeof(*r))
			reclaim_event(p->reclaim, r, wall_of(p, r->ts_ns), p->text, p->json.f);
		break;
	}
	default:
		break;		/* a type newer than this reader */
	}
}

static int drain(struct pressure *p, struct evreader *er)
{
	struct mt_err err;

	if (evreader_drain(er, on_record, p, &err)) {
		fprintf(stderr, PROG ": %s\n", err.msg);
		return -1;
	}
	return evjson_flush(&p->json, p->o);
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
	if (p->json.f)
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
	if (p->json.f)
		evjson_emit(p->json.f, rec);
}

/* The end: the mode's totals in text and as --json's "totals" record. */
static void totals(struct pressure *p, const struct evreader *er)
{
	FILE *t = p->text;
	json_t *rec = NULL;
	char hms[16];
	int ret = 0;

	mt_hms(time(NULL), hms, sizeof(hms));
	if (p->json.f)
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
	if (p->o->mode == MT_MODE_OOM) {
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
	if (p->json.f)
		evjson_emit(p->json.f, rec);
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
	if (p->o->mode == MT_MODE_OOM)
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

/*
 * Event rings for --vmscan, --compaction and --migration: a reclaim pass
 * writes a record per LRU batch and per shrinker, for each memory cgroup
 * (offline ones too, while they hold pages), compaction one per zone run,
 * migration two per batch of pages.  A kswapd burst overflowed 64 pages a
 * CPU (256 KiB) in make check's guests, so these take what the budget
 * allows (evreader_ring_pages()), at least that.
 */
#define VMSCAN_EVRING_MIN_PAGES	64

int pressure_run(const struct mt_options *o)
{
	uint32_t want = o->mode == MT_MODE_OOM ? MEMTRACE_EV_OOM :
			o->mode == MT_MODE_VMSCAN ? MEMTRACE_EV_VMSCAN :
			o->mode == MT_MODE_COMPACTION ? MEMTRACE_EV_COMPACTION :
			o->mode == MT_MODE_MIGRATION ? MEMTRACE_EV_MIGRATION : MEMTRACE_EV_RECLAIM;
	const char *mode = o->mode == MT_MODE_OOM ? "--oom" :
			   o->mode == MT_MODE_VMSCAN ? "--vmscan" :
			   o->mode == MT_MODE_COMPACTION ? "--compaction" :
			   o->mode == MT_MODE_MIGRATION ? "--migration" : "--reclaim";
	struct pressure p = { .o = o, .text = evjson_text_stream(o) };
	struct memtrace_config cfg;
	struct evreader er = { 0 };
	struct mt_device dev;
	struct timespec deadline;
	struct mt_err err;
	FILE *banner;
	int sigfd = -1, status = 1;

	dev.fd = -1;
	if (device_open(&dev, NULL, &err)) {
		fprintf(stderr, PROG ": %s\n", err.msg);
		return 1;
	}
	if (!(dev.version.features & MEMTRACE_FEAT_EVRING) || !(dev.version.features & want)) {
		const char *kconfig = device_kconfig_reason(&dev.version, want);

		fprintf(stderr, PROG ": %s: not supported by this module on this kernel "
			"(memtrace.ko %s: %s)\n", mode, dev.version.module_version,
			!(dev.version.features & MEMTRACE_FEAT_EVRING) ? "no event rings" :
			kconfig ? kconfig :
			o->mode == MT_MODE_OOM ? "oom_kill_process cannot be probed" :
			o->mode == MT_MODE_VMSCAN ? "no vmscan tracepoints" :
			o->mode == MT_MODE_COMPACTION ? "no compaction tracepoints" :
			o->mode == MT_MODE_MIGRATION ? "no migration tracepoints" :
			"no direct reclaim tracepoints");
		goto out;
	}
	memset(&cfg, 0, sizeof(cfg));
	cfg.size = sizeof(cfg);
	cfg.events = want;
	cfg.stack_depth = MEMTRACE_MAX_FRAMES;
	if (o->mode == MT_MODE_VMSCAN) {
		/* Reclaims' begins and ends say whose the scans are (memcg or not). */
		if (dev.version.features & MEMTRACE_EV_RECLAIM)
			cfg.events |= MEMTRACE_EV_RECLAIM;
		cfg.evring_pages = evreader_ring_pages(VMSCAN_EVRING_MIN_PAGES);
	}
	if (o->mode == MT_MODE_COMPACTION || o->mode == MT_MODE_MIGRATION)
		cfg.evring_pages = evreader_ring_pages(VMSCAN_EVRING_MIN_PAGES);
	if (evjson_open(&p.json, o, &err) ||
	    device_configure(&dev, &cfg, &err) || device_start(&dev, &err) ||
	    evreader_open(&er, &dev, &err)) {
		fprintf(stderr, PROG ": %s\n", err.msg);
		goto out;
	}
	p.er = &er;
	p.ksyms = ksyms_new(NULL);
	p.cgroot = pressure_cgroup2_root();
	p.mono_to_real_ns = mt_realtime_offset_ns();
	if (o->mode == MT_MODE_VMSCAN) {
		p.vmscan = malloc(sizeof(*p.vmscan));
		if (!p.vmscan) {
			fprintf(stderr, PROG ": out of memory\n");
			goto out;
		}
		vmscan_init(p.vmscan, vmscan_mglru_on(VMSCAN_LRU_GEN_PATH));
	}
	if (o->mode == MT_MODE_MIGRATION) {
		p.migration = malloc(sizeof(*p.migration));
		if (!p.migration) {
			fprintf(stderr, PROG ": out of memory\n");
			goto out;
		}
		migration_init(p.migration);
	}
	if (o->mode == MT_MODE_COMPACTION) {
		p.compaction = malloc(sizeof(*p.compaction));
		if (!p.compaction) {
			fprintf(stderr, PROG ": out of memory\n");
			goto out;
		}
		compaction_init(p.compaction);
		p.compaction->json = p.json.f;
	}
	if (o->mode == MT_MODE_RECLAIM) {
		p.reclaim = calloc(1, sizeof(*p.reclaim));
		if (!p.reclaim) {
			fprintf(stderr, PROG ": out of memory\n");
			goto out;
		}
	}
	sigfd = stop_signals_fd();
	if (sigfd < 0) {
		fprintf(stderr, PROG ": cannot take signals: %s\n", strerror(errno));
		goto out;
	}
	/* With --json on stdout the banner goes to stderr: the records alone on stdout. */
	banner = p.text ? p.text : stderr;
	if (o->mode == MT_MODE_OOM)
		fprintf(banner, "Tracing OOM kills, Ctrl+C to quit.\n");
	else if (o->mode == MT_MODE_VMSCAN || o->mode == MT_MODE_MIGRATION)
		fprintf(banner, "Tracing %s every %u s, Ctrl+C to quit.\n",
			o->mode == MT_MODE_VMSCAN ? "page reclaim" : "page migration", o->interval_s);
	else
		fprintf(banner, "Tracing %s, Ctrl+C to quit.\n",
			o->mode == MT_MODE_COMPACTION ? "compaction" : "direct reclaim");
	if (p.text && o->mode == MT_MODE_VMSCAN)
		vmscan_print_head(p.text);
	else if (p.text && o->mode == MT_MODE_MIGRATION)
		migration_print_head(p.text);
	else if (p.text && o->mode == MT_MODE_COMPACTION)
		compaction_print_head(p.text);
	else if (p.text && o->mode == MT_MODE_RECLAIM)
		fprintf(p.text, "%-8s %-16s %-7s %9s %7s\n", "TIME", "COMM", "PID", "LAT(ms)",
			"PAGES");
	fflush(stdout);
	status = 0;
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	for (unsigned long n = 0; !o->count || n < o->count; n++) {
		bool signalled = false;

		deadline.tv_sec += o->interval_s;
		while (!signalled) {
			int w = evreader_wait(&er, sigfd, -1, &deadline, -1, &err);

			if (w < 0) {
				fprintf(stderr, PROG ": %s\n", err.msg);
				status = 1;
				goto stop;
			}
			signalled = w == EVREADER_SIGNAL;
			if (drain(&p, &er)) {
				status = 1;
				goto stop;
			}
			if (w == EVREADER_TIMEOUT)
				break;
		}
		if ((p.vmscan || p.migration) && (!signalled || drain(&p, &er) == 0))
			interval_rows(&p);
		if (signalled)
			break;
		write_prom(&p);
		write_folds(&p);
	}
stop:
	if (dev.tracing && device_stop(&dev, &err) && !status) {
		fprintf(stderr, PROG ": %s\n", err.msg);
		status = 1;
	}
	/* What the rings still hold was written before the stop. */
	if (!status && drain(&p, &er))
		status = 1;
	if (er.map && !status) {
		totals(&p, &er);
		write_prom(&p);
		write_folds(&p);
		/* --folded on stdout: in place of the text, once, at the end. */
		if (o->folded && !o->folded_file)
			render_folds(stdout, &p, &err);
	}
	if (p.prom_failed || p.folded_failed)
		status = 1;
	if (evjson_flush(&p.json, o) && !status)
		status = 1;
	fflush(stdout);
out:
	evreader_close(&er);
	device_close(&dev);
	evjson_close(&p.json);
	if (sigfd >= 0)
		close(sigfd);
	ksyms_free(p.ksyms);
	free(p.cgroot);
	free(p.reclaim);
	free(p.vmscan);
	free(p.compaction);
	free(p.migration);
	for (size_t i = 0; i < p.nr_folds; i++)
		free(p.folds[i]);
	free(p.folds);
	free(p.fold_kills);
	return status;
}
