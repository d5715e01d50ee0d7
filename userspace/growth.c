// SPDX-License-Identifier: GPL-2.0
/*
 * --mmap, --brk, --shm, --faults, --ffaults and --usdt; see growth.h.
 * Each is a row (mode.h) the session driver (driver.h) runs with the
 * task filters (-p's process, -c's command, --by-comm, --by-cgroup):
 * each call printed as it comes (--mmap, --shm, --usdt's hits) or
 * counted under its process and user stack, or its file, for the
 * reports at intervals and at the end (--brk, --mmap --stacks, --faults,
 * --ffaults, --shm --stacks).
 */
#include "growth.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <time.h>
#include <unistd.h>

#include "device.h"
#include "driver.h"
#include "evjson.h"
#include "evreader.h"
#include "fmt.h"
#include "growthagg.h"
#include "growthcall.h"
#include "util.h"
#include "report.h"
#include "rmodel.h"
#include "spawn.h"
#include "usdt.h"
#include "usermode.h"
#include "usyms.h"

#define PROG "memtrace-read"

/* ---- symbols: one usyms per process seen ---- */

#define SYM_PROCS	256

struct sym_proc {
	int pid;		/* 0: free */
	struct usyms *u;	/* NULL: could not be read (gone already) */
	uint64_t drain;		/* the drain that last read its mappings */
};

/* A stack's frames, inlined calls frames of their own: innermost first. */
#define STACK_LINES	(MEMTRACE_MAX_FRAMES * 4)
/* A frame's line in the text report (and its text in --json), cut to fit. */
#define LINE_LEN	256

struct growth {
	const struct mt_options *o;
	FILE *text;			/* the text report: stdout, or NULL (--json, --folded on it) */
	FILE *json;			/* --json's records; NULL without */
	int64_t mono_to_real_ns;	/* the calls' wall clock times */
	struct rm_frame stack[STACK_LINES];	/* stack_frames()'s; strings: usyms' */
	struct growth_agg *agg;
	struct growth_files *files;	/* --ffaults */
	uint64_t major;			/* --faults: the major ones of calls */
	struct sym_proc syms[SYM_PROCS];
	unsigned int nr_syms;
	uint64_t agg_full;
	uint64_t calls, printed_at;
	const uint64_t *drains;	/* the driver's drains of the rings so far */
	/* -p/-c: the unwind tables handed over for the stacks (um NULL: frame pointers only) */
	struct usermode *um;
	bool warned_32bit;
	/* --usdt: the probe's sites, what the hits' times count from */
	struct usdt_site usdt[MEMTRACE_MAX_USDT];
	int nr_usdt;
	char usdt_label[2 * USDT_NAME_LEN + 2];	/* PROVIDER:NAME */
	uint64_t start_ns;
	uint64_t arg_faults;	/* hits with an argument whose memory could not be read */
	/* --pprof, --prometheus, --svg: the losses they report, and whether one failed */
	struct mt_device *dev;
	const struct evreader *er;
	bool write_failed;
};

static struct sym_proc *sym_of(struct growth *g, int pid, bool make)
{
	struct mt_err err;

	for (unsigned int i = 0; i < g->nr_syms; i++)
		if (g->syms[i].pid == pid)
			return &g->syms[i];
	if (!make || g->nr_syms == SYM_PROCS)
		return NULL;
	g->syms[g->nr_syms].pid = pid;
	if (usyms_new(pid, &g->syms[g->nr_syms].u, &err))
		g->syms[g->nr_syms].u = NULL;
	/* Read now: in this drain, or (-p) before the first. */
	g->syms[g->nr_syms].drain = *g->drains;
	return &g->syms[g->nr_syms++];
}

/* The process may have mapped code since its symbols were read (a dlopen, an exec). */
static void sym_refresh(struct growth *g, int pid)
{
	struct sym_proc *s = sym_of(g, pid, true);
	struct mt_err err;

	if (s && s->u)
		usyms_refresh(s->u, &err);
	if (s)
		s->drain = *g->drains;
}

/*
 * A process with calls in this drain: read its mappings again if they
 * were read before it (an exec, a dlopen since), while it is there; once
 * per drain, however many calls it made.  -p reads the target's at
 * attach, so its first drain with calls reads them again: a library it
 * dlopen()s then waits in is named even if its next calls are drained
 * only once it has exited (its maps gone).
 */
static void sym_seen(struct growth *g, int pid)
{
	struct sym_proc *s = sym_of(g, pid, true);
	struct mt_err err;

	if (!s || s->drain == *g->drains)
		return;
	if (s->u)
		usyms_refresh(s->u, &err);
	s->drain = *g->drains;
}

/* Modes that count and report at intervals rather than print each call. */
static bool stack_mode(const struct mt_options *o)
{
	return o->mode == MT_MODE_BRK || o->mode == MT_MODE_FAULTS ||
	       (o->mode == MT_MODE_MMAP && o->stacks);
}

/* Modes that count by user stack: their processes' symbols are read while they run. */
static bool counts_stacks(const struct mt_options *o)
{
	return stack_mode(o) || o->mode == MT_MODE_USDT;
}

/* Modes that show the user stacks of system calls, faults and probe hits (the module walks them). */
static bool shows_call_stacks(const struct mt_options *o)
{
	return counts_stacks(o) || (o->mode == MT_MODE_SHM && o->stacks);
}

static bool report_mode(const struct mt_options *o)
{
	return stack_mode(o) || o->mode == MT_MODE_FFAULTS;
}

/*
 * --shm --stacks prints each call with its stack, and counts the calls by
 * stack too for the formats that render counts (--folded, --pprof...).
 */
static bool shm_counts(const struct mt_options *o)
{
	return o->mode == MT_MODE_SHM && o->stacks;
}

/* Modes whose reports come at intervals and at the end (--usdt's: at the end). */
static bool interval_reports(const struct mt_options *o)
{
	return report_mode(o) || shm_counts(o);
}

