/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * memtrace: memory leak and memory growth tracing without BPF.
 *
 * The ABI between memtrace.ko and its readers, through /dev/memtrace.
 *
 * Stability rules:
 *  - Every structure has fixed-width fields and explicit padding, so its
 *    layout is the same for 32- and 64-bit callers (compat_ptr_ioctl).
 *  - A reader must issue MEMTRACE_IOC_VERSION first on each open file; every
 *    other ioctl fails with EPROTO until it has.  The module accepts a reader
 *    whose MEMTRACE_ABI_VERSION equals its own.  Additions that keep old
 *    readers working grow structures at their end and raise no version:
 *    structures carrying a 'size' field are accepted if the caller's size is
 *    at least the MEMTRACE_*_SIZE_VER0 size; missing trailing bytes read as
 *    zero.
 *  - The snapshot buffer is self-describing: sections are located by the
 *    offsets in struct memtrace_snap_header, and each record size is given
 *    there, so a reader skips fields it does not know.
 *
 * Access:
 *  - Every ioctl, read(2), poll(2) and mmap(2), not only open(2), fails
 *    with EPERM unless the caller itself holds CAP_PERFMON or
 *    CAP_SYS_ADMIN.  Kernel addresses reach only a caller that also holds
 *    CAP_SYSLOG (MEMTRACE_HDR_KADDR_HIDDEN); a buffer that received them
 *    can be mapped only by such a caller.
 *  - The session belongs to the file that first issues MEMTRACE_IOC_CONFIG,
 *    _TARGET, _UPROBE or _START on it, until that file is closed.  Other
 *    files get EBUSY from those, and EPERM from _STOP, _CLEAR, _SNAPSHOT
 *    and read(2).  Closing the file stops the session; what it recorded
 *    is then out of every reader's view (ENODATA).
 *  - MEMTRACE_IOC_TARGET names a process as the caller's pid namespace
 *    numbers it, and only one the caller may ptrace-attach to (EPERM);
 *    task ids in records are numbered as the reader's pid namespace
 *    numbers them (0: not in it).
 */
#ifndef _UAPI_LINUX_MEMTRACE_H
#define _UAPI_LINUX_MEMTRACE_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define MEMTRACE_DEVICE		"/dev/memtrace"
#define MEMTRACE_ABI_VERSION	1
#define MEMTRACE_IOC_MAGIC	0xBA	/* unassigned in ioctl-number.rst */

#define MEMTRACE_MAX_FRAMES	64	/* deepest stack recorded */
#define MEMTRACE_NAME_LEN	32	/* cache names, NUL-terminated */
#define MEMTRACE_COMM_LEN	16	/* TASK_COMM_LEN */
#define MEMTRACE_MAX_CACHE_FILTERS 8

/* Stack id of allocations whose stack could not be stored (pool full). */
#define MEMTRACE_STACK_NONE	0
/* Cache id of allocations that do not come from a named slab cache. */
#define MEMTRACE_CACHE_NONE	0

/* ---- MEMTRACE_IOC_VERSION: the handshake ---------------------------- */

struct memtrace_version {
	__u32 abi_version;	/* in: reader's; out: module's */
	__u32 header_size;	/* out: sizeof(struct memtrace_snap_header) */
	__u32 stack_rec_size;	/* out: sizeof(struct memtrace_stack_rec) */
	__u32 stat_rec_size;	/* out: sizeof(struct memtrace_stat_rec) */
	__u32 alloc_rec_size;	/* out: sizeof(struct memtrace_alloc_rec) */
	__u32 cache_rec_size;	/* out: sizeof(struct memtrace_cache_rec) */
	__u32 features;		/* out: MEMTRACE_FEAT_* attached on this kernel */
	__u32 kconfig_off;	/* out: MEMTRACE_KCONFIG_* the kernel is built without */
	char module_version[32];/* out: memtrace.ko version string */
};

/*
 * memtrace_version.kconfig_off: kernel options memtrace has modes for that
 * this kernel is built without (0 from a module older than the field).
 * The modes that need one are refused (not in features); a reader names
 * the option.  MEMCG and NUMA cost no mode: reclaim is direct reclaim
 * only, migration has no NUMA balancing.
 */
#define MEMTRACE_KCONFIG_MEMCG		(1U << 0)	/* memcg reclaim, --oom's memcg */
#define MEMTRACE_KCONFIG_COMPACTION	(1U << 1)	/* MEMTRACE_EV_COMPACTION */
#define MEMTRACE_KCONFIG_MIGRATION	(1U << 2)	/* MEMTRACE_EV_MIGRATION */
#define MEMTRACE_KCONFIG_NUMA		(1U << 3)	/* NUMA balancing's migrations */
#define MEMTRACE_KCONFIG_KPROBES	(1U << 4)	/* MEMTRACE_EV_OOM, _VMALLOC, bulk paths */
#define MEMTRACE_KCONFIG_KRETPROBES	(1U << 5)	/* MEMTRACE_EV_GROWTH, _VMALLOC */
#define MEMTRACE_KCONFIG_UPROBES	(1U << 6)	/* MEMTRACE_EV_USER, _USDT */
/*
 * From bit 16 on: hooks this kernel has none of, whatever its
 * configuration (older kernels).  The modes that need one are refused as
 * for a missing option; a reader names the hook.
 */
#define MEMTRACE_NOHOOK_MIGRATE_START	(1U << 16)	/* MEMTRACE_EV_MIGRATION (5.10) */

/* Event sources, for memtrace_config.events and memtrace_version.features */
#define MEMTRACE_EV_KMALLOC	(1U << 0)	/* kmalloc / kfree */
#define MEMTRACE_EV_CACHE	(1U << 1)	/* kmem_cache_alloc / _free */
#define MEMTRACE_EV_PAGE	(1U << 2)	/* mm_page_alloc / mm_page_free */
#define MEMTRACE_EV_PERCPU	(1U << 3)	/* percpu_alloc / free_percpu */
/* vmalloc / vfree (and kvmalloc's vmalloc half): kprobes, no tracepoint */
#define MEMTRACE_EV_VMALLOC	(1U << 5)
#define MEMTRACE_EV_ALL		(MEMTRACE_EV_KMALLOC | MEMTRACE_EV_CACHE | \
				 MEMTRACE_EV_PAGE | MEMTRACE_EV_PERCPU | \
				 MEMTRACE_EV_VMALLOC)
/*
 * User allocators of the target process (MEMTRACE_IOC_TARGET), through the
 * uprobes handed over by MEMTRACE_IOC_UPROBE.  Never part of "0 means all":
 * a session traces the kernel or one process.
 */
#define MEMTRACE_EV_USER	(1U << 4)
/*
 * Memory pressure events, since MEMTRACE_FEAT_EVRING: records in the
 * per-CPU event rings (MEMTRACE_IOC_EVRING_INFO), not allocations.  Never
 * part of "0 means all"; they may go with kernel or user allocation events.
 */
#define MEMTRACE_EV_OOM		(1U << 6)	/* OOM kills: kprobe oom_kill_process, oom:mark_victim */
#define MEMTRACE_EV_RECLAIM	(1U << 7)	/* direct and memcg reclaim: vmscan tracepoints */
/*
 * Page reclaim's work, for --vmscan: kswapd runs, LRU scans, slab
 * shrinkers, writeback from reclaim (vmscan tracepoints).  Reclaim's
 * begin and end come with MEMTRACE_EV_RECLAIM: a reader asks for both.
 */
#define MEMTRACE_EV_VMSCAN	(1U << 8)
/* Memory compaction, for --compaction: runs per zone, direct compactors, kcompactd */
#define MEMTRACE_EV_COMPACTION	(1U << 9)
/* Page migration, for --migration: migrate_pages() calls by reason (NUMA balancing included) */
#define MEMTRACE_EV_MIGRATION	(1U << 10)
#define MEMTRACE_EV_PRESSURE	(MEMTRACE_EV_OOM | MEMTRACE_EV_RECLAIM | MEMTRACE_EV_VMSCAN | \
				 MEMTRACE_EV_COMPACTION | MEMTRACE_EV_MIGRATION)
/*
 * Process memory growth, since MEMTRACE_FEAT_EVRING: one record per
 * system call in the event rings (struct memtrace_ev_syscall), with the
 * caller's user stack.  Like the pressure events, never part of "0 means
 * all"; the kernel mode task filters (tgid, comm, cgroup) select the
 * callers.  64-bit (x86-64) system calls only.
 */
#define MEMTRACE_EV_MMAP	(1U << 11)	/* mmap, munmap, mremap */
#define MEMTRACE_EV_BRK		(1U << 12)	/* brk */
#define MEMTRACE_EV_SHM		(1U << 13)	/* shmget, shmat, shmdt, shmctl */
/*
 * Page faults a task's counters count (min_flt, maj_flt): one
 * memtrace_ev_fault per fault, with the user stack (_FAULT) and the
 * mapped file's name (_FFAULT).
 */
