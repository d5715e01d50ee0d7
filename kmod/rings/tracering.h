/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The trace ring: one record per allocation or free, for a reader that
 * wants every call (memtrace-read -t), read(2) from the device.
 *
 * Many producers (hooks on any CPU, with interrupts off) and one consumer
 * (read(2), under read_lock).  Producers take a raw spinlock to claim and
 * fill a slot, then publish it by advancing head with release semantics;
 * the consumer copies the records between tail and head without the lock
 * (no producer writes there until tail moves past them) and then advances
 * tail.  A full ring drops the new record, which the caller counts: a slow
 * reader never stalls an allocation.
 *
 * The hooks cannot wake a reader themselves (they may run under scheduler
 * locks), so a record that makes the ring non-empty queues an irq_work,
 * which wakes it.  "Non-empty" is decided after the record is published,
 * against the consumer's tail read behind a full barrier; the consumer
 * has one between moving tail and looking at head again.  Either the
 * producer sees the reader caught up with it and wakes it, or the reader,
 * about to sleep, sees the new head: no record is left behind a sleeping
 * reader.  (Deciding before publishing, as this ring once did, let a
 * reader drain the ring and go to sleep between the producer's look at
 * tail and its head store, with no wake-up ever to come while the ring
 * stayed non-empty.)
 */
#ifndef MEMTRACE_TRACERING_H
#define MEMTRACE_TRACERING_H

#include <linux/irq_work.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/memtrace.h>

#include "rings/evring.h"

struct mt_ring {
	struct memtrace_trace_rec *recs;
	u32 mask;		/* records - 1 */
	u64 head;		/* next record to fill; written under lock */
	u64 tail;		/* next record to read; written by the reader */
	raw_spinlock_t lock;
	struct mutex read_lock;
	wait_queue_head_t wait;
	struct irq_work wake;
};

/* Locks and wake-up; the ring has no records until mt_ring_resize(). */
void mt_ring_init(struct mt_ring *r);
/* (Re)allocate for records (rounded up to a power of 2), empty; no producer may run. */
int mt_ring_resize(struct mt_ring *r, u32 records);
void mt_ring_destroy(struct mt_ring *r);
/* Empty it; no producer may run. */
void mt_ring_clear(struct mt_ring *r);
/* Records it holds (0 before the first resize). */
static inline u32 mt_ring_size(const struct mt_ring *r)
{
	return r->recs ? r->mask + 1 : 0;
}

/*
 * Producer (interrupts off): the slot of the next record, to fill, or NULL
 * if the ring is full; either way mt_ring_commit() follows, which
 * publishes a filled slot.  The ring's lock is held from one to the other.
 */
struct memtrace_trace_rec *mt_ring_reserve(struct mt_ring *r);
void mt_ring_commit(struct mt_ring *r, const struct memtrace_trace_rec *slot);
/* Reserve, copy rec, commit: false if the ring is full. */
bool mt_ring_put(struct mt_ring *r, const struct memtrace_trace_rec *rec);

/* Records waiting to be read. */
u64 mt_ring_pending(struct mt_ring *r);

/*
 * Consumer, under read_lock: hands up to max pending records to copy()
 * (at most two contiguous runs), in order, and consumes those it took.
 * Returns how many were consumed, or copy()'s error if none was.
 */
long mt_ring_consume(struct mt_ring *r, u32 max,
		     int (*copy)(void *ctx, const struct memtrace_trace_rec *recs, u32 n),
		     void *ctx);

/*
 * The per-CPU alternative (MEMTRACE_TRACEF_EVRING): rec, as the reader may
 * see it, into this CPU's event ring as a struct memtrace_ev_trace; any
 * context.  False if the ring dropped it (full, or nested in another
 * record on this CPU), which the ring counts in its meta page's lost.
 */
bool mt_trace_evring_put(struct mt_evring *er, const struct memtrace_trace_rec *rec);

#endif
