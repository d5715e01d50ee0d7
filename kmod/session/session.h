/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The session's state: its configuration, its tables, and the per-CPU
 * state the hooks use (struct mt_state mt, session.c).  Below every file
 * that reads it: the control operations (tracer.c), the snapshot, the
 * shared recorder (recorder.c) and every event source.  One session at a
 * time, module-wide; what owns it and what changes it: tracer.h.
 */
#ifndef MEMTRACE_SESSION_H
#define MEMTRACE_SESSION_H

#include <linux/mutex.h>
#include <linux/prandom.h>
#include <linux/sched.h>
#include <linux/memtrace.h>

#include "rings/evring.h"
#include "rings/tracering.h"
#include "tables/livetab.h"
#include "tables/modsyms.h"
#include "tables/names.h"
#include "tables/stacktab.h"
#include "tables/stattab.h"
#include "unwind/kstack.h"

struct cgroup;
struct pid;
struct pid_namespace;

/* Per-CPU hook state.  Touched only with interrupts disabled. */
struct mt_pcpu {
	int busy;			/* recursion guard */
	int in_kprobe;			/* in a kprobe handler of ours (see mt_in_nmi()) */
	int sample_left;		/* user mode's 1-in-N: calls to the next sample */
	/*
	 * Byte sampling's uniform draws.  Hooks run with interrupts off, where
	 * get_random_u32() may not be called on PREEMPT_RT (its per-CPU batch
	 * is guarded by a local_lock, a sleeping lock there); seeded from it
	 * in process context (mt_clear_tables()).
	 */
	struct rnd_state rnd;
	u64 allocs_seen;
	u64 frees_seen;
	u64 allocs_recorded;
	u64 frees_matched;
	u64 filtered;
	u64 sampled_out;
	u64 user_nested;		/* user mode: calls inside another */
	u64 user_stack_faults;		/* user mode: stacks cut short */
	/* User stacks: how frames were found, why stacks ended (unwind.c). */
	struct memtrace_unwind_stats unwind;
	/*
	 * current's mm while its uprobe handler holds it read-locked for
	 * the unwind tables (uprobes.c), else NULL: frame pointers only.
	 */
	struct mm_struct *unwind_mm;
	struct memtrace_loss loss;
	/* The task name this CPU interned last: most allocations repeat it. */
	char last_comm[TASK_COMM_LEN];
	u16 last_comm_id;
	/*
	 * The slab cache this CPU named last: most allocations repeat it.
	 * Valid while mt.names.generation is what it was when made.
	 */
	struct {
		unsigned long key;
		int generation;
		u16 id;
		u32 object_size;
	} last_cache;
	/*
	 * The counters in this CPU's table (mt.stats) that this CPU counted
	 * on last, and their key (0: none; no key is 0).  A slot keeps its
	 * key until the table is cleared, and this with it (mt_clear_tables()).
	 */
	struct {
		u64 key;
		struct mt_stat *s;
	} last_stat;
	/*
	 * Entries a hook builds or is handed back, here rather than on its
	 * stack: the guard makes them the hook's alone, and a local the index
	 * writes through a pointer costs every call a zeroing (Debian builds
	 * with INIT_STACK_ALL_ZERO) and a stack canary.  rec: the allocation
	 * being recorded; old: an entry the index replaced or removed.
	 */
	struct mt_live rec;
	struct mt_live old;
	unsigned long frames[MEMTRACE_MAX_FRAMES + MT_KSTACK_SLACK];
};

/*
 * What the hooks' fast paths touch, interrupts on: a static per-CPU
 * variable, one %gs-relative instruction an access (a field of mt.pcpu
 * takes a load of its pointer first).  Cleared with the tables.
 */
struct mt_pcpu_fast {
	s64 bytes_to_sample;		/* byte sampling's countdown */
	/*
	 * Each counted once here and summed into the counters it stands
	 * for at snapshot time: allocations sampled out (allocs_seen and
	 * sampled_out), frees of addresses surely never recorded
	 * (frees_seen and free_untracked), and frees of addresses -s N
	 * never samples (mt_addr_sampled(): no loss, frees_seen only).
	 */
	u64 sampled_out;
	u64 free_untracked;
	u64 free_sampled_out;
};

DECLARE_PER_CPU(struct mt_pcpu_fast, mt_fastpath);

