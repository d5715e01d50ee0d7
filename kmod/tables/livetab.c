// SPDX-License-Identifier: GPL-2.0
/*
 * The live-allocation index; see livetab.h.
 */
#include <linux/hash.h>
#include <linux/kmemleak.h>
#include <linux/log2.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "compat/compat.h"
#include "tables/hooklock.h"
#include "tables/livetab.h"

static inline struct mt_live *mt_live_at(const struct mt_livetab *t, u32 idx)
{
	return &t->chunks[idx >> MT_LIVE_CHUNK_SHIFT][idx & (MT_LIVE_CHUNK - 1)];
}

static inline bool mt_live_match(const struct mt_live *e, unsigned long addr,
				 enum mt_ns ns)
{
	return e->addr == addr && mt_kind_ns(MT_KIND_OF(e->cache_kind)) == ns;
}

static struct mt_live_buckets *mt_live_buckets_alloc(u32 n)
{
	struct mt_live_buckets *b;

	b = kvzalloc(struct_size(b, head, n), GFP_KERNEL);
	if (b)
		b->mask = n - 1;
	return b;
}

/* Hand entries [first, last) of the index to the stripes' free lists. */
static void mt_live_distribute(struct mt_livetab *t, u32 first, u32 last)
{
	u32 nr_stripes = 1U << t->stripe_bits;
	u32 s;

	for (s = 0; s < nr_stripes; s++) {
		struct mt_live_stripe *st = &t->stripes[s];
		unsigned long flags;
		u32 idx;

		raw_spin_lock_irqsave(&st->lock, flags);
		for (idx = first + ((s - first) & (nr_stripes - 1)); idx < last;
		     idx += nr_stripes) {
			if (!idx)
				continue;
			mt_live_at(t, idx)->next = st->free_head;
			st->free_head = idx;
			st->nr_free++;
		}
		raw_spin_unlock_irqrestore(&st->lock, flags);
	}
}

/*
 * A stripe is low when fewer than 1/16 of the entries it holds are free.
 * Growth hands every stripe the same share of new entries, so the fullest
 * stripe decides when the index grows: the mark is that stripe's reserve
 * for the time the grower takes (irq_work, a worker, vmalloc, handing out),
 * which at 1/16 is 1/16 of the whole index's inserts, spread evenly, before
 * that stripe could run dry, while the spare capacity it leaves is small.
 * An insert that still finds its stripe empty is counted (MT_LIVE_FULL).
 */
static inline bool mt_live_stripe_low(const struct mt_live_stripe *st)
{
	u32 nr_free = READ_ONCE(st->nr_free);

	return nr_free < 8 || nr_free < (nr_free + READ_ONCE(st->nr_used)) / 16;
}

static bool mt_live_any_low(const struct mt_livetab *t)
{
	u32 s;

	for (s = 0; s < (1U << t->stripe_bits); s++)
		/*
		 * Unlocked, while hooks move the counts: a stale look only
		 * makes the worker grow one step late (the next insert into
		 * a low stripe kicks again) or skip a kick a grow answered.
		 */
		if (data_race(mt_live_stripe_low(&t->stripes[s])))
			return true;
	return false;
}

static int mt_live_grow(struct mt_livetab *t, bool only_when_low);

static void mt_live_grow_workfn(struct work_struct *work)
{
	struct mt_livetab *t = container_of(work, struct mt_livetab, grow_work);

	/*
	 * Hooks keep kicking while a stripe stays low, so the work is often
	 * queued again while a grow is in flight: once that grow has handed
	 * out its entries, the kick is stale and growing again would only
	 * leave spare capacity.
	 */
	mt_live_grow(t, true);
}

static void mt_live_grow_irq_workfn(struct irq_work *w)
{
	struct mt_livetab *t = container_of(w, struct mt_livetab, grow_irq_work);

	/* irq_work runs in hard-IRQ context: the allocation waits for a worker. */
	queue_work(system_unbound_wq, &t->grow_work);
}

/*
 * A chunk of entries.  It holds the addresses of live allocations, which
 * kmemleak must not take for references: while memtrace traced, it would
 * find no leak at all.
 */
static struct mt_live *mt_live_chunk_alloc(void)
{
	struct mt_live *chunk = vmalloc(MT_LIVE_CHUNK * sizeof(struct mt_live));

	if (chunk)
		kmemleak_no_scan(chunk);
	return chunk;
}

