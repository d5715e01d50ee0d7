// SPDX-License-Identifier: GPL-2.0
/*
 * Event rings; see evring.h.
 */
#include <linux/cpumask.h>
#include <linux/irqflags.h>
#include <linux/kmemleak.h>
#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/vmalloc.h>

#include "compat/compat.h"
#include "rings/evring.h"

/* Largest ring: 16 MiB of data per CPU. */
#define MT_EVRING_MAX_PAGES	(4096U)
/*
 * All CPUs' rings together: a ring per possible CPU, and a host may have
 * many more possible CPUs than online ones.  The rings shrink to fit.
 */
#define MT_EVRING_MAX_TOTAL	(256UL << 20)

static void mt_evwake_fn(struct irq_work *w)
{
	struct mt_evwake *wk = container_of(w, struct mt_evwake, work);

	wake_up_interruptible(&wk->wait);
}

void mt_evwake_init(struct mt_evwake *w)
{
	init_waitqueue_head(&w->wait);
	init_irq_work(&w->work, mt_evwake_fn);
}

void mt_evwake_sync(struct mt_evwake *w)
{
	irq_work_sync(&w->work);
}

struct mt_evring *mt_evring_create(u32 data_pages, struct mt_evwake *wake)
{
	struct mt_evring *er;
	u32 cpu;

	BUILD_BUG_ON(sizeof(struct memtrace_evring_meta) > PAGE_SIZE);
	data_pages = roundup_pow_of_two(clamp_t(u32, data_pages, 1, MT_EVRING_MAX_PAGES));
	while (data_pages > 1 &&
	       (u64)(data_pages + 1) * PAGE_SIZE * nr_cpu_ids > MT_EVRING_MAX_TOTAL)
		data_pages /= 2;
	if ((u64)(data_pages + 1) * PAGE_SIZE * nr_cpu_ids > MT_EVRING_MAX_TOTAL)
		return NULL;
	er = kzalloc(sizeof(*er), GFP_KERNEL);
	if (!er)
		return NULL;
	er->nr_cpus = nr_cpu_ids;
	er->data_size = data_pages * PAGE_SIZE;
	er->stride = PAGE_SIZE + er->data_size;
	er->mem_size = er->stride * er->nr_cpus;
	er->wake = wake;
	er->cpus = kcalloc(er->nr_cpus, sizeof(*er->cpus), GFP_KERNEL);
	/* Zeroed: every position starts at 0, every pad word stays 0. */
	er->mem = vmalloc_user(er->mem_size);
	if (!er->cpus || !er->mem) {
		vfree(er->mem);
		kfree(er->cpus);
		kfree(er);
		return NULL;
	}
	/*
	 * -t's records hold the addresses of live objects: kmemleak must not
	 * take them for references (and miss the leaks it is the oracle for).
	 */
	kmemleak_no_scan(er->mem);
	for (cpu = 0; cpu < er->nr_cpus; cpu++) {
		u8 *base = (u8 *)er->mem + cpu * er->stride;

		er->cpus[cpu].meta = (struct memtrace_evring_meta *)base;
		er->cpus[cpu].data = base + PAGE_SIZE;
		atomic64_set(&er->cpus[cpu].lost, 0);
	}
	refcount_set(&er->ref, 1);
	return er;
}

void mt_evring_get(struct mt_evring *er)
{
	refcount_inc(&er->ref);
}

void mt_evring_put(struct mt_evring *er)
{
	if (er && refcount_dec_and_test(&er->ref)) {
		vfree(er->mem);
		kfree(er->cpus);
		kfree(er);
	}
}

/*
 * Count a dropped record where the reader sees it; any context.  Written
 * back until what the reader sees is at least this drop's count: an NMI
 * between the increment and the store may have stored a larger one.
 */
static void mt_evring_lost(struct mt_evring_cpu *c)
{
	s64 n = atomic64_inc_return(&c->lost);

	do {
		WRITE_ONCE(c->meta->lost, n);
		n = atomic64_read(&c->lost);
	} while (READ_ONCE(c->meta->lost) != n);
}

