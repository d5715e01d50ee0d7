// SPDX-License-Identifier: GPL-2.0
/* The growth classifier, and the per-stack history it reads. */
#include <stdlib.h>

#include "harness.h"
#include "trend.h"

static enum trend_class classify(const uint64_t *s, size_t n, uint64_t *per)
{
	return trend_classify_history(s, n, per);
}

static void test_rule(void)
{
	uint64_t per;

	check(classify((uint64_t[]){ 0, 8192, 16384, 24576 }, 4, &per) == TREND_GROWING &&
	      per == 8192, "trend: growth in each of 3 intervals is [growing] (+8192/interval)");
	check(classify((uint64_t[]){ 100, 0, 10, 20, 40, 70 }, 6, &per) == TREND_GROWING &&
	      per == 17, "trend: the growth rate is the mean over the whole growing run");
	check(classify((uint64_t[]){ 0, 8192, 16384 }, 3, &per) == TREND_NONE,
	      "trend: two intervals of growth are not enough");
	check(classify((uint64_t[]){ 0, 10, 20, 20, 30 }, 5, &per) == TREND_NONE,
	      "trend: growth interrupted by a flat interval is not [growing]");
	check(classify((uint64_t[]){ 0, 4096, 4096, 4096, 4096 }, 5, &per) == TREND_STABLE,
	      "trend: unchanged for 3 intervals is [stable]");
	check(classify((uint64_t[]){ 4096, 4096, 4096 }, 3, &per) == TREND_NONE,
	      "trend: unchanged for 2 intervals is not yet [stable]");
	check(classify((uint64_t[]){ 0, 0, 0, 0 }, 4, &per) == TREND_NONE,
	      "trend: nothing live is neither growing nor stable");
	check(classify((uint64_t[]){ 30, 20, 10, 5 }, 4, &per) == TREND_NONE,
	      "trend: shrinking is neither growing nor stable");
	check(classify((uint64_t[]){ 7 }, 1, &per) == TREND_NONE && classify(NULL, 0, &per) ==
	      TREND_NONE, "trend: one sample or none says nothing");
}

static void update(struct trend_table *t, uint64_t bytes_a, uint64_t bytes_b)
{
	struct stack_total tot[2] = { { .stack_id = 3, .live_bytes = bytes_a },
				      { .stack_id = 9, .live_bytes = bytes_b } };
	size_t n = 0;

	/* Stacks with nothing live are absent from a snapshot. */
	if (bytes_a)
		tot[n++] = (struct stack_total){ .stack_id = 3, .live_bytes = bytes_a };
	if (bytes_b)
		tot[n++] = (struct stack_total){ .stack_id = 9, .live_bytes = bytes_b };
	trend_update(t, tot, n);
}

static void test_table(void)
{
	struct trend_table *t = trend_new();
	uint64_t per;
	bool ok;

	/* Tracing starts empty: three reports of growth are enough. */
	update(t, 100, 50);
	update(t, 200, 50);
	ok = trend_classify(t, 3, &per) == TREND_NONE;
	update(t, 300, 50);
	ok = ok && trend_classify(t, 3, &per) == TREND_GROWING && per == 100;
	check(ok, "trend table: [growing] after three reports, counting the empty start");
	update(t, 400, 50);
	check(trend_classify(t, 9, &per) == TREND_STABLE,
	      "trend table: a stack unchanged since the first report is [stable]");
	/* Stack 3 is freed entirely, then leaks again. */
	update(t, 0, 50);
	ok = trend_classify(t, 3, &per) == TREND_NONE;
	update(t, 10, 50);
	update(t, 20, 50);
	update(t, 30, 50);
	ok = ok && trend_classify(t, 3, &per) == TREND_GROWING && per == 10;
	check(ok, "trend table: a stack that vanishes and comes back starts from zero");
	for (int i = 0; i < 20; i++)
		update(t, 30 + 5 * i, 0);
	check(trend_classify(t, 9, &per) == TREND_NONE && trend_classify(t, 3, &per) ==
	      TREND_GROWING && per == 5 && trend_classify(t, 77, &per) == TREND_NONE,
	      "trend table: keeps a bounded history and forgets stacks that are gone");
	trend_free(t);
}

void trend_tests(void)
{
	test_rule();
	test_table();
}
