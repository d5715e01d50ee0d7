// SPDX-License-Identifier: GPL-2.0
/*
 * User mode: a process's allocations, from uprobes on its allocator
 * functions (malloc and family, mmap, munmap, mremap).
 *
 * The reader names the process (MEMTRACE_IOC_TARGET) and hands over each
 * function as an open file and the file offset of its entry
 * (MEMTRACE_IOC_UPROBE); it finds them with libelf, so the module parses
 * no ELF.  Starting registers a uprobe per function, and a return probe
 * where the result matters.  The filter arms them in the target's address
 * space only: no other process takes a trap, and a child it forks has the
 * breakpoints removed at its first hit.
 *
 * Handlers run in the calling thread, in process context, on its way back
 * to user mode.  They still use the hooks' entry guard (the per-CPU state
 * they share with the kernel hooks is touched with interrupts off) and
 * read user memory with copy_from_user_nofault(), so a stack walk is
 * bounded and never sleeps.  The entry half of a call waits in the call
 * table (calltab.h) for its return.
 *
 * Every address space traced has a slot: the target's, each child followed
 * and each new image of a traced process that exec'd (the exec tracepoint
 * takes it in before the loader maps a library, so the libraries' probes
 * are armed in it as they are mapped).  The slot goes with each allocation
 * (its live-index key and its counters), so an image's leftovers are
 * reported as that image's.
 */
#define pr_fmt(fmt) "memtrace: " fmt

#include <linux/file.h>
#include <linux/fs.h>
#include <linux/moduleparam.h>
#include <linux/overflow.h>
#include <linux/pid.h>
#include <linux/cred.h>
#include <linux/pid_namespace.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/sched/coredump.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>

#include <trace/events/sched.h>

#include "compat/compat.h"
#include "session/recorder.h"
#include "sources/tp.h"
#include "sources/uprobes.h"
#include "tables/calltab.h"
#include "unwind/unwind.h"

static uint user_call_slots = 4096;
module_param(user_call_slots, uint, 0444);
MODULE_PARM_DESC(user_call_slots,
		 "User mode: threads with an allocator call in flight at once (default 4096)");

struct mt_uprobe {
	struct uprobe_consumer uc;
	struct mt_uprobe_handle handle;
	struct file *file;	/* keeps the inode (and its mount) while probed */
	loff_t offset;
	u8 func;		/* MEMTRACE_UFN_* */
	u8 kind;		/* MEMTRACE_UPROBE_* */
	bool registered;
};

/* Address spaces traced at once: the target, the children followed, the images exec'd. */
#define MT_USER_MAX_MMS		MEMTRACE_MAX_PROCS

/* What a slot is, besides its mm (which handlers compare, and so is kept apart). */
struct mt_user_proc {
	struct pid *tgid;	/* its thread group, referenced: kept across an exec */
	u64 start_ns;
	u8 how;			/* MEMTRACE_PROC_* */
	u8 from;
	bool replaced;		/* it exec'd: a later slot holds its new image */
	bool exec_refused;	/* or one it may not be traced in: none does */
};

static struct {
	const void *owner;	/* file that set the target */
	pid_t pid;		/* as the owner named it */
	struct pid_namespace *pid_ns;	/* the owner's: the pids it is told of */
	bool follow_forks;
	/* Who set the target, for ptrace's rule at each exec: see mt_user_may_follow(). */
	kuid_t tracer_uid;
	kgid_t tracer_gid;
	bool tracer_any;	/* CAP_SYS_PTRACE */
	/*
	 * The address spaces traced, referenced (mmgrab) so that none can be
	 * reused while compared: [0] the target's, then the children
	 * followed and the images exec'd, with what each is in procs[].
	 * Appended under mms_lock and published by nr_mms with release
	 * semantics; read locklessly; dropped only by release.
	 */
	struct mm_struct *mms[MT_USER_MAX_MMS];
	struct mt_user_proc procs[MT_USER_MAX_MMS];
	u32 nr_mms;
	raw_spinlock_t mms_lock;
	atomic64_t forks_full;
	struct mt_uprobe probes[MEMTRACE_MAX_UPROBES];
	u32 nr_probes;
	bool armed;
	struct mt_calltab calls;
	u64 exec_ns;		/* written by the exec probe */
} mt_user;

/* ---- what a call means --------------------------------------------- */

/* Functions that end allocations: free, and the resizers that move them. */
static bool mt_ufn_frees(u8 func)
{
	return func == MEMTRACE_UFN_FREE || func == MEMTRACE_UFN_MUNMAP ||
	       func == MEMTRACE_UFN_DELETE || func == MEMTRACE_UFN_REALLOC ||
	       func == MEMTRACE_UFN_REALLOCARRAY || func == MEMTRACE_UFN_MREMAP;
}

static bool mt_ufn_has_return(u8 func)
{
	return func != MEMTRACE_UFN_FREE && func != MEMTRACE_UFN_MUNMAP;
}

