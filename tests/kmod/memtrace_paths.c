// SPDX-License-Identifier: GPL-2.0
/*
 * memtrace_paths: the kernel's less common allocation and free paths, with
 * known counts, for memtrace's report truth tests
 * (tests/e2e/22-kernel-paths.sh).
 *
 * Writing anything to a parameter runs one path from the writing task;
 * what each keeps is listed with it.  'release' frees everything kept;
 * unloading frees everything too, unless 'orphan_on_unload' is set: then
 * the objects of paths_orphans() are handed to memtrace_leaker (which
 * frees them when it goes), so they outlive this module as its leak.
 *
 *   kfree_rcu      1000 kmalloc(128) freed with kfree_rcu(), 100 kmalloc(200)
 *                  with kvfree_rcu_mightsleep(): nothing kept once RCU is done
 *   cache_kfree    300 objects of paths_cache freed with kfree(): none kept
 *   bulk           64 objects by kmem_cache_alloc_bulk(), 48 freed by
 *                  kmem_cache_free_bulk(): 16 kept; 32 kmalloc(64), 24
 *                  freed by kfree_bulk(): 8 kept
 *   krealloc       kmalloc(100) resized in place to 120, kept; kmalloc(100)
 *                  moved by krealloc() to 1000 bytes, kept
 *   kvmalloc       kvmalloc(1000) and kvmalloc(8 MiB) kept, one of each
 *                  more freed with kvfree()
 *   vmalloc        20 vmalloc(40960): 5 freed with vfree(), 5 with vfree()
 *                  from interrupt context (deferred to a worker): 10 kept
 *   kmalloc_large  15 kmalloc(65536): 5 freed: 10 kept
 *   split          alloc_pages(order 3), split_page(), pieces 0 1 2 5 6
 *                  freed: 3 pages kept; alloc_pages_exact(5 pages) kept
 *   batched        32 pages, 24 freed by release_pages(): 8 kept
 *   percpu         16 __alloc_percpu(8192): kept (new chunks populated)
 *   mempool        a pool of 4 reserved objects whose allocator fails: 3
 *                  taken from the reserve, 2 given back: 1 kept by its
 *                  taker, 1 still in the reserve from the pool's creation
 *   unreachable    3 kmalloc(300) whose pointers are hidden from kmemleak:
 *                  leaks kmemleak reports; 'reclaim' frees them
 *   truth          'truth_objs' objects of the unmergeable cache
 *                  memtrace_paths_truth, on one CPU: kept
 *   alias          5 objects of memtrace_paths_alias, a cache SLUB merges
 *                  into another: kept
 *   orphans        4 kmalloc(256), made anew: kept (see orphan_on_unload)
 * At load, paths_init_alloc() (init code, freed after load) keeps 3
 * kmalloc(512).
 */
#define pr_fmt(fmt) "memtrace_paths: " fmt

#include <linux/bottom_half.h>
#include <linux/gfp.h>
#include <linux/mempool.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pagemap.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/swap.h>
#include <linux/vmalloc.h>

#include "compat/compat.h"
#include "memtrace_leaker.h"

static uint obj_size = 192;
module_param(obj_size, uint, 0444);
MODULE_PARM_DESC(obj_size, "Object size of memtrace_paths_obj (default 192)");
static uint truth_objs = 64;
module_param(truth_objs, uint, 0644);
static bool orphan_on_unload;
module_param(orphan_on_unload, bool, 0644);

#define PATHS_KEEP	64

struct paths_rcu_obj {
	struct rcu_head rcu;
	char data[128 - sizeof(struct rcu_head)];
};

static DEFINE_MUTEX(paths_lock);
static struct kmem_cache *paths_cache, *truth_cache, *alias_cache;

/* Everything kept, to be freed by 'release' or at unload. */
static void *kept_kmalloc[PATHS_KEEP], *kept_cache[PATHS_KEEP];
static void *kept_vmalloc[PATHS_KEEP], *kept_kvmalloc[PATHS_KEEP];
static uint nr_kmalloc, nr_cache, nr_vmalloc, nr_kvmalloc;
static struct page *kept_pages[PATHS_KEEP];
static uint nr_pages;
static unsigned long kept_exact;	/* alloc_pages_exact(), 5 pages */
static void __percpu *kept_percpu[PATHS_KEEP];
static uint nr_percpu;
static void **truth_objects;
static uint nr_truth;
static void *kept_alias[PATHS_KEEP];
static uint nr_alias;
static void *orphans[4];
static void *init_kept[3];

static mempool_t *pool;
static bool pool_alloc_fails;
static void *pool_taken[4];
static uint nr_pool_taken;

/* Pointers kmemleak cannot see: stored scrambled. */
#define PATHS_HIDE	0x5a5a5a5a5a5a5a5aUL
static unsigned long hidden[3];

