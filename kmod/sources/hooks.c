// SPDX-License-Identifier: GPL-2.0
/*
 * The allocation tracepoint probes: kmalloc, kmem_cache_alloc and their
 * frees, page allocations and frees, percpu allocations and frees,
 * recorded in the session's tables by the shared recorder (recorder.h).
 * They are two rows of the table of event sources (sources.c), the free
 * side first and the allocation side last, with the kprobe and kretprobe
 * hooks on the paths no tracepoint covers between: the order that keeps
 * every free seen.
 *
 * They run wherever the kernel allocates: any context, hard IRQ included,
 * with preemption disabled.  So they never allocate, sleep or printk.
 * Their fast paths (an allocation sampled out, a free surely never
 * recorded) leave interrupts on and count with one per-CPU increment;
 * the rest goes through the recorder's guard, which disables interrupts
 * (one CPU's per-CPU state is then touched by one hook at a time,
 * whatever the context level), refuses NMI, and catches re-entry from
 * anything they call with a per-CPU busy flag.  Every event they cannot
 * record is counted in struct memtrace_loss.
 */
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/sched.h>

#include <trace/events/kmem.h>
#include <trace/events/percpu.h>

#include "compat/compat.h"
#include "session/recorder.h"
#include "sources/hooks.h"
#include "sources/tp.h"

/*
 * The slab probes try the sampling fast path themselves, before they
 * build an event: a sampled-out allocation and a free of an address
 * surely never recorded then cost a few instructions and no call; past
 * them, the recorder's mt_probe_*_record() and mt_probe_*_crossed().
 *
 * Every path past a sampled-out allocation ends in a tail call: the probe
 * then saves no register.  A kmalloc no larger than the largest kmalloc
 * cache has a slot of at most that size: no clamp for the countdown.
 */
static void mt_probe_kmalloc(void *data, unsigned long call_site,
			     const void *ptr, size_t bytes_req,
			     size_t bytes_alloc, gfp_t gfp, int node)
{
	enum mt_fast fast = MT_FAST_UNDECIDED;
	s64 left;

	if (unlikely(ZERO_OR_NULL_PTR(ptr)))
		return;
	/* A large kmalloc's pages are relabelled first, sampled or not. */
	if (unlikely(bytes_req > KMALLOC_MAX_CACHE_SIZE)) {
		fast = MT_FAST_NOT_TRIED;
	} else if (mt.filter.addr_sample_threshold) {
		fast = mt_every_fast((unsigned long)ptr);
	} else if (mt.filter.fast_bytes) {
		fast = mt_bytes_countdown(bytes_alloc, &left);
		if (fast == MT_FAST_CROSSED) {
			mt_probe_kmalloc_crossed(left, call_site, ptr, bytes_req,
						 bytes_alloc, gfp);
			return;
		}
	}
	if (fast != MT_FAST_OUT)
		mt_probe_kmalloc_record(fast, call_site, ptr, bytes_req, bytes_alloc, gfp);
}

static void mt_probe_kfree(void *data, unsigned long call_site, const void *ptr)
{
	if (unlikely(ZERO_OR_NULL_PTR(ptr)))
		return;
	mt_probe_free((unsigned long)ptr);
}

static void mt_probe_kmem_cache_alloc(void *data, unsigned long call_site,
				      const void *ptr, struct kmem_cache *s,
				      gfp_t gfp, int node)
{
	enum mt_fast fast = MT_FAST_UNDECIDED;
	u32 sample_bytes = 0;
	s64 left;

	if (unlikely(!ptr))
		return;
	if (mt.filter.addr_sample_threshold) {
		fast = mt_every_fast((unsigned long)ptr);
	} else if (mt.filter.fast_bytes) {
		sample_bytes = mt_kmem_cache_object_size_nocall(s);
		if (unlikely(!sample_bytes)) {
			/* The record path asks kmem_cache_size(). */
			mt_probe_cache_alloc_record(call_site, ptr, s, 0, MT_FAST_NOT_TRIED);
			return;
		}
		fast = mt_bytes_countdown(sample_bytes, &left);
		if (fast == MT_FAST_CROSSED) {
			mt_probe_cache_alloc_crossed(call_site, ptr, s, sample_bytes, left);
			return;
		}
	}
	if (fast != MT_FAST_OUT)
		mt_probe_cache_alloc_record(call_site, ptr, s, sample_bytes, fast);
}

/* kfree() of a cache's object is legal, and the reverse: one address space. */
static void mt_probe_kmem_cache_free(void *data, unsigned long call_site,
				     const void *ptr, const struct kmem_cache *s)
{
	if (unlikely(!ptr))
		return;
	mt_probe_free((unsigned long)ptr);
}

/* Pages are keyed by PFN. */
static void mt_probe_page_alloc(void *data, struct page *page,
				unsigned int order, gfp_t gfp, int migratetype)
{
	struct mt_alloc_event ev = {
		.bytes_req = PAGE_SIZE << order, .bytes_alloc = PAGE_SIZE << order,
		.kind = MEMTRACE_KIND_PAGE,
	};

	if (unlikely(!page))
		return;
	/* The task filling a percpu chunk: these pages back percpu allocations. */
	if (unlikely(in_task() && current == READ_ONCE(mt.pcpu_populator)))
		ev.kind = MEMTRACE_KIND_PERCPU_PAGE;
	ev.addr = page_to_pfn(page);
	mt_record_alloc(&ev);
}