static u8 mt_ufn_kind(u8 func)
{
	return func == MEMTRACE_UFN_MMAP || func == MEMTRACE_UFN_MREMAP ||
	       func == MEMTRACE_UFN_MUNMAP ? MEMTRACE_KIND_USER_MMAP : MEMTRACE_KIND_USER;
}

/* What the live index and the counters know an allocation of this slot by. */
static u16 mt_user_cache_kind(u8 func, u32 slot)
{
	return MT_CACHE_KIND(slot - 1, mt_ufn_kind(func));
}

/* The bytes asked for, and the block a resizing call is given. */
static void mt_ufn_args(u8 func, struct pt_regs *regs, u64 *size,
			unsigned long *ptr)
{
	unsigned long a0 = regs_get_kernel_argument(regs, 0);
	unsigned long a1 = regs_get_kernel_argument(regs, 1);
	unsigned long a2 = regs_get_kernel_argument(regs, 2);

	*ptr = 0;
	switch (func) {
	case MEMTRACE_UFN_CALLOC:
		/* An overflowing calloc() fails; size 0 records nothing odd. */
		if (check_mul_overflow((u64)a0, (u64)a1, size))
			*size = 0;
		break;
	case MEMTRACE_UFN_REALLOC:
		*ptr = a0;
		*size = a1;
		break;
	case MEMTRACE_UFN_REALLOCARRAY:
		*ptr = a0;
		if (check_mul_overflow((u64)a1, (u64)a2, size))
			*size = 0;
		break;
	case MEMTRACE_UFN_POSIX_MEMALIGN:
		*ptr = a0;	/* where the result goes */
		*size = a2;
		break;
	case MEMTRACE_UFN_ALIGNED_ALLOC:
	case MEMTRACE_UFN_MEMALIGN:
	case MEMTRACE_UFN_MMAP:
		*size = a1;
		break;
	case MEMTRACE_UFN_MREMAP:
		*ptr = a0;
		*size = a2;
		break;
	case MEMTRACE_UFN_DELETE:
		*ptr = a0;
		*size = 0;
		break;
	default:	/* malloc (and operator new), valloc, pvalloc */
		*size = a0;
		break;
	}
}

/* ---- user stacks ------------------------------------------------------ */

/*
 * The return addresses of the call, innermost first (see mt_unwind_user()).
 * Called at a function's first instruction, inside the hook guard: by the
 * unwind tables when the handler holds the mm read-locked for them
 * (mt_pcpu.unwind_mm), else by frame pointers alone.  At a function's
 * first instruction its return address is at [sp] and the frame pointer
 * is still the caller's, so [sp] comes first or the caller would be lost.
 */
static unsigned int mt_user_stack(struct pt_regs *regs, unsigned long *ip,
				  unsigned int max, bool *faulted)
{
	struct mt_pcpu *c = this_cpu_ptr(mt.pcpu);

	*faulted = false;
	if (!max)
		return 0;
	return mt_unwind_user(c->unwind_mm, regs, MT_UNWIND_FROM_ENTRY, ip, max, &c->unwind,
			      faulted);
}

/* ---- the handlers ------------------------------------------------------ */

/* 1 + the slot of a traced address space, or 0. */
static u32 mt_user_slot(const struct mm_struct *mm)
{
	/* Pairs with mt_probe_fork()'s release: slots below n are written. */
	u32 n = smp_load_acquire(&mt_user.nr_mms), i;

	for (i = 0; i < n; i++)
		if (READ_ONCE(mt_user.mms[i]) == mm)
			return i + 1;
	return 0;
}

/*
 * The live index's key of a user address: addresses repeat in a forked
 * child, so a followed process's carry its slot above the 48 bits of a
 * user address (never a kernel address: those have the top bits set).
 */
static unsigned long mt_user_key(unsigned long addr, u32 slot)
{
	return slot > 1 ? addr | (unsigned long)(slot - 1) << 48 : addr;
}

/* Inside a hook: a block let go by a free, a delete or a munmap. */
static void mt_user_account_free(struct mt_pcpu *c, unsigned long addr, u8 func,
				 u32 slot)
{
	if (addr && !mt_account_free(c, mt_user_key(addr, slot), mt_ufn_kind(func)))
		c->loss.free_untracked++;
}

/*
 * free(), munmap(): the block is gone at entry already, for our purpose.
 * One called by another allocator function still in flight (the free()
 * inside a C++ operator delete) is that function's own work.
 */
static void mt_user_free(u8 func, struct pt_regs *regs, u32 slot)
{
	unsigned long addr = regs_get_kernel_argument(regs, 0);
	struct mt_thread_calls *tc;
	struct mt_pcpu *c;
	unsigned long flags;

	if (!addr)
		return;
	c = mt_hook_enter(&flags);
	if (!c)
		return;
	tc = mt_calltab_find(&mt_user.calls, current->pid);
	if (tc && mt_calltab_inside(tc, user_stack_pointer(regs)))
		c->user_nested++;
	else
		mt_user_account_free(c, addr, func, slot);
	mt_hook_exit(c, flags);
}

