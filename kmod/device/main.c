// SPDX-License-Identifier: GPL-2.0
/*
 * memtrace: memory leak and memory growth tracing without BPF.
 *
 * /dev/memtrace (0600): a reader opens it, shakes hands on the ABI version,
 * configures and starts a session with ioctls, and reads snapshots from a
 * buffer it maps.  The layout of kernel/kcov.c: a misc device, an ioctl
 * switch, a vmalloc_user() buffer mapped with remap_vmalloc_range().
 *
 * Privilege is checked as perf checks it, on every operation and not just
 * at open, against the caller's own credentials: a descriptor handed to a
 * less privileged process is worth nothing there.  Tracing takes
 * CAP_PERFMON (or CAP_SYS_ADMIN); kernel addresses reach only a caller
 * with CAP_SYSLOG (others get zeros: see struct mt_view); a process is
 * traced only by a caller that may ptrace-attach to it (uprobes.c).  The
 * device's file mode is a first gate, never the only one.
 */
#define pr_fmt(fmt) "memtrace: " fmt

#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/kmemleak.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/refcount.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "compat/compat.h"
#include "control/tracer.h"
#include "sources/growth.h"
#include "sources/pressure.h"
#include "sources/uprobes.h"
#include "sources/usdt.h"

#define MEMTRACE_MODULE_VERSION "0.1.0"

static uint max_buffer_mb = 1024;
module_param(max_buffer_mb, uint, 0644);
MODULE_PARM_DESC(max_buffer_mb, "Largest snapshot buffer a reader may map, MiB (default 1024; never more than half the memory available)");

/*
 * A snapshot buffer.  The file holds a reference and so does every VMA
 * mapping it, so a reader may switch to a bigger buffer while it still
 * has the old one mapped.
 */
struct mt_buf {
	refcount_t ref;
	size_t size;
	void *mem;
	bool kaddr;		/* a snapshot wrote kernel addresses into it */
};

/*
 * f->lock guards buf only, and is never held across a user copy or while
 * taking mt.lock: mmap takes it under mmap_lock, a copy may fault and take
 * mmap_lock, and mt.lock is held around uprobe registration, which takes
 * mmap_lock.
 */
struct mt_file {
	struct mutex lock;
	bool handshake_done;
	struct mt_buf *buf;
};

static void mt_buf_put(struct mt_buf *b)
{
	if (b && refcount_dec_and_test(&b->ref)) {
		vfree(b->mem);
		kfree(b);
	}
}

/* The caller may trace: asked by every file operation (see the top). */
static bool mt_may_trace(void)
{
	return perfmon_capable();
}

static int mt_open(struct inode *inode, struct file *file)
{
	struct mt_file *f;

	if (!mt_may_trace())
		return -EPERM;
	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		return -ENOMEM;
	mutex_init(&f->lock);
	file->private_data = f;
	return nonseekable_open(inode, file);
}

static int mt_release(struct inode *inode, struct file *file)
{
	struct mt_file *f = file->private_data;

	mt_release_owner(file);
	mt_buf_put(f->buf);
	kfree(f);
	return 0;
}

static long mt_ioctl_version(struct mt_file *f, void __user *arg)
{
	struct memtrace_version v;

	bool match;

	if (copy_from_user(&v, arg, sizeof(v)))
		return -EFAULT;
	match = v.abi_version == MEMTRACE_ABI_VERSION;
	WRITE_ONCE(f->handshake_done, match);
	memset(&v, 0, sizeof(v));
	v.abi_version = MEMTRACE_ABI_VERSION;
	v.header_size = sizeof(struct memtrace_snap_header);
	v.stack_rec_size = sizeof(struct memtrace_stack_rec);
	v.stat_rec_size = sizeof(struct memtrace_stat_rec);
	v.alloc_rec_size = sizeof(struct memtrace_alloc_rec);
	v.cache_rec_size = sizeof(struct memtrace_cache_rec);
	v.features = mt_available_events() | MEMTRACE_FEAT_TRACE |
		     MEMTRACE_FEAT_TASK_FILTERS | MEMTRACE_FEAT_EVRING |
		     MEMTRACE_FEAT_TRACE_RING;
	if (mt_available_events() & MEMTRACE_EV_USER)
		v.features |= MEMTRACE_FEAT_UNWIND_CFI |
			      (MT_UPROBE_HANDLER_MAY_JUMP ? MEMTRACE_FEAT_RETURN_SITES : 0);
	if (mt_available_events() & MEMTRACE_EV_USDT)
		v.features |= MEMTRACE_FEAT_USDT;
	v.kconfig_off = mt_kconfig_off();
	strscpy(v.module_version, MEMTRACE_MODULE_VERSION, sizeof(v.module_version));
	if (copy_to_user(arg, &v, sizeof(v)))
		return -EFAULT;
	/* The reader learns our version either way; a mismatch is refused. */
	return match ? 0 : -EPROTO;
}