/* The frames of a stack into g->stack (innermost first); their number. */
static size_t stack_frames(struct growth *g, uint32_t pid, const uint64_t *frames, uint32_t nr)
{
	struct sym_proc *s = sym_of(g, (int)pid, false);
	size_t at = 0;

	for (uint32_t i = 0; i < nr && at < STACK_LINES; i++) {
		size_t n = 0, max = STACK_LINES - at < 8 ? STACK_LINES - at : 8;

		if (s && s->u)
			n = usyms_frames(s->u, frames[i], &g->stack[at], max);
		if (!n) {
			g->stack[at] = (struct rm_frame){ .addr = frames[i] };
			n = 1;
		}
		at += n;
	}
	return at;
}

/* Frame l of g->stack with its text, the text report's line, in line (LINE_LEN bytes). */
static struct rm_frame stack_frame(const struct growth *g, size_t l, char *line)
{
	struct rm_frame f = g->stack[l];

	f.text = rm_frame_text(&f, line, LINE_LEN);
	return f;
}

static void print_stack(struct growth *g, uint32_t pid, const uint64_t *frames, uint32_t nr)
{
	size_t n = stack_frames(g, pid, frames, nr);
	char line[LINE_LEN];

	for (size_t l = 0; l < n; l++)
		fprintf(g->text, "\t\t%s\n", stack_frame(g, l, line).text);
	if (!n)
		fprintf(g->text, "\t\t[no user stack]\n");
}

/* The same stack as --json's frames. */
static json_t *stack_json(struct growth *g, uint32_t pid, const uint64_t *frames, uint32_t nr)
{
	size_t n = stack_frames(g, pid, frames, nr);
	json_t *a = json_array();
	char line[LINE_LEN];

	for (size_t l = 0; a && l < n; l++) {
		struct rm_frame f = stack_frame(g, l, line);

		json_array_append_new(a, fmt_json_frame(&f));
	}
	return a;
}

/* One folded line: the process's name, then the stack root first, and value. */
static void fold_stack(struct growth *g, FILE *out, const struct growth_entry *e,
		       uint64_t value)
{
	size_t n = stack_frames(g, e->pid, e->frames, e->nr_frames);
	char name[512];

	fputs(fmt_frame_name(&(struct rm_frame){ .function = (char *)e->comm }, name,
			     sizeof(name)), out);
	if (!n)
		fputs(";[no user stack]", out);
	while (n-- > 0)
		fprintf(out, ";%s", fmt_frame_name(&g->stack[n], name, sizeof(name)));
	fprintf(out, " %" PRIu64 "\n", value);
}

/*
 * What a stack report counts for an entry: bytes (--brk, --mmap --stacks),
 * faults, hits or calls (--shm --stacks).
 */
static uint64_t entry_value(const struct growth *g, const struct growth_entry *e)
{
	return g->o->mode == MT_MODE_FAULTS || g->o->mode == MT_MODE_USDT ||
	       g->o->mode == MT_MODE_SHM ? e->calls : e->bytes;
}

/* --folded: the report's stacks (--ffaults: files), one line each. */
static int fold_report(FILE *out, void *ctx)
{
	struct growth *g = ctx;
	size_t n;

	if (g->o->mode == MT_MODE_FFAULTS) {
		const struct growth_file *const *f;
		uint64_t amin, amaj;
		char name[512];

		f = growth_files_sorted(g->files, &n, &amin, &amaj);
		for (size_t i = 0; f && i < n && i < g->o->top; i++)
			fprintf(out, "%s %" PRIu64 "\n",
				fmt_frame_name(&(struct rm_frame){ .function = (char *)f[i]->name },
					       name, sizeof(name)), f[i]->minor + f[i]->major);
		if (amin + amaj)
			fprintf(out, "[anonymous memory] %" PRIu64 "\n", amin + amaj);
	} else {
		const struct growth_entry *const *s = growth_agg_sorted(g->agg, &n);

		for (size_t i = 0; s && i < n && i < g->o->top; i++)
			fold_stack(g, out, s[i], entry_value(g, s[i]));
	}
	return ferror(out) ? -EIO : 0;
}

static int fold_report_file(FILE *out, const void *ctx, struct mt_err *err)
{
	int ret = fold_report(out, (void *)ctx);

	return ret ? mt_errf(err, -ret, "cannot write the folded stacks") : 0;
}