/*
 * An allocator's entry: the call kept for its return, and whether it is
 * to be recorded decided.  Returns the call if it is, for its stack
 * (mt_user_call_stack()): the mm lock the stack may need is taken only
 * then, so that a call sampled out costs no lock.
 */
static struct mt_call *mt_user_call(u8 func, struct pt_regs *regs, u32 slot)
{
	const struct mt_filter *f = &mt.filter;
	struct mt_call *call, *record = NULL;
	struct mt_thread_calls *tc;
	struct mt_pcpu *c;
	unsigned long flags, ptr;
	u64 size;

	mt_ufn_args(func, regs, &size, &ptr);
	c = mt_hook_enter(&flags);
	if (!c)
		return NULL;
	tc = mt_calltab_get(&mt_user.calls, current->pid);
	if (unlikely(!tc)) {
		c->loss.calls_full++;
		goto out;
	}
	call = mt_calltab_push(tc, user_stack_pointer(regs));
	if (!call || call != &tc->call[0]) {
		/* realloc() -> malloc(), malloc() -> mmap(): the outer call counts. */
		c->user_nested++;
		goto out;
	}
	call->func = func;
	call->size = size;
	call->ptr = ptr;
	call->flags = MT_CALL_OUTER;
	call->slot = slot;

	if (func == MEMTRACE_UFN_DELETE) {
		/* Kept in flight only to tell its free() from the program's. */
		mt_user_account_free(c, ptr, func, slot);
		goto out;
	}
	c->allocs_seen++;
	if (size < f->min_size || (f->max_size && size > f->max_size)) {
		c->filtered++;
		goto out;
	}
	if (!mt_sample(c, f, size)) {
		c->sampled_out++;
		goto out;
	}
	call->flags |= MT_CALL_RECORD;
	call->stack_id = MEMTRACE_STACK_NONE;
	record = call;
out:
	mt_hook_exit(c, flags);
	return record;
}

/*
 * The stack of a call to record.  mm: current's, read-locked for the
 * unwind tables, or NULL (none loaded, or mm_busy: the lock could not be
 * had).  The call is this thread's own: nothing else touches it between
 * mt_user_call() and here.
 */
static void mt_user_call_stack(struct mt_call *call, struct pt_regs *regs,
			       struct mm_struct *mm, bool mm_busy)
{
	struct mt_pcpu *c;
	unsigned long flags;
	unsigned int nr;
	bool faulted;

	c = mt_hook_enter(&flags);
	if (!c)
		return;	/* counted: recorded without a stack */
	if (mm_busy)
		c->unwind.mm_busy++;
	c->unwind_mm = mm;
	nr = mt_user_stack(regs, c->frames, mt.filter.depth, &faulted);
	c->unwind_mm = NULL;
	if (faulted)
		c->user_stack_faults++;
	call->stack_id = mt_stacktab_intern(&mt.stacks, c->frames, nr);
	if (unlikely(call->stack_id == MEMTRACE_STACK_NONE))
		c->loss.stack_full++;
	mt_hook_exit(c, flags);
}

/* The address a successful call returned; false if it failed. */
static bool mt_ufn_result(const struct mt_call *call, unsigned long ret,
			  unsigned long *addr)
{
	switch (call->func) {
	case MEMTRACE_UFN_POSIX_MEMALIGN:
		/* Returns an error number; the block is stored through ptr. */
		if (ret)
			return false;
		return !copy_from_user_nofault(addr, (const void __user *)call->ptr,
					       sizeof(*addr)) && *addr;
	case MEMTRACE_UFN_MMAP:
	case MEMTRACE_UFN_MREMAP:
		*addr = ret;
		return !IS_ERR_VALUE(ret);	/* MAP_FAILED is (void *)-1 */
	default:
		*addr = ret;
		return ret != 0;
	}
}

static void mt_user_return(const struct mt_call *call, unsigned long ret)
{
	bool ok, resized;
	struct mt_pcpu *c;
	unsigned long flags, addr = 0;
	struct mt_live e;

	if (call->func == MEMTRACE_UFN_DELETE)
		return;
	ok = mt_ufn_result(call, ret, &addr);
	c = mt_hook_enter(&flags);
	if (!c)
		return;
	/*
	 * realloc() frees the old block when it succeeds, and when asked
	 * for 0 bytes (glibc then returns NULL); mremap() unmaps the old
	 * mapping when it succeeds.
	 */
	resized = (call->func == MEMTRACE_UFN_REALLOC ||
		   call->func == MEMTRACE_UFN_REALLOCARRAY) &&
		  (ok || !call->size);
	if (call->func == MEMTRACE_UFN_MREMAP)
		resized = ok;
	if (resized)
		mt_user_account_free(c, call->ptr, call->func, call->slot);

	if (ok && (call->flags & MT_CALL_RECORD)) {
		e.addr = mt_user_key(addr, call->slot);
		e.ts_ns = ktime_get_mono_fast_ns();
		e.stack_id = call->stack_id;
		e.bytes_req = min_t(u64, call->size, U32_MAX);
		e.bytes_alloc = e.bytes_req;
		if (call->func == MEMTRACE_UFN_PVALLOC)
			e.bytes_alloc = min_t(u64, PAGE_ALIGN(call->size), U32_MAX);
		e.pid = current->pid;
		e.cache_kind = mt_user_cache_kind(call->func, call->slot);
		mt_account_alloc(c, &e);
	}
	mt_hook_exit(c, flags);
}