int mt_livetab_init(struct mt_livetab *t, u32 entries, u32 max_entries)
{
	u32 nr_stripes = 1U << MT_LIVE_STRIPE_BITS;
	u32 buckets, s, c;

	memset(t, 0, sizeof(*t));
	mutex_init(&t->grow_mutex);
	INIT_WORK(&t->grow_work, mt_live_grow_workfn);
	init_irq_work(&t->grow_irq_work, mt_live_grow_irq_workfn);
	if (!entries || max_entries < entries || max_entries > (U32_MAX >> 1))
		return -EINVAL;
	t->stripe_bits = MT_LIVE_STRIPE_BITS;
	t->max_chunks = DIV_ROUND_UP(max_entries + 1, MT_LIVE_CHUNK);
	t->chunks = kcalloc(t->max_chunks, sizeof(*t->chunks), GFP_KERNEL);
	t->stripes = vzalloc(array_size(nr_stripes, sizeof(*t->stripes)));
	if (!t->chunks || !t->stripes)
		goto nomem;

	buckets = roundup_pow_of_two(max_t(u32, entries / nr_stripes, 4));
	for (s = 0; s < nr_stripes; s++) {
		struct mt_live_stripe *st = &t->stripes[s];

		raw_spin_lock_init(&st->lock);
		st->buckets = mt_live_buckets_alloc(buckets);
		if (!st->buckets)
			goto nomem;
	}

	t->nr_chunks = DIV_ROUND_UP(entries + 1, MT_LIVE_CHUNK);
	for (c = 0; c < t->nr_chunks; c++) {
		t->chunks[c] = mt_live_chunk_alloc();
		if (!t->chunks[c])
			goto nomem;
	}
	mt_live_distribute(t, 0, t->nr_chunks * MT_LIVE_CHUNK);
	return 0;
nomem:
	mt_livetab_destroy(t);
	return -ENOMEM;
}

void mt_livetab_destroy(struct mt_livetab *t)
{
	u32 s, c;

	if (t->chunks) {
		irq_work_sync(&t->grow_irq_work);
		cancel_work_sync(&t->grow_work);
	}
	if (t->stripes)
		for (s = 0; s < (1U << t->stripe_bits); s++)
			kvfree(t->stripes[s].buckets);
	vfree(t->stripes);
	if (t->chunks)
		for (c = 0; c < t->max_chunks; c++)
			vfree(t->chunks[c]);
	kfree(t->chunks);
	t->chunks = NULL;
	t->stripes = NULL;
}

void mt_livetab_clear(struct mt_livetab *t)
{
	u32 s;

	mutex_lock(&t->grow_mutex);
	for (s = 0; s < (1U << t->stripe_bits); s++) {
		struct mt_live_stripe *st = &t->stripes[s];
		unsigned long flags;

		raw_spin_lock_irqsave(&st->lock, flags);
		memset(st->buckets->head, 0, (st->buckets->mask + 1) * sizeof(u32));
		st->free_head = 0;
		st->nr_free = 0;
		st->nr_used = 0;
		raw_spin_unlock_irqrestore(&st->lock, flags);
	}
	mt_live_distribute(t, 0, t->nr_chunks * MT_LIVE_CHUNK);
	mutex_unlock(&t->grow_mutex);
}

enum mt_live_insert mt_livetab_insert(struct mt_livetab *t, const struct mt_live *e,
				      struct mt_live *old)
{
	enum mt_ns ns = mt_kind_ns(MT_KIND_OF(e->cache_kind));
	u32 hash = mt_live_hash(e->addr, ns);
	struct mt_live_stripe *st = mt_live_stripe(t, hash);
	u32 *bucket, idx;
	struct mt_live *slot;
	bool low;

	lockdep_assert_irqs_disabled();
	mt_hook_lock(&st->lock);
	bucket = mt_live_bucket(t, st->buckets, hash);
	/* One address, one entry: a stale one is replaced in place. */
	for (idx = *bucket; idx; idx = slot->next) {
		slot = mt_live_at(t, idx);
		if (mt_live_match(slot, e->addr, ns)) {
			u32 next = slot->next;

			*old = *slot;
			*slot = *e;
			slot->next = next;
			raw_spin_unlock(&st->lock);
			return MT_LIVE_REPLACED;
		}
	}
	idx = st->free_head;
	if (unlikely(!idx)) {
		raw_spin_unlock(&st->lock);
		/* At the limit (grows < 0), no grow can help: no kick. */
		if (atomic_read(&t->grows) >= 0)
			irq_work_queue(&t->grow_irq_work);
		return MT_LIVE_FULL;
	}
	slot = mt_live_at(t, idx);
	st->free_head = slot->next;
	st->nr_free--;
	st->nr_used++;
	*slot = *e;
	slot->next = *bucket;
	*bucket = idx;
	low = mt_live_stripe_low(st);
	raw_spin_unlock(&st->lock);