/*
 * An ioctl command without its size: the structures carry their own size
 * (mt_copy_sized()), and _IOC_SIZE is only the size of the header a
 * caller was built against, which grows; matching on it would turn every
 * grown structure into ENOTTY for older readers, and for newer readers on
 * an older module before they could learn what it supports.
 */
#define MT_IOC_KEY(cmd)	((cmd) & ~(_IOC_SIZEMASK << _IOC_SIZESHIFT))

/*
 * Copy a structure that carries its own size: a caller built against an
 * older header may pass fewer bytes (the rest reads as zero), one built
 * against a newer header more, which must then be zero.
 */
static int mt_copy_sized(void *dst, size_t size, size_t min_size,
			 const void __user *arg)
{
	u32 usize;
	int ret;

	if (get_user(usize, (const u32 __user *)arg))
		return -EFAULT;
	if (usize < min_size || usize > PAGE_SIZE)
		return -EINVAL;
	ret = copy_struct_from_user(dst, size, arg, usize);
	return ret == -E2BIG ? -EINVAL : ret;
}

static long mt_ioctl_config(struct file *file, void __user *arg)
{
	struct memtrace_config cfg;
	int ret;

	ret = mt_copy_sized(&cfg, sizeof(cfg), MEMTRACE_CONFIG_SIZE_VER0, arg);
	if (ret)
		return ret;
	mt_lock();
	ret = mt_claim(file);
	if (!ret)
		ret = mt_configure(&cfg);
	mt_unlock();
	return ret;
}

static long mt_ioctl_set_buffer(struct mt_file *f, void __user *arg)
{
	struct mt_buf *b, *old;
	u64 size;

	if (get_user(size, (u64 __user *)arg))
		return -EFAULT;
	if (!size || size > ((u64)max_buffer_mb << 20) || !PAGE_ALIGNED(size))
		return -EINVAL;
	/*
	 * vmalloc_user() is GFP_KERNEL and retries: a buffer near the size of
	 * memory would have the OOM killer end other processes for a reader's
	 * snapshot.  Refuse more than half of what is available now instead.
	 */
	if (size >> PAGE_SHIFT > (u64)si_mem_available() / 2)
		return -ENOMEM;
	b = kzalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	/* Under mt_lock(): the buffer's pages are memtrace's, not news. */
	mt_lock();
	b->mem = vmalloc_user(size);
	mt_unlock();
	if (!b->mem) {
		kfree(b);
		return -ENOMEM;
	}
	/* Snapshots hold allocation addresses: no references for kmemleak. */
	kmemleak_no_scan(b->mem);
	b->size = size;
	refcount_set(&b->ref, 1);
	mutex_lock(&f->lock);
	old = f->buf;
	f->buf = b;
	mutex_unlock(&f->lock);
	mt_buf_put(old);
	return 0;
}