void *mt_evring_reserve(struct mt_evring *er, u16 type, u32 size, unsigned long *flags)
{
	struct memtrace_ev_hdr *hdr;
	struct mt_evring_cpu *c;
	u64 head, tail, at;
	u32 off, pad;

	local_irq_save(*flags);
	c = &er->cpus[smp_processor_id()];
	if (c->busy)		/* an NMI (or int3) inside a record of ours */
		goto drop;
	size = ALIGN(size, 8);
	/* A record larger than half the ring would stall the rest. */
	if (size < sizeof(*hdr) || size > er->data_size / 2)
		goto drop;
	c->busy = 1;
	/* An NMI must find busy set before it sees anything of the record. */
	barrier();
	/* Only this CPU writes producer_pos. */
	head = c->meta->producer_pos;
	/* Pairs with the release in mt_evring_consume(): that space is read. */
	tail = smp_load_acquire(&c->meta->consumer_pos);
	off = head & (er->data_size - 1);
	pad = off + size > er->data_size ? er->data_size - off : 0;
	if (head + pad + size - tail > er->data_size) {
		c->busy = 0;
		goto drop;
	}
	if (pad) {
		/* The end of the data is too short: a record to skip, then the start. */
		hdr = (struct memtrace_ev_hdr *)(c->data + off);
		hdr->size = pad;
		hdr->type = MEMTRACE_EVT_PAD;
		hdr->__pad = 0;
	}
	at = head + pad;
	c->head_before = head;
	c->reserved_at = at;
	hdr = (struct memtrace_ev_hdr *)(c->data + (at & (er->data_size - 1)));
	memset(hdr, 0, size);	/* no stale bytes reach the reader */
	hdr->size = size;
	hdr->type = type;
	return hdr;
drop:
	mt_evring_lost(c);
	local_irq_restore(*flags);
	return NULL;
}

bool mt_evring_commit(struct mt_evring *er, void *rec, unsigned long flags)
{
	struct mt_evring_cpu *c = &er->cpus[smp_processor_id()];
	struct memtrace_ev_hdr *hdr = rec;
	bool woke = false;
	u64 before = c->head_before;

	/* The record is complete before the reader can see it. */
	smp_store_release(&c->meta->producer_pos, c->reserved_at + hdr->size);
	WRITE_ONCE(c->meta->written, c->meta->written + 1);
	barrier();
	c->busy = 0;
	/*
	 * Only now look at the consumer (see evring.h): pairs with the
	 * barrier in mt_evring_consume().  It had read everything before
	 * this record: it may be asleep, or about to be.
	 */
	smp_mb();
	if (READ_ONCE(c->meta->consumer_pos) == before) {
		irq_work_queue(&er->wake->work);
		woke = true;
	}
	local_irq_restore(flags);
	return woke;
}

u64 mt_evring_pending(const struct mt_evring *er, u32 cpu)
{
	const struct memtrace_evring_meta *m = er->cpus[cpu].meta;

	/* Pairs with the release in mt_evring_commit(). */
	return smp_load_acquire(&m->producer_pos) - READ_ONCE(m->consumer_pos);
}

bool mt_evring_any_pending(const struct mt_evring *er)
{
	u32 cpu;

	for (cpu = 0; cpu < er->nr_cpus; cpu++)
		if (mt_evring_pending(er, cpu))
			return true;
	return false;
}

int mt_evring_consume(struct mt_evring *er, u32 cpu, u64 pos)
{
	struct memtrace_evring_meta *m;
	u64 old;

	if (cpu >= er->nr_cpus || !IS_ALIGNED(pos, 8))
		return -EINVAL;
	m = er->cpus[cpu].meta;
	old = READ_ONCE(m->consumer_pos);
	do {
		/* Acquire: pairs with the release in mt_evring_commit(). */
		if (pos < old || pos > smp_load_acquire(&m->producer_pos))
			return -EINVAL;
		/* cmpxchg is a full barrier: the records were read before the space is given back. */
	} while (!mt_try_cmpxchg64(&m->consumer_pos, &old, pos));
	/*
	 * The new position is visible before the reader looks at
	 * producer_pos again to decide whether to sleep: pairs with the
	 * barrier in mt_evring_commit().
	 */
	smp_mb();
	return 0;
}
