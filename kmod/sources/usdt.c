// SPDX-License-Identifier: GPL-2.0
/*
 * USDT probes; see usdt.h.
 *
 * A probe site of <sys/sdt.h> is a nop in the middle of a function; its
 * note says where (the reader turns that into a file offset) and how to
 * find each argument at that instruction: a register, memory at a
 * register plus a displacement, or a constant.  The handler reads them
 * from the trapped task's registers, and memory with
 * copy_from_user_nofault(): bounded, never sleeping, a bad address
 * counted per argument rather than faulted in.
 *
 * A probe with a semaphore (the counter the program tests before it
 * computes costly arguments) is registered with that counter's file
 * offset as the uprobe's reference counter: the kernel raises it in each
 * address space where it writes the breakpoint, and lowers it where it
 * takes the breakpoint out, so the program sees it nonzero exactly while
 * traced.  The filter decides which address spaces those are: the task
 * filter's process (whatever image it has exec'd into, so -c's command
 * gets its breakpoints and semaphores as the loader maps the program) or
 * every one that maps the file.
 */
#define pr_fmt(fmt) "memtrace: " fmt

#include <linux/capability.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/percpu.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/ptrace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>

#include "compat/compat.h"
#include "rings/evring.h"
#include "session/recorder.h"
#include "session/session.h"
#include "sources/usdt.h"
#include "unwind/unwind.h"

/* How the hits' user stacks were walked (unwind.h: mt_unwind_count()). */
static DEFINE_PER_CPU(struct memtrace_unwind_stats, mt_usdt_unwind);

/* Frames of a hit's user stack kept in a record (on the kernel stack while taken). */
#define MT_USDT_FRAMES	32

struct mt_usdt_probe {
	struct uprobe_consumer uc;
	struct mt_uprobe_handle handle;
	struct file *file;	/* keeps the inode (and its mount) while probed */
	loff_t offset;
	loff_t ref_ctr_offset;
	u32 probe;		/* the reader's number */
	u32 nr_args;
	struct memtrace_usdt_arg args[MEMTRACE_USDT_MAX_ARGS];
	bool registered;
};

static struct {
	const void *owner;	/* the file that added the probes */
	struct mt_usdt_probe probes[MEMTRACE_MAX_USDT];
	u32 nr;
	bool armed;
	/* While armed: */
	struct mt_evring *er;
	struct pid *tgid;		/* the session's task filter's, referenced by it */
	struct pid_namespace *ns;	/* NULL: initial */
	u32 depth;
	bool tracer_any;		/* the starter had CAP_SYS_PTRACE, as ptrace would ask */
	atomic64_t stack_faults;
} mt_usdt;

u32 mt_usdt_available(void)
{
	return MEMTRACE_EV_USDT;
}

/* ---- the handler ---- */

static unsigned long mt_usdt_reg(const struct pt_regs *regs, u8 reg)
{
	switch (reg) {
	case MEMTRACE_USDT_REG_RAX: return regs->ax;
	case MEMTRACE_USDT_REG_RBX: return regs->bx;
	case MEMTRACE_USDT_REG_RCX: return regs->cx;
	case MEMTRACE_USDT_REG_RDX: return regs->dx;
	case MEMTRACE_USDT_REG_RSI: return regs->si;
	case MEMTRACE_USDT_REG_RDI: return regs->di;
	case MEMTRACE_USDT_REG_RBP: return regs->bp;
	case MEMTRACE_USDT_REG_RSP: return regs->sp;
	case MEMTRACE_USDT_REG_R8: return regs->r8;
	case MEMTRACE_USDT_REG_R8 + 1: return regs->r9;
	case MEMTRACE_USDT_REG_R8 + 2: return regs->r10;
	case MEMTRACE_USDT_REG_R8 + 3: return regs->r11;
	case MEMTRACE_USDT_REG_R8 + 4: return regs->r12;
	case MEMTRACE_USDT_REG_R8 + 5: return regs->r13;
	case MEMTRACE_USDT_REG_R8 + 6: return regs->r14;
	default: return regs->r15;	/* validated when added */
	}
}