static json_t *report_json(struct growth *g, const char *hms)
{
	json_t *rec = evjson_record(evjson_mode_name(g->o->mode), "report", hms), *a = json_array();
	size_t n;

	if (!rec || !a)
		goto fail;
	if (g->o->mode == MT_MODE_FFAULTS) {
		const struct growth_file *const *f;
		uint64_t amin, amaj;

		f = growth_files_sorted(g->files, &n, &amin, &amaj);
		for (size_t i = 0; f && i < n && i < g->o->top; i++)
			json_array_append_new(a, json_pack("{s:s, s:o, s:o}", "file", f[i]->name,
							   "minor", evjson_u64(f[i]->minor),
							   "major", evjson_u64(f[i]->major)));
		if (json_object_update_new(rec, json_pack(
			"{s:o, s:o, s:o, s:{s:o, s:o}, s:o}", "faults", evjson_u64(g->calls),
			"major", evjson_u64(g->major), "files", a,
			"anonymous", "minor", evjson_u64(amin), "major", evjson_u64(amaj),
			"untracked", evjson_u64(g->agg_full))))
			goto fail_rec;
		return rec;
	}
	if (g->o->mode == MT_MODE_USDT) {
		const struct growth_entry *const *s = growth_agg_sorted(g->agg, &n);

		for (size_t i = 0; s && i < n && i < g->o->top; i++)
			json_array_append_new(a, json_pack(
				"{s:I, s:o, s:o, s:o}", "pid", (json_int_t)s[i]->pid,
				"comm", evjson_comm(s[i]->comm), "hits", evjson_u64(s[i]->calls),
				"frames", stack_json(g, s[i]->pid, s[i]->frames, s[i]->nr_frames)));
		if (json_object_update_new(rec, json_pack("{s:s, s:i, s:o, s:o, s:o}",
							  "probe", g->usdt_label,
							  "sites", g->nr_usdt,
							  "hits", evjson_u64(g->calls), "stacks", a,
							  "untracked", evjson_u64(g->agg_full))))
			goto fail_rec;
		return rec;
	}
	{
		const struct growth_entry *const *s = growth_agg_sorted(g->agg, &n);

		for (size_t i = 0; s && i < n && i < g->o->top; i++)
			json_array_append_new(a, json_pack(
				"{s:I, s:o, s:o, s:o, s:o, s:o}", "pid", (json_int_t)s[i]->pid,
				"comm", evjson_comm(s[i]->comm), "calls", evjson_u64(s[i]->calls),
				"bytes", evjson_u64(s[i]->bytes), "major", evjson_u64(s[i]->major),
				"frames", stack_json(g, s[i]->pid, s[i]->frames, s[i]->nr_frames)));
	}
	if (json_object_update_new(rec, json_pack("{s:o, s:o, s:o, s:o}",
						  "calls", evjson_u64(g->calls),
						  "major", evjson_u64(g->major), "stacks", a,
						  "untracked", evjson_u64(g->agg_full))))
		goto fail_rec;
	return rec;
fail:
	json_decref(a);
fail_rec:
	json_decref(rec);
	return NULL;
}

static void text_report(struct growth *g, const char *hms)
{
	const struct growth_entry *const *s;
	FILE *t = g->text;
	size_t n;

	if (g->o->mode == MT_MODE_FFAULTS) {
		const struct growth_file *const *f;
		uint64_t amin, amaj;

		f = growth_files_sorted(g->files, &n, &amin, &amaj);
		fprintf(t, "[%s] Page faults by file (%" PRIu64 " faults, %" PRIu64 " major):\n",
			hms, g->calls, g->major);
		fprintf(t, "%-40s %10s %10s\n", "FILE", "MINOR", "MAJOR");
		for (size_t i = 0; f && i < n && i < g->o->top; i++)
			fprintf(t, "%-40s %10" PRIu64 " %10" PRIu64 "\n", f[i]->name, f[i]->minor,
				f[i]->major);
		fprintf(t, "%-40s %10" PRIu64 " %10" PRIu64 "\n", "[anonymous memory]", amin, amaj);
		if (g->agg_full)
			fprintf(t, "(%" PRIu64 " faults not counted: out of memory for more files)\n",
				g->agg_full);
		return;
	}
	s = growth_agg_sorted(g->agg, &n);
	if (g->o->mode == MT_MODE_USDT)
		fprintf(t, "[%s] Top %zu stacks by hits of %s (%" PRIu64 " hits):\n", hms,
			n < g->o->top ? n : (size_t)g->o->top, g->usdt_label, g->calls);
	else if (g->o->mode == MT_MODE_FAULTS)
		fprintf(t, "[%s] Top %zu stacks by page faults (%" PRIu64 " faults, %" PRIu64
			" major):\n", hms, n < g->o->top ? n : (size_t)g->o->top, g->calls, g->major);
	else if (g->o->mode == MT_MODE_BRK)
		fprintf(t, "[%s] Top %zu stacks by brk growth (%" PRIu64 " brk calls):\n", hms,
			n < g->o->top ? n : (size_t)g->o->top, g->calls);
	else
		fprintf(t, "[%s] Top %zu stacks by bytes mapped (%" PRIu64 " calls):\n", hms,
			n < g->o->top ? n : (size_t)g->o->top, g->calls);
	for (size_t i = 0; s && i < n && i < g->o->top; i++) {
		if (g->o->mode == MT_MODE_USDT)
			fprintf(t, "\t%" PRIu64 " hits by %s [%" PRIu32 "] from stack\n", s[i]->calls,
				s[i]->comm, s[i]->pid);
		else if (g->o->mode == MT_MODE_FAULTS)
			fprintf(t, "\t%" PRIu64 " page faults (%" PRIu64 " major) by %s [%" PRIu32
				"] from stack\n", s[i]->calls, s[i]->major, s[i]->comm, s[i]->pid);
		else if (g->o->mode == MT_MODE_BRK)
			fprintf(t, "\t%" PRIu64 " bytes grown in %" PRIu64 " brk calls by %s [%" PRIu32
				"] from stack\n", s[i]->bytes, s[i]->calls, s[i]->comm, s[i]->pid);
		else
			fprintf(t, "\t%" PRIu64 " bytes mapped in %" PRIu64 " calls by %s [%" PRIu32
				"] from stack\n", s[i]->bytes, s[i]->calls, s[i]->comm, s[i]->pid);
		print_stack(g, s[i]->pid, s[i]->frames, s[i]->nr_frames);
	}
	if (g->agg_full)
		fprintf(t, "(%" PRIu64 " calls not counted: out of memory for more stacks)\n",
			g->agg_full);
}

/* One stack of the model: the entry's numbers, its frames as the text shows them. */
static int model_stack(struct growth *g, struct rm_stack *st, const struct growth_entry *e)
{
	struct sym_proc *sp = sym_of(g, (int)e->pid, false);
	size_t n = stack_frames(g, e->pid, e->frames, e->nr_frames), cap = 0;
	char line[LINE_LEN];
	int ret = 0;

	st->pid = e->pid;
	st->count = e->calls;
	st->bytes = e->bytes;
	st->major = e->major;
	st->comm = strdup(e->comm);
	if (!n)
		st->note = strdup("[no user stack]");
	if (!st->comm || (!n && !st->note))
		return -ENOMEM;
	for (size_t l = 0; l < n && !ret; l++) {
		struct rm_frame f = stack_frame(g, l, line);

		ret = rmodel_add_user_frame(st, &cap, &f, sp ? sp->u : NULL);
	}
	return ret;
}

