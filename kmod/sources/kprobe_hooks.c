// SPDX-License-Identifier: GPL-2.0
/*
 * The allocation and free paths no tracepoint covers, reached with kprobes
 * and kretprobes (docs/design.md lists them and why):
 *
 *   kmem_cache_free_bulk()   kfree_bulk(), hence kfree_rcu() batches
 *   kmem_cache_alloc_bulk()  skbs and others, bulk-allocated
 *   __vmalloc_node_range()   vmalloc, kvmalloc's fallback, module text,
 *   remove_vm_area()         and every vfree() path
 *   krealloc()               a resize in place changes the requested size
 *   (krealloc_node_align()   on 6.17+, where krealloc() is a macro)
 *   mempool_alloc()/_free()  elements taken from or returned to a reserve
 *   pcpu_populate_chunk()    the pages it takes back percpu allocations
 *   split_page()             a block of pages becomes single pages
 *   kmem_cache_destroy()     a cache's name dies with it
 *
 * The handlers run with preemption disabled (kretprobe return handlers in
 * the task that called, before its caller continues) and record through
 * the recorder's guard (recorder.h).  A free-side probe is attached before
 * the allocation side that depends on it, and an allocation side whose
 * free side could not be attached is left out: recording allocations
 * whose frees are never seen would report false leaks.  What a kernel
 * gives no hook for is reported (MEMTRACE_BLIND_*), and every hit the
 * kernel drops is counted (memtrace_loss.probe_missed).
 */
#define pr_fmt(fmt) "memtrace: " fmt

#include <linux/kprobes.h>
#include <linux/mempool.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/stacktrace.h>
#include <linux/timekeeping.h>
#include <linux/vmalloc.h>

#include "compat/compat.h"
#include "session/recorder.h"
#include "sources/kprobe_hooks.h"

/* A handler's per-call data, saved at entry for the return. */
struct mt_kp_call {
	unsigned long arg[3];
};

struct mt_kp {
	const char *symbol;
	u32 events;		/* attached with any of these MEMTRACE_EV_* */
	u32 blind;		/* MEMTRACE_BLIND_*: what is not seen without it */
	int needs;		/* index of a probe that must be attached first, or -1 */
	kprobe_pre_handler_t pre;		/* a kprobe, or */
	kretprobe_handler_t entry, ret;		/* a kretprobe */
	bool sleeps;		/* the function may sleep: more kretprobe instances */
	bool found;		/* the symbol is in this kernel (init) */
	bool attached;
	union {
		struct kprobe kp;
		struct kretprobe krp;
	};
};

static inline unsigned long mt_arg(struct pt_regs *regs, unsigned int n)
{
	return regs_get_kernel_argument(regs, n);
}

static inline struct mt_kp_call *mt_call(struct kretprobe_instance *ri)
{
	return (struct mt_kp_call *)ri->data;
}

static int mt_save_args(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct mt_kp_call *call = mt_call(ri);

	call->arg[0] = mt_arg(regs, 0);
	call->arg[1] = mt_arg(regs, 1);
	call->arg[2] = mt_arg(regs, 2);
	return 0;
}

/* ---- slab bulk ---------------------------------------------------------- */

/* kmem_cache_free_bulk(s, size, p): the objects are still there at entry. */
static int mt_kp_free_bulk(struct kprobe *kp, struct pt_regs *regs)
{
	size_t i, n = mt_arg(regs, 1);
	void **p = (void **)mt_arg(regs, 2);

	for (i = 0; i < n; i++) {
		void *obj = READ_ONCE(p[i]);

		if (obj)
			mt_record_kfree((unsigned long)obj);
	}
	return 0;
}

/*
 * kmem_cache_alloc_bulk(s, gfp, size, p) returned how many it put in p;
 * 7.x returns whether it put all size there.
 */
static int mt_kp_alloc_bulk_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct mt_kp_call *call = mt_call(ri);

	call->arg[0] = mt_arg(regs, 0);		/* s */
	call->arg[1] = mt_arg(regs, 3);		/* p */
	call->arg[2] = mt_arg(regs, 2);		/* size */
	return 0;
}

