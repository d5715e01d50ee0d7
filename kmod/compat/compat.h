/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one home of kernel version differences.  Each is decided by a
 * build-time probe of the API (compat-probed.h, made by probes.sh) or,
 * for a private structure layout that headers do not show, discovered
 * at module load and validated (mt_compat_init()).
 */
#ifndef MEMTRACE_COMPAT_H
#define MEMTRACE_COMPAT_H

#include <linux/hrtimer.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/timer.h>
#include "compat/compat-probed.h"

/*
 * A function called from another file only directly (the probes' tail
 * calls into the recorder) is no indirect-branch target: __noendbr keeps
 * IBT kernels from putting an ENDBR, executed on every call, at its
 * start, as they do at every global function.  Kernels before IBT (5.10)
 * have no such attribute and need none.
 */
#ifndef __noendbr
#define __noendbr
#endif

struct kmem_cache;

/*
 * sparse's mark of a call that returns true with a lock held: 7.x replaced
 * it with the compiler's context analysis and took the macro away.
 */
#ifndef __cond_lock
#define __cond_lock(x, c) (c)
#endif

static inline void mt_vm_flags_set(struct vm_area_struct *vma, vm_flags_t flags)
{
#ifdef MEMTRACE_HAVE_VM_FLAGS_SET
	vm_flags_set(vma, flags);
#else
	vma->vm_flags |= flags;
#endif
}

static inline void mt_vm_flags_clear(struct vm_area_struct *vma, vm_flags_t flags)
{
#ifdef MEMTRACE_HAVE_VM_FLAGS_SET
	vm_flags_clear(vma, flags);
#else
	vma->vm_flags &= ~flags;
#endif
}

/*
 * Kernel options memtrace has modes for that this kernel is built
 * without (MEMTRACE_KCONFIG_*): the reader names them when it refuses a
 * mode (memtrace_version.kconfig_off).
 */
u32 mt_kconfig_off(void);	/* compat.c */

/*
 * Tracepoints a kernel's configuration may leave out of its trace headers
 * (probed): MT_IF_TP_<NAME>(x) is x where the kernel declares them,
 * nothing where not.  At run time the tracepoints are found by name, and
 * a mode whose tracepoints are missing is refused (mt_tp_lookup()).
 */
#ifdef MEMTRACE_HAVE_TP_MEMCG_RECLAIM
#define MT_IF_TP_MEMCG_RECLAIM(...)	__VA_ARGS__
#else
#define MT_IF_TP_MEMCG_RECLAIM(...)
#endif
#ifdef MEMTRACE_HAVE_TP_COMPACTION
#define MT_IF_TP_COMPACTION(...)	__VA_ARGS__
#else
#define MT_IF_TP_COMPACTION(...)
#endif

/* in_hardirq() (5.11); before, in_irq(). */
#ifndef MEMTRACE_HAVE_IN_HARDIRQ
#define in_hardirq()	in_irq()
#endif

/* *p = new if *p == *old, else *old = *p; true if swapped (try_cmpxchg64(), 6.0). */
static inline bool mt_try_cmpxchg64(u64 *p, u64 *old, u64 new)
{
#ifdef MEMTRACE_HAVE_TRY_CMPXCHG64
	return try_cmpxchg64(p, old, new);
#else
	u64 was = cmpxchg64(p, *old, new);

	if (was == *old)
		return true;
	*old = was;
	return false;
#endif
}

/* The VMA of mm that contains addr, or NULL (vma_lookup(), 5.14). */
static inline struct vm_area_struct *mt_vma_lookup(struct mm_struct *mm, unsigned long addr)
{
#ifdef MEMTRACE_HAVE_VMA_LOOKUP
	return vma_lookup(mm, addr);
#else
	struct vm_area_struct *vma = find_vma(mm, addr);

	return vma && vma->vm_start <= addr ? vma : NULL;
#endif
}

/*
 * The slot a kmalloc of size bytes gets (kmalloc_size_roundup(), 6.1):
 * before, from the kmalloc size classes as kmalloc() picks them.
 */
static inline size_t mt_kmalloc_size_roundup(size_t size)
{
#ifdef MEMTRACE_HAVE_KMALLOC_SIZE_ROUNDUP
	return kmalloc_size_roundup(size);
#else
	unsigned int i;

	if (!size)
		return 0;
	if (size > KMALLOC_MAX_CACHE_SIZE)
		return PAGE_SIZE << get_order(size);
	i = kmalloc_index(size);
	return i == 1 ? 96 : i == 2 ? 192 : 1UL << i;
#endif
}

