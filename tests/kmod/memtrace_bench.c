// SPDX-License-Identifier: GPL-2.0
/*
 * memtrace_bench: the cost of a kmalloc+kfree pair, measured in the kernel
 * for `make bench`.
 *
 *   echo plain > /sys/module/memtrace_bench/parameters/run
 *	time 'pairs' kmalloc(size)+kfree pairs as they are;
 *   echo floor > .../run
 *	the same with an empty probe registered on kmalloc and kfree: the
 *	least any tracepoint-based tracer can cost (the floor);
 *   cat .../result
 *	"<mode> <pairs> <size> <ns per pair>"
 *   echo 1 > .../use_cache
 *	pairs of kmem_cache_alloc+kmem_cache_free from a cache of the module's
 *	own, of 'size' bytes, instead of kmalloc+kfree (the floor then probes
 *	the kmem_cache tracepoints too)
 * Run memtrace-read around a 'plain' run to measure memtrace.
 *   echo paced > .../run
 *	the same pairs at 'rate' events a second (two a pair: the kmalloc
 *	and the kfree), each pair due at its time from the start and the
 *	loop spinning until it is (one as soon as possible when late), for
 *	a trace reader's losses at a known rate (tests/bench/trace-pairs.sh);
 *	result: "paced <pairs> <size> <ns per pair> <events/s achieved>"
 *
 * Scale (tests/bench/scale.sh): objects kept live, chained through their
 * first word (no memory besides the objects themselves):
 *   echo hold:N > .../run
 *	kmalloc(size, GFP_KERNEL) N more objects and keep them;
 *   echo stacks:N > .../run
 *	the same, each from a different call path (N <= 2^17): a chain of
 *	17 calls, each to one of two functions chosen by a bit of the
 *	object's number, so that every object has its own stack;
 *   echo release > .../run
 *	kfree every object kept;
 *   result: "<mode> <objects> <size> <ns per object> <ns in all>"
 *
 * User mode's floor, for a program timing its own malloc+free pairs:
 *   echo 'PATH OFFSET[:ret] ...' > .../uprobe_arm
 *	registers an empty uprobe at each file OFFSET of PATH, and with
 *	":ret" an empty return probe too (as memtrace probes malloc: entry
 *	and return; free: entry); ":site": OFFSET is a ret instruction,
 *	which the handler performs itself, as memtrace's return-site
 *	probes do (no single step).  The filter takes every address space:
 *	every process that runs the code traps;
 *   echo off > .../uprobe_arm
 *	unregisters them (module exit does too).
 */
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/namei.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/ptrace.h>
#include <linux/uaccess.h>
#include <trace/events/kmem.h>

#include "compat/compat.h"

static uint pairs = 200000;
module_param(pairs, uint, 0644);
static uint size = 64;
module_param(size, uint, 0644);
static bool use_cache;
module_param(use_cache, bool, 0644);
static uint rate = 1000000;
module_param(rate, uint, 0644);

static struct kmem_cache *bench_cache;
static uint bench_cache_size;

static char result[128] = "none";
module_param_string(result, result, sizeof(result), 0444);

/* The kernel's own prototypes (kmod/compat.h). */
static void bench_empty_kmalloc(MT_TP_KMALLOC_ARGS)
{
}

static void bench_empty_kfree(void *data, unsigned long call_site, const void *ptr)
{
}

static void bench_empty_cache_alloc(MT_TP_CACHE_ALLOC_ARGS)
{
}

static void bench_empty_cache_free(MT_TP_CACHE_FREE_ARGS)
{
}

static noinline void *bench_alloc(size_t n)
{
	return use_cache ? kmem_cache_alloc(bench_cache, GFP_KERNEL) : kmalloc(n, GFP_KERNEL);
}

static void bench_free(void *p)
{
	if (use_cache)
		kmem_cache_free(bench_cache, p);
	else
		kfree(p);
}