/*
 * An allocator's entry; for a call to record, its stack, with the mm
 * read-locked while unwind tables are loaded: the walk maps each PC to its
 * file through the mm's mappings.
 * Uprobe handlers run in task context, where they may sleep (the kernel's
 * own uprobe code takes this lock on the way to them); the lock is taken
 * here, before the hook guard turns interrupts off, and nests inside
 * uprobes' register_rwsem as uprobe_register() nests it.
 */
static void mt_user_call_locked(u8 func, struct pt_regs *regs, u32 slot)
{
	struct mm_struct *mm = current->mm;
	struct mt_call *call;
	bool busy = false;

	call = mt_user_call(func, regs, slot);
	if (!call)
		return;
	if (!mt_unwind_active()) {
		mt_user_call_stack(call, regs, NULL, false);
		return;
	}
	if (mmap_read_lock_killable(mm)) {
		/* Dying: its stack by frame pointers, counted. */
		mm = NULL;
		busy = true;
	}
	mt_user_call_stack(call, regs, mm, busy);
	if (mm)
		mmap_read_unlock(mm);
}

static int mt_uprobe_entry(MT_UPROBE_HANDLER_ARGS)
{
	struct mt_uprobe *up = container_of(self, struct mt_uprobe, uc);
	u32 slot = mt_user_slot(current->mm);

	/* A child forked from the target, not followed: take the breakpoint out of it. */
	if (!slot)
		return UPROBE_HANDLER_REMOVE;
	/* The arguments are read by the x86-64 calling convention. */
	if (!user_64bit_mode(regs))
		return 0;
	switch (up->func) {
	case MEMTRACE_UFN_FREE:
	case MEMTRACE_UFN_MUNMAP:
		mt_user_free(up->func, regs, slot);
		break;
	default:
		mt_user_call_locked(up->func, regs, slot);
		break;
	}
	return 0;
}

static int mt_uprobe_return(MT_URETPROBE_HANDLER_ARGS)
{
	struct mt_thread_calls *tc;
	struct mt_call call;

	if (!mt_user_slot(current->mm) || !user_64bit_mode(regs))
		return 0;
	tc = mt_calltab_find(&mt_user.calls, current->pid);
	/* No call kept: the table was full at its entry (counted there). */
	if (!tc || !mt_calltab_pop(tc, user_stack_pointer(regs), &call))
		return 0;
	if (call.flags & MT_CALL_OUTER)
		mt_user_return(&call, regs_return_value(regs));
	return 0;
}

/*
 * Performs the ret a return site's probe sits on, as the CPU would: the
 * return address popped into ip.  uprobes then skips stepping the copied
 * instruction (the handler took execution elsewhere), which saves the
 * second trap a stepped instruction costs.  With a shadow stack the ret
 * must pop that too: left to uprobes' single step.  A return address
 * that cannot be read is left to the step as well, which faults as the
 * program's own ret would.
 */
static void mt_user_do_ret(struct pt_regs *regs)
{
	unsigned long sp = user_stack_pointer(regs), ra;

	if (mt_shadow_stack_enabled())
		return;
	/* A debugger stepping through: its trap after the ret is the step's. */
	if (regs->flags & X86_EFLAGS_TF)
		return;
	if (get_user(ra, (const unsigned long __user *)sp))
		return;
	instruction_pointer_set(regs, ra);
	user_stack_pointer_set(regs, sp + sizeof(ra));
}

/*
 * A ret instruction of a function probed at its entry only
 * (MEMTRACE_UPROBE_ENTRY): the return value is in rax and sp is the
 * entry's, as a return probe would see them one instruction later.
 */
static int mt_uprobe_site(MT_UPROBE_HANDLER_ARGS)
{
	struct mt_thread_calls *tc;
	struct mt_call call;

	if (!mt_user_slot(current->mm))
		return UPROBE_HANDLER_REMOVE;
	if (!user_64bit_mode(regs))
		return 0;
	tc = mt_calltab_find(&mt_user.calls, current->pid);
	/* The return probe's test: sp after the ret is one word above. */
	if (tc && mt_calltab_pop(tc, user_stack_pointer(regs) + sizeof(long), &call) &&
	    (call.flags & MT_CALL_OUTER))
		mt_user_return(&call, regs_return_value(regs));
	mt_user_do_ret(regs);
	return 0;
}

static bool mt_uprobe_filter(MT_UPROBE_FILTER_ARGS)
{
	return mt_user_slot(mm) != 0;
}

/* ---- new address spaces: exec and fork -------------------------------- */

