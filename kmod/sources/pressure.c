// SPDX-License-Identifier: GPL-2.0
/*
 * Memory pressure events; see pressure.h.
 *
 * OOM kills: a kprobe at the entry of oom_kill_process(oc, message), which
 * is static but probeable by name, as BCC's oomkill does; oc names the
 * victim (oc->chosen, referenced by the caller), the memcg (held by the
 * caller) and the constraint.  The victim's memory as the kernel prints it
 * in its "Killed process" line is read where the kernel reads it: the
 * oom:mark_victim tracepoint, which __oom_kill_process() fires with the
 * victim's task lock held, so victim->mm is stable there.  Reading the mm
 * from the kprobe without that lock would race with the victim's exit
 * (where mark_victim passes no task, it is read there under the lock).
 *
 * Page reclaim's work (--vmscan): the vmscan tracepoints of kswapd's
 * runs, LRU isolation and shrinking, slab shrinkers and pageout, one
 * record each; the reader sums them per interval.  Which reclaim a record
 * belongs to (kswapd, direct, memcg) is the task's: the flag says kswapd,
 * and a memcg reclaim's records fall between its begin and end.
 *
 * Direct reclaim: the vmscan begin/end tracepoints of zone (direct) and
 * memcg reclaim.  Begin and end are two records paired by the reader by
 * task id: a task does not reclaim inside its own reclaim (PF_MEMALLOC),
 * and keeping the begin in a per-task slot here would need a table.
 */
#define pr_fmt(fmt) "memtrace: " fmt

#include <linux/cgroup.h>
#include <linux/compaction.h>
#include <linux/cred.h>
#include <linux/kprobes.h>
#include <linux/memcontrol.h>
#include <linux/migrate_mode.h>
#include <linux/mmzone.h>
#include <linux/mm_inline.h>
#include <linux/oom.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/shrinker.h>
#include <linux/swap.h>
#include <linux/sched.h>
#include <linux/sched/loadavg.h>
#include <linux/sched/task.h>
#include <linux/stacktrace.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>

/* Private to mm/ (see the compaction part below); the trace header names it. */
struct compact_control;
#include <trace/events/compaction.h>
#include <trace/events/migrate.h>
#include <trace/events/oom.h>
#include <trace/events/vmscan.h>

#include "compat/compat.h"
#include "rings/evring.h"
#include "sources/pressure.h"
#include "sources/tp.h"
#include "unwind/kstack.h"

/* Frames of the trigger's stack kept in an OOM record. */
#define MT_OOM_FRAMES	32

/* What the hooks write into, set before they are attached. */
static struct {
	struct mt_evring *er;
	struct pid_namespace *ns;	/* NULL: initial namespace */
	bool kaddr;
	unsigned long oom_fn;		/* oom_kill_process, for trimming stacks */
	unsigned long oom_fn_size;
} mt_pr;

static u32 mt_pr_pid(struct task_struct *t)
{
	return mt_pr.ns ? task_pid_nr_ns(t, mt_pr.ns) : t->pid;
}

static void mt_pr_comm(char *dst, struct task_struct *t)
{
	/* comm may change under us (prctl): a torn name, never an overrun. */
	memcpy(dst, t->comm, MEMTRACE_COMM_LEN);
	dst[MEMTRACE_COMM_LEN - 1] = '\0';
}

/* The head every record of a task's own doing starts with. */
struct mt_pr_head {
	struct memtrace_ev_hdr hdr;
	u64 ts_ns;
	u32 pid;
};

/*
 * A record of type and size on this CPU's ring, with its time and the
 * current task filled in, or NULL (no session, or dropped and counted);
 * mt_evring_commit(*erp, ...) publishes it.
 */
static void *mt_pr_rec(struct mt_evring **erp, u16 type, u32 size, unsigned long *flags)
{
	struct mt_pr_head *r;

	*erp = READ_ONCE(mt_pr.er);
	if (!*erp)
		return NULL;
	r = mt_evring_reserve(*erp, type, size, flags);
	if (!r)
		return NULL;
	r->ts_ns = ktime_get_mono_fast_ns();
	r->pid = mt_pr_pid(current);
	return r;
}

#define MT_PR_HEAD_OK(type)							\
	static_assert(offsetof(type, ts_ns) == offsetof(struct mt_pr_head, ts_ns) &&	\
		      offsetof(type, pid) == offsetof(struct mt_pr_head, pid))
MT_PR_HEAD_OK(struct memtrace_ev_reclaim);
MT_PR_HEAD_OK(struct memtrace_ev_kswapd);
MT_PR_HEAD_OK(struct memtrace_ev_lru_isolate);
MT_PR_HEAD_OK(struct memtrace_ev_lru_inactive);
MT_PR_HEAD_OK(struct memtrace_ev_lru_active);
MT_PR_HEAD_OK(struct memtrace_ev_shrink_slab);
MT_PR_HEAD_OK(struct memtrace_ev_vmscan_write);
MT_PR_HEAD_OK(struct memtrace_ev_compact);
MT_PR_HEAD_OK(struct memtrace_ev_compact_try);
MT_PR_HEAD_OK(struct memtrace_ev_migrate);