#define MEMTRACE_EV_FAULT	(1U << 14)
#define MEMTRACE_EV_FFAULT	(1U << 15)
#define MEMTRACE_EV_GROWTH	(MEMTRACE_EV_MMAP | MEMTRACE_EV_BRK | MEMTRACE_EV_SHM | \
				 MEMTRACE_EV_FAULT | MEMTRACE_EV_FFAULT)
/*
 * USDT probes (statically defined tracepoints of <sys/sdt.h>), since
 * MEMTRACE_FEAT_USDT: one MEMTRACE_EVT_USDT record per hit of a probe
 * handed over with MEMTRACE_IOC_USDT, in the event rings.
 */
#define MEMTRACE_EV_USDT	(1U << 16)

/* memtrace_version.features, beyond the MEMTRACE_EV_* bits */
#define MEMTRACE_FEAT_TRACE	(1U << 31)	/* per-call trace records: read(2) */
/* memtrace_config.tgid, .comm and .cgroup_fd; the snapshot's ksyms section */
#define MEMTRACE_FEAT_TASK_FILTERS	(1U << 30)
/* Per-CPU event rings for MEMTRACE_EV_PRESSURE: memtrace_config.evring_pages, MEMTRACE_IOC_EVRING_* */
#define MEMTRACE_FEAT_EVRING		(1U << 29)
/* User stacks by call-frame tables: MEMTRACE_IOC_UNWIND_TABLE, memtrace_snap_header.unwind */
#define MEMTRACE_FEAT_UNWIND_CFI	(1U << 25)
/* memtrace_uprobe.kind: an allocator's returns by probes on its ret instructions */
#define MEMTRACE_FEAT_RETURN_SITES	(1U << 23)
/* USDT probes: MEMTRACE_EV_USDT, MEMTRACE_IOC_USDT, semaphores (uprobe reference counters) */
#define MEMTRACE_FEAT_USDT		(1U << 24)
/* Trace records in the per-CPU event rings: memtrace_config.trace_flags, MEMTRACE_EVT_*_TRACE */
#define MEMTRACE_FEAT_TRACE_RING	(1U << 22)

/* ---- MEMTRACE_IOC_CONFIG: what to record ----------------------------- */

struct memtrace_config {
	__u32 size;		/* sizeof(struct memtrace_config) known to caller */
	__u32 events;		/* MEMTRACE_EV_* to trace; 0 means all */
	__u64 min_size;		/* record allocations of at least this size */
	__u64 max_size;		/* ... and at most this size; 0: no limit */
	__u32 sample_every;	/* record 1 in N allocations; 0 or 1: all */
	__u32 sample_bytes;	/* byte sampling: mean bytes between samples */
	__u32 stack_depth;	/* frames kept, 1..MEMTRACE_MAX_FRAMES; 0: max */
	__u32 nr_caches;	/* entries used in caches[] */
	/* record only slab allocations from these caches (names as in slabinfo) */
	char caches[MEMTRACE_MAX_CACHE_FILTERS][MEMTRACE_NAME_LEN];
	/* since MEMTRACE_FEAT_TRACE: */
	__u32 flags;		/* MEMTRACE_CFG_* */
	__u32 trace_records;	/* trace ring size in records (power of 2); 0: default */
	/* since MEMTRACE_FEAT_TASK_FILTERS (kernel mode): */
	__s32 tgid;		/* only allocations by this process (caller's pid namespace); 0: any */
	__s32 cgroup_fd;	/* with MEMTRACE_CFG_CGROUP: only by tasks in this cgroup v2 (an open directory) or below */
	char comm[MEMTRACE_COMM_LEN];	/* only by tasks of this name; "": any */
	/* since MEMTRACE_FEAT_EVRING: */
	__u32 evring_pages;	/* data pages of each CPU's event ring (power of 2); 0: default */
	__u32 __pad_evring;
	/* since MEMTRACE_FEAT_TRACE_RING: */
	__u32 trace_flags;	/* MEMTRACE_TRACEF_*, with MEMTRACE_CFG_TRACE only */
	__u32 __pad_trace;
};
#define MEMTRACE_CONFIG_SIZE_VER0	296
#define MEMTRACE_CONFIG_SIZE_VER1	328
#define MEMTRACE_CONFIG_SIZE_VER2	336
#define MEMTRACE_CONFIG_SIZE_VER3	344

/*
 * Also queue a struct memtrace_trace_rec for every allocation recorded and
 * every free of a recorded one, to be read(2) from the device (poll(2)
 * says when there are some), or with MEMTRACE_TRACEF_EVRING to be taken
 * from the event rings.  A full ring drops records, counted in
 * memtrace_loss.trace_full.
 */
#define MEMTRACE_CFG_TRACE	(1U << 0)
/* memtrace_config.cgroup_fd is set: filter on that cgroup. */
#define MEMTRACE_CFG_CGROUP	(1U << 1)

/*
 * memtrace_config.trace_flags.  EVRING: the trace records go into the
 * per-CPU event rings (MEMTRACE_IOC_EVRING_INFO, mmap), as struct
 * memtrace_ev_trace records, instead of the one ring read(2) drains; each
 * CPU's drops are counted in its memtrace_evring_meta.lost (and in
 * memtrace_loss.trace_full).  Without it (an older reader), read(2) as
 * before.  Unless memtrace_config.evring_pages says otherwise, each CPU's
 * ring holds trace_records / (possible CPUs) records, rounded up to a
 * power of two pages.
 */
#define MEMTRACE_TRACEF_EVRING	(1U << 0)

/* ---- MEMTRACE_IOC_SNAPSHOT: copy the state into the mapped buffer ----- */

struct memtrace_snapshot_req {
	__u32 size;		/* sizeof(struct memtrace_snapshot_req) */
	__u32 flags;		/* MEMTRACE_SNAP_* */
	__u64 min_age_ns;	/* live allocations younger than this are left out */
	__u64 used;		/* out: bytes of the buffer written */
	__u64 needed;		/* out: on ENOSPC, the buffer size that would do */
};
#define MEMTRACE_SNAPSHOT_REQ_SIZE_VER0	32

#define MEMTRACE_SNAP_ALLOCS	(1U << 0)	/* include one record per live allocation */

/* ---- The snapshot buffer (mmap of /dev/memtrace) ---------------------- */

#define MEMTRACE_SNAP_MAGIC	0x4d545253	/* "MTRS" */

/*
 * Everything the hooks could not record, by reason.  No event is lost
 * without being counted here.
 */
struct memtrace_loss {
	__u64 recursion;	/* hook re-entered on the same CPU */
	__u64 nmi;		/* allocation or free in NMI context */
	__u64 live_full;	/* live-allocation index full */
	__u64 stack_full;	/* stack pool full: kept under MEMTRACE_STACK_NONE */
	__u64 stat_full;	/* per-CPU stack counter table full */
	__u64 cache_full;	/* cache-name table full: kept as MEMTRACE_CACHE_NONE */
	__u64 free_untracked;	/* free of an address not in the index */
	__u64 comm_full;	/* task-name table full: comm shown as "?" */
	/*
	 * User mode: an allocator call not recorded because more threads had
	 * calls in flight than the module's call table holds.
	 */
	__u64 calls_full;
	__u64 trace_full;	/* trace records dropped: the reader fell behind */
	/*
	 * An allocation at an address the index held: the free of the old
	 * allocation there was never seen.  The stale entry is replaced.
	 */
	__u64 missed_free;
	/*
	 * kprobe and kretprobe hits the kernel dropped (kretprobe instances
	 * exhausted, or a probe hit inside another probe's handler).
	 */
	__u64 probe_missed;
};

struct memtrace_activity {
	__u64 allocs_seen;	/* allocation events reaching the hooks */
	__u64 frees_seen;	/* free events reaching the hooks */
	__u64 allocs_recorded;	/* inserted into the live index */
	__u64 frees_matched;	/* removed from the live index */
	__u64 filtered;		/* left out by filters, or memtrace's own */
	__u64 sampled_out;	/* left out by sampling */
	__u64 live_entries;	/* allocations in the index now */
	__u64 live_capacity;	/* index capacity now (grows) */
	__u64 live_grows;	/* times the index grew */
	__u64 stacks;		/* distinct stacks stored */
	__u64 stack_pool_used;	/* bytes of the stack pool in use */
	__u64 stack_pool_size;	/* bytes of the stack pool */
};

/* Address spaces user mode traces at once (memtrace_target_state.procs). */
#define MEMTRACE_MAX_PROCS	64

