// SPDX-License-Identifier: GPL-2.0
/*
 * Rows are (cache name, stack) pairs built from the stat records of kind
 * CACHE and KMALLOC; kmalloc records carry the kmalloc-N cache the module
 * found, so they group with that cache.  Grouping is by name, not cache
 * id, because the name is what the user knows and asks for with --cache.
 * Snapshots for this view use min_age 0, so "old" counters cover every live
 * object, and their sampling estimates apply.
 */
#include "slabview.h"
#include "slabalias.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct slab_state {
	struct slab_row *rows;	/* previous interval, by (name, stack) */
	size_t nr;
	struct slab_row *caches;	/* previous per-cache totals, by name */
	size_t nr_caches;
};

struct slab_state *slab_state_new(void)
{
	return calloc(1, sizeof(struct slab_state));
}

void slab_state_free(struct slab_state *st)
{
	if (!st)
		return;
	free(st->rows);
	free(st->caches);
	free(st);
}

void slabview_preamble(FILE *out)
{
	fprintf(out, "Attaching to kernel slab allocators, Ctrl+C to quit.\n");
	fprintf(out, "Caches merged by SLUB appear under the name the kernel gives the merged cache, "
		"with their other names.\n");
	fprintf(out, "Objects and bytes count the allocations traced since memtrace started, "
		"not whole caches.\n");
}

static int row_cmp(const void *a, const void *b)
{
	const struct slab_row *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return x->stack_id < y->stack_id ? -1 : x->stack_id > y->stack_id;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(((const struct slab_row *)a)->name, ((const struct slab_row *)b)->name);
}

static void cache_name(const struct mt_snapshot *snap, uint16_t id, struct slab_row *row)
{
	const struct memtrace_cache_rec *c = snapshot_cache(snap, id);

	if (c) {
		snprintf(row->name, sizeof(row->name), "%s", c->name);
		row->object_size = c->object_size;
	} else if (id == MEMTRACE_CACHE_NONE) {
		snprintf(row->name, sizeof(row->name), "[no named cache]");
	} else {
		snprintf(row->name, sizeof(row->name), "[cache %u]", id);
	}
}

int slabview_rows(const struct mt_snapshot *snap, struct slab_row **out, size_t *nr_out)
{
	int sampled = snapshot_sampled(snap);
	struct slab_row *rows = calloc(snap->nr_stats ? snap->nr_stats : 1, sizeof(*rows));
	size_t n = 0, merged = 0;

	if (!rows)
		return -ENOMEM;
	for (size_t i = 0; i < snap->nr_stats; i++) {
		const struct memtrace_stat_rec *r = &snap->stats[i];

		if (r->kind != MEMTRACE_KIND_CACHE && r->kind != MEMTRACE_KIND_KMALLOC)
			continue;
		cache_name(snap, r->cache_id, &rows[n]);
		rows[n].stack_id = r->stack_id;
		rows[n].count = sampled ? r->est_old_count : r->old_count;
		rows[n].bytes = sampled ? r->est_old_bytes : r->old_bytes;
		n++;
	}
	qsort(rows, n, sizeof(*rows), row_cmp);
	for (size_t i = 0; i < n; i++) {
		if (merged && !row_cmp(&rows[merged - 1], &rows[i])) {
			rows[merged - 1].count += rows[i].count;
			rows[merged - 1].bytes += rows[i].bytes;
		} else {
			rows[merged++] = rows[i];
		}
	}
	*out = rows;
	*nr_out = merged;
	return 0;
}

/* Per-cache sums of sorted rows (the rows of one cache are adjacent). */
static int sum_caches(const struct slab_row *rows, size_t nr, struct slab_row **out,
		      size_t *nr_out)
{
	struct slab_row *c = calloc(nr ? nr : 1, sizeof(*c));
	size_t n = 0;

	if (!c)
		return -ENOMEM;
	for (size_t i = 0; i < nr; i++) {
		if (!n || strcmp(c[n - 1].name, rows[i].name)) {
			c[n] = rows[i];
			c[n].stack_id = 0;
			n++;
		} else {
			c[n - 1].count += rows[i].count;
			c[n - 1].bytes += rows[i].bytes;
			if (!c[n - 1].object_size)
				c[n - 1].object_size = rows[i].object_size;
		}
	}
	*out = c;
	*nr_out = n;
	return 0;
}

struct cache_line {
	const struct slab_row *now;	/* NULL: the cache emptied */
	const struct slab_row *prev;	/* NULL: new this interval */
	int64_t d_count, d_bytes;
	uint64_t key;			/* sort key */
};

static int line_cmp(const void *a, const void *b)
{
	const struct cache_line *x = a, *y = b;
	const char *xn = x->now ? x->now->name : x->prev->name;
	const char *yn = y->now ? y->now->name : y->prev->name;

	if (x->key != y->key)
		return x->key > y->key ? -1 : 1;
	return strcmp(xn, yn);
}

struct growth {
	uint32_t stack_id;
	int64_t d_bytes, d_count;
};

static int growth_cmp(const void *a, const void *b)
{
	const struct growth *x = a, *y = b;

	if (x->d_bytes != y->d_bytes)
		return x->d_bytes > y->d_bytes ? -1 : 1;
	return x->stack_id < y->stack_id ? -1 : x->stack_id > y->stack_id;
}

static const struct slab_row *find(const struct slab_row *rows, size_t nr,
				   const struct slab_row *key, int (*cmp)(const void *, const void *))
{
	return nr ? bsearch(key, rows, nr, sizeof(*rows), cmp) : NULL;
}

/* The stacks of one cache that grew most since the previous interval
 * (none printed when no stack grew). */