/* ---- OOM kills ---- */

/* The trigger's stack, from the probed function (oom_kill_process) out. */
static void mt_pr_oom_stack(struct memtrace_ev_oom_kill *r, u64 *frames,
			    struct pt_regs *regs)
{
	if (!mt_pr.kaddr)
		return;
	r->nr_frames = mt_kstack_kprobe(regs, mt_pr.oom_fn, mt_pr.oom_fn_size, frames,
					MT_OOM_FRAMES);
}

/* The ABI's name for the kernel's enum oom_constraint, which may change. */
static u32 mt_pr_constraint(enum oom_constraint c)
{
	switch (c) {
	case CONSTRAINT_CPUSET:
		return MEMTRACE_OOM_CONSTRAINT_CPUSET;
	case CONSTRAINT_MEMORY_POLICY:
		return MEMTRACE_OOM_CONSTRAINT_MEMORY_POLICY;
	case CONSTRAINT_MEMCG:
		return MEMTRACE_OOM_CONSTRAINT_MEMCG;
	default:
		return MEMTRACE_OOM_CONSTRAINT_NONE;
	}
}

/*
 * The victim's record: its memory as the kernel's "Killed process" line
 * prints it.  The caller holds the victim's task lock (mm is stable).
 */
static void mt_pr_victim(struct mt_evring *er, struct task_struct *task, uid_t uid)
{
	struct memtrace_ev_oom_victim *r;
	struct mm_struct *mm = task->mm;
	unsigned long flags;

	r = mt_evring_reserve(er, MEMTRACE_EVT_OOM_VICTIM, sizeof(*r), &flags);
	if (!r)
		return;
	r->ts_ns = ktime_get_mono_fast_ns();
	r->pid = mt_pr_pid(task);
	r->trigger_pid = mt_pr_pid(current);
	mt_pr_comm(r->comm, task);
	r->uid = uid;
	r->oom_score_adj = task->signal->oom_score_adj;
	if (mm) {
		r->total_vm_kb = mm->total_vm << (PAGE_SHIFT - 10);
		r->anon_rss_kb = get_mm_counter(mm, MM_ANONPAGES) << (PAGE_SHIFT - 10);
		r->file_rss_kb = get_mm_counter(mm, MM_FILEPAGES) << (PAGE_SHIFT - 10);
		r->shmem_rss_kb = get_mm_counter(mm, MM_SHMEMPAGES) << (PAGE_SHIFT - 10);
		r->pgtables_kb = mm_pgtables_bytes(mm) >> 10;
	}
	mt_evring_commit(er, r, flags);
}

#ifdef MEMTRACE_HAVE_MARK_VICTIM_TASK
static void mt_pr_mark_victim(void *data, struct task_struct *task, uid_t uid)
{
	struct mt_evring *er = READ_ONCE(mt_pr.er);

	/* __oom_kill_process() holds the task lock here (see the top). */
	if (er)
		mt_pr_victim(er, task, uid);
}
MT_CHECK_PROBE(mark_victim, mt_pr_mark_victim)
#else
/*
 * mark_victim passes a pid alone (mainline to 6.8): the victim's record is
 * taken in the oom_kill_process kprobe, right after the kill's, under the
 * task lock the kernel's own report takes (find_lock_task_mm(), not
 * exported: the victim's own, which a single-threaded victim has).  Its
 * memory is the same as at the kill but for the pages faulted in between.
 */
static void mt_pr_victim_at_kill(struct mt_evring *er, struct task_struct *victim)
{
	task_lock(victim);
	if (victim->mm)
		mt_pr_victim(er, victim, from_kuid(&init_user_ns, task_uid(victim)));
	task_unlock(victim);
}
#endif

