// SPDX-License-Identifier: GPL-2.0
/*
 * The allocation hooks: tracepoint probes that record allocations and
 * frees in the session's tables.
 *
 * They run wherever the kernel allocates: any context, hard IRQ included,
 * with preemption disabled.  So they never allocate, sleep or printk; they
 * run with interrupts disabled (one CPU's per-CPU state is then touched by
 * one hook at a time, whatever the context level), refuse NMI, and a
 * per-CPU busy flag catches re-entry from anything they call.  Every event
 * they cannot record is counted in struct memtrace_loss.
 */
#include <linux/irqflags.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/stacktrace.h>
#include <linux/timekeeping.h>

#include <trace/events/kmem.h>
#include <trace/events/percpu.h>

#include "compat.h"
#include "hooks.h"
#include "sampling.h"
#include "tp.h"
#include "tracer.h"

struct mt_alloc_event {
	unsigned long addr;
	unsigned long call_site;	/* 0: unknown */
	size_t bytes_req;
	size_t bytes_alloc;
	struct kmem_cache *cache;	/* MEMTRACE_KIND_CACHE */
	gfp_t gfp;			/* MEMTRACE_KIND_KMALLOC */
	u8 kind;
};

bool mt_sample(struct mt_pcpu *c, const struct mt_filter *f, size_t bytes)
{
	if (f->sample_bytes) {
		c->bytes_to_sample -= bytes;
		if (c->bytes_to_sample > 0)
			return false;
		c->bytes_to_sample = mt_bytes_to_next_sample(f->sample_bytes,
							     get_random_u32());
		return true;
	}
	/* Counted down as mt_record_alloc()'s lockless fast path does. */
	if (f->sample_every > 1) {
		if (--c->sample_left)
			return false;
		c->sample_left += f->sample_every;
	}
	return true;
}

u16 mt_current_comm(struct mt_pcpu *c)
{
	if (in_hardirq())
		return mt_comm_intern(&mt.names, "[hardirq]");
	if (in_serving_softirq())
		return mt_comm_intern(&mt.names, "[softirq]");
	/* Bytes past the name's NUL may differ: the name is then looked up. */
	if (c->last_comm_id && !memcmp(c->last_comm, current->comm, sizeof(c->last_comm)))
		return c->last_comm_id;
	memcpy(c->last_comm, current->comm, sizeof(c->last_comm));
	c->last_comm[sizeof(c->last_comm) - 1] = '\0';
	c->last_comm_id = mt_comm_intern(&mt.names, c->last_comm);
	return c->last_comm_id;
}

/*
 * The cache id of a slab allocation, interned on first sight; for kmalloc
 * it also sets bytes_alloc to the size class (the tracepoint gives the
 * slot size, with SLUB debug metadata when that is on).  Done only for
 * allocations that are recorded or filtered by cache: it is the costly
 * part of a hook that samples.
 */
static u16 mt_event_cache(struct mt_pcpu *c, struct mt_alloc_event *ev)
{
	const struct mt_cache_name *cn;
	u16 id;

	switch (ev->kind) {
	case MEMTRACE_KIND_KMALLOC:
		/* The slot size and flags that pick the cache pick the same one. */
		if (c->kmalloc.id && c->kmalloc.slot_size == ev->bytes_alloc &&
		    c->kmalloc.gfp == ev->gfp) {
			if (c->kmalloc.object_size)
				ev->bytes_alloc = c->kmalloc.object_size;
			return c->kmalloc.id;
		}
		id = mt_kmalloc_cache_intern(&mt.names, ev->bytes_req,
					     ev->bytes_alloc, ev->gfp);
		cn = mt_cache_get(&mt.names, id);
		c->kmalloc.id = cn ? id : 0;
		c->kmalloc.slot_size = ev->bytes_alloc;
		c->kmalloc.gfp = ev->gfp;
		c->kmalloc.object_size = cn ? cn->object_size : 0;
		if (cn && cn->object_size)
			ev->bytes_alloc = cn->object_size;
		return id;
	case MEMTRACE_KIND_CACHE:
		id = mt_cache_lookup(&mt.names, (unsigned long)ev->cache);
		if (unlikely(!id)) {
			char fallback[MEMTRACE_NAME_LEN];
			const char *name = mt_kmem_cache_name(ev->cache);

			if (!name) {
				snprintf(fallback, sizeof(fallback), "unnamed-%u",
					 kmem_cache_size(ev->cache));
				name = fallback;
			}
			id = mt_cache_intern(&mt.names, (unsigned long)ev->cache,
					     name, kmem_cache_size(ev->cache));
		}
		cn = mt_cache_get(&mt.names, id);
		ev->bytes_req = ev->bytes_alloc = cn ? cn->object_size :
						  kmem_cache_size(ev->cache);
		return id;
	default:
		return MEMTRACE_CACHE_NONE;
	}
}