/* --ffaults: a file as a stack of one frame, named by the file. */
static int model_file(struct rm_stack *st, const char *name, uint64_t minor, uint64_t major)
{
	size_t cap = 0;

	st->count = minor + major;
	st->major = major;
	return rmodel_add_user_frame(st, &cap, &(struct rm_frame){ .function = (char *)name,
								   .text = (char *)name }, NULL);
}

/*
 * The report as a report model (rmodel.h), for --pprof, --prometheus and
 * --svg: the text report's stacks (files), in its order, with its numbers.
 */
static int growth_model(struct growth *g, struct report_model *m, const char *hms)
{
	const enum mt_mode mode = g->o->mode;
	struct memtrace_evstats st;
	unsigned int cpus;
	struct mt_err err;
	size_t n;
	int ret = 0;

	memset(m, 0, sizeof(*m));
	m->mode = RM_GROWTH;
	m->growth_mode = evjson_mode_name(mode);
	snprintf(m->timestamp, sizeof(m->timestamp), "%s", hms);
	m->top = g->o->top;
	m->sort = mode == MT_MODE_BRK || mode == MT_MODE_MMAP ? MT_SORT_SIZE : MT_SORT_COUNT;
	m->counts = mode == MT_MODE_BRK || mode == MT_MODE_MMAP ? RM_COUNTS_BYTES_CALLS :
		    mode == MT_MODE_SHM ? RM_COUNTS_CALLS : mode == MT_MODE_USDT ? RM_COUNTS_HITS :
		    RM_COUNTS_FAULTS;
	m->title = mode == MT_MODE_BRK ? "Bytes grown by brk" :
		   mode == MT_MODE_MMAP ? "Bytes mapped" : mode == MT_MODE_SHM ? "shm calls" :
		   mode == MT_MODE_USDT ? "Probe hits" : mode == MT_MODE_FAULTS ?
		   "Page faults" : "Page faults by file";
	m->total_count = g->calls;
	m->total_major = g->major;
	m->untracked = g->agg_full;
	m->lost_events = g->er ? evreader_lost(g->er, &cpus) : 0;
	if (g->dev && !device_evstats(g->dev, &st, &err))
		m->probe_missed = st.probe_missed;
	if (mode == MT_MODE_FFAULTS) {
		const struct growth_file *const *f;
		uint64_t amin, amaj;

		f = growth_files_sorted(g->files, &n, &amin, &amaj);
		m->stacks = calloc((f ? n : 0) + 1, sizeof(*m->stacks));
		if (!m->stacks)
			return -ENOMEM;
		for (size_t i = 0; f && i < n && i < g->o->top && !ret; i++)
			ret = model_file(&m->stacks[m->nr_stacks++], f[i]->name, f[i]->minor,
					 f[i]->major);
		if (!ret && amin + amaj)
			ret = model_file(&m->stacks[m->nr_stacks++], "[anonymous memory]", amin,
					 amaj);
	} else {
		const struct growth_entry *const *s = growth_agg_sorted(g->agg, &n);

		m->stacks = calloc(s && n ? n : 1, sizeof(*m->stacks));
		if (!m->stacks)
			return -ENOMEM;
		for (size_t i = 0; s && i < n; i++)
			m->total_bytes += s[i]->bytes;
		for (size_t i = 0; s && i < n && i < g->o->top && !ret; i++)
			ret = model_stack(g, &m->stacks[m->nr_stacks++], s[i]);
	}
	for (size_t i = 0; i < m->nr_stacks; i++) {
		m->bytes += m->stacks[i].bytes;
		m->count += m->stacks[i].count;
	}
	return ret;
}

/* --pprof, --prometheus and --svg, each written whole to its file. */
static void write_formats(struct growth *g, const char *hms)
{
	const struct mt_options *o = g->o;
	struct report_model m;
	struct mt_err err = { "" };
	int ret;

	if (!o->pprof_file && !o->prometheus_file && !o->svg_file)
		return;
	ret = growth_model(g, &m, hms);
	if (ret)
		mt_errf(&err, -ret, "out of memory for the report");
	else
		ret = fmt_write_files(o->pprof_file, o->prometheus_file, o->svg_file, &m, &err);
	if (ret) {
		fprintf(stderr, PROG ": %s\n", err.msg);
		g->write_failed = true;
	}
	rmodel_free(&m);
}

/* One interval's report in each output asked for. */
static void report(struct growth *g)
{
	char hms[16];
	time_t now = time(NULL);
	struct mt_err err;

	mt_hms(now, hms, sizeof(hms));
	/* --shm --stacks: the text and --json have each call already. */
	if (g->text && !shm_counts(g->o))
		text_report(g, hms);
	if (g->json && !shm_counts(g->o))
		evjson_emit(g->json, report_json(g, hms));
	if (g->o->folded && !g->o->folded_file)
		fold_report(stdout, g);
	else if (g->o->folded && fmt_write_any(g->o->folded_file, g, fold_report_file, &err))
		fprintf(stderr, PROG ": %s\n", err.msg);
	write_formats(g, hms);
	g->printed_at = g->calls;
}

/* --json's record of a call (--shm --stacks: with its stack). */
static void emit_call(struct growth *g, const struct memtrace_ev_syscall *r, uint32_t nr)
{
	time_t when = (time_t)(((int64_t)r->ts_ns + g->mono_to_real_ns) / 1000000000LL);
	json_t *rec;
	char hms[16];

	mt_hms(when, hms, sizeof(hms));
	rec = growth_call_json(r, evjson_mode_name(g->o->mode), hms);
	if (rec && g->o->stacks &&
	    json_object_set_new(rec, "frames", stack_json(g, r->pid, (const uint64_t *)(r + 1), nr))) {
		json_decref(rec);
		rec = NULL;
	}
	evjson_emit(g->json, rec);
}