/*
 * The kmem tracepoints.  memtrace's probes take 6.1's prototypes:
 *   kmalloc(call_site, ptr, bytes_req, bytes_alloc, gfp, node)
 *   kmem_cache_alloc(call_site, ptr, struct kmem_cache *s, gfp, node)
 *   kmem_cache_free(call_site, ptr, const struct kmem_cache *s)
 *   percpu_alloc_percpu(call_site, reserved, is_atomic, size, align,
 *			 base_addr, off, ptr, bytes_alloc, gfp)
 * Where the kernel's differ (probed: tp_kmem_node_events.c,
 * tp_kmem_cache_free_cache.c, tp_percpu_alloc_call_site.c),
 * MT_KMEM_TP_ALLOC_PROBES(kmalloc, cache_alloc),
 * MT_KMEM_TP_FREE_PROBES(cache_free) and MT_PERCPU_TP_PROBES(percpu_alloc)
 * define probes of its prototypes around them, MT_TP_<EVENT> names the
 * probe to register for each event and MT_TP_<EVENT>_ARGS is the
 * kernel's prototype:
 * - 5.10: kmalloc_node and kmem_cache_alloc_node are events of their own
 *   (MT_IF_TP_KMEM_NODE(), MT_TP_KMEM_NODE_ENTRY(): their checks and
 *   table entries), and kmem_cache_alloc passes the sizes, not the
 *   cache: the cache is read from the object's slab page
 *   (mt_slab_cache_of_object()); where that layout is unknown the object
 *   is recorded as a kmalloc of its size.
 * - 5.10, 5.11: kmem_cache_free passes the object alone.
 * - 5.10: percpu_alloc_percpu has no caller (the stack shows it), no
 *   bytes charged (size on each possible CPU, as 6.1 counts them without
 *   memcg) and no gfp.
 * A kernel with yet another prototype fails MT_CHECK_PROBE()'s check.
 */
#ifdef MEMTRACE_HAVE_TP_KMEM_NODE_EVENTS
#define MT_IF_TP_KMEM_NODE(...)	__VA_ARGS__
#define MT_TP_KMEM_NODE_ENTRY(...)	__VA_ARGS__,
/* The kernel's prototypes (the floor of tests/kmod/memtrace_bench.c). */
#define MT_TP_KMALLOC_ARGS	void *data, unsigned long call_site, const void *ptr, \
				size_t bytes_req, size_t bytes_alloc, gfp_t gfp
#define MT_TP_CACHE_ALLOC_ARGS	MT_TP_KMALLOC_ARGS
#define MT_KMEM_TP_ALLOC_PROBES(kmalloc, cache_alloc)				\
static void mt_tp_kmalloc_node(void *data, unsigned long call_site,		\
			       const void *ptr, size_t bytes_req,		\
			       size_t bytes_alloc, gfp_t gfp, int node)		\
{										\
	kmalloc(data, call_site, ptr, bytes_req, bytes_alloc, gfp, node);	\
}										\
static void mt_tp_kmalloc(MT_TP_KMALLOC_ARGS)					\
{										\
	kmalloc(data, call_site, ptr, bytes_req, bytes_alloc, gfp, NUMA_NO_NODE); \
}										\
static void mt_tp_cache_alloc_node(void *data, unsigned long call_site,	\
				   const void *ptr, size_t bytes_req,		\
				   size_t bytes_alloc, gfp_t gfp, int node)	\
{										\
	struct kmem_cache *s = ptr ? mt_slab_cache_of_object(ptr) : NULL;	\
										\
	if (likely(s))								\
		cache_alloc(data, call_site, ptr, s, gfp, node);		\
	else									\
		kmalloc(data, call_site, ptr, bytes_req, bytes_alloc, gfp, node); \
}										\
static void mt_tp_cache_alloc(MT_TP_CACHE_ALLOC_ARGS)				\
{										\
	mt_tp_cache_alloc_node(data, call_site, ptr, bytes_req, bytes_alloc,	\
			       gfp, NUMA_NO_NODE);				\
}
#define MT_TP_KMALLOC		mt_tp_kmalloc
#define MT_TP_KMALLOC_NODE	mt_tp_kmalloc_node
#define MT_TP_CACHE_ALLOC	mt_tp_cache_alloc
#define MT_TP_CACHE_ALLOC_NODE	mt_tp_cache_alloc_node
#else
#define MT_IF_TP_KMEM_NODE(...)
#define MT_TP_KMEM_NODE_ENTRY(...)
#define MT_TP_KMALLOC_ARGS	void *data, unsigned long call_site, const void *ptr, \
				size_t bytes_req, size_t bytes_alloc, gfp_t gfp, int node