static int mt_kp_alloc_bulk(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct mt_kp_call *call = mt_call(ri);
	long i, n = (int)regs_return_value(regs);
	void **p = (void **)call->arg[1];
	u32 stack_id = 0;

#ifdef MEMTRACE_HAVE_KMEM_CACHE_ALLOC_BULK_BOOL
	/* A bool is returned in the low byte; the rest of the register is undefined. */
	n = (u8)regs_return_value(regs) ? min_t(unsigned long, call->arg[2], INT_MAX) : 0;
#endif
	for (i = 0; i < n; i++) {
		struct mt_alloc_event ev = {
			.addr = (unsigned long)READ_ONCE(p[i]),
			.call_site = mt_kretprobe_retaddr(ri),
			.cache = (struct kmem_cache *)call->arg[0],
			.kind = MEMTRACE_KIND_CACHE,
			.shared_stack_id = &stack_id,
		};

		if (ev.addr)
			mt_record_alloc(&ev);
	}
	return 0;
}

/* ---- krealloc ------------------------------------------------------------ */

/*
 * krealloc(p, new_size, gfp), krealloc_node_align(p, new_size, ...) on
 * 6.17+: in place, no tracepoint fires.
 */
static int mt_kp_krealloc(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct mt_kp_call *call = mt_call(ri);
	unsigned long ret = regs_return_value(regs);

	if (ret && ret == call->arg[0] && !ZERO_OR_NULL_PTR((void *)ret))
		mt_record_resize(ret, call->arg[1]);
	return 0;
}

/* ---- vmalloc --------------------------------------------------------------- */

/* Where __vmalloc_node_range() is: [start, end). */
static unsigned long mt_vmalloc_fn_start, mt_vmalloc_fn_end;

/*
 * A vmalloc inside vmalloc (the array of a big area's pages): its caller
 * argument is the outer call's, which would file it under the outer
 * call's stack.  Its own return address names it instead.  Asked on the
 * return, where the stack is the function's caller's: on entry a probe
 * entered by int3 or an optimized probe's detour buffer may hide it.
 */
static bool mt_vmalloc_nested(void)
{
	unsigned long frames[24];
	unsigned int i, n;

	if (!mt_vmalloc_fn_start)
		return false;
	n = stack_trace_save(frames, ARRAY_SIZE(frames), 0);
	/* A return address inside it: the outer call's. */
	for (i = 0; i < n; i++)
		if (frames[i] > mt_vmalloc_fn_start && frames[i] < mt_vmalloc_fn_end)
			return true;
	return false;
}

/*
 * __vmalloc_node_range(size, align, start, end, gfp, prot, vm_flags, node,
 * caller): caller is the return address in the function that asked.
 */
static int mt_kp_vmalloc_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct mt_kp_call *call = mt_call(ri);

	call->arg[0] = mt_arg(regs, 0);
	call->arg[1] = mt_arg(regs, 8);
	return 0;
}

static int mt_kp_vmalloc(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct mt_kp_call *call = mt_call(ri);
	unsigned long addr = regs_return_value(regs);
	unsigned long bytes = PAGE_ALIGN(call->arg[0]);
	u32 stack_id = 0;
	struct mt_alloc_event ev = {
		.addr = addr,
		.bytes_req = call->arg[0],
		.bytes_alloc = bytes,
		.kind = MEMTRACE_KIND_VMALLOC,
		.shared_stack_id = &stack_id,
	};

	if (!addr)
		return 0;
	ev.call_site = call->arg[1] && !mt_vmalloc_nested() ? call->arg[1] :
		       mt_kretprobe_retaddr(ri);
	if (!mt_record_alloc(&ev))
		stack_id = 0;
	mt_record_vmalloc_pages(addr, bytes >> PAGE_SHIFT, stack_id);
	return 0;
}

/* remove_vm_area(addr): every vfree() path, and vunmap(), which we never saw. */
static int mt_kp_vfree(struct kprobe *kp, struct pt_regs *regs)
{
	mt_record_vfree(mt_arg(regs, 0));
	return 0;
}

/* ---- mempool --------------------------------------------------------------- */

/*
 * Where a pool's elements are recorded: the kind (hence address space) and
 * key of element, and the bytes it holds; false for a pool of elements the
 * hooks never see (its own alloc function, not slab memory).
 */