static void keep(void **arr, uint *nr, void *p)
{
	if (p && *nr < PATHS_KEEP)
		arr[(*nr)++] = p;
	else
		kfree(p);
}

static noinline void paths_kfree_rcu(void)
{
	uint i;

	for (i = 0; i < 1000; i++) {
		struct paths_rcu_obj *o = kmalloc(sizeof(*o), GFP_KERNEL);

		if (o)
			kfree_rcu(o, rcu);
	}
	for (i = 0; i < 100; i++) {
		void *p = kmalloc(200, GFP_KERNEL);

		if (p)
			kvfree_rcu_mightsleep(p);
	}
}

static noinline void paths_cache_kfree(void)
{
	static void *objs[300];	/* under paths_lock */
	uint i;

	for (i = 0; i < ARRAY_SIZE(objs); i++)
		objs[i] = kmem_cache_alloc(paths_cache, GFP_KERNEL);
	/* Legal: kfree() knows an object's cache. */
	for (i = 0; i < ARRAY_SIZE(objs); i++)
		kfree(objs[i]);
}

static noinline void paths_alloc_bulk(void)
{
	void *objs[64];
	int n, i;

	n = mt_kmem_cache_alloc_bulk(paths_cache, GFP_KERNEL, ARRAY_SIZE(objs), objs);
	if (n != ARRAY_SIZE(objs)) {
		pr_warn("kmem_cache_alloc_bulk gave %d\n", n);
		if (n > 0)
			kmem_cache_free_bulk(paths_cache, n, objs);
		return;
	}
	kmem_cache_free_bulk(paths_cache, 48, objs + 16);
	for (i = 0; i < 16; i++)
		keep(kept_cache, &nr_cache, objs[i]);
}

static noinline void paths_kfree_bulk(void)
{
	void *objs[32];
	uint i;

	for (i = 0; i < ARRAY_SIZE(objs); i++)
		objs[i] = kmalloc(64, GFP_KERNEL);
	kfree_bulk(24, objs + 8);
	for (i = 0; i < 8; i++)
		keep(kept_kmalloc, &nr_kmalloc, objs[i]);
}

static noinline void *paths_krealloc_alloc(void)
{
	return kmalloc(100, GFP_KERNEL);
}

static noinline void paths_krealloc(void)
{
	void *p = paths_krealloc_alloc(), *q = paths_krealloc_alloc(), *r;

	/* kmalloc-128 holds 120 bytes: resized in place. */
	r = krealloc(p, 120, GFP_KERNEL);
	if (r != p)
		pr_warn("krealloc(120) moved the object\n");
	keep(kept_kmalloc, &nr_kmalloc, r ?: p);
	/* 1000 bytes do not fit: a new object, the old one freed. */
	r = krealloc(q, 1000, GFP_KERNEL);
	keep(kept_kmalloc, &nr_kmalloc, r ?: q);
}

static noinline void paths_kvmalloc(void)
{
	/* Past KMALLOC_MAX_SIZE kvmalloc() goes to vmalloc whatever memory is free. */
	const size_t big = 8 << 20;

	kvfree(kvmalloc(1000, GFP_KERNEL));
	kvfree(kvmalloc(big, GFP_KERNEL));
	if (nr_kvmalloc + 2 <= PATHS_KEEP) {
		kept_kvmalloc[nr_kvmalloc++] = kvmalloc(1000, GFP_KERNEL);
		kept_kvmalloc[nr_kvmalloc++] = kvmalloc(big, GFP_KERNEL);
	}
}

static noinline void paths_vmalloc(void)
{
	void *p[20];
	uint i;

	for (i = 0; i < ARRAY_SIZE(p); i++)
		p[i] = vmalloc(40960);
	for (i = 0; i < 5; i++)
		vfree(p[i]);
	/* In interrupt context (bottom halves off) vfree() defers to a worker. */
	for (i = 5; i < 10; i++) {
		local_bh_disable();
		vfree(p[i]);
		local_bh_enable();
	}
	for (i = 10; i < ARRAY_SIZE(p) && nr_vmalloc < PATHS_KEEP; i++)
		kept_vmalloc[nr_vmalloc++] = p[i];
}

static noinline void paths_kmalloc_large(void)
{
	void *p[15];
	uint i;

	for (i = 0; i < ARRAY_SIZE(p); i++)
		p[i] = kmalloc(65536, GFP_KERNEL);
	for (i = 0; i < 5; i++)
		kfree(p[i]);
	for (i = 5; i < ARRAY_SIZE(p); i++)
		keep(kept_kmalloc, &nr_kmalloc, p[i]);
}

static void keep_page(struct page *page)
{
	if (page && nr_pages < PATHS_KEEP)
		kept_pages[nr_pages++] = page;
	else if (page)
		__free_page(page);
}