#define MT_TP_CACHE_ALLOC_ARGS	void *data, unsigned long call_site, const void *ptr, \
				struct kmem_cache *s, gfp_t gfp, int node
#define MT_KMEM_TP_ALLOC_PROBES(kmalloc, cache_alloc)
#define MT_TP_KMALLOC		mt_probe_kmalloc
#define MT_TP_CACHE_ALLOC	mt_probe_kmem_cache_alloc
#endif

#ifdef MEMTRACE_HAVE_TP_KMEM_CACHE_FREE_CACHE
#define MT_TP_CACHE_FREE_ARGS	void *data, unsigned long call_site, const void *ptr, \
				const struct kmem_cache *s
#define MT_KMEM_TP_FREE_PROBES(cache_free)
#define MT_TP_CACHE_FREE	mt_probe_kmem_cache_free
#else
#define MT_TP_CACHE_FREE_ARGS	void *data, unsigned long call_site, const void *ptr
#define MT_KMEM_TP_FREE_PROBES(cache_free)					\
static void mt_tp_cache_free(MT_TP_CACHE_FREE_ARGS)				\
{										\
	cache_free(data, call_site, ptr, NULL);					\
}
#define MT_TP_CACHE_FREE	mt_tp_cache_free
#endif

#ifdef MEMTRACE_HAVE_TP_PERCPU_ALLOC_CALL_SITE
#define MT_PERCPU_TP_PROBES(percpu_alloc)
#define MT_TP_PERCPU_ALLOC	mt_probe_percpu_alloc
#else
#define MT_PERCPU_TP_PROBES(percpu_alloc)					\
static void mt_tp_percpu_alloc(void *data, bool reserved, bool is_atomic,	\
			       size_t size, size_t align, void *base_addr,	\
			       int off, void __percpu *ptr)			\
{										\
	percpu_alloc(data, 0, reserved, is_atomic, size, align, base_addr, off,	\
		     ptr, size * num_possible_cpus(), 0);			\
}
#define MT_TP_PERCPU_ALLOC	mt_tp_percpu_alloc
#endif

/*
 * The pressure tracepoints' differences (probed):
 * - mm_vmscan_write_folio (folios) was mm_vmscan_writepage (5.10):
 *   MT_TP_VMSCAN_WRITE names it, MT_TP_VMSCAN_WRITE_ARGS are its probe's
 *   arguments and MT_TP_VMSCAN_WRITE_PAGES() / _FILE() what is read of
 *   them; MT_CHECK_PROBE_VMSCAN_WRITE(fn) checks the probe.
 * - mm_compaction_begin/end pass the compact_control; 5.10's pass the
 *   scanners' PFNs: MT_TP_COMPACT_*_ARGS, MT_TP_COMPACT_CC (NULL there:
 *   its records carry no zone, order or scan counts).
 * - mm_migrate_pages_start is not in 5.10: MT_IF_TP_MIGRATE_START(), and
 *   --migration is refused (MEMTRACE_NOHOOK_MIGRATE_START, mt_kconfig_off()).
 */
#ifdef MEMTRACE_HAVE_TP_VMSCAN_WRITE_FOLIO
#define MT_TP_VMSCAN_WRITE		"mm_vmscan_write_folio"
#define MT_TP_VMSCAN_WRITE_ARGS		void *data, struct folio *folio
#define MT_TP_VMSCAN_WRITE_PAGES()	folio_nr_pages(folio)
#define MT_TP_VMSCAN_WRITE_FILE()	folio_is_file_lru(folio)
#define MT_CHECK_PROBE_VMSCAN_WRITE(fn)	MT_CHECK_PROBE(mm_vmscan_write_folio, fn)
#else
#define MT_TP_VMSCAN_WRITE		"mm_vmscan_writepage"
#define MT_TP_VMSCAN_WRITE_ARGS		void *data, struct page *page
#define MT_TP_VMSCAN_WRITE_PAGES()	thp_nr_pages(page)
#define MT_TP_VMSCAN_WRITE_FILE()	page_is_file_lru(page)
#define MT_CHECK_PROBE_VMSCAN_WRITE(fn)	MT_CHECK_PROBE(mm_vmscan_writepage, fn)
#endif