/* The low |size| bytes of v, sign-extended if size is negative. */
static u64 mt_usdt_extend(u64 v, s8 size)
{
	unsigned int bits = abs(size) * 8;

	if (bits >= 64)
		return v;
	v &= (1ULL << bits) - 1;
	if (size < 0 && (v & (1ULL << (bits - 1))))
		v |= ~((1ULL << bits) - 1);
	return v;
}

/* One argument's value at the probe; false if its memory could not be read. */
static bool mt_usdt_arg(const struct pt_regs *regs, const struct memtrace_usdt_arg *a,
			u64 *out)
{
	unsigned long addr;
	u64 v = 0;

	switch (a->kind) {
	case MEMTRACE_USDT_ARG_REG:
		v = mt_usdt_reg(regs, a->reg);
		break;
	case MEMTRACE_USDT_ARG_MEM:
		addr = mt_usdt_reg(regs, a->reg) + a->value;
		/* Little-endian: the low bytes of v are the value's. */
		if (copy_from_user_nofault(&v, (const void __user *)addr, abs(a->size)))
			return false;
		break;
	default:
		v = a->value;
		break;
	}
	*out = mt_usdt_extend(v, a->size);
	return true;
}

/* The filter: the address spaces the probes are armed in. */
static bool mt_usdt_mm_wanted(struct mm_struct *mm)
{
	struct pid *tgid = READ_ONCE(mt_usdt.tgid);
	struct task_struct *leader, *t;
	bool wanted = false;

	if (!tgid)
		return true;
	if (!mm)
		return false;
	rcu_read_lock();
	leader = pid_task(tgid, PIDTYPE_TGID);
	/*
	 * Any thread of the process: a leader that called pthread_exit() has
	 * no mm while the others run on in it.  Not into a program its exec
	 * made undumpable (setuid, file capabilities, unreadable): ptrace
	 * could not look into it either, but for a tracer with CAP_SYS_PTRACE.
	 */
	if (leader) {
		for_each_thread(leader, t) {
			if (READ_ONCE(t->mm) != mm)
				continue;
			wanted = READ_ONCE(mt_usdt.tracer_any) ||
				 mt_task_mm_dumpable_by_owner(t, mm);
			break;
		}
	}
	rcu_read_unlock();
	return wanted;
}

static bool mt_usdt_filter(MT_UPROBE_FILTER_ARGS)
{
	return mt_usdt_mm_wanted(mm);
}

/* The task passes the session's name and cgroup filters too. */
static bool mt_usdt_task_wanted(void)
{
	bool wanted;

	if (!mt.filter.by_task)
		return true;
	rcu_read_lock();
	wanted = mt_task_selected(&mt.filter);
	rcu_read_unlock();
	return wanted;
}