static long mt_ioctl_snapshot(struct file *file, void __user *arg)
{
	struct mt_file *f = file->private_data;
	struct memtrace_snapshot_req req;
	struct mt_view view;
	struct mt_buf *b;
	int ret;

	ret = mt_copy_sized(&req, sizeof(req), MEMTRACE_SNAPSHOT_REQ_SIZE_VER0, arg);
	if (ret)
		return ret;
	if (req.flags & ~MEMTRACE_SNAP_ALLOCS)
		return -EINVAL;
	req.used = 0;
	req.needed = 0;

	/*
	 * Hold the buffer by its reference, not by f->lock: mt.lock is taken
	 * around uprobe registration, which nests mmap_lock inside, and mmap
	 * takes f->lock under mmap_lock.
	 */
	mutex_lock(&f->lock);
	b = f->buf;
	if (b)
		refcount_inc(&b->ref);
	mutex_unlock(&f->lock);
	mt_view_init(&view);
	/* Once it held kernel addresses, mapping it takes CAP_SYSLOG. */
	if (b && view.kaddr)
		WRITE_ONCE(b->kaddr, true);
	mt_lock();
	ret = mt_check_owner(file);
	if (!ret && !b)
		ret = -ENOBUFS;		/* MEMTRACE_IOC_SET_BUFFER first */
	if (!ret)
		ret = mt_snapshot(b->mem, b->size, &req, &view);
	mt_unlock();
	mt_buf_put(b);

	if ((!ret || ret == -ENOSPC) &&
	    copy_to_user(arg, &req, min_t(size_t, req.size, sizeof(req))))
		return -EFAULT;
	return ret;
}

static long mt_ioctl_target(struct file *file, void __user *arg)
{
	struct memtrace_target t;
	int ret;

	ret = mt_copy_sized(&t, sizeof(t), MEMTRACE_TARGET_SIZE_VER0, arg);
	if (ret)
		return ret;
	if ((t.flags & ~MEMTRACE_TARGET_FOLLOW_FORKS) || t.__pad)
		return -EINVAL;
	mt_lock();
	ret = mt_claim(file);
	if (!ret)
		ret = mt.tracing ? -EBUSY :
		      mt_user_set_target(file, t.pid, t.flags & MEMTRACE_TARGET_FOLLOW_FORKS);
	mt_unlock();
	return ret;
}

static long mt_ioctl_uprobe(struct file *file, void __user *arg)
{
	struct memtrace_uprobe u;
	int ret;

	ret = mt_copy_sized(&u, sizeof(u), MEMTRACE_UPROBE_SIZE_VER0, arg);
	if (ret)
		return ret;
	if (u.__pad || u.__pad2)
		return -EINVAL;
	mt_lock();
	/* Only the session's owner; while tracing, for the images its target execs. */
	ret = mt_claim(file);
	if (!ret)
		ret = mt_user_add_uprobe(file, u.fd, u.offset, u.func, u.kind);
	mt_unlock();
	return ret;
}

static long mt_ioctl_unwind_table(struct file *file, void __user *arg)
{
	struct memtrace_unwind_table t;
	int ret;

	ret = mt_copy_sized(&t, sizeof(t), MEMTRACE_UNWIND_TABLE_SIZE_VER0, arg);
	if (ret)
		return ret;
	mt_lock();
	/* Only the session's owner; while tracing too, for the objects of an image exec'd. */
	ret = mt_claim(file);
	if (!ret)
		ret = mt_user_add_unwind_table(file, &t);
	mt_unlock();
	return ret;
}

static long mt_ioctl_usdt(struct file *file, void __user *arg)
{
	struct memtrace_usdt u;
	int ret;

	ret = mt_copy_sized(&u, sizeof(u), MEMTRACE_USDT_SIZE_VER0, arg);
	if (ret)
		return ret;
	mt_lock();
	ret = mt_claim(file);
	if (!ret)
		ret = mt.tracing ? -EBUSY : mt_usdt_add(file, &u);
	mt_unlock();
	return ret;
}

/* The session's event rings, for its owner only; referenced, or an ERR_PTR. */
static struct mt_evring *mt_owner_evring(struct file *file)
{
	struct mt_evring *er;

	if (READ_ONCE(mt.owner) != file)
		return ERR_PTR(-EPERM);
	er = mt_evring_get_current();
	return er ? er : ERR_PTR(-ENODATA);
}

static long mt_ioctl_evring_info(struct file *file, void __user *arg)
{
	struct memtrace_evring_info info;
	struct mt_evring *er;
	u32 usize;
	int ret;

	ret = mt_copy_sized(&info, sizeof(info), MEMTRACE_EVRING_INFO_SIZE_VER0, arg);
	if (ret)
		return ret;
	/* An older reader's structure is shorter: fill only what it has. */
	usize = min_t(u32, info.size, sizeof(info));
	er = mt_owner_evring(file);
	if (IS_ERR(er))
		return PTR_ERR(er);
	memset(&info, 0, sizeof(info));
	info.size = usize;
	info.nr_cpus = er->nr_cpus;
	info.cpu_stride = er->stride;
	info.data_offset = PAGE_SIZE;
	info.data_size = er->data_size;
	info.mmap_size = er->mem_size;
	mt_evring_put(er);
	return copy_to_user(arg, &info, usize) ? -EFAULT : 0;
}