#ifdef MEMTRACE_HAVE_TP_COMPACTION_CONTROL
#define MT_TP_COMPACT_BEGIN_ARGS	void *data, struct compact_control *cc,		\
					unsigned long zone_start, unsigned long zone_end, \
					bool sync
#define MT_TP_COMPACT_END_ARGS		MT_TP_COMPACT_BEGIN_ARGS, int status
#define MT_TP_COMPACT_CC		cc
#else
#define MT_TP_COMPACT_BEGIN_ARGS	void *data, unsigned long zone_start,		\
					unsigned long migrate_pfn, unsigned long free_pfn, \
					unsigned long zone_end, bool sync
#define MT_TP_COMPACT_END_ARGS		MT_TP_COMPACT_BEGIN_ARGS, int status
#define MT_TP_COMPACT_CC		NULL
#endif

#ifdef MEMTRACE_HAVE_TP_MIGRATE_PAGES_START
#define MT_IF_TP_MIGRATE_START(...)	__VA_ARGS__
#else
#define MT_IF_TP_MIGRATE_START(...)
#endif

/*
 * The other pressure tracepoints whose prototypes differ (probed): each
 * probe's arguments, whatever the kernel passes.
 * - mm_vmscan_{direct,memcg}_reclaim_begin/end: 7.x passes the memcg
 *   too, and begin (gfp, order) for (order, gfp): MT_TP_RECLAIM_*_ARGS.
 * - mm_vmscan_lru_isolate: 6.1 passes the isolate mode before the LRU,
 *   6.4 dropped it: MT_TP_LRU_ISOLATE_ARGS.
 * - mm_shrink_slab_start/end: 7.x passes the memcg last:
 *   MT_TP_SHRINK_SLAB_*_ARGS.
 * - mm_migrate_pages: 6.12 passes the large folios split before the
 *   mode: MT_TP_MIGRATE_ARGS, and MT_TP_MIGRATE_LARGE_SPLIT their number
 *   (0 where it is not passed).
 * None of the arguments a kernel adds is used.
 */
#ifdef MEMTRACE_HAVE_VMSCAN_RECLAIM_BEGIN_MEMCG
#define MT_TP_RECLAIM_BEGIN_ARGS	void *data, gfp_t gfp, int order, struct mem_cgroup *memcg
#else
#define MT_TP_RECLAIM_BEGIN_ARGS	void *data, int order, gfp_t gfp
#endif
#ifdef MEMTRACE_HAVE_VMSCAN_RECLAIM_END_MEMCG
#define MT_TP_RECLAIM_END_ARGS		void *data, unsigned long nr_reclaimed,		\
					struct mem_cgroup *memcg
#else
#define MT_TP_RECLAIM_END_ARGS		void *data, unsigned long nr_reclaimed
#endif

#ifdef MEMTRACE_HAVE_LRU_ISOLATE_MODE
#define MT_TP_LRU_ISOLATE_ARGS							\
	void *data, int highest_zoneidx, int order,				\
	unsigned long nr_requested, unsigned long nr_scanned,			\
	unsigned long nr_skipped, unsigned long nr_taken,			\
	isolate_mode_t isolate_mode, int lru
#else
#define MT_TP_LRU_ISOLATE_ARGS							\
	void *data, int highest_zoneidx, int order,				\
	unsigned long nr_requested, unsigned long nr_scanned,			\
	unsigned long nr_skipped, unsigned long nr_taken, int lru
#endif

#ifdef MEMTRACE_HAVE_SHRINK_SLAB_MEMCG
#define MT_TP_SHRINK_SLAB_START_ARGS						\
	void *data, struct shrinker *shr, struct shrink_control *sc,		\
	long nr_objects_to_shrink, unsigned long cache_items,			\
	unsigned long long delta, unsigned long total_scan, int priority,	\
	struct mem_cgroup *memcg
#define MT_TP_SHRINK_SLAB_END_ARGS						\
	void *data, struct shrinker *shr, int nid, int shrinker_retval,		\
	long unused_scan_cnt, long new_scan_cnt, long total_scan,		\
	struct mem_cgroup *memcg
#else
#define MT_TP_SHRINK_SLAB_START_ARGS						\
	void *data, struct shrinker *shr, struct shrink_control *sc,		\
	long nr_objects_to_shrink, unsigned long cache_items,			\
	unsigned long long delta, unsigned long total_scan, int priority
#define MT_TP_SHRINK_SLAB_END_ARGS						\
	void *data, struct shrinker *shr, int nid, int shrinker_retval,		\
	long unused_scan_cnt, long new_scan_cnt, long total_scan
