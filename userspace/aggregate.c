// SPDX-License-Identifier: GPL-2.0
#include "aggregate.h"

#include <errno.h>
#include <stdlib.h>

static int key_cmp(const void *a, const void *b)
{
	uint64_t x = stack_total_key(a), y = stack_total_key(b);

	return x < y ? -1 : x > y;
}

int aggregate_by_stack(const struct mt_snapshot *snap, unsigned int kind_mask,
		       struct stack_total **out, size_t *nr_out)
{
	int sampled = snapshot_sampled(snap);
	struct stack_total *t;
	size_t n = 0;

	t = calloc(snap->nr_stats ? snap->nr_stats : 1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	for (size_t i = 0; i < snap->nr_stats; i++) {
		const struct memtrace_stat_rec *r = &snap->stats[i];

		if (r->kind >= 32 || !(kind_mask & KIND_BIT(r->kind)))
			continue;
		t[n].stack_id = r->stack_id;
		if (r->kind == MEMTRACE_KIND_USER || r->kind == MEMTRACE_KIND_USER_MMAP)
			t[n].image = r->cache_id;
		t[n].old_count_recorded = r->old_count;
		t[n].old_bytes_recorded = r->old_bytes;
		/* Under sampling each record stands for several allocations. */
		t[n].old_count = sampled ? r->est_old_count : r->old_count;
		t[n].old_bytes = sampled ? r->est_old_bytes : r->old_bytes;
		t[n].live_count = r->live_count;
		t[n].live_bytes = r->live_bytes;
		t[n].total_allocs = r->total_allocs;
		t[n].total_bytes = r->total_bytes;
		t[n].frees = r->frees;
		n++;
	}
	qsort(t, n, sizeof(*t), key_cmp);

	/* Merge runs of the same stack in place. */
	size_t merged = 0;

	for (size_t i = 0; i < n; i++) {
		struct stack_total *m;

		if (merged && stack_total_key(&t[merged - 1]) == stack_total_key(&t[i])) {
			m = &t[merged - 1];
			m->old_count += t[i].old_count;
			m->old_bytes += t[i].old_bytes;
			m->old_count_recorded += t[i].old_count_recorded;
			m->old_bytes_recorded += t[i].old_bytes_recorded;
			m->live_count += t[i].live_count;
			m->live_bytes += t[i].live_bytes;
			m->total_allocs += t[i].total_allocs;
			m->total_bytes += t[i].total_bytes;
			m->frees += t[i].frees;
		} else {
			t[merged++] = t[i];
		}
	}
	*out = t;
	*nr_out = merged;
	return 0;
}

const struct stack_total *stack_total_find(const struct stack_total *totals, size_t nr,
					   uint32_t image, uint32_t stack_id)
{
	struct stack_total key = { .stack_id = stack_id, .image = image };

	if (!nr)
		return NULL;
	return bsearch(&key, totals, nr, sizeof(key), key_cmp);
}