/*
 * Slot n (under mms_lock, n = nr_mms < MT_USER_MAX_MMS): mm, the address
 * space of tgid taken in as how, from slot from.  The slot is written
 * before nr_mms counts it: handlers and the filter read the slots without
 * the lock.  mm is NULL for a process that is named but not traced (an
 * exec it may not be followed into): no handler's mm is NULL.
 */
static void mt_user_add_mm(u32 n, struct mm_struct *mm, struct pid *tgid, u8 how,
			   u8 from)
{
	if (mm)
		mmgrab(mm);
	mt_user.procs[n] = (struct mt_user_proc) {
		.tgid = get_pid(tgid),
		.start_ns = ktime_get_mono_fast_ns(),
		.how = how,
		.from = from,
		/* as a refused image's own slot: not followed from there on */
		.replaced = !mm,
		.exec_refused = !mm,
	};
	WRITE_ONCE(mt_user.mms[n], mm);
	/* Pairs with mt_user_slot()'s and mt_user_snapshot()'s acquire. */
	smp_store_release(&mt_user.nr_mms, n + 1);
}

/* The slot of tgid's current image, or -1; under mms_lock. */
static int mt_user_find_tgid(const struct pid *tgid)
{
	u32 i;

	for (i = 0; i < mt_user.nr_mms; i++)
		if (mt_user.procs[i].tgid == tgid && !mt_user.procs[i].replaced)
			return i;
	return -1;
}

/*
 * A process execs: if it is traced, its new image is too, in a slot of its
 * own (the old one keeps what the old image left).  The new mm maps only
 * the executable and its loader yet: the libraries the loader maps from
 * now on get the breakpoints of their probes as they are mapped (the
 * filter consents from here), and the reader hands over any new object.
 * With --follow-forks, a child that shared its parent's mm (vfork,
 * posix_spawn) and was not taken in at its fork is taken in here.
 */
/*
 * ptrace's rule (PTRACE_MODE_ATTACH_REALCREDS), as the reader that set the
 * target would meet it now: a setuid or unreadable program (not dumpable),
 * or one running with other ids, is not taken in, nor what its process
 * execs later (its slot is replaced by none): its allocations and stacks
 * are not the reader's.  Under -c the reader's ptrace keeps an exec from
 * gaining privileges, so there it is followed.
 */
static bool mt_user_may_follow(struct task_struct *p, const struct linux_binprm *bprm)
{
	const struct cred *c;
	bool same;

	if (bprm->secureexec || !p->mm || !mt_task_dumpable_by_owner(p))
		return false;
	if (mt_user.tracer_any)
		return true;
	rcu_read_lock();
	c = __task_cred(p);
	same = uid_eq(c->uid, mt_user.tracer_uid) && uid_eq(c->euid, mt_user.tracer_uid) &&
	       uid_eq(c->suid, mt_user.tracer_uid) && gid_eq(c->gid, mt_user.tracer_gid) &&
	       gid_eq(c->egid, mt_user.tracer_gid) && gid_eq(c->sgid, mt_user.tracer_gid);
	rcu_read_unlock();
	return same;
}

static void mt_probe_exec(void *data, struct task_struct *p, pid_t old_pid,
			  struct linux_binprm *bprm)
{
	struct pid *tgid = task_tgid(p);
	unsigned long flags;
	int from;
	u32 n;

	raw_spin_lock_irqsave(&mt_user.mms_lock, flags);
	from = mt_user_find_tgid(tgid);
	if (from < 0 && mt_user.follow_forks) {
		rcu_read_lock();
		from = mt_user_find_tgid(task_tgid(rcu_dereference(p->real_parent)));
		rcu_read_unlock();
	}
	if (from >= 0) {
		bool refused = !mt_user_may_follow(p, bprm);
		bool own = mt_user.procs[from].tgid == tgid;

		/*
		 * A refused image gets no slot, but a --follow-forks child
		 * that shared its parent's mm (vfork, posix_spawn) has no
		 * slot of its own to carry the refusal: it gets one without
		 * an address space, so the reader can say why it saw nothing.
		 */
		n = mt_user.nr_mms;
		if (refused && own)
			;
		else if (n < MT_USER_MAX_MMS)
			mt_user_add_mm(n, refused ? NULL : p->mm, tgid, MEMTRACE_PROC_EXEC, from);
		else
			atomic64_inc(&mt_user.forks_full);
		if (own) {
			mt_user.procs[from].replaced = true;
			mt_user.procs[from].exec_refused = refused;
		}
		WRITE_ONCE(mt_user.exec_ns, ktime_get_mono_fast_ns());
	}
	raw_spin_unlock_irqrestore(&mt_user.mms_lock, flags);
}
MT_CHECK_PROBE(sched_process_exec, mt_probe_exec)

/*
 * --follow-forks: a traced process forks (not a thread: a new mm).  The
 * child has not run yet, and its copies of the text pages carry the
 * breakpoints already; taking its mm in makes them fire for it.
 */