static noinline void paths_split(void)
{
	static const int freed[] = { 0, 1, 2, 5, 6 }, kept[] = { 3, 4, 7 };
	struct page *page = alloc_pages(GFP_KERNEL, 3);
	uint i;

	if (!page)
		return;
	split_page(page, 3);
	for (i = 0; i < ARRAY_SIZE(freed); i++)
		__free_page(page + freed[i]);
	for (i = 0; i < ARRAY_SIZE(kept); i++)
		keep_page(page + kept[i]);
	if (!kept_exact)
		kept_exact = (unsigned long)alloc_pages_exact(5 * PAGE_SIZE, GFP_KERNEL);
}

static noinline void paths_batched(void)
{
	struct page *pages[32];
	uint i, n = 0;

	for (i = 0; i < ARRAY_SIZE(pages); i++) {
		pages[n] = alloc_page(GFP_KERNEL);
		if (pages[n])
			n++;
	}
	if (n < 8) {
		while (n)
			__free_page(pages[--n]);
		return;
	}
	/* Freed as a list: mm_page_free per page, then mm_page_free_batched. */
	release_pages(pages + 8, n - 8);
	for (i = 0; i < 8; i++)
		keep_page(pages[i]);
}

static noinline void paths_percpu(void)
{
	uint i;

	for (i = 0; i < 16 && nr_percpu < PATHS_KEEP; i++) {
		void __percpu *p = __alloc_percpu(8192, 8);

		if (p)
			kept_percpu[nr_percpu++] = p;
	}
}

static void *paths_pool_alloc(gfp_t gfp, void *data)
{
	return READ_ONCE(pool_alloc_fails) ? NULL : kmem_cache_alloc(data, gfp);
}

static void paths_pool_free(void *element, void *data)
{
	kmem_cache_free(data, element);
}

static noinline void paths_mempool_take(void)
{
	uint i;

	for (i = 0; i < 3 && nr_pool_taken < ARRAY_SIZE(pool_taken); i++) {
		void *e = mempool_alloc(pool, GFP_NOWAIT);

		if (e)
			pool_taken[nr_pool_taken++] = e;
	}
}

static noinline void paths_mempool(void)
{
	if (pool)
		return;
	/* Four objects reserved now, from here. */
	pool = mempool_create(4, paths_pool_alloc, paths_pool_free, paths_cache);
	if (!pool)
		return;
	WRITE_ONCE(pool_alloc_fails, true);
	paths_mempool_take();
	/* The reserve is short: these two go back into it. */
	while (nr_pool_taken > 1)
		mempool_free(pool_taken[--nr_pool_taken], pool);
}

static noinline void paths_unreachable(void)
{
	uint i;

	for (i = 0; i < ARRAY_SIZE(hidden); i++)
		if (!hidden[i])
			hidden[i] = (unsigned long)kmalloc(300, GFP_KERNEL) ^ PATHS_HIDE;
}

static void paths_reclaim(void)
{
	uint i;

	for (i = 0; i < ARRAY_SIZE(hidden); i++) {
		if (hidden[i])
			kfree((void *)(hidden[i] ^ PATHS_HIDE));
		hidden[i] = 0;
	}
}

/*
 * Full slabs only, on one CPU: then /proc/slabinfo's active objects grow
 * by exactly truth_objs when it is a multiple of the objects per slab.
 */
static noinline void paths_truth(void)
{
	uint i, n = min_t(uint, truth_objs, 4096);

	if (truth_objects)
		return;
	truth_objects = kcalloc(n, sizeof(*truth_objects), GFP_KERNEL);
	if (!truth_objects)
		return;
	/*
	 * On one CPU's slabs, but preemptible: PREEMPT_RT's allocator takes
	 * sleeping locks, which get_cpu() would forbid.
	 */
	migrate_disable();
	for (i = 0; i < n; i++) {
		truth_objects[i] = kmem_cache_alloc(truth_cache, GFP_KERNEL);
		if (truth_objects[i])
			nr_truth++;
	}
	migrate_enable();
}

static noinline void paths_alias(void)
{
	uint i;

	for (i = 0; i < 5 && nr_alias < PATHS_KEEP; i++)
		kept_alias[nr_alias++] = kmem_cache_alloc(alias_cache, GFP_KERNEL);
}

/* A fresh set each time, so a session sees them allocated. */
static noinline void paths_orphans(void)
{
	uint i;

	for (i = 0; i < ARRAY_SIZE(orphans); i++) {
		kfree(orphans[i]);
		orphans[i] = kmalloc(256, GFP_KERNEL);
	}
}

