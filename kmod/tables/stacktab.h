/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Deduplicated storage of kernel stacks, in the spirit of lib/stackdepot.c:
 * a preallocated pool of immutable records, found through a hash of their
 * frames and chained on collision, so two stacks are never merged and a
 * stack is never silently dropped: when the pool is full the caller is told
 * and counts it.
 *
 * Lookups are lockless (records are published with release semantics and
 * never change or go away while tracing); inserts take a raw spinlock,
 * which is rare once the working set of stacks is known.
 */
#ifndef MEMTRACE_STACKTAB_H
#define MEMTRACE_STACKTAB_H

#include <linux/types.h>
#include <linux/spinlock.h>

struct mt_stack {
	u32 next;		/* id of the next record in the chain, 0: end */
	u32 hash;
	u16 nr_frames;
	u16 flags;		/* MT_STACK_*; the only field that changes */
	u32 epoch;		/* the table's code epoch when stored */
	unsigned long ip[];
};

/*
 * Code at one of the stack's addresses was freed after the stack was
 * stored (a module's init code, an unloaded module): the same addresses
 * later mean other code, so lookups no longer match this record and a new
 * one is stored.  The old one keeps its id and its epoch, which says what
 * code it was made with.
 */
#define MT_STACK_RETIRED	BIT(0)

struct mt_stacktab {
	u32 *buckets;		/* stack id of each chain head */
	u32 bucket_mask;
	raw_spinlock_t lock;	/* serializes inserts */
	u8 *pool;
	size_t pool_size;
	size_t pool_used;	/* written under lock, read locklessly */
	u32 nr_stacks;
	u32 epoch;		/* ranges of code freed since the last clear */
};

int mt_stacktab_init(struct mt_stacktab *t, size_t pool_bytes, u32 nr_buckets);
void mt_stacktab_destroy(struct mt_stacktab *t);
/* Only while no hook can run. */
void mt_stacktab_clear(struct mt_stacktab *t);
/* Returns the stack's id, or MEMTRACE_STACK_NONE (0) when the pool is full. */
u32 mt_stacktab_intern(struct mt_stacktab *t, const unsigned long *ip,
		       unsigned int nr);
/* NULL for an id that names no record. */
const struct mt_stack *mt_stacktab_get(const struct mt_stacktab *t, u32 id);

/*
 * Code in [start, end) was freed: retire the stacks that have a frame
 * there and start a new epoch.  Process context; concurrent inserts and
 * lookups are fine (one that raced the retiring may still match an old
 * record, as if it had come a moment earlier).  Returns the new epoch.
 */
u32 mt_stacktab_code_freed(struct mt_stacktab *t, unsigned long start,
			   unsigned long end);

#endif