static void mt_probe_fork(void *data, struct task_struct *parent,
			  struct task_struct *child)
{
	struct mm_struct *mm = child->mm;
	unsigned long flags;
	u32 from;
	u32 n;

	/* A kernel thread's child (a usermode helper) has no traced parent. */
	if (!mm || !parent->mm || mm == parent->mm)
		return;
	from = mt_user_slot(parent->mm);
	if (!from)
		return;
	raw_spin_lock_irqsave(&mt_user.mms_lock, flags);
	n = mt_user.nr_mms;
	if (n < MT_USER_MAX_MMS)
		mt_user_add_mm(n, mm, task_tgid(child), MEMTRACE_PROC_FORK, from - 1);
	else
		atomic64_inc(&mt_user.forks_full);
	raw_spin_unlock_irqrestore(&mt_user.mms_lock, flags);
}
MT_CHECK_PROBE(sched_process_fork, mt_probe_fork)

static struct mt_tp mt_user_tps[] = {
	{ "sched_process_exec", mt_probe_exec, MEMTRACE_EV_USER },
};

static struct mt_tp mt_fork_tps[] = {
	{ "sched_process_fork", mt_probe_fork, MEMTRACE_EV_USER },
};

/* ---- control (under mt.lock) ------------------------------------------- */

static bool mt_user_exec_tp, mt_user_fork_tp;

int mt_user_init(void)
{
	raw_spin_lock_init(&mt_user.mms_lock);
	mt_user_exec_tp = mt_tp_lookup(mt_user_tps, ARRAY_SIZE(mt_user_tps)) != 0;
	mt_user_fork_tp = mt_tp_lookup(mt_fork_tps, ARRAY_SIZE(mt_fork_tps)) != 0;
	return 0;
}

u32 mt_user_available(void)
{
	return MEMTRACE_EV_USER;
}

static void mt_user_put_probes(void)
{
	u32 i;

	for (i = 0; i < mt_user.nr_probes; i++) {
		WARN_ON_ONCE(mt_user.probes[i].registered);
		fput(mt_user.probes[i].file);
	}
	memset(mt_user.probes, 0, sizeof(mt_user.probes));
	mt_user.nr_probes = 0;
}

/* Forget the target and its probes; not while armed. */
void mt_user_release(void)
{
	if (WARN_ON_ONCE(mt_user.armed))
		return;
	mt_user_put_probes();
	mt_unwind_release();
	while (mt_user.nr_mms) {
		mt_user.nr_mms--;
		if (mt_user.mms[mt_user.nr_mms])
			mmdrop(mt_user.mms[mt_user.nr_mms]);
		put_pid(mt_user.procs[mt_user.nr_mms].tgid);
		mt_user.mms[mt_user.nr_mms] = NULL;
		mt_user.procs[mt_user.nr_mms].tgid = NULL;
	}
	if (mt_user.pid_ns) {
		put_pid_ns(mt_user.pid_ns);
		mt_user.pid_ns = NULL;
	}
	atomic64_set(&mt_user.forks_full, 0);
	mt_user.follow_forks = false;
	mt_user.pid = 0;
	mt_user.owner = NULL;
	mt_user.exec_ns = 0;
	mt_calltab_destroy(&mt_user.calls);
}

void mt_user_release_owner(const void *owner)
{
	if (mt_user.owner == owner && !mt_user.armed)
		mt_user_release();
}

int mt_user_set_target(const void *owner, pid_t pid, bool follow_forks)
{
	struct task_struct *task;
	struct mm_struct *mm;
	int ret = -ESRCH;
	struct pid *p;

	if (mt_user.armed)
		return -EBUSY;
	mt_user_release();
	if (!pid)
		return 0;
	if (pid < 0)
		return -EINVAL;
	/* The pid as the caller's pid namespace numbers it. */
	p = find_get_pid(pid);
	task = p ? get_pid_task(p, PIDTYPE_PID) : NULL;
	put_pid(p);
	if (!task)
		return -ESRCH;
	if (task->flags & PF_KTHREAD) {
		put_task_struct(task);
		return -EINVAL;
	}
	/* Reading its allocations and stacks is as much as ptrace would give. */
	if (!mt_ptrace_may_attach(task)) {
		put_task_struct(task);
		return -EPERM;
	}
	/*
	 * NULL once the task is exiting; a leader that left by pthread_exit()
	 * has none either while its other threads run: take theirs.
	 */
	mm = get_task_mm(task);
	if (!mm) {
		struct task_struct *t, *holder = NULL;

		rcu_read_lock();
		for_each_thread(task, t) {
			mm = get_task_mm(t);
			if (mm) {
				holder = get_task_struct(t);
				break;
			}
		}
		rcu_read_unlock();
		/*
		 * The leader's check saw no mm, hence no dumpable state: ask
		 * again of the thread whose mm it is.
		 */
		if (holder && !mt_ptrace_may_attach(holder)) {
			mmput(mm);
			mm = NULL;
			ret = -EPERM;
		}
		if (holder)
			put_task_struct(holder);
	}
	if (!mm) {
		put_task_struct(task);
		return ret;
	}
	mt_user.owner = owner;
	mt_user.pid = pid;
	mt_user.pid_ns = get_pid_ns(task_active_pid_ns(current));
	mt_user.follow_forks = follow_forks;
	mt_user.tracer_uid = current_uid();
	mt_user.tracer_gid = current_gid();
	mt_user.tracer_any = capable(CAP_SYS_PTRACE);
	mt_user_add_mm(0, mm, task_tgid(task), MEMTRACE_PROC_TARGET, 0);
	mmput(mm);
	put_task_struct(task);
	return 0;
}