static int mt_pr_oom_kill(struct kprobe *kp, struct pt_regs *regs)
{
	struct oom_control *oc = (struct oom_control *)regs_get_kernel_argument(regs, 0);
	struct memtrace_ev_oom_kill *r;
	struct mt_evring *er = READ_ONCE(mt_pr.er);
	struct task_struct *victim;
	unsigned long flags;

	if (!er || !oc)
		return 0;
	r = mt_evring_reserve(er, MEMTRACE_EVT_OOM_KILL,
			      sizeof(*r) + MT_OOM_FRAMES * sizeof(u64), &flags);
	if (!r)
		return 0;
	r->ts_ns = ktime_get_mono_fast_ns();
	r->trigger_pid = mt_pr_pid(current);
	mt_pr_comm(r->trigger_comm, current);
	victim = READ_ONCE(oc->chosen);
	if (victim && victim != (void *)-1UL) {
		r->victim_pid = mt_pr_pid(victim);
		mt_pr_comm(r->victim_comm, victim);
	}
	r->totalpages = oc->totalpages;
	r->points = oc->chosen_points;
	r->constraint = mt_pr_constraint(oc->constraint);
	r->order = oc->order;
	r->gfp_mask = (__force u32)oc->gfp_mask;
#ifdef CONFIG_MEMCG
	if (oc->memcg) {
		r->memcg_id = cgroup_id(oc->memcg->css.cgroup);
		r->memcg_max = READ_ONCE(oc->memcg->memory.max);
		r->memcg_usage = page_counter_read(&oc->memcg->memory);
	}
#endif
	r->loadavg[0] = READ_ONCE(avenrun[0]);
	r->loadavg[1] = READ_ONCE(avenrun[1]);
	r->loadavg[2] = READ_ONCE(avenrun[2]);
	mt_pr_oom_stack(r, (u64 *)(r + 1), regs);
	mt_evring_commit(er, r, flags);
#ifndef MEMTRACE_HAVE_MARK_VICTIM_TASK
	if (victim && victim != (void *)-1UL)
		mt_pr_victim_at_kill(er, victim);
#endif
	return 0;
}

static struct kprobe mt_pr_oom_kp = {
	.symbol_name = "oom_kill_process",
	.pre_handler = mt_pr_oom_kill,
};


/* ---- direct reclaim ---- */

static void mt_pr_reclaim(u16 type, u32 flags_ev, int order, gfp_t gfp,
			  unsigned long nr_reclaimed)
{
	struct mt_evring *er;
	struct memtrace_ev_reclaim *r;
	unsigned long flags;

	r = mt_pr_rec(&er, type, sizeof(*r), &flags);
	if (!r)
		return;
	r->flags = flags_ev;
	mt_pr_comm(r->comm, current);
	r->order = order;
	r->gfp_mask = (__force u32)gfp;
	r->nr_reclaimed = nr_reclaimed;
	mt_evring_commit(er, r, flags);
}

static void mt_pr_direct_begin(MT_TP_RECLAIM_BEGIN_ARGS)
{
	mt_pr_reclaim(MEMTRACE_EVT_RECLAIM_BEGIN, 0, order, gfp, 0);
}

static void mt_pr_direct_end(MT_TP_RECLAIM_END_ARGS)
{
	mt_pr_reclaim(MEMTRACE_EVT_RECLAIM_END, 0, 0, 0, nr_reclaimed);
}

static void mt_pr_memcg_begin(MT_TP_RECLAIM_BEGIN_ARGS)
{
	mt_pr_reclaim(MEMTRACE_EVT_RECLAIM_BEGIN, MEMTRACE_RECLAIM_MEMCG, order, gfp, 0);
}

static void mt_pr_memcg_end(MT_TP_RECLAIM_END_ARGS)
{
	mt_pr_reclaim(MEMTRACE_EVT_RECLAIM_END, MEMTRACE_RECLAIM_MEMCG, 0, 0, nr_reclaimed);
}

MT_CHECK_PROBE(mm_vmscan_direct_reclaim_begin, mt_pr_direct_begin)
MT_CHECK_PROBE(mm_vmscan_direct_reclaim_end, mt_pr_direct_end)
/* Without CONFIG_MEMCG: direct reclaim only. */
MT_IF_TP_MEMCG_RECLAIM(MT_CHECK_PROBE(mm_vmscan_memcg_reclaim_begin, mt_pr_memcg_begin))
MT_IF_TP_MEMCG_RECLAIM(MT_CHECK_PROBE(mm_vmscan_memcg_reclaim_end, mt_pr_memcg_end))

/* ---- page reclaim's work (--vmscan) ---- */

static u32 mt_pr_vmscan_flags(void)
{
	return current_is_kswapd() ? MEMTRACE_VMSCAN_KSWAPD : 0;
}

static void mt_pr_kswapd(u16 type, int nid, int zid, int order, gfp_t gfp)
{
	struct mt_evring *er;
	struct memtrace_ev_kswapd *r;
	unsigned long flags;

	r = mt_pr_rec(&er, type, sizeof(*r), &flags);
	if (!r)
		return;
	r->flags = mt_pr_vmscan_flags();
	r->nid = nid;
	r->zid = zid;
	r->order = order;
	r->gfp_mask = (__force u32)gfp;
	mt_pr_comm(r->comm, current);
	mt_evring_commit(er, r, flags);
}

static void mt_pr_kswapd_wake(void *data, int nid, int zid, int order)
{
	mt_pr_kswapd(MEMTRACE_EVT_KSWAPD_WAKE, nid, zid, order, 0);
}