static void print_growth(FILE *out, const struct mt_snapshot *snap, const struct slab_state *st,
			 const struct slab_row *rows, size_t nr, const char *name,
			 struct ksyms *ks)
{
	struct slab_row key;
	struct growth top[SLABVIEW_TOP_STACKS];
	size_t nr_top = 0, i;

	memset(&key, 0, sizeof(key));
	snprintf(key.name, sizeof(key.name), "%s", name);
	/* First row of this cache: rows are sorted by (name, stack). */
	for (i = 0; i < nr && strcmp(rows[i].name, name) < 0; i++)
		;
	for (; i < nr && !strcmp(rows[i].name, name); i++) {
		const struct slab_row *prev;
		struct growth g;

		key.stack_id = rows[i].stack_id;
		prev = find(st->rows, st->nr, &key, row_cmp);
		g.stack_id = rows[i].stack_id;
		g.d_bytes = (int64_t)(rows[i].bytes - (prev ? prev->bytes : 0));
		g.d_count = (int64_t)(rows[i].count - (prev ? prev->count : 0));
		if (g.d_bytes <= 0)
			continue;
		/* Keep the best SLABVIEW_TOP_STACKS, sorted, replacing the last. */
		if (nr_top == SLABVIEW_TOP_STACKS) {
			if (growth_cmp(&g, &top[nr_top - 1]) >= 0)
				continue;
			nr_top--;
		}
		top[nr_top++] = g;
		qsort(top, nr_top, sizeof(top[0]), growth_cmp);
	}
	for (i = 0; i < nr_top; i++) {
		fprintf(out, "\t%+" PRId64 " bytes, %+" PRId64 " objects from stack\n",
			top[i].d_bytes, top[i].d_count);
		report_stack(out, snap, top[i].stack_id, ks, NULL, "\t\t", NULL);
	}
}

int slabview_report(FILE *out, const struct mt_snapshot *snap, struct slab_state *st,
		    const struct report_ctx *ctx)
{
	const struct mt_options *o = ctx->opts;
	struct slab_row *rows = NULL, *caches = NULL;
	struct cache_line *lines = NULL;
	size_t nr_rows, nr_caches, nr_lines = 0, shown;
	int ret;

	ret = slabview_rows(snap, &rows, &nr_rows);
	if (!ret)
		ret = sum_caches(rows, nr_rows, &caches, &nr_caches);
	if (!ret) {
		lines = calloc(nr_caches + st->nr_caches + 1, sizeof(*lines));
		if (!lines)
			ret = -ENOMEM;
	}
	if (ret) {
		free(rows);
		free(caches);
		return ret;
	}

	/* Caches now, then caches that were there and are now gone. */
	for (size_t i = 0; i < nr_caches; i++) {
		struct cache_line *l = &lines[nr_lines];

		l->now = &caches[i];
		l->prev = find(st->caches, st->nr_caches, &caches[i], name_cmp);
		l->d_count = (int64_t)(caches[i].count - (l->prev ? l->prev->count : 0));
		l->d_bytes = (int64_t)(caches[i].bytes - (l->prev ? l->prev->bytes : 0));
		if (!caches[i].count && !caches[i].bytes && !l->d_count && !l->d_bytes)
			continue;
		l->key = o->sort == MT_SORT_COUNT ? caches[i].count : caches[i].bytes;
		nr_lines++;
	}
	for (size_t i = 0; i < st->nr_caches; i++) {
		struct cache_line *l = &lines[nr_lines];

		if (find(caches, nr_caches, &st->caches[i], name_cmp) ||
		    (!st->caches[i].count && !st->caches[i].bytes))
			continue;
		l->prev = &st->caches[i];
		l->d_count = -(int64_t)st->caches[i].count;
		l->d_bytes = -(int64_t)st->caches[i].bytes;
		nr_lines++;
	}
	qsort(lines, nr_lines, sizeof(*lines), line_cmp);
	shown = nr_lines < o->top ? nr_lines : o->top;

	fprintf(out, "[%s] Top %u slab caches by live %s:\n", ctx->timestamp, o->top,
		o->sort == MT_SORT_COUNT ? "objects" : "bytes");
	fprintf(out, "%-31s %8s %11s %13s %11s %13s\n", "CACHE", "OBJSIZE", "OBJECTS", "BYTES",
		"+/-OBJECTS", "+/-BYTES");
	for (size_t i = 0; i < shown; i++) {
		const struct cache_line *l = &lines[i];
		const struct slab_row *c = l->now ? l->now : l->prev;
		char objsize[16], aliases[512];

		if (c->object_size)
			snprintf(objsize, sizeof(objsize), "%u", c->object_size);
		else
			snprintf(objsize, sizeof(objsize), "-");
		fprintf(out, "%-31s %8s %11llu %13llu %+11" PRId64 " %+13" PRId64 "\n", c->name,
			objsize, (unsigned long long)(l->now ? l->now->count : 0),
			(unsigned long long)(l->now ? l->now->bytes : 0), l->d_count, l->d_bytes);
		if (slab_aliases(c->name, aliases, sizeof(aliases)))
			fprintf(out, "\t(merged with: %s)\n", aliases);
		/* Even a cache that shrank overall can hide a stack that grows. */
		if (l->now)
			print_growth(out, snap, st, rows, nr_rows, c->name, ctx->ksyms);
	}
	report_footer(out, snap, ctx->ksyms);
	fputc('\n', out);

	/* This interval becomes the previous one. */
	free(st->rows);
	free(st->caches);
	st->rows = rows;
	st->nr = nr_rows;
	st->caches = caches;
	st->nr_caches = nr_caches;
	free(lines);
	return 0;
}