static long mt_ioctl_evring_consume(struct file *file, void __user *arg)
{
	struct memtrace_evring_consume c;
	struct mt_evring *er;
	int ret;

	ret = mt_copy_sized(&c, sizeof(c), MEMTRACE_EVRING_CONSUME_SIZE_VER0, arg);
	if (ret)
		return ret;
	er = mt_owner_evring(file);
	if (IS_ERR(er))
		return PTR_ERR(er);
	ret = mt_evring_consume(er, c.cpu, c.pos);
	mt_evring_put(er);
	return ret;
}

/* What the event hooks lost outside the rings, for the session's owner. */
static long mt_ioctl_evstats(struct file *file, void __user *arg)
{
	struct memtrace_evstats st;
	u32 usize;
	int ret;

	ret = mt_copy_sized(&st, sizeof(st), MEMTRACE_EVSTATS_SIZE_VER0, arg);
	if (ret)
		return ret;
	/* What the caller's structure holds, no more. */
	usize = min_t(u32, st.size, sizeof(st));
	memset(&st, 0, sizeof(st));
	st.size = usize;
	mt_lock();
	ret = READ_ONCE(mt.owner) == file ? 0 : -EPERM;
	/* Only the families of this session: each resets its counts when attached. */
	if (!ret && (mt.attached & MEMTRACE_EV_PRESSURE))
		st.probe_missed = mt_pressure_missed();
	if (!ret && (mt.attached & MEMTRACE_EV_GROWTH))
		mt_growth_stats(&st);
	if (!ret && (mt.attached & MEMTRACE_EV_USDT))
		mt_usdt_stats(&st);
	mt_unlock();
	if (ret)
		return ret;
	return copy_to_user(arg, &st, usize) ? -EFAULT : 0;
}

static long mt_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct mt_file *f = file->private_data;
	void __user *uarg = (void __user *)arg;
	long ret;

	if (!mt_may_trace())
		return -EPERM;
	/* The handshake's structure has a fixed layout: its number, exactly. */
	if (cmd == MEMTRACE_IOC_VERSION)
		return mt_ioctl_version(f, uarg);
	if (!READ_ONCE(f->handshake_done))
		return -EPROTO;

	switch (MT_IOC_KEY(cmd)) {
	case MT_IOC_KEY(MEMTRACE_IOC_CONFIG):
		return mt_ioctl_config(file, uarg);
	case MT_IOC_KEY(MEMTRACE_IOC_START):
		mt_lock();
		ret = mt_start(file);
		mt_unlock();
		return ret;
	case MT_IOC_KEY(MEMTRACE_IOC_STOP):
		mt_lock();
		ret = mt_check_owner(file) ?: mt_stop();
		mt_unlock();
		return ret;
	case MT_IOC_KEY(MEMTRACE_IOC_CLEAR):
		mt_lock();
		ret = mt_check_owner(file) ?: mt_clear();
		mt_unlock();
		return ret;
	case MT_IOC_KEY(MEMTRACE_IOC_SET_BUFFER):
		return mt_ioctl_set_buffer(f, uarg);
	case MT_IOC_KEY(MEMTRACE_IOC_TARGET):
		return mt_ioctl_target(file, uarg);
	case MT_IOC_KEY(MEMTRACE_IOC_UPROBE):
		return mt_ioctl_uprobe(file, uarg);
	case MT_IOC_KEY(MEMTRACE_IOC_SNAPSHOT):
		return mt_ioctl_snapshot(file, uarg);
	case MT_IOC_KEY(MEMTRACE_IOC_UNWIND_TABLE):
		return mt_ioctl_unwind_table(file, uarg);
	case MT_IOC_KEY(MEMTRACE_IOC_EVRING_INFO):
		return mt_ioctl_evring_info(file, uarg);
	case MT_IOC_KEY(MEMTRACE_IOC_EVRING_CONSUME):
		return mt_ioctl_evring_consume(file, uarg);
	case MT_IOC_KEY(MEMTRACE_IOC_EVSTATS):
		return mt_ioctl_evstats(file, uarg);
	case MT_IOC_KEY(MEMTRACE_IOC_USDT):
		return mt_ioctl_usdt(file, uarg);
	default:
		return -ENOTTY;
	}
}

