// SPDX-License-Identifier: GPL-2.0
/*
 * The table is an array sorted by stack key (stack_total_key(): the image
 * and the stack), rebuilt by merging with each
 * interval's totals (also sorted): no hashing, and O(n) per interval.
 * Stacks whose kept history is all zero are dropped: that is exactly what
 * a stack never seen looks like, so memory stays bounded by live stacks.
 */
#include "trend.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct trend_entry {
	uint64_t key;
	uint32_t nr;			/* samples in hist */
	uint64_t hist[TREND_HISTORY];	/* oldest first */
};

struct trend_table {
	struct trend_entry *entries;
	size_t nr;
	uint64_t samples;	/* intervals recorded, plus the empty baseline */
};

struct trend_table *trend_new(void)
{
	struct trend_table *t = calloc(1, sizeof(*t));

	if (t)
		t->samples = 1;
	return t;
}

void trend_free(struct trend_table *t)
{
	if (!t)
		return;
	free(t->entries);
	free(t);
}

static void push(struct trend_entry *e, uint64_t v)
{
	if (e->nr == TREND_HISTORY) {
		memmove(e->hist, e->hist + 1, (TREND_HISTORY - 1) * sizeof(e->hist[0]));
		e->nr--;
	}
	e->hist[e->nr++] = v;
}

static bool all_zero(const struct trend_entry *e)
{
	for (uint32_t i = 0; i < e->nr; i++)
		if (e->hist[i])
			return false;
	return true;
}

int trend_update(struct trend_table *t, const struct stack_total *totals, size_t nr)
{
	struct trend_entry *out = calloc(t->nr + nr + 1, sizeof(*out));
	size_t i = 0, j = 0, n = 0;
	/* A new stack had nothing live in every earlier sample we keep. */
	uint32_t zeros = t->samples < TREND_HISTORY ? (uint32_t)t->samples : TREND_HISTORY;

	if (!out)
		return -ENOMEM;
	while (i < t->nr || j < nr) {
		struct trend_entry e;

		if (j >= nr || (i < t->nr && t->entries[i].key < stack_total_key(&totals[j]))) {
			e = t->entries[i++];
			push(&e, 0);
		} else if (i >= t->nr || stack_total_key(&totals[j]) < t->entries[i].key) {
			memset(&e, 0, sizeof(e));
			e.key = stack_total_key(&totals[j]);
			e.nr = zeros;
			push(&e, totals[j++].live_bytes);
		} else {
			e = t->entries[i++];
			push(&e, totals[j++].live_bytes);
		}
		if (!all_zero(&e))
			out[n++] = e;
	}
	free(t->entries);
	t->entries = out;
	t->nr = n;
	t->samples++;
	return 0;
}

enum trend_class trend_classify_history(const uint64_t *s, size_t nr, uint64_t *per_interval)
{
	size_t grew = 0, flat = 0;

	*per_interval = 0;
	/* Count the intervals, newest backwards, that all grew (or all stayed). */
	while (grew + 1 < nr && s[nr - 1 - grew] > s[nr - 2 - grew])
		grew++;
	while (flat + 1 < nr && s[nr - 1 - flat] == s[nr - 2 - flat])
		flat++;
	if (grew >= TREND_MIN_INTERVALS) {
		*per_interval = (s[nr - 1] - s[nr - 1 - grew]) / grew;
		return TREND_GROWING;
	}
	if (flat >= TREND_MIN_INTERVALS && s[nr - 1] > 0)
		return TREND_STABLE;
	return TREND_NONE;
}

enum trend_class trend_classify(const struct trend_table *t, uint64_t key,
				uint64_t *per_interval)
{
	size_t lo = 0, hi = t->nr;

	*per_interval = 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->entries[mid].key == key)
			return trend_classify_history(t->entries[mid].hist, t->entries[mid].nr,
						      per_interval);
		if (t->entries[mid].key < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return TREND_NONE;
}