static int mt_usdt_handler(MT_UPROBE_HANDLER_ARGS)
{
	struct mt_usdt_probe *p = container_of(self, struct mt_usdt_probe, uc);
	struct mt_evring *er = READ_ONCE(mt_usdt.er);
	u32 max = min_t(u32, mt_usdt.depth, MT_USDT_FRAMES);
	unsigned long frames[MT_USDT_FRAMES];
	u64 args[MEMTRACE_USDT_MAX_ARGS];
	struct memtrace_unwind_stats st;
	struct memtrace_ev_usdt *r;
	u32 arg_faults = 0, rflags = 0;
	unsigned int nr = 0, i;
	unsigned long flags;
	bool faulted = false;

	if (!er)
		return 0;
	/* A child forked from the process traced: take the breakpoint out of it. */
	if (!mt_usdt_mm_wanted(current->mm))
		return UPROBE_HANDLER_REMOVE;
	/* The argument specs name x86-64 registers. */
	if (!user_64bit_mode(regs) || !mt_usdt_task_wanted())
		return 0;
	for (i = 0; i < p->nr_args; i++) {
		if (!mt_usdt_arg(regs, &p->args[i], &args[i])) {
			args[i] = 0;
			arg_faults |= 1U << i;
		}
	}
	if (max) {
		struct mm_struct *mm = NULL;

		/*
		 * The probe's own address, then its callers: the probe sits
		 * inside its function, whose frame is set up (not at entry).
		 * The unwind tables need the mm read-locked: a uprobe handler
		 * may sleep, and takes it as user mode's does (uprobes.c).
		 */
		memset(&st, 0, sizeof(st));
		if (mt_unwind_active()) {
			if (!mmap_read_lock_killable(current->mm))
				mm = current->mm;
			else
				st.mm_busy++;
		}
		frames[nr++] = instruction_pointer(regs);
		nr += mt_unwind_user(mm, regs, MT_UNWIND_FROM_INSIDE, frames + 1, max - 1, &st,
				     &faulted);
		if (mm)
			mmap_read_unlock(mm);
		mt_unwind_count(&mt_usdt_unwind, &st);
	}
	if (faulted) {
		rflags |= MEMTRACE_USDT_STACK_FAULT;
		atomic64_inc(&mt_usdt.stack_faults);
	}
	r = mt_evring_reserve(er, MEMTRACE_EVT_USDT, sizeof(*r) + nr * sizeof(u64), &flags);
	if (!r)
		return 0;
	r->ts_ns = ktime_get_mono_fast_ns();
	r->pid = mt_usdt.ns ? task_tgid_nr_ns(current, mt_usdt.ns) : task_tgid_nr(current);
	r->tid = mt_usdt.ns ? task_pid_nr_ns(current, mt_usdt.ns) : task_pid_nr(current);
	/* comm may change under us (prctl): a torn name, never an overrun. */
	memcpy(r->comm, current->comm, MEMTRACE_COMM_LEN);
	r->comm[MEMTRACE_COMM_LEN - 1] = '\0';
	r->probe = p->probe;
	r->nr_args = p->nr_args;
	memset(r->args, 0, sizeof(r->args));
	for (i = 0; i < p->nr_args; i++)
		r->args[i] = args[i];
	r->flags = rflags;
	r->arg_faults = arg_faults;
	r->nr_frames = nr;
	r->__pad = 0;
	for (i = 0; i < nr; i++)
		((u64 *)(r + 1))[i] = frames[i];
	mt_evring_commit(er, r, flags);
	return 0;
}

/* ---- control (under mt.lock) ---- */

static bool mt_usdt_arg_valid(const struct memtrace_usdt_arg *a)
{
	int size = abs(a->size);

	if (memchr_inv(a->__pad, 0, sizeof(a->__pad)))
		return false;
	if (size != 1 && size != 2 && size != 4 && size != 8)
		return false;
	switch (a->kind) {
	case MEMTRACE_USDT_ARG_REG:
		return a->reg <= MEMTRACE_USDT_REG_MAX && !a->value;
	case MEMTRACE_USDT_ARG_MEM:
		return a->reg <= MEMTRACE_USDT_REG_MAX;
	case MEMTRACE_USDT_ARG_CONST:
		return !a->reg;
	default:
		return false;
	}
}

/* A USDT site is a nop (sys/sdt.h's _SDT_NOP): anything else is no probe site. */
static bool mt_usdt_is_nop(struct file *file, u64 offset)
{
	loff_t pos = offset;
	u8 insn = 0;

	return kernel_read(file, &insn, 1, &pos) == 1 && insn == 0x90;
}

int mt_usdt_add(const void *owner, const struct memtrace_usdt *u)
{
	struct mt_usdt_probe *p;
	struct inode *inode;
	struct file *file;
	loff_t isize;
	u32 i;

	if (mt_usdt.armed)
		return -EBUSY;
	if (u->nr_args > MEMTRACE_USDT_MAX_ARGS)
		return -EINVAL;
	for (i = 0; i < u->nr_args; i++)
		if (!mt_usdt_arg_valid(&u->args[i]))
			return -EINVAL;
	/* Probes another file added (its session is gone) are not this one's. */
	if (mt_usdt.owner != owner)
		mt_usdt_release_owner(mt_usdt.owner);
	file = fget(u->fd);
	if (!file)
		return -EBADF;
	inode = file_inode(file);
	isize = i_size_read(inode);
	/* The semaphore is a 16-bit word, aligned (the kernel checks that too). */
	if (!S_ISREG(inode->i_mode) || !(file->f_mode & FMODE_READ) ||
	    u->offset >= isize || u->ref_ctr_offset > isize - 2 ||
	    (u->ref_ctr_offset & 1) || !mt_usdt_is_nop(file, u->offset)) {
		fput(file);
		return -EINVAL;
	}
	for (i = 0; i < mt_usdt.nr; i++) {
		p = &mt_usdt.probes[i];
		if (file_inode(p->file) == inode && p->offset == u->offset) {
			fput(file);
			return -EEXIST;
		}
	}
	if (mt_usdt.nr == MEMTRACE_MAX_USDT) {
		fput(file);
		return -ENOSPC;
	}
	p = &mt_usdt.probes[mt_usdt.nr++];
	memset(p, 0, sizeof(*p));
	p->file = file;
	p->offset = u->offset;
	p->ref_ctr_offset = u->ref_ctr_offset;
	p->probe = u->probe;
	p->nr_args = u->nr_args;
	memcpy(p->args, u->args, u->nr_args * sizeof(p->args[0]));
	mt_usdt.owner = owner;
	return 0;
}