static void mt_pr_kswapd_sleep(void *data, int nid)
{
	mt_pr_kswapd(MEMTRACE_EVT_KSWAPD_SLEEP, nid, -1, -1, 0);
}

static void mt_pr_wakeup_kswapd(void *data, int nid, int zid, int order, gfp_t gfp)
{
	mt_pr_kswapd(MEMTRACE_EVT_WAKEUP_KSWAPD, nid, zid, order, gfp);
}

static void mt_pr_lru_isolate_rec(int highest_zoneidx, int order, unsigned long nr_requested,
				  unsigned long nr_scanned, unsigned long nr_skipped,
				  unsigned long nr_taken, int lru)
{
	struct mt_evring *er;
	struct memtrace_ev_lru_isolate *r;
	unsigned long flags;

	r = mt_pr_rec(&er, MEMTRACE_EVT_LRU_ISOLATE, sizeof(*r), &flags);
	if (!r)
		return;
	r->flags = mt_pr_vmscan_flags();
	r->lru = lru;
	r->highest_zoneidx = highest_zoneidx;
	r->order = order;
	r->nr_requested = nr_requested;
	r->nr_scanned = nr_scanned;
	r->nr_skipped = nr_skipped;
	r->nr_taken = nr_taken;
	mt_evring_commit(er, r, flags);
}

static void mt_pr_lru_isolate(MT_TP_LRU_ISOLATE_ARGS)
{
	mt_pr_lru_isolate_rec(highest_zoneidx, order, nr_requested, nr_scanned, nr_skipped,
			      nr_taken, lru);
}

static void mt_pr_lru_inactive(void *data, int nid, unsigned long nr_scanned,
			       unsigned long nr_reclaimed, struct reclaim_stat *stat,
			       int priority, int file)
{
	struct mt_evring *er;
	struct memtrace_ev_lru_inactive *r;
	unsigned long flags;

	r = mt_pr_rec(&er, MEMTRACE_EVT_LRU_INACTIVE, sizeof(*r), &flags);
	if (!r)
		return;
	r->flags = mt_pr_vmscan_flags();
	r->nid = nid;
	/* 6.12's multi-generational LRU passes the list (LRU_INACTIVE_FILE), not a bool. */
	r->file = !!file;
	r->priority = priority;
	r->nr_scanned = nr_scanned;
	r->nr_reclaimed = nr_reclaimed;
	r->nr_dirty = stat->nr_dirty;
	r->nr_unqueued_dirty = stat->nr_unqueued_dirty;
	r->nr_congested = stat->nr_congested;
	r->nr_writeback = stat->nr_writeback;
	r->nr_immediate = stat->nr_immediate;
	r->nr_pageout = stat->nr_pageout;
	r->nr_activate[0] = stat->nr_activate[0];
	r->nr_activate[1] = stat->nr_activate[1];
	r->nr_ref_keep = stat->nr_ref_keep;
	r->nr_unmap_fail = stat->nr_unmap_fail;
	mt_evring_commit(er, r, flags);
}

static void mt_pr_lru_active(void *data, int nid, unsigned long nr_taken,
			     unsigned long nr_active, unsigned long nr_deactivated,
			     unsigned long nr_referenced, int priority, int file)
{
	struct mt_evring *er;
	struct memtrace_ev_lru_active *r;
	unsigned long flags;

	r = mt_pr_rec(&er, MEMTRACE_EVT_LRU_ACTIVE, sizeof(*r), &flags);
	if (!r)
		return;
	r->flags = mt_pr_vmscan_flags();
	r->nid = nid;
	r->file = !!file;
	r->priority = priority;
	r->nr_taken = nr_taken;
	r->nr_active = nr_active;
	r->nr_deactivated = nr_deactivated;
	r->nr_referenced = nr_referenced;
	mt_evring_commit(er, r, flags);
}

static struct memtrace_ev_shrink_slab *mt_pr_slab_rec(struct mt_evring **erp, u16 type,
						      struct shrinker *shr, unsigned long *flags)
{
	struct memtrace_ev_shrink_slab *r;

	r = mt_pr_rec(erp, type, sizeof(*r), flags);
	if (!r)
		return NULL;
	r->flags = mt_pr_vmscan_flags();
	/* The shrinker is named by its scan function (CONFIG_SHRINKER_DEBUG's names are off in Debian). */
	if (mt_pr.kaddr)
		r->scan_fn = (unsigned long)READ_ONCE(shr->scan_objects);
	return r;
}

static void mt_pr_slab_start(MT_TP_SHRINK_SLAB_START_ARGS)
{
	struct memtrace_ev_shrink_slab *r;
	struct mt_evring *er;
	unsigned long flags;

	r = mt_pr_slab_rec(&er, MEMTRACE_EVT_SLAB_BEGIN, shr, &flags);
	if (!r)
		return;
	r->nid = sc->nid;
	r->priority = priority;
	r->total_scan = total_scan;
	r->nr_deferred = nr_objects_to_shrink;
	r->cache_items = cache_items;
	mt_evring_commit(er, r, flags);
}

