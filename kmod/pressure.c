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
 * from the kprobe would race with the victim's exit.
 *
 * Direct reclaim: the vmscan begin/end tracepoints of zone (direct) and
 * memcg reclaim.  Begin and end are two records paired by the reader by
 * task id: a task does not reclaim inside its own reclaim (PF_MEMALLOC),
 * and keeping the begin in a per-task slot here would need a table.
 */
#define pr_fmt(fmt) "memtrace: " fmt

#include <linux/cgroup.h>
#include <linux/kprobes.h>
#include <linux/memcontrol.h>
#include <linux/oom.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/sched.h>
#include <linux/sched/loadavg.h>
#include <linux/stacktrace.h>
#include <linux/string.h>
#include <linux/timekeeping.h>

#include <trace/events/oom.h>
#include <trace/events/vmscan.h>

#include "compat.h"
#include "evring.h"
#include "pressure.h"
#include "tp.h"

#ifdef MT_HAVE_REGS_UNWIND
#include <asm/unwind.h>
#endif

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

/* ---- OOM kills ---- */

/* The trigger's stack, from the probed function (oom_kill_process) out. */
static void mt_pr_oom_stack(struct memtrace_ev_oom_kill *r, u64 *frames,
			    struct pt_regs *regs)
{
#ifdef MT_HAVE_REGS_UNWIND
	struct unwind_state st;
	unsigned int n = 0;

	if (!mt_pr.kaddr)
		return;
	/* The probed function: unwind_start() from regs skips its frame. */
	frames[n++] = instruction_pointer(regs);
	for (unwind_start(&st, current, regs, NULL); !unwind_done(&st) && n < MT_OOM_FRAMES;
	     unwind_next_frame(&st)) {
		unsigned long ip = unwind_get_return_address(&st);

		if (!ip)
			break;
		frames[n++] = ip;
	}
	r->nr_frames = n;
#else
	unsigned long buf[MT_OOM_FRAMES + 8];
	unsigned int n, i, from = 0;

	if (!mt_pr.kaddr)
		return;
	n = stack_trace_save(buf, ARRAY_SIZE(buf), 0);
	/* Start at oom_kill_process(): the kprobe's own frames are noise. */
	for (i = 0; i < n; i++) {
		if (buf[i] - mt_pr.oom_fn < mt_pr.oom_fn_size) {
			from = i;
			break;
		}
	}
	n = min_t(unsigned int, n - from, MT_OOM_FRAMES);
	for (i = 0; i < n; i++)
		frames[i] = buf[from + i];
	r->nr_frames = n;
#endif
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
	return 0;
}

static struct kprobe mt_pr_oom_kp = {
	.symbol_name = "oom_kill_process",
	.pre_handler = mt_pr_oom_kill,
};

#ifdef MEMTRACE_HAVE_MARK_VICTIM_TASK
static void mt_pr_mark_victim(void *data, struct task_struct *task, uid_t uid)
{
	struct memtrace_ev_oom_victim *r;
	struct mt_evring *er = READ_ONCE(mt_pr.er);
	struct mm_struct *mm = task->mm;
	unsigned long flags;

	if (!er)
		return;
	r = mt_evring_reserve(er, MEMTRACE_EVT_OOM_VICTIM, sizeof(*r), &flags);
	if (!r)
		return;
	r->ts_ns = ktime_get_mono_fast_ns();
	r->pid = mt_pr_pid(task);
	r->trigger_pid = mt_pr_pid(current);
	mt_pr_comm(r->comm, task);
	r->uid = uid;
	r->oom_score_adj = task->signal->oom_score_adj;
	/* The caller holds the task lock: mm is stable (see the top). */
	if (mm) {
		r->total_vm_kb = mm->total_vm << (PAGE_SHIFT - 10);
		r->anon_rss_kb = get_mm_counter(mm, MM_ANONPAGES) << (PAGE_SHIFT - 10);
		r->file_rss_kb = get_mm_counter(mm, MM_FILEPAGES) << (PAGE_SHIFT - 10);
		r->shmem_rss_kb = get_mm_counter(mm, MM_SHMEMPAGES) << (PAGE_SHIFT - 10);
		r->pgtables_kb = mm_pgtables_bytes(mm) >> 10;
	}
	mt_evring_commit(er, r, flags);
}
MT_CHECK_PROBE(mark_victim, mt_pr_mark_victim)
#endif

/* ---- direct reclaim ---- */

