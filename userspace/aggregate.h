/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-stack totals: the module counts per (stack, cache, kind); memleak's
 * report, and the growth trend, are per stack.
 */
#ifndef MEMTRACE_READ_AGGREGATE_H
#define MEMTRACE_READ_AGGREGATE_H

#include <stddef.h>
#include <stdint.h>

#include "snapshot.h"

/* Bit (1 << MEMTRACE_KIND_*) per kind of allocation to include. */
#define KIND_BIT(kind)		(1U << (kind))
#define KIND_MASK_ALL		(~0U)
/*
 * Pages that back allocations reported on their own (a slab's objects, a
 * vmalloc area, percpu allocations, a large kmalloc): counted once, under
 * those, by default.
 */
#define KIND_MASK_BACKING	(KIND_BIT(MEMTRACE_KIND_SLAB_PAGE) |	\
				 KIND_BIT(MEMTRACE_KIND_VMALLOC_PAGE) |	\
				 KIND_BIT(MEMTRACE_KIND_PERCPU_PAGE) |	\
				 KIND_BIT(MEMTRACE_KIND_KMALLOC_PAGE))

struct stack_total {
	uint32_t stack_id;
	uint32_t image;		/* user kinds: the process slot (memtrace_target_state.procs) */
	uint64_t old_count;	/* outstanding: older than min age; estimates under sampling */
	uint64_t old_bytes;
	uint64_t old_count_recorded;	/* as recorded, before sampling estimates */
	uint64_t old_bytes_recorded;
	uint64_t live_count;	/* every allocation still live, as recorded */
	uint64_t live_bytes;
	uint64_t total_allocs;
	uint64_t total_bytes;
	uint64_t frees;
};

/*
 * Sums the snapshot's stat records of the kinds in kind_mask per stack (and
 * per image, for user mode's: one stack may be several images' code).
 * *out is sorted by stack_total_key(); the caller frees it.  Returns 0 or
 * -ENOMEM.
 */
int aggregate_by_stack(const struct mt_snapshot *snap, unsigned int kind_mask,
		       struct stack_total **out, size_t *nr_out);

/* What a stack's totals are known by: its image and its stack. */
static inline uint64_t stack_total_key(const struct stack_total *t)
{
	return (uint64_t)t->image << 32 | t->stack_id;
}

const struct stack_total *stack_total_find(const struct stack_total *totals, size_t nr,
					   uint32_t image, uint32_t stack_id);

#endif