	if (unlikely(low) && atomic_read(&t->grows) >= 0)
		irq_work_queue(&t->grow_irq_work);
	return MT_LIVE_ADDED;
}

/* Unlink the entry *link points to and give it back to the stripe; locked. */
static void mt_live_unlink(struct mt_livetab *t, struct mt_live_stripe *st,
			   u32 *link)
{
	u32 idx = *link;
	struct mt_live *e = mt_live_at(t, idx);

	*link = e->next;
	e->next = st->free_head;
	st->free_head = idx;
	st->nr_free++;
	st->nr_used--;
}

/*
 * Find (addr, ns) and lock its stripe: true with *linkp the link to it and
 * the stripe locked, or false with the stripe unlocked.  Never recorded,
 * and nothing else in its bucket: answered without the lock.  Called as
 * mt_live_find_locked(), which tells sparse the lock is held on true.
 * Inlined: a free's lookup and removal are one function, with one
 * prologue and one hash (the call between them cost a free ~50
 * instructions).
 */
static __always_inline bool __mt_live_find_locked(struct mt_livetab *t, unsigned long addr,
						  enum mt_ns ns, struct mt_live_stripe **stp,
						  u32 **linkp)
{
	u32 hash = mt_live_hash(addr, ns);
	struct mt_live_stripe *st = mt_live_stripe(t, hash);
	u32 *link, idx;

	lockdep_assert_irqs_disabled();
	*stp = st;
	if (!READ_ONCE(*mt_live_bucket(t, READ_ONCE(st->buckets), hash)))
		return false;
	mt_hook_lock(&st->lock);
	for (link = mt_live_bucket(t, st->buckets, hash); (idx = *link);
	     link = &mt_live_at(t, idx)->next) {
		if (mt_live_match(mt_live_at(t, idx), addr, ns)) {
			*linkp = link;
			__release(&st->lock);	/* the caller's now */
			return true;
		}
	}
	raw_spin_unlock(&st->lock);
	return false;
}

#define mt_live_find_locked(t, addr, ns, stp, linkp) \
	__cond_lock(&(*(stp))->lock, __mt_live_find_locked(t, addr, ns, stp, linkp))

bool mt_livetab_remove(struct mt_livetab *t, unsigned long addr, enum mt_ns ns,
		       struct mt_live *out)
{
	struct mt_live_stripe *st;
	u32 *link;

	if (!mt_live_find_locked(t, addr, ns, &st, &link))
		return false;
	*out = *mt_live_at(t, *link);
	mt_live_unlink(t, st, link);
	raw_spin_unlock(&st->lock);
	return true;
}

noinline bool mt_livetab_may_hold_rcu(struct mt_livetab *t, struct mt_live_stripe *st,
				      u32 hash)
{
	bool held;

	rcu_read_lock();
	held = READ_ONCE(*mt_live_bucket(t, READ_ONCE(st->buckets), hash));
	rcu_read_unlock();
	return held;
}

bool mt_livetab_contains(struct mt_livetab *t, unsigned long addr, enum mt_ns ns)
{
	struct mt_live_stripe *st;
	u32 *link;

	if (!mt_live_find_locked(t, addr, ns, &st, &link))
		return false;
	raw_spin_unlock(&st->lock);
	return true;
}

bool mt_livetab_edit(struct mt_livetab *t, unsigned long addr, enum mt_ns ns,
		     bool (*edit)(struct mt_live *e, void *arg), void *arg,
		     struct mt_live *before)
{
	struct mt_live_stripe *st;
	struct mt_live *e;
	u32 *link, next;

	if (!mt_live_find_locked(t, addr, ns, &st, &link))
		return false;
	e = mt_live_at(t, *link);
	*before = *e;
	next = e->next;
	if (edit(e, arg)) {
		mt_live_unlink(t, st, link);
	} else {
		/* The key and the chain stay as they were. */
		e->addr = addr;
		e->next = next;
	}
	raw_spin_unlock(&st->lock);
	return true;
}

/*
 * Double the buckets of a stripe whose chains grew long.  Returns the
 * replaced array, to be freed after a grace period, or NULL.
 */
static struct mt_live_buckets *mt_live_rehash_stripe(struct mt_livetab *t,
						     struct mt_live_stripe *st)
{
	struct mt_live_buckets *nb, *ob = st->buckets;
	u32 old_n = ob->mask + 1, new_n, b;
	unsigned long flags;