/* One address space user mode traces: a process, or one image of it. */
struct memtrace_proc {
	__s32 pid;		/* thread group, in the pid namespace of the reader that named the target */
	__u8 how;		/* MEMTRACE_PROC_* */
	__u8 from;		/* the slot it was forked from, or whose process exec'd it */
	__u16 flags;		/* MEMTRACE_PROCF_* (zero padding before them) */
	__u64 start_ns;		/* CLOCK_MONOTONIC when it was taken in */
};

/*
 * The traced process, in user mode.  Grown at the end of the header, so a
 * reader checks header_size before reading it.
 */
struct memtrace_target_state {
	__s32 pid;		/* thread group traced; 0: no target */
	__u32 flags;		/* MEMTRACE_TARGET_* */
	__u64 exec_ns;		/* CLOCK_MONOTONIC of its last exec seen, or 0 */
	__u64 nested;		/* allocator calls inside another one (realloc -> malloc): counted once, as the outer */
	__u64 stack_faults;	/* user stacks cut short by an unreadable frame */
	__u32 nr_uprobes;	/* uprobes registered (entry + return count as one) */
	__u32 nr_processes;	/* address spaces traced: the target, children followed, images exec'd */
	__u64 forks_full;	/* children or images not followed: too many processes traced */
	/*
	 * The address spaces traced (nr_processes of them), in the order
	 * they were taken in.  An allocation's slot is its index here: the
	 * cache_id of the user kinds' memtrace_stat_rec, memtrace_alloc_rec
	 * and memtrace_trace_rec.
	 */
	struct memtrace_proc procs[MEMTRACE_MAX_PROCS];
};

/* A traced process exec'd (its new image is traced in a slot of its own). */
#define MEMTRACE_TARGET_EXECED	(1U << 0)

#define MEMTRACE_PROC_TARGET	1	/* the process MEMTRACE_IOC_TARGET named */
#define MEMTRACE_PROC_FORK	2	/* a child of a traced process (MEMTRACE_TARGET_FOLLOW_FORKS) */
#define MEMTRACE_PROC_EXEC	3	/* the new image of a traced process that exec'd */

/*
 * It exec'd an image the reader may not trace: one that gains privileges
 * (setuid, setgid, file capabilities) or runs with other ids than the
 * reader's, as ptrace(2) would refuse.  Its new image has no slot.
 */
#define MEMTRACE_PROCF_EXEC_REFUSED	(1U << 0)

/*
 * User stacks (since MEMTRACE_FEAT_UNWIND_CFI): how their frames were
 * found, and why each stack ended before the stack depth.  A stack ends
 * at its outermost frame (the table says the return address is
 * undefined, as _start's), or for one of the counted reasons.
 */
struct memtrace_unwind_stats {
	__u64 frames_cfi;	/* frames found by an unwind table */
	__u64 frames_fp;	/* frames found by the frame pointer: no table covered the PC */
	__u64 frames_signal;	/* signal frames stepped over (their interrupted PC is a frame) */
	__u64 end_outermost;	/* stacks ended at their outermost frame */
	__u64 end_no_table;	/* ended at a PC no table covers, whose frame pointer was no frame */
	__u64 end_unmapped;	/* ended at a PC in no file mapping (JIT code, anonymous memory) */
	__u64 end_bad_rule;	/* ended at a frame the table cannot unwind (a CFA rule it does not express) */
	__u64 end_not_up;	/* ended: a frame's stack did not lie above the one before */
	__u64 end_fault;	/* ended: a read of the stack faulted */
	__u64 mm_busy;		/* stacks walked by frame pointers only: the address space was being changed */
	__u32 nr_tables;	/* tables loaded (MEMTRACE_IOC_UNWIND_TABLE), shared by build id */
	__u32 nr_files;		/* files bound to them */
	__u64 table_bytes;	/* bytes the tables take in the module */
};

struct memtrace_snap_header {
	__u32 magic;		/* MEMTRACE_SNAP_MAGIC */
	__u32 abi_version;	/* MEMTRACE_ABI_VERSION */
	__u64 used;		/* bytes of the buffer used by this snapshot */
	__u64 now_ns;		/* CLOCK_MONOTONIC at snapshot, as record times */
	__u64 start_ns;		/* CLOCK_MONOTONIC when tracing (last) started */
	__u32 state;		/* MEMTRACE_STATE_* */
	__u32 events;		/* MEMTRACE_EV_* attached */
	__u32 sample_every;	/* config in force, for scaling estimates */
	__u32 sample_bytes;
	__u64 min_age_ns;	/* as requested */

	__u64 stacks_off;	/* struct memtrace_stack_rec + frames, each 8-aligned */
	__u64 stats_off;	/* struct memtrace_stat_rec[nr_stats] */
	__u64 allocs_off;	/* struct memtrace_alloc_rec[nr_allocs] */
	__u64 caches_off;	/* struct memtrace_cache_rec[nr_caches] */
	__u32 nr_stacks;
	__u32 nr_stats;
	__u32 nr_allocs;
	__u32 nr_caches;
	__u32 stack_rec_size;
	__u32 stat_rec_size;
	__u32 alloc_rec_size;
	__u32 cache_rec_size;

	struct memtrace_activity activity;
	struct memtrace_loss loss;
	struct memtrace_target_state target;	/* user mode */
	/*
	 * Since MEMTRACE_FEAT_TASK_FILTERS: symbols of module code that was
	 * freed while tracing (init code after a module's init, a module's
	 * core at unload), kept so stacks made while that code was there are
	 * named right; and the module-code epoch the stacks are dated by.
	 */
	__u64 ksyms_off;	/* struct memtrace_ksym_rec + names, each 8-aligned */
	__u32 nr_ksyms;
	__u32 ksym_rec_size;
	__u32 code_epoch;	/* freed module code ranges so far */
	__u32 ksyms_dropped;	/* symbols not kept: the module symbol store was full */
	__u32 blind;		/* MEMTRACE_BLIND_*: paths this kernel let no hook see */
	__u32 __pad1;
	/* Grown at the end: check header_size before reading these. */
	__u32 flags;		/* MEMTRACE_HDR_* */
	__u32 __pad2;
	/* since MEMTRACE_FEAT_UNWIND_CFI: */
	struct memtrace_unwind_stats unwind;
};

/*
 * Allocation and free paths without a tracepoint are reached with kprobes;
 * where a kernel has none of the functions probed, the path is not seen,
 * and the report says so.
 */
#define MEMTRACE_BLIND_BULK_FREE	(1U << 0)	/* kmem_cache_free_bulk, kfree_bulk (kfree_rcu batches) */
#define MEMTRACE_BLIND_BULK_ALLOC	(1U << 1)	/* kmem_cache_alloc_bulk */
#define MEMTRACE_BLIND_VMALLOC		(1U << 2)	/* vmalloc, vfree */
#define MEMTRACE_BLIND_KREALLOC		(1U << 3)	/* krealloc resizing in place */
#define MEMTRACE_BLIND_MEMPOOL		(1U << 4)	/* mempool reserve elements */
#define MEMTRACE_BLIND_PERCPU_CHUNK	(1U << 5)	/* pages of percpu chunks told apart */
#define MEMTRACE_BLIND_CACHE_DESTROY	(1U << 6)	/* a cache destroyed and another made at its address */
#define MEMTRACE_BLIND_SPLIT_PAGE	(1U << 7)	/* split_page(): its pages' allocations stay one block */

/*
 * The reader lacks CAP_SYSLOG: this kernel-mode snapshot has kernel
 * addresses as 0 (memtrace_alloc_rec.addr) and kernel stacks without
 * frames; trace records read(2) by it have addr and caller 0.  Counts,
 * sizes, caches and task names are all there.
 */
#define MEMTRACE_HDR_KADDR_HIDDEN	(1U << 0)

#define MEMTRACE_STATE_STOPPED	0
#define MEMTRACE_STATE_TRACING	1

/* A stored stack: the record, then nr_frames __u64 addresses, innermost first. */
struct memtrace_stack_rec {
	__u32 id;
	__u32 nr_frames;
	/* since MEMTRACE_FEAT_TASK_FILTERS (stack_rec_size >= 16): */
	__u32 epoch;		/* code_epoch when the stack was first stored */
	__u32 __pad;
	/* __u64 ip[nr_frames] follows, at stack_rec_size */
};

/* Kinds of allocation, memtrace_stat_rec.kind and memtrace_alloc_rec.kind */
#define MEMTRACE_KIND_KMALLOC	1
#define MEMTRACE_KIND_CACHE	2
#define MEMTRACE_KIND_PAGE	3
#define MEMTRACE_KIND_PERCPU	4
/*
 * Pages (MEMTRACE_KIND_PAGE when allocated) that back a slab at snapshot
 * time: the slab allocator's growth, whose objects are reported with their
 * own stacks.  Only in old_* counts, as the state of the page may change.
 */
