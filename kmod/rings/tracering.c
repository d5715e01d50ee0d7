// SPDX-License-Identifier: GPL-2.0
/*
 * The trace ring; see tracering.h.
 */
#include <linux/kmemleak.h>
#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/sched.h>
#include <linux/vmalloc.h>

#include "rings/tracering.h"
#include "tables/hooklock.h"

static void mt_ring_wake(struct irq_work *w)
{
	struct mt_ring *r = container_of(w, struct mt_ring, wake);

	wake_up_interruptible(&r->wait);
}

void mt_ring_init(struct mt_ring *r)
{
	r->recs = NULL;
	r->mask = 0;
	r->head = 0;
	r->tail = 0;
	raw_spin_lock_init(&r->lock);
	mutex_init(&r->read_lock);
	init_waitqueue_head(&r->wait);
	init_irq_work(&r->wake, mt_ring_wake);
}

int mt_ring_resize(struct mt_ring *r, u32 records)
{
	struct memtrace_trace_rec *recs;

	records = roundup_pow_of_two(clamp_t(u32, records, 2, 1U << 24));
	recs = vmalloc(array_size(records, sizeof(*recs)));
	if (!recs)
		return -ENOMEM;
	/* Records hold allocation addresses: no references for kmemleak. */
	kmemleak_no_scan(recs);
	mutex_lock(&r->read_lock);
	irq_work_sync(&r->wake);
	vfree(r->recs);
	r->recs = recs;
	r->mask = records - 1;
	WRITE_ONCE(r->head, 0);
	WRITE_ONCE(r->tail, 0);
	mutex_unlock(&r->read_lock);
	return 0;
}

void mt_ring_destroy(struct mt_ring *r)
{
	irq_work_sync(&r->wake);
	vfree(r->recs);
	r->recs = NULL;
}

void mt_ring_clear(struct mt_ring *r)
{
	mutex_lock(&r->read_lock);
	irq_work_sync(&r->wake);
	WRITE_ONCE(r->head, 0);
	WRITE_ONCE(r->tail, 0);
	mutex_unlock(&r->read_lock);
}

struct memtrace_trace_rec *mt_ring_reserve(struct mt_ring *r)
	__acquires(&r->lock)
{
	u64 head;

	mt_hook_lock(&r->lock);
	head = r->head;
	/* Pairs with the release in mt_ring_consume(): the slot is read. */
	if (head - smp_load_acquire(&r->tail) > r->mask)
		return NULL;
	return &r->recs[head & r->mask];
}

void mt_ring_commit(struct mt_ring *r, const struct memtrace_trace_rec *slot)
	__releases(&r->lock)
{
	u64 head = r->head;

	if (!slot) {
		raw_spin_unlock(&r->lock);
		return;
	}
	/* The record is complete before the reader can see it. */
	smp_store_release(&r->head, head + 1);
	raw_spin_unlock(&r->lock);
	/*
	 * Only now look at tail (see tracering.h): pairs with the barrier in
	 * mt_ring_consume().  The reader had taken every record before this
	 * one: it may be asleep, or about to be.
	 */
	smp_mb();
	if (READ_ONCE(r->tail) == head)
		irq_work_queue(&r->wake);
}

bool mt_ring_put(struct mt_ring *r, const struct memtrace_trace_rec *rec)
{
	struct memtrace_trace_rec *slot = mt_ring_reserve(r);

	if (slot)
		*slot = *rec;
	mt_ring_commit(r, slot);
	return slot;
}

u64 mt_ring_pending(struct mt_ring *r)
{
	/* Pairs with the release in mt_ring_put(): those records are complete. */
	return smp_load_acquire(&r->head) - READ_ONCE(r->tail);
}

long mt_ring_consume(struct mt_ring *r, u32 max,
		     int (*copy)(void *ctx, const struct memtrace_trace_rec *recs, u32 n),
		     void *ctx)
{
	u64 tail = r->tail;
	u64 avail = min_t(u64, mt_ring_pending(r), max);
	long done = 0;
	int ret;

	while (avail) {
		u32 at = tail & r->mask;
		u32 n = min_t(u64, avail, r->mask + 1 - at);

		ret = copy(ctx, &r->recs[at], n);
		if (ret)
			break;
		tail += n;
		avail -= n;
		done += n;
	}
	/* The records are copied out before producers may reuse their slots. */
	smp_store_release(&r->tail, tail);
	/*
	 * The new tail is visible before this reader looks at head again (to
	 * decide whether to sleep): pairs with the barrier in mt_ring_commit().
	 */
	smp_mb();
	return done ? done : (avail ? ret : 0);
}

bool mt_trace_evring_put(struct mt_evring *er, const struct memtrace_trace_rec *rec)
{
	u16 type = rec->type == MEMTRACE_TRACE_FREE ? MEMTRACE_EVT_FREE_TRACE :
						      MEMTRACE_EVT_ALLOC_TRACE;
	struct memtrace_ev_trace *ev;
	unsigned long flags;

	/* The reader orders records of all CPUs by the time after the header. */
	BUILD_BUG_ON(offsetof(struct memtrace_ev_trace, rec.ts_ns) !=
		     sizeof(struct memtrace_ev_hdr));
	ev = mt_evring_reserve(er, type, sizeof(*ev), &flags);
	if (!ev)
		return false;
	ev->rec = *rec;
	mt_evring_commit(er, ev, flags);
	return true;
}