static bool mt_mempool_element(const mempool_t *pool, void *element,
			       struct mt_alloc_event *ev)
{
	if (pool->alloc == mempool_alloc_slab) {
		ev->kind = MEMTRACE_KIND_CACHE;
		ev->cache = pool->pool_data;
		ev->addr = (unsigned long)element;
	} else if (pool->alloc == mempool_kmalloc) {
		ev->kind = MEMTRACE_KIND_KMALLOC;
		/* As kmalloc's tracepoint says: the request, and the slot it got. */
		ev->bytes_req = (size_t)pool->pool_data;
		ev->bytes_alloc = mt_kmalloc_size_roundup(ev->bytes_req);
		ev->addr = (unsigned long)element;
	} else if (pool->alloc == mempool_alloc_pages) {
		ev->kind = MEMTRACE_KIND_PAGE;
		ev->bytes_req = ev->bytes_alloc = PAGE_SIZE << (long)pool->pool_data;
		ev->addr = page_to_pfn((struct page *)element);
	} else {
		ev->cache = mt_slab_cache_of(element);
		if (!ev->cache)
			return false;
		ev->kind = MEMTRACE_KIND_CACHE;
		ev->addr = (unsigned long)element;
	}
	return true;
}

static int mt_kp_mempool_alloc_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct mt_kp_call *call = mt_call(ri);

	call->arg[0] = mt_arg(regs, 0);		/* pool */
	call->arg[1] = ktime_get_mono_fast_ns();
	return 0;
}

/*
 * mempool_alloc(pool, gfp): an element that comes from the pool's reserve
 * is this caller's allocation now.  If it went back there by mempool_free()
 * it is not recorded (mt_kp_mempool_free): record it; if it is one of the
 * reserve's first elements, recorded when the pool was made, hand it over.
 * One the hooks recorded during this call came from the pool's allocator.
 */
static int mt_kp_mempool_alloc(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	void *element = (void *)regs_return_value(regs);
	struct mt_kp_call *call = mt_call(ri);
	struct mt_alloc_event ev = { .call_site = mt_kretprobe_retaddr(ri) };

	if (!element || !mt_mempool_element((const mempool_t *)call->arg[0], element, &ev))
		return 0;
	if (!mt_is_recorded(ev.addr, ev.kind))
		mt_record_alloc(&ev);
	else
		mt_record_reassign(ev.addr, ev.kind, call->arg[1], ev.call_site);
	return 0;
}

/*
 * mempool_free(element, pool): an element still recorded after it went
 * back into the reserve (no free tracepoint fired) is freed, for its user.
 */
static int mt_kp_mempool_free(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct mt_kp_call *call = mt_call(ri);
	void *element = (void *)call->arg[0];
	struct mt_alloc_event ev = { };

	if (!element || !mt_mempool_element((const mempool_t *)call->arg[1], element, &ev) ||
	    !mt_is_recorded(ev.addr, ev.kind))
		return 0;
	if (ev.kind == MEMTRACE_KIND_PAGE)
		mt_record_page_free(ev.addr, mt_bytes_order(ev.bytes_alloc));
	else
		mt_record_kfree(ev.addr);
	return 0;
}

/* ---- pages ----------------------------------------------------------------- */

/*
 * split_page(page, order): vmalloc's huge pages, alloc_pages_exact(), and
 * drivers turn a block into single pages, used and freed one by one.
 */
static int mt_kp_split_page(struct kprobe *kp, struct pt_regs *regs)
{
	mt_record_page_split(page_to_pfn((struct page *)mt_arg(regs, 0)), mt_arg(regs, 1));
	return 0;
}

/* ---- percpu chunks, cache names ------------------------------------------- */

/* pcpu_populate_chunk() runs under pcpu_alloc_mutex: one task at a time. */
static int mt_kp_pcpu_populate_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	WRITE_ONCE(mt.pcpu_populator, current);
	return 0;
}

static int mt_kp_pcpu_populate(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	WRITE_ONCE(mt.pcpu_populator, NULL);
	return 0;
}