static void mt_pr_slab_end(MT_TP_SHRINK_SLAB_END_ARGS)
{
	struct memtrace_ev_shrink_slab *r;
	struct mt_evring *er;
	unsigned long flags;

	r = mt_pr_slab_rec(&er, MEMTRACE_EVT_SLAB_END, shr, &flags);
	if (!r)
		return;
	r->nid = nid;
	r->total_scan = total_scan;
	r->nr_deferred = new_scan_cnt;
	r->freed = shrinker_retval;
	mt_evring_commit(er, r, flags);
}

static void mt_pr_vmscan_write(MT_TP_VMSCAN_WRITE_ARGS)
{
	struct mt_evring *er;
	struct memtrace_ev_vmscan_write *r;
	unsigned long flags;

	r = mt_pr_rec(&er, MEMTRACE_EVT_VMSCAN_WRITE, sizeof(*r), &flags);
	if (!r)
		return;
	r->flags = mt_pr_vmscan_flags();
	/* pageout() holds the folio locked: its size and kind are stable. */
	r->nr_pages = MT_TP_VMSCAN_WRITE_PAGES();
	r->file = MT_TP_VMSCAN_WRITE_FILE();
	mt_evring_commit(er, r, flags);
}

/* ---- compaction (--compaction) ---- */

/*
 * struct compact_control is private to mm/ (mm/internal.h), and its head
 * differs between kernels (6.9 made freepages an array per order), but
 * from its zone pointer on, 6.1 to 6.12 lay it out alike: zone,
 * total_migrate_scanned, total_free_scanned, two shorts, gfp_mask, order.
 * The zone pointer's offset is found at the first run, as the first word
 * of the control that points at a zone of an online node whose first PFN
 * is the run's zone_start (compact_zone() passes cc->zone's), and checked
 * the same way at every run after; where it is not found, or stops
 * matching, records say MEMTRACE_COMPACT_NO_CONTROL and carry no counts.
 */
/* Past the head of 6.12's control (224 bytes before the zone). */
#define MT_CC_SCAN_BYTES	256
#define MT_CC_UNKNOWN		-1
#define MT_CC_NONE		-2

struct mt_cc_tail {
	struct zone *zone;
	unsigned long total_migrate_scanned;
	unsigned long total_free_scanned;
	unsigned short fast_search_fail;
	short search_order;
	gfp_t gfp_mask;
	int order;
};

static int mt_cc_zone_off = MT_CC_UNKNOWN;

static bool mt_pr_is_zone(unsigned long v, unsigned long zone_start)
{
	int nid, z;

	for_each_online_node(nid) {
		struct pglist_data *pgdat = NODE_DATA(nid);

		for (z = 0; z < MAX_NR_ZONES; z++)
			if (v == (unsigned long)&pgdat->node_zones[z])
				return pgdat->node_zones[z].zone_start_pfn == zone_start;
	}
	return false;
}

/* The control's tail (see above) into *t; false if it cannot be found. */
static bool mt_pr_cc_tail(const void *cc, unsigned long zone_start, struct mt_cc_tail *t)
{
	int off = READ_ONCE(mt_cc_zone_off), found = MT_CC_NONE, i;
	unsigned long v;

	if (!cc)	/* a kernel whose tracepoint does not pass it (compat.h) */
		return false;
	if (off == MT_CC_UNKNOWN) {
		/*
		 * The first match: nothing before the zone in the control
		 * points at a zone, while the caller's frames past its end
		 * may (kcompactd_do_work()'s own zone pointer).
		 */
		for (i = 0; i < MT_CC_SCAN_BYTES; i += sizeof(long)) {
			if (copy_from_kernel_nofault(&v, cc + i, sizeof(v)))
				break;
			if (mt_pr_is_zone(v, zone_start)) {
				found = i;
				break;
			}
		}
		WRITE_ONCE(mt_cc_zone_off, found);
		off = found;
	}
	if (off < 0 || copy_from_kernel_nofault(t, cc + off, sizeof(*t)) ||
	    !mt_pr_is_zone((unsigned long)t->zone, zone_start))
		return false;
	return true;
}