/* What the hooks test, fixed while tracing. */
struct mt_filter {
	u64 min_size;
	u64 max_size;		/* 0: none */
	u32 sample_every;	/* <= 1: all */
	u32 sample_bytes;	/* 0: off */
	u32 depth;
	bool by_cache;
	bool by_task;		/* tgid, comm or cgroup below */
	bool trace;		/* queue a record per call in the trace ring */
	/* ... in these per-CPU rings instead (MEMTRACE_TRACEF_EVRING); NULL: mt.ring */
	struct mt_evring *trace_er;
	bool leaves_out;	/* sampling or a filter: not every allocation is recorded */
	/*
	 * Byte sampling with no filter to apply before it (no cache, task or
	 * size filter): the hooks decide it first, interrupts left on.
	 * Byte sampling's mean; 0: not so.
	 */
	u32 fast_bytes;
	/*
	 * Kernel mode's -s N samples by address (mt_addr_sampled()), first
	 * of all, filters or not: the session's seed, drawn at its start,
	 * and 2^32 / N (0: not so).
	 */
	u64 addr_sample_seed;
	u32 addr_sample_threshold;
	struct pid *tgid;	/* referenced while tracing; NULL: any */
	struct cgroup *cgroup;	/* referenced while tracing; NULL: any */
	char comm[TASK_COMM_LEN];	/* "": any */
};

struct mt_state {
	struct mutex lock;	/* control operations and snapshots */
	/*
	 * The task inside a control operation (under lock): the hooks leave
	 * its allocations out, so memtrace does not report its own snapshot
	 * buffers and tracepoint registrations.
	 */
	struct task_struct *self;
	/*
	 * The task populating a percpu chunk (pcpu_alloc_mutex makes it one
	 * at a time): its page allocations back percpu allocations.
	 */
	struct task_struct *pcpu_populator;
	/* The highest order of a page block recorded since the last clear. */
	atomic_t page_order_max;
	bool allocated;		/* tables exist (made by the first start) */
	bool tracing;
	bool has_data;		/* a session ran since the tables were cleared */
	const void *owner;	/* the file the session belongs to, or NULL */
	u64 start_ns;
	u32 attached;		/* MEMTRACE_EV_* whose hooks are registered */

	struct memtrace_config cfg;		/* as last configured */
	struct pid *cfg_tgid;			/* cfg.tgid resolved, referenced */
	struct cgroup *cfg_cgroup;		/* cfg.cgroup_fd resolved, referenced */
	struct mt_filter filter;		/* in force since start */
	struct mt_cache_filter cache_filter;	/* in force since start */

	struct mt_stacktab stacks;
	struct mt_kstack kstacks;	/* kernel stacks into stacks */
	struct mt_livetab live;
	struct mt_stattab stats;
	struct mt_names names;
	struct mt_modsyms modsyms;	/* module code freed while tracing */
	struct mt_ring ring;		/* made by the first start with MEMTRACE_CFG_TRACE */
	struct mt_pcpu __percpu *pcpu;
	/*
	 * Ring events (MT_EV_RING): the rings made by the
	 * last start, referenced (mappings hold their own), NULL once the
	 * owner is gone.  evring_lock guards the pointer for mmap, which
	 * may not take lock (mmap_lock nests inside it).
	 */
	spinlock_t evring_lock;
	struct mt_evring *evring;
	struct mt_evwake evwake;
	struct pid_namespace *ev_pid_ns;	/* the starter's, referenced; NULL: initial */
	/*
	 * A snapshot's header as it is built (under lock), copied into the
	 * reader's buffer when complete: 1.5 KiB, too much for the stack.
	 */
	struct memtrace_snap_header snap_hdr;
};

/* Events recorded in the per-CPU event rings rather than the tables. */
#define MT_EV_RING	(MEMTRACE_EV_PRESSURE | MEMTRACE_EV_GROWTH | MEMTRACE_EV_USDT)

/* The session's event rings, referenced, or NULL. */
struct mt_evring *mt_evring_get_current(void);

extern struct mt_state mt;

/*
 * What one reader may see of the session, decided per call from the
 * caller's credentials: kernel addresses (stack frames, allocation
 * addresses and PFNs of kernel allocations) only with CAP_SYSLOG, and
 * task ids as its pid namespace numbers them.
 */
struct mt_view {
	bool kaddr;			/* may see kernel addresses */
	struct pid_namespace *pid_ns;	/* NULL: the initial namespace, as recorded */
};

/* The current caller's view. */
void mt_view_init(struct mt_view *v);
/* A task id as recorded (initial namespace) in v's namespace; 0 if not there. */
u32 mt_view_pid(const struct mt_view *v, u32 pid);
/* Allocations of this kind carry user addresses, not kernel ones. */
static inline bool mt_kind_is_user(u8 kind)
{
	return kind == MEMTRACE_KIND_USER || kind == MEMTRACE_KIND_USER_MMAP;
}

/* Take and leave mt.lock, marking the caller as memtrace itself. */
void mt_lock(void);
void mt_unlock(void);

#endif
