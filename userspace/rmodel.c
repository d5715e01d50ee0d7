// SPDX-License-Identifier: GPL-2.0
/*
 * Building the report model (rmodel.h).  Stacks are chosen and ranked by
 * the text report's own code (report_rank(), slabview_rows()) so that
 * every format shows what the text shows; frames are symbolized by the
 * same symbolizers, and their text split into parts here.
 */
#include "rmodel.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "images.h"
#include "kfmemo.h"
#include "slabview.h"

#define FRAME_LINES	8	/* a frame and the functions inlined at it */
#define FRAME_LINE_LEN	600

const char *rmodel_mode_name(enum rm_mode mode)
{
	switch (mode) {
	case RM_KERNEL_LEAKS:
		return "kernel-leaks";
	case RM_USER_LEAKS:
		return "user-leaks";
	case RM_SLAB:
		return "slab";
	case RM_GROWTH:
		return "growth";
	}
	return "?";
}

const char *rmodel_name(const struct report_model *m)
{
	return m->mode == RM_GROWTH && m->growth_mode ? m->growth_mode : rmodel_mode_name(m->mode);
}

static char *dup_n(const char *s, size_t n)
{
	char *d = malloc(n + 1);

	if (d) {
		memcpy(d, s, n);
		d[n] = '\0';
	}
	return d;
}

static bool all_digits(const char *s, size_t n)
{
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return false;
	return true;
}

