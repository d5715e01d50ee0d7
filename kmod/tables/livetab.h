/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The live-allocation index: every allocation recorded and not yet freed,
 * keyed by (address, namespace).  It is global, not per-CPU, because a
 * free usually runs on another CPU than its allocation.
 *
 * A namespace is the space an address lives in (mt_kind_ns()): kernel
 * virtual addresses (kmalloc, slab caches and vmalloc share it, since
 * kfree() of a cache object and kvfree() of either are legal), page frame
 * numbers, percpu offsets, and the user addresses of user mode.  One
 * address holds at most one entry: an insert at an address the index
 * already holds replaces the stale entry and hands it back, so the caller
 * counts the free it never saw.
 *
 * Entries are preallocated in chunks and handed out from per-stripe free
 * lists; each stripe (a slice of the hash space) has its own raw spinlock,
 * bucket array and free list, so CPUs freeing unrelated addresses do not
 * contend.  Callers run with interrupts disabled, so the stripe locks are
 * safe in task, softirq and hard-IRQ context alike; in NMI (a kprobe's
 * int3 trap, the only NMI the hooks accept) a lock is tried until it is
 * taken (hooklock.h).
 *
 * Growth never happens in a hook: when a stripe runs low, the hook queues
 * an irq_work, which queues a work item that adds a chunk of entries and
 * doubles the buckets of crowded stripes.
 *
 * A free of an address that was never recorded (most frees, under
 * sampling) is answered without the stripe lock when its bucket is empty:
 * an address is inserted before it can be freed, and a replaced bucket
 * array is freed only after an RCU grace period (hooks run with
 * preemption disabled, which is an RCU read-side section).
 *
 * 40 bytes per entry plus 4 to 8 bytes of bucket heads.
 */
#ifndef MEMTRACE_LIVETAB_H
#define MEMTRACE_LIVETAB_H

#include <linux/hash.h>
#include <linux/preempt.h>
#include <linux/types.h>
#include <linux/rcupdate.h>
#include <linux/spinlock.h>
#include <linux/irq_work.h>
#include <linux/workqueue.h>
#include <linux/memtrace.h>

struct mt_live {
	unsigned long addr;
	u64 ts_ns;
	u32 next;		/* chain or free list; 0: end */
	u32 stack_id;
	u32 bytes_req;
	u32 bytes_alloc;
	u32 pid;
	u16 cache_kind;		/* MT_CACHE_KIND(cache_id, kind) */
	u16 comm_id;
};

/* 4 bits of kind (MEMTRACE_KIND_*), 12 of cache id (MT_CACHE_SLOTS). */
#define MT_KIND_BITS		4
#define MT_CACHE_KIND(cache, kind)	((u16)(((cache) << MT_KIND_BITS) | (kind)))
#define MT_KIND_OF(ck)		((ck) & ((1U << MT_KIND_BITS) - 1))
#define MT_CACHE_OF(ck)		((ck) >> MT_KIND_BITS)

enum mt_ns {
	MT_NS_KVA,		/* kernel virtual addresses: slab objects, vmalloc */
	MT_NS_PFN,		/* pages, by page frame number */
	MT_NS_PERCPU,		/* percpu pointers */
	MT_NS_USER,		/* user mode: malloc and friends */
	MT_NS_USER_MMAP,	/* user mode: mmap'd ranges (free() never frees them) */
};

static inline enum mt_ns mt_kind_ns(u8 kind)
{
	switch (kind) {
	case MEMTRACE_KIND_PAGE:
	case MEMTRACE_KIND_SLAB_PAGE:
	case MEMTRACE_KIND_VMALLOC_PAGE:
	case MEMTRACE_KIND_PERCPU_PAGE:
	case MEMTRACE_KIND_KMALLOC_PAGE:
		return MT_NS_PFN;
	case MEMTRACE_KIND_PERCPU:
		return MT_NS_PERCPU;
	case MEMTRACE_KIND_USER:
		return MT_NS_USER;
	case MEMTRACE_KIND_USER_MMAP:
		return MT_NS_USER_MMAP;
	default:	/* KMALLOC, CACHE, VMALLOC */
		return MT_NS_KVA;
	}
}

/*
 * A stripe's chain heads.  The mask lives with the heads so that a
 * lockless reader, which loads one pointer, never pairs an array with
 * another array's mask.
 */
struct mt_live_buckets {
	u32 mask;
	u32 head[];
};

struct mt_live_stripe {
	raw_spinlock_t lock;
	struct mt_live_buckets *buckets;	/* swapped under lock, freed after RCU */
	u32 free_head;
	u32 nr_free;
	u32 nr_used;
} ____cacheline_aligned_in_smp;

#define MT_LIVE_CHUNK_SHIFT	14	/* 16384 entries, 640 KiB a chunk */
#define MT_LIVE_CHUNK		(1U << MT_LIVE_CHUNK_SHIFT)

