/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The shared recorder (recorder.c): what the allocation sources share,
 * the kernel tracepoint probes (hooks.c), kprobes on the paths no
 * tracepoint covers (kprobe_hooks.c) and user-mode uprobe handlers
 * (uprobes.c): the entry guard, the filters and sampling decisions, and
 * the accounting of an allocation or a free in the session's tables
 * (session.h); the growth and USDT probes use its task filter.  Below
 * the event sources, above the session's state.  The
 * slab probes' fast paths are inline here, so that a sampled-out
 * allocation or a free surely never recorded costs no call.
 */
#ifndef MEMTRACE_RECORDER_H
#define MEMTRACE_RECORDER_H

#include <linux/irqflags.h>
#include <linux/log2.h>
#include <linux/mm.h>

#include "compat/compat.h"
#include "session/sampling.h"
#include "session/session.h"

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

/* ---- the slab probes' fast paths (hooks.c), inline -------------------- */

/* mt_record_kfree() past its fast path. */
__noendbr void mt_record_kfree_guarded(unsigned long addr);
/* A free -s N may have sampled, or any free in other modes. */
__noendbr void mt_record_kfree_lookup(unsigned long addr);

/*
 * The kmalloc and kmem_cache_alloc probes past their fast paths (hooks.c
 * calls them in tail position only): record the allocation, or first
 * draw, byte sampling's countdown having crossed 0 at left.
 */
__noendbr void mt_probe_kmalloc_record(enum mt_fast fast, unsigned long call_site,
			     const void *ptr, size_t bytes_req,
			     size_t bytes_alloc, gfp_t gfp);
__noendbr void mt_probe_kmalloc_crossed(s64 left, unsigned long call_site,
			      const void *ptr, size_t bytes_req,
			      size_t bytes_alloc, gfp_t gfp);
__noendbr void mt_probe_cache_alloc_record(unsigned long call_site, const void *ptr,
				 struct kmem_cache *s, u32 sample_bytes,
				 enum mt_fast fast);
__noendbr void mt_probe_cache_alloc_crossed(unsigned long call_site, const void *ptr,
				  struct kmem_cache *s, u32 bytes, s64 left);

/* memtrace's own allocations: under mt_lock(), or the live index's growing. */
static inline bool mt_is_self(void)
{
	return in_task() && (current == READ_ONCE(mt.self) ||
			     current == READ_ONCE(mt.live.grower));
}

/* -s N in kernel mode: whether addr is one of the addresses sampled. */
static __always_inline bool mt_addr_is_sampled(unsigned long addr)
{
	return mt_addr_sampled(addr, mt.filter.addr_sample_seed,
			       mt.filter.addr_sample_threshold);
}

/*
 * Byte sampling's decision on the size the hook already has, with no
 * call and no lookup: a kmalloc's slot size as its tracepoint gives it,
 * a cache's object size, the event's size for the rest.  Only a sampled
 * allocation names its cache; a kmalloc found there to hold fewer bytes
 * than decided on (SLUB debug metadata) is thinned then
 * (mt_byte_sample_thin()).  A large kmalloc is left to the guarded path.
 * MT_FAST_CROSSED: the countdown reached 0 at *left, mt_bytes_crossed()
 * decides; the probes call it in a tail call of their own, so that their
 * sampled-out path saves no register.
 */
static __always_inline enum mt_fast mt_bytes_countdown(size_t bytes, s64 *left)
{
	*left = this_cpu_sub_return(mt_fastpath.bytes_to_sample, bytes);
	if (likely(*left > 0)) {
		this_cpu_inc(mt_fastpath.sampled_out);
		return MT_FAST_OUT;
	}
	return MT_FAST_CROSSED;
}

/*
 * -s N: the address decides, before any filter, with no per-CPU state
 * but a counter, in any context; the free of an address sampled out
 * decides alike (mt_free_sampled_out()).  Inline: it is the whole of a
 * sampled-out allocation.  A sampled one still meets the filters.
 */
static __always_inline enum mt_fast mt_every_fast(unsigned long addr)
{
	if (!mt.filter.addr_sample_threshold)
		return MT_FAST_UNDECIDED;
	if (mt_addr_is_sampled(addr))
		return MT_FAST_IN;
	this_cpu_inc(mt_fastpath.sampled_out);
	return MT_FAST_OUT;
}

/*
 * -s N in kernel mode: the free of an address never sampled, answered by
 * the address alone (counted, as a free seen that no allocation recorded
 * stands for: no loss).  Inline in the probes, before anything else.
 */
static __always_inline bool mt_free_sampled_out(unsigned long addr)
{
	if (!mt.filter.addr_sample_threshold || mt_addr_is_sampled(addr))
		return false;
	this_cpu_inc(mt_fastpath.free_sampled_out);
	return true;
}

/*
 * Most frees under sampling or filters are of addresses never recorded:
 * answer those without disabling interrupts (probes run with preemption
 * disabled, as mt_livetab_may_hold() needs).  When every allocation is
 * recorded, most frees are of recorded ones.
 */
static __always_inline bool mt_surely_untracked(unsigned long addr, enum mt_ns ns)
{
	if (!mt.filter.leaves_out || mt_livetab_may_hold(&mt.live, addr, ns) ||
	    unlikely(in_nmi()))
		return false;
	/* memtrace's own frees are seen, but their addresses are no loss. */
	if (unlikely(READ_ONCE(mt.self) || READ_ONCE(mt.live.grower)) && mt_is_self())
		this_cpu_inc(mt.pcpu->frees_seen);
	else
		this_cpu_inc(mt_fastpath.free_untracked);
	return true;
}

static inline void mt_record_percpu_free(unsigned long ptr)
{
	struct mt_pcpu *c;
	unsigned long flags;

	if (mt_free_sampled_out(ptr) || mt_surely_untracked(ptr, MT_NS_PERCPU))
		return;
	c = mt_hook_enter(&flags);
	if (!c)
		return;
	if (!mt_account_free(c, ptr, MEMTRACE_KIND_PERCPU) && likely(!mt_is_self()))
		c->loss.free_untracked++;
	mt_hook_exit(c, flags);
}

/*
 * The slab free probes: mt_record_kfree() with its common answers inline
 * and calls in tail position only, so that a free answered here saves no
 * register.  Under -s N, by the address; under byte sampling or filters,
 * an empty bucket of the live index, where preemption is off (an RCU
 * reader already), not in NMI, and memtrace allocates nothing now (its
 * own frees are counted apart): the rest is mt_record_kfree_lookup()'s.
 */
static __always_inline void mt_probe_free(unsigned long addr)
{
	unsigned int pc;

	if (mt_free_sampled_out(addr))
		return;
	if (!mt.filter.leaves_out) {
		mt_record_kfree_guarded(addr);
		return;
	}
	pc = preempt_count();
	if (likely(pc && !(pc & NMI_MASK)) &&
	    !mt_livetab_may_hold_nopreempt(&mt.live, addr, MT_NS_KVA) &&
	    likely(!READ_ONCE(mt.self) && !READ_ONCE(mt.live.grower))) {
		this_cpu_inc(mt_fastpath.free_untracked);
		return;
	}
	mt_record_kfree_lookup(addr);
}

#endif