/*
 * Every page freed fires mm_page_free (from free_pages_prepare()), batched
 * ones too, before mm_page_free_batched: that one is not probed, or a
 * batched page would count as freed twice.
 */
static void mt_probe_page_free(void *data, struct page *page, unsigned int order)
{
	mt_record_page_free(page_to_pfn(page), order);
}

static void mt_probe_percpu_alloc(void *data, unsigned long call_site,
				  bool reserved, bool is_atomic, size_t size,
				  size_t align, void *base_addr, int off,
				  void __percpu *ptr, size_t bytes_alloc,
				  gfp_t gfp)
{
	struct mt_alloc_event ev = {
		.addr = (unsigned long)ptr, .call_site = call_site,
		.bytes_req = size, .bytes_alloc = bytes_alloc,
		.kind = MEMTRACE_KIND_PERCPU,
	};

	mt_record_alloc(&ev);
}

static void mt_probe_percpu_free(void *data, void *base_addr, int off,
				 void __percpu *ptr)
{
	mt_record_percpu_free((unsigned long)ptr);
}

/* The kernel's own prototypes, where they are not 6.1's (compat.h). */
MT_KMEM_TP_ALLOC_PROBES(mt_probe_kmalloc, mt_probe_kmem_cache_alloc)
MT_KMEM_TP_FREE_PROBES(mt_probe_kmem_cache_free)
MT_PERCPU_TP_PROBES(mt_probe_percpu_alloc)

MT_CHECK_PROBE(kmalloc, MT_TP_KMALLOC)
MT_CHECK_PROBE(kfree, mt_probe_kfree)
MT_CHECK_PROBE(kmem_cache_alloc, MT_TP_CACHE_ALLOC)
MT_CHECK_PROBE(kmem_cache_free, MT_TP_CACHE_FREE)
MT_IF_TP_KMEM_NODE(MT_CHECK_PROBE(kmalloc_node, MT_TP_KMALLOC_NODE))
MT_IF_TP_KMEM_NODE(MT_CHECK_PROBE(kmem_cache_alloc_node, MT_TP_CACHE_ALLOC_NODE))
MT_CHECK_PROBE(mm_page_alloc, mt_probe_page_alloc)
MT_CHECK_PROBE(mm_page_free, mt_probe_page_free)
MT_CHECK_PROBE(percpu_alloc_percpu, MT_TP_PERCPU_ALLOC)
MT_CHECK_PROBE(percpu_free_percpu, mt_probe_percpu_free)

/* kfree() and kmem_cache_free() free either kind: both go with either. */
#define MT_EV_SLAB	(MEMTRACE_EV_KMALLOC | MEMTRACE_EV_CACHE)

static struct mt_tp mt_alloc_tps[] = {
	{ "kmalloc", MT_TP_KMALLOC, MEMTRACE_EV_KMALLOC, false },
	MT_TP_KMEM_NODE_ENTRY({ "kmalloc_node", MT_TP_KMALLOC_NODE, MEMTRACE_EV_KMALLOC, false })
	{ "kfree", mt_probe_kfree, MT_EV_SLAB, true },
	{ "kmem_cache_alloc", MT_TP_CACHE_ALLOC, MEMTRACE_EV_CACHE, false },
	MT_TP_KMEM_NODE_ENTRY({ "kmem_cache_alloc_node", MT_TP_CACHE_ALLOC_NODE,
				MEMTRACE_EV_CACHE, false })
	{ "kmem_cache_free", MT_TP_CACHE_FREE, MT_EV_SLAB, true },
	{ "mm_page_alloc", mt_probe_page_alloc, MEMTRACE_EV_PAGE, false },
	{ "mm_page_free", mt_probe_page_free, MEMTRACE_EV_PAGE, true },
	{ "percpu_alloc_percpu", MT_TP_PERCPU_ALLOC, MEMTRACE_EV_PERCPU, false },
	{ "percpu_free_percpu", mt_probe_percpu_free, MEMTRACE_EV_PERCPU, true },
};

static u32 mt_events_available;

int mt_hooks_init(void)
{
	mt_events_available = mt_tp_lookup(mt_alloc_tps, ARRAY_SIZE(mt_alloc_tps));
	return mt_events_available ? 0 : -ENOENT;
}

u32 mt_hooks_available(void)
{
	return mt_events_available;
}

/*
 * Every free hook before any allocation hook, and the reverse on the way
 * out: an allocation recorded while its free could pass unseen (a probe
 * not attached yet, or detached already) would stay recorded, a false leak.
 * The kprobe hooks' row comes between these two (sources.c).
 */
int mt_hooks_attach_frees(u32 events)
{
	return mt_tp_register(mt_alloc_tps, ARRAY_SIZE(mt_alloc_tps), events, true);
}

/* The last of the kernel allocations' rows to go: it waits for every probe. */
void mt_hooks_detach_frees(void)
{
	mt_tp_unregister(mt_alloc_tps, ARRAY_SIZE(mt_alloc_tps), true, true);
}

int mt_hooks_attach_allocs(u32 events)
{
	return mt_tp_register(mt_alloc_tps, ARRAY_SIZE(mt_alloc_tps), events, false);
}

/* No wait here: the free side's detach, after the kprobes', waits for all. */
void mt_hooks_detach_allocs(void)
{
	mt_tp_unregister(mt_alloc_tps, ARRAY_SIZE(mt_alloc_tps), false, false);
}