static u32 mt_pr_compact_status(int status)
{
	switch (status) {
	case COMPACT_NOT_SUITABLE_ZONE:
		return MEMTRACE_COMPACT_NOT_SUITABLE_ZONE;
	case COMPACT_SKIPPED:
		return MEMTRACE_COMPACT_SKIPPED;
	case COMPACT_DEFERRED:
		return MEMTRACE_COMPACT_DEFERRED;
	case COMPACT_NO_SUITABLE_PAGE:
		return MEMTRACE_COMPACT_NO_SUITABLE_PAGE;
	case COMPACT_CONTINUE:
		return MEMTRACE_COMPACT_CONTINUE;
	case COMPACT_COMPLETE:
		return MEMTRACE_COMPACT_COMPLETE;
	case COMPACT_PARTIAL_SKIPPED:
		return MEMTRACE_COMPACT_PARTIAL_SKIPPED;
	case COMPACT_CONTENDED:
		return MEMTRACE_COMPACT_CONTENDED;
	case COMPACT_SUCCESS:
		return MEMTRACE_COMPACT_SUCCESS;
	default:
		return MEMTRACE_COMPACT_UNKNOWN;
	}
}

static void mt_pr_compact(u16 type, struct compact_control *cc, unsigned long zone_start,
			  unsigned long zone_end, bool sync, int status)
{
	struct memtrace_ev_compact *r;
	struct mt_evring *er;
	struct mt_cc_tail t;
	unsigned long flags;

	r = mt_pr_rec(&er, type, sizeof(*r), &flags);
	if (!r)
		return;
	mt_pr_comm(r->comm, current);
	/* __alloc_pages_direct_compact() compacts under memalloc_noreclaim_save(). */
	if ((current->flags & PF_MEMALLOC) && !current_is_kswapd())
		r->flags |= MEMTRACE_COMPACT_DIRECT;
	if (sync)
		r->flags |= MEMTRACE_COMPACT_SYNC;
	r->zone_start_pfn = zone_start;
	r->zone_end_pfn = zone_end;
	r->status = type == MEMTRACE_EVT_COMPACT_END ? mt_pr_compact_status(status) : 0;
	if (mt_pr_cc_tail(cc, zone_start, &t)) {
		r->nid = zone_to_nid(t.zone);
		strscpy(r->zone, t.zone->name, sizeof(r->zone));
		r->order = t.order;
		if (type == MEMTRACE_EVT_COMPACT_END) {
			r->migrate_scanned = t.total_migrate_scanned;
			r->free_scanned = t.total_free_scanned;
		}
	} else {
		r->flags |= MEMTRACE_COMPACT_NO_CONTROL;
		r->nid = -1;
	}
	mt_evring_commit(er, r, flags);
}

static void mt_pr_compact_begin(MT_TP_COMPACT_BEGIN_ARGS)
{
	mt_pr_compact(MEMTRACE_EVT_COMPACT_BEGIN, MT_TP_COMPACT_CC, zone_start, zone_end, sync, 0);
}

static void mt_pr_compact_end(MT_TP_COMPACT_END_ARGS)
{
	mt_pr_compact(MEMTRACE_EVT_COMPACT_END, MT_TP_COMPACT_CC, zone_start, zone_end, sync,
		      status);
}

static void mt_pr_compact_try(void *data, int order, gfp_t gfp, int prio)
{
	struct mt_evring *er;
	struct memtrace_ev_compact_try *r;
	unsigned long flags;

	r = mt_pr_rec(&er, MEMTRACE_EVT_COMPACT_TRY, sizeof(*r), &flags);
	if (!r)
		return;
	r->order = order;
	r->gfp_mask = (__force u32)gfp;
	r->priority = prio;
	mt_pr_comm(r->comm, current);
	mt_evring_commit(er, r, flags);
}

static void mt_pr_kcompactd_wake(void *data, int nid, int order, enum zone_type zid)
{
	mt_pr_kswapd(MEMTRACE_EVT_KCOMPACTD_WAKE, nid, zid, order, 0);
}

static void mt_pr_kcompactd_sleep(void *data, int nid)
{
	mt_pr_kswapd(MEMTRACE_EVT_KCOMPACTD_SLEEP, nid, -1, -1, 0);
}

/* ---- page migration (--migration) ---- */

static void mt_pr_migrate(u16 type, int mode, int reason, unsigned long succeeded,
			  unsigned long failed, unsigned long thp_succeeded,
			  unsigned long thp_failed, unsigned long thp_split,
			  unsigned long large_split)
{
	struct mt_evring *er;
	struct memtrace_ev_migrate *r;
	unsigned long flags;

	r = mt_pr_rec(&er, type, sizeof(*r), &flags);
	if (!r)
		return;
	/* enum migrate_reason only grows at its end: its values are the ABI's. */
	r->reason = reason;
	r->mode = mode;
	mt_pr_comm(r->comm, current);
	r->succeeded = succeeded;
	r->failed = failed;
	r->thp_succeeded = thp_succeeded;
	r->thp_failed = thp_failed;
	r->thp_split = thp_split;
	r->large_split = large_split;
	mt_evring_commit(er, r, flags);
}

static void mt_pr_migrate_start(void *data, enum migrate_mode mode, int reason)
{
	mt_pr_migrate(MEMTRACE_EVT_MIGRATE_BEGIN, mode, reason, 0, 0, 0, 0, 0, 0);
}

