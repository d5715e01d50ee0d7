// SPDX-License-Identifier: GPL-2.0
/*
 * Snapshots: the session's state, laid out in a reader's mapped buffer as
 * include/uapi/linux/memtrace.h describes.
 *
 * Counters come from merging the per-CPU tables; the age-filtered live
 * numbers (old_*) and the per-allocation records come from one walk of
 * the live index.  When the buffer is too small the layout is still
 * computed to the end, so the reader learns the size that will do.
 *
 * What the reader may not see (struct mt_view) is left out as it is laid
 * out: kernel addresses become 0 and kernel stacks have no frames, task
 * ids are those of the reader's pid namespace.
 */
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/vmalloc.h>

#include "control/tracer.h"
#include "session/sampling.h"
#include "sources/kprobe_hooks.h"
#include "sources/uprobes.h"

/* Age-filtered live totals of one merged key. */
struct mt_old {
	u64 count;
	u64 bytes;
	u64 est_count_q16;
	u64 est_bytes_q16;
};

struct mt_snap {
	u8 *buf;
	size_t size;
	size_t pos;		/* may pass size: then only measuring */
	u64 now_ns;
	u64 min_age_ns;
	bool want_allocs;
	bool hide_kstacks;	/* kernel stacks lose their frames */
	const struct mt_view *view;
	u32 nr_allocs;
	struct mt_stat *merged;
	struct mt_old *old;
	u32 mask;
};

/* Room for len bytes at the cursor, or NULL past the end of the buffer. */
static void *mt_snap_reserve(struct mt_snap *sn, size_t len)
{
	void *p = NULL;

	if (sn->pos + len <= sn->size)
		p = sn->buf + sn->pos;
	sn->pos += len;
	return p;
}

/* What one recorded allocation stands for under the sampling in force. */
static u64 mt_sample_weight_q16(u32 bytes)
{
	if (mt.filter.sample_bytes)
		return mt_byte_sample_weight_q16(bytes, mt.filter.sample_bytes);
	if (mt.filter.sample_every > 1)
		return (u64)mt.filter.sample_every << 16;
	return 1ULL << 16;
}

static void mt_snap_visit(const struct mt_live *e, void *arg)
{
	struct mt_snap *sn = arg;
	struct memtrace_alloc_rec *r;
	struct mt_stat *s;
	u16 cache_kind = e->cache_kind;
	struct mt_old *o;
	u64 w;

	if (sn->now_ns < e->ts_ns || sn->now_ns - e->ts_ns < sn->min_age_ns)
		return;
	if (MT_KIND_OF(cache_kind) == MEMTRACE_KIND_PAGE && pfn_valid(e->addr) &&
	    PageSlab(pfn_to_page(e->addr)))
		cache_kind = MT_CACHE_KIND(MEMTRACE_CACHE_NONE, MEMTRACE_KIND_SLAB_PAGE);
	s = mt_stat_slot(sn->merged, sn->mask, MT_STAT_KEY(e->stack_id, cache_kind));
	if (s) {
		o = &sn->old[s - sn->merged];
		w = mt_sample_weight_q16(e->bytes_alloc);
		o->count++;
		o->bytes += e->bytes_alloc;
		o->est_count_q16 += w;
		o->est_bytes_q16 += w * e->bytes_alloc;
	}
	if (!sn->want_allocs)
		return;
	sn->nr_allocs++;
	r = mt_snap_reserve(sn, sizeof(*r));
	if (!r)
		return;
	memset(r, 0, sizeof(*r));
	r->kind = MT_KIND_OF(cache_kind);
	r->addr = sn->view->kaddr || mt_kind_is_user(r->kind) ? e->addr : 0;
	r->ts_ns = e->ts_ns;
	r->stack_id = e->stack_id;
	r->bytes_req = e->bytes_req;
	r->bytes_alloc = e->bytes_alloc;
	r->pid = mt_view_pid(sn->view, e->pid);
	r->cache_id = MT_CACHE_OF(cache_kind);
	strscpy(r->comm, mt_comm_get(&mt.names, e->comm_id), sizeof(r->comm));
}

