/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every hook shares, kernel tracepoint probes (hooks.c), kprobes on
 * the paths no tracepoint covers (kprobe_hooks.c) and user-mode uprobe
 * handlers (uprobes.c) alike: the entry guard, the sampling decision, and
 * the accounting of an allocation or a free in the tables.
 */
#ifndef MEMTRACE_HOOKS_H
#define MEMTRACE_HOOKS_H

#include <linux/irqflags.h>
#include <linux/log2.h>
#include <linux/mm.h>

#include "tracer.h"

struct kmem_cache;

/*
 * NMI, where a hook may not take its locks.  A kprobe that is a breakpoint
 * (kernels without kprobes on ftrace) runs its handler in the int3 trap,
 * which the kernel enters as an NMI; that one is no NMI for the hooks: it
 * comes from a probed function called in an ordinary context, and the busy
 * flag still catches a real NMI that interrupts it.
 */
static inline bool mt_in_nmi(void)
{
	return in_nmi() && !this_cpu_read(mt.pcpu->in_kprobe);
}

/*
 * Enter a hook: refuse NMI, disable interrupts, and claim this CPU's
 * state, or count the re-entry and return NULL.  With interrupts off no
 * other context level can run on this CPU, so one busy flag guards them
 * all.  Pair with mt_hook_exit().
 */
static __always_inline struct mt_pcpu *mt_hook_enter(unsigned long *flags)
{
	struct mt_pcpu *c;

	if (unlikely(mt_in_nmi())) {
		this_cpu_inc(mt.pcpu->loss.nmi);
		return NULL;
	}
	local_irq_save(*flags);
	c = this_cpu_ptr(mt.pcpu);
	if (unlikely(c->busy)) {
		c->loss.recursion++;
		local_irq_restore(*flags);
		return NULL;
	}
	c->busy = 1;
	return c;
}

/*
 * Inline, as mt_hook_enter(): out of line, its flags would live in the
 * caller's memory, with a stack canary and a zeroing on every call.
 */
static __always_inline void mt_hook_exit(struct mt_pcpu *c, unsigned long flags)
{
	c->busy = 0;
	local_irq_restore(flags);
}

/*
 * Kernel mode's task filters (tgid, comm, cgroup): current passes them.
 * Any context of a task (a kprobe's int3 included), preemption disabled
 * (the cgroup is read under RCU).
 */
bool mt_task_selected(const struct mt_filter *f);

/* Sampling decision; true if an allocation of bytes is to be recorded. */
bool mt_sample(struct mt_pcpu *c, const struct mt_filter *f, size_t bytes);
/* The current task's name, interned (0 when the table is full). */
u16 mt_current_comm(struct mt_pcpu *c);

/*
 * Inside a hook: record e (all but comm_id filled in) in the live index
 * and its stack's counters, counting what does not fit.  An entry the
 * index held at e's address is a free that was never seen: it is counted
 * as freed and as a missed free.
 */
void mt_account_alloc(struct mt_pcpu *c, struct mt_live *e);
/* Inside a hook: a free of addr; false if the index does not hold it. */
bool mt_account_free(struct mt_pcpu *c, unsigned long addr, u8 kind);

/* The order of a page block of bytes. */
static inline unsigned int mt_bytes_order(size_t bytes)
{
	return bytes > PAGE_SIZE ? ilog2(bytes - 1) + 1 - PAGE_SHIFT : 0;
}

/* What a hook's fast path (hooks.c) made of an allocation. */
enum mt_fast {
	MT_FAST_NOT_TRIED,	/* mt_record_alloc() tries it */
	MT_FAST_UNDECIDED,	/* the guarded path decides */
	MT_FAST_OUT,		/* sampled out, counted */
	MT_FAST_IN,		/* sampled */
	MT_FAST_CROSSED,	/* a probe's: byte sampling's countdown crossed 0 */
};

/* A kernel allocation, as a hook sees it. */
struct mt_alloc_event {
	unsigned long addr;		/* for pages, the PFN */
	unsigned long call_site;	/* 0: unknown */
	size_t bytes_req;
	size_t bytes_alloc;
	struct kmem_cache *cache;	/* MEMTRACE_KIND_CACHE */
	gfp_t gfp;			/* MEMTRACE_KIND_KMALLOC */
	u8 kind;
	u8 fast;			/* enum mt_fast */
	/* What byte sampling's fast path decided on, when it did (MT_FAST_IN). */
	u32 sample_bytes;
	/*
	 * Objects of one bulk call share a stack: the first one recorded
	 * takes it, the rest reuse it (NULL: take a stack per object).
	 */
	u32 *shared_stack_id;
};

/*
 * Record a kernel allocation (any context; takes the hook guard itself).
 * False if it was not recorded (filtered, sampled out, or lost).
 */
bool mt_record_alloc(struct mt_alloc_event *ev);
/* A kernel free of a slab object or a vmalloc area (address space MT_NS_KVA). */
void mt_record_kfree(unsigned long addr);
/*
 * split_page(): the block of 2^order pages at pfn is 2^order pages of
 * order 0 from now on, each freed on its own; their recorded allocation
 * is split alike (same stack and time).
 */
void mt_record_page_split(unsigned long pfn, unsigned int order);
/* A kernel free of the pages [pfn, pfn + 2^order). */
void mt_record_page_free(unsigned long pfn, unsigned int order);
/*
 * The pages of a vmalloc area back the area's own record: label each one
 * MEMTRACE_KIND_VMALLOC_PAGE, under stack_id if the area was recorded
 * (then the pages the bulk page allocator gave without a tracepoint are
 * recorded too; stack_id 0: only the pages already recorded are labelled).
 */
void mt_record_vmalloc_pages(unsigned long addr, unsigned long nr_pages, u32 stack_id);
/* remove_vm_area(addr): the vmalloc area there, if one was recorded, is freed. */
void mt_record_vfree(unsigned long addr);
/*
 * The id of the current kernel stack from call_site on, under the hook
 * guard c: for callers that record several things with one stack.
 */
u32 mt_hook_stack_id(struct mt_pcpu *c, unsigned long call_site);

/* krealloc() resized addr in place: its requested size is now bytes. */
void mt_record_resize(unsigned long addr, size_t bytes);
/* Whether addr (in the address space of kind) is in the index now. */
bool mt_is_recorded(unsigned long addr, u8 kind);
/*
 * A recorded allocation made by since_ns changes hands, as a mempool
 * element taken from its reserve: it is the current caller's (stack from
 * call_site), made now.
 */
void mt_record_reassign(unsigned long addr, u8 kind, u64 since_ns, unsigned long call_site);

#endif
