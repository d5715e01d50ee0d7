// SPDX-License-Identifier: GPL-2.0
/*
 * Building the report model (rmodel.h).  Stacks are chosen and ranked by
 * the text report's own code (report_rank(), slabview_rows()) so that
 * every format shows what the text shows; frames are symbolized into
 * parts by frames.c, as the text report's own are.
 */
#include "rmodel.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "images.h"
#include "slabview.h"

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

int rmodel_add_user_frame(struct rm_stack *st, size_t *cap, const struct rm_frame *f,
			  struct usyms *us)
{
	return rmodel_add_frame(&st->frames, &st->nr_frames, cap, f, us);
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
