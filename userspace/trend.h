/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Growth trends per stack: what tells a leak (live bytes growing interval
 * after interval) from a long-lived allocation (live bytes that stay put),
 * which a single memleak report cannot.
 */
#ifndef MEMTRACE_READ_TREND_H
#define MEMTRACE_READ_TREND_H

#include <stddef.h>
#include <stdint.h>

#include "aggregate.h"

#define TREND_HISTORY		8	/* samples of live bytes kept per stack */
#define TREND_MIN_INTERVALS	3	/* intervals of growth (or none) to be sure */

enum trend_class {
	TREND_NONE,
	TREND_GROWING,	/* grew in each of the last >= 3 intervals: likely leak */
	TREND_STABLE,	/* unchanged and non-zero for >= 3 intervals: long-lived */
};

struct trend_table;

/* A table whose baseline is "nothing live": tracing starts empty. */
struct trend_table *trend_new(void);
void trend_free(struct trend_table *t);

/* Records one interval's live bytes; totals sorted by stack_total_key() (as
 * aggregate_by_stack gives them).  Stacks absent from totals have none. */
int trend_update(struct trend_table *t, const struct stack_total *totals, size_t nr);

/*
 * Class of one stack, by its stack_total_key(); *per_interval gets the
 * mean growth of a growing run.
 */
enum trend_class trend_classify(const struct trend_table *t, uint64_t key,
				uint64_t *per_interval);

/* The rule itself, over samples oldest first. */
enum trend_class trend_classify_history(const uint64_t *samples, size_t nr,
					uint64_t *per_interval);

#endif