static void mt_pr_migrate_end(MT_TP_MIGRATE_ARGS)
{
	mt_pr_migrate(MEMTRACE_EVT_MIGRATE_END, mode, reason, succeeded, failed, thp_succeeded,
		      thp_failed, thp_split, MT_TP_MIGRATE_LARGE_SPLIT);
}

MT_IF_TP_MIGRATE_START(MT_CHECK_PROBE(mm_migrate_pages_start, mt_pr_migrate_start))
MT_CHECK_PROBE(mm_migrate_pages, mt_pr_migrate_end)

/* Without CONFIG_COMPACTION the lookup by name fails: no --compaction. */
MT_IF_TP_COMPACTION(MT_CHECK_PROBE(mm_compaction_begin, mt_pr_compact_begin))
MT_IF_TP_COMPACTION(MT_CHECK_PROBE(mm_compaction_end, mt_pr_compact_end))
MT_IF_TP_COMPACTION(MT_CHECK_PROBE(mm_compaction_try_to_compact_pages, mt_pr_compact_try))
MT_IF_TP_COMPACTION(MT_CHECK_PROBE(mm_compaction_kcompactd_wake, mt_pr_kcompactd_wake))
MT_IF_TP_COMPACTION(MT_CHECK_PROBE(mm_compaction_kcompactd_sleep, mt_pr_kcompactd_sleep))

MT_CHECK_PROBE(mm_vmscan_kswapd_wake, mt_pr_kswapd_wake)
MT_CHECK_PROBE(mm_vmscan_kswapd_sleep, mt_pr_kswapd_sleep)
MT_CHECK_PROBE(mm_vmscan_wakeup_kswapd, mt_pr_wakeup_kswapd)
MT_CHECK_PROBE(mm_vmscan_lru_isolate, mt_pr_lru_isolate)
MT_CHECK_PROBE(mm_vmscan_lru_shrink_inactive, mt_pr_lru_inactive)
MT_CHECK_PROBE(mm_vmscan_lru_shrink_active, mt_pr_lru_active)
MT_CHECK_PROBE(mm_shrink_slab_start, mt_pr_slab_start)
MT_CHECK_PROBE(mm_shrink_slab_end, mt_pr_slab_end)
MT_CHECK_PROBE_VMSCAN_WRITE(mt_pr_vmscan_write)

/*
 * Ends are attached before begins and detached after them, so a begin
 * recorded always has its end recorded (unless the ring drops it).
 */
static struct mt_tp mt_pr_tps[] = {
	{ "mm_vmscan_direct_reclaim_end", mt_pr_direct_end, MEMTRACE_EV_RECLAIM, true },
	/* Optional: without CONFIG_MEMCG, --reclaim is direct reclaim only. */
	{ "mm_vmscan_memcg_reclaim_end", mt_pr_memcg_end, MEMTRACE_EV_RECLAIM, true,
	  .optional = true },
	{ "mm_vmscan_direct_reclaim_begin", mt_pr_direct_begin, MEMTRACE_EV_RECLAIM, false },
	{ "mm_vmscan_memcg_reclaim_begin", mt_pr_memcg_begin, MEMTRACE_EV_RECLAIM, false,
	  .optional = true },
#ifdef MEMTRACE_HAVE_MARK_VICTIM_TASK
	{ "mark_victim", mt_pr_mark_victim, MEMTRACE_EV_OOM, true },
#endif
	{ "mm_vmscan_kswapd_sleep", mt_pr_kswapd_sleep, MEMTRACE_EV_VMSCAN, true },
	{ "mm_shrink_slab_end", mt_pr_slab_end, MEMTRACE_EV_VMSCAN, true },
	{ "mm_vmscan_kswapd_wake", mt_pr_kswapd_wake, MEMTRACE_EV_VMSCAN, false },
	{ "mm_vmscan_wakeup_kswapd", mt_pr_wakeup_kswapd, MEMTRACE_EV_VMSCAN, false },
	{ "mm_vmscan_lru_isolate", mt_pr_lru_isolate, MEMTRACE_EV_VMSCAN, false },
	{ "mm_vmscan_lru_shrink_inactive", mt_pr_lru_inactive, MEMTRACE_EV_VMSCAN, false },
	{ "mm_vmscan_lru_shrink_active", mt_pr_lru_active, MEMTRACE_EV_VMSCAN, false },
	{ "mm_shrink_slab_start", mt_pr_slab_start, MEMTRACE_EV_VMSCAN, false },
	{ MT_TP_VMSCAN_WRITE, mt_pr_vmscan_write, MEMTRACE_EV_VMSCAN, false },
	{ "mm_compaction_end", mt_pr_compact_end, MEMTRACE_EV_COMPACTION, true },
	{ "mm_compaction_kcompactd_sleep", mt_pr_kcompactd_sleep, MEMTRACE_EV_COMPACTION, true },
	{ "mm_compaction_begin", mt_pr_compact_begin, MEMTRACE_EV_COMPACTION, false },
	{ "mm_compaction_try_to_compact_pages", mt_pr_compact_try, MEMTRACE_EV_COMPACTION,
	  false },
	{ "mm_compaction_kcompactd_wake", mt_pr_kcompactd_wake, MEMTRACE_EV_COMPACTION, false },
	{ "mm_migrate_pages", mt_pr_migrate_end, MEMTRACE_EV_MIGRATION, true },
	{ "mm_migrate_pages_start", mt_pr_migrate_start, MEMTRACE_EV_MIGRATION, false },
};