struct mt_livetab {
	struct mt_live **chunks;
	u32 nr_chunks;		/* chunks in use; entry 0 is never handed out */
	u32 max_chunks;
	struct mt_live_stripe *stripes;
	u32 stripe_bits;
	atomic_t grows;
	struct irq_work grow_irq_work;
	struct work_struct grow_work;
	struct mutex grow_mutex;	/* one grower at a time */
	/* The task growing the index now: its allocations are the index's. */
	struct task_struct *grower;
};

int mt_livetab_init(struct mt_livetab *t, u32 entries, u32 max_entries);
void mt_livetab_destroy(struct mt_livetab *t);
/* Only while no hook can run. */
void mt_livetab_clear(struct mt_livetab *t);

enum mt_live_insert {
	MT_LIVE_FULL,		/* the stripe has no free entry (growth is kicked) */
	MT_LIVE_ADDED,
	MT_LIVE_REPLACED,	/* *old: the entry that held the address */
};

/*
 * With interrupts disabled.  Insert e at its (address, namespace); an entry
 * already there is overwritten and copied to *old.
 */
enum mt_live_insert mt_livetab_insert(struct mt_livetab *t, const struct mt_live *e,
				      struct mt_live *old);
/* Remove the entry at (addr, ns), copied to *out; false if there is none. */
bool mt_livetab_remove(struct mt_livetab *t, unsigned long addr, enum mt_ns ns,
		       struct mt_live *out);
/*
 * Call edit on the entry at (addr, ns) under its stripe lock; *before gets
 * a copy of it as it was.  edit may change anything but the address and
 * the namespace of the kind, or return true to have the entry removed.
 * False if there is no entry at (addr, ns).
 */
bool mt_livetab_edit(struct mt_livetab *t, unsigned long addr, enum mt_ns ns,
		     bool (*edit)(struct mt_live *e, void *arg), void *arg,
		     struct mt_live *before);
/* Whether (addr, ns) is in the index now. */
bool mt_livetab_contains(struct mt_livetab *t, unsigned long addr, enum mt_ns ns);
#define MT_LIVE_STRIPE_BITS	10

static inline u32 mt_live_hash(unsigned long addr, enum mt_ns ns)
{
	return hash_64((u64)addr ^ ((u64)ns << 59), 32);
}

static inline struct mt_live_stripe *mt_live_stripe(const struct mt_livetab *t,
						    u32 hash)
{
	return &t->stripes[hash & ((1U << MT_LIVE_STRIPE_BITS) - 1)];
}

static inline u32 *mt_live_bucket(const struct mt_livetab *t,
				  struct mt_live_buckets *b, u32 hash)
{
	return &b->head[(hash >> MT_LIVE_STRIPE_BITS) & b->mask];
}

/* mt_livetab_may_hold() where preemption is on: out of line, the rare case. */
bool mt_livetab_may_hold_rcu(struct mt_livetab *t, struct mt_live_stripe *st, u32 hash);

/*
 * False when addr is surely not in the index (its bucket is empty): the
 * answer for most frees under sampling, with no lock and interrupts left
 * alone; bucket arrays are freed after RCU, so it reads under
 * rcu_read_lock().  Inline: it is the whole of a sampled-out free.
 */
static inline bool mt_livetab_may_hold(struct mt_livetab *t, unsigned long addr,
				       enum mt_ns ns)
{
	u32 hash = mt_live_hash(addr, ns);
	struct mt_live_stripe *st = mt_live_stripe(t, hash);
	/*
	 * A tracepoint probe with preemption on (PREEMPT_RT) is no RCU
	 * reader; with preemption off it is one already, and PREEMPT_RCU's
	 * rcu_read_lock() and unlock are two calls a free would pay.
	 */
	if (unlikely(preemptible()))
		return mt_livetab_may_hold_rcu(t, st, hash);
	return READ_ONCE(*mt_live_bucket(t, READ_ONCE(st->buckets), hash));
}

/* mt_livetab_may_hold() where preemption is known disabled (an RCU reader). */
static __always_inline bool mt_livetab_may_hold_nopreempt(struct mt_livetab *t,
							  unsigned long addr, enum mt_ns ns)
{
	u32 hash = mt_live_hash(addr, ns);

	return READ_ONCE(*mt_live_bucket(t, READ_ONCE(mt_live_stripe(t, hash)->buckets), hash));
}

/*
 * Grow one step now, low or not, in process context (tests; the work item
 * grows only while a stripe is low).
 */
int mt_livetab_grow(struct mt_livetab *t);

u64 mt_livetab_count(struct mt_livetab *t);
u64 mt_livetab_capacity(struct mt_livetab *t);

/*
 * Visit every entry, one stripe at a time under its lock (process context).
 * The callback must not sleep.
 */
void mt_livetab_for_each(struct mt_livetab *t,
			 void (*fn)(const struct mt_live *e, void *arg),
			 void *arg);

#endif
