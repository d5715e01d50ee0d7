// SPDX-License-Identifier: GPL-2.0
/*
 * memtrace_leaker: kernel allocations whose numbers are known, for
 * memtrace's end-to-end tests and demo.
 *
 * Writing N to /sys/module/memtrace_leaker/parameters/leak makes, from
 * the writing task, one round of:
 *   - nr_kmalloc kmalloc(kmalloc_size) in leaker_kmalloc_leak(), kept;
 *   - nr_objs objects of the module's own cache "memtrace_leaker_obj"
 *     (obj_size bytes, never merged: it has a constructor) in
 *     leaker_cache_leak(), kept;
 *   - nr_irq kmalloc(irq_size) in leaker_irq_alloc(), freed 20 ms later
 *     from an hrtimer (hard IRQ), and nr_irq more freed from a timer
 *     (softirq): those must not be reported as outstanding.
 * N rounds are made (default 1).  Writing to 'leak_pages_percpu' makes,
 * apart (the page and percpu reports are checked on their own):
 *   - nr_pages alloc_pages(page_order) in leaker_page_leak(), kept;
 *   - nr_percpu __alloc_percpu(percpu_size) in leaker_percpu_leak(), kept.
 * Writing to 'free' frees what is kept; unloading frees everything, and
 * what other test modules gave it with memtrace_leaker_adopt() (their
 * allocations left behind when they unload: leaks, for memtrace, of a
 * module that is gone).
 */
#define pr_fmt(fmt) "memtrace_leaker: " fmt

#include <linux/gfp.h>
#include <linux/hrtimer.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/timer.h>

#include "compat/compat.h"
#include "memtrace_leaker.h"

#define LEAKER_MAX_KEPT		4096
#define LEAKER_MAX_IRQ		256

static uint nr_kmalloc = 10;
module_param(nr_kmalloc, uint, 0644);
static uint kmalloc_size = 1000;	/* kmalloc-1k: 1024 bytes allocated */
module_param(kmalloc_size, uint, 0644);
static uint nr_objs = 7;
module_param(nr_objs, uint, 0644);
static uint obj_size = 200;
module_param(obj_size, uint, 0444);
static uint nr_irq = 5;
module_param(nr_irq, uint, 0644);
static uint irq_size = 3000;		/* kmalloc-4k */
module_param(irq_size, uint, 0644);

static uint nr_pages = 3;
module_param(nr_pages, uint, 0644);
static uint page_order = 2;		/* 16 KiB each */
module_param(page_order, uint, 0644);
static uint nr_percpu = 4;
module_param(nr_percpu, uint, 0644);
static uint percpu_size = 64;
module_param(percpu_size, uint, 0644);

#define LEAKER_MAX_PAGES	64
static struct page *kept_pages[LEAKER_MAX_PAGES];
static uint kept_page_order[LEAKER_MAX_PAGES];
static uint nr_kept_pages;
static void __percpu *kept_percpu[LEAKER_MAX_PAGES];
static uint nr_kept_percpu;

static DEFINE_MUTEX(leaker_lock);

#define LEAKER_MAX_ADOPTED	64
static void *adopted[LEAKER_MAX_ADOPTED];
static uint nr_adopted;
static DEFINE_SPINLOCK(adopt_lock);

void memtrace_leaker_adopt(void *obj)
{
	spin_lock(&adopt_lock);
	if (nr_adopted < LEAKER_MAX_ADOPTED)
		adopted[nr_adopted++] = obj;
	else
		kfree(obj);
	spin_unlock(&adopt_lock);
}
EXPORT_SYMBOL_GPL(memtrace_leaker_adopt);
static struct kmem_cache *leaker_cache;
static void *kept_kmalloc[LEAKER_MAX_KEPT];
static void *kept_objs[LEAKER_MAX_KEPT];
static uint nr_kept_kmalloc, nr_kept_objs;

/* Handed to the timers; they free under this lock. */
static DEFINE_SPINLOCK(irq_lock);
static void *hardirq_bufs[LEAKER_MAX_IRQ], *softirq_bufs[LEAKER_MAX_IRQ];
static uint nr_hardirq_bufs, nr_softirq_bufs;
static struct hrtimer leaker_hrtimer;
static struct timer_list leaker_timer;

static void leaker_obj_ctor(void *obj)
{
	memset(obj, 0, obj_size);
}

static noinline int leaker_kmalloc_leak(void)
{
	uint i;

	for (i = 0; i < nr_kmalloc && nr_kept_kmalloc < LEAKER_MAX_KEPT; i++) {
		void *p = kmalloc(kmalloc_size, GFP_KERNEL);

		if (!p)
			return -ENOMEM;
		kept_kmalloc[nr_kept_kmalloc++] = p;
	}
	return 0;
}

static noinline int leaker_cache_leak(void)
{
	uint i;

	for (i = 0; i < nr_objs && nr_kept_objs < LEAKER_MAX_KEPT; i++) {
		void *p = kmem_cache_alloc(leaker_cache, GFP_KERNEL);

		if (!p)
			return -ENOMEM;
		kept_objs[nr_kept_objs++] = p;
	}
	return 0;
}

static void leaker_free_all(void **bufs, uint *nr)
{
	while (*nr)
		kfree(bufs[--*nr]);
}

/* Hard IRQ context. */
static enum hrtimer_restart leaker_hrtimer_fn(struct hrtimer *t)
{
	unsigned long flags;