#define MEMTRACE_KIND_SLAB_PAGE	5
/* User mode: malloc and its family, by the target process.  Addresses are user addresses. */
#define MEMTRACE_KIND_USER	6
/* User mode: mmap / mremap, by the target process. */
#define MEMTRACE_KIND_USER_MMAP	7
/* vmalloc and friends: addr is the virtual address, bytes the pages mapped. */
#define MEMTRACE_KIND_VMALLOC	8
/*
 * Pages that back another allocation reported on its own, kept apart so
 * no memory is counted twice (like MEMTRACE_KIND_SLAB_PAGE): the pages of
 * a vmalloc area, of a percpu chunk, of a kmalloc larger than the largest
 * kmalloc cache.  addr is the PFN.
 */
#define MEMTRACE_KIND_VMALLOC_PAGE	9
#define MEMTRACE_KIND_PERCPU_PAGE	10
#define MEMTRACE_KIND_KMALLOC_PAGE	11

/*
 * Counters of one (stack, cache, kind).  Totals count every recorded event
 * since tracing started; live_* count the allocations still in the index,
 * and old_* those of them at least min_age_ns old.  Under sampling each
 * recorded allocation stands for est_weight_q16 / 65536 allocations on
 * average (summed in est_*).
 */
struct memtrace_stat_rec {
	__u32 stack_id;
	__u16 cache_id;		/* user kinds: the process slot (memtrace_target_state.procs) */
	__u8 kind;
	__u8 __pad0;
	__u64 total_allocs;
	__u64 total_bytes;	/* bytes allocated (as the allocator gave) */
	__u64 frees;
	__u64 live_count;
	__u64 live_bytes;
	__u64 live_bytes_req;	/* bytes requested by the callers */
	__u64 old_count;
	__u64 old_bytes;
	__u64 est_old_count;	/* scaled for sampling */
	__u64 est_old_bytes;
	__u64 first_ns;		/* first and last allocation recorded */
	__u64 last_ns;
};

struct memtrace_alloc_rec {
	__u64 addr;		/* address; for pages, the PFN */
	__u64 ts_ns;		/* CLOCK_MONOTONIC at allocation */
	__u32 stack_id;
	__u32 bytes_req;
	__u32 bytes_alloc;
	__u32 pid;		/* allocating task (thread) */
	__u16 cache_id;		/* user kinds: the process slot (memtrace_target_state.procs) */
	__u8 kind;
	__u8 __pad0;
	__u32 __pad1;
	char comm[MEMTRACE_COMM_LEN];
};

struct memtrace_cache_rec {
	__u16 id;
	__u16 flags;		/* MEMTRACE_CACHE_* */
	__u32 object_size;	/* as kmem_cache_size() reports */
	char name[MEMTRACE_NAME_LEN];
};

/* The cache passes the configured cache filter (or there is none). */
#define MEMTRACE_CACHE_SELECTED	(1U << 0)

/*
 * One function of module code freed while tracing (snapshot ksyms section):
 * the record, then name_len + 1 bytes of name and module_len + 1 bytes of
 * module name (each NUL-terminated), the next record at the following
 * 8-byte boundary.  A stack stored before the code was freed (stack epoch
 * < freed_epoch) whose frame lies in [start, start + size) was made while
 * this function was there; /proc/kallsyms no longer knows it.
 */
struct memtrace_ksym_rec {
	__u64 start;
	__u32 size;
	__u32 freed_epoch;
	__u16 name_len;
	__u16 module_len;
	__u32 flags;		/* MEMTRACE_KSYM_* */
	/* char name[name_len + 1], module[module_len + 1] follow */
};

#define MEMTRACE_KSYM_INIT	(1U << 0)	/* module init code, freed after init */
/*
 * The whole code range of a module, not a function (name is ""): marks
 * where the module was, for frames no kept function covers.
 */
#define MEMTRACE_KSYM_RANGE	(1U << 1)

/* ---- Trace records: read(2) of /dev/memtrace --------------------------- */

/* One allocation or free; read(2) returns whole records only. */
struct memtrace_trace_rec {
	__u64 ts_ns;		/* CLOCK_MONOTONIC */
	__u64 addr;		/* as in memtrace_alloc_rec */
	__u64 caller;		/* innermost frame of the allocation's stack, or 0 */
	__u32 stack_id;		/* the allocation's stack */
	__u32 bytes_req;
	__u32 bytes_alloc;
	__u32 pid;		/* the task allocating, or freeing */
	__u8 type;		/* MEMTRACE_TRACE_* */
	__u8 kind;		/* MEMTRACE_KIND_* */
	__u16 cache_id;		/* user kinds: the process slot (memtrace_target_state.procs) */
	__u32 __pad;
	char comm[MEMTRACE_COMM_LEN];
};

#define MEMTRACE_TRACE_ALLOC	1
#define MEMTRACE_TRACE_FREE	2

/* ---- Event rings (MEMTRACE_FEAT_EVRING) -------------------------------- */

/*
 * Pressure and growth events (MEMTRACE_EV_PRESSURE, _GROWTH) go into one ring per possible
 * CPU, written by that CPU only, never allocated in a hook.  The reader
 * maps them all read-only: mmap(2) of evring.mmap_size bytes at file
 * offset MEMTRACE_EVRING_MMAP_OFFSET.  CPU i's ring is at i * cpu_stride:
 * a struct memtrace_evring_meta page, then data_size bytes of records.
 *
 * Positions count bytes since the ring was made, never wrap (64 bits),
 * and index the data at pos % data_size.  The producer stores
 * producer_pos with release semantics after a record is complete: a
 * reader loads it with acquire semantics and may read every record below
 * it.  The reader gives back what it has read with
 * MEMTRACE_IOC_EVRING_CONSUME (the mapping is read-only: the module never
 * trusts a position userspace could scribble), which moves consumer_pos.
 * A record that does not fit is dropped and counted in lost (a slow reader
 * stalls nothing).  A record never wraps: the producer fills the end of
 * the data with a MEMTRACE_EVT_PAD record and starts again at its start.
 */
#define MEMTRACE_EVRING_MMAP_OFFSET	(1ULL << 40)

struct memtrace_evring_meta {
	__u64 producer_pos;	/* written by the CPU's producer */
	__u64 __pad0[7];	/* the consumer's position on another cache line */
	__u64 consumer_pos;	/* moved by MEMTRACE_IOC_EVRING_CONSUME */
	__u64 __pad1[7];
	__u64 lost;		/* records this CPU dropped: ring full, or nested in another */
	__u64 written;		/* records this CPU wrote (pad records not counted) */
};

/* MEMTRACE_IOC_EVRING_INFO: the rings' geometry, while they exist. */
struct memtrace_evring_info {
	__u32 size;		/* in: sizeof(struct memtrace_evring_info) */
	__u32 nr_cpus;		/* out: rings (possible CPU ids 0..nr_cpus-1) */
	__u64 cpu_stride;	/* out: bytes from one CPU's meta page to the next */
	__u64 data_offset;	/* out: from a CPU's meta page to its data */
	__u64 data_size;	/* out: bytes of data per CPU (a power of 2) */
	__u64 mmap_size;	/* out: bytes to map at MEMTRACE_EVRING_MMAP_OFFSET */
};
#define MEMTRACE_EVRING_INFO_SIZE_VER0	40

/* MEMTRACE_IOC_EVRING_CONSUME: the reader is done with CPU cpu's records below pos. */
struct memtrace_evring_consume {
	__u32 size;		/* sizeof(struct memtrace_evring_consume) */
	__u32 cpu;
	__u64 pos;		/* consumer_pos <= pos <= producer_pos */
};
#define MEMTRACE_EVRING_CONSUME_SIZE_VER0	16

/* Every record starts with this; size includes it and is a multiple of 8. */
struct memtrace_ev_hdr {
	__u32 size;
	__u16 type;		/* MEMTRACE_EVT_* */
	__u16 __pad;
};

#define MEMTRACE_EVT_PAD		0	/* skip size bytes */
#define MEMTRACE_EVT_OOM_KILL		1	/* struct memtrace_ev_oom_kill */
#define MEMTRACE_EVT_OOM_VICTIM		2	/* struct memtrace_ev_oom_victim */
#define MEMTRACE_EVT_RECLAIM_BEGIN	3	/* struct memtrace_ev_reclaim */
#define MEMTRACE_EVT_RECLAIM_END	4	/* struct memtrace_ev_reclaim */

/* enum oom_constraint, as the kernel's OOM report names them */
#define MEMTRACE_OOM_CONSTRAINT_NONE		0
#define MEMTRACE_OOM_CONSTRAINT_CPUSET		1
#define MEMTRACE_OOM_CONSTRAINT_MEMORY_POLICY	2
#define MEMTRACE_OOM_CONSTRAINT_MEMCG		3