static bool hex_number(const char *s, size_t n, uint64_t *v)
{
	char buf[24];

	if (n < 3 || n > 18 || s[0] != '0' || s[1] != 'x')
		return false;
	for (size_t i = 2; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	memcpy(buf, s, n);
	buf[n] = '\0';
	*v = strtoull(buf, NULL, 16);
	return true;
}

/*
 * The formats, from the right: an optional " (inlined)", an optional
 * " FILE:LINE" (usyms, with DWARF), " [MODULE]", and on the left either
 * "FUNCTION+0xOFF", a bare "FUNCTION" (inlined), or "0xADDRESS" (no
 * function).  The module is the last " [...]" before the end or the
 * source line: function names may hold brackets (C++'s operator[]).
 */
int rmodel_parse_frame(const char *text, struct rm_frame *f)
{
	size_t len = strlen(text), end = len;
	const char *open, *p;
	uint64_t v;

	f->function = f->module = f->file = NULL;
	f->offset = 0;
	f->line = 0;
	f->inlined = false;
	if (end >= 10 && !strcmp(text + end - 10, " (inlined)")) {
		f->inlined = true;
		end -= 10;
	}
	/* " FILE:LINE" after the module's "]". */
	if (end && text[end - 1] != ']') {
		const char *sp = NULL, *colon;

		for (p = text + end; p > text; p--)
			if (p[-1] == ' ') {
				sp = p - 1;
				break;
			}
		colon = sp ? memrchr(sp, ':', (size_t)(text + end - sp)) : NULL;
		if (colon && sp > text && sp[-1] == ']' &&
		    all_digits(colon + 1, (size_t)(text + end - colon - 1))) {
			f->file = dup_n(sp + 1, (size_t)(colon - sp - 1));
			f->line = (uint32_t)strtoul(colon + 1, NULL, 10);
			if (!f->file)
				return -ENOMEM;
			end = (size_t)(sp - text);
		}
	}
	open = NULL;
	if (end && text[end - 1] == ']')
		for (p = text + end - 1; p > text; p--)
			if (p[-1] == ' ' && p[0] == '[') {
				open = p;
				break;
			}
	if (!open) {
		/* Not one of the formats: the whole text names the function. */
		f->function = dup_n(text, end);
		return f->function ? 0 : -ENOMEM;
	}
	if (strncmp(open, "[unknown]", 9) || open + 9 != text + end) {
		f->module = dup_n(open + 1, (size_t)(text + end - open - 2));
		if (!f->module)
			return -ENOMEM;
	}
	end = (size_t)(open - 1 - text);
	/* "FUNCTION+0xOFF", "FUNCTION", or "0xADDRESS". */
	if (hex_number(text, end, &v))
		return 0;
	for (p = text + end; p > text; p--)
		if (p[-1] == '+')
			break;
	if (p > text && hex_number(p, (size_t)(text + end - p), &v)) {
		f->offset = v;
		end = (size_t)(p - 1 - text);
	}
	f->function = dup_n(text, end);
	return f->function ? 0 : -ENOMEM;
}

static void free_frame(struct rm_frame *f)
{
	if (!f->shared) {
		free(f->text);
		free(f->function);
		free(f->module);
		free(f->file);
	}
	free(f->map_path);
	free(f->build_id);
}

void rmodel_free_frames(struct rm_frame *frames, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		free_frame(&frames[i]);
	free(frames);
}

/* Room for one more frame in *frames. */
static int reserve_frame(struct rm_frame **frames, size_t *nr, size_t *cap)
{
	if (*nr == *cap) {
		size_t n = *cap ? *cap * 2 : 16;
		struct rm_frame *grown = realloc(*frames, n * sizeof(**frames));

		if (!grown)
			return -ENOMEM;
		*frames = grown;
		*cap = n;
	}
	return 0;
}

static int add_frame(struct rm_frame **frames, size_t *nr, size_t *cap, uint64_t addr,
		     const char *text)
{
	struct rm_frame *f;

	if (reserve_frame(frames, nr, cap))
		return -ENOMEM;
	f = &(*frames)[*nr];
	memset(f, 0, sizeof(*f));
	f->addr = addr;
	f->text = strdup(text);
	(*nr)++;
	if (!f->text)
		return -ENOMEM;
	return rmodel_parse_frame(text, f);
}

static int add_mapping(struct rm_frame *f, struct usyms *us)
{
	struct usyms_mapping *m = malloc(sizeof(*m));
	int ret = 0;

	if (!m)
		return -ENOMEM;
	if (usyms_mapping(us, f->addr, m)) {
		f->map_path = strdup(m->path);
		f->build_id = strdup(m->build_id);
		f->map_start = m->start;
		f->map_limit = m->limit;
		f->map_offset = m->offset;
		if (!f->map_path || !f->build_id)
			ret = -ENOMEM;
	}
	free(m);
	return ret;
}

int rmodel_add_user_frame(struct rm_stack *st, size_t *cap, uint64_t addr, const char *text,
			  struct usyms *us)
{
	int ret = add_frame(&st->frames, &st->nr_frames, cap, addr, text);

	if (!ret && us)
		ret = add_mapping(&st->frames[st->nr_frames - 1], us);
	return ret;
}

/*
 * A kernel frame: the snapshot's memo of it, or symbolized (into lines, a
 * FRAME_LINE_LEN buffer) and then kept in the memo.  Many stacks share
 * their frames: a report of 100K stacks looked up, formatted and parsed
 * the same few hundred addresses millions of times.
 */
static int add_kernel_frame(const struct mt_snapshot *snap, uint32_t epoch, uint64_t ip,
			    struct ksyms *ks, struct rm_frame **frames, size_t *nr, size_t *cap,
			    char *lines)
{
	const struct rm_frame *kept;
	int ret;

	kfmemo_symbols(snap->kfmemo, ksyms_loads(ks));
	kept = kfmemo_get(snap->kfmemo, epoch, ip);
	if (kept) {
		ret = reserve_frame(frames, nr, cap);
		if (!ret)
			(*frames)[(*nr)++] = *kept;
		return ret;
	}
	ksyms_format_frame(ks, snap, epoch, ip, lines, FRAME_LINE_LEN);
	ret = add_frame(frames, nr, cap, ip, lines);
	/* The lookup may have loaded the symbols again (the memo retires). */
	kfmemo_symbols(snap->kfmemo, ksyms_loads(ks));
	/* Without room in the memo the frame stays its own. */
	if (!ret && snap->kfmemo)
		kfmemo_put(snap->kfmemo, epoch, ip, &(*frames)[*nr - 1]);
	return ret;
}

int rmodel_frames(const struct mt_snapshot *snap, uint32_t stack_id, struct ksyms *ks,
		  struct usyms *us, struct rm_frame **frames, size_t *nr, const char **note)
{
	static char lines[FRAME_LINES * FRAME_LINE_LEN];
	const struct mt_stack *s;
	size_t cap = 0;
	int ret = 0;

	*frames = NULL;
	*nr = 0;
	*note = NULL;
	if (stack_id == MEMTRACE_STACK_NONE) {
		*note = "[stack not recorded: stack table full]";
		return 0;
	}
	s = snapshot_stack(snap, stack_id);
	if (!s) {
		*note = "[stack missing from the snapshot]";
		return 0;
	}
	if (!s->nr_frames) {
		*note = snap->hdr.flags & MEMTRACE_HDR_KADDR_HIDDEN ?
			"[kernel stack hidden: CAP_SYSLOG needed]" : "[empty stack]";
		return 0;
	}
	for (uint32_t i = 0; i < s->nr_frames && !ret; i++) {
		if (us) {
			size_t n = usyms_format(us, s->ips[i], lines, FRAME_LINE_LEN, FRAME_LINES);

			for (size_t l = 0; l < n && !ret; l++) {
				ret = add_frame(frames, nr, &cap, s->ips[i], lines + l * FRAME_LINE_LEN);
				if (!ret)
					ret = add_mapping(&(*frames)[*nr - 1], us);
			}
			continue;
		}
		ret = add_kernel_frame(snap, s->epoch, s->ips[i], ks, frames, nr, &cap, lines);
	}
	if (ret) {
		rmodel_free_frames(*frames, *nr);
		*frames = NULL;
		*nr = 0;
	}
	return ret;
}

static void model_header(struct report_model *m, const struct mt_snapshot *snap,
			 const struct report_ctx *ctx, enum rm_mode mode)
{
	memset(m, 0, sizeof(*m));
	m->mode = mode;
	snprintf(m->timestamp, sizeof(m->timestamp), "%s", ctx->timestamp);
	m->now_ns = snap->hdr.now_ns;
	m->min_age_ns = snap->hdr.min_age_ns;
	m->sort = ctx->opts->sort;
	m->top = ctx->opts->top;
	m->sampled = snapshot_sampled(snap);
	m->sample_every = snap->hdr.sample_every;
	m->sample_bytes = snap->hdr.sample_bytes;
	if (mode == RM_USER_LEAKS)
		m->pid = snap->hdr.target.pid;
	m->final = ctx->final;
	m->loss = snap->hdr.loss;
	m->activity = snap->hdr.activity;
}

static int fill_frames(struct rm_stack *st, const struct mt_snapshot *snap,
		       const struct report_ctx *ctx, struct usyms *us)
{
	const char *note;
	int ret = rmodel_frames(snap, st->stack_id, ctx->ksyms, us, &st->frames,
				&st->nr_frames, &note);

	if (!ret && note) {
		st->note = strdup(note);
		if (!st->note)
			ret = -ENOMEM;
	}
	return ret;
}

/* Per cache, from the snapshot's rows: kernel modes only. */
static int fill_caches(struct report_model *m, const struct slab_row *rows, size_t nr_rows)
{
	m->caches = calloc(nr_rows ? nr_rows : 1, sizeof(*m->caches));
	if (!m->caches)
		return -ENOMEM;
	/* Rows of a cache are adjacent (sorted by name). */
	for (size_t i = 0; i < nr_rows; i++) {
		if (!m->nr_caches || strcmp(m->caches[m->nr_caches - 1].name, rows[i].name)) {
			m->caches[m->nr_caches].name = strdup(rows[i].name);
			if (!m->caches[m->nr_caches++].name)
				return -ENOMEM;
		}
		m->caches[m->nr_caches - 1].bytes += rows[i].bytes;
		m->caches[m->nr_caches - 1].count += rows[i].count;
	}
	return 0;
}

static int build_leaks(struct report_model *m, const struct mt_snapshot *snap,
		       const struct stack_total *totals, size_t nr_totals,
		       const struct report_ctx *ctx, bool frames);

int rmodel_build_leaks(struct report_model *m, const struct mt_snapshot *snap,
		       const struct stack_total *totals, size_t nr_totals,
		       const struct report_ctx *ctx)
{
	return build_leaks(m, snap, totals, nr_totals, ctx, true);
}

int rmodel_build_leaks_frameless(struct report_model *m, const struct mt_snapshot *snap,
				 const struct stack_total *totals, size_t nr_totals,
				 const struct report_ctx *ctx)
{
	return build_leaks(m, snap, totals, nr_totals, ctx, false);
}

int rmodel_stack_frames(struct rm_stack *st, const struct mt_snapshot *snap,
			const struct report_ctx *ctx)
{
	return fill_frames(st, snap, ctx,
			   ctx->images ? images_usyms(ctx->images, st->image) : NULL);
}

void rmodel_stack_drop_frames(struct rm_stack *st)
{
	rmodel_free_frames(st->frames, st->nr_frames);
	free(st->note);
	st->frames = NULL;
	st->nr_frames = 0;
	st->note = NULL;
}

static int build_leaks(struct report_model *m, const struct mt_snapshot *snap,
		       const struct stack_total *totals, size_t nr_totals,
		       const struct report_ctx *ctx, bool frames)
{
	const struct stack_total **ranked;
	size_t nr, shown;
	int ret;

	model_header(m, snap, ctx, ctx->images ? RM_USER_LEAKS : RM_KERNEL_LEAKS);
	ret = report_rank(snap, totals, nr_totals, ctx, &ranked, &nr);
	if (ret)
		return ret;
	shown = nr < ctx->opts->top ? nr : ctx->opts->top;
	m->stacks = calloc(shown ? shown : 1, sizeof(*m->stacks));
	if (!m->stacks) {
		free(ranked);
		return -ENOMEM;
	}
	for (size_t i = 0; i < shown && !ret; i++) {
		const struct stack_total *t = ranked[i];
		struct rm_stack *st = &m->stacks[m->nr_stacks++];

		st->stack_id = t->stack_id;
		st->image = t->image;
		st->bytes = t->old_bytes;
		st->count = t->old_count;
		st->total_allocs = t->total_allocs;
		st->total_bytes = t->total_bytes;
		st->frees = t->frees;
		m->bytes += st->bytes;
		m->count += st->count;
		if (frames)
			ret = rmodel_stack_frames(st, snap, ctx);
	}
	free(ranked);
	/* The caches: a sort of every counter, which a frameless model's reader skips */
	if (!ret && frames && m->mode == RM_KERNEL_LEAKS) {
		struct slab_row *rows = NULL;
		size_t nr_rows = 0;

		ret = slabview_rows(snap, &rows, &nr_rows);
		if (!ret)
			ret = fill_caches(m, rows, nr_rows);
		free(rows);
	}
	if (ret)
		rmodel_free(m);
	return ret;
}

struct cache_rank {
	const char *name;
	uint64_t count, bytes, key;
};

static int cache_rank_cmp(const void *a, const void *b)
{
	const struct cache_rank *x = a, *y = b;

	if (x->key != y->key)
		return x->key > y->key ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int row_rank_cmp_st(const void *a, const void *b)
{
	const struct rm_stack *x = a, *y = b;

	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return x->stack_id < y->stack_id ? -1 : x->stack_id > y->stack_id;
}

/* The rank of a cache among the first shown ones, or -1. */
static long cache_index(const struct cache_rank *caches, size_t shown, const char *name)
{
	for (size_t i = 0; i < shown; i++)
		if (!strcmp(caches[i].name, name))
			return (long)i;
	return -1;
}

int rmodel_build_slab(struct report_model *m, const struct mt_snapshot *snap,
		      const struct report_ctx *ctx)
{
	struct cache_rank *caches = NULL;
	struct slab_row *rows = NULL;
	size_t nr_rows = 0, nr_caches = 0, shown;
	int ret;

	model_header(m, snap, ctx, RM_SLAB);
	ret = slabview_rows(snap, &rows, &nr_rows);
	if (ret)
		return ret;
	caches = calloc(nr_rows ? nr_rows : 1, sizeof(*caches));
	m->stacks = calloc(nr_rows ? nr_rows : 1, sizeof(*m->stacks));
	if (!caches || !m->stacks) {
		ret = -ENOMEM;
		goto out;
	}
	/* Rows of a cache are adjacent: its totals, ranked as slabview ranks them. */
	for (size_t i = 0; i < nr_rows; i++) {
		if (!nr_caches || strcmp(caches[nr_caches - 1].name, rows[i].name))
			caches[nr_caches++].name = rows[i].name;
		caches[nr_caches - 1].count += rows[i].count;
		caches[nr_caches - 1].bytes += rows[i].bytes;
	}
	for (size_t i = 0; i < nr_caches; i++)
		caches[i].key = m->sort == MT_SORT_COUNT ? caches[i].count : caches[i].bytes;
	qsort(caches, nr_caches, sizeof(*caches), cache_rank_cmp);
	for (shown = 0; shown < nr_caches && shown < ctx->opts->top && caches[shown].key; shown++)
		;
	/* Cache by cache in the report's order, each one's stacks biggest first. */
	for (size_t c = 0; c < shown && !ret; c++) {
		size_t first = m->nr_stacks;

		for (size_t i = 0; i < nr_rows; i++) {
			struct rm_stack *st;

			if (!rows[i].count || cache_index(caches, shown, rows[i].name) != (long)c)
				continue;
			st = &m->stacks[m->nr_stacks++];
			st->stack_id = rows[i].stack_id;
			st->bytes = rows[i].bytes;
			st->count = rows[i].count;
			st->cache = strdup(rows[i].name);
			if (!st->cache)
				ret = -ENOMEM;
			m->bytes += st->bytes;
			m->count += st->count;
		}
		qsort(m->stacks + first, m->nr_stacks - first, sizeof(*m->stacks), row_rank_cmp_st);
	}
	for (size_t i = 0; i < m->nr_stacks && !ret; i++)
		ret = fill_frames(&m->stacks[i], snap, ctx, NULL);
	if (!ret)
		ret = fill_caches(m, rows, nr_rows);
out:
	free(caches);
	free(rows);
	if (ret)
		rmodel_free(m);
	return ret;
}

void rmodel_free(struct report_model *m)
{
	for (size_t i = 0; i < m->nr_stacks; i++) {
		rmodel_free_frames(m->stacks[i].frames, m->stacks[i].nr_frames);
		free(m->stacks[i].cache);
		free(m->stacks[i].note);
		free(m->stacks[i].comm);
	}
	free(m->stacks);
	m->stacks = NULL;
	m->nr_stacks = 0;
	for (size_t i = 0; i < m->nr_caches; i++)
		free(m->caches[i].name);
	free(m->caches);
	m->caches = NULL;
	m->nr_caches = 0;
}