/* The cache for use_cache, of the current size. */
static int bench_cache_ready(void)
{
	if (bench_cache && bench_cache_size == size)
		return 0;
	kmem_cache_destroy(bench_cache);
	bench_cache = kmem_cache_create("memtrace_bench_obj", size, 0, 0, NULL);
	bench_cache_size = bench_cache ? size : 0;
	return bench_cache ? 0 : -ENOMEM;
}

static u64 bench_loop(void)
{
	u64 t0 = ktime_get_ns();
	uint i;

	for (i = 0; i < pairs; i++) {
		void *p = bench_alloc(size);

		bench_free(p);
		if (!(i & 1023))
			cond_resched();
	}
	return ktime_get_ns() - t0;
}

/* bench_loop() at 'rate' events a second, two a pair. */
static u64 bench_paced(void)
{
	u64 t0 = ktime_get_ns();
	uint i;

	for (i = 0; i < pairs; i++) {
		u64 due = t0 + div_u64((u64)i * 2 * NSEC_PER_SEC, rate);

		while (ktime_get_ns() < due)
			cond_resched();
		bench_free(bench_alloc(size));
		if (!(i & 1023))
			cond_resched();
	}
	return ktime_get_ns() - t0;
}

/* The objects kept by hold and stacks; each one's first word links the next. */
static void **bench_held;
static u64 bench_nr_held;

#define BENCH_PATH_BITS	17

static noinline void *bench_path_a(uint level, uint i);
static noinline void *bench_path_b(uint level, uint i);
static uint bench_path_calls[2];

/* Levels above 0 call a or b by bit level - 1 of i; level 0 allocates. */
static __always_inline void *bench_path_next(uint level, uint i)
{
	if (!level)
		return kmalloc(size, GFP_KERNEL);
	if ((i >> (level - 1)) & 1)
		return bench_path_a(level - 1, i);
	return bench_path_b(level - 1, i);
}

/*
 * Two functions that differ (so that the compiler keeps both) and whose
 * calls are no tail calls (the barrier after them): each level leaves a
 * return address into a or b on the stack.
 */
static noinline void *bench_path_a(uint level, uint i)
{
	void *p = bench_path_next(level, i);

	barrier();
	WRITE_ONCE(bench_path_calls[0], bench_path_calls[0] + 1);
	return p;
}

static noinline void *bench_path_b(uint level, uint i)
{
	void *p = bench_path_next(level, i);

	barrier();
	WRITE_ONCE(bench_path_calls[1], bench_path_calls[1] + 1);
	return p;
}

/* Keep n more objects, each from its own stack if 'paths'. */
static int bench_hold(u64 n, bool paths, u64 *ns)
{
	u64 t0 = ktime_get_ns(), i;
	int ret = 0;

	for (i = 0; i < n; i++) {
		void **p = paths ? bench_path_next(BENCH_PATH_BITS, i) : bench_alloc(size);

		if (!p) {
			ret = -ENOMEM;
			break;
		}
		*p = bench_held;
		bench_held = p;
		bench_nr_held++;
		if (!(i & 1023))
			cond_resched();
	}
	*ns = ktime_get_ns() - t0;
	return ret;
}

static u64 bench_release(void)
{
	u64 t0 = ktime_get_ns(), i = 0;

	while (bench_held) {
		void **p = bench_held;

		bench_held = *p;
		kfree(p);
		if (!(++i & 1023))
			cond_resched();
	}
	bench_nr_held = 0;
	return ktime_get_ns() - t0;
}

static int bench_scale(const char *val)
{
	bool paths = false;
	u64 n, ns;
	int ret;

	if (sysfs_streq(val, "release")) {
		n = bench_nr_held;
		ns = bench_release();
		snprintf(result, sizeof(result), "release %llu %u %llu %llu", n, size,
			 n ? div64_u64(ns, n) : 0, ns);
		return 0;
	}
	if (!strncmp(val, "stacks:", 7)) {
		paths = true;
		val += 7;
	} else if (!strncmp(val, "hold:", 5)) {
		val += 5;
	} else {
		return -EINVAL;
	}
	ret = kstrtou64(val, 0, &n);
	if (ret)
		return ret;
	if (!n || size < sizeof(void *) || (paths && n > (1U << BENCH_PATH_BITS)))
		return -EINVAL;
	ret = bench_hold(n, paths, &ns);
	snprintf(result, sizeof(result), "%s %llu %u %llu %llu", paths ? "stacks" : "hold",
		 n, size, div64_u64(ns, n), ns);
	return ret;
}