	if (READ_ONCE(st->nr_used) + READ_ONCE(st->nr_free) <= 2 * old_n)
		return NULL;
	new_n = roundup_pow_of_two(READ_ONCE(st->nr_used) + READ_ONCE(st->nr_free));
	nb = mt_live_buckets_alloc(new_n);
	if (!nb)
		return NULL;	/* chains stay long; nothing is lost */

	raw_spin_lock_irqsave(&st->lock, flags);
	for (b = 0; b < old_n; b++) {
		u32 idx = ob->head[b];

		while (idx) {
			struct mt_live *e = mt_live_at(t, idx);
			u32 next = e->next;
			u32 h = mt_live_hash(e->addr, mt_kind_ns(MT_KIND_OF(e->cache_kind)));
			u32 *nbucket = mt_live_bucket(t, nb, h);

			e->next = *nbucket;
			*nbucket = idx;
			idx = next;
		}
	}
	/* Lockless readers see the old array or the complete new one. */
	smp_store_release(&st->buckets, nb);
	raw_spin_unlock_irqrestore(&st->lock, flags);
	return ob;
}

/* Grow, or with only_when_low only if a stripe is still low. */
static int mt_live_grow(struct mt_livetab *t, bool only_when_low)
{
	u32 nr_stripes = 1U << t->stripe_bits, add, c, first, s;
	struct mt_live_buckets **old;
	bool replaced;
	int ret = 0;

	mutex_lock(&t->grow_mutex);
	if (only_when_low && !mt_live_any_low(t)) {
		mutex_unlock(&t->grow_mutex);
		return 0;
	}
	WRITE_ONCE(t->grower, current);
	/*
	 * Grow by 1/8 of the capacity, at least one chunk: the spare capacity
	 * a grow leaves is at most that step plus the low-water mark, where
	 * half the capacity left up to a third of the index unused.
	 */
	add = max_t(u32, t->nr_chunks / 8, 1);
	add = min(add, t->max_chunks - t->nr_chunks);
	if (!add) {
		/* At the limit: stop kicking growth from the hooks. */
		atomic_set(&t->grows, -1);
		ret = -ENOSPC;
		goto out;
	}
	first = t->nr_chunks;
	for (c = first; c < first + add; c++) {
		t->chunks[c] = mt_live_chunk_alloc();
		if (!t->chunks[c]) {
			ret = -ENOMEM;
			break;
		}
	}
	if (c == first)
		goto out;
	t->nr_chunks = c;
	mt_live_distribute(t, first * MT_LIVE_CHUNK, c * MT_LIVE_CHUNK);
	atomic_inc(&t->grows);
	old = kvcalloc(nr_stripes, sizeof(*old), GFP_KERNEL);
	replaced = false;
	for (s = 0; old && s < nr_stripes; s++) {
		old[s] = mt_live_rehash_stripe(t, &t->stripes[s]);
		replaced |= old[s] != NULL;
	}
	if (old) {
		/*
		 * One grace period for all the replaced arrays; none when no
		 * stripe was rehashed (most of the 1/8 steps).
		 */
		if (replaced)
			synchronize_rcu();
		for (s = 0; s < nr_stripes; s++)
			kvfree(old[s]);
		kvfree(old);
	}
out:
	WRITE_ONCE(t->grower, NULL);
	mutex_unlock(&t->grow_mutex);
	return ret;
}

int mt_livetab_grow(struct mt_livetab *t)
{
	return mt_live_grow(t, false);
}

u64 mt_livetab_count(struct mt_livetab *t)
{
	u64 n = 0;
	u32 s;

	for (s = 0; s < (1U << t->stripe_bits); s++)
		n += READ_ONCE(t->stripes[s].nr_used);
	return n;
}

u64 mt_livetab_capacity(struct mt_livetab *t)
{
	return (u64)READ_ONCE(t->nr_chunks) * MT_LIVE_CHUNK - 1;
}

void mt_livetab_for_each(struct mt_livetab *t,
			 void (*fn)(const struct mt_live *e, void *arg),
			 void *arg)
{
	u32 s, b;

	for (s = 0; s < (1U << t->stripe_bits); s++) {
		struct mt_live_stripe *st = &t->stripes[s];
		unsigned long flags;

		raw_spin_lock_irqsave(&st->lock, flags);
		for (b = 0; b <= st->buckets->mask; b++) {
			u32 idx;

			for (idx = st->buckets->head[b]; idx; idx = mt_live_at(t, idx)->next)
				fn(mt_live_at(t, idx), arg);
		}
		raw_spin_unlock_irqrestore(&st->lock, flags);
		cond_resched();
	}
}