	spin_lock_irqsave(&irq_lock, flags);
	leaker_free_all(hardirq_bufs, &nr_hardirq_bufs);
	spin_unlock_irqrestore(&irq_lock, flags);
	return HRTIMER_NORESTART;
}

/* Softirq context: the hrtimer may fire on this CPU, so interrupts off. */
static void leaker_timer_fn(struct timer_list *t)
{
	unsigned long flags;

	spin_lock_irqsave(&irq_lock, flags);
	leaker_free_all(softirq_bufs, &nr_softirq_bufs);
	spin_unlock_irqrestore(&irq_lock, flags);
}

static noinline int leaker_irq_alloc(void)
{
	uint i;

	spin_lock_irq(&irq_lock);
	for (i = 0; i < nr_irq; i++) {
		void *a, *b;

		if (nr_hardirq_bufs >= LEAKER_MAX_IRQ || nr_softirq_bufs >= LEAKER_MAX_IRQ)
			break;
		a = kmalloc(irq_size, GFP_ATOMIC);
		b = kmalloc(irq_size, GFP_ATOMIC);
		if (a)
			hardirq_bufs[nr_hardirq_bufs++] = a;
		if (b)
			softirq_bufs[nr_softirq_bufs++] = b;
	}
	spin_unlock_irq(&irq_lock);
	hrtimer_start(&leaker_hrtimer, ms_to_ktime(20), HRTIMER_MODE_REL);
	mod_timer(&leaker_timer, jiffies + msecs_to_jiffies(20));
	return 0;
}

static int leaker_set_leak(const char *val, const struct kernel_param *kp)
{
	uint rounds = 1, r;
	int ret = 0;

	if (*val && *val != '\n' && kstrtouint(val, 0, &rounds))
		return -EINVAL;
	mutex_lock(&leaker_lock);
	for (r = 0; r < rounds && !ret; r++) {
		ret = leaker_kmalloc_leak();
		if (!ret)
			ret = leaker_cache_leak();
		if (!ret)
			ret = leaker_irq_alloc();
	}
	mutex_unlock(&leaker_lock);
	return ret;
}

static noinline int leaker_page_leak(void)
{
	uint i;

	for (i = 0; i < nr_pages && nr_kept_pages < LEAKER_MAX_PAGES; i++) {
		struct page *p = alloc_pages(GFP_KERNEL, page_order);

		if (!p)
			return -ENOMEM;
		kept_page_order[nr_kept_pages] = page_order;
		kept_pages[nr_kept_pages++] = p;
	}
	return 0;
}

static noinline int leaker_percpu_leak(void)
{
	uint i;

	for (i = 0; i < nr_percpu && nr_kept_percpu < LEAKER_MAX_PAGES; i++) {
		void __percpu *p = __alloc_percpu(percpu_size, sizeof(long));

		if (!p)
			return -ENOMEM;
		kept_percpu[nr_kept_percpu++] = p;
	}
	return 0;
}

static int leaker_set_leak_pages_percpu(const char *val, const struct kernel_param *kp)
{
	int ret;

	mutex_lock(&leaker_lock);
	ret = leaker_page_leak();
	if (!ret)
		ret = leaker_percpu_leak();
	mutex_unlock(&leaker_lock);
	return ret;
}

static const struct kernel_param_ops leaker_leak_pages_percpu_ops = {
	.set = leaker_set_leak_pages_percpu,
};
module_param_cb(leak_pages_percpu, &leaker_leak_pages_percpu_ops, NULL, 0200);

static const struct kernel_param_ops leaker_leak_ops = {
	.set = leaker_set_leak,
};
module_param_cb(leak, &leaker_leak_ops, NULL, 0200);

static void leaker_free_kept(void)
{
	leaker_free_all(kept_kmalloc, &nr_kept_kmalloc);
	while (nr_kept_objs)
		kmem_cache_free(leaker_cache, kept_objs[--nr_kept_objs]);
	while (nr_kept_pages) {
		nr_kept_pages--;
		__free_pages(kept_pages[nr_kept_pages], kept_page_order[nr_kept_pages]);
	}
	while (nr_kept_percpu)
		free_percpu(kept_percpu[--nr_kept_percpu]);
}

static int leaker_set_free(const char *val, const struct kernel_param *kp)
{
	mutex_lock(&leaker_lock);
	leaker_free_kept();
	mutex_unlock(&leaker_lock);
	return 0;
}

static const struct kernel_param_ops leaker_free_ops = {
	.set = leaker_set_free,
};
module_param_cb(free, &leaker_free_ops, NULL, 0200);

static int __init leaker_init(void)
{
	leaker_cache = kmem_cache_create("memtrace_leaker_obj", obj_size, 0, 0,
					 leaker_obj_ctor);
	if (!leaker_cache)
		return -ENOMEM;
	mt_hrtimer_setup(&leaker_hrtimer, leaker_hrtimer_fn, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	timer_setup(&leaker_timer, leaker_timer_fn, 0);
	return 0;
}

static void __exit leaker_exit(void)
{
	hrtimer_cancel(&leaker_hrtimer);
	mt_timer_delete_sync(&leaker_timer);
	/* The timers are gone: nothing else touches the buffers now. */
	leaker_free_all(hardirq_bufs, &nr_hardirq_bufs);
	leaker_free_all(softirq_bufs, &nr_softirq_bufs);
	leaker_free_kept();
	while (nr_adopted)
		kfree(adopted[--nr_adopted]);
	kmem_cache_destroy(leaker_cache);
}

module_init(leaker_init);
module_exit(leaker_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Known kernel allocations for memtrace tests");