/* kmem_cache_destroy(s): a cache made later at its address is another. */
static int mt_kp_cache_destroy(struct kprobe *kp, struct pt_regs *regs)
{
	mt_cache_forget(&mt.names, mt_arg(regs, 0));
	return 0;
}

/* ---- the table ------------------------------------------------------------- */

/* Free sides (and the labels allocations need) first: see attach. */
enum {
	MT_KP_FREE_BULK, MT_KP_VFREE, MT_KP_MEMPOOL_FREE, MT_KP_CACHE_DESTROY,
	MT_KP_PCPU_POPULATE, MT_KP_SPLIT_PAGE,
	MT_KP_ALLOC_BULK, MT_KP_VMALLOC, MT_KP_KREALLOC, MT_KP_MEMPOOL_ALLOC,
	MT_KP_NR
};

#define MT_EV_SLAB	(MEMTRACE_EV_KMALLOC | MEMTRACE_EV_CACHE)

static struct mt_kp mt_kps[MT_KP_NR] = {
	[MT_KP_FREE_BULK] = {
		.symbol = "kmem_cache_free_bulk", .events = MT_EV_SLAB,
		.blind = MEMTRACE_BLIND_BULK_FREE, .needs = -1, .pre = mt_kp_free_bulk,
	},
	[MT_KP_ALLOC_BULK] = {
		.symbol = MT_ALLOC_FN(kmem_cache_alloc_bulk), .events = MEMTRACE_EV_CACHE,
		.blind = MEMTRACE_BLIND_BULK_ALLOC, .needs = MT_KP_FREE_BULK,
		.entry = mt_kp_alloc_bulk_entry, .ret = mt_kp_alloc_bulk, .sleeps = true,
	},
	[MT_KP_VFREE] = {
		.symbol = "remove_vm_area", .events = MEMTRACE_EV_VMALLOC,
		.blind = MEMTRACE_BLIND_VMALLOC, .needs = -1, .pre = mt_kp_vfree,
	},
	[MT_KP_VMALLOC] = {
		.symbol = MT_ALLOC_FN(__vmalloc_node_range), .events = MEMTRACE_EV_VMALLOC,
		.blind = MEMTRACE_BLIND_VMALLOC, .needs = MT_KP_VFREE,
		.entry = mt_kp_vmalloc_entry, .ret = mt_kp_vmalloc, .sleeps = true,
	},
	[MT_KP_KREALLOC] = {
		.symbol = MT_KREALLOC_FN, .events = MEMTRACE_EV_KMALLOC,
		.blind = MEMTRACE_BLIND_KREALLOC, .needs = -1,
		.entry = mt_save_args, .ret = mt_kp_krealloc, .sleeps = true,
	},
	[MT_KP_MEMPOOL_FREE] = {
		.symbol = "mempool_free", .events = MT_EV_SLAB | MEMTRACE_EV_PAGE,
		.blind = MEMTRACE_BLIND_MEMPOOL, .needs = -1,
		.entry = mt_save_args, .ret = mt_kp_mempool_free,
	},
	[MT_KP_MEMPOOL_ALLOC] = {
		.symbol = MT_ALLOC_FN(mempool_alloc), .events = MT_EV_SLAB | MEMTRACE_EV_PAGE,
		.blind = MEMTRACE_BLIND_MEMPOOL, .needs = MT_KP_MEMPOOL_FREE,
		.entry = mt_kp_mempool_alloc_entry, .ret = mt_kp_mempool_alloc, .sleeps = true,
	},
	[MT_KP_PCPU_POPULATE] = {
		.symbol = "pcpu_populate_chunk", .events = MEMTRACE_EV_PAGE,
		.blind = MEMTRACE_BLIND_PERCPU_CHUNK, .needs = -1,
		.entry = mt_kp_pcpu_populate_entry, .ret = mt_kp_pcpu_populate, .sleeps = true,
	},
	[MT_KP_SPLIT_PAGE] = {
		.symbol = "split_page", .events = MEMTRACE_EV_PAGE,
		.blind = MEMTRACE_BLIND_SPLIT_PAGE, .needs = -1, .pre = mt_kp_split_page,
	},
	[MT_KP_CACHE_DESTROY] = {
		.symbol = "kmem_cache_destroy", .events = MT_EV_SLAB,
		.blind = MEMTRACE_BLIND_CACHE_DESTROY, .needs = -1, .pre = mt_kp_cache_destroy,
	},
};