/* The columns of on_usdt()'s lines. */
#define USDT_HEADER "TIME(s)      PID     TID     COMM             PROBE                    ARGS"

/* A --usdt hit: its line as it comes, and counted under its stack. */
static void on_usdt(struct growth *g, const struct memtrace_ev_usdt *r)
{
	/* The site's own specs: sites of one probe may place its arguments differently. */
	const struct usdt_site *site = r->probe < (uint32_t)g->nr_usdt ? &g->usdt[r->probe] : NULL;
	char comm[MEMTRACE_COMM_LEN + 1];
	char args[768];

	mt_comm(comm, r->comm);
	usdt_format_args(args, sizeof(args), r, site ? site->args : NULL,
			 site ? site->unsupported : 0);
	/* --folded on stdout takes the place of the text: the hits are counted only. */
	if (g->text)
		fprintf(g->text, "%-12.6f %-7" PRIu32 " %-7" PRIu32 " %-16s %-24s %s\n",
			r->ts_ns >= g->start_ns ? (double)(r->ts_ns - g->start_ns) / 1e9 : 0.0,
			r->pid, r->tid, comm, g->usdt_label, args);
	if (g->json) {
		time_t when = (time_t)(((int64_t)r->ts_ns + g->mono_to_real_ns) / 1000000000LL);
		char hms[16];

		mt_hms(when, hms, sizeof(hms));
		evjson_emit(g->json, usdt_hit_json(r, site, g->usdt_label, g->start_ns, hms));
	}
	g->arg_faults += r->arg_faults != 0;
	sym_seen(g, (int)r->pid);
	g->calls++;
	if (growth_agg_add_usdt(g->agg, r))
		g->agg_full++;
}

/* A page fault: counted under its stack (--faults) or its file (--ffaults, by_file). */
static void count_fault(struct growth *g, const struct memtrace_ev_hdr *h, bool by_file)
{
	const struct memtrace_ev_fault *f = (const void *)h;
	int ret;

	if (h->type != MEMTRACE_EVT_FAULT || h->size < sizeof(*f))
		return;
	if (!by_file) {
		sym_seen(g, (int)f->pid);
		ret = growth_agg_add_fault(g->agg, f);
	} else {
		ret = growth_files_add(g->files, f);
	}
	if (ret) {
		g->agg_full++;
		return;
	}
	g->calls++;
	g->major += !!(f->flags & MEMTRACE_FAULT_MAJOR);
}

/*
 * A system call: printed (--mmap, --shm; with its stack, --stacks) or
 * counted under its stack (--brk: brk's growth; --mmap --stacks: mmap's
 * and mremap's).
 */
static void on_call(struct growth *g, const struct memtrace_ev_hdr *h, bool brk)
{
	const struct memtrace_ev_syscall *r = (const void *)h;
	char line[512];

	if (h->size < sizeof(*r) || h->type < MEMTRACE_EVT_MMAP || h->type > MEMTRACE_EVT_SHMCTL)
		return;		/* a type newer than this reader */
	if (!stack_mode(g->o)) {
		uint32_t nr = r->nr_frames;

		if (!growth_format_call(line, sizeof(line), r))
			return;
		if (nr > (h->size - sizeof(*r)) / sizeof(uint64_t))
			nr = (uint32_t)((h->size - sizeof(*r)) / sizeof(uint64_t));
		if (g->o->stacks)
			sym_seen(g, (int)r->pid);
		if (g->text) {
			fprintf(g->text, "%s\n", line);
			/* --shm --stacks: the caller's stack under each call. */
			if (g->o->stacks)
				print_stack(g, r->pid, (const uint64_t *)(r + 1), nr);
		}
		if (g->json)
			emit_call(g, r, nr);
		if (shm_counts(g->o)) {
			g->calls++;
			if (growth_agg_count(g->agg, r->pid, r->comm, (const uint64_t *)(r + 1), nr, 0, 0))
				g->agg_full++;
		}
		return;
	}
	if (brk ? h->type != MEMTRACE_EVT_BRK :
	    h->type != MEMTRACE_EVT_MMAP && h->type != MEMTRACE_EVT_MREMAP)
		return;
	/* Read the process's mappings while it is there: its stacks resolve later. */
	sym_seen(g, (int)r->pid);
	g->calls++;
	if (growth_agg_add(g->agg, r, growth_bytes(r)))
		g->agg_full++;
}

/* ---- the session ---- */

/* The module's drops: the text's Lost: and Missed: lines, --json's "totals" record. */
static void print_lost(struct growth *g, struct mt_device *dev, const struct evreader *er,
		       bool usdt)
{
	struct memtrace_evstats st;
	unsigned int cpus;
	uint64_t lost = evreader_lost(er, &cpus);
	struct mt_err err;
	char hms[16];
	time_t now = time(NULL);
	json_t *rec, *lost_rec;

	if (g->text)
		evreader_print_lost(er, g->text, "events");
	if (device_evstats(dev, &st, &err)) {
		fprintf(stderr, PROG ": %s\n", err.msg);
		return;
	}
	if (g->text && usdt)
		fprintf(g->text, "Missed: %" PRIu64 " stacks cut short; %" PRIu64
			" hits with an argument whose memory could not be read\n",
			(uint64_t)st.stack_faults, g->arg_faults);
	else if (g->text)
		fprintf(g->text, "Missed: %" PRIu64 " events (kretprobe instances exhausted); %"
			PRIu64 " stacks cut short; %" PRIu64 " mapped files not named\n",
			(uint64_t)st.probe_missed, (uint64_t)st.stack_faults,
			(uint64_t)st.file_unknown);
	/* -p/-c: how the stacks were walked (a module of before ver1 does not say). */
	if (g->text && (g->o->pid || g->o->cmd_argv) && shows_call_stacks(g->o) &&
	    st.size >= MEMTRACE_EVSTATS_SIZE_VER1)
		report_unwind(g->text, &st.unwind);
	if (!g->json)
		return;
	mt_hms(now, hms, sizeof(hms));
	rec = evjson_record(evjson_mode_name(g->o->mode), "totals", hms);
	/* As the text's Missed: line says it: --usdt's has its own terms. */
	if (usdt)
		lost_rec = json_pack("{s:o, s:o, s:o}", "events", evjson_u64(lost),
				     "stacks_cut", evjson_u64(st.stack_faults),
				     "args_unread", evjson_u64(g->arg_faults));
	else
		lost_rec = json_pack("{s:o, s:o, s:o, s:o}", "events", evjson_u64(lost),
				     "probe_missed", evjson_u64(st.probe_missed),
				     "stacks_cut", evjson_u64(st.stack_faults),
				     "files_unnamed", evjson_u64(st.file_unknown));
	if (!rec) {
		json_decref(lost_rec);
	} else if (json_object_set_new(rec, "lost", lost_rec)) {
		json_decref(rec);
		rec = NULL;
	}
	evjson_emit(g->json, rec);
}

