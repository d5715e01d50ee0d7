// SPDX-License-Identifier: GPL-2.0
/*
 * Process memory growth; see growth.h.
 *
 * Hooks: a kretprobe on each system call's x86-64 entry point
 * (__x64_sys_mmap, __x64_sys_munmap, ...; the syscall wrappers that take
 * the user's pt_regs, since 4.17, and the same names in 6.1 and 6.12).
 * Modules cannot attach to the syscalls:sys_enter_* tracepoints (they are
 * made by the ftrace syscall tracer, not exported), and raw_syscalls
 * would put every system call of every task on the slow path; a kretprobe
 * costs only the calls traced.  The entry handler keeps the arguments
 * (and brk's old break) in the instance's data, the return handler writes
 * the record: the call's result, the mapped file's name, the user stack.
 *
 * The file of a file mapping is named from the VMA the call made, under
 * mmap_read_trylock() (the return handler may not sleep): mmapsnoop names
 * the descriptor's file, which is the same file.  A mm busy under another
 * thread leaves the name unknown, counted (MEMTRACE_SYSCALL_FILE_UNKNOWN).
 */
#define pr_fmt(fmt) "memtrace: " fmt

#include <linux/dcache.h>
#include <linux/fs.h>
#include <linux/kprobes.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/mmap_lock.h>
#include <linux/percpu.h>
#include <linux/pid_namespace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/string.h>
#include <linux/timekeeping.h>

#include "rings/evring.h"
#include "session/recorder.h"
#include "session/session.h"
#include "sources/growth.h"
#include "unwind/ustack.h"

/* How the user stacks were walked (unwind.h: mt_unwind_count()). */
static DEFINE_PER_CPU(struct memtrace_unwind_stats, mt_gr_unwind);

/* Frames of a caller's user stack kept in a record (on the kernel stack while taken). */
#define MT_GR_FRAMES	32

/* What the entry handler keeps for the return (the instance's data). */
struct mt_gr_call {
	unsigned long args[6];
};

/* What the fault entry handler keeps for the return. */
struct mt_gr_fault {
	unsigned long address;
	unsigned int flags;		/* FAULT_FLAG_* */
	char file[MEMTRACE_FILE_NAME_LEN];
};

struct mt_gr_probe {
	const char *symbol;	/* the system call's entry point, or the fault handler */
	u16 type;		/* MEMTRACE_EVT_* */
	u32 event;		/* MEMTRACE_EV_* (any of them) */
	bool present;		/* probeable on this kernel */
	bool registered;
	struct kretprobe krp;
	/* kp.nmissed that were faults in this probe's handlers (compat.h) */
	atomic64_t handler_faults;
};

static int mt_gr_fault_entry(struct kretprobe_instance *ri, struct pt_regs *regs);
static int mt_gr_fault_return(struct kretprobe_instance *ri, struct pt_regs *regs);

static struct mt_gr_probe mt_gr_probes[] = {
	{ "__x64_sys_mmap", MEMTRACE_EVT_MMAP, MEMTRACE_EV_MMAP },
	{ "__x64_sys_munmap", MEMTRACE_EVT_MUNMAP, MEMTRACE_EV_MMAP },
	{ "__x64_sys_mremap", MEMTRACE_EVT_MREMAP, MEMTRACE_EV_MMAP },
	{ "__x64_sys_brk", MEMTRACE_EVT_BRK, MEMTRACE_EV_BRK },
	{ "__x64_sys_shmget", MEMTRACE_EVT_SHMGET, MEMTRACE_EV_SHM },
	{ "__x64_sys_shmat", MEMTRACE_EVT_SHMAT, MEMTRACE_EV_SHM },
	{ "__x64_sys_shmdt", MEMTRACE_EVT_SHMDT, MEMTRACE_EV_SHM },
	{ "__x64_sys_shmctl", MEMTRACE_EVT_SHMCTL, MEMTRACE_EV_SHM },
	{ "handle_mm_fault", MEMTRACE_EVT_FAULT, MEMTRACE_EV_FAULT | MEMTRACE_EV_FFAULT },
};

static struct {
	struct mt_evring *er;
	struct pid_namespace *ns;	/* NULL: initial namespace */
	u32 events;			/* attached */
	u32 depth;
	u32 available;
	atomic64_t file_unknown;
	atomic64_t stack_faults;
	u64 missed;			/* by kretprobes unregistered since */
} mt_gr;

static struct mt_gr_probe *mt_gr_probe_of(struct kretprobe_instance *ri)
{
	return container_of(mt_get_kretprobe(ri), struct mt_gr_probe, krp);
}

/*
 * The caller is one the session traces: a task with a mm (not a kernel
 * thread, not memtrace's own control path) that passes kernel mode's task
 * filters.  A system call's or a fault's caller is always a task, even
 * when the entry kprobe is a breakpoint taken as an NMI.
 */