/*
 * Every handler runs with interrupts off.  While one runs, the kprobe core
 * counts this CPU as inside a probe: a probe hit by an interrupt then (the
 * network's softirq freeing skbs in bulk, say) would be dropped, counted in
 * nmissed, and a free dropped is a false leak.
 */
static int mt_kp_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct mt_kp *k = container_of(kp, struct mt_kp, kp);
	unsigned long flags;

	local_irq_save(flags);
	this_cpu_inc(mt.pcpu->in_kprobe);
	k->pre(kp, regs);
	this_cpu_dec(mt.pcpu->in_kprobe);
	local_irq_restore(flags);
	return 0;
}

static int mt_kp_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct mt_kp *k = container_of(mt_get_kretprobe(ri), struct mt_kp, krp);
	unsigned long flags;
	int ret;

	local_irq_save(flags);
	this_cpu_inc(mt.pcpu->in_kprobe);
	ret = k->entry(ri, regs);
	if (!ret)
		mt_krp_keep(regs);
	this_cpu_dec(mt.pcpu->in_kprobe);
	local_irq_restore(flags);
	return ret;
}

static int mt_kp_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct mt_kp *k = container_of(mt_get_kretprobe(ri), struct mt_kp, krp);
	unsigned long flags;

	local_irq_save(flags);
	this_cpu_inc(mt.pcpu->in_kprobe);
	mt_krp_ret_begin(ri, regs);
	k->ret(ri, regs);
	mt_krp_ret_end(ri);
	this_cpu_dec(mt.pcpu->in_kprobe);
	local_irq_restore(flags);
	return 0;
}

/* Armed, or (disarmed) only to learn whether the kernel has the function. */
static int mt_kp_register(struct mt_kp *k, bool armed)
{
	u32 flags = armed ? 0 : KPROBE_FLAG_DISABLED;

	if (k->pre) {
		memset(&k->kp, 0, sizeof(k->kp));
		k->kp.symbol_name = k->symbol;
		k->kp.pre_handler = mt_kp_pre;
		k->kp.flags = flags;
		return register_kprobe(&k->kp);
	}
	memset(&k->krp, 0, sizeof(k->krp));
	k->krp.kp.symbol_name = k->symbol;
	k->krp.kp.flags = flags;
	k->krp.entry_handler = k->entry ? mt_kp_entry : NULL;
	k->krp.handler = mt_kp_ret;
	k->krp.data_size = sizeof(struct mt_kp_call);
	/*
	 * An instance is held from entry to return: functions that sleep
	 * hold theirs longer, so more calls are in flight at once.
	 */
	k->krp.maxactive = max_t(int, 64, (k->sleeps ? 16 : 4) * num_possible_cpus());
	return register_kretprobe(&k->krp);
}

/* Hits dropped by probes of this session that were detached already. */
static u64 mt_kp_missed_detached;
/* What the last attach left unseen, for the events it was asked. */
static u32 mt_kp_blind;

/*
 * Unregister the probes of mask (bits of mt_kps[] indexes) in two batches:
 * each unregistering waits for an RCU grace period, once per batch.
 */
static void mt_kp_unregister_mask(unsigned long mask)
{
	struct kretprobe *krps[MT_KP_NR];
	struct kprobe *kps[MT_KP_NR];
	int i, nk = 0, nr = 0;

	for (i = 0; i < MT_KP_NR; i++) {
		if (!(mask & BIT(i)))
			continue;
		if (mt_kps[i].pre)
			kps[nk++] = &mt_kps[i].kp;
		else
			krps[nr++] = &mt_kps[i].krp;
	}
	/* Allocation sides (kretprobes) first, then the frees they need. */
	if (nr)
		unregister_kretprobes(krps, nr);
	if (nk)
		unregister_kprobes(kps, nk);
}

static u64 mt_kp_missed(const struct mt_kp *k)
{
	if (k->pre)
		return k->kp.nmissed;
	return k->krp.nmissed + k->krp.kp.nmissed;
}