/*
 * A module that walks the growth modes' stacks by the tables reports
 * those walks (evstats grown to MEMTRACE_EVSTATS_SIZE_VER1); an older
 * one, with tables for user mode only, does not.
 */
static bool module_walks_growth_by_tables(struct mt_device *dev)
{
	struct memtrace_evstats st;
	struct mt_err ignored;

	return (dev->version.features & MEMTRACE_FEAT_UNWIND_CFI) &&
	       !device_evstats(dev, &st, &ignored) && st.size >= MEMTRACE_EVSTATS_SIZE_VER1;
}

/*
 * -p/-c: the module walks the calls' user stacks with the unwind tables
 * of the process's code, as user mode's (--unwind=auto|cfi|fp,
 * usermode.h), where it has them; by frame pointers elsewhere.  The
 * module takes tables for its target only: the process is named one
 * (MEMTRACE_IOC_TARGET, which arms no probe by itself), before tracing
 * starts.  With auto, a process the module will not take as a target
 * has its stacks walked by frame pointers, said; with cfi, an error.
 */
static int unwind_setup(struct growth *g, struct mt_device *dev, pid_t pid, struct mt_err *err)
{
	const struct mt_options *o = g->o;
	int ret;

	if (!pid || !shows_call_stacks(o) || o->unwind == MT_UNWIND_FP)
		return 0;
	if (!module_walks_growth_by_tables(dev)) {
		if (o->unwind == MT_UNWIND_CFI)
			return mt_errf(err, EOPNOTSUPP, "--unwind=cfi: this memtrace.ko walks the "
				       "stacks of system calls and faults by frame pointers only");
		return 0;
	}
	g->um = usermode_new(NULL, 0);
	if (!g->um)
		return mt_errf(err, ENOMEM, "out of memory");
	ret = usermode_set_unwind(g->um, o->unwind, dev, err);
	if (!ret)
		ret = device_set_target(dev, pid, false, err);
	if (ret) {
		usermode_free(g->um);
		g->um = NULL;
		if (o->unwind == MT_UNWIND_CFI)
			return ret;
		fprintf(stderr, PROG ": warning: %s; its stacks are walked by frame pointers\n",
			err->msg);
		return 0;
	}
	return 0;
}

/*
 * An ia32 program makes its system calls through the 32-bit entry points,
 * which the module does not probe, and its stacks are not x86-64's: said
 * once, rather than a report that silently shows nothing.  (An x32 one,
 * ELFCLASS32 too but EM_X86_64, runs in long mode: its mmap, munmap,
 * mremap and brk are the x86-64 ones.)
 */
static void warn_32bit(struct growth *g, pid_t pid)
{
	GElf_Ehdr ehdr;
	char path[64];
	Elf *elf;
	int fd;

	if (g->warned_32bit)
		return;
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf && gelf_getclass(elf) == ELFCLASS32 && gelf_getehdr(elf, &ehdr) &&
	    ehdr.e_machine == EM_386) {
		fprintf(stderr, PROG ": warning: pid %d runs a 32-bit program: its system calls "
			"are not seen (only x86-64 ones are), its page faults have no stack "
			"past their PC\n", (int)pid);
		g->warned_32bit = true;
	}
	elf_end(elf);
	close(fd);
}

/* The tables of the code pid maps now (an image exec'd, a dlopen: before it runs). */
static void unwind_tables(struct growth *g, pid_t pid)
{
	struct mt_err err;

	if (usermode_unwind_process(g->um, g->dev, pid, &err))
		fprintf(stderr, PROG ": pid %d: unwind tables: %s\n", (int)pid, err.msg);
}

/* --usdt: the probe's sites in its object; -errno, said. */
static int find_usdt(struct growth *g, const struct mt_options *o)
{
	char path[4096], provider[USDT_NAME_LEN], name[USDT_NAME_LEN];
	struct mt_err err;
	int n;

	n = usdt_parse_probe(o->usdt, path, sizeof(path), provider, name, &err);
	if (!n)
		n = usdt_find(path, provider, name, g->usdt, MT_ARRAY_SIZE(g->usdt), &err);
	if (n < 0) {
		fprintf(stderr, PROG ": %s\n", err.msg);
		return n;
	}
	g->nr_usdt = n;
	snprintf(g->usdt_label, sizeof(g->usdt_label), "%s:%s", provider, name);
	for (int i = 0; i < n; i++)
		if (g->usdt[i].unsupported)
			fprintf(stderr, PROG ": %s at 0x%" PRIx64 ": arguments '%s': those "
				"shown as ? are not decoded (a symbol, an index register or "
				"a segment)\n", g->usdt_label, g->usdt[i].pc, g->usdt[i].specs);
	return 0;
}