static u32 mt_pr_available;
static bool mt_pr_kp_registered;
static u64 mt_pr_missed;		/* this session's, by kprobes unregistered since */

/* A kprobe is registered again only as it was first filled in. */
static void mt_pr_kp_reset(void)
{
	memset(&mt_pr_oom_kp, 0, sizeof(mt_pr_oom_kp));
	mt_pr_oom_kp.symbol_name = "oom_kill_process";
	mt_pr_oom_kp.pre_handler = mt_pr_oom_kill;
}

int mt_pressure_init(void)
{
	u32 tps = mt_tp_lookup(mt_pr_tps, ARRAY_SIZE(mt_pr_tps));

	mt_pr_available = tps & (MEMTRACE_EV_RECLAIM | MEMTRACE_EV_VMSCAN | MEMTRACE_EV_COMPACTION |
				 MEMTRACE_EV_MIGRATION);
	/* OOM kills need the kprobe; mark_victim only adds the victim's RSS. */
	mt_pr_kp_reset();
	if (register_kprobe(&mt_pr_oom_kp) == 0) {
		/* For trimming stacks: known before any handler can run. */
		mt_pr.oom_fn = (unsigned long)mt_pr_oom_kp.addr;
		mt_pr.oom_fn_size = mt_function_size(mt_pr.oom_fn);
		unregister_kprobe(&mt_pr_oom_kp);
		mt_pr_available |= MEMTRACE_EV_OOM;
	} else {
		pr_info("oom_kill_process cannot be probed: no OOM events\n");
	}
	return 0;
}

u32 mt_pressure_available(void)
{
	return mt_pr_available;
}

int mt_pressure_attach(u32 events, struct mt_evring *er, struct pid_namespace *ns,
		       bool kaddr)
{
	int ret;

	events &= MEMTRACE_EV_PRESSURE;
	if (events & ~mt_pr_available)
		return -EOPNOTSUPP;
	WRITE_ONCE(mt_pr.er, er);
	mt_pr_missed = 0;	/* this session's */
	mt_pr.ns = ns;
	mt_pr.kaddr = kaddr;
	ret = mt_tp_register(mt_pr_tps, ARRAY_SIZE(mt_pr_tps), events, true);
	if (ret)
		goto fail;
	ret = mt_tp_register(mt_pr_tps, ARRAY_SIZE(mt_pr_tps), events, false);
	if (ret)
		goto fail_ends;
	if (events & MEMTRACE_EV_OOM) {
		mt_pr_kp_reset();
		ret = register_kprobe(&mt_pr_oom_kp);
		if (ret)
			goto fail_begins;
		mt_pr_kp_registered = true;
	}
	return 0;
fail_begins:
	mt_tp_unregister(mt_pr_tps, ARRAY_SIZE(mt_pr_tps), false, false);
fail_ends:
	mt_tp_unregister(mt_pr_tps, ARRAY_SIZE(mt_pr_tps), true, true);
fail:
	WRITE_ONCE(mt_pr.er, NULL);
	return ret;
}

void mt_pressure_detach(void)
{
	if (mt_pr_kp_registered) {
		/* Waits for running handlers; no hit is missed after it. */
		unregister_kprobe(&mt_pr_oom_kp);
		mt_pr_kp_registered = false;
		mt_pr_missed += mt_pr_oom_kp.nmissed;
	}
	/*
	 * Begins first, and every begin handler done before the ends go:
	 * no begin is recorded after its end's probe is gone.  A reclaim
	 * still running then has a begin without an end: readers keep
	 * tolerating open begins.
	 */
	mt_tp_unregister(mt_pr_tps, ARRAY_SIZE(mt_pr_tps), false, true);
	mt_tp_unregister(mt_pr_tps, ARRAY_SIZE(mt_pr_tps), true, true);
	WRITE_ONCE(mt_pr.er, NULL);
}

u64 mt_pressure_missed(void)
{
	return mt_pr_missed + (mt_pr_kp_registered ? mt_pr_oom_kp.nmissed : 0);
}