void mt_usdt_detach(void)
{
	bool any = false;
	u32 i;

	for (i = 0; i < mt_usdt.nr; i++) {
		struct mt_usdt_probe *p = &mt_usdt.probes[i];

		if (!p->registered)
			continue;
		/* Lowers the semaphore in every address space it was raised in. */
		mt_uprobe_unregister_nosync(&p->handle, &p->uc);
		p->registered = false;
		any = true;
	}
	if (any)
		mt_uprobe_unregister_sync();
	WRITE_ONCE(mt_usdt.er, NULL);
	WRITE_ONCE(mt_usdt.tgid, NULL);
	mt_usdt.armed = false;
}

int mt_usdt_attach(struct mt_evring *er, struct pid *tgid, struct pid_namespace *ns,
		   u32 depth)
{
	int ret;
	u32 i;

	if (!mt_usdt.nr)
		return -ESRCH;	/* MEMTRACE_IOC_USDT first */
	/*
	 * Probes write breakpoints, and raise semaphores (a 16-bit add), in
	 * the address spaces they are armed in: in every process's only with
	 * CAP_SYS_ADMIN, as perf's uprobes; in one process's only where
	 * ptrace could attach (the caller is the ioctl's, here).
	 */
	if (!tgid && !capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (tgid) {
		struct task_struct *task = get_pid_task(tgid, PIDTYPE_TGID);
		bool may;

		if (!task)
			return -ESRCH;
		may = mt_ptrace_may_attach(task);
		put_task_struct(task);
		if (!may)
			return -EPERM;
	}
	mt_usdt.tracer_any = capable(CAP_SYS_PTRACE);
	mt_usdt.ns = ns;
	mt_usdt.depth = depth ? depth : MT_USDT_FRAMES;
	atomic64_set(&mt_usdt.stack_faults, 0);
	/* No handler runs: the probes are armed below. */
	mt_unwind_sum_reset(&mt_usdt_unwind);
	WRITE_ONCE(mt_usdt.tgid, tgid);
	WRITE_ONCE(mt_usdt.er, er);
	mt_usdt.armed = true;
	for (i = 0; i < mt_usdt.nr; i++) {
		struct mt_usdt_probe *p = &mt_usdt.probes[i];

		/* A consumer is registered again only as it was first filled in. */
		memset(&p->uc, 0, sizeof(p->uc));
		p->uc.handler = mt_usdt_handler;
		p->uc.filter = mt_usdt_filter;
		ret = mt_uprobe_register_refctr(file_inode(p->file), p->offset,
						p->ref_ctr_offset, &p->uc, &p->handle);
		if (ret) {
			/* -EINVAL: another tracer probes it with another semaphore. */
			pr_warn("cannot probe a USDT site at %#llx: %d\n",
				(unsigned long long)p->offset, ret);
			mt_usdt_detach();
			return ret;
		}
		p->registered = true;
	}
	return 0;
}

void mt_usdt_release_owner(const void *owner)
{
	u32 i;

	if (mt_usdt.owner != owner || WARN_ON_ONCE(mt_usdt.armed))
		return;
	for (i = 0; i < mt_usdt.nr; i++)
		fput(mt_usdt.probes[i].file);
	memset(mt_usdt.probes, 0, sizeof(mt_usdt.probes));
	mt_usdt.nr = 0;
	mt_usdt.owner = NULL;
}

void mt_usdt_stats(struct memtrace_evstats *st)
{
	st->stack_faults += atomic64_read(&mt_usdt.stack_faults);
	mt_unwind_sum(&mt_usdt_unwind, &st->unwind);
}