static void bench_floor_unregister(void)
{
	unregister_trace_kmem_cache_free(bench_empty_cache_free, NULL);
	unregister_trace_kmem_cache_alloc(bench_empty_cache_alloc, NULL);
	unregister_trace_kfree(bench_empty_kfree, NULL);
	unregister_trace_kmalloc(bench_empty_kmalloc, NULL);
	tracepoint_synchronize_unregister();
}

/* The floor: empty probes on the four tracepoints memtrace takes. */
static int bench_floor_register(void)
{
	int ret;

	ret = register_trace_kmalloc(bench_empty_kmalloc, NULL);
	if (ret)
		return ret;
	ret = register_trace_kfree(bench_empty_kfree, NULL);
	if (ret)
		goto out_kmalloc;
	ret = register_trace_kmem_cache_alloc(bench_empty_cache_alloc, NULL);
	if (ret)
		goto out_kfree;
	ret = register_trace_kmem_cache_free(bench_empty_cache_free, NULL);
	if (!ret)
		return 0;
	unregister_trace_kmem_cache_alloc(bench_empty_cache_alloc, NULL);
out_kfree:
	unregister_trace_kfree(bench_empty_kfree, NULL);
out_kmalloc:
	unregister_trace_kmalloc(bench_empty_kmalloc, NULL);
	tracepoint_synchronize_unregister();
	return ret;
}

static int bench_run(const char *val, const struct kernel_param *kp)
{
	bool floor = sysfs_streq(val, "floor"), paced = sysfs_streq(val, "paced");
	u64 ns;
	int ret;

	if (!floor && !paced && !sysfs_streq(val, "plain"))
		return bench_scale(val);
	if (!pairs || !size || (paced && !rate))
		return -EINVAL;
	if (use_cache) {
		ret = bench_cache_ready();
		if (ret)
			return ret;
	}
	if (floor) {
		ret = bench_floor_register();
		if (ret)
			return ret;
	}
	if (paced) {
		ns = bench_paced();
		snprintf(result, sizeof(result), "paced %u %u %llu %llu", pairs, size,
			 div_u64(ns, pairs), div64_u64((u64)pairs * 2 * NSEC_PER_SEC, ns ?: 1));
		return 0;
	}
	ns = bench_loop();
	if (floor)
		bench_floor_unregister();
	snprintf(result, sizeof(result), "%s %u %u %llu", floor ? "floor" : "plain",
		 pairs, size, div_u64(ns, pairs));
	return 0;
}

static const struct kernel_param_ops bench_run_ops = {
	.set = bench_run,
};
module_param_cb(run, &bench_run_ops, NULL, 0200);

#ifdef CONFIG_UPROBES
#define BENCH_MAX_UPROBES	16

static struct bench_uprobe {
	struct uprobe_consumer uc;
	struct mt_uprobe_handle handle;
} bench_uprobes[BENCH_MAX_UPROBES];
static unsigned int bench_nr_uprobes;
static struct path bench_uprobe_path;	/* the probed file, held while probed */
static DEFINE_MUTEX(bench_uprobe_lock);

static int bench_uprobe_handler(MT_UPROBE_HANDLER_ARGS)
{
	return 0;
}

/* ":site": the probe is on a ret instruction, which the handler performs (as memtrace's). */
static int bench_usite_handler(MT_UPROBE_HANDLER_ARGS)
{
	unsigned long sp = user_stack_pointer(regs), ra;

	if (!get_user(ra, (const unsigned long __user *)sp)) {
		instruction_pointer_set(regs, ra);
		user_stack_pointer_set(regs, sp + sizeof(ra));
	}
	return 0;
}