/* Arms a probe (under mt.lock, while armed). */
static int mt_uprobe_arm(struct mt_uprobe *up)
{
	bool site = up->kind == MEMTRACE_UPROBE_RETURN_SITE;
	int ret;

	up->uc = (struct uprobe_consumer) {
		.handler = site ? mt_uprobe_site : mt_uprobe_entry,
		.ret_handler = up->kind == MEMTRACE_UPROBE_CALL &&
			       mt_ufn_has_return(up->func) ? mt_uprobe_return : NULL,
		.filter = mt_uprobe_filter,
	};
	ret = mt_uprobe_register(file_inode(up->file), up->offset, &up->uc, &up->handle);
	if (!ret) {
		up->registered = true;
		return 0;
	}
	pr_warn_ratelimited("cannot register uprobe at %pD+0x%llx: %d\n",
			    up->file, (unsigned long long)up->offset, ret);
	/*
	 * No instruction uprobes can take at that offset: said with
	 * ENOTSUPP, which is not for user space, or ENOEXEC.
	 */
	if (ret == -ENOTSUPP || ret == -ENOEXEC)
		ret = -EINVAL;
	return ret;
}

static int mt_uprobe_nop(MT_UPROBE_HANDLER_ARGS)
{
	return 0;
}

/*
 * A probe armed already, handed over again while armed: an address space
 * taken in since (an exec'd image) may have mapped its file before it was
 * traced (its executable), and so lacks the breakpoint, which uprobes
 * writes only when a consumer registers or the file is mapped.  A second
 * consumer that does nothing, registered and unregistered, writes it
 * wherever the filter now consents (uprobe_apply() is not exported); the
 * breakpoints stay, as our consumer still wants them.
 */
static int mt_uprobe_rearm(struct mt_uprobe *up)
{
	struct uprobe_consumer uc = {
		.handler = mt_uprobe_nop,
		.filter = mt_uprobe_filter,
	};
	struct mt_uprobe_handle h;
	int ret;

	if (!up->registered)
		return -EINVAL;
	ret = mt_uprobe_register(file_inode(up->file), up->offset, &uc, &h);
	if (ret)
		return ret;
	mt_uprobe_unregister_nosync(&h, &uc);
	mt_uprobe_unregister_sync();
	return 0;
}

/*
 * A return site must be a ret (c3, maybe after a rep or bnd prefix): its
 * handler performs one.  Read from the file, as uprobes itself reads the
 * instruction it replaces.
 */
static bool mt_uprobe_is_ret(struct file *file, u64 offset)
{
	u8 insn[2] = { };
	loff_t pos = offset;
	ssize_t n;

	n = kernel_read(file, insn, sizeof(insn), &pos);
	if (n < 1)
		return false;
	if (insn[0] == 0xc3)
		return true;
	return n == 2 && (insn[0] == 0xf3 || insn[0] == 0xf2) && insn[1] == 0xc3;
}

int mt_user_add_uprobe(const void *owner, int fd, u64 offset, u32 func, u32 kind)
{
	struct mt_uprobe *up;
	struct inode *inode;
	struct file *file;
	int ret;
	u32 i;

	if (!mt_user.nr_mms || mt_user.owner != owner)
		return -ESRCH;	/* MEMTRACE_IOC_TARGET first */
	if (!func || func > MEMTRACE_UFN_MAX || kind > MEMTRACE_UPROBE_RETURN_SITE)
		return -EINVAL;
	/* Frees have no return to see. */
	if (kind == MEMTRACE_UPROBE_RETURN_SITE && !mt_ufn_has_return(func))
		return -EINVAL;
	file = fget(fd);
	if (!file)
		return -EBADF;
	inode = file_inode(file);
	if (!S_ISREG(inode->i_mode) || !(file->f_mode & FMODE_READ) ||
	    offset >= i_size_read(inode) ||
	    (kind == MEMTRACE_UPROBE_RETURN_SITE && !mt_uprobe_is_ret(file, offset))) {
		fput(file);
		return -EINVAL;
	}
	/* Not offered where uprobes would step the ret it performs (compat.h). */
	if (kind == MEMTRACE_UPROBE_RETURN_SITE && !MT_UPROBE_HANDLER_MAY_JUMP) {
		fput(file);
		return -EOPNOTSUPP;
	}
	for (i = 0; i < mt_user.nr_probes; i++) {
		up = &mt_user.probes[i];
		if (file_inode(up->file) == inode && up->offset == offset) {
			fput(file);
			if (!mt_user.armed)
				return -EEXIST;
			return up->func == func && up->kind == kind ? mt_uprobe_rearm(up) : -EEXIST;
		}
	}
	if (mt_user.nr_probes == MEMTRACE_MAX_UPROBES) {
		fput(file);
		return -ENOSPC;
	}
	up = &mt_user.probes[mt_user.nr_probes++];
	up->file = file;
	up->offset = offset;
	up->func = func;
	up->kind = kind;
	if (!mt_user.armed)
		return 0;
	ret = mt_uprobe_arm(up);
	if (ret) {
		fput(file);
		memset(up, 0, sizeof(*up));
		mt_user.nr_probes--;
	}
	return ret;
}