/*
 * The OOM killer chose a victim (entry of oom_kill_process()).  Task ids
 * are numbered in the pid namespace of the reader that started the
 * session (0: not in it); frames are there only if it had CAP_SYSLOG.
 */
struct memtrace_ev_oom_kill {
	struct memtrace_ev_hdr hdr;
	__u64 ts_ns;		/* CLOCK_MONOTONIC */
	__u32 trigger_pid;	/* the task whose allocation failed (thread) */
	__u32 victim_pid;	/* the task chosen (thread group leader, mostly) */
	char trigger_comm[MEMTRACE_COMM_LEN];
	char victim_comm[MEMTRACE_COMM_LEN];
	__u64 totalpages;	/* pages the victim was chosen among (oomkill's "pages") */
	__s64 points;		/* the victim's badness: its RSS, swap and page table pages, adjusted */
	__u64 memcg_id;		/* cgroup id (its inode in cgroup2fs) of a memcg OOM; 0: global */
	__u64 memcg_max;	/* that memcg's memory.max, pages */
	__u64 memcg_usage;	/* and its memory.current, pages */
	__u32 constraint;	/* MEMTRACE_OOM_CONSTRAINT_* */
	__s32 order;		/* of the allocation that failed; -1: sysrq */
	__u32 gfp_mask;
	__u32 loadavg[3];	/* 1, 5, 15 min load, fixed point with 11 fractional bits (FSHIFT) */
	__u32 nr_frames;	/* the trigger's kernel stack, innermost first */
	__u32 __pad;
	/* __u64 frames[nr_frames] follow */
};

/*
 * The victim marked (oom:mark_victim, with the victim's task lock held:
 * the numbers the kernel prints in its "Killed process" line).
 */
struct memtrace_ev_oom_victim {
	struct memtrace_ev_hdr hdr;
	__u64 ts_ns;
	__u32 pid;		/* the victim */
	__u32 trigger_pid;	/* the task marking it */
	char comm[MEMTRACE_COMM_LEN];
	__u64 total_vm_kb;
	__u64 anon_rss_kb;
	__u64 file_rss_kb;
	__u64 shmem_rss_kb;
	__u64 pgtables_kb;
	__u32 uid;
	__s16 oom_score_adj;
	__u16 __pad;
};

/* Direct reclaim began or ended in a task (begin and end pair by pid). */
struct memtrace_ev_reclaim {
	struct memtrace_ev_hdr hdr;
	__u64 ts_ns;
	__u32 pid;
	__u32 flags;		/* MEMTRACE_RECLAIM_* */
	char comm[MEMTRACE_COMM_LEN];
	__s32 order;		/* begin: the allocation's order */
	__u32 gfp_mask;		/* begin */
	__u64 nr_reclaimed;	/* end: pages reclaimed */
};

#define MEMTRACE_RECLAIM_MEMCG	(1U << 0)	/* memcg reclaim (memory.high/max), not a zone's */

/*
 * MEMTRACE_EV_VMSCAN records.  Every one starts with the header, the time
 * (CLOCK_MONOTONIC), the task (numbered as for the other records) and
 * MEMTRACE_VMSCAN_* flags of the task.  A reclaim's LRU and slab records
 * fall between the begin and end (struct memtrace_ev_reclaim) of the task
 * that made them, which tells a memcg's reclaim from a zone's.
 */
#define MEMTRACE_EVT_KSWAPD_WAKE	5	/* struct memtrace_ev_kswapd: a node's kswapd starts a balancing run */
#define MEMTRACE_EVT_KSWAPD_SLEEP	6	/* struct memtrace_ev_kswapd: ... and goes to sleep */
#define MEMTRACE_EVT_WAKEUP_KSWAPD	7	/* struct memtrace_ev_kswapd: an allocation woke kswapd */
#define MEMTRACE_EVT_LRU_ISOLATE	8	/* struct memtrace_ev_lru_isolate */
#define MEMTRACE_EVT_LRU_INACTIVE	9	/* struct memtrace_ev_lru_inactive */
#define MEMTRACE_EVT_LRU_ACTIVE		10	/* struct memtrace_ev_lru_active */
#define MEMTRACE_EVT_SLAB_BEGIN		11	/* struct memtrace_ev_shrink_slab */
#define MEMTRACE_EVT_SLAB_END		12	/* struct memtrace_ev_shrink_slab */
#define MEMTRACE_EVT_VMSCAN_WRITE	13	/* struct memtrace_ev_vmscan_write */

#define MEMTRACE_VMSCAN_KSWAPD	(1U << 0)	/* the task is a kswapd */

/* The kernel's enum lru_list, for memtrace_ev_lru_isolate.lru */
#define MEMTRACE_LRU_INACTIVE_ANON	0
#define MEMTRACE_LRU_ACTIVE_ANON	1
#define MEMTRACE_LRU_INACTIVE_FILE	2
#define MEMTRACE_LRU_ACTIVE_FILE	3
#define MEMTRACE_LRU_UNEVICTABLE	4

struct memtrace_ev_kswapd {
	struct memtrace_ev_hdr hdr;
	__u64 ts_ns;
	__u32 pid;		/* the kswapd, or the allocating task (WAKEUP_KSWAPD) */
	__u32 flags;		/* MEMTRACE_VMSCAN_* */
	__s32 nid;
	__s32 zid;		/* highest zone index wanted (not in SLEEP) */
	__s32 order;		/* not in SLEEP */
	__u32 gfp_mask;		/* WAKEUP_KSWAPD */
	char comm[MEMTRACE_COMM_LEN];
};

/*
 * Pages taken off an LRU list to scan (mm_vmscan_lru_isolate).  With the
 * classic LRU, nr_scanned of an inactive list is what /proc/vmstat counts
 * in pgscan_*; with the multi-generational LRU (6.1+ with lru_gen on,
 * which 6.1 does not trace), nr_taken is.
 */
struct memtrace_ev_lru_isolate {
	struct memtrace_ev_hdr hdr;
	__u64 ts_ns;
	__u32 pid;
	__u32 flags;
	__s32 lru;		/* MEMTRACE_LRU_* */
	__s32 highest_zoneidx;
	__s32 order;
	__u32 __pad;
	__u64 nr_requested;
	__u64 nr_scanned;
	__u64 nr_skipped;	/* in zones above the reclaim's */
	__u64 nr_taken;
};

/* An inactive list shrunk (mm_vmscan_lru_shrink_inactive): nr_reclaimed is pgsteal_*'s. */
struct memtrace_ev_lru_inactive {
	struct memtrace_ev_hdr hdr;
	__u64 ts_ns;
	__u32 pid;
	__u32 flags;
	__s32 nid;
	__u32 file;		/* 1: file pages, 0: anon */
	__s32 priority;
	__u32 __pad;
	__u64 nr_scanned;
	__u64 nr_reclaimed;
	/* the kernel's struct reclaim_stat of these pages */
	__u32 nr_dirty;
	__u32 nr_unqueued_dirty;
	__u32 nr_congested;
	__u32 nr_writeback;
	__u32 nr_immediate;
	__u32 nr_pageout;	/* written out (writeback from reclaim) */
	__u32 nr_activate[2];	/* moved back to the active list: [0] anon, [1] file */
	__u32 nr_ref_keep;
	__u32 nr_unmap_fail;
};

/* An active list shrunk (mm_vmscan_lru_shrink_active). */
struct memtrace_ev_lru_active {
	struct memtrace_ev_hdr hdr;
	__u64 ts_ns;
	__u32 pid;
	__u32 flags;
	__s32 nid;
	__u32 file;
	__s32 priority;
	__u32 __pad;
	__u64 nr_taken;
	__u64 nr_active;	/* kept active */
	__u64 nr_deactivated;	/* moved to the inactive list */
	__u64 nr_referenced;
};

/*
 * A slab shrinker called (mm_shrink_slab_start/end, paired by task: a
 * task runs one shrinker at a time).  The objects it scanned are
 * begin.total_scan - end.total_scan (/proc/vmstat's slabs_scanned).
 */
struct memtrace_ev_shrink_slab {
	struct memtrace_ev_hdr hdr;
	__u64 ts_ns;
	__u32 pid;
	__u32 flags;
	__s32 nid;
	__s32 priority;		/* begin */
	__u64 scan_fn;		/* the shrinker's scan_objects(), its name; 0 without CAP_SYSLOG */
	__u64 total_scan;	/* begin: objects to scan; end: left unscanned */
	__s64 nr_deferred;	/* begin: deferred from before; end: deferred to later */
	__u64 cache_items;	/* begin: objects the shrinker counted */
	__s64 freed;		/* end: objects freed */
};