static bool mt_gr_wanted(void)
{
	if (!current->mm || (current->flags & PF_KTHREAD) ||
	    current == READ_ONCE(mt.self))
		return false;
	return !mt.filter.by_task || mt_task_selected(&mt.filter);
}

/* The record's task: ids in the reader's pid namespace, and its name. */
static void mt_gr_task(u32 *pid, u32 *tid, char *comm)
{
	*pid = mt_gr.ns ? task_tgid_nr_ns(current, mt_gr.ns) : task_tgid_nr(current);
	*tid = mt_gr.ns ? task_pid_nr_ns(current, mt_gr.ns) : task_pid_nr(current);
	/* comm may change under us (prctl): a torn name, never an overrun. */
	memcpy(comm, current->comm, MEMTRACE_COMM_LEN);
	comm[MEMTRACE_COMM_LEN - 1] = '\0';
}

static int mt_gr_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct mt_gr_call *call = (struct mt_gr_call *)ri->data;
	struct pt_regs *u = task_pt_regs(current);

	if (!READ_ONCE(mt_gr.er) || !mt_gr_wanted())
		return 1;	/* no return handler for this call */
	/* The x86-64 system call convention, as the user made the call. */
	call->args[0] = u->di;
	call->args[1] = u->si;
	call->args[2] = u->dx;
	call->args[3] = u->r10;
	call->args[4] = u->r8;
	call->args[5] = u->r9;
	if (mt_gr_probe_of(ri)->type == MEMTRACE_EVT_BRK)
		call->args[1] = READ_ONCE(current->mm->brk);
	return 0;
}

/* The name of vma's file (the VMA held by the caller) into name. */
static void mt_gr_vma_file(struct vm_area_struct *vma, char *name)
{
	/*
	 * The VMA holds the file, and the file its dentry; a rename may
	 * change the name under us, and names are freed only after an RCU
	 * grace period: at worst a torn name, bounded.
	 */
	rcu_read_lock();
	strscpy(name, READ_ONCE(vma->vm_file->f_path.dentry->d_name.name),
		MEMTRACE_FILE_NAME_LEN);
	rcu_read_unlock();
}

/* The name of the file mapped at addr, into name; false if unknown. */
static bool mt_gr_file_at(unsigned long addr, char *name)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	bool known = true;

	if (!mmap_read_trylock(mm))
		return false;
	vma = mt_vma_lookup(mm, addr);
	if (vma && vma->vm_file)
		mt_gr_vma_file(vma, name);
	else if (!vma)
		known = false;	/* unmapped again by another thread already */
	mmap_read_unlock(mm);
	return known;
}

static bool mt_gr_names_file(u16 type, const unsigned long *args, long ret)
{
	if (IS_ERR_VALUE(ret))
		return false;
	switch (type) {
	case MEMTRACE_EVT_MMAP:
		return !(args[3] & MAP_ANONYMOUS);
	case MEMTRACE_EVT_MREMAP:
	case MEMTRACE_EVT_SHMAT:
		return true;
	default:
		return false;
	}
}

static int mt_gr_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct mt_gr_call *call = (struct mt_gr_call *)ri->data;
	struct mt_evring *er = READ_ONCE(mt_gr.er);
	u16 type = mt_gr_probe_of(ri)->type;
	long ret = (long)regs_return_value(regs);
	char file[MEMTRACE_FILE_NAME_LEN] = "";
	unsigned long frames[MT_GR_FRAMES];
	struct memtrace_unwind_stats ust;
	struct memtrace_ev_syscall *r;
	unsigned int nr, i;
	unsigned long flags;
	bool faulted;
	u32 rflags = 0;

	if (!er)
		return 0;
	memset(&ust, 0, sizeof(ust));
	nr = mt_ustack(task_pt_regs(current), MT_UNWIND_FROM_SYSCALL, frames,
		       min_t(u32, mt_gr.depth, MT_GR_FRAMES), &ust, &faulted);
	mt_unwind_count(&mt_gr_unwind, &ust);
	if (faulted) {
		rflags |= MEMTRACE_SYSCALL_STACK_FAULT;
		atomic64_inc(&mt_gr.stack_faults);
	}
	if (mt_gr_names_file(type, call->args, ret) && !mt_gr_file_at(ret, file)) {
		rflags |= MEMTRACE_SYSCALL_FILE_UNKNOWN;
		atomic64_inc(&mt_gr.file_unknown);
	}
	r = mt_evring_reserve(er, type, sizeof(*r) + nr * sizeof(u64), &flags);
	if (!r)
		return 0;
	r->ts_ns = ktime_get_mono_fast_ns();
	mt_gr_task(&r->pid, &r->tid, r->comm);
	r->ret = ret;
	for (i = 0; i < ARRAY_SIZE(r->args); i++)
		r->args[i] = call->args[i];
	memcpy(r->file, file, sizeof(r->file));
	r->flags = rflags;
	r->nr_frames = nr;
	for (i = 0; i < nr; i++)
		((u64 *)(r + 1))[i] = frames[i];
	mt_evring_commit(er, r, flags);
	return 0;
}