/* Where read(2) copies trace records to, and what the reader may see. */
struct mt_trace_out {
	char __user *dst;
	struct mt_view view;
	bool as_recorded;	/* the view changes nothing */
};

static int mt_trace_copy(void *ctx, const struct memtrace_trace_rec *recs, u32 n)
{
	struct mt_trace_out *o = ctx;
	struct memtrace_trace_rec r;
	u32 i;

	if (o->as_recorded) {
		if (copy_to_user(o->dst, recs, n * sizeof(*recs)))
			return -EFAULT;
		o->dst += n * sizeof(*recs);
		return 0;
	}
	for (i = 0; i < n; i++) {
		r = recs[i];
		r.pid = mt_view_pid(&o->view, r.pid);
		if (!o->view.kaddr && !mt_kind_is_user(r.kind)) {
			r.addr = 0;
			r.caller = 0;
		}
		if (copy_to_user(o->dst + i * sizeof(r), &r, sizeof(r)))
			return -EFAULT;
	}
	o->dst += n * sizeof(r);
	return 0;
}

/*
 * Trace records (MEMTRACE_CFG_TRACE) of the caller's own session, whole
 * records only: blocks until there are some, unless O_NONBLOCK; 0 (end of
 * file) once tracing has stopped and the ring is drained, or when the
 * caller has no session.
 */
static ssize_t mt_read(struct file *file, char __user *buf, size_t len, loff_t *ppos)
{
	const size_t rec_size = sizeof(struct memtrace_trace_rec);
	struct mt_file *f = file->private_data;
	struct mt_trace_out out = { .dst = buf };
	struct mt_ring *r = &mt.ring;
	const void *owner;
	long n;
	int ret;

	if (!mt_may_trace())
		return -EPERM;
	if (!READ_ONCE(f->handshake_done))
		return -EPROTO;
	if (len < rec_size)
		return -EINVAL;
	/* Only this file makes itself the owner, and it is not closing. */
	owner = READ_ONCE(mt.owner);
	if (owner != file)
		return owner ? -EPERM : 0;
	mt_view_init(&out.view);
	out.as_recorded = out.view.kaddr && !out.view.pid_ns;
	for (;;) {
		mutex_lock(&r->read_lock);
		n = r->recs ? mt_ring_consume(r, min_t(size_t, len / rec_size, U32_MAX),
					      mt_trace_copy, &out) : -ENODATA;
		mutex_unlock(&r->read_lock);
		if (n)
			return n < 0 ? n : n * rec_size;
		if (!READ_ONCE(mt.tracing))
			return 0;
		if (file->f_flags & O_NONBLOCK)
			return -EAGAIN;
		ret = wait_event_interruptible(r->wait, mt_ring_pending(r) ||
					       !READ_ONCE(mt.tracing));
		if (ret)
			return ret;
	}
}

static __poll_t mt_poll(struct file *file, poll_table *wait)
{
	struct mt_ring *r = &mt.ring;
	struct mt_evring *er;
	bool events = false;

	if (!mt_may_trace() || READ_ONCE(mt.owner) != file)
		return EPOLLERR;
	poll_wait(file, &r->wait, wait);
	/* Event rings: records in any CPU's ring. */
	poll_wait(file, &mt.evwake.wait, wait);
	er = mt_evring_get_current();
	if (er) {
		events = mt_evring_any_pending(er);
		mt_evring_put(er);
	}
	if (events || mt_ring_pending(r))
		return EPOLLIN | EPOLLRDNORM;
	return READ_ONCE(mt.tracing) ? 0 : EPOLLHUP;
}

static void mt_vm_open(struct vm_area_struct *vma)
{
	struct mt_buf *b = vma->vm_private_data;

	refcount_inc(&b->ref);
}

static void mt_vm_close(struct vm_area_struct *vma)
{
	mt_buf_put(vma->vm_private_data);
}