/*
 * MEMTRACE_EV_COMPACTION records.  A zone's compaction run is a begin and
 * an end (mm_compaction_begin/end) by one task, paired by task id.
 */
#define MEMTRACE_EVT_COMPACT_BEGIN	14	/* struct memtrace_ev_compact */
#define MEMTRACE_EVT_COMPACT_END	15	/* struct memtrace_ev_compact */
#define MEMTRACE_EVT_COMPACT_TRY	16	/* struct memtrace_ev_compact_try: a direct compaction starts */
#define MEMTRACE_EVT_KCOMPACTD_WAKE	17	/* struct memtrace_ev_kswapd, of kcompactd (zid, order) */
#define MEMTRACE_EVT_KCOMPACTD_SLEEP	18	/* struct memtrace_ev_kswapd, of kcompactd */

/* memtrace_ev_compact.flags */
#define MEMTRACE_COMPACT_DIRECT	(1U << 0)	/* an allocating task compacts (a stall) */
#define MEMTRACE_COMPACT_SYNC	(1U << 1)	/* synchronous migration */
/*
 * The kernel's compact_control could not be read (its layout is private
 * and found at the first run): no zone name, node, order or counts.
 */
#define MEMTRACE_COMPACT_NO_CONTROL	(1U << 2)

/* The kernel's enum compact_result, for memtrace_ev_compact.status */
#define MEMTRACE_COMPACT_NOT_SUITABLE_ZONE	0
#define MEMTRACE_COMPACT_SKIPPED		1
#define MEMTRACE_COMPACT_DEFERRED		2
#define MEMTRACE_COMPACT_NO_SUITABLE_PAGE	3
#define MEMTRACE_COMPACT_CONTINUE		4
#define MEMTRACE_COMPACT_COMPLETE		5
#define MEMTRACE_COMPACT_PARTIAL_SKIPPED	6
#define MEMTRACE_COMPACT_CONTENDED		7
#define MEMTRACE_COMPACT_SUCCESS		8
#define MEMTRACE_COMPACT_UNKNOWN		255

struct memtrace_ev_compact {
	struct memtrace_ev_hdr hdr;
	__u64 ts_ns;
	__u32 pid;
	__u32 flags;		/* MEMTRACE_COMPACT_* */
	char comm[MEMTRACE_COMM_LEN];
	__s32 nid;
	__s32 order;		/* -1: the whole zone (compact_memory, proactive) */
	__u64 zone_start_pfn;
	__u64 zone_end_pfn;
	char zone[MEMTRACE_NAME_LEN];	/* "DMA32", "Normal", ... */
	__u32 status;		/* end: MEMTRACE_COMPACT_* result */
	__u32 __pad;
	__u64 migrate_scanned;	/* end: pages the migration scanner looked at (compact_migrate_scanned) */
	__u64 free_scanned;	/* end: the free scanner's (compact_free_scanned) */
};

struct memtrace_ev_compact_try {
	struct memtrace_ev_hdr hdr;
	__u64 ts_ns;
	__u32 pid;
	__s32 order;
	__u32 gfp_mask;
	__s32 priority;		/* enum compact_priority: 0 sync full .. 2 async */
	char comm[MEMTRACE_COMM_LEN];
};

/*
 * MEMTRACE_EV_MIGRATION records: a migrate_pages() call's start and end
 * (mm_migrate_pages_start, mm_migrate_pages), paired by task.  The end's
 * counts are what the kernel adds to /proc/vmstat's pgmigrate_* and
 * thp_migration_* just before it.
 */
#define MEMTRACE_EVT_MIGRATE_BEGIN	19	/* struct memtrace_ev_migrate (no counts) */
#define MEMTRACE_EVT_MIGRATE_END	20	/* struct memtrace_ev_migrate */

/* The kernel's enum migrate_reason, which grows only at its end (6.1: up to DEMOTION). */
#define MEMTRACE_MR_COMPACTION		0
#define MEMTRACE_MR_MEMORY_FAILURE	1
#define MEMTRACE_MR_MEMORY_HOTPLUG	2
#define MEMTRACE_MR_SYSCALL		3	/* migrate_pages(2), move_pages(2), cpusets */
#define MEMTRACE_MR_MEMPOLICY_MBIND	4
#define MEMTRACE_MR_NUMA_MISPLACED	5	/* NUMA balancing */
#define MEMTRACE_MR_CONTIG_RANGE	6
#define MEMTRACE_MR_LONGTERM_PIN	7
#define MEMTRACE_MR_DEMOTION		8
#define MEMTRACE_MR_DAMON		9	/* 6.3+ */

struct memtrace_ev_migrate {
	struct memtrace_ev_hdr hdr;
	__u64 ts_ns;
	__u32 pid;
	__u32 reason;		/* MEMTRACE_MR_* */
	__u32 mode;		/* the kernel's enum migrate_mode: 0 async, 1 sync light, 2 sync */
	__u32 __pad;
	char comm[MEMTRACE_COMM_LEN];
	__u64 succeeded;	/* pages (pgmigrate_success) */
	__u64 failed;		/* pages (pgmigrate_fail) */
	__u64 thp_succeeded;
	__u64 thp_failed;
	__u64 thp_split;
	__u64 large_split;	/* large folios split (kernels that report it; 0 on 6.1) */
};

/* A page written out by reclaim (mm_vmscan_write_folio); /proc/vmstat's nr_vmscan_write. */
struct memtrace_ev_vmscan_write {
	struct memtrace_ev_hdr hdr;
	__u64 ts_ns;
	__u32 pid;
	__u32 flags;
	__u32 nr_pages;
	__u32 file;		/* 1: file pages, 0: anon (to swap) */
};
/* Process memory growth (MEMTRACE_EV_GROWTH): one type per system call. */
#define MEMTRACE_EVT_MMAP		32
#define MEMTRACE_EVT_MUNMAP		33
#define MEMTRACE_EVT_MREMAP		34
#define MEMTRACE_EVT_BRK		35
#define MEMTRACE_EVT_SHMGET		36
#define MEMTRACE_EVT_SHMAT		37
#define MEMTRACE_EVT_SHMDT		38
#define MEMTRACE_EVT_SHMCTL		39
#define MEMTRACE_EVT_FAULT		40	/* struct memtrace_ev_fault */

#define MEMTRACE_FILE_NAME_LEN	64	/* a mapped file's name (its last path component) */

/*
 * A system call of the growth modes, recorded as it returns.  args are
 * the call's arguments as the caller passed them (mmap: addr, len, prot,
 * flags, fd, off; munmap: addr, len; mremap: old_addr, old_len, new_len,
 * flags, new_addr; shmget: key, size, shmflg; shmat: shmid, shmaddr,
 * shmflg; shmdt: shmaddr; shmctl: shmid, cmd, buf), except brk: args[0]
 * is the break asked for and args[1] the break before the call.  ret is
 * what the system call returned (-errno on failure; brk: the new break).
 * frames are the caller's user stack, innermost first: the instruction
 * after the system call (in the libc wrapper), then the wrapper's return
 * address, then the frame-pointer chain.  Task ids as in the other
 * records: in the pid namespace of the reader that started the session.
 */
struct memtrace_ev_syscall {
	struct memtrace_ev_hdr hdr;
	__u64 ts_ns;		/* CLOCK_MONOTONIC, at the return */
	__u32 pid;		/* thread group */
	__u32 tid;		/* thread */
	char comm[MEMTRACE_COMM_LEN];
	__s64 ret;
	__u64 args[6];
	/* mmap (and mremap) of a file: the file's name; "" if anonymous or unknown */
	char file[MEMTRACE_FILE_NAME_LEN];
	__u32 flags;		/* MEMTRACE_SYSCALL_* */
	__u32 nr_frames;
	/* __u64 frames[nr_frames] follow */
};

/* The file of a file mapping could not be named (its mm was busy). */
#define MEMTRACE_SYSCALL_FILE_UNKNOWN	(1U << 0)
/* The user stack was cut short by an unreadable frame. */
#define MEMTRACE_SYSCALL_STACK_FAULT	(1U << 1)

/*
 * A page fault as the task's fault counters count it (handle_mm_fault()
 * done, neither retried nor failed): major if it read from storage, or
 * was a retry.  frames (with MEMTRACE_EV_FAULT): the user stack, innermost
 * first: the faulting instruction and its callers, or for a fault the
 * kernel took on user memory (copy_to_user), the system call's stack as in
 * memtrace_ev_syscall.  file (with MEMTRACE_EV_FFAULT): the name of the
 * file mapped there; "" for anonymous memory.
 */
struct memtrace_ev_fault {
	struct memtrace_ev_hdr hdr;
	__u64 ts_ns;
	__u32 pid;
	__u32 tid;
	char comm[MEMTRACE_COMM_LEN];
	__u64 address;		/* the faulting user address */
	__u32 flags;		/* MEMTRACE_FAULT_* */
	__u32 nr_frames;
	char file[MEMTRACE_FILE_NAME_LEN];
	/* __u64 frames[nr_frames] follow */
};