/* Hands the sites over, each as the object's descriptor and its offsets. */
static int add_usdt(struct growth *g, struct mt_device *dev, struct mt_err *err)
{
	char path[4096], provider[USDT_NAME_LEN], name[USDT_NAME_LEN];
	int fd, ret = 0;

	if (usdt_parse_probe(g->o->usdt, path, sizeof(path), provider, name, err))
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return mt_errf(err, errno, "%s: %s", path, strerror(errno));
	for (int i = 0; i < g->nr_usdt && !ret; i++) {
		struct memtrace_usdt u;

		memset(&u, 0, sizeof(u));
		u.fd = fd;
		u.offset = g->usdt[i].offset;
		u.ref_ctr_offset = g->usdt[i].ref_ctr_offset;
		u.probe = (uint32_t)i;
		u.nr_args = g->usdt[i].nr_args;
		memcpy(u.args, g->usdt[i].args, sizeof(u.args));
		ret = device_usdt(dev, &u, err);
	}
	/* The module holds its own reference to the file. */
	close(fd);
	return ret;
}

/* ---- the rows: what the growth modes do beyond the driver ---- */

/* The device open: the state (and --usdt's sites, usdt_init()). */
static int growth_init(struct mt_driver *d)
{
	struct growth *g = calloc(1, sizeof(*g));

	d->state = g;
	if (!g || !(g->agg = growth_agg_new()) || !(g->files = growth_files_new())) {
		fprintf(stderr, PROG ": out of memory\n");
		return -1;
	}
	g->o = d->o;
	g->text = d->text;
	g->drains = &d->drains;
	g->mono_to_real_ns = mt_realtime_offset_ns();
	return 0;
}

/*
 * -p/-c: the process's unwind tables (-c: its image's once it exec'd,
 * process_news()); what its calls' times count from.
 */
/* What the calls' times count from: taken last before the start. */
static void mark_start(struct growth *g)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	g->start_ns = (uint64_t)now.tv_sec * 1000000000ULL + (uint64_t)now.tv_nsec;
}

static int growth_attach(struct mt_driver *d, struct mt_err *err)
{
	struct growth *g = d->state;
	const struct mt_options *o = d->o;
	int ret;

	g->dev = &d->dev;
	ret = unwind_setup(g, &d->dev, d->pid, err);
	if (!ret && g->um && o->pid)
		unwind_tables(g, d->pid);
	if (!ret && o->pid)
		warn_32bit(g, d->pid);
	mark_start(g);
	return ret;
}

static void growth_start_failed(struct mt_driver *d, int ret, const struct mt_err *err)
{
	if (d->o->pid && ret == -ESRCH)
		fprintf(stderr, PROG ": pid %d: no such process\n", d->o->pid);
	else
		fprintf(stderr, PROG ": %s\n", err->msg);
}

static int growth_setup(struct mt_driver *d)
{
	struct growth *g = d->state;

	g->json = d->json.f;
	g->er = &d->er;
	if (d->o->pid && shows_call_stacks(d->o))
		sym_of(g, d->o->pid, true);
	return 0;
}

static void call_record(struct mt_driver *d, const struct memtrace_ev_hdr *h)
{
	on_call(d->state, h, false);
}

static void brk_record(struct mt_driver *d, const struct memtrace_ev_hdr *h)
{
	on_call(d->state, h, true);
}

static void faults_record(struct mt_driver *d, const struct memtrace_ev_hdr *h)
{
	count_fault(d->state, h, false);
}

static void ffaults_record(struct mt_driver *d, const struct memtrace_ev_hdr *h)
{
	count_fault(d->state, h, true);
}

/* -c: the command exec'd, its loader mapped code, or it is exiting. */
static void growth_process_news(struct mt_driver *d, const struct spawn_event *ev)
{
	struct growth *g = d->state;

	if (ev->kind == SPAWN_EV_IMAGE)
		warn_32bit(g, ev->pid);
	if (g->um && ev->kind != SPAWN_EV_EXITING)
		unwind_tables(g, ev->pid);
	if (shows_call_stacks(g->o)) {
		/* Its calls so far name their processes' symbols first. */
		driver_drain(d, false);
		sym_refresh(g, ev->pid);
	}
}

static int growth_interval(struct mt_driver *d, bool signalled)
{
	struct growth *g = d->state;

	if (signalled || d->ended)
		return 0;
	/*
	 * -p sees no dlopen() or exec happen: objects mapped since get
	 * their tables now, each interval (those handed over before are
	 * not again); their calls before this were walked without.
	 */
	if (g->um && d->o->pid) {
		struct mt_err gone;	/* it may have ended since */

		usermode_unwind_process(g->um, &d->dev, d->pid, &gone);
	}
	if (interval_reports(d->o))
		report(g);
	return 0;
}

/* The last report (the calls since the last), the drops; usdt: in --usdt's terms. */
static int end_report(struct mt_driver *d, int status, bool usdt)
{
	struct growth *g = d->state;

	if (interval_reports(d->o) && !status &&
	    (g->printed_at != g->calls || !g->calls || d->ended))
		report(g);
	if (usdt && !status)
		report(g);
	if (d->er.map)
		print_lost(g, &d->dev, &d->er, usdt);
	if (!status && g->write_failed)
		status = 1;
	return status;
}

static int growth_end(struct mt_driver *d, int status)
{
	return end_report(d, status, false);
}

static void growth_fini(struct mt_driver *d)
{
	struct growth *g = d->state;

	if (!g)
		return;
	for (unsigned int i = 0; i < g->nr_syms; i++)
		usyms_free(g->syms[i].u);
	usermode_free(g->um);
	growth_agg_free(g->agg);
	growth_files_free(g->files);
	free(g);
	d->state = NULL;
}