#endif

#ifdef MEMTRACE_HAVE_MIGRATE_PAGES_LARGE_SPLIT
#define MT_TP_MIGRATE_ARGS							\
	void *data, unsigned long succeeded, unsigned long failed,		\
	unsigned long thp_succeeded, unsigned long thp_failed,			\
	unsigned long thp_split, unsigned long large_split,			\
	enum migrate_mode mode, int reason
#define MT_TP_MIGRATE_LARGE_SPLIT	large_split
#else
#define MT_TP_MIGRATE_ARGS							\
	void *data, unsigned long succeeded, unsigned long failed,		\
	unsigned long thp_succeeded, unsigned long thp_failed,			\
	unsigned long thp_split, enum migrate_mode mode, int reason
#define MT_TP_MIGRATE_LARGE_SPLIT	0
#endif

/*
 * Whether uprobes skips single-stepping the probed instruction when a
 * handler moved the ip (handle_swbp(): "take execution elsewhere"), as
 * a return site's probe does when it performs the ret itself
 * (MEMTRACE_FEAT_RETURN_SITES).  5.10 has no such skip: it steps the
 * copied ret with the moved stack pointer and the traced process
 * crashes; Debian's 6.1.192, 6.12 and 7.2 have it.  No header shows the
 * behaviour: the probe is a proxy (uprobe_task_auprobe.c: a field 5.10's
 * struct uprobe_task lacks and those kernels have).  Without it, return
 * sites are not offered: the reader uses return probes.
 */
#ifdef MEMTRACE_HAVE_UPROBE_TASK_AUPROBE
#define MT_UPROBE_HANDLER_MAY_JUMP	1
#else
#define MT_UPROBE_HANDLER_MAY_JUMP	0
#endif

#ifdef CONFIG_UPROBES
#include <linux/uprobes.h>
#include <linux/sched.h>
#ifdef CONFIG_X86_USER_SHADOW_STACK
#include <asm/prctl.h>
#endif

/*
 * uprobes: 6.12 returns a struct uprobe from uprobe_register() and splits
 * unregistering into a per-probe part and one wait for all; 6.11 dropped
 * the filter's context argument; 6.13 gave handlers a per-call data word.
 */
struct mt_uprobe_handle {
#ifdef MEMTRACE_HAVE_UPROBE_REGISTER_PTR
	struct uprobe *uprobe;
#else
	struct inode *inode;
	loff_t offset;
#endif
};

/*
 * A uprobe with a reference counter (a USDT probe's semaphore; 0: none):
 * the kernel adds 1 to the 16-bit word at file offset ref_ctr_offset in
 * each address space the probe is armed in, and takes it back when
 * disarmed.  6.12's uprobe_register() takes it; before,
 * uprobe_register_refctr() (4.20 on).
 */
static inline int mt_uprobe_register_refctr(struct inode *inode, loff_t offset,
					    loff_t ref_ctr_offset,
					    struct uprobe_consumer *uc,
					    struct mt_uprobe_handle *h)
{
#ifdef MEMTRACE_HAVE_UPROBE_REGISTER_PTR
	struct uprobe *u = uprobe_register(inode, offset, ref_ctr_offset, uc);

	if (IS_ERR(u))
		return PTR_ERR(u);
	h->uprobe = u;
	return 0;
#else
	h->inode = inode;
	h->offset = offset;
	return uprobe_register_refctr(inode, offset, ref_ctr_offset, uc);
#endif
}

static inline int mt_uprobe_register(struct inode *inode, loff_t offset,
				     struct uprobe_consumer *uc,
				     struct mt_uprobe_handle *h)
{
	return mt_uprobe_register_refctr(inode, offset, 0, uc, h);
}

/* Follow a batch of these with one mt_uprobe_unregister_sync(). */
static inline void mt_uprobe_unregister_nosync(struct mt_uprobe_handle *h,
					       struct uprobe_consumer *uc)
{
#ifdef MEMTRACE_HAVE_UPROBE_REGISTER_PTR
	uprobe_unregister_nosync(h->uprobe, uc);
#else
	/* Waits for the consumer's handlers itself (register_rwsem). */
	uprobe_unregister(h->inode, h->offset, uc);
#endif
}

static inline void mt_uprobe_unregister_sync(void)
{
#ifdef MEMTRACE_HAVE_UPROBE_REGISTER_PTR
	uprobe_unregister_sync();
#endif
}

/*
 * The current task returns through a shadow stack (x86 user CET): a ret
 * performed for it must pop that too, which only the CPU does.
 */