static const struct vm_operations_struct mt_vm_ops = {
	.open = mt_vm_open,
	.close = mt_vm_close,
};

static void mt_evring_vm_open(struct vm_area_struct *vma)
{
	mt_evring_get(vma->vm_private_data);
}

static void mt_evring_vm_close(struct vm_area_struct *vma)
{
	mt_evring_put(vma->vm_private_data);
}

static const struct vm_operations_struct mt_evring_vm_ops = {
	.open = mt_evring_vm_open,
	.close = mt_evring_vm_close,
};

/*
 * The event rings, read-only, for the session's owner (at
 * MEMTRACE_EVRING_MMAP_OFFSET).  No mt.lock here: mmap_lock is held,
 * and mt.lock nests mmap_lock inside it.
 */
static int mt_mmap_evring(struct file *file, struct vm_area_struct *vma)
{
	unsigned long len = vma->vm_end - vma->vm_start;
	struct mt_evring *er;
	struct mt_view view;
	int ret;

	er = mt_owner_evring(file);
	if (IS_ERR(er))
		return PTR_ERR(er);
	mt_view_init(&view);
	if (er->kaddr && !view.kaddr) {
		ret = -EPERM;
		goto out;
	}
	if (len > PAGE_ALIGN(er->mem_size)) {
		ret = -EINVAL;
		goto out;
	}
	mt_vm_flags_clear(vma, VM_MAYWRITE);
	ret = remap_vmalloc_range(vma, er->mem, 0);
	if (ret)
		goto out;
	vma->vm_private_data = er;	/* the reference taken above */
	vma->vm_ops = &mt_evring_vm_ops;
	return 0;
out:
	mt_evring_put(er);
	return ret;
}

static int mt_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct mt_file *f = file->private_data;
	unsigned long len = vma->vm_end - vma->vm_start;
	struct mt_view view;
	struct mt_buf *b;
	int ret;

	if (!mt_may_trace())
		return -EPERM;
	/* Snapshots are written by the kernel only. */
	if (vma->vm_flags & VM_WRITE)
		return -EPERM;
	if (vma->vm_pgoff == MEMTRACE_EVRING_MMAP_OFFSET >> PAGE_SHIFT)
		return mt_mmap_evring(file, vma);
	mt_view_init(&view);
	mutex_lock(&f->lock);
	b = f->buf;
	if (!b) {
		ret = -ENOBUFS;
		goto out;
	}
	if (READ_ONCE(b->kaddr) && !view.kaddr) {
		ret = -EPERM;
		goto out;
	}
	if (vma->vm_pgoff || len > b->size) {
		ret = -EINVAL;
		goto out;
	}
	mt_vm_flags_clear(vma, VM_MAYWRITE);
	ret = remap_vmalloc_range(vma, b->mem, 0);
	if (ret)
		goto out;
	refcount_inc(&b->ref);
	vma->vm_private_data = b;
	vma->vm_ops = &mt_vm_ops;
out:
	mutex_unlock(&f->lock);
	return ret;
}

static const struct file_operations mt_fops = {
	.owner = THIS_MODULE,
	.open = mt_open,
	.release = mt_release,
	.read = mt_read,
	.poll = mt_poll,
	.unlocked_ioctl = mt_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = mt_mmap,
};

static struct miscdevice mt_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "memtrace",
	.fops = &mt_fops,
	.mode = 0600,
};

static int __init memtrace_init(void)
{
	int ret;

	BUILD_BUG_ON(sizeof(struct mt_live) != 40);
	ret = mt_compat_init();
	if (ret)
		return ret;
	ret = mt_tracer_init();
	if (ret) {
		pr_err("no allocation tracepoint found: %d\n", ret);
		return ret;
	}
	ret = misc_register(&mt_misc);
	if (ret) {
		mt_tracer_exit();
		return ret;
	}
	pr_info("version %s ready, events 0x%x\n", MEMTRACE_MODULE_VERSION,
		mt_available_events());
	return 0;
}

static void __exit memtrace_exit(void)
{
	misc_deregister(&mt_misc);
	mt_tracer_exit();
}

module_init(memtrace_init);
module_exit(memtrace_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("memtrace: memory leak and growth tracing without BPF");
MODULE_VERSION(MEMTRACE_MODULE_VERSION);
