// SPDX-License-Identifier: GPL-2.0
/*
 * Deduplicated stack storage; see stacktab.h.
 */
#include <linux/jhash.h>
#include <linux/log2.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <linux/memtrace.h>

#include "tables/hooklock.h"
#include "tables/stacktab.h"

/* Ids are pool offsets in 8-byte units; offset 0 is reserved for id 0. */
#define MT_STACK_ALIGN	8
#define MT_STACK_POOL_START	MT_STACK_ALIGN

int mt_stacktab_init(struct mt_stacktab *t, size_t pool_bytes, u32 nr_buckets)
{
	memset(t, 0, sizeof(*t));
	if (pool_bytes < PAGE_SIZE || pool_bytes > (size_t)U32_MAX * MT_STACK_ALIGN)
		return -EINVAL;
	nr_buckets = roundup_pow_of_two(max_t(u32, nr_buckets, 16));
	t->buckets = vzalloc(array_size(nr_buckets, sizeof(*t->buckets)));
	t->pool = vmalloc(pool_bytes);
	if (!t->buckets || !t->pool) {
		mt_stacktab_destroy(t);
		return -ENOMEM;
	}
	t->bucket_mask = nr_buckets - 1;
	t->pool_size = pool_bytes;
	t->pool_used = MT_STACK_POOL_START;
	raw_spin_lock_init(&t->lock);
	return 0;
}

void mt_stacktab_destroy(struct mt_stacktab *t)
{
	vfree(t->buckets);
	vfree(t->pool);
	t->buckets = NULL;
	t->pool = NULL;
}

void mt_stacktab_clear(struct mt_stacktab *t)
{
	memset(t->buckets, 0, (t->bucket_mask + 1) * sizeof(*t->buckets));
	t->pool_used = MT_STACK_POOL_START;
	t->nr_stacks = 0;
	t->epoch = 0;
}

static u32 mt_stack_hash(const unsigned long *ip, unsigned int nr)
{
	return jhash2((const u32 *)ip, nr * sizeof(*ip) / sizeof(u32), 0x6d74);
}

static struct mt_stack *mt_stack_at(const struct mt_stacktab *t, u32 id)
{
	return (struct mt_stack *)(t->pool + (size_t)id * MT_STACK_ALIGN);
}

const struct mt_stack *mt_stacktab_get(const struct mt_stacktab *t, u32 id)
{
	size_t off = (size_t)id * MT_STACK_ALIGN;
	/* Pairs with the release of pool_used in mt_stacktab_intern(). */
	size_t used = smp_load_acquire(&t->pool_used);

	if (id == MEMTRACE_STACK_NONE || off + sizeof(struct mt_stack) > used)
		return NULL;
	return mt_stack_at(t, id);
}

static u32 mt_stack_find(const struct mt_stacktab *t, u32 head, u32 hash,
			 const unsigned long *ip, unsigned int nr)
{
	while (head) {
		const struct mt_stack *s = mt_stack_at(t, head);

		if (s->hash == hash && s->nr_frames == nr &&
		    !(READ_ONCE(s->flags) & MT_STACK_RETIRED) &&
		    !memcmp(s->ip, ip, nr * sizeof(*ip)))
			return head;
		head = s->next;
	}
	return 0;
}

static size_t mt_stack_size(unsigned int nr)
{
	return ALIGN(struct_size((struct mt_stack *)NULL, ip, nr), MT_STACK_ALIGN);
}

u32 mt_stacktab_intern(struct mt_stacktab *t, const unsigned long *ip,
		       unsigned int nr)
{
	u32 hash = mt_stack_hash(ip, nr);
	u32 *bucket = &t->buckets[hash & t->bucket_mask];
	size_t need = mt_stack_size(nr);
	struct mt_stack *s;
	unsigned long flags;
	u32 id;

	/* Fast path: the stack is known.  Pairs with the release below. */
	id = mt_stack_find(t, smp_load_acquire(bucket), hash, ip, nr);
	if (id)
		return id;

	mt_hook_lock_irqsave(&t->lock, flags);
	/* Another CPU may have inserted it since we looked. */
	id = mt_stack_find(t, *bucket, hash, ip, nr);
	if (id || t->pool_used + need > t->pool_size)
		goto out;

	id = t->pool_used / MT_STACK_ALIGN;
	s = mt_stack_at(t, id);
	s->next = *bucket;
	s->hash = hash;
	s->nr_frames = nr;
	s->flags = 0;
	s->epoch = READ_ONCE(t->epoch);
	memcpy(s->ip, ip, nr * sizeof(*ip));
	t->nr_stacks++;
	/*
	 * The record is complete before readers can reach it, through the
	 * pool bound (mt_stacktab_get) or the bucket (mt_stacktab_intern).
	 */
	smp_store_release(&t->pool_used, t->pool_used + need);
	/* Pairs with the acquire of the bucket head above. */
	smp_store_release(bucket, id);
out:
	raw_spin_unlock_irqrestore(&t->lock, flags);
	return id;
}

u32 mt_stacktab_code_freed(struct mt_stacktab *t, unsigned long start,
			   unsigned long end)
{
	/* Pairs with the release in mt_stacktab_intern(): records are whole. */
	size_t used = smp_load_acquire(&t->pool_used);
	size_t off = MT_STACK_POOL_START;
	u32 epoch;

	while (off + sizeof(struct mt_stack) <= used) {
		struct mt_stack *s = (struct mt_stack *)(t->pool + off);
		unsigned int i;

		for (i = 0; i < s->nr_frames; i++) {
			if (s->ip[i] >= start && s->ip[i] < end) {
				WRITE_ONCE(s->flags, s->flags | MT_STACK_RETIRED);
				break;
			}
		}
		off += mt_stack_size(s->nr_frames);
		cond_resched();
	}
	/* Stacks stored from now on are of the new code. */
	epoch = READ_ONCE(t->epoch) + 1;
	WRITE_ONCE(t->epoch, epoch);
	return epoch;
}