static inline bool mt_shadow_stack_enabled(void)
{
#ifdef CONFIG_X86_USER_SHADOW_STACK
	return current->thread.features & ARCH_SHSTK_SHSTK;
#else
	return false;
#endif
}

#ifdef MEMTRACE_HAVE_UPROBE_HANDLER_DATA
#define MT_UPROBE_HANDLER_ARGS	struct uprobe_consumer *self, struct pt_regs *regs, \
				__u64 *data
#define MT_URETPROBE_HANDLER_ARGS struct uprobe_consumer *self, unsigned long func, \
				struct pt_regs *regs, __u64 *data
#else
#define MT_UPROBE_HANDLER_ARGS	struct uprobe_consumer *self, struct pt_regs *regs
#define MT_URETPROBE_HANDLER_ARGS struct uprobe_consumer *self, unsigned long func, \
				struct pt_regs *regs
#endif

#ifdef MEMTRACE_HAVE_UPROBE_FILTER_MM
#define MT_UPROBE_FILTER_ARGS	struct uprobe_consumer *self, struct mm_struct *mm
#else
#define MT_UPROBE_FILTER_ARGS	struct uprobe_consumer *self, \
				enum uprobe_filter_ctx ctx, struct mm_struct *mm
#endif
#endif /* CONFIG_UPROBES */

/*
 * Kernel stacks are memoized where the unwinder is ORC (kstack.h): its
 * frames follow from return addresses alone.
 */
#if defined(CONFIG_X86_64) && defined(CONFIG_UNWINDER_ORC)
#define MT_HAVE_KSTACK_MEMO
#endif

/*
 * A stack from a kprobe's registers (the probed function first): the x86
 * unwinder is exported and starts from regs; stack_trace_save_regs() is
 * not exported.  Without it, a stack is taken from the handler and cut
 * at the probed function, which an optimized kprobe's trampoline (no ORC
 * data) may hide.
 */
#if defined(CONFIG_X86_64) && defined(CONFIG_UNWINDER_ORC)
#define MT_HAVE_REGS_UNWIND
#endif

/* The text of a module, core or init: [*base, *base + size). */
static inline unsigned long mt_module_text(const struct module *mod, bool init,
					   unsigned long *base)
{
#ifdef MEMTRACE_HAVE_MODULE_MEMORY
	const struct module_memory *m = &mod->mem[init ? MOD_INIT_TEXT : MOD_TEXT];

	*base = (unsigned long)m->base;
	return m->size;
#else
	const struct module_layout *l = init ? &mod->init_layout : &mod->core_layout;

	*base = (unsigned long)l->base;
	return l->text_size;
#endif
}

#ifdef CONFIG_KRETPROBES
#include <linux/kprobes.h>

/* The kretprobe of an instance (get_kretprobe(), 5.11; before, ri->rp). */
static inline struct kretprobe *mt_get_kretprobe(struct kretprobe_instance *ri)
{
#ifdef MEMTRACE_HAVE_GET_KRETPROBE
	return get_kretprobe(ri);
#else
	return ri->rp;
#endif
}

/* Where the probed function returns to (get_kretprobe_retaddr(), 5.15). */
static inline unsigned long mt_kretprobe_retaddr(struct kretprobe_instance *ri)
{
#ifdef MEMTRACE_HAVE_GET_KRETPROBE_RETADDR
	return get_kretprobe_retaddr(ri);
#else
	return (unsigned long)ri->ret_addr;
#endif
}
#endif

/*
 * Up to 5.13 (kprobe::fault_handler), x86 counts a page fault taken in a
 * running kprobe handler in the probe's nmissed: a kretprobe's handler
 * reading a user stack page that is not there looks like a dropped hit.
 */
#if defined(MEMTRACE_HAVE_KPROBE_FAULT_HANDLER) && defined(CONFIG_X86)
#define MT_KPROBE_HANDLER_FAULTS_MISSED
#endif

/*
 * Kernel stacks through a kretprobe.  A kretprobe replaces the return
 * address of the probed function with its trampoline's.  From 5.13 the
 * x86 unwinder puts the real one back (unwind_recover_kretprobe(), then
 * unwind_recover_rethook()); before (5.10), it stops at the trampoline, and
 * a stack taken under a function memtrace kretprobes, or in the return
 * handler, names neither the caller nor its module.  There, memtrace's own
 * kretprobes keep each return address they replace by its stack slot
 * (ri->fp), and the ORC walk of kstack.c puts it back.  Elsewhere these
 * are empty: the code is what it was without them.
 */
