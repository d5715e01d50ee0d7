// SPDX-License-Identifier: GPL-2.0
/*
 * Run-time half of the compat layer; see compat.h.
 */
#define pr_fmt(fmt) "memtrace: " fmt

#include <linux/capability.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/memtrace.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/ptrace.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include "compat/compat.h"

/* Where struct kmem_cache keeps its name pointer; -1: unknown. */
static int mt_kmem_cache_name_off = -1;
/*
 * Where the head page of a slab keeps its struct kmem_cache pointer
 * (struct slab, private to mm/, overlays struct page); -1: unknown.
 */
int mt_slab_cache_off = -1;
/* Where struct kmem_cache keeps its object size (kmem_cache_size()); -1: unknown. */
int mt_kmem_cache_object_size_off = -1;

/* The name field lies early in every layout so far (~100 bytes in SLUB). */
#define MT_KMEM_CACHE_SCAN	192

static void mt_layout_probe_ctor(void *obj)
{
	/* A constructor keeps SLUB from merging the probe cache into another. */
}

/*
 * Offset of the word of a slab's head page that points to its cache, or
 * -1: allocate an object of cache s and look for s in the page.  The
 * word must be the only one that holds s.
 */
static int mt_scan_slab_page(struct kmem_cache *s)
{
	const unsigned long *words;
	int i, off = -1;
	void *obj;

	obj = kmem_cache_alloc(s, GFP_KERNEL);
	if (!obj)
		return -1;
	words = (const unsigned long *)virt_to_head_page(obj);
	for (i = 0; i < (int)(sizeof(struct page) / sizeof(long)); i++) {
		if (words[i] != (unsigned long)s)
			continue;
		if (off >= 0) {
			off = -1;	/* twice: ambiguous */
			break;
		}
		off = i * sizeof(long);
	}
	kmem_cache_free(s, obj);
	return off;
}

/*
 * Offset of the only 32-bit field of s, within the bytes before its name,
 * that holds its object size, or -1.  The probe caches' sizes are not
 * multiples of 8, so no aligned size or offset SLUB derives equals them.
 */
static int mt_scan_object_size(struct kmem_cache *s, int name_off)
{
	const u32 *fields = (const u32 *)s;
	u32 object_size = kmem_cache_size(s);
	int i, off = -1;

	for (i = 0; i < name_off / (int)sizeof(u32); i++) {
		if (fields[i] != object_size)
			continue;
		if (off >= 0)
			return -1;	/* twice: ambiguous */
		off = i * sizeof(u32);
	}
	return off;
}

/*
 * Offset of the first word of cache 'name' that points to a copy of its
 * name, or -1; *slab_off the offset of its pointer in a slab page, and
 * *size_off that of its object size.  kmem_cache_create() stores
 * kstrdup_const(name), a copy for
 * a module's string, so the strings are compared, read without risk of a
 * fault; the scan stops at the first match, so it never reads past the
 * name field of the structure.
 */
static int mt_scan_for_name(const char *name, unsigned int size, int *slab_off,
			    int *size_off)
{
	char buf[MEMTRACE_NAME_LEN];
	const unsigned long *words;
	struct kmem_cache *s;
	int i, off = -1;

	*slab_off = -1;
	*size_off = -1;
	s = kmem_cache_create(name, size, 0, 0, mt_layout_probe_ctor);
	if (!s)
		return -1;
	*slab_off = mt_scan_slab_page(s);
	words = (const unsigned long *)s;
	for (i = 0; i < MT_KMEM_CACHE_SCAN / (int)sizeof(long); i++) {
		void *p = (void *)words[i];

		/* Our own string if it was kept, a copy in the linear map if not. */
		if (p != name && (!virt_addr_valid(p) ||
				  copy_from_kernel_nofault(buf, p, sizeof(buf)) ||
				  strncmp(buf, name, sizeof(buf))))
			continue;
		off = i * sizeof(long);
		break;
	}
	if (off >= 0)
		*size_off = mt_scan_object_size(s, off);
	kmem_cache_destroy(s);
	return off;
}