static int bench_uretprobe_handler(MT_URETPROBE_HANDLER_ARGS)
{
	return 0;
}

static bool bench_uprobe_filter(MT_UPROBE_FILTER_ARGS)
{
	return true;
}

/* Under bench_uprobe_lock. */
static void bench_uprobe_disarm(void)
{
	unsigned int i;

	if (!bench_uprobe_path.dentry)
		return;
	for (i = 0; i < bench_nr_uprobes; i++)
		mt_uprobe_unregister_nosync(&bench_uprobes[i].handle, &bench_uprobes[i].uc);
	if (bench_nr_uprobes)
		mt_uprobe_unregister_sync();
	bench_nr_uprobes = 0;
	path_put(&bench_uprobe_path);
	bench_uprobe_path = (struct path) {};
}

/* One "OFFSET[:ret|:site]" of PATH; under bench_uprobe_lock. */
static int bench_uprobe_add(char *tok)
{
	struct bench_uprobe *up;
	char *suffix = strchr(tok, ':');
	bool site = false;
	u64 offset;
	int ret;

	if (suffix) {
		*suffix++ = '\0';
		site = !strcmp(suffix, "site");
		if (strcmp(suffix, "ret") && !site)
			return -EINVAL;
	}
	ret = kstrtou64(tok, 0, &offset);
	if (ret)
		return ret;
	if (bench_nr_uprobes == BENCH_MAX_UPROBES)
		return -E2BIG;
	up = &bench_uprobes[bench_nr_uprobes];
	up->uc = (struct uprobe_consumer) {
		.handler = site ? bench_usite_handler : bench_uprobe_handler,
		.ret_handler = suffix && !site ? bench_uretprobe_handler : NULL,
		.filter = bench_uprobe_filter,
	};
	ret = mt_uprobe_register(d_inode(bench_uprobe_path.dentry), offset, &up->uc,
				 &up->handle);
	if (ret)
		return ret;
	bench_nr_uprobes++;
	return 0;
}

static int bench_uprobe_arm(const char *val, const struct kernel_param *kp)
{
	char *buf, *s, *tok;
	int ret;

	buf = kstrdup(val, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	s = strim(buf);
	mutex_lock(&bench_uprobe_lock);
	bench_uprobe_disarm();
	ret = 0;
	if (!strcmp(s, "off"))
		goto out;
	tok = strsep(&s, " ");
	ret = kern_path(tok, LOOKUP_FOLLOW, &bench_uprobe_path);
	if (ret)
		goto out;
	ret = -EINVAL;
	if (!d_is_reg(bench_uprobe_path.dentry))
		goto fail;
	while ((tok = strsep(&s, " "))) {
		if (!*tok)
			continue;
		ret = bench_uprobe_add(tok);
		if (ret)
			goto fail;
	}
	if (bench_nr_uprobes)
		goto out;
	ret = -EINVAL;		/* no offset */
fail:
	bench_uprobe_disarm();
out:
	mutex_unlock(&bench_uprobe_lock);
	kfree(buf);
	return ret;
}

static void bench_uprobe_exit(void)
{
	mutex_lock(&bench_uprobe_lock);
	bench_uprobe_disarm();
	mutex_unlock(&bench_uprobe_lock);
}
#else
static int bench_uprobe_arm(const char *val, const struct kernel_param *kp)
{
	return -EOPNOTSUPP;
}

static void bench_uprobe_exit(void)
{
}
#endif /* CONFIG_UPROBES */

static const struct kernel_param_ops bench_uprobe_arm_ops = {
	.set = bench_uprobe_arm,
};
module_param_cb(uprobe_arm, &bench_uprobe_arm_ops, NULL, 0200);

static void __exit bench_exit(void)
{
	bench_uprobe_exit();
	bench_release();
	kmem_cache_destroy(bench_cache);
}
module_exit(bench_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kmalloc+kfree cost for memtrace benchmarks");