static int mt_cmp_u32(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

static u32 mt_snap_stats(struct mt_snap *sn, u32 *stack_ids)
{
	u32 i, nr = 0;

	for (i = 0; i <= sn->mask; i++) {
		const struct mt_stat *s = &sn->merged[i];
		const struct mt_old *o = &sn->old[i];
		struct memtrace_stat_rec *r;

		if (!s->key)
			continue;
		stack_ids[nr++] = MT_STAT_STACK(s->key);
		r = mt_snap_reserve(sn, sizeof(*r));
		if (!r)
			continue;
		memset(r, 0, sizeof(*r));
		r->stack_id = MT_STAT_STACK(s->key);
		r->cache_id = MT_CACHE_OF(MT_STAT_CACHE_KIND(s->key));
		r->kind = MT_KIND_OF(MT_STAT_CACHE_KIND(s->key));
		r->total_allocs = s->allocs;
		r->total_bytes = s->bytes;
		r->frees = s->frees;
		/* Per-CPU races can leave a sum below zero for an instant. */
		r->live_count = max_t(s64, s->live_count, 0);
		r->live_bytes = max_t(s64, s->live_bytes, 0);
		r->live_bytes_req = max_t(s64, s->live_bytes_req, 0);
		r->old_count = o->count;
		r->old_bytes = o->bytes;
		r->est_old_count = o->est_count_q16 >> 16;
		r->est_old_bytes = o->est_bytes_q16 >> 16;
		r->first_ns = s->first_ns;
		r->last_ns = s->last_ns;
	}
	return nr;
}

static u32 mt_snap_stacks(struct mt_snap *sn, u32 *ids, u32 nr)
{
	u32 i, emitted = 0;

	sort(ids, nr, sizeof(*ids), mt_cmp_u32, NULL);
	for (i = 0; i < nr; i++) {
		const struct mt_stack *st;
		struct memtrace_stack_rec *r;
		u32 f, nr_frames;
		u64 *ip;

		if (i && ids[i] == ids[i - 1])
			continue;
		st = mt_stacktab_get(&mt.stacks, ids[i]);
		if (!st)
			continue;	/* MEMTRACE_STACK_NONE */
		emitted++;
		nr_frames = sn->hide_kstacks ? 0 : st->nr_frames;
		r = mt_snap_reserve(sn, sizeof(*r) + nr_frames * sizeof(u64));
		if (!r)
			continue;
		r->id = ids[i];
		r->nr_frames = nr_frames;
		r->epoch = st->epoch;
		r->__pad = 0;
		ip = (u64 *)(r + 1);
		for (f = 0; f < nr_frames; f++)
			ip[f] = st->ip[f];
	}
	return emitted;
}

static u32 mt_snap_caches(struct mt_snap *sn)
{
	u32 id, nr = 0;

	for (id = 1; id < MT_CACHE_SLOTS; id++) {
		const struct mt_cache_name *cn = mt_cache_get(&mt.names, id);
		struct memtrace_cache_rec *r;

		if (!cn)
			continue;
		nr++;
		r = mt_snap_reserve(sn, sizeof(*r));
		if (!r)
			continue;
		memset(r, 0, sizeof(*r));
		r->id = id;
		r->flags = cn->selected ? MEMTRACE_CACHE_SELECTED : 0;
		r->object_size = cn->object_size;
		strscpy(r->name, cn->name, sizeof(r->name));
	}
	return nr;
}

static void mt_snap_unwind(struct memtrace_unwind_stats *sum,
			   const struct memtrace_unwind_stats *c)
{
	sum->frames_cfi += READ_ONCE(c->frames_cfi);
	sum->frames_fp += READ_ONCE(c->frames_fp);
	sum->frames_signal += READ_ONCE(c->frames_signal);
	sum->end_outermost += READ_ONCE(c->end_outermost);
	sum->end_no_table += READ_ONCE(c->end_no_table);
	sum->end_unmapped += READ_ONCE(c->end_unmapped);
	sum->end_bad_rule += READ_ONCE(c->end_bad_rule);
	sum->end_not_up += READ_ONCE(c->end_not_up);
	sum->end_fault += READ_ONCE(c->end_fault);
	sum->mm_busy += READ_ONCE(c->mm_busy);
}

static void mt_snap_counters(struct memtrace_snap_header *h)
{
	struct memtrace_activity *a = &h->activity;
	struct memtrace_loss *l = &h->loss;
	int cpu;

	for_each_possible_cpu(cpu) {
		const struct mt_pcpu *c = per_cpu_ptr(mt.pcpu, cpu);
		const struct mt_pcpu_fast *fp = per_cpu_ptr(&mt_fastpath, cpu);
		u64 fast_out = READ_ONCE(fp->sampled_out);
		u64 fast_untracked = READ_ONCE(fp->free_untracked);

		a->allocs_seen += READ_ONCE(c->allocs_seen) + fast_out;
		a->frees_seen += READ_ONCE(c->frees_seen) + fast_untracked +
				 READ_ONCE(fp->free_sampled_out);
		a->allocs_recorded += READ_ONCE(c->allocs_recorded);
		a->frees_matched += READ_ONCE(c->frees_matched);
		a->filtered += READ_ONCE(c->filtered);
		a->sampled_out += READ_ONCE(c->sampled_out) + fast_out;
		l->recursion += READ_ONCE(c->loss.recursion);
		l->nmi += READ_ONCE(c->loss.nmi);
		l->live_full += READ_ONCE(c->loss.live_full);
		l->stack_full += READ_ONCE(c->loss.stack_full);
		l->stat_full += READ_ONCE(c->loss.stat_full);
		l->cache_full += READ_ONCE(c->loss.cache_full);
		l->free_untracked += READ_ONCE(c->loss.free_untracked) + fast_untracked;
		l->comm_full += READ_ONCE(c->loss.comm_full);
		l->calls_full += READ_ONCE(c->loss.calls_full);
		l->trace_full += READ_ONCE(c->loss.trace_full);
		l->missed_free += READ_ONCE(c->loss.missed_free);
		h->target.nested += READ_ONCE(c->user_nested);
		h->target.stack_faults += READ_ONCE(c->user_stack_faults);
		mt_snap_unwind(&h->unwind, &c->unwind);
	}
	mt_user_snapshot(&h->target);
	mt_user_unwind_snapshot(&h->unwind);
	if (!(mt.attached & MEMTRACE_EV_USER)) {
		l->probe_missed = mt_kprobe_hooks_missed();
		h->blind = mt_kprobe_hooks_blind();
	}
	a->live_entries = mt_livetab_count(&mt.live);
	a->live_capacity = mt_livetab_capacity(&mt.live);
	a->live_grows = atomic_read(&mt.live.grows) < 0 ? 0 : atomic_read(&mt.live.grows);
	a->stacks = READ_ONCE(mt.stacks.nr_stacks);
	a->stack_pool_used = READ_ONCE(mt.stacks.pool_used);
	a->stack_pool_size = mt.stacks.pool_size;
}

int mt_snapshot(void *buf, size_t size, struct memtrace_snapshot_req *req,
		const struct mt_view *view)
{
	struct memtrace_snap_header *h, *hdr = &mt.snap_hdr;
	struct mt_snap sn = {
		.buf = buf, .size = size,
		.min_age_ns = req->min_age_ns,
		.want_allocs = req->flags & MEMTRACE_SNAP_ALLOCS,
		/* A session's stacks are all the kernel's or all the target's. */
		.hide_kstacks = !view->kaddr && !(mt.attached & MEMTRACE_EV_USER),
		.view = view,
	};
	u32 slots, *stack_ids = NULL;
	int ret = -ENOMEM;

	lockdep_assert_held(&mt.lock);	/* mt.snap_hdr is the session's */
	/* Pressure events alone (MEMTRACE_EV_PRESSURE) make no tables. */
	if (!mt.has_data || !mt.allocated)
		return -ENODATA;
	memset(hdr, 0, sizeof(*hdr));

	/* The merge can meet every key of every CPU, and the walk a few more. */
	slots = roundup_pow_of_two(2 * mt_stattab_used(&mt.stats) + 2048);
	sn.mask = slots - 1;
	sn.merged = kvcalloc(slots, sizeof(*sn.merged), GFP_KERNEL);
	sn.old = kvcalloc(slots, sizeof(*sn.old), GFP_KERNEL);
	stack_ids = kvcalloc(slots, sizeof(*stack_ids), GFP_KERNEL);
	if (!sn.merged || !sn.old || !stack_ids)
		goto out;
	ret = mt_stattab_merge(&mt.stats, sn.merged, slots);
	if (ret)
		goto out;

	sn.now_ns = ktime_get_mono_fast_ns();
	h = mt_snap_reserve(&sn, sizeof(*h));

	hdr->allocs_off = sn.pos;
	mt_livetab_for_each(&mt.live, mt_snap_visit, &sn);
	hdr->nr_allocs = sn.nr_allocs;

	hdr->stats_off = sn.pos;
	hdr->nr_stats = mt_snap_stats(&sn, stack_ids);

	hdr->stacks_off = sn.pos;
	hdr->nr_stacks = mt_snap_stacks(&sn, stack_ids, hdr->nr_stats);

	hdr->caches_off = sn.pos;
	hdr->nr_caches = mt_snap_caches(&sn);

	hdr->ksyms_off = sn.pos;
	/* Freed code's symbols are kernel addresses too. */
	if (!sn.hide_kstacks)
		sn.pos += mt_modsyms_export(&mt.modsyms, sn.pos < size ? sn.buf + sn.pos : NULL,
					    sn.pos < size ? size - sn.pos : 0, &hdr->nr_ksyms);
	hdr->ksym_rec_size = sizeof(struct memtrace_ksym_rec);
	hdr->code_epoch = READ_ONCE(mt.stacks.epoch);
	hdr->ksyms_dropped = mt.modsyms.dropped;

	if (sn.pos > size) {
		/* Room for growth until the next try. */
		req->needed = PAGE_ALIGN(sn.pos + sn.pos / 4);
		ret = -ENOSPC;
		goto out;
	}

	hdr->magic = MEMTRACE_SNAP_MAGIC;
	hdr->abi_version = MEMTRACE_ABI_VERSION;
	hdr->used = sn.pos;
	hdr->now_ns = sn.now_ns;
	hdr->start_ns = mt.start_ns;
	hdr->state = mt.tracing ? MEMTRACE_STATE_TRACING : MEMTRACE_STATE_STOPPED;
	hdr->events = mt.attached;
	hdr->sample_every = mt.filter.sample_every;
	hdr->sample_bytes = mt.filter.sample_bytes;
	hdr->min_age_ns = req->min_age_ns;
	hdr->stack_rec_size = sizeof(struct memtrace_stack_rec);
	hdr->stat_rec_size = sizeof(struct memtrace_stat_rec);
	hdr->alloc_rec_size = sizeof(struct memtrace_alloc_rec);
	hdr->cache_rec_size = sizeof(struct memtrace_cache_rec);
	if (sn.hide_kstacks)
		hdr->flags |= MEMTRACE_HDR_KADDR_HIDDEN;
	mt_snap_counters(hdr);
	memcpy(h, hdr, sizeof(*hdr));
	req->used = sn.pos;
	req->needed = sn.pos;
	ret = 0;
out:
	kvfree(stack_ids);
	kvfree(sn.old);
	kvfree(sn.merged);
	return ret;
}