/* Two probes with different names must agree on the offsets to trust them. */
static void mt_find_kmem_cache_layout(void)
{
	int slab_a, slab_b, size_a, size_b;
	int a = mt_scan_for_name("memtrace_layout_probe_a", 20, &slab_a, &size_a);
	int b = mt_scan_for_name("memtrace_layout_probe_bb", 44, &slab_b, &size_b);

	if (a >= 0 && a == b)
		mt_kmem_cache_name_off = a;
	else
		pr_warn("slab cache name not found in struct kmem_cache (%d/%d): caches reported by size\n",
			a, b);
	if (slab_a >= 0 && slab_a == slab_b)
		mt_slab_cache_off = slab_a;
	else
		pr_warn("slab cache pointer not found in struct page (%d/%d): kmalloc caches named by size class\n",
			slab_a, slab_b);
	/* Without it, kmem_cache_size(): a call per allocation byte sampling sees. */
	if (size_a >= 0 && size_a == size_b)
		mt_kmem_cache_object_size_off = size_a;
}

/* ptrace_may_access(), looked up once; NULL if it cannot be called. */
static bool (*mt_ptrace_may_access)(struct task_struct *task, unsigned int mode);
static bool mt_ptrace_looked_up;

/*
 * A kprobe registered by name resolves the name to an address (the
 * "kprobe-address trick" of lttng-modules' wrapper/kallsyms.c): armed and
 * disarmed at once, it never fires.  On x86 with IBT the address is the
 * one past the function's ENDBR.  A call through a pointer is only safe
 * where the CPU does not enforce indirect branch targets: an IBT kernel
 * seals the ENDBR of functions it never calls indirectly, as this one.
 */
static void mt_find_ptrace_may_access(void)
{
#ifdef CONFIG_KPROBES
	struct kprobe kp = { .symbol_name = "ptrace_may_access" };
	int ret;

#ifdef CONFIG_X86_KERNEL_IBT
	if (cpu_feature_enabled(X86_FEATURE_IBT)) {
		pr_info("IBT enforced: tracing another user's process takes CAP_SYS_PTRACE\n");
		return;
	}
#endif
	ret = register_kprobe(&kp);
	if (ret) {
		pr_warn("ptrace_may_access not found (%d): tracing another user's process takes CAP_SYS_PTRACE\n",
			ret);
		return;
	}
	mt_ptrace_may_access = (void *)kp.addr;
	unregister_kprobe(&kp);
#endif
}

/* Looked up at the first use, not at load: only user mode needs it. */
bool mt_ptrace_may_attach(struct task_struct *task)
{
	static DEFINE_MUTEX(lookup_lock);

	mutex_lock(&lookup_lock);
	if (!mt_ptrace_looked_up) {
		mt_find_ptrace_may_access();
		mt_ptrace_looked_up = true;
	}
	mutex_unlock(&lookup_lock);
	if (mt_ptrace_may_access)
		return mt_ptrace_may_access(task, PTRACE_MODE_ATTACH_REALCREDS);
	return same_thread_group(task, current) || capable(CAP_SYS_PTRACE);
}

int mt_compat_init(void)
{
	mt_find_kmem_cache_layout();
	return 0;
}

const char *mt_kmem_cache_name(const struct kmem_cache *s)
{
	if (mt_kmem_cache_name_off < 0 || !s)
		return NULL;
	return *(const char * const *)((const char *)s + mt_kmem_cache_name_off);
}

struct kmem_cache *mt_slab_cache_of(const void *obj)
{
	if (!virt_addr_valid(obj))
		return NULL;
	return mt_slab_cache_of_object(obj);
}

unsigned long mt_function_size(unsigned long addr)
{
	char buf[KSYM_SYMBOL_LEN];
	const char *slash;
	unsigned long size;

	/* "name+0xoff/0xsize [module]": the kernel's own bound of the function. */
	sprint_symbol(buf, addr);
	slash = strchr(buf, '/');
	if (!slash || sscanf(slash + 1, "%lx", &size) != 1)
		return 0;
	return size;
}