/* ---- page faults ---- */

/*
 * handle_mm_fault(vma, address, flags, regs), where every fault of a task
 * ends up (and GUP's): the VMA is held (mmap_lock or its own lock) for
 * the whole call, so its file is named at the entry.  The return value
 * says what mm_account_fault() counts in the task's min_flt and maj_flt,
 * the same in 6.1 and 6.12: nothing for a retry or an error; major if it
 * read from storage, or was itself a retry.
 */
static int mt_gr_fault_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct vm_area_struct *vma = (struct vm_area_struct *)regs_get_kernel_argument(regs, 0);
	struct mt_gr_fault *f = (struct mt_gr_fault *)ri->data;

	if (!READ_ONCE(mt_gr.er) || !mt_gr_wanted())
		return 1;
	f->address = regs_get_kernel_argument(regs, 1);
	f->flags = regs_get_kernel_argument(regs, 2);
	f->file[0] = '\0';
	if ((mt_gr.events & MEMTRACE_EV_FFAULT) && vma && vma->vm_file)
		mt_gr_vma_file(vma, f->file);
	return 0;
}

static int mt_gr_fault_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct mt_gr_fault *f = (struct mt_gr_fault *)ri->data;
	struct mt_evring *er = READ_ONCE(mt_gr.er);
	vm_fault_t ret = (__force vm_fault_t)regs_return_value(regs);
	unsigned long frames[MT_GR_FRAMES];
	struct memtrace_unwind_stats ust;
	struct memtrace_ev_fault *r;
	unsigned int nr = 0, i;
	unsigned long flags;
	bool faulted = false;
	u32 rflags = 0;

	if (!er || (ret & (VM_FAULT_ERROR | VM_FAULT_RETRY)))
		return 0;
	if ((ret & VM_FAULT_MAJOR) || (f->flags & FAULT_FLAG_TRIED))
		rflags |= MEMTRACE_FAULT_MAJOR;
	if (f->flags & FAULT_FLAG_WRITE)
		rflags |= MEMTRACE_FAULT_WRITE;
	if (!(f->flags & FAULT_FLAG_USER))
		rflags |= MEMTRACE_FAULT_KERNEL;
	if (mt_gr.events & MEMTRACE_EV_FAULT) {
		u32 max = min_t(u32, mt_gr.depth, MT_GR_FRAMES);

		/* A fault in user mode, or one the kernel took inside a system call. */
		memset(&ust, 0, sizeof(ust));
		nr = mt_ustack(task_pt_regs(current),
			       f->flags & FAULT_FLAG_USER ? MT_UNWIND_FROM_INSIDE :
			       MT_UNWIND_FROM_SYSCALL, frames, max, &ust, &faulted);
		mt_unwind_count(&mt_gr_unwind, &ust);
	}
	if (faulted) {
		rflags |= MEMTRACE_FAULT_STACK_FAULT;
		atomic64_inc(&mt_gr.stack_faults);
	}
	r = mt_evring_reserve(er, MEMTRACE_EVT_FAULT, sizeof(*r) + nr * sizeof(u64), &flags);
	if (!r)
		return 0;
	r->ts_ns = ktime_get_mono_fast_ns();
	mt_gr_task(&r->pid, &r->tid, r->comm);
	r->address = f->address;
	r->flags = rflags;
	r->nr_frames = nr;
	memcpy(r->file, f->file, sizeof(r->file));
	for (i = 0; i < nr; i++)
		((u64 *)(r + 1))[i] = frames[i];
	mt_evring_commit(er, r, flags);
	return 0;
}

#ifdef MT_KPROBE_HANDLER_FAULTS_MISSED
/*
 * The return handlers, with what kp.nmissed gained while they ran: their
 * own page faults (the user stack reads), not hits missed.  A hit missed
 * on another CPU meanwhile is taken for one: the count errs low.
 */
static int mt_gr_return_counted(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct mt_gr_probe *p = mt_gr_probe_of(ri);
	unsigned long before = READ_ONCE(p->krp.kp.nmissed);

	if (p->type == MEMTRACE_EVT_FAULT)
		mt_gr_fault_return(ri, regs);
	else
		mt_gr_return(ri, regs);
	atomic64_add(READ_ONCE(p->krp.kp.nmissed) - before, &p->handler_faults);
	return 0;
}
#endif

/* Hits the kernel dropped: instances exhausted, or inside another probe. */
static u64 mt_gr_probe_missed(struct mt_gr_probe *p)
{
	s64 n = (s64)p->krp.nmissed + p->krp.kp.nmissed -
		atomic64_read(&p->handler_faults);

	return max_t(s64, n, 0);
}

