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
#include <linux/slab.h>
#include <linux/timer.h>
#include "compat-probed.h"

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