/*
 * What this kernel has no hook for, with the options its modes need on
 * (probed: a tracepoint older kernels do not have).
 */
static u32 mt_nohook(void)
{
	u32 none = 0;

#ifndef MEMTRACE_HAVE_TP_MIGRATE_PAGES_START
	if (IS_ENABLED(CONFIG_MIGRATION))
		none |= MEMTRACE_NOHOOK_MIGRATE_START;
#endif
	return none;
}

u32 mt_kconfig_off(void)
{
	return (IS_ENABLED(CONFIG_MEMCG) ? 0 : MEMTRACE_KCONFIG_MEMCG) |
	       (IS_ENABLED(CONFIG_COMPACTION) ? 0 : MEMTRACE_KCONFIG_COMPACTION) |
	       (IS_ENABLED(CONFIG_MIGRATION) ? 0 : MEMTRACE_KCONFIG_MIGRATION) |
	       (IS_ENABLED(CONFIG_NUMA) ? 0 : MEMTRACE_KCONFIG_NUMA) |
	       (IS_ENABLED(CONFIG_KPROBES) ? 0 : MEMTRACE_KCONFIG_KPROBES) |
	       (IS_ENABLED(CONFIG_KRETPROBES) ? 0 : MEMTRACE_KCONFIG_KRETPROBES) |
	       (IS_ENABLED(CONFIG_UPROBES) ? 0 : MEMTRACE_KCONFIG_UPROBES) |
	       mt_nohook();
}

#ifdef MT_KRETPROBE_UNWIND_FIX
#include <linux/hash.h>
#include <asm/unwind.h>

/*
 * The return addresses memtrace's kretprobes replaced, by stack slot: a
 * fixed table (the handlers may not allocate, sleep or take a lock that
 * the unwinder, run from any hook, could wait on), open addressing over a
 * short window.  An entry is claimed with cmpxchg and read only by its own
 * task, whose stack the slot is on: no two live tasks share a key.  Far
 * more entries than kretprobe instances can be in flight on small
 * machines; an entry not kept is counted (mt_krp_lost()) and said in the
 * kernel log when the kprobes detach: not a dropped hit, a stack that stops
 * at the trampoline.
 */
#define MT_KRP_BITS	11
#define MT_KRP_WINDOW	16

struct mt_krp_entry {
	unsigned long slot;		/* 0: free */
	unsigned long ret;
	struct task_struct *task;
};

static struct mt_krp_entry mt_krp_tab[1 << MT_KRP_BITS];
static atomic_t mt_krp_used;
static atomic64_t mt_krp_nr_lost;
/* kretprobe_trampoline, not exported: learnt from the first return. */
static unsigned long mt_krp_trampoline;

/*
 * A return handler's frame, for a stack taken in it: the trampoline calls
 * the handlers on the pt_regs it pushed after the probed function
 * returned, so the slot is popped already.  Per CPU: the handler runs with
 * interrupts off (kprobe_hooks.c).
 */
struct mt_krp_ret_frame {
	const struct pt_regs *regs;	/* NULL: not in a return handler */
	unsigned long ret, slot;
};

static DEFINE_PER_CPU(struct mt_krp_ret_frame, mt_krp_ret_frame);

static struct mt_krp_entry *mt_krp_at(unsigned long slot, unsigned int i)
{
	return &mt_krp_tab[(hash_long(slot, MT_KRP_BITS) + i) & ((1 << MT_KRP_BITS) - 1)];
}

static struct mt_krp_entry *mt_krp_find(unsigned long slot)
{
	unsigned int i;

	for (i = 0; i < MT_KRP_WINDOW; i++) {
		struct mt_krp_entry *e = mt_krp_at(slot, i);

		if (READ_ONCE(e->slot) == slot && READ_ONCE(e->task) == current)
			return e;
	}
	return NULL;
}