#define MEMTRACE_FAULT_MAJOR	(1U << 0)
#define MEMTRACE_FAULT_WRITE	(1U << 1)
#define MEMTRACE_FAULT_KERNEL	(1U << 2)	/* taken in the kernel, on user memory */
#define MEMTRACE_FAULT_STACK_FAULT (1U << 3)	/* the user stack was cut short */

/*
 * MEMTRACE_IOC_EVSTATS: what the event hooks lost outside the rings
 * (which count their own drops in memtrace_evring_meta.lost).
 */
struct memtrace_evstats {
	__u32 size;		/* in: sizeof(struct memtrace_evstats) */
	__u32 __pad;
	/* kprobe and kretprobe hits the kernel dropped, pressure and growth hooks */
	__u64 probe_missed;
	__u64 file_unknown;	/* growth: file mappings whose file could not be named */
	__u64 stack_faults;	/* growth: user stacks cut short */
	/* ver1: how the growth modes' user stacks were walked (table counts included) */
	struct memtrace_unwind_stats unwind;
};
#define MEMTRACE_EVSTATS_SIZE_VER0	32
#define MEMTRACE_EVSTATS_SIZE_VER1	128

/* ---- USDT probes: MEMTRACE_IOC_USDT (MEMTRACE_FEAT_USDT) ---------------- */

/*
 * One argument of a USDT probe, compiled by the reader from the note's
 * argument spec ("-4@%edi", "8@-16(%rbp)", "-8@$5"): its size in bytes
 * (1, 2, 4 or 8; negative: signed, sign-extended to 64 bits) and where it
 * is: a register, memory at a register plus a displacement (read with
 * copy_from_user_nofault() at the hit), or a constant.
 */
struct memtrace_usdt_arg {
	__u8 kind;		/* MEMTRACE_USDT_ARG_* */
	__s8 size;		/* +-1, 2, 4, 8 */
	__u8 reg;		/* MEMTRACE_USDT_REG_*: REG and MEM */
	__u8 __pad[5];
	__s64 value;		/* MEM: the displacement; CONST: the constant */
};

#define MEMTRACE_USDT_ARG_REG	1	/* the register's low |size| bytes */
#define MEMTRACE_USDT_ARG_MEM	2	/* |size| bytes at reg + value */
#define MEMTRACE_USDT_ARG_CONST	3	/* value */

/* x86-64 registers as the argument specs name them (any width: %eax, %ax, %al are RAX) */
#define MEMTRACE_USDT_REG_RAX	0
#define MEMTRACE_USDT_REG_RBX	1
#define MEMTRACE_USDT_REG_RCX	2
#define MEMTRACE_USDT_REG_RDX	3
#define MEMTRACE_USDT_REG_RSI	4
#define MEMTRACE_USDT_REG_RDI	5
#define MEMTRACE_USDT_REG_RBP	6
#define MEMTRACE_USDT_REG_RSP	7
#define MEMTRACE_USDT_REG_R8	8	/* R8..R15: 8..15 */
#define MEMTRACE_USDT_REG_R15	15
#define MEMTRACE_USDT_REG_MAX	15

#define MEMTRACE_USDT_MAX_ARGS	12	/* <sys/sdt.h> takes up to 12 */
#define MEMTRACE_MAX_USDT	64	/* probe sites per session */

/*
 * One probe site: the ELF object (an open descriptor), the file offset of
 * the probe's instruction, and of its semaphore (the 16-bit counter
 * <sys/sdt.h> tests before computing the arguments; 0: none), which the
 * kernel raises in every address space the probe is armed in, and lowers
 * when it is disarmed (uprobe reference counters).  probe is the reader's
 * number for it, carried in each record.  Handed over before
 * MEMTRACE_IOC_START (EBUSY while tracing); armed by START in the
 * address spaces of the task filter's process (memtrace_config.tgid: its
 * image as it execs) or in every one that maps the object (tgid 0), and
 * kept until the file that added them is closed.
 */
struct memtrace_usdt {
	__u32 size;		/* sizeof(struct memtrace_usdt) */
	__s32 fd;		/* regular file, open for reading */
	__u64 offset;		/* file offset of the probe's instruction */
	__u64 ref_ctr_offset;	/* file offset of its semaphore; 0: none */
	__u32 probe;		/* the reader's number for it */
	__u32 nr_args;		/* <= MEMTRACE_USDT_MAX_ARGS */
	struct memtrace_usdt_arg args[MEMTRACE_USDT_MAX_ARGS];
};
#define MEMTRACE_USDT_SIZE_VER0	224

/* A probe hit, with its arguments decoded and the user stack. */
#define MEMTRACE_EVT_USDT	48	/* struct memtrace_ev_usdt */

struct memtrace_ev_usdt {
	struct memtrace_ev_hdr hdr;
	__u64 ts_ns;		/* CLOCK_MONOTONIC */
	__u32 pid;		/* thread group, in the starting reader's pid namespace */
	__u32 tid;
	char comm[MEMTRACE_COMM_LEN];
	__u32 probe;		/* memtrace_usdt.probe */
	__u32 nr_args;
	__u64 args[MEMTRACE_USDT_MAX_ARGS];	/* sign- or zero-extended by size */
	__u32 flags;		/* MEMTRACE_USDT_* */
	__u32 arg_faults;	/* bit i: argument i's memory could not be read (args[i] 0) */
	__u32 nr_frames;
	__u32 __pad;
	/*
	 * __u64 frames[nr_frames] follow: the probe's address, then the
	 * return addresses of the frame-pointer chain.
	 */
};

#define MEMTRACE_USDT_STACK_FAULT	(1U << 0)	/* the user stack was cut short */

/* ---- Trace records in the event rings (MEMTRACE_FEAT_TRACE_RING) ------- */

#define MEMTRACE_EVT_ALLOC_TRACE	56	/* struct memtrace_ev_trace, rec.type MEMTRACE_TRACE_ALLOC */
#define MEMTRACE_EVT_FREE_TRACE		57	/* struct memtrace_ev_trace, rec.type MEMTRACE_TRACE_FREE */

/*
 * One allocation or free (MEMTRACE_TRACEF_EVRING), on the ring of the CPU
 * that made it.  rec is what read(2) would have returned, as the reader
 * that started the session may see it: task ids in its pid namespace,
 * kernel addresses (addr and caller of kernel kinds) 0 unless it had
 * CAP_SYSLOG.  rec.ts_ns follows the header, as every record's time does.
 */
struct memtrace_ev_trace {
	struct memtrace_ev_hdr hdr;
	struct memtrace_trace_rec rec;
};

/* ---- User mode: MEMTRACE_IOC_TARGET and MEMTRACE_IOC_UPROBE ------------ */

struct memtrace_target {
	__u32 size;		/* sizeof(struct memtrace_target) */
	__s32 pid;		/* process (thread group id) to trace; 0: none */
	__u32 flags;		/* MEMTRACE_TARGET_FOLLOW_FORKS */
	__u32 __pad;
};

/*
 * Also trace the processes the target forks (and theirs), from the fork
 * on (a child that shares its parent's memory, vfork, from its exec on).
 * Without it a child takes no trap.  An exec of a traced process is
 * followed either way: its new image is traced under a slot of its own.  A followed process's addresses in memtrace_alloc_rec.addr and
 * memtrace_trace_rec.addr carry its slot in bits 48-55 (the target's: 0),
 * as addresses repeat across forks: MEMTRACE_USER_ADDR() gives the address.
 */
#define MEMTRACE_TARGET_FOLLOW_FORKS	(1U << 0)
#define MEMTRACE_USER_ADDR(a)		((a) & ((1ULL << 48) - 1))
#define MEMTRACE_USER_SLOT(a)		(((a) >> 48) & 0xff)
#define MEMTRACE_TARGET_SIZE_VER0	16

/* The user allocator functions memtrace knows how to read. */
#define MEMTRACE_UFN_MALLOC		1	/* malloc(size) */
#define MEMTRACE_UFN_CALLOC		2	/* calloc(n, size) */
#define MEMTRACE_UFN_REALLOC		3	/* realloc(ptr, size) */
#define MEMTRACE_UFN_REALLOCARRAY	4	/* reallocarray(ptr, n, size) */
#define MEMTRACE_UFN_FREE		5	/* free(ptr) */
#define MEMTRACE_UFN_POSIX_MEMALIGN	6	/* posix_memalign(&ptr, align, size) */
#define MEMTRACE_UFN_ALIGNED_ALLOC	7	/* aligned_alloc(align, size) */
#define MEMTRACE_UFN_MEMALIGN		8	/* memalign(align, size) */
#define MEMTRACE_UFN_VALLOC		9	/* valloc(size) */
#define MEMTRACE_UFN_PVALLOC		10	/* pvalloc(size) */
#define MEMTRACE_UFN_MMAP		11	/* mmap(addr, len, ...) */
#define MEMTRACE_UFN_MUNMAP		12	/* munmap(addr, len) */
#define MEMTRACE_UFN_MREMAP		13	/* mremap(old, old_len, new_len, ...) */
/*
 * C++ operator delete(ptr, ...), every variant: a free whose own call to
 * free() (libstdc++'s calls it) is part of it, not a second free.  operator
 * new is MEMTRACE_UFN_MALLOC: its size is its first argument too.
 */