struct mt_pcpu *mt_hook_enter(unsigned long *flags)
{
	struct mt_pcpu *c;

	if (unlikely(in_nmi())) {
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

void mt_hook_exit(struct mt_pcpu *c, unsigned long flags)
{
	c->busy = 0;
	local_irq_restore(flags);
}

/* memtrace's own allocations, made under mt_lock(). */
static inline bool mt_is_self(void)
{
	return in_task() && current == READ_ONCE(mt.self);
}

static void mt_record_alloc(struct mt_alloc_event *ev)
{
	const struct mt_filter *f = &mt.filter;
	u16 cache_id = MEMTRACE_CACHE_NONE;
	bool cache_known = false, sampled = false;
	struct mt_pcpu *c;
	struct mt_live e;
	unsigned long flags;

	/*
	 * Under 1-in-N sampling with no filter to apply first, most
	 * allocations are decided here, with IRQ-safe per-CPU operations
	 * only: interrupts stay on and no other state is touched.  The
	 * allocation that counts down to 0 is sampled and starts the next N;
	 * one that interrupts it before it does counts below 0, into those N.
	 */
	if (f->sample_every > 1 && !f->by_cache && !f->min_size && !f->max_size &&
	    !in_nmi()) {
		if (this_cpu_dec_return(mt.pcpu->sample_left)) {
			this_cpu_inc(mt.pcpu->allocs_seen);
			this_cpu_inc(mt.pcpu->sampled_out);
			return;
		}
		this_cpu_add(mt.pcpu->sample_left, f->sample_every);
		sampled = true;
	}

	c = mt_hook_enter(&flags);
	if (!c)
		return;
	c->allocs_seen++;

	if (unlikely(mt_is_self())) {
		c->filtered++;
		goto done;
	}
	/* Cache filters, size filters and byte sampling need the cache's size. */
	if (f->by_cache || f->min_size || f->max_size || f->sample_bytes) {
		cache_id = mt_event_cache(c, ev);
		cache_known = true;
	}
	if (f->by_cache) {
		const struct mt_cache_name *cn = mt_cache_get(&mt.names, cache_id);

		if (!cn || !cn->selected) {
			c->filtered++;
			goto done;
		}
	}
	if (ev->bytes_alloc < f->min_size ||
	    (f->max_size && ev->bytes_alloc > f->max_size)) {
		c->filtered++;
		goto done;
	}
	if (!sampled && !mt_sample(c, f, ev->bytes_alloc)) {
		c->sampled_out++;
		goto done;
	}
	if (!cache_known)
		cache_id = mt_event_cache(c, ev);

	e.stack_id = mt_kstack_id(&mt.kstacks, c->frames, ev->call_site, f->depth,
				  NULL);
	if (unlikely(e.stack_id == MEMTRACE_STACK_NONE))
		c->loss.stack_full++;
	if (unlikely(cache_id == MEMTRACE_CACHE_NONE &&
		     (ev->kind == MEMTRACE_KIND_CACHE || ev->kind == MEMTRACE_KIND_KMALLOC)))
		c->loss.cache_full++;

	e.addr = ev->addr;
	e.ts_ns = ktime_get_mono_fast_ns();
	e.bytes_req = min_t(size_t, ev->bytes_req, U32_MAX);
	e.bytes_alloc = min_t(size_t, ev->bytes_alloc, U32_MAX);
	e.pid = in_task() ? current->pid : 0;
	e.cache_kind = MT_CACHE_KIND(cache_id, ev->kind);
	mt_account_alloc(c, &e);
done:
	mt_hook_exit(c, flags);
}

/* A trace record of e, allocated or freed by the current context. */
static void mt_trace(struct mt_pcpu *c, u8 type, const struct mt_live *e)
{
	const struct mt_stack *st = mt_stacktab_get(&mt.stacks, e->stack_id);
	struct memtrace_trace_rec r = {
		.ts_ns = type == MEMTRACE_TRACE_ALLOC ? e->ts_ns : ktime_get_mono_fast_ns(),
		.addr = e->addr,
		.caller = st && st->nr_frames ? st->ip[0] : 0,
		.stack_id = e->stack_id,
		.bytes_req = e->bytes_req,
		.bytes_alloc = e->bytes_alloc,
		.pid = in_task() ? current->pid : 0,
		.type = type,
		.kind = MT_KIND_OF(e->cache_kind),
		.cache_id = MT_CACHE_OF(e->cache_kind),
	};

	if (in_hardirq())
		strscpy(r.comm, "[hardirq]", sizeof(r.comm));
	else if (in_serving_softirq())
		strscpy(r.comm, "[softirq]", sizeof(r.comm));
	else
		memcpy(r.comm, current->comm, min(sizeof(r.comm), sizeof(current->comm)));
	if (!mt_ring_put(&mt.ring, &r))
		c->loss.trace_full++;
}

void mt_account_alloc(struct mt_pcpu *c, struct mt_live *e)
{
	struct mt_stat *s;
	bool indexed;

	e->comm_id = mt_current_comm(c);
	if (unlikely(!e->comm_id))
		c->loss.comm_full++;

	indexed = mt_livetab_insert(&mt.live, e);
	if (likely(indexed))
		c->allocs_recorded++;
	else
		c->loss.live_full++;
	if (mt.filter.trace)
		mt_trace(c, MEMTRACE_TRACE_ALLOC, e);

	s = mt_stattab_get(&mt.stats, MT_STAT_KEY(e->stack_id, e->cache_kind));
	if (unlikely(!s)) {
		c->loss.stat_full++;
		return;
	}
	s->allocs++;
	s->bytes += e->bytes_alloc;
	if (indexed) {
		s->live_count++;
		s->live_bytes += e->bytes_alloc;
		s->live_bytes_req += e->bytes_req;
	}
	if (!s->first_ns)
		s->first_ns = e->ts_ns;
	s->last_ns = e->ts_ns;
}

bool mt_account_free(struct mt_pcpu *c, unsigned long addr, u8 kind)
{
	struct mt_live e;
	struct mt_stat *s;

	c->frees_seen++;
	if (!mt_livetab_remove(&mt.live, addr, kind, &e))
		return false;
	c->frees_matched++;
	if (mt.filter.trace)
		mt_trace(c, MEMTRACE_TRACE_FREE, &e);
	s = mt_stattab_get(&mt.stats, MT_STAT_KEY(e.stack_id, e.cache_kind));
	if (unlikely(!s)) {
		c->loss.stat_full++;
		return true;
	}
	s->frees++;
	s->live_count--;
	s->live_bytes -= e.bytes_alloc;
	s->live_bytes_req -= e.bytes_req;
	return true;
}

static void mt_record_free(unsigned long addr, u8 kind)
{
	struct mt_pcpu *c;
	unsigned long flags;

	/*
	 * Most frees under sampling or filters are of addresses never
	 * recorded: answer those without disabling interrupts (probes run
	 * with preemption disabled, as mt_livetab_may_hold() needs).  When
	 * every allocation is recorded, most frees are of recorded ones.
	 */
	if (mt.filter.leaves_out && !in_nmi() &&
	    !mt_livetab_may_hold(&mt.live, addr, kind)) {
		this_cpu_inc(mt.pcpu->frees_seen);
		if (likely(!mt_is_self()))
			this_cpu_inc(mt.pcpu->loss.free_untracked);
		return;
	}
	c = mt_hook_enter(&flags);
	if (!c)
		return;
	/* Not found: allocated before tracing started, or not recorded. */
	if (!mt_account_free(c, addr, kind) && likely(!mt_is_self()))
		c->loss.free_untracked++;
	mt_hook_exit(c, flags);
}

/* ---- the tracepoint probes ------------------------------------------- */

static void mt_probe_kmalloc(void *data, unsigned long call_site,
			     const void *ptr, size_t bytes_req,
			     size_t bytes_alloc, gfp_t gfp, int node)
{
	struct mt_alloc_event ev = {
		.addr = (unsigned long)ptr, .call_site = call_site,
		.bytes_req = bytes_req, .bytes_alloc = bytes_alloc,
		.gfp = gfp, .kind = MEMTRACE_KIND_KMALLOC,
	};

	if (unlikely(ZERO_OR_NULL_PTR(ptr)))
		return;
	mt_record_alloc(&ev);
}

static void mt_probe_kfree(void *data, unsigned long call_site, const void *ptr)
{
	if (unlikely(ZERO_OR_NULL_PTR(ptr)))
		return;
	mt_record_free((unsigned long)ptr, MEMTRACE_KIND_KMALLOC);
}

static void mt_probe_kmem_cache_alloc(void *data, unsigned long call_site,
				      const void *ptr, struct kmem_cache *s,
				      gfp_t gfp, int node)
{
	struct mt_alloc_event ev = {
		.addr = (unsigned long)ptr, .call_site = call_site,
		.cache = s, .kind = MEMTRACE_KIND_CACHE,
	};

	if (unlikely(!ptr))
		return;
	mt_record_alloc(&ev);
}

static void mt_probe_kmem_cache_free(void *data, unsigned long call_site,
				     const void *ptr, const struct kmem_cache *s)
{
	if (unlikely(!ptr))
		return;
	mt_record_free((unsigned long)ptr, MEMTRACE_KIND_CACHE);
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
	ev.addr = page_to_pfn(page);
	mt_record_alloc(&ev);
}

static void mt_probe_page_free(void *data, struct page *page, unsigned int order)
{
	mt_record_free(page_to_pfn(page), MEMTRACE_KIND_PAGE);
}

static void mt_probe_page_free_batched(void *data, struct page *page)
{
	mt_record_free(page_to_pfn(page), MEMTRACE_KIND_PAGE);
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
	mt_record_free((unsigned long)ptr, MEMTRACE_KIND_PERCPU);
}

MT_CHECK_PROBE(kmalloc, mt_probe_kmalloc)
MT_CHECK_PROBE(kfree, mt_probe_kfree)
MT_CHECK_PROBE(kmem_cache_alloc, mt_probe_kmem_cache_alloc)
MT_CHECK_PROBE(kmem_cache_free, mt_probe_kmem_cache_free)
MT_CHECK_PROBE(mm_page_alloc, mt_probe_page_alloc)
MT_CHECK_PROBE(mm_page_free, mt_probe_page_free)
MT_CHECK_PROBE(mm_page_free_batched, mt_probe_page_free_batched)
MT_CHECK_PROBE(percpu_alloc_percpu, mt_probe_percpu_alloc)
MT_CHECK_PROBE(percpu_free_percpu, mt_probe_percpu_free)

static struct mt_tp mt_alloc_tps[] = {
	{ "kmalloc", mt_probe_kmalloc, MEMTRACE_EV_KMALLOC },
	{ "kfree", mt_probe_kfree, MEMTRACE_EV_KMALLOC },
	{ "kmem_cache_alloc", mt_probe_kmem_cache_alloc, MEMTRACE_EV_CACHE },
	{ "kmem_cache_free", mt_probe_kmem_cache_free, MEMTRACE_EV_CACHE },
	{ "mm_page_alloc", mt_probe_page_alloc, MEMTRACE_EV_PAGE },
	{ "mm_page_free", mt_probe_page_free, MEMTRACE_EV_PAGE },
	{ "mm_page_free_batched", mt_probe_page_free_batched, MEMTRACE_EV_PAGE },
	{ "percpu_alloc_percpu", mt_probe_percpu_alloc, MEMTRACE_EV_PERCPU },
	{ "percpu_free_percpu", mt_probe_percpu_free, MEMTRACE_EV_PERCPU },
};

static u32 mt_events_available;

int mt_tp_init(void)
{
	mt_events_available = mt_tp_lookup(mt_alloc_tps, ARRAY_SIZE(mt_alloc_tps));
	return mt_events_available ? 0 : -ENOENT;
}

u32 mt_tp_available(void)
{
	return mt_events_available;
}

int mt_hooks_attach(u32 events)
{
	return mt_tp_register(mt_alloc_tps, ARRAY_SIZE(mt_alloc_tps), events);
}

void mt_hooks_detach(void)
{
	mt_tp_unregister(mt_alloc_tps, ARRAY_SIZE(mt_alloc_tps));
}
