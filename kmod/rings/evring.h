/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Event rings: one ring of variable-size records per possible CPU, for
 * the pressure, growth and USDT events and, when the reader asks for them
 * there, -t's trace records (tracering.h), mapped read-only by the
 * reader.  The layout and protocol are the uapi
 * header's (struct memtrace_evring_meta); the model is perf's ring and
 * BPF's ring buffer: positions that only grow, the producer's published
 * with release semantics, the consumer's on another cache line.
 *
 * One producer per ring: the CPU it belongs to, with interrupts off for
 * the few instructions between reserve and commit.  What could still
 * come in between (an NMI, or a kprobe's int3, which the kernel enters as
 * an NMI) finds the ring busy, and its record is dropped and counted: no
 * lock, no cmpxchg loop, nothing that an NMI could deadlock on.  The
 * memory is allocated when the session starts, never in a hook.
 *
 * Wake-ups: a producer cannot wake a reader itself (it may run under
 * scheduler or runqueue locks), so a record that makes its ring
 * non-empty queues an irq_work, which does.  "Non-empty" is decided
 * after the record is published, against consumer_pos read behind a full
 * barrier; the consumer has a barrier between moving consumer_pos and
 * looking at producer_pos again (the reasoning of tracering.h).
 */
#ifndef MEMTRACE_EVRING_H
#define MEMTRACE_EVRING_H

#include <linux/atomic.h>
#include <linux/irq_work.h>
#include <linux/refcount.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/memtrace.h>

/* Where readers wait; outlives every ring (a poller may sit on it). */
struct mt_evwake {
	wait_queue_head_t wait;
	struct irq_work work;
};

/* Kernel-private state of one CPU's ring. */
struct mt_evring_cpu {
	struct memtrace_evring_meta *meta;	/* in the mapped memory */
	u8 *data;
	int busy;		/* a record is being written (interrupts off) */
	u64 reserved_at;	/* producer_pos the record in flight starts at */
	u64 head_before;	/* producer_pos before it (and its padding) */
	atomic64_t lost;	/* mirrored into meta->lost */
};

struct mt_evring {
	refcount_t ref;		/* the session's, and each mapping's */
	void *mem;		/* vmalloc_user(): every CPU's meta page and data */
	size_t mem_size;
	size_t stride;		/* PAGE_SIZE + data_size */
	u32 data_size;		/* power of 2, multiple of PAGE_SIZE */
	u32 nr_cpus;		/* nr_cpu_ids */
	bool kaddr;		/* records may hold kernel addresses (mapping needs CAP_SYSLOG) */
	struct mt_evwake *wake;
	struct mt_evring_cpu *cpus;
};

void mt_evwake_init(struct mt_evwake *w);
/* No wake-up runs any more (before the waker goes away). */
void mt_evwake_sync(struct mt_evwake *w);

/* A ring of data_pages (rounded up to a power of 2) per possible CPU. */
struct mt_evring *mt_evring_create(u32 data_pages, struct mt_evwake *wake);
void mt_evring_get(struct mt_evring *er);
void mt_evring_put(struct mt_evring *er);

/*
 * Producer, any context: room for a record of type and size (header
 * included) on this CPU's ring, its header filled, or NULL (full, too
 * big, or the ring busy under us: counted as lost).  Interrupts stay off
 * until mt_evring_commit(), which must follow a non-NULL reserve with
 * the same flags.
 */
void *mt_evring_reserve(struct mt_evring *er, u16 type, u32 size, unsigned long *flags);
/* Publish it; true if it made the ring non-empty and a wake-up was queued. */
bool mt_evring_commit(struct mt_evring *er, void *rec, unsigned long flags);

/* Bytes published on cpu's ring and not consumed yet. */
u64 mt_evring_pending(const struct mt_evring *er, u32 cpu);
/* Any ring has records. */
bool mt_evring_any_pending(const struct mt_evring *er);
/*
 * Consumer: records of cpu below pos are read.  -EINVAL unless
 * consumer_pos <= pos <= producer_pos and pos is 8-byte aligned.
 */
int mt_evring_consume(struct mt_evring *er, u32 cpu, u64 pos);

#endif