#define MEMTRACE_UFN_DELETE		14
#define MEMTRACE_UFN_MAX		14

/*
 * One allocator function to probe: the file (an open descriptor of the ELF
 * object, e.g. libc as the target maps it) and the file offset of the
 * function's first instruction.  Probes are armed by MEMTRACE_IOC_START,
 * only in the address spaces traced, and removed by STOP, by a new target,
 * or when the file that added them is closed.  While tracing, a probe
 * handed over is armed at once (an exec'd image's libc), and handing over
 * one already armed arms it in the address spaces that mapped its file
 * before they were traced (an exec'd image's executable); before START,
 * the same probe twice is refused (EEXIST).
 */
struct memtrace_uprobe {
	__u32 size;		/* sizeof(struct memtrace_uprobe) */
	__s32 fd;		/* regular file, open for reading */
	__u64 offset;		/* file offset of the entry point (a RETURN_SITE: of the ret) */
	__u32 func;		/* MEMTRACE_UFN_* */
	__u32 __pad;
	/* since MEMTRACE_FEAT_RETURN_SITES: */
	__u32 kind;		/* MEMTRACE_UPROBE_*; 0 for older readers */
	__u32 __pad2;
};
#define MEMTRACE_UPROBE_SIZE_VER0	24

/*
 * How a function's return is seen (memtrace_uprobe.kind).  CALL: a probe
 * at the entry and a return probe (uretprobe), which diverts the return
 * address to a trampoline.  ENTRY: a probe at the entry only; the reader
 * hands over a RETURN_SITE probe for each of the function's ret
 * instructions (found by disassembling it), whose handler completes the
 * call the entry kept and then performs the ret itself, so that the
 * return costs one trap and no return-address diversion.  A RETURN_SITE's
 * offset must be that of a ret instruction (c3, or c3 with an f2/f3
 * prefix): anything else is refused (EINVAL).  Frees take CALL or ENTRY
 * (the same: they need no return).
 */
#define MEMTRACE_UPROBE_CALL		0
#define MEMTRACE_UPROBE_ENTRY		1
#define MEMTRACE_UPROBE_RETURN_SITE	2
/* Probes of one session, return sites included (128 before them). */
#define MEMTRACE_MAX_UPROBES		256

/* ---- User stacks: MEMTRACE_IOC_UNWIND_TABLE (MEMTRACE_FEAT_UNWIND_CFI) ---- */

/*
 * How to find the caller's frame from one PC range of an object, built
 * by the reader from the object's .eh_frame / .debug_frame.  A row holds
 * from its start to the next row's start (file offsets of the object, as
 * mapped); a row of MEMTRACE_UNW_CFA_NONE covers a gap without
 * information.  CFA (the stack pointer before the call) is the register
 * cfa_reg plus cfa_off; the return address is at CFA + ra_off; the
 * caller's rbp is at CFA + rbp_off (MEMTRACE_UNW_RBP_AT_CFA) or is rbp
 * unchanged (MEMTRACE_UNW_RBP_SAME).
 */
struct memtrace_unwind_row {
	__u32 start;		/* file offset of the row's first byte */
	__s32 cfa_off;
	__s16 ra_off;
	__s16 rbp_off;
	__u8 cfa_reg;		/* MEMTRACE_UNW_CFA_* */
	__u8 rbp_rule;		/* MEMTRACE_UNW_RBP_* */
	__u16 __pad;
};

#define MEMTRACE_UNW_CFA_NONE	0	/* no information: frame pointers, or the stack ends */
#define MEMTRACE_UNW_CFA_RSP	1	/* CFA = rsp + cfa_off */
#define MEMTRACE_UNW_CFA_RBP	2	/* CFA = rbp + cfa_off */
#define MEMTRACE_UNW_CFA_END	3	/* outermost frame: the return address is undefined */
/*
 * A signal trampoline (__restore_rt): rsp points at the ucontext of the
 * interrupted frame.  Its PC is exact, not a return address: the stack
 * records it + 1, so that symbolizing at address - 1 names it.
 */
#define MEMTRACE_UNW_CFA_SIGNAL	4
/* A rule no row expresses (a DWARF expression): the stack ends here, counted */
#define MEMTRACE_UNW_CFA_BAD	5
#define MEMTRACE_UNW_CFA_MAX	5

#define MEMTRACE_UNW_RBP_SAME	0
#define MEMTRACE_UNW_RBP_AT_CFA	1

/* Bounds: a row's offsets from the CFA, rows per table, bytes of all tables. */
#define MEMTRACE_UNW_MAX_CFA_OFF	(1 << 20)
#define MEMTRACE_UNW_MAX_ROWS		(1U << 22)

/*
 * The unwind table of one object, for the session's target: fd is the
 * object, open for reading (the file the target maps).  A table with the
 * build id of one loaded before is not loaded again: the file is bound to
 * that one (rows may then be 0).  Rows must be sorted by start, strictly,
 * each start inside the file and each row's rules within the bounds, or
 * the table is refused (EINVAL); tables beyond the module's bound
 * (unwind_table_mb) get ENOSPC.  Tables last until the target changes or
 * the session's file is closed.
 */
struct memtrace_unwind_table {
	__u32 size;		/* sizeof(struct memtrace_unwind_table) */
	__u32 version;		/* MEMTRACE_UNWIND_TABLE_VERSION */
	__s32 fd;
	__u32 nr_rows;
	__u64 rows;		/* user pointer to struct memtrace_unwind_row[nr_rows] */
	__u32 row_size;		/* sizeof(struct memtrace_unwind_row) */
	__u32 build_id_len;	/* 0: none (no sharing) */
	__u8 build_id[20];
	__u32 __pad;
};
#define MEMTRACE_UNWIND_TABLE_SIZE_VER0	56
#define MEMTRACE_UNWIND_TABLE_VERSION	1

/* ---- ioctls ------------------------------------------------------------ */

#define MEMTRACE_IOC_VERSION	_IOWR(MEMTRACE_IOC_MAGIC, 0x00, struct memtrace_version)
#define MEMTRACE_IOC_CONFIG	_IOW(MEMTRACE_IOC_MAGIC, 0x01, struct memtrace_config)
#define MEMTRACE_IOC_START	_IO(MEMTRACE_IOC_MAGIC, 0x02)
#define MEMTRACE_IOC_STOP	_IO(MEMTRACE_IOC_MAGIC, 0x03)
#define MEMTRACE_IOC_CLEAR	_IO(MEMTRACE_IOC_MAGIC, 0x04)
/* size in bytes of the snapshot buffer that mmap then maps; page multiple */
#define MEMTRACE_IOC_SET_BUFFER	_IOW(MEMTRACE_IOC_MAGIC, 0x05, __u64)
#define MEMTRACE_IOC_SNAPSHOT	_IOWR(MEMTRACE_IOC_MAGIC, 0x06, struct memtrace_snapshot_req)
/* Set the process to trace; clears the uprobes added for the previous one. */
#define MEMTRACE_IOC_TARGET	_IOW(MEMTRACE_IOC_MAGIC, 0x07, struct memtrace_target)
#define MEMTRACE_IOC_UPROBE	_IOW(MEMTRACE_IOC_MAGIC, 0x08, struct memtrace_uprobe)
#define MEMTRACE_IOC_EVRING_INFO	_IOWR(MEMTRACE_IOC_MAGIC, 0x09, struct memtrace_evring_info)
#define MEMTRACE_IOC_EVRING_CONSUME	_IOW(MEMTRACE_IOC_MAGIC, 0x0a, struct memtrace_evring_consume)
#define MEMTRACE_IOC_UNWIND_TABLE	_IOW(MEMTRACE_IOC_MAGIC, 0x18, struct memtrace_unwind_table)
#define MEMTRACE_IOC_EVSTATS	_IOWR(MEMTRACE_IOC_MAGIC, 0x10, struct memtrace_evstats)
#define MEMTRACE_IOC_USDT	_IOW(MEMTRACE_IOC_MAGIC, 0x20, struct memtrace_usdt)

#endif /* _UAPI_LINUX_MEMTRACE_H */