/* A kretprobe is registered again only as it was first filled in. */
static void mt_gr_krp_reset(struct mt_gr_probe *p)
{
	bool fault = p->type == MEMTRACE_EVT_FAULT;

	memset(&p->krp, 0, sizeof(p->krp));
	p->krp.kp.symbol_name = p->symbol;
	p->krp.entry_handler = fault ? mt_gr_fault_entry : mt_gr_entry;
#ifdef MT_KPROBE_HANDLER_FAULTS_MISSED
	p->krp.handler = mt_gr_return_counted;
#else
	p->krp.handler = fault ? mt_gr_fault_return : mt_gr_return;
#endif
	atomic64_set(&p->handler_faults, 0);
	p->krp.data_size = fault ? sizeof(struct mt_gr_fault) : sizeof(struct mt_gr_call);
	/* Calls may sleep (mmap_lock): many can be in flight per CPU. */
	p->krp.maxactive = max_t(int, 64, 8 * num_possible_cpus());
}

int mt_growth_init(void)
{
	u32 missing = 0;
	size_t i;

	atomic64_set(&mt_gr.file_unknown, 0);
	atomic64_set(&mt_gr.stack_faults, 0);
	for (i = 0; i < ARRAY_SIZE(mt_gr_probes); i++) {
		struct mt_gr_probe *p = &mt_gr_probes[i];
		struct kprobe kp = { .symbol_name = p->symbol };

		/* A plain kprobe tells whether the function is there and probeable. */
		if (register_kprobe(&kp) == 0) {
			unregister_kprobe(&kp);
			p->present = true;
		} else {
			missing |= p->event;
			pr_info("%s cannot be probed: no %s events\n", p->symbol,
				p->event == MEMTRACE_EV_MMAP ? "mmap" :
				p->event == MEMTRACE_EV_BRK ? "brk" :
				p->event == MEMTRACE_EV_SHM ? "shm" : "page fault");
		}
		mt_gr.available |= p->event;
	}
	mt_gr.available &= ~missing;
	return 0;
}

u32 mt_growth_available(void)
{
	return mt_gr.available;
}

void mt_growth_detach(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(mt_gr_probes); i++) {
		struct mt_gr_probe *p = &mt_gr_probes[i];

		if (!p->registered)
			continue;
		/* Waits for running handlers. */
		unregister_kretprobe(&p->krp);
		if (p->krp.nmissed || p->krp.kp.nmissed)
			pr_info("%s: %d hits missed with no instance free (of %d), %lu inside another probe or faults in its handler (%lld)\n",
				p->symbol, p->krp.nmissed, p->krp.maxactive, p->krp.kp.nmissed,
				(long long)atomic64_read(&p->handler_faults));
		mt_gr.missed += mt_gr_probe_missed(p);
		p->registered = false;
	}
	WRITE_ONCE(mt_gr.er, NULL);
}

int mt_growth_attach(u32 events, struct mt_evring *er, struct pid_namespace *ns, u32 depth)
{
	size_t i;
	int ret;

	events &= MEMTRACE_EV_GROWTH;
	if (events & ~mt_gr.available)
		return -EOPNOTSUPP;
	mt_gr.ns = ns;
	mt_gr.events = events;
	mt_gr.missed = 0;
	atomic64_set(&mt_gr.file_unknown, 0);
	atomic64_set(&mt_gr.stack_faults, 0);
	mt_gr.depth = depth ? depth : MT_GR_FRAMES;
	/* No handler runs: nothing is registered yet. */
	mt_unwind_sum_reset(&mt_gr_unwind);
	WRITE_ONCE(mt_gr.er, er);
	for (i = 0; i < ARRAY_SIZE(mt_gr_probes); i++) {
		struct mt_gr_probe *p = &mt_gr_probes[i];

		if (!(p->event & events))
			continue;
		mt_gr_krp_reset(p);
		ret = register_kretprobe(&p->krp);
		if (ret) {
			pr_warn("cannot probe %s: %d\n", p->symbol, ret);
			mt_growth_detach();
			return ret;
		}
		p->registered = true;
	}
	return 0;
}

void mt_growth_stats(struct memtrace_evstats *st)
{
	size_t i;

	st->probe_missed += mt_gr.missed;
	for (i = 0; i < ARRAY_SIZE(mt_gr_probes); i++)
		if (mt_gr_probes[i].registered)
			st->probe_missed += mt_gr_probe_missed(&mt_gr_probes[i]);
	st->file_unknown += atomic64_read(&mt_gr.file_unknown);
	st->stack_faults += atomic64_read(&mt_gr.stack_faults);
	mt_unwind_sum(&mt_gr_unwind, &st->unwind);
}