#if defined(CONFIG_KRETPROBES) && defined(CONFIG_X86_64) && \
	defined(CONFIG_UNWINDER_ORC) && defined(MEMTRACE_HAVE_KRETPROBE_INSTANCE_FP) && \
	!defined(MEMTRACE_HAVE_UNWIND_RECOVER_KRETPROBE) && \
	!defined(MEMTRACE_HAVE_UNWIND_RECOVER_RETHOOK)
#define MT_KRETPROBE_UNWIND_FIX
struct unwind_state;

/* Entry handler: the return address at regs' stack pointer is to be replaced. */
void mt_krp_keep(struct pt_regs *regs);
/* Return handler: around the memtrace handler (stacks taken in it), then forget. */
void mt_krp_ret_begin(struct kretprobe_instance *ri, struct pt_regs *regs);
void mt_krp_ret_end(struct kretprobe_instance *ri);
/* All of memtrace's kretprobes are unregistered: no kept address stands. */
void mt_krp_forget_all(void);
/* Return addresses not kept (the table was full) since the reset: stacks that stop short. */
u64 mt_krp_lost(void);
void mt_krp_lost_reset(void);
/*
 * The ORC walk of the current task is at return address ip: the real one
 * if a kretprobe replaced it (st moved on to that caller's frame), else ip.
 */
unsigned long mt_krp_unwind_fix(struct unwind_state *st, unsigned long ip);
#else
struct pt_regs;
struct kretprobe_instance;
struct unwind_state;
static inline void mt_krp_keep(struct pt_regs *regs) { }
static inline void mt_krp_ret_begin(struct kretprobe_instance *ri, struct pt_regs *regs) { }
static inline void mt_krp_ret_end(struct kretprobe_instance *ri) { }
static inline void mt_krp_forget_all(void) { }
static inline u64 mt_krp_lost(void) { return 0; }
static inline void mt_krp_lost_reset(void) { }
static inline unsigned long mt_krp_unwind_fix(struct unwind_state *st, unsigned long ip)
{
	return ip;
}
#endif

/*
 * Allocator functions that kprobes reach, by their name in the kernel built
 * against: 6.10 renamed them *_noprof (memory allocation profiling) and
 * made the old names macros.
 */
#ifdef MEMTRACE_HAVE_ALLOC_NOPROF
#define MT_ALLOC_FN(name)	#name "_noprof"
#else
#define MT_ALLOC_FN(name)	#name
#endif

/* krealloc(): 6.17 made it a macro around krealloc_node_align(). */
#ifdef MEMTRACE_HAVE_KREALLOC_NODE_ALIGN
#define MT_KREALLOC_FN		MT_ALLOC_FN(krealloc_node_align)
#else
#define MT_KREALLOC_FN		MT_ALLOC_FN(krealloc)
#endif

/*
 * Timers, for the test modules (tests/kmod): 6.13 added hrtimer_setup()
 * and 7.x removed hrtimer_init(); timer_delete_sync() replaced
 * del_timer_sync() (6.2, backported to some stable kernels).
 */
static inline void mt_hrtimer_setup(struct hrtimer *timer,
				    enum hrtimer_restart (*fn)(struct hrtimer *),
				    clockid_t clock, enum hrtimer_mode mode)
{
#ifdef MEMTRACE_HAVE_HRTIMER_SETUP
	hrtimer_setup(timer, fn, clock, mode);
#else
	hrtimer_init(timer, clock, mode);
	timer->function = fn;
#endif
}

static inline int mt_timer_delete_sync(struct timer_list *timer)
{
#ifdef MEMTRACE_HAVE_TIMER_DELETE_SYNC
	return timer_delete_sync(timer);
#else
	return del_timer_sync(timer);
#endif
}

/*
 * Is the task dumpable by its owner (SUID_DUMP_USER), as ptrace's attach
 * check wants?  7.x keeps that in the task's exec_state, not in its mm,
 * and its reader is not exported: read it as the kernel does.
 */
#ifdef MEMTRACE_HAVE_TASK_EXEC_STATE
#include <linux/sched/exec_state.h>

static inline bool mt_task_dumpable_by_owner(struct task_struct *p)
{
	bool owner;

	rcu_read_lock();
	owner = READ_ONCE(rcu_dereference(p->exec_state)->dumpable) == TASK_DUMPABLE_OWNER;
	rcu_read_unlock();
	return owner;
}