static void paths_release(void)
{
	uint i;

	while (nr_kmalloc)
		kfree(kept_kmalloc[--nr_kmalloc]);
	while (nr_cache)
		kmem_cache_free(paths_cache, kept_cache[--nr_cache]);
	while (nr_vmalloc)
		vfree(kept_vmalloc[--nr_vmalloc]);
	while (nr_kvmalloc)
		kvfree(kept_kvmalloc[--nr_kvmalloc]);
	while (nr_pages)
		__free_page(kept_pages[--nr_pages]);
	if (kept_exact)
		free_pages_exact((void *)kept_exact, 5 * PAGE_SIZE);
	kept_exact = 0;
	while (nr_percpu)
		free_percpu(kept_percpu[--nr_percpu]);
	if (truth_objects) {
		for (i = 0; i < nr_truth; i++)
			kmem_cache_free(truth_cache, truth_objects[i]);
		kfree(truth_objects);
		truth_objects = NULL;
		nr_truth = 0;
	}
	while (nr_alias)
		kmem_cache_free(alias_cache, kept_alias[--nr_alias]);
	if (pool) {
		while (nr_pool_taken)
			mempool_free(pool_taken[--nr_pool_taken], pool);
		WRITE_ONCE(pool_alloc_fails, false);
		mempool_destroy(pool);
		pool = NULL;
	}
	paths_reclaim();
}

/* One write-only parameter per path, run under paths_lock. */
#define PATHS_TRIGGER(name, fn)						\
static int paths_set_##name(const char *val, const struct kernel_param *kp) \
{									\
	mutex_lock(&paths_lock);					\
	fn();								\
	mutex_unlock(&paths_lock);					\
	return 0;							\
}									\
static const struct kernel_param_ops paths_##name##_ops = {		\
	.set = paths_set_##name,					\
};									\
module_param_cb(name, &paths_##name##_ops, NULL, 0200)

static void paths_bulk(void)
{
	paths_alloc_bulk();
	paths_kfree_bulk();
}

PATHS_TRIGGER(kfree_rcu, paths_kfree_rcu);
PATHS_TRIGGER(cache_kfree, paths_cache_kfree);
PATHS_TRIGGER(bulk, paths_bulk);
PATHS_TRIGGER(krealloc, paths_krealloc);
PATHS_TRIGGER(kvmalloc, paths_kvmalloc);
PATHS_TRIGGER(vmalloc, paths_vmalloc);
PATHS_TRIGGER(kmalloc_large, paths_kmalloc_large);
PATHS_TRIGGER(split, paths_split);
PATHS_TRIGGER(batched, paths_batched);
PATHS_TRIGGER(percpu, paths_percpu);
PATHS_TRIGGER(mempool, paths_mempool);
PATHS_TRIGGER(unreachable, paths_unreachable);
PATHS_TRIGGER(reclaim, paths_reclaim);
PATHS_TRIGGER(truth, paths_truth);
PATHS_TRIGGER(alias, paths_alias);
PATHS_TRIGGER(orphans, paths_orphans);
PATHS_TRIGGER(release, paths_release);

static void paths_obj_ctor(void *obj)
{
}

/* Init code: freed once the module is loaded, its allocations kept. */
static noinline __init void paths_init_alloc(void)
{
	uint i;

	for (i = 0; i < ARRAY_SIZE(init_kept); i++)
		init_kept[i] = kmalloc(512, GFP_KERNEL);
}

static int __init paths_init(void)
{
	/* A constructor keeps SLUB from merging these two. */
	paths_cache = kmem_cache_create("memtrace_paths_obj", obj_size, 0, 0,
					paths_obj_ctor);
	truth_cache = kmem_cache_create("memtrace_paths_truth", 200, 0, 0,
					paths_obj_ctor);
	/* No constructor, no flags: SLUB merges it into a cache of its size. */
	alias_cache = kmem_cache_create("memtrace_paths_alias", 96, 0, 0, NULL);
	if (!paths_cache || !truth_cache || !alias_cache) {
		kmem_cache_destroy(paths_cache);
		kmem_cache_destroy(truth_cache);
		kmem_cache_destroy(alias_cache);
		return -ENOMEM;
	}
	paths_init_alloc();
	return 0;
}

static void __exit paths_exit(void)
{
	uint i;

	paths_release();
	for (i = 0; i < ARRAY_SIZE(init_kept); i++)
		kfree(init_kept[i]);
	for (i = 0; i < ARRAY_SIZE(orphans); i++) {
		if (orphan_on_unload)
			memtrace_leaker_adopt(orphans[i]);
		else
			kfree(orphans[i]);
	}
	kmem_cache_destroy(paths_cache);
	kmem_cache_destroy(truth_cache);
	kmem_cache_destroy(alias_cache);
}

module_init(paths_init);
module_exit(paths_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Kernel allocation and free paths with known counts, for memtrace tests");
