// SPDX-License-Identifier: GPL-2.0
/*
 * The shared recorder (recorder.h): the recording and accounting of
 * allocations and frees in the session's tables, for the allocation
 * sources (the tracepoint probes of hooks.c, the kprobes of
 * kprobe_hooks.c, user mode's uprobes of uprobes.c); growth.c and usdt.c
 * use its task filter (mt_task_selected()).
 *
 * It runs wherever the kernel allocates: any context, hard IRQ included.
 * So it never allocates, sleeps or printks.  Past the fast paths inline in
 * recorder.h (which leave interrupts on and touch one per-CPU counter), it
 * runs with interrupts disabled (one CPU's per-CPU state is then touched
 * by one hook at a time, whatever the context level), refuses NMI, and a
 * per-CPU busy flag catches re-entry from anything it calls.  Every event
 * it cannot record is counted in struct memtrace_loss.
 */
#include <linux/cgroup.h>
#include <linux/irqflags.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/pid.h>
#include <linux/prandom.h>
#include <linux/sched.h>
#include <linux/stacktrace.h>
#include <linux/timekeeping.h>

#include "compat/compat.h"
#include "session/recorder.h"
#include "session/sampling.h"

bool mt_sample(struct mt_pcpu *c, const struct mt_filter *f, size_t bytes)
{
	if (f->sample_bytes) {
		/* Interrupts are off: no fast path runs between these. */
		s64 before = this_cpu_read(mt_fastpath.bytes_to_sample);

		this_cpu_write(mt_fastpath.bytes_to_sample, before - bytes);
		if (before - (s64)bytes > 0)
			return false;
		/* Interrupting a fast path's crossing: see mt_bytes_crossed(). */
		if (unlikely(before <= 0))
			return mt_bytes_to_next_sample(f->sample_bytes,
						       prandom_u32_state(&c->rnd)) <= bytes;
		this_cpu_write(mt_fastpath.bytes_to_sample,
			       mt_bytes_to_next_sample(f->sample_bytes,
						       prandom_u32_state(&c->rnd)));
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

/* mt_slab_cache_id() for a cache other than this CPU's last one. */
static noinline u16 mt_slab_cache_id_slow(struct mt_pcpu *c, struct kmem_cache *s, int gen)
{
	const struct mt_cache_name *cn;
	u16 id;

	id = mt_cache_lookup(&mt.names, (unsigned long)s);
	if (unlikely(!id)) {
		char fallback[MEMTRACE_NAME_LEN];
		const char *name = mt_kmem_cache_name(s);

		if (!name) {
			snprintf(fallback, sizeof(fallback), "unnamed-%u",
				 kmem_cache_size(s));
			name = fallback;
		}
		id = mt_cache_intern(&mt.names, (unsigned long)s, name,
				     kmem_cache_size(s));
	}
	cn = mt_cache_get(&mt.names, id);
	/* The object size is the caller's from last_cache, id or not. */
	c->last_cache.key = id ? (unsigned long)s : 0;
	c->last_cache.generation = gen;
	c->last_cache.id = id;
	c->last_cache.object_size = cn ? cn->object_size : kmem_cache_size(s);
	return id;
}

/*
 * The id of slab cache s, interned on first sight; *object_size its size.
 * Inline, the lookup out of line: most allocations on a CPU come from the
 * cache of the one before, and that answer costs a few loads.
 */
static __always_inline u16 mt_slab_cache_id(struct mt_pcpu *c, struct kmem_cache *s,
					    u32 *object_size)
{
	int gen = atomic_read(&mt.names.generation);
	u16 id;

	if (likely(c->last_cache.key == (unsigned long)s &&
		   c->last_cache.generation == gen))
		id = c->last_cache.id;
	else
		id = mt_slab_cache_id_slow(c, s, gen);
	*object_size = c->last_cache.object_size;
	return id;
}

/*
 * The cache id of a slab allocation, interned on first sight, and the
 * bytes it holds: a cache's object size (for kmalloc the size class; the
 * tracepoint gives the slot size, with SLUB debug metadata when that is
 * on).  kmalloc allocations are named by the cache they really come from
 * (kmalloc-cg-, -rcl-, dma-, random and bucket caches: as /proc/slabinfo
 * names them), else by size class.  Done only for allocations that are
 * recorded or filtered by cache: it is the costly part of a hook that
 * samples.
 */
static __always_inline u16 mt_event_cache(struct mt_pcpu *c, struct mt_alloc_event *ev)
{
	const struct mt_cache_name *cn;
	struct kmem_cache *s;
	u32 object_size;
	u16 id;

	switch (ev->kind) {
	case MEMTRACE_KIND_KMALLOC:
		/* What kmalloc returned: a slab object, or pages (large). */
		s = ev->bytes_req <= KMALLOC_MAX_CACHE_SIZE ?
		    mt_slab_cache_of_object((void *)ev->addr) : NULL;
		if (s) {
			id = mt_slab_cache_id(c, s, &object_size);
			ev->bytes_alloc = object_size;
			return id;
		}
		id = mt_kmalloc_cache_intern(&mt.names, ev->bytes_req,
					     ev->bytes_alloc, ev->gfp);
		cn = mt_cache_get(&mt.names, id);
		if (cn && cn->object_size)
			ev->bytes_alloc = cn->object_size;
		return id;
	case MEMTRACE_KIND_CACHE:
		id = mt_slab_cache_id(c, ev->cache, &object_size);
		ev->bytes_req = ev->bytes_alloc = object_size;
		return id;
	default:
		return MEMTRACE_CACHE_NONE;
	}
}

bool mt_task_selected(const struct mt_filter *f)
{
	if (f->tgid && task_tgid(current) != f->tgid)
		return false;
	if (f->comm[0] && strncmp(current->comm, f->comm, TASK_COMM_LEN))
		return false;
#ifdef CONFIG_CGROUPS
	/* Hooks run with preemption disabled: an RCU read-side section. */
	if (f->cgroup && !cgroup_is_descendant(task_dfl_cgroup(current), f->cgroup))
		return false;
#endif
	return true;
}

/* Kernel mode's task filters (pid, name, cgroup): the allocating context passes. */
static bool mt_task_passes(const struct mt_filter *f)
{
	/* Interrupts allocate for no task. */
	return in_task() && mt_task_selected(f);
}

u32 mt_hook_stack_id(struct mt_pcpu *c, unsigned long call_site)
{
	u32 id = mt_kstack_id(&mt.kstacks, c->frames, call_site, mt.filter.depth,
			      NULL);

	if (unlikely(id == MEMTRACE_STACK_NONE))
		c->loss.stack_full++;
	return id;
}

/* ---- counters -------------------------------------------------------- */

/* mt_stat_of() for counters other than this CPU's last ones. */
static noinline struct mt_stat *mt_stat_of_slow(struct mt_pcpu *c, u64 key)
{
	struct mt_stat *s = mt_stattab_get(&mt.stats, key);

	if (unlikely(!s)) {
		c->loss.stat_full++;
		return NULL;
	}
	c->last_stat.key = key;
	c->last_stat.s = s;
	return s;
}

/*
 * e's counters; NULL (counted) when this CPU's table is full.  Inline,
 * the lookup out of line: an allocation and its free usually count on
 * the counters of the one before them on this CPU.
 */
static __always_inline struct mt_stat *mt_stat_of(struct mt_pcpu *c, const struct mt_live *e)
{
	u64 key = MT_STAT_KEY(e->stack_id, e->cache_kind);

	if (likely(c->last_stat.key == key))
		return c->last_stat.s;
	return mt_stat_of_slow(c, key);
}

/* Count e as allocated (and live, if the index holds it). */
static void mt_stat_alloc(struct mt_pcpu *c, const struct mt_live *e, bool live)
{
	struct mt_stat *s = mt_stat_of(c, e);

	if (!s)
		return;
	s->allocs++;
	s->bytes += e->bytes_alloc;
	if (live) {
		s->live_count++;
		s->live_bytes += e->bytes_alloc;
		s->live_bytes_req += e->bytes_req;
	}
	if (!s->first_ns)
		s->first_ns = e->ts_ns;
	s->last_ns = e->ts_ns;
}

/* Count e, which the index held, as freed. */
static void mt_stat_free(struct mt_pcpu *c, const struct mt_live *e)
{
	struct mt_stat *s = mt_stat_of(c, e);

	if (!s)
		return;
	s->frees++;
	s->live_count--;
	s->live_bytes -= e->bytes_alloc;
	s->live_bytes_req -= e->bytes_req;
}

/*
 * The index's entry changed from before to after in place (a relabel, a
 * resize): move it between counters as if it had always been after.
 */
static void mt_stat_move(struct mt_pcpu *c, const struct mt_live *before,
			 const struct mt_live *after)
{
	struct mt_stat *s = mt_stat_of(c, before);

	if (s) {
		s->allocs--;
		s->bytes -= before->bytes_alloc;
		s->live_count--;
		s->live_bytes -= before->bytes_alloc;
		s->live_bytes_req -= before->bytes_req;
	}
	s = mt_stat_of(c, after);
	if (s) {
		s->allocs++;
		s->bytes += after->bytes_alloc;
		s->live_count++;
		s->live_bytes += after->bytes_alloc;
		s->live_bytes_req += after->bytes_req;
		if (!s->first_ns || after->ts_ns < s->first_ns)
			s->first_ns = after->ts_ns;
		if (after->ts_ns > s->last_ns)
			s->last_ns = after->ts_ns;
	}
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

	struct mt_evring *er = mt.filter.trace_er;
	bool kept;

	if (in_hardirq())
		strscpy(r.comm, "[hardirq]", sizeof(r.comm));
	else if (in_serving_softirq())
		strscpy(r.comm, "[softirq]", sizeof(r.comm));
	else
		memcpy(r.comm, current->comm, min(sizeof(r.comm), sizeof(current->comm)));
	if (er) {
		/* The rings are mapped as they are: the starter's view now, not at read(2). */
		if (r.pid && mt.ev_pid_ns)
			r.pid = task_pid_nr_ns(current, mt.ev_pid_ns);
		if (!er->kaddr && !mt_kind_is_user(r.kind)) {
			r.addr = 0;
			r.caller = 0;
		}
		kept = mt_trace_evring_put(er, &r);
	} else {
		kept = mt_ring_put(&mt.ring, &r);
	}
	if (!kept)
		c->loss.trace_full++;
}

/* e, which the index held, is freed. */
static void mt_account_removed(struct mt_pcpu *c, const struct mt_live *e)
{
	c->frees_matched++;
	if (mt.filter.trace)
		mt_trace(c, MEMTRACE_TRACE_FREE, e);
	mt_stat_free(c, e);
}

/* Index e; false when the index is full.  A stale entry is a missed free. */
static bool mt_index(struct mt_pcpu *c, const struct mt_live *e)
{
	switch (mt_livetab_insert(&mt.live, e, &c->old)) {
	case MT_LIVE_FULL:
		c->loss.live_full++;
		return false;
	case MT_LIVE_REPLACED:
		c->loss.missed_free++;
		mt_stat_free(c, &c->old);
		break;
	case MT_LIVE_ADDED:
		break;
	}
	return true;
}

void mt_account_alloc(struct mt_pcpu *c, struct mt_live *e)
{
	bool indexed;

	e->comm_id = mt_current_comm(c);
	if (unlikely(!e->comm_id))
		c->loss.comm_full++;

	indexed = mt_index(c, e);
	if (likely(indexed))
		c->allocs_recorded++;
	if (mt.filter.trace)
		mt_trace(c, MEMTRACE_TRACE_ALLOC, e);
	mt_stat_alloc(c, e, indexed);
}

/* mt_account_free(), inline in the kfree hook: a free is as frequent as an allocation. */
static __always_inline bool __mt_account_free(struct mt_pcpu *c, unsigned long addr, u8 kind)
{
	c->frees_seen++;
	if (!mt_livetab_remove(&mt.live, addr, mt_kind_ns(kind), &c->old))
		return false;
	mt_account_removed(c, &c->old);
	return true;
}

bool mt_account_free(struct mt_pcpu *c, unsigned long addr, u8 kind)
{
	return __mt_account_free(c, addr, kind);
}

/* ---- allocations ----------------------------------------------------- */

/*
 * A random number from this CPU's prandom state, from any context but NMI
 * (the fast paths run with interrupts on, and on PREEMPT_RT even
 * preemptible): get_random_u32() takes a sleeping lock there.
 */
static u32 mt_pcpu_random(void)
{
	unsigned long flags;
	u32 r;

	local_irq_save(flags);
	r = prandom_u32_state(this_cpu_ptr(&mt.pcpu->rnd));
	local_irq_restore(flags);
	return r;
}

/*
 * The countdown of byte sampling crossed 0 (left, after bytes): out of
 * line, it draws.  The allocation that takes the countdown to 0 or below
 * is sampled and draws the next countdown.  One that interrupts it before
 * it does finds the countdown at 0 or below already: it draws for
 * itself, sampled with probability 1 - exp(-bytes / mean) as any other
 * (the gaps between sample points are memoryless), and leaves the
 * countdown to the one it interrupted.
 */
static noinline enum mt_fast mt_bytes_crossed(s64 left, s64 bytes, u32 mean)
{
	/*
	 * The probes count down in any context.  No allocation is made in
	 * NMI; were one, its draw could tear this CPU's prandom state: the
	 * countdown it took to 0 restarts at the mean, and the guarded path
	 * refuses the allocation (counted).
	 */
	if (unlikely(in_nmi())) {
		if (left + bytes > 0)
			this_cpu_write(mt_fastpath.bytes_to_sample, mean);
		return MT_FAST_UNDECIDED;
	}
	if (left + bytes > 0) {
		this_cpu_write(mt_fastpath.bytes_to_sample,
			       mt_bytes_to_next_sample(mean, mt_pcpu_random()));
		return MT_FAST_IN;
	}
	return mt_bytes_to_next_sample(mean, mt_pcpu_random()) <= bytes ?
	       MT_FAST_IN : MT_FAST_OUT;
}

/* Byte sampling's fast path, whole. */
static __always_inline enum mt_fast mt_bytes_fast(size_t bytes)
{
	enum mt_fast fast;
	s64 left;

	/* A kprobe's int3 too: the guarded path counts down for it. */
	if (!mt.filter.fast_bytes || in_nmi())
		return MT_FAST_UNDECIDED;
	bytes = min_t(size_t, bytes, U32_MAX);
	fast = mt_bytes_countdown(bytes, &left);
	if (fast != MT_FAST_CROSSED)
		return fast;
	fast = mt_bytes_crossed(left, bytes, mt.filter.fast_bytes);
	if (fast == MT_FAST_OUT)
		this_cpu_inc(mt_fastpath.sampled_out);
	return fast;
}

/* The bytes byte sampling decides an event on (see mt_bytes_fast()). */
static __always_inline size_t mt_event_sample_bytes(const struct mt_alloc_event *ev)
{
	return ev->kind == MEMTRACE_KIND_CACHE ? mt_kmem_cache_object_size(ev->cache) :
	       ev->bytes_alloc;
}

/*
 * The guarded path's sampling decision: -s N by address, as the fast
 * path and the free's (user mode counts down instead: mt_sample()).
 */
static bool mt_kernel_sample(struct mt_pcpu *c, const struct mt_filter *f,
			     unsigned long addr, size_t bytes)
{
	if (f->addr_sample_threshold)
		return mt_addr_is_sampled(addr);
	return mt_sample(c, f, bytes);
}

/* Remember that page blocks of this order may be split by later frees. */
static void mt_note_page_order(unsigned int order)
{
	int max = atomic_read(&mt.page_order_max);

	while ((int)order > max) {
		int was = atomic_cmpxchg(&mt.page_order_max, max, order);

		if (was == max)
			break;
		max = was;
	}
}

struct mt_relabel {
	u8 from, to;
};

static bool mt_relabel_edit(struct mt_live *e, void *arg)
{
	const struct mt_relabel *r = arg;

	if (MT_KIND_OF(e->cache_kind) == r->from)
		e->cache_kind = MT_CACHE_KIND(MT_CACHE_OF(e->cache_kind), r->to);
	return false;
}

/*
 * The pages under a kmalloc larger than the largest kmalloc cache were
 * recorded just before (the page tracepoint fires inside kmalloc): they
 * back the kmalloc's own record from now on.  Done whether or not the
 * kmalloc itself is sampled, so its pages are never counted twice.
 */
static noinline void mt_kmalloc_large_pages(unsigned long addr)
{
	struct mt_relabel r = { MEMTRACE_KIND_PAGE, MEMTRACE_KIND_KMALLOC_PAGE };
	struct mt_live before, after;
	struct mt_pcpu *c;
	unsigned long flags;

	if (!virt_addr_valid(addr))
		return;
	c = mt_hook_enter(&flags);
	if (!c)
		return;
	if (mt_livetab_edit(&mt.live, page_to_pfn(virt_to_page((void *)addr)), MT_NS_PFN,
			    mt_relabel_edit, &r, &before) &&
	    MT_KIND_OF(before.cache_kind) == r.from) {
		after = before;
		mt_relabel_edit(&after, &r);
		mt_stat_move(c, &before, &after);
	}
	mt_hook_exit(c, flags);
}

/*
 * mt_record_alloc(), inline in the slab probes: their event then lives in
 * registers, not in a zeroed frame with a canary.
 */
static __always_inline bool __mt_record_alloc(struct mt_alloc_event *ev)
{
	const struct mt_filter *f = &mt.filter;
	u16 cache_id = MEMTRACE_CACHE_NONE;
	bool cache_known = false, sampled = false;
	bool recorded = false;
	struct mt_pcpu *c;
	struct mt_live *e;
	unsigned long flags;

	if (unlikely(ev->kind == MEMTRACE_KIND_KMALLOC &&
		     ev->bytes_req > KMALLOC_MAX_CACHE_SIZE))
		mt_kmalloc_large_pages(ev->addr);

	if (ev->fast == MT_FAST_NOT_TRIED) {
		if (mt.filter.addr_sample_threshold) {
			ev->fast = mt_every_fast(ev->addr);
		} else if (mt.filter.fast_bytes &&
			   !(ev->kind == MEMTRACE_KIND_KMALLOC &&
			     ev->bytes_req > KMALLOC_MAX_CACHE_SIZE)) {
			/* Clamped before it is narrowed: a 4 GiB vmalloc is no small one. */
			ev->sample_bytes = min_t(size_t, mt_event_sample_bytes(ev), U32_MAX);
			ev->fast = mt_bytes_fast(ev->sample_bytes);
		}
	}
	if (ev->fast == MT_FAST_OUT)
		return false;
	sampled = ev->fast == MT_FAST_IN;

	c = mt_hook_enter(&flags);
	if (!c)
		return false;
	c->allocs_seen++;

	if (unlikely(mt_is_self())) {
		c->filtered++;
		goto done;
	}
	/* Every allocation recorded (full stacks): no filter to test. */
	if (likely(!f->leaves_out))
		goto record;
	if (f->by_task && !mt_task_passes(f)) {
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
	if (sampled ? !mt_byte_sample_thin(ev->bytes_alloc, ev->sample_bytes,
					   f->fast_bytes, prandom_u32_state(&c->rnd)) :
		      !mt_kernel_sample(c, f, ev->addr, ev->bytes_alloc)) {
		c->sampled_out++;
		goto done;
	}
record:
	if (!cache_known)
		cache_id = mt_event_cache(c, ev);

	e = &c->rec;

	if (!ev->shared_stack_id) {
		e->stack_id = mt_hook_stack_id(c, ev->call_site);
	} else {
		if (!*ev->shared_stack_id)
			*ev->shared_stack_id = mt_hook_stack_id(c, ev->call_site);
		e->stack_id = *ev->shared_stack_id;
	}
	if (unlikely(cache_id == MEMTRACE_CACHE_NONE &&
		     (ev->kind == MEMTRACE_KIND_CACHE || ev->kind == MEMTRACE_KIND_KMALLOC)))
		c->loss.cache_full++;

	e->addr = ev->addr;
	e->ts_ns = ktime_get_mono_fast_ns();
	e->bytes_req = min_t(size_t, ev->bytes_req, U32_MAX);
	e->bytes_alloc = min_t(size_t, ev->bytes_alloc, U32_MAX);
	e->pid = in_task() ? current->pid : 0;
	e->cache_kind = MT_CACHE_KIND(cache_id, ev->kind);
	if (mt_kind_ns(ev->kind) == MT_NS_PFN)
		mt_note_page_order(mt_bytes_order(ev->bytes_alloc));
	mt_account_alloc(c, e);
	recorded = true;
done:
	mt_hook_exit(c, flags);
	return recorded;
}

bool mt_record_alloc(struct mt_alloc_event *ev)
{
	return __mt_record_alloc(ev);
}

/* ---- frees ----------------------------------------------------------- */

/* A kmalloc too large for a cache: its pages are freed, and counted, next. */
static bool mt_is_large_kmalloc(unsigned long addr)
{
	return virt_addr_valid(addr) && !PageSlab(virt_to_head_page((void *)addr));
}

/* Remove an entry only if it is a vmalloc area. */
static bool mt_vmalloc_area_edit(struct mt_live *e, void *arg)
{
	return MT_KIND_OF(e->cache_kind) == MEMTRACE_KIND_VMALLOC;
}

/* mt_record_kfree() past its fast path. */
noinline __noendbr void mt_record_kfree_guarded(unsigned long addr)
{
	struct mt_pcpu *c;
	unsigned long flags;

	c = mt_hook_enter(&flags);
	if (!c)
		return;
	/*
	 * Not found: allocated before tracing started, or not recorded; or a
	 * large kmalloc, whose pages' free comes next and is counted instead.
	 */
	if (!__mt_account_free(c, addr, MEMTRACE_KIND_KMALLOC)) {
		if (mt_is_large_kmalloc(addr))
			c->frees_seen--;
		else if (likely(!mt_is_self()))
			c->loss.free_untracked++;
	}
	mt_hook_exit(c, flags);
}

/* A free -s N may have sampled, or any free in other modes. */
noinline __noendbr void mt_record_kfree_lookup(unsigned long addr)
{
	if (!mt_surely_untracked(addr, MT_NS_KVA))
		mt_record_kfree_guarded(addr);
}

void mt_record_kfree(unsigned long addr)
{
	if (!mt_free_sampled_out(addr))
		mt_record_kfree_lookup(addr);
}

/*
 * Free the piece [pfn, pfn + 2^order) of e, a recorded block of a higher
 * order that the kernel split (split_page(), a huge page split, a free of
 * part of alloc_pages_exact()): the rest of e stays recorded as the
 * buddy-aligned blocks it leaves, each an allocation of its own from then
 * on, with e's stack and time.
 */
static void mt_free_page_piece(struct mt_pcpu *c, const struct mt_live *e,
			       unsigned long pfn, unsigned int order)
{
	unsigned int e_order = mt_bytes_order(e->bytes_alloc), o;
	unsigned long base = e->addr;
	struct mt_live piece = *e, freed = *e;

	freed.addr = pfn;
	freed.bytes_req = freed.bytes_alloc = PAGE_SIZE << order;
	/* Halve around the freed piece; the halves it is not in stay. */
	for (o = e_order; o-- > order;) {
		unsigned long half = base + (1UL << o);

		piece.addr = pfn < half ? half : base;
		piece.bytes_req = piece.bytes_alloc = PAGE_SIZE << o;
		if (pfn >= half)
			base = half;
		if (mt_index(c, &piece))
			mt_stat_alloc(c, &piece, true);
	}
	/* The freed piece was part of e, which is no longer recorded whole. */
	mt_stat_move(c, e, &freed);
	mt_account_removed(c, &freed);
}

static bool mt_block_covers(const struct mt_live *e, unsigned long pfn)
{
	return pfn >= e->addr && pfn - e->addr < (1UL << mt_bytes_order(e->bytes_alloc));
}

/* Remove the block if it holds the page at *arg; leave a smaller one be. */
static bool mt_covers_edit(struct mt_live *e, void *arg)
{
	return mt_block_covers(e, *(unsigned long *)arg);
}

void mt_record_page_split(unsigned long pfn, unsigned int order)
{
	struct mt_live e, piece;
	struct mt_pcpu *c;
	unsigned long flags, i;

	c = mt_hook_enter(&flags);
	if (!c)
		return;
	if (!mt_livetab_remove(&mt.live, pfn, MT_NS_PFN, &e))
		goto out;
	/* The head becomes a page of its own; the others join it. */
	piece = e;
	piece.bytes_req = piece.bytes_alloc = PAGE_SIZE;
	mt_stat_move(c, &e, &piece);
	for (i = 0; i < (1UL << mt_bytes_order(e.bytes_alloc)); i++) {
		piece.addr = pfn + i;
		if (!mt_index(c, &piece)) {
			if (!i)
				mt_stat_free(c, &piece);
			continue;
		}
		if (i)
			mt_stat_alloc(c, &piece, true);
	}
out:
	mt_hook_exit(c, flags);
}

void mt_record_page_free(unsigned long pfn, unsigned int order)
{
	unsigned int o, max_order;
	struct mt_pcpu *c;
	struct mt_live e;
	unsigned long flags;

	c = mt_hook_enter(&flags);
	if (!c)
		return;
	c->frees_seen++;
	if (mt_livetab_remove(&mt.live, pfn, MT_NS_PFN, &e)) {
		if (mt_bytes_order(e.bytes_alloc) > order)
			mt_free_page_piece(c, &e, pfn, order);
		else
			mt_account_removed(c, &e);
		goto out;
	}
	/* Part of a bigger block that was split: the block is recorded at its head. */
	max_order = atomic_read(&mt.page_order_max);
	for (o = order + 1; o <= max_order; o++) {
		unsigned long head = pfn & ~((1UL << o) - 1);

		if (head == pfn)
			continue;	/* looked up already */
		if (mt_livetab_edit(&mt.live, head, MT_NS_PFN, mt_covers_edit, &pfn, &e) &&
		    mt_block_covers(&e, pfn)) {
			mt_free_page_piece(c, &e, pfn, order);
			goto out;
		}
	}
	if (likely(!mt_is_self()))
		c->loss.free_untracked++;
out:
	mt_hook_exit(c, flags);
}

void mt_record_vfree(unsigned long addr)
{
	struct mt_live e;
	struct mt_pcpu *c;
	unsigned long flags;

	c = mt_hook_enter(&flags);
	if (!c)
		return;
	/*
	 * Only an area recorded by vmalloc: vunmap() and iounmap() come here
	 * too, for areas that are no allocation, and are not counted.
	 */
	if (mt_livetab_edit(&mt.live, addr, MT_NS_KVA, mt_vmalloc_area_edit, NULL, &e) &&
	    MT_KIND_OF(e.cache_kind) == MEMTRACE_KIND_VMALLOC) {
		c->frees_seen++;
		mt_account_removed(c, &e);
	}
	mt_hook_exit(c, flags);
}

/* ---- in-place changes ------------------------------------------------ */

static bool mt_resize_edit(struct mt_live *e, void *arg)
{
	e->bytes_req = min_t(size_t, *(size_t *)arg, U32_MAX);
	return false;
}

void mt_record_resize(unsigned long addr, size_t bytes)
{
	struct mt_live before, after;
	struct mt_pcpu *c;
	unsigned long flags;

	c = mt_hook_enter(&flags);
	if (!c)
		return;
	if (mt_livetab_edit(&mt.live, addr, MT_NS_KVA, mt_resize_edit, &bytes, &before)) {
		after = before;
		mt_resize_edit(&after, &bytes);
		mt_stat_move(c, &before, &after);
	}
	mt_hook_exit(c, flags);
}

bool mt_is_recorded(unsigned long addr, u8 kind)
{
	unsigned long flags;
	bool held;

	local_irq_save(flags);
	held = mt_livetab_contains(&mt.live, addr, mt_kind_ns(kind));
	local_irq_restore(flags);
	return held;
}

struct mt_reassign {
	u64 since_ns;
	struct mt_live now;
};

/*
 * An entry from before the call: give it to the caller, as allocated now.
 * "Before" includes the call's first clock tick: where the clocksource is
 * jiffies (a guest whose TSC was found unstable) the clock moves in ticks,
 * and a pool made just before is in the same one.  An element the pool's
 * allocator made within that tick is the same caller's anyway.
 */
static bool mt_reassign_edit(struct mt_live *e, void *arg)
{
	const struct mt_reassign *r = arg;

	if (e->ts_ns <= r->since_ns) {
		e->stack_id = r->now.stack_id;
		e->ts_ns = r->now.ts_ns;
		e->pid = r->now.pid;
		e->comm_id = r->now.comm_id;
	}
	return false;
}

void mt_record_reassign(unsigned long addr, u8 kind, u64 since_ns, unsigned long call_site)
{
	struct mt_reassign r = { .since_ns = since_ns };
	struct mt_live before, after;
	struct mt_pcpu *c;
	unsigned long flags;

	c = mt_hook_enter(&flags);
	if (!c)
		return;
	r.now.stack_id = mt_hook_stack_id(c, call_site);
	r.now.ts_ns = ktime_get_mono_fast_ns();
	r.now.pid = in_task() ? current->pid : 0;
	r.now.comm_id = mt_current_comm(c);
	if (mt_livetab_edit(&mt.live, addr, mt_kind_ns(kind), mt_reassign_edit, &r, &before) &&
	    before.ts_ns <= since_ns) {
		after = before;
		mt_reassign_edit(&after, &r);
		mt_stat_move(c, &before, &after);
	}
	mt_hook_exit(c, flags);
}

struct mt_vmalloc_page {
	u32 stack_id;
	u16 comm_id;
};

/* A page the tracepoint recorded: keeps its stack unless the area has one. */
static bool mt_vmalloc_page_edit(struct mt_live *e, void *arg)
{
	const struct mt_vmalloc_page *vp = arg;

	e->cache_kind = MT_CACHE_KIND(MEMTRACE_CACHE_NONE, MEMTRACE_KIND_VMALLOC_PAGE);
	if (vp->stack_id) {
		e->stack_id = vp->stack_id;
		e->comm_id = vp->comm_id;
	}
	return false;
}

void mt_record_vmalloc_pages(unsigned long addr, unsigned long nr_pages, u32 stack_id)
{
	struct mt_vmalloc_page vp = { .stack_id = stack_id };
	u64 ts_ns = ktime_get_mono_fast_ns();
	struct mt_live before, after;
	unsigned long i, flags;
	struct mt_pcpu *c;

	/* The guard per page: interrupts stay off for one page at a time. */
	for (i = 0; i < nr_pages; i++) {
		struct page *page = vmalloc_to_page((void *)(addr + i * PAGE_SIZE));
		unsigned long pfn;

		if (!page)
			break;
		pfn = page_to_pfn(page);
		c = mt_hook_enter(&flags);
		if (!c)
			return;
		vp.comm_id = mt_current_comm(c);
		/* Recorded by the page tracepoint (vmalloc's fallback path): relabel. */
		if (mt_livetab_edit(&mt.live, pfn, MT_NS_PFN, mt_vmalloc_page_edit,
				    &vp, &before)) {
			after = before;
			mt_vmalloc_page_edit(&after, &vp);
			mt_stat_move(c, &before, &after);
		} else if (stack_id) {
			/* From the bulk page allocator, which has no tracepoint. */
			after = (struct mt_live) {
				.addr = pfn, .ts_ns = ts_ns, .stack_id = stack_id,
				.bytes_req = PAGE_SIZE, .bytes_alloc = PAGE_SIZE,
				.pid = current->pid, .comm_id = vp.comm_id,
				.cache_kind = MT_CACHE_KIND(MEMTRACE_CACHE_NONE,
							    MEMTRACE_KIND_VMALLOC_PAGE),
			};
			if (mt_index(c, &after))
				mt_stat_alloc(c, &after, true);
		}
		mt_hook_exit(c, flags);
	}
}

/* ---- the slab probes past their fast path (hooks.c) ------------------ */

/*
 * The kmalloc probe past its fast path: out of line, the probe needs no
 * frame.  fast comes where the probe's data did: the probe passes its
 * arguments on as they are.
 */
noinline __noendbr void mt_probe_kmalloc_record(enum mt_fast fast, unsigned long call_site,
					     const void *ptr, size_t bytes_req,
					     size_t bytes_alloc, gfp_t gfp)
{
	struct mt_alloc_event ev = {
		.addr = (unsigned long)ptr, .call_site = call_site,
		.bytes_req = bytes_req, .bytes_alloc = bytes_alloc,
		.sample_bytes = bytes_alloc,
		.gfp = gfp, .kind = MEMTRACE_KIND_KMALLOC, .fast = fast,
	};

	__mt_record_alloc(&ev);
}

/* Byte sampling's countdown crossed 0 at left: draw, and record if sampled. */
noinline __noendbr void mt_probe_kmalloc_crossed(s64 left, unsigned long call_site,
					      const void *ptr, size_t bytes_req,
					      size_t bytes_alloc, gfp_t gfp)
{
	enum mt_fast fast = mt_bytes_crossed(left, bytes_alloc, mt.filter.fast_bytes);

	if (fast == MT_FAST_OUT) {
		this_cpu_inc(mt_fastpath.sampled_out);
		return;
	}
	mt_probe_kmalloc_record(fast, call_site, ptr, bytes_req, bytes_alloc, gfp);
}

/* The kmem_cache_alloc probe past its fast path. */
noinline __noendbr void mt_probe_cache_alloc_record(unsigned long call_site, const void *ptr,
						 struct kmem_cache *s, u32 sample_bytes,
						 enum mt_fast fast)
{
	struct mt_alloc_event ev = {
		.addr = (unsigned long)ptr, .call_site = call_site,
		.cache = s, .kind = MEMTRACE_KIND_CACHE, .fast = fast,
		.sample_bytes = sample_bytes,
	};

	__mt_record_alloc(&ev);
}

/* mt_probe_kmalloc_crossed() for a cache's object of bytes. */
noinline __noendbr void mt_probe_cache_alloc_crossed(unsigned long call_site, const void *ptr,
						  struct kmem_cache *s, u32 bytes, s64 left)
{
	enum mt_fast fast = mt_bytes_crossed(left, bytes, mt.filter.fast_bytes);

	if (fast == MT_FAST_OUT) {
		this_cpu_inc(mt_fastpath.sampled_out);
		return;
	}
	mt_probe_cache_alloc_record(call_site, ptr, s, bytes, fast);
}