static void mt_pr_reclaim(u16 type, u32 flags_ev, int order, gfp_t gfp,
			  unsigned long nr_reclaimed)
{
	struct mt_evring *er = READ_ONCE(mt_pr.er);
	struct memtrace_ev_reclaim *r;
	unsigned long flags;

	if (!er)
		return;
	r = mt_evring_reserve(er, type, sizeof(*r), &flags);
	if (!r)
		return;
	r->ts_ns = ktime_get_mono_fast_ns();
	r->pid = mt_pr_pid(current);
	r->flags = flags_ev;
	mt_pr_comm(r->comm, current);
	r->order = order;
	r->gfp_mask = (__force u32)gfp;
	r->nr_reclaimed = nr_reclaimed;
	mt_evring_commit(er, r, flags);
}

static void mt_pr_direct_begin(void *data, int order, gfp_t gfp)
{
	mt_pr_reclaim(MEMTRACE_EVT_RECLAIM_BEGIN, 0, order, gfp, 0);
}

static void mt_pr_direct_end(void *data, unsigned long nr_reclaimed)
{
	mt_pr_reclaim(MEMTRACE_EVT_RECLAIM_END, 0, 0, 0, nr_reclaimed);
}

static void mt_pr_memcg_begin(void *data, int order, gfp_t gfp)
{
	mt_pr_reclaim(MEMTRACE_EVT_RECLAIM_BEGIN, MEMTRACE_RECLAIM_MEMCG, order, gfp, 0);
}

static void mt_pr_memcg_end(void *data, unsigned long nr_reclaimed)
{
	mt_pr_reclaim(MEMTRACE_EVT_RECLAIM_END, MEMTRACE_RECLAIM_MEMCG, 0, 0, nr_reclaimed);
}

MT_CHECK_PROBE(mm_vmscan_direct_reclaim_begin, mt_pr_direct_begin)
MT_CHECK_PROBE(mm_vmscan_direct_reclaim_end, mt_pr_direct_end)
MT_CHECK_PROBE(mm_vmscan_memcg_reclaim_begin, mt_pr_memcg_begin)
MT_CHECK_PROBE(mm_vmscan_memcg_reclaim_end, mt_pr_memcg_end)

/*
 * Ends are attached before begins and detached after them, so a begin
 * recorded always has its end recorded (unless the ring drops it).
 */
static struct mt_tp mt_pr_tps[] = {
	{ "mm_vmscan_direct_reclaim_end", mt_pr_direct_end, MEMTRACE_EV_RECLAIM, true },
	{ "mm_vmscan_memcg_reclaim_end", mt_pr_memcg_end, MEMTRACE_EV_RECLAIM, true },
	{ "mm_vmscan_direct_reclaim_begin", mt_pr_direct_begin, MEMTRACE_EV_RECLAIM, false },
	{ "mm_vmscan_memcg_reclaim_begin", mt_pr_memcg_begin, MEMTRACE_EV_RECLAIM, false },
#ifdef MEMTRACE_HAVE_MARK_VICTIM_TASK
	{ "mark_victim", mt_pr_mark_victim, MEMTRACE_EV_OOM, true },
#endif
};

static u32 mt_pr_available;
static bool mt_pr_kp_registered;
static u64 mt_pr_missed;		/* by kprobes registered before */

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

	mt_pr_available = tps & MEMTRACE_EV_RECLAIM;
	/* OOM kills need the kprobe; mark_victim only adds the victim's RSS. */
	mt_pr_kp_reset();
	if (register_kprobe(&mt_pr_oom_kp) == 0) {
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
		mt_pr.oom_fn = (unsigned long)mt_pr_oom_kp.addr;
		mt_pr.oom_fn_size = mt_function_size(mt_pr.oom_fn);
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
		/* Waits for running handlers. */
		mt_pr_missed += mt_pr_oom_kp.nmissed;
		unregister_kprobe(&mt_pr_oom_kp);
		mt_pr_kp_registered = false;
	}
	mt_tp_unregister(mt_pr_tps, ARRAY_SIZE(mt_pr_tps), false, false);
	mt_tp_unregister(mt_pr_tps, ARRAY_SIZE(mt_pr_tps), true, true);
	WRITE_ONCE(mt_pr.er, NULL);
}

u64 mt_pressure_missed(void)
{
	return mt_pr_missed + (mt_pr_kp_registered ? mt_pr_oom_kp.nmissed : 0);
}