/*
 * Which probes this kernel has: each is registered, disarmed (no handler
 * may run before the tables exist), and taken out again: the only exported
 * way to resolve a symbol, as for any kprobe.
 */
int mt_kprobe_hooks_init(void)
{
	unsigned long found = 0;
	int i, ret;

	BUILD_BUG_ON(MT_KP_NR > BITS_PER_LONG);
	for (i = 0; i < MT_KP_NR; i++) {
		struct mt_kp *k = &mt_kps[i];

		ret = mt_kp_register(k, false);
		if (ret) {
			pr_info("cannot probe %s (%d): not seen on this kernel\n",
				k->symbol, ret);
			continue;
		}
		k->found = true;
		found |= BIT(i);
	}
	if (mt_kps[MT_KP_VMALLOC].found) {
		unsigned long start = (unsigned long)mt_kps[MT_KP_VMALLOC].krp.kp.addr;
		unsigned long size = mt_function_size(start);

		if (size) {
			mt_vmalloc_fn_start = start;
			mt_vmalloc_fn_end = start + size;
		}
	}
	mt_kp_unregister_mask(found);
	return 0;
}

u32 mt_kprobe_hooks_available(void)
{
	return mt_kps[MT_KP_VFREE].found && mt_kps[MT_KP_VMALLOC].found ?
	       MEMTRACE_EV_VMALLOC : 0;
}

/*
 * The free side first (the table lists it first: a probe a later one needs
 * comes before it), then the allocations; detached in one batch, in which
 * kretprobes (the allocation sides) go first.
 */
int mt_kprobe_hooks_attach(u32 events)
{
	int i, ret;

	mt_kp_missed_detached = 0;
	mt_krp_lost_reset();
	for (i = 0; i < MT_KP_NR; i++) {
		struct mt_kp *k = &mt_kps[i];

		if (!(k->events & events) || !k->found)
			continue;
		if (k->needs >= 0 && !mt_kps[k->needs].attached)
			continue;
		ret = mt_kp_register(k, true);
		if (ret) {
			pr_warn("cannot attach to %s: %d\n", k->symbol, ret);
			continue;	/* reported as blind */
		}
		k->attached = true;
	}
	mt_kp_blind = 0;
	for (i = 0; i < MT_KP_NR; i++)
		if ((mt_kps[i].events & events) && !mt_kps[i].attached)
			mt_kp_blind |= mt_kps[i].blind;
	return 0;
}

void mt_kprobe_hooks_detach(void)
{
	unsigned long mask = 0;
	int i;

	for (i = 0; i < MT_KP_NR; i++)
		if (mt_kps[i].attached)
			mask |= BIT(i);
	mt_kp_unregister_mask(mask);
	/*
	 * Nothing was dropped there, but kernel stacks stop short at the
	 * kretprobe (5.10: compat.h); said once a session, at its end.
	 */
	if (mt_krp_lost())
		pr_info("%llu kernel stacks end at kretprobe_trampoline: its return-address table was full\n",
			mt_krp_lost());
	mt_krp_forget_all();
	for (i = 0; i < MT_KP_NR; i++) {
		u64 missed;

		if (!mt_kps[i].attached)
			continue;
		missed = mt_kp_missed(&mt_kps[i]);
		if (missed && mt_kps[i].pre)
			pr_info("%s: %llu hits missed (inside another probe)\n",
				mt_kps[i].symbol, missed);
		else if (missed)
			pr_info("%s: %llu hits missed (%d with no instance free, of %d)\n",
				mt_kps[i].symbol, missed, mt_kps[i].krp.nmissed,
				mt_kps[i].krp.maxactive);
		mt_kp_missed_detached += missed;
		mt_kps[i].attached = false;
	}
}

/* The kprobe and kretprobe hits the kernel dropped. */
u64 mt_kprobe_hooks_missed(void)
{
	u64 n = mt_kp_missed_detached;
	int i;

	for (i = 0; i < MT_KP_NR; i++)
		if (mt_kps[i].attached)
			n += mt_kp_missed(&mt_kps[i]);
	return n;
}

u32 mt_kprobe_hooks_blind(void)
{
	return mt_kp_blind;
}