/* A target is named: probes may come after the start (a -c command's). */
bool mt_user_ready(void)
{
	return mt_user.nr_mms;
}

void mt_user_detach(void)
{
	bool any = false;
	u32 i;

	if (!mt_user.armed)
		return;
	for (i = 0; i < mt_user.nr_probes; i++) {
		struct mt_uprobe *up = &mt_user.probes[i];

		if (!up->registered)
			continue;
		mt_uprobe_unregister_nosync(&up->handle, &up->uc);
		up->registered = false;
		any = true;
	}
	/* No handler runs, or will, once this returns. */
	if (any)
		mt_uprobe_unregister_sync();
	mt_tp_unregister(mt_user_tps, ARRAY_SIZE(mt_user_tps), false, true);
	mt_tp_unregister(mt_fork_tps, ARRAY_SIZE(mt_fork_tps), false, true);
	mt_user.armed = false;
}

int mt_user_attach(void)
{
	int ret, pass;
	u32 i;

	if (!mt_user_ready())
		return -EINVAL;
	if (!mt_user.calls.slots) {
		ret = mt_calltab_init(&mt_user.calls, user_call_slots);
		if (ret)
			return ret;
	}
	mt_calltab_clear(&mt_user.calls);
	mt_user.armed = true;
	if (mt_user_exec_tp) {
		ret = mt_tp_register(mt_user_tps, ARRAY_SIZE(mt_user_tps),
				     MEMTRACE_EV_USER, false);
		if (ret)
			goto fail;
	}
	if (mt_user.follow_forks) {
		ret = mt_user_fork_tp ? mt_tp_register(mt_fork_tps, ARRAY_SIZE(mt_fork_tps),
						       MEMTRACE_EV_USER, false) : -EOPNOTSUPP;
		if (ret)
			goto fail;
	}
	/*
	 * Return sites first: an entry armed before them would keep a call
	 * whose return goes unseen.  Then frees (and resizers): a running
	 * target's allocation recorded before the probe that ends it was
	 * armed would be a leak that is not.
	 */
	for (pass = 0; pass < 3; pass++) {
		for (i = 0; i < mt_user.nr_probes; i++) {
			const struct mt_uprobe *up = &mt_user.probes[i];
			int want = up->kind == MEMTRACE_UPROBE_RETURN_SITE ? 0 :
				   mt_ufn_frees(up->func) ? 1 : 2;

			if (want != pass)
				continue;
			ret = mt_uprobe_arm(&mt_user.probes[i]);
			if (ret)
				goto fail;
		}
	}
	return 0;
fail:
	mt_user_detach();
	return ret;
}

void mt_user_snapshot(struct memtrace_target_state *ts)
{
	u32 i;

	ts->pid = mt_user.pid;
	ts->exec_ns = READ_ONCE(mt_user.exec_ns);
	ts->flags = ts->exec_ns ? MEMTRACE_TARGET_EXECED : 0;
	/* Pairs with mt_user_add_mm()'s release: slots below are written. */
	ts->nr_processes = smp_load_acquire(&mt_user.nr_mms);
	ts->forks_full = atomic64_read(&mt_user.forks_full);
	for (i = 0; i < ts->nr_processes; i++) {
		const struct mt_user_proc *p = &mt_user.procs[i];

		ts->procs[i] = (struct memtrace_proc) {
			.pid = pid_nr_ns(p->tgid, mt_user.pid_ns),
			.how = p->how,
			.from = p->from,
			.flags = p->exec_refused ? MEMTRACE_PROCF_EXEC_REFUSED : 0,
			.start_ns = p->start_ns,
		};
	}
	ts->nr_uprobes = 0;
	if (mt_user.armed) {
		for (i = 0; i < mt_user.nr_probes; i++)
			ts->nr_uprobes += mt_user.probes[i].registered;
	}
}

int mt_user_add_unwind_table(const void *owner, const struct memtrace_unwind_table *t)
{
	if (!mt_user.nr_mms || mt_user.owner != owner)
		return -ESRCH;	/* MEMTRACE_IOC_TARGET first */
	return mt_unwind_add_table(t);
}

void mt_user_unwind_snapshot(struct memtrace_unwind_stats *st)
{
	mt_unwind_snapshot(st);
}