/* With --json or --folded on stdout the banner goes to stderr. */
static void tracing_banner(struct mt_driver *d, const char *what)
{
	fprintf(d->text ? d->text : stderr, "Tracing %s %s, Ctrl+C to quit.\n", what,
		d->pid ? "of one process" : "system-wide");
}

/* The line modes: their column headers. */
static void mmap_banner(struct mt_driver *d)
{
	if (d->o->stacks)
		tracing_banner(d, "bytes mapped");
	else if (d->text)
		fprintf(d->text, "%s\n", growth_call_header(false));
}

static void shm_banner(struct mt_driver *d)
{
	if (d->text)
		fprintf(d->text, "%s\n", growth_call_header(true));
}

static void brk_banner(struct mt_driver *d)
{
	tracing_banner(d, "brk growth");
}

static void faults_banner(struct mt_driver *d)
{
	tracing_banner(d, "page faults by stack");
}

static void ffaults_banner(struct mt_driver *d)
{
	tracing_banner(d, "page faults by file");
}

/* ---- --usdt: its sites found before, handed over at attach, its hits' report at the end ---- */

static int usdt_init(struct mt_driver *d)
{
	return growth_init(d) || find_usdt(d->state, d->o) < 0 ? -1 : 0;
}

static int usdt_attach(struct mt_driver *d, struct mt_err *err)
{
	int ret = growth_attach(d, err);

	if (!ret)
		ret = add_usdt(d->state, &d->dev, err);
	if (!ret)
		mark_start(d->state);
	return ret;
}

static void usdt_start_failed(struct mt_driver *d, int ret, const struct mt_err *err)
{
	const struct growth *g = d->state;

	if (ret == -EPERM && !d->pid)
		fprintf(stderr, PROG ": --usdt system-wide sets breakpoints and raises "
			"semaphores in every process mapping %s: it needs CAP_SYS_ADMIN, "
			"as perf's uprobes do (-p or -c trace one process)\n", g->usdt_label);
	else if (ret == -EPERM)
		fprintf(stderr, PROG ": --usdt: %s: ptrace could not attach to that "
			"process, nor may memtrace probe it\n", err->msg);
	else
		growth_start_failed(d, ret, err);
}

static void usdt_banner(struct mt_driver *d)
{
	const struct growth *g = d->state;

	/* With --json or --folded on stdout the banner goes to stderr. */
	if (d->text)
		fprintf(d->text, "Tracing %s (%d site%s) %s, Ctrl+C to quit.\n%s\n", g->usdt_label,
			g->nr_usdt, g->nr_usdt == 1 ? "" : "s",
			d->pid ? "in one process" : "system-wide", USDT_HEADER);
	else
		fprintf(stderr, "Tracing %s (%d site%s) %s, Ctrl+C to quit.\n", g->usdt_label,
			g->nr_usdt, g->nr_usdt == 1 ? "" : "s",
			d->pid ? "in one process" : "system-wide");
}

static void usdt_record(struct mt_driver *d, const struct memtrace_ev_hdr *h)
{
	if (h->type == MEMTRACE_EVT_USDT && h->size >= sizeof(struct memtrace_ev_usdt))
		on_usdt(d->state, (const void *)h);
}

/* Its hits' report at the end only. */
static int usdt_end(struct mt_driver *d, int status)
{
	return end_report(d, status, true);
}

/* What every growth row has; each names its own init, attach, start_failed, end. */
#define GROWTH_ROW								\
	.process = true, .totals = true, .setup = growth_setup,			\
	.process_news = growth_process_news,		\
	.interval = growth_interval, .fini = growth_fini

/* The rows of the modes that probe system calls and faults. */
#define SYSCALL_ROW								\
	.missing = "its system calls cannot be probed (see dmesg)",		\
	.init = growth_init, .attach = growth_attach,				\
	.start_failed = growth_start_failed, .end = growth_end, GROWTH_ROW

/*
 * Faults come in bursts (a page at a time, thousands as a program
 * starts): the largest rings the budget allows, at least the module's
 * default (16 pages) each.
 */
#define FAULT_EVRING_MIN_PAGES	16

const struct mt_mode_row growth_mmap_row = {
	.mode = MT_MODE_MMAP, .option = "--mmap", .events = MEMTRACE_EV_MMAP,
	.banner = mmap_banner, .record = call_record, SYSCALL_ROW,
};

const struct mt_mode_row growth_brk_row = {
	.mode = MT_MODE_BRK, .option = "--brk", .events = MEMTRACE_EV_BRK,
	.banner = brk_banner, .record = brk_record, SYSCALL_ROW,
};

const struct mt_mode_row growth_shm_row = {
	.mode = MT_MODE_SHM, .option = "--shm", .events = MEMTRACE_EV_SHM,
	.banner = shm_banner, .record = call_record, SYSCALL_ROW,
};

const struct mt_mode_row growth_faults_row = {
	.mode = MT_MODE_FAULTS, .option = "--faults", .events = MEMTRACE_EV_FAULT,
	.evring_min_pages = FAULT_EVRING_MIN_PAGES, .banner = faults_banner,
	.record = faults_record, SYSCALL_ROW,
};

const struct mt_mode_row growth_ffaults_row = {
	.mode = MT_MODE_FFAULTS, .option = "--ffaults", .events = MEMTRACE_EV_FFAULT,
	.evring_min_pages = FAULT_EVRING_MIN_PAGES, .banner = ffaults_banner,
	.record = ffaults_record, SYSCALL_ROW,
};

const struct mt_mode_row growth_usdt_row = {
	.mode = MT_MODE_USDT, .option = "--usdt", .events = MEMTRACE_EV_USDT,
	.missing = "no uprobes", .init = usdt_init, .attach = usdt_attach,
	.start_failed = usdt_start_failed, .banner = usdt_banner, .record = usdt_record,
	.end = usdt_end, GROWTH_ROW,
};
