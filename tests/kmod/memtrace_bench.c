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
 * Run memtrace-read around a 'plain' run to measure memtrace.
 */
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <trace/events/kmem.h>

static uint pairs = 200000;
module_param(pairs, uint, 0644);
static uint size = 64;
module_param(size, uint, 0644);

static char result[96] = "none";
module_param_string(result, result, sizeof(result), 0444);

static void bench_empty_kmalloc(void *data, unsigned long call_site,
				const void *ptr, size_t bytes_req,
				size_t bytes_alloc, gfp_t gfp, int node)
{
}

static void bench_empty_kfree(void *data, unsigned long call_site, const void *ptr)
{
}

static noinline void *bench_alloc(size_t n)
{
	return kmalloc(n, GFP_KERNEL);
}

static u64 bench_loop(void)
{
	u64 t0 = ktime_get_ns();
	uint i;

	for (i = 0; i < pairs; i++) {
		void *p = bench_alloc(size);

		kfree(p);
		if (!(i & 1023))
			cond_resched();
	}
	return ktime_get_ns() - t0;
}

static int bench_run(const char *val, const struct kernel_param *kp)
{
	bool floor = sysfs_streq(val, "floor");
	u64 ns;
	int ret;

	if (!floor && !sysfs_streq(val, "plain"))
		return -EINVAL;
	if (!pairs)
		return -EINVAL;
	if (floor) {
		ret = register_trace_kmalloc(bench_empty_kmalloc, NULL);
		if (ret)
			return ret;
		ret = register_trace_kfree(bench_empty_kfree, NULL);
		if (ret) {
			unregister_trace_kmalloc(bench_empty_kmalloc, NULL);
			return ret;
		}
	}
	ns = bench_loop();
	if (floor) {
		unregister_trace_kfree(bench_empty_kfree, NULL);
		unregister_trace_kmalloc(bench_empty_kmalloc, NULL);
		tracepoint_synchronize_unregister();
	}
	snprintf(result, sizeof(result), "%s %u %u %llu", floor ? "floor" : "plain",
		 pairs, size, div_u64(ns, pairs));
	return 0;
}

static const struct kernel_param_ops bench_run_ops = {
	.set = bench_run,
};
module_param_cb(run, &bench_run_ops, NULL, 0200);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("kmalloc+kfree cost for memtrace benchmarks");