void mt_krp_keep(struct pt_regs *regs)
{
	/* Where arch_prepare_kretprobe() will put the trampoline (ri->fp). */
	unsigned long slot = kernel_stack_pointer(regs);
	unsigned long ret = READ_ONCE_NOCHECK(*(unsigned long *)slot);
	struct mt_krp_entry *e = mt_krp_find(slot);
	unsigned int i;

	if (!e) {
		for (i = 0; i < MT_KRP_WINDOW; i++) {
			e = mt_krp_at(slot, i);
			if (!READ_ONCE(e->slot) && !cmpxchg(&e->slot, 0, slot))
				break;
		}
		if (i == MT_KRP_WINDOW) {
			atomic64_inc(&mt_krp_nr_lost);
			return;
		}
		atomic_inc(&mt_krp_used);
	}
	WRITE_ONCE(e->ret, ret);
	WRITE_ONCE(e->task, current);
}

void mt_krp_ret_begin(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct mt_krp_ret_frame *f = this_cpu_ptr(&mt_krp_ret_frame);

	/* trampoline_handler() points regs->ip at the trampoline. */
	if (!READ_ONCE(mt_krp_trampoline))
		WRITE_ONCE(mt_krp_trampoline, instruction_pointer(regs));
	f->ret = mt_kretprobe_retaddr(ri);
	f->slot = (unsigned long)ri->fp;
	f->regs = regs;
}

void mt_krp_ret_end(struct kretprobe_instance *ri)
{
	struct mt_krp_entry *e = mt_krp_find((unsigned long)ri->fp);

	this_cpu_write(mt_krp_ret_frame.regs, NULL);
	if (!e)
		return;
	WRITE_ONCE(e->task, NULL);
	/* Free only once no longer this task's: a claimer writes its own after. */
	smp_store_release(&e->slot, 0);
	atomic_dec(&mt_krp_used);
}

/*
 * Entries whose function returned after its kretprobe was unregistered
 * (no return handler ran) are left: with every kretprobe gone, none is
 * needed any more.
 */
void mt_krp_forget_all(void)
{
	memset(mt_krp_tab, 0, sizeof(mt_krp_tab));
	atomic_set(&mt_krp_used, 0);
}

u64 mt_krp_lost(void)
{
	return atomic64_read(&mt_krp_nr_lost);
}

void mt_krp_lost_reset(void)
{
	atomic64_set(&mt_krp_nr_lost, 0);
}

unsigned long mt_krp_unwind_fix(struct unwind_state *st, unsigned long ip)
{
	const struct mt_krp_ret_frame *f;
	unsigned long trampoline;
	struct mt_krp_entry *e;
	unsigned long ret;

	if (st->regs)
		return ip;
	/*
	 * In a return handler, the frame above the handler's is the
	 * trampoline's, whose stack is the pt_regs: go on from the caller the
	 * probed function returned to, at the stack it returned with (known
	 * from the handler itself, whether or not its entry was kept).
	 */
	f = this_cpu_ptr(&mt_krp_ret_frame);
	if (f->regs && st->sp == (unsigned long)f->regs) {
		st->ip = f->ret;
		st->sp = f->slot + sizeof(long);
		st->bp = f->regs->bp;
		return f->ret;
	}
	if (!atomic_read(&mt_krp_used))
		return ip;
	/* A replaced return address is the trampoline's entry, once known. */
	trampoline = READ_ONCE(mt_krp_trampoline);
	if (trampoline && ip != trampoline)
		return ip;
	e = mt_krp_find(st->sp - sizeof(long));
	if (!e)
		return ip;
	ret = READ_ONCE(e->ret);
	if (!ret || ret == ip)
		return ip;
	/* ORC finds the next frame from the ip alone: the caller's, now. */
	st->ip = ret;
	return ret;
}
#endif /* MT_KRETPROBE_UNWIND_FIX */