/* The same, of a task seen running in mm, which the caller holds. */
static inline bool mt_task_mm_dumpable_by_owner(struct task_struct *p, struct mm_struct *mm)
{
	return mt_task_dumpable_by_owner(p);
}
#else
#include <linux/sched/coredump.h>

static inline bool mt_task_dumpable_by_owner(struct task_struct *p)
{
	return p->mm && get_dumpable(p->mm) == SUID_DUMP_USER;
}

static inline bool mt_task_mm_dumpable_by_owner(struct task_struct *p, struct mm_struct *mm)
{
	return get_dumpable(mm) == SUID_DUMP_USER;
}
#endif

/*
 * kvfree_rcu() of an object without an rcu_head, which may sleep (for
 * tests/kmod): kvfree_rcu_mightsleep() (6.3, backported to 6.1); 5.10
 * spells it kvfree_rcu(ptr).  A macro either way.
 */
#ifndef kvfree_rcu_mightsleep
#define kvfree_rcu_mightsleep(ptr)	kvfree_rcu(ptr)
#endif

/* Objects kmem_cache_alloc_bulk() put in p (7.x: all of them, or none). */
static inline int mt_kmem_cache_alloc_bulk(struct kmem_cache *s, gfp_t gfp, size_t n, void **p)
{
#ifdef MEMTRACE_HAVE_KMEM_CACHE_ALLOC_BULK_BOOL
	return kmem_cache_alloc_bulk(s, gfp, n, p) ? n : 0;
#else
	return kmem_cache_alloc_bulk(s, gfp, n, p);
#endif
}

int mt_compat_init(void);

struct task_struct;
/*
 * ptrace_may_access(task, PTRACE_MODE_ATTACH_REALCREDS): the caller may
 * attach to task as ptrace(PTRACE_ATTACH) would, credentials, dumpability
 * and LSMs (Yama) included.  Modules cannot call it by name (it is not
 * exported); where it cannot be reached (no kprobes, or an IBT kernel
 * enforcing indirect branch targets) the answer is the conservative one:
 * the caller's own process, or CAP_SYS_PTRACE.
 */
bool mt_ptrace_may_attach(struct task_struct *task);

/*
 * The size of the kernel function at addr as kallsyms bounds it (to the
 * next symbol), or 0; for telling whether a return address lies in it.
 */
unsigned long mt_function_size(unsigned long addr);

/*
 * The name of a slab cache.  struct kmem_cache is private to mm/ (its
 * SLUB layout left the public headers in 6.8), so the offset of its name
 * is found once at load; NULL if that failed.
 */
const char *mt_kmem_cache_name(const struct kmem_cache *s);

/*
 * The slab cache an object of a slab page belongs to, as SLUB keeps it in
 * the page (struct slab is private to mm/ too; its offset is found at
 * load), or NULL: not a slab object, or the layout is unknown.  Names the
 * real cache of a kmalloc (kmalloc-cg-, -rcl-, random and bucket caches
 * alike), which the kmalloc tracepoint does not give.
 */
struct kmem_cache *mt_slab_cache_of(const void *obj);

extern int mt_slab_cache_off;
extern int mt_kmem_cache_object_size_off;

/*
 * kmem_cache_size(s) without the call: the offset of the object size in
 * struct kmem_cache is found at load, as the name's is (the call where
 * that failed; _nocall: 0 then).  For byte sampling's decision, made on
 * every allocation.
 */
static __always_inline unsigned int mt_kmem_cache_object_size_nocall(struct kmem_cache *s)
{
	if (likely(mt_kmem_cache_object_size_off >= 0))
		return *(const u32 *)((const char *)s + mt_kmem_cache_object_size_off);
	return 0;	/* no cache has objects of 0 bytes */
}

static __always_inline unsigned int mt_kmem_cache_object_size(struct kmem_cache *s)
{
	return mt_kmem_cache_object_size_nocall(s) ?: kmem_cache_size(s);
}

/*
 * The same for an address known to be in the kernel's linear map, as
 * every object the slab allocator returns is: without virt_addr_valid(),
 * which is most of the cost in the kmalloc hook (an out-of-line call and
 * a memory-section lookup).
 */
static __always_inline struct kmem_cache *mt_slab_cache_of_object(const void *obj)
{
	struct page *head;

	if (mt_slab_cache_off < 0)
		return NULL;
	head = virt_to_head_page(obj);
	if (!PageSlab(head))
		return NULL;
	return *(struct kmem_cache **)((char *)head + mt_slab_cache_off);
}

#endif
