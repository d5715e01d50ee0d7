// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suites for memtrace's in-kernel data structures: the stack table,
 * the kernel stack memo, the live-allocation index, the per-CPU counters,
 * the name tables, the names of freed module code, the sampling
 * arithmetic, user mode's table of calls in flight and the trace ring.
 * Built as its own module (memtrace_kunit.ko) from the same sources as
 * memtrace.ko, for kernels with KUnit; evring_kunit.c and unwind_kunit.c
 * are linked into it.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/prandom.h>
#include <linux/smp.h>
#include <linux/workqueue.h>

#include "tables/stacktab.c"
#include "unwind/kstack.c"
#include "tables/livetab.c"
#include "tables/stattab.c"
#include "tables/names.c"
#include "session/sampling.c"
#include "tables/calltab.c"
#include "rings/tracering.c"
#include "tables/modsyms.c"

/* ---- stack table ---- */

static void mt_test_stack_dedup(struct kunit *test)
{
	unsigned long a[] = { 0x1000, 0x2000, 0x3000 }, b[] = { 0x1000, 0x2000 };
	struct mt_stacktab t;
	const struct mt_stack *s;
	u32 ia, ib;

	KUNIT_ASSERT_EQ(test, mt_stacktab_init(&t, PAGE_SIZE * 4, 64), 0);
	ia = mt_stacktab_intern(&t, a, 3);
	ib = mt_stacktab_intern(&t, b, 2);
	KUNIT_EXPECT_NE(test, ia, 0U);
	KUNIT_EXPECT_NE(test, ib, 0U);
	KUNIT_EXPECT_NE(test, ia, ib);
	KUNIT_EXPECT_EQ(test, mt_stacktab_intern(&t, a, 3), ia);
	KUNIT_EXPECT_EQ(test, t.nr_stacks, 2U);
	s = mt_stacktab_get(&t, ia);
	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_EXPECT_EQ(test, s->nr_frames, 3U);
	KUNIT_EXPECT_EQ(test, s->ip[2], 0x3000UL);
	KUNIT_EXPECT_NULL(test, mt_stacktab_get(&t, 0));
	KUNIT_EXPECT_NULL(test, mt_stacktab_get(&t, 100000));
	mt_stacktab_destroy(&t);
}

/*
 * Code freed under a stack retires it: the same frames stored later (other
 * code at those addresses now) get a new record of the new epoch, while
 * the old record keeps its id, frames and epoch; stacks elsewhere stay.
 */
static void mt_test_stack_code_freed(struct kunit *test)
{
	unsigned long in[] = { 0x5010, 0x9000 }, out[] = { 0x7000, 0x9000 };
	struct mt_stacktab t;
	u32 a, b, a2;

	KUNIT_ASSERT_EQ(test, mt_stacktab_init(&t, PAGE_SIZE * 4, 64), 0);
	a = mt_stacktab_intern(&t, in, 2);
	b = mt_stacktab_intern(&t, out, 2);
	KUNIT_EXPECT_EQ(test, mt_stacktab_get(&t, a)->epoch, 0U);
	KUNIT_EXPECT_EQ(test, mt_stacktab_code_freed(&t, 0x5000, 0x6000), 1U);
	a2 = mt_stacktab_intern(&t, in, 2);
	KUNIT_EXPECT_NE(test, a2, a);
	KUNIT_EXPECT_EQ(test, mt_stacktab_get(&t, a2)->epoch, 1U);
	KUNIT_EXPECT_EQ(test, mt_stacktab_get(&t, a)->epoch, 0U);
	KUNIT_EXPECT_EQ(test, mt_stacktab_get(&t, a)->ip[0], 0x5010UL);
	KUNIT_EXPECT_EQ(test, mt_stacktab_intern(&t, in, 2), a2);
	KUNIT_EXPECT_EQ(test, mt_stacktab_intern(&t, out, 2), b);
	mt_stacktab_clear(&t);
	KUNIT_EXPECT_EQ(test, t.epoch, 0U);
	mt_stacktab_destroy(&t);
}

/* Far more stacks than buckets: every chain is long, none is lost or merged. */
static void mt_test_stack_collisions(struct kunit *test)
{
	struct mt_stacktab t;
	unsigned long ip[4];
	u32 *ids, i;

	ids = kunit_kcalloc(test, 1000, sizeof(*ids), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ids);
	KUNIT_ASSERT_EQ(test, mt_stacktab_init(&t, 1 << 20, 16), 0);
	for (i = 0; i < 1000; i++) {
		ip[0] = i;
		ip[1] = i * 7;
		ip[2] = ~0UL - i;
		ip[3] = 42;
		ids[i] = mt_stacktab_intern(&t, ip, 4);
		KUNIT_ASSERT_NE(test, ids[i], 0U);
	}
	KUNIT_EXPECT_EQ(test, t.nr_stacks, 1000U);
	for (i = 0; i < 1000; i++) {
		const struct mt_stack *s = mt_stacktab_get(&t, ids[i]);

		ip[0] = i;
		ip[1] = i * 7;
		ip[2] = ~0UL - i;
		ip[3] = 42;
		KUNIT_ASSERT_NOT_NULL(test, s);
		KUNIT_EXPECT_EQ(test, s->ip[0], (unsigned long)i);
		KUNIT_EXPECT_EQ(test, mt_stacktab_intern(&t, ip, 4), ids[i]);
	}
	mt_stacktab_destroy(&t);
}

static void mt_test_stack_full(struct kunit *test)
{
	unsigned long ip[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	struct mt_stacktab t;
	u32 first, id, n = 0;

	KUNIT_ASSERT_EQ(test, mt_stacktab_init(&t, PAGE_SIZE, 16), 0);
	first = mt_stacktab_intern(&t, ip, 8);
	KUNIT_ASSERT_NE(test, first, 0U);
	do {
		ip[0]++;
		id = mt_stacktab_intern(&t, ip, 8);
		n++;
	} while (id && n < 1000);
	KUNIT_EXPECT_EQ(test, id, (u32)MEMTRACE_STACK_NONE);
	KUNIT_EXPECT_LT(test, n, 1000U);
	/* What was stored stays valid. */
	ip[0] = 1;
	KUNIT_EXPECT_EQ(test, mt_stacktab_intern(&t, ip, 8), first);
	mt_stacktab_destroy(&t);
}

/* Every CPU interns the same 200 stacks at once: each gets one id. */
struct mt_stack_race {
	struct mt_stacktab t;
	u32 ids[NR_CPUS > 64 ? 64 : NR_CPUS][200];
	struct work_struct work[NR_CPUS > 64 ? 64 : NR_CPUS];
};

static struct mt_stack_race *mt_race;

static void mt_stack_race_fn(struct work_struct *w)
{
	int cpu = smp_processor_id() % ARRAY_SIZE(mt_race->work);
	unsigned long ip[3];
	unsigned long flags;
	int i;

	for (i = 0; i < 200; i++) {
		ip[0] = 0xabc;
		ip[1] = i;
		ip[2] = i * 3;
		local_irq_save(flags);
		mt_race->ids[cpu][i] = mt_stacktab_intern(&mt_race->t, ip, 3);
		local_irq_restore(flags);
	}
}

static void mt_test_stack_concurrent(struct kunit *test)
{
	int cpu, used = 0, i, c;

	mt_race = kunit_kzalloc(test, sizeof(*mt_race), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, mt_race);
	KUNIT_ASSERT_EQ(test, mt_stacktab_init(&mt_race->t, 1 << 20, 32), 0);
	for_each_online_cpu(cpu) {
		if (cpu >= ARRAY_SIZE(mt_race->work))
			break;
		INIT_WORK(&mt_race->work[cpu], mt_stack_race_fn);
		schedule_work_on(cpu, &mt_race->work[cpu]);
		used++;
	}
	for (c = 0; c < used; c++)
		flush_work(&mt_race->work[c]);
	KUNIT_EXPECT_EQ(test, mt_race->t.nr_stacks, 200U);
	for (c = 1; c < used; c++)
		for (i = 0; i < 200; i++)
			KUNIT_EXPECT_EQ(test, mt_race->ids[c][i], mt_race->ids[0][i]);
	mt_stacktab_destroy(&mt_race->t);
}

/* ---- kernel stacks and their memo ---- */

#define MT_KT_SITE	0x5174UL	/* in no stack: nothing is trimmed */
#define MT_KT_DEPTH	24

struct mt_kt {
	struct mt_kstack *ks;
	unsigned long *frames;
	bool hit;
};

static noinline u32 mt_kt_capture(struct mt_kt *k)
{
	unsigned long flags;
	u32 id;

	local_irq_save(flags);
	id = mt_kstack_id(k->ks, k->frames, MT_KT_SITE, MT_KT_DEPTH, &k->hit);
	local_irq_restore(flags);
	return id;
}

/* Two callers alike but for their return addresses. */
static int mt_kt_count_a, mt_kt_count_b;

static noinline u32 mt_kt_outer_a(struct mt_kt *k)
{
	u32 id = mt_kt_capture(k);

	WRITE_ONCE(mt_kt_count_a, mt_kt_count_a + 1);
	return id;
}

static noinline u32 mt_kt_outer_b(struct mt_kt *k)
{
	u32 id = mt_kt_capture(k);

	WRITE_ONCE(mt_kt_count_b, mt_kt_count_b + 1);
	return id;
}

/*
 * A frame of variable size, as the system call entry's random stack
 * offset makes: the frames below it move, and the unwinder finds its
 * caller from its frame pointer.
 */
static noinline u32 mt_kt_outer_var(struct mt_kt *k, size_t bytes)
{
	u8 *pad = __builtin_alloca(bytes);
	u32 id;

	memset(pad, 0, bytes);
	OPTIMIZER_HIDE_VAR(pad);
	id = mt_kt_capture(k);
	READ_ONCE(pad[0]);
	return id;
}

/* Two such frames: the memo takes one step through a frame pointer, not two. */
static noinline u32 mt_kt_outer_var2(struct mt_kt *k, size_t bytes)
{
	u8 *pad = __builtin_alloca(bytes);
	u32 id;

	memset(pad, 0, bytes);
	OPTIMIZER_HIDE_VAR(pad);
	id = mt_kt_outer_var(k, bytes);
	READ_ONCE(pad[0]);
	return id;
}

/*
 * The captures of a test all go through one call site here, so that their
 * stacks differ only where a test means them to.
 */
enum mt_kt_caller { MT_KT_A, MT_KT_B, MT_KT_VAR, MT_KT_VAR2 };

static noinline u32 mt_kt_call(struct mt_kt *k, enum mt_kt_caller caller, size_t bytes)
{
	switch (caller) {
	case MT_KT_A:
		return mt_kt_outer_a(k);
	case MT_KT_B:
		return mt_kt_outer_b(k);
	case MT_KT_VAR:
		return mt_kt_outer_var(k, bytes);
	default:
		return mt_kt_outer_var2(k, bytes);
	}
}

/* Does the stack of id have a frame in the function named fn? */
static bool mt_kt_stack_has(struct mt_stacktab *t, u32 id, const char *fn)
{
	const struct mt_stack *s = mt_stacktab_get(t, id);
	char sym[KSYM_SYMBOL_LEN];
	size_t len = strlen(fn);
	unsigned int i;

	for (i = 0; s && i < s->nr_frames; i++) {
		/* "name" or "name [module]" */
		snprintf(sym, sizeof(sym), "%ps", (void *)s->ip[i]);
		if (!strncmp(sym, fn, len) && (!sym[len] || sym[len] == ' '))
			return true;
	}
	return false;
}

struct mt_kt_env {
	struct mt_stacktab t;
	struct mt_kstack memo, plain;	/* the same table, with and without a memo */
	struct mt_kt k, ref;
};

static struct mt_kt_env *mt_kt_setup(struct kunit *test, u32 memo_slots)
{
	struct mt_kt_env *e = kunit_kzalloc(test, sizeof(*e), GFP_KERNEL);
	unsigned long *frames = kunit_kcalloc(test, MT_KT_DEPTH + MT_KSTACK_SLACK,
					      sizeof(*frames), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, e);
	KUNIT_ASSERT_NOT_NULL(test, frames);
	KUNIT_ASSERT_EQ(test, mt_stacktab_init(&e->t, 1 << 20, 256), 0);
	KUNIT_ASSERT_EQ(test, mt_kstack_init(&e->memo, &e->t, NULL, memo_slots), 0);
	KUNIT_ASSERT_EQ(test, mt_kstack_init(&e->plain, &e->t, NULL, 0), 0);
	e->k.ks = &e->memo;
	e->k.frames = frames;
	e->ref.ks = &e->plain;
	e->ref.frames = frames;
	return e;
}

static void mt_kt_need_memo(struct kunit *test)
{
#ifndef MT_HAVE_KSTACK_MEMO
	kunit_skip(test, "no stack memo without the ORC unwinder");
#endif
}

static void mt_kt_teardown(struct mt_kt_env *e)
{
	mt_kstack_destroy(&e->memo);
	mt_kstack_destroy(&e->plain);
	mt_stacktab_destroy(&e->t);
}

enum mt_kt_before { MT_KT_NOTHING, MT_KT_MODULE_GONE, MT_KT_CLEAR };

struct mt_kt_step {
	bool memo;			/* else unwound without one: the reference */
	enum mt_kt_caller caller;
	size_t bytes;			/* MT_KT_VAR's frame */
	enum mt_kt_before before;
	bool hit;			/* the memo is expected to answer */
};

/* Run steps; ids[i] is step i's stack id. */
static void mt_kt_run_steps(struct kunit *test, struct mt_kt_env *e,
			    const struct mt_kt_step *steps, unsigned int n, u32 *ids)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct mt_kt *k = steps[i].memo ? &e->k : &e->ref;

		if (steps[i].before == MT_KT_MODULE_GONE)
			mt_kstack_module_gone(&e->memo);
		else if (steps[i].before == MT_KT_CLEAR)
			mt_kstack_clear(&e->memo);
		ids[i] = mt_kt_call(k, steps[i].caller, steps[i].bytes);
		KUNIT_EXPECT_NE_MSG(test, ids[i], 0U, "step %u", i);
		KUNIT_EXPECT_EQ_MSG(test, k->hit, steps[i].hit, "step %u", i);
	}
}

struct mt_kt_run_args {
	struct kunit *test;
	struct mt_kt_env *e;
	const struct mt_kt_step *steps;
	unsigned int n;
	u32 *ids;
	struct completion done;
};

static int mt_kt_run_thread(void *data)
{
	struct mt_kt_run_args *a = data;

	mt_kt_run_steps(a->test, a->e, a->steps, a->n, a->ids);
	complete(&a->done);
	/* Until kthread_stop(): it waits for this function to return. */
	set_current_state(TASK_INTERRUPTIBLE);
	while (!kthread_should_stop()) {
		schedule();
		set_current_state(TASK_INTERRUPTIBLE);
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

/*
 * The steps run in a kernel thread of their own, bound to this CPU (the
 * memo is per CPU), so that what the memo sees above them is kthread()'s
 * frames only, not the KUnit runner's, which differ from kernel to kernel:
 * 7.x built for size gives kunit_try_run_case() a frame pointer, a second
 * frame-pointer step (which the memo refuses) over the one a test means.
 */
static void mt_kt_run(struct kunit *test, struct mt_kt_env *e,
		      const struct mt_kt_step *steps, unsigned int n, u32 *ids)
{
	struct mt_kt_run_args a = {
		.test = test, .e = e, .steps = steps, .n = n, .ids = ids,
	};
	struct task_struct *t;

	init_completion(&a.done);
	t = kthread_create_on_cpu(mt_kt_run_thread, &a, raw_smp_processor_id(),
				  "mt_kt_memo/%u");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	wake_up_process(t);
	wait_for_completion(&a.done);
	kthread_stop(t);
}

/*
 * One pair of slots per CPU: both callers compete for it.  Every answer
 * equals an unwind's, the memo answers repeats, and a stack that differs
 * from the memo's in one return address only is never taken for it.
 */
static void mt_test_kstack_memo_exact(struct kunit *test)
{
	static const struct mt_kt_step steps[] = {
		{ false, MT_KT_A },			/* 0: the reference stacks */
		{ false, MT_KT_B },			/* 1 */
		{ true, MT_KT_A },			/* memoized */
		{ true, MT_KT_A, .hit = true },
		{ true, MT_KT_B },			/* same site, same depth: not a's */
		{ true, MT_KT_B, .hit = true },
		{ true, MT_KT_A, .hit = true },		/* two ways: both kept */
		{ true, MT_KT_B, .hit = true },
		{ true, MT_KT_A, .before = MT_KT_MODULE_GONE },
		{ true, MT_KT_A, .hit = true },
		{ true, MT_KT_B, .before = MT_KT_CLEAR },
	};
	struct mt_kt_env *e;
	u32 ids[ARRAY_SIZE(steps)];
	unsigned int i;

	mt_kt_need_memo(test);
	e = mt_kt_setup(test, 2);
	mt_kt_run(test, e, steps, ARRAY_SIZE(steps), ids);
	KUNIT_EXPECT_NE(test, ids[0], ids[1]);
	KUNIT_EXPECT_TRUE(test, mt_kt_stack_has(&e->t, ids[0], "mt_kt_outer_a"));
	KUNIT_EXPECT_TRUE(test, mt_kt_stack_has(&e->t, ids[1], "mt_kt_outer_b"));
	KUNIT_EXPECT_FALSE(test, mt_kt_stack_has(&e->t, ids[0], "mt_kt_outer_b"));
	for (i = 2; i < ARRAY_SIZE(steps); i++)
		KUNIT_EXPECT_EQ_MSG(test, ids[i], ids[steps[i].caller == MT_KT_B], "step %u", i);
	mt_kt_teardown(e);
}

/*
 * Below a frame of variable size the stack moves; the memo still answers,
 * through that frame's pointer, with the unwinder's stack.
 */
static void mt_test_kstack_memo_variable_frame(struct kunit *test)
{
	static const struct mt_kt_step steps[] = {
		{ false, MT_KT_VAR, 64 },		/* 0: the reference */
		{ true, MT_KT_VAR, 16 },
		{ true, MT_KT_VAR, 48, .hit = true },
		{ false, MT_KT_VAR, 48 },
		{ true, MT_KT_VAR, 400, .hit = true },
		{ true, MT_KT_VAR, 16, .hit = true },
		{ false, MT_KT_VAR, 1000 },
		{ true, MT_KT_VAR, 1000, .hit = true },
	};
	struct mt_kt_env *e;
	u32 ids[ARRAY_SIZE(steps)];
	unsigned int i;

	mt_kt_need_memo(test);
	e = mt_kt_setup(test, 8);
	mt_kt_run(test, e, steps, ARRAY_SIZE(steps), ids);
	KUNIT_EXPECT_TRUE(test, mt_kt_stack_has(&e->t, ids[0], "mt_kt_outer_var"));
	for (i = 1; i < ARRAY_SIZE(steps); i++)
		KUNIT_EXPECT_EQ_MSG(test, ids[i], ids[0], "step %u", i);
	mt_kt_teardown(e);
}

/*
 * A stack the memo cannot vouch for is unwound every time, and leaves the
 * memos of its site as they were.
 */
static void mt_test_kstack_memo_refused(struct kunit *test)
{
	static const struct mt_kt_step steps[] = {
		{ false, MT_KT_VAR2, 32 },		/* 0: the reference */
		{ true, MT_KT_A },
		{ true, MT_KT_B },
		{ true, MT_KT_VAR2, 32 },
		{ true, MT_KT_VAR2, 32 },
		{ true, MT_KT_A, .hit = true },
		{ true, MT_KT_B, .hit = true },
	};
	struct mt_kt_env *e;
	u32 ids[ARRAY_SIZE(steps)];

	mt_kt_need_memo(test);
	e = mt_kt_setup(test, 2);
	mt_kt_run(test, e, steps, ARRAY_SIZE(steps), ids);
	KUNIT_EXPECT_TRUE(test, mt_kt_stack_has(&e->t, ids[0], "mt_kt_outer_var2"));
	KUNIT_EXPECT_EQ(test, ids[3], ids[0]);
	KUNIT_EXPECT_EQ(test, ids[4], ids[0]);
	KUNIT_EXPECT_NE(test, ids[1], ids[2]);
	KUNIT_EXPECT_EQ(test, ids[5], ids[1]);
	KUNIT_EXPECT_EQ(test, ids[6], ids[2]);
	mt_kt_teardown(e);
}

/* Without a memo (slots 0), every stack is unwound. */
static void mt_test_kstack_no_memo(struct kunit *test)
{
	static const struct mt_kt_step steps[] = {
		{ true, MT_KT_A }, { true, MT_KT_A }, { false, MT_KT_A },
	};
	struct mt_kt_env *e = mt_kt_setup(test, 0);
	u32 ids[ARRAY_SIZE(steps)];

	mt_kt_run(test, e, steps, ARRAY_SIZE(steps), ids);
	KUNIT_EXPECT_EQ(test, ids[1], ids[0]);
	KUNIT_EXPECT_EQ(test, ids[2], ids[0]);
	KUNIT_EXPECT_TRUE(test, mt_kt_stack_has(&e->t, ids[0], "mt_kt_capture"));
	mt_kt_teardown(e);
}

/* ---- live index ---- */

static struct mt_livetab t_one;

static struct mt_live mt_entry(unsigned long addr, u8 kind, u32 size)
{
	return (struct mt_live) {
		.addr = addr, .bytes_alloc = size, .bytes_req = size,
		.stack_id = 7, .cache_kind = MT_CACHE_KIND(3, kind),
	};
}

static enum mt_live_insert mt_insert_old(struct mt_livetab *t, unsigned long addr,
					 u8 kind, u32 size, struct mt_live *old)
{
	struct mt_live e = mt_entry(addr, kind, size);
	enum mt_live_insert ret;
	unsigned long flags;

	local_irq_save(flags);
	ret = mt_livetab_insert(t, &e, old);
	local_irq_restore(flags);
	return ret;
}

static bool mt_insert(struct mt_livetab *t, unsigned long addr, u8 kind, u32 size)
{
	struct mt_live old;

	return mt_insert_old(t, addr, kind, size, &old) != MT_LIVE_FULL;
}

static bool mt_remove(struct mt_livetab *t, unsigned long addr, u8 kind,
		      struct mt_live *out)
{
	unsigned long flags;
	bool ok;

	local_irq_save(flags);
	ok = mt_livetab_remove(t, addr, mt_kind_ns(kind), out);
	local_irq_restore(flags);
	return ok;
}

static bool mt_relabel_to_vmalloc_page(struct mt_live *e, void *arg)
{
	e->cache_kind = MT_CACHE_KIND(0, MEMTRACE_KIND_VMALLOC_PAGE);
	e->addr = 1;	/* the key is not the edit's to change */
	return false;
}

static bool mt_remove_if_big(struct mt_live *e, void *arg)
{
	return e->bytes_alloc >= *(u32 *)arg;
}

static bool mt_edit(struct mt_livetab *t, unsigned long addr, u8 kind,
		    bool (*fn)(struct mt_live *e, void *arg), void *arg,
		    struct mt_live *before)
{
	unsigned long flags;
	bool ok;

	local_irq_save(flags);
	ok = mt_livetab_edit(t, addr, mt_kind_ns(kind), fn, arg, before);
	local_irq_restore(flags);
	return ok;
}

/*
 * One address, one entry: kfree() of a cache object and kmem_cache_free()
 * of a kmalloc'd one find it (one address space); an allocation at an
 * address the index holds replaces the stale entry and hands it back; an
 * edit changes an entry in place, or removes it.
 */
static void mt_test_live_one_entry(struct kunit *test)
{
	const unsigned long a = 0xffff888000002000UL;
	struct mt_live out, old;
	unsigned long flags;
	u32 big = 1000;

	KUNIT_ASSERT_EQ(test, mt_livetab_init(&t_one, 1000, 1000), 0);
	KUNIT_EXPECT_EQ(test, mt_insert_old(&t_one, a, MEMTRACE_KIND_CACHE, 200, &old),
			MT_LIVE_ADDED);
	KUNIT_ASSERT_TRUE(test, mt_remove(&t_one, a, MEMTRACE_KIND_KMALLOC, &out));
	KUNIT_EXPECT_EQ(test, MT_KIND_OF(out.cache_kind), MEMTRACE_KIND_CACHE);

	KUNIT_EXPECT_EQ(test, mt_insert_old(&t_one, a, MEMTRACE_KIND_KMALLOC, 64, &old),
			MT_LIVE_ADDED);
	KUNIT_EXPECT_EQ(test, mt_insert_old(&t_one, a, MEMTRACE_KIND_CACHE, 128, &old),
			MT_LIVE_REPLACED);
	KUNIT_EXPECT_EQ(test, old.bytes_alloc, 64U);
	KUNIT_EXPECT_EQ(test, mt_livetab_count(&t_one), 1ULL);
	local_irq_save(flags);
	KUNIT_EXPECT_TRUE(test, mt_livetab_contains(&t_one, a, MT_NS_KVA));
	KUNIT_EXPECT_FALSE(test, mt_livetab_contains(&t_one, a, MT_NS_PFN));
	local_irq_restore(flags);

	/* An edit: the kind changes, the key stays where lookups find it. */
	KUNIT_EXPECT_TRUE(test, mt_insert(&t_one, 77, MEMTRACE_KIND_PAGE, 4096));
	KUNIT_ASSERT_TRUE(test, mt_edit(&t_one, 77, MEMTRACE_KIND_PAGE,
					mt_relabel_to_vmalloc_page, NULL, &old));
	KUNIT_EXPECT_EQ(test, MT_KIND_OF(old.cache_kind), MEMTRACE_KIND_PAGE);
	KUNIT_ASSERT_TRUE(test, mt_remove(&t_one, 77, MEMTRACE_KIND_PAGE, &out));
	KUNIT_EXPECT_EQ(test, MT_KIND_OF(out.cache_kind), MEMTRACE_KIND_VMALLOC_PAGE);
	KUNIT_EXPECT_EQ(test, out.addr, 77UL);

	/* An edit that removes: only when it says so. */
	KUNIT_EXPECT_TRUE(test, mt_edit(&t_one, a, MEMTRACE_KIND_CACHE, mt_remove_if_big,
					&big, &old));
	KUNIT_EXPECT_EQ(test, mt_livetab_count(&t_one), 1ULL);
	big = 100;
	KUNIT_EXPECT_TRUE(test, mt_edit(&t_one, a, MEMTRACE_KIND_CACHE, mt_remove_if_big,
					&big, &old));
	KUNIT_EXPECT_EQ(test, mt_livetab_count(&t_one), 0ULL);
	KUNIT_EXPECT_FALSE(test, mt_edit(&t_one, a, MEMTRACE_KIND_CACHE, mt_remove_if_big,
					 &big, &old));
	mt_livetab_destroy(&t_one);
}

static void mt_test_live_basic(struct kunit *test)
{
	struct mt_livetab t;
	struct mt_live out;

	KUNIT_ASSERT_EQ(test, mt_livetab_init(&t, 1000, 1000), 0);
	KUNIT_EXPECT_TRUE(test, mt_insert(&t, 0xffff888000001000UL, MEMTRACE_KIND_KMALLOC, 64));
	/* The same number as a PFN is another allocation. */
	KUNIT_EXPECT_TRUE(test, mt_insert(&t, 0xffff888000001000UL, MEMTRACE_KIND_PAGE, 4096));
	KUNIT_EXPECT_EQ(test, mt_livetab_count(&t), 2ULL);
	KUNIT_EXPECT_FALSE(test, mt_remove(&t, 0xdead000UL, MEMTRACE_KIND_KMALLOC, &out));
	KUNIT_ASSERT_TRUE(test, mt_remove(&t, 0xffff888000001000UL, MEMTRACE_KIND_KMALLOC, &out));
	KUNIT_EXPECT_EQ(test, out.bytes_alloc, 64U);
	KUNIT_EXPECT_EQ(test, out.stack_id, 7U);
	KUNIT_EXPECT_EQ(test, MT_CACHE_OF(out.cache_kind), 3);
	KUNIT_EXPECT_FALSE(test, mt_remove(&t, 0xffff888000001000UL, MEMTRACE_KIND_KMALLOC, &out));
	KUNIT_EXPECT_EQ(test, mt_livetab_count(&t), 1ULL);
	mt_livetab_clear(&t);
	KUNIT_EXPECT_EQ(test, mt_livetab_count(&t), 0ULL);
	mt_livetab_destroy(&t);
}

/* At its limit the index refuses, and growth beyond the limit fails. */
static void mt_test_live_full(struct kunit *test)
{
	struct mt_livetab t;
	struct mt_live out;
	u32 i, ok = 0, refused = 0;
	u64 cap;

	KUNIT_ASSERT_EQ(test, mt_livetab_init(&t, MT_LIVE_CHUNK - 1, MT_LIVE_CHUNK - 1), 0);
	cap = mt_livetab_capacity(&t);
	for (i = 1; i <= cap + 1000; i++) {
		if (mt_insert(&t, i * 64UL, MEMTRACE_KIND_KMALLOC, 8))
			ok++;
		else
			refused++;
	}
	irq_work_sync(&t.grow_irq_work);
	flush_work(&t.grow_work);
	KUNIT_EXPECT_GT(test, refused, 1000U - 1);
	KUNIT_EXPECT_LE(test, (u64)ok, cap);
	KUNIT_EXPECT_EQ(test, mt_livetab_count(&t), (u64)ok);
	KUNIT_EXPECT_EQ(test, mt_livetab_grow(&t), -ENOSPC);
	/* Everything accepted is still found. */
	for (i = 1; i <= cap + 1000; i++)
		mt_remove(&t, i * 64UL, MEMTRACE_KIND_KMALLOC, &out);
	KUNIT_EXPECT_EQ(test, mt_livetab_count(&t), 0ULL);
	mt_livetab_destroy(&t);
}

/* Growth adds entries and rehashes without losing one. */
static void mt_test_live_grow(struct kunit *test)
{
	struct mt_livetab t;
	struct mt_live out;
	u64 cap0;
	u32 i, n = 3 * MT_LIVE_CHUNK;

	KUNIT_ASSERT_EQ(test, mt_livetab_init(&t, MT_LIVE_CHUNK - 1, 8 * MT_LIVE_CHUNK), 0);
	cap0 = mt_livetab_capacity(&t);
	for (i = 1; i <= n; i++) {
		while (!mt_insert(&t, i * 32UL, MEMTRACE_KIND_CACHE, 32))
			KUNIT_ASSERT_EQ(test, mt_livetab_grow(&t), 0);
	}
	KUNIT_EXPECT_GT(test, mt_livetab_capacity(&t), cap0);
	KUNIT_EXPECT_EQ(test, mt_livetab_count(&t), (u64)n);
	for (i = 1; i <= n; i++)
		KUNIT_EXPECT_TRUE(test, mt_remove(&t, i * 32UL, MEMTRACE_KIND_CACHE, &out));
	KUNIT_EXPECT_EQ(test, mt_livetab_count(&t), 0ULL);
	mt_livetab_destroy(&t);
}

/*
 * Growth's kick: the work item grows by one step (1/8 of the capacity, at
 * least a chunk) while a stripe is low, and a kick that finds no stripe
 * low (hooks kick on every insert into a low stripe, so most kicks queued
 * during a grow are stale) adds nothing.
 */
static void mt_test_live_grow_kick(struct kunit *test)
{
	struct mt_live_stripe *st;
	struct mt_livetab *t;
	struct mt_live out;
	u64 cap0;
	u32 i, n;

	/*
	 * On the heap, and no assertion between init and destroy: the test
	 * queues the table's work item, which must not outlive it.
	 */
	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_ASSERT_EQ(test, mt_livetab_init(t, MT_LIVE_CHUNK - 1, 8 * MT_LIVE_CHUNK), 0);
	cap0 = mt_livetab_capacity(t);
	KUNIT_EXPECT_FALSE(test, mt_live_any_low(t));
	queue_work(system_unbound_wq, &t->grow_work);
	flush_work(&t->grow_work);
	KUNIT_EXPECT_EQ(test, mt_livetab_capacity(t), cap0);

	/*
	 * Fill until a stripe of 15 or 16 entries is low (8 used; the inserts
	 * kick a grow themselves, which may have run already).  The hash
	 * spreads these addresses evenly, so no stripe is near full then.
	 */
	for (n = 1; n < MT_LIVE_CHUNK; n++) {
		if (!mt_insert(t, n * 64UL, MEMTRACE_KIND_CACHE, 64)) {
			KUNIT_FAIL(test, "insert %u failed", n);
			goto out;
		}
		st = mt_live_stripe(t, mt_live_hash(n * 64UL, MT_NS_KVA));
		if (mt_live_stripe_low(st) || mt_livetab_capacity(t) != cap0)
			break;
	}
	KUNIT_EXPECT_LT(test, n, MT_LIVE_CHUNK);
	irq_work_sync(&t->grow_irq_work);
	queue_work(system_unbound_wq, &t->grow_work);
	flush_work(&t->grow_work);
	queue_work(system_unbound_wq, &t->grow_work);
	flush_work(&t->grow_work);
	KUNIT_EXPECT_EQ(test, mt_livetab_capacity(t), cap0 + MT_LIVE_CHUNK);
	KUNIT_EXPECT_FALSE(test, mt_live_any_low(t));
	KUNIT_EXPECT_EQ(test, mt_livetab_count(t), (u64)min_t(u32, n, MT_LIVE_CHUNK - 1));
	for (i = 1; i <= n && i < MT_LIVE_CHUNK; i++)
		KUNIT_EXPECT_TRUE(test, mt_remove(t, i * 64UL, MEMTRACE_KIND_CACHE, &out));
out:
	mt_livetab_destroy(t);
}

/*
 * Several CPUs insert and delete at once, in process context (work items)
 * and in hard IRQ context (IPIs), each on its own address range, while
 * frees of another CPU's addresses cross over.  At the end exactly the
 * entries never removed are left.
 */
#define MT_RACE_N	2000
static struct mt_livetab *mt_race_live;
static atomic_t mt_race_fail;

static void mt_live_race_range(int cpu, unsigned long base)
{
	struct mt_live out;
	int i;

	for (i = 0; i < MT_RACE_N; i++)
		if (!mt_insert(mt_race_live, base + cpu * 0x100000UL + i * 16,
			       MEMTRACE_KIND_KMALLOC, 16))
			atomic_inc(&mt_race_fail);
	/* Free every other one: the others stay. */
	for (i = 0; i < MT_RACE_N; i += 2)
		if (!mt_remove(mt_race_live, base + cpu * 0x100000UL + i * 16,
			       MEMTRACE_KIND_KMALLOC, &out))
			atomic_inc(&mt_race_fail);
}

static void mt_live_race_work(struct work_struct *w)
{
	mt_live_race_range(smp_processor_id(), 0x10000000UL);
}

static void mt_live_race_ipi(void *unused)
{
	mt_live_race_range(smp_processor_id(), 0x80000000UL);
}

static void mt_test_live_concurrent(struct kunit *test)
{
	struct work_struct *works;
	int cpu, ncpu = num_online_cpus();

	mt_race_live = kunit_kzalloc(test, sizeof(*mt_race_live), GFP_KERNEL);
	works = kunit_kcalloc(test, nr_cpu_ids, sizeof(*works), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, mt_race_live);
	KUNIT_ASSERT_NOT_NULL(test, works);
	KUNIT_ASSERT_EQ(test, mt_livetab_init(mt_race_live, 8 * MT_RACE_N * ncpu,
					      8 * MT_RACE_N * ncpu), 0);
	atomic_set(&mt_race_fail, 0);
	for_each_online_cpu(cpu) {
		INIT_WORK(&works[cpu], mt_live_race_work);
		schedule_work_on(cpu, &works[cpu]);
	}
	/* Hard-IRQ inserts and deletes on every CPU while the works run. */
	on_each_cpu(mt_live_race_ipi, NULL, 1);
	for_each_online_cpu(cpu)
		flush_work(&works[cpu]);
	KUNIT_EXPECT_EQ(test, atomic_read(&mt_race_fail), 0);
	KUNIT_EXPECT_EQ(test, mt_livetab_count(mt_race_live),
			(u64)ncpu * 2 * (MT_RACE_N / 2));
	mt_livetab_destroy(mt_race_live);
}

/* ---- per-CPU counters ---- */

static struct mt_stattab *mt_race_stats;

static void mt_stat_bump(void *arg)
{
	struct mt_stat *s = mt_stattab_get(mt_race_stats, MT_STAT_KEY(5, 9));

	if (s) {
		s->allocs += 3;
		s->live_count += 1;
		s->live_bytes -= 10;	/* a free counted on another CPU */
	}
}

static void mt_test_stat_merge(struct kunit *test)
{
	struct mt_stat *out, *m;
	int ncpu = num_online_cpus();

	mt_race_stats = kunit_kzalloc(test, sizeof(*mt_race_stats), GFP_KERNEL);
	out = kunit_kcalloc(test, 64, sizeof(*out), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, mt_race_stats);
	KUNIT_ASSERT_NOT_NULL(test, out);
	KUNIT_ASSERT_EQ(test, mt_stattab_init(mt_race_stats, 64), 0);
	on_each_cpu(mt_stat_bump, NULL, 1);
	KUNIT_ASSERT_EQ(test, mt_stattab_merge(mt_race_stats, out, 64), 0);
	m = mt_stat_slot(out, 63, MT_STAT_KEY(5, 9));
	KUNIT_ASSERT_NOT_NULL(test, m);
	KUNIT_EXPECT_EQ(test, m->allocs, 3ULL * ncpu);
	KUNIT_EXPECT_EQ(test, m->live_count, (s64)ncpu);
	KUNIT_EXPECT_EQ(test, m->live_bytes, -10LL * ncpu);
	KUNIT_EXPECT_EQ(test, mt_stattab_used(mt_race_stats), (u64)ncpu);
	mt_stattab_destroy(mt_race_stats);
}

static void mt_test_stat_full(struct kunit *test)
{
	struct mt_stattab t;
	u32 i, got = 0;

	KUNIT_ASSERT_EQ(test, mt_stattab_init(&t, 64), 0);
	preempt_disable();
	for (i = 1; i <= 100; i++)
		got += !!mt_stattab_get(&t, MT_STAT_KEY(i, 1));
	/* A known key is found even when the table is full. */
	KUNIT_EXPECT_NOT_NULL(test, mt_stattab_get(&t, MT_STAT_KEY(1, 1)));
	preempt_enable();
	KUNIT_EXPECT_EQ(test, got, 64U);
	mt_stattab_destroy(&t);
}

/* ---- names ---- */

static void mt_test_names(struct kunit *test)
{
	struct mt_cache_filter f = { .nr = 1, .names = { "kmalloc-1k" } };
	const struct mt_cache_name *c;
	struct mt_names n;
	u16 a, b, d;

	KUNIT_ASSERT_EQ(test, mt_names_init(&n), 0);
	mt_names_clear(&n, &f);
	/* A slot size with debug metadata still names the size class. */
	a = mt_kmalloc_cache_intern(&n, 1000, 1024 + 88, GFP_KERNEL);
	b = mt_kmalloc_cache_intern(&n, 90, 96, GFP_KERNEL | __GFP_RECLAIMABLE);
	d = mt_kmalloc_cache_intern(&n, 1 << 20, 1 << 20, GFP_KERNEL);
	KUNIT_EXPECT_EQ(test, mt_kmalloc_cache_intern(&n, 1024, 1024 + 88, GFP_KERNEL), a);
	c = mt_cache_get(&n, a);
	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_EXPECT_STREQ(test, c->name, "kmalloc-1k");
	KUNIT_EXPECT_EQ(test, c->object_size, 1024U);
	KUNIT_EXPECT_TRUE(test, c->selected);
	c = mt_cache_get(&n, b);
	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_EXPECT_STREQ(test, c->name, "kmalloc-rcl-96");
	KUNIT_EXPECT_FALSE(test, c->selected);
	KUNIT_EXPECT_STREQ(test, mt_cache_get(&n, d)->name, "kmalloc-large");
	KUNIT_EXPECT_NE(test, mt_comm_intern(&n, "bash"), 0);
	KUNIT_EXPECT_EQ(test, mt_comm_intern(&n, "bash"), mt_comm_intern(&n, "bash"));
	KUNIT_EXPECT_STREQ(test, mt_comm_get(&n, mt_comm_intern(&n, "insmod")), "insmod");
	KUNIT_EXPECT_STREQ(test, mt_comm_get(&n, 0), "?");
	mt_names_destroy(&n);
}

/*
 * A destroyed cache's key is forgotten: a cache made later at the same
 * address gets a new id and its own name, while the old id keeps the old
 * name for the records that carry it.
 */
static void mt_test_names_forget(struct kunit *test)
{
	const unsigned long key = 0xffff888012345600UL;
	int gen;
	struct mt_names n;
	u16 a, b;

	KUNIT_ASSERT_EQ(test, mt_names_init(&n), 0);
	mt_names_clear(&n, NULL);
	a = mt_cache_intern(&n, key, "old_cache", 64);
	KUNIT_ASSERT_NE(test, a, 0);
	KUNIT_EXPECT_EQ(test, mt_cache_lookup(&n, key), a);
	gen = atomic_read(&n.generation);
	mt_cache_forget(&n, key);
	KUNIT_EXPECT_NE(test, atomic_read(&n.generation), gen);
	KUNIT_EXPECT_EQ(test, mt_cache_lookup(&n, key), 0);
	b = mt_cache_intern(&n, key, "new_cache", 128);
	KUNIT_EXPECT_NE(test, b, a);
	KUNIT_EXPECT_STREQ(test, mt_cache_get(&n, a)->name, "old_cache");
	KUNIT_EXPECT_EQ(test, mt_cache_get(&n, a)->object_size, 64U);
	KUNIT_EXPECT_STREQ(test, mt_cache_get(&n, b)->name, "new_cache");
	KUNIT_EXPECT_EQ(test, mt_cache_lookup(&n, key), b);
	mt_names_destroy(&n);
}

/* ---- module code freed: the names kept ---- */

/*
 * A module's init functions are kept when it comes, exported once its init
 * is done (and not before: kallsyms still has them), with their sizes from
 * the module's symbol table; its core functions when it goes.
 */
/* A module's symbol table, writable as the kernel's copies are. */
static char mt_kt_strtab[40] = "\0mt_kt_init_fn\0mt_kt_core_fn\0mt_kt_data\0";
static char mt_kt_typetab[3] = { 't', 't', 'd' };
static Elf_Sym mt_kt_syms[3];
static struct mod_kallsyms mt_kt_ks = {
	.symtab = mt_kt_syms, .num_symtab = 3,
	.strtab = mt_kt_strtab, .typetab = mt_kt_typetab,
};

static void mt_test_modsyms(struct kunit *test)
{
	Elf_Sym *syms = mt_kt_syms;
	const unsigned long init_base = 0xffffffffc0100000UL;
	const unsigned long core_base = 0xffffffffc0200000UL;
	const struct memtrace_ksym_rec *r;
	struct module *mod;
	struct mt_modsyms ms;
	size_t len;
	u8 *buf;
	u32 nr;

	mod = kunit_kzalloc(test, sizeof(*mod), GFP_KERNEL);
	buf = kunit_kzalloc(test, 4096, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, mod);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	strscpy(mod->name, "mt_kt_mod", sizeof(mod->name));
#ifdef MEMTRACE_HAVE_MODULE_MEMORY
	mod->mem[MOD_INIT_TEXT].base = (void *)init_base;
	mod->mem[MOD_INIT_TEXT].size = 0x1000;
	mod->mem[MOD_TEXT].base = (void *)core_base;
	mod->mem[MOD_TEXT].size = 0x2000;
#else
	mod->init_layout.base = (void *)init_base;
	mod->init_layout.text_size = 0x1000;
	mod->core_layout.base = (void *)core_base;
	mod->core_layout.text_size = 0x2000;
#endif
	syms[0] = (Elf_Sym) { .st_name = 1, .st_value = init_base + 0x40, .st_size = 0x30,
			      .st_info = (STB_LOCAL << 4) | STT_FUNC };
	syms[1] = (Elf_Sym) { .st_name = 15, .st_value = core_base + 0x100, .st_size = 0x80,
			      .st_info = (STB_LOCAL << 4) | STT_FUNC };
	syms[2] = (Elf_Sym) { .st_name = 29, .st_value = core_base + 0x1800, .st_size = 8,
			      .st_info = (STB_LOCAL << 4) | STT_OBJECT };
	rcu_assign_pointer(mod->kallsyms, &mt_kt_ks);

	KUNIT_ASSERT_EQ(test, mt_modsyms_init(&ms, 4096), 0);
	mt_modsyms_coming(&ms, mod);
	KUNIT_EXPECT_EQ(test, mt_modsyms_export(&ms, buf, 4096, &nr), (size_t)0);
	KUNIT_EXPECT_EQ(test, nr, 0U);

	mt_modsyms_freed(&ms, mod, false, 3);
	len = mt_modsyms_export(&ms, buf, 4096, &nr);
	/* The init range, and its one function (the core ones are not init text). */
	KUNIT_ASSERT_EQ(test, nr, 2U);
	r = (const struct memtrace_ksym_rec *)buf;
	KUNIT_EXPECT_TRUE(test, r->flags & MEMTRACE_KSYM_RANGE);
	KUNIT_EXPECT_EQ(test, r->start, (u64)init_base);
	r = (const void *)((const u8 *)r + mt_ksym_size(r->name_len, r->module_len));
	KUNIT_EXPECT_EQ(test, r->start, (u64)init_base + 0x40);
	KUNIT_EXPECT_EQ(test, r->size, 0x30U);
	KUNIT_EXPECT_EQ(test, r->freed_epoch, 3U);
	KUNIT_EXPECT_EQ(test, r->flags, MEMTRACE_KSYM_INIT);
	KUNIT_EXPECT_STREQ(test, (const char *)(r + 1), "mt_kt_init_fn");
	KUNIT_EXPECT_STREQ(test, mt_ksym_module(r), "mt_kt_mod");

	/* Unload: the core text's function (not its data), dated 4. */
	mt_modsyms_freed(&ms, mod, true, 4);
	KUNIT_EXPECT_GT(test, mt_modsyms_export(&ms, buf, 4096, &nr), len);
	KUNIT_EXPECT_EQ(test, nr, 4U);
	/* A buffer too small still measures. */
	KUNIT_EXPECT_EQ(test, mt_modsyms_export(&ms, buf, 8, &nr),
			mt_modsyms_export(&ms, NULL, 0, &nr));

	/* A full store drops, and counts. */
	mt_modsyms_clear(&ms);
	ms.size = sizeof(struct memtrace_ksym_rec) + 16;
	mt_modsyms_coming(&ms, mod);
	KUNIT_EXPECT_GT(test, ms.dropped, 0U);
	ms.size = 4096;
	mt_modsyms_destroy(&ms);
}

/* ---- sampling ---- */

static void mt_test_sampling_math(struct kunit *test)
{
	/* -ln(1/2) = 0.6931 */
	KUNIT_EXPECT_LE(test, abs((int)mt_neg_ln_q16(1U << 31) - 45426), 8);
	/* -ln(1/4) = 1.3863 */
	KUNIT_EXPECT_LE(test, abs((int)mt_neg_ln_q16(1U << 30) - 90852), 8);
	/* size == mean: 1 / (1 - e^-1) = 1.58198 */
	KUNIT_EXPECT_LE(test, abs((int)mt_byte_sample_weight_q16(4096, 4096) - 103677), 40);
	/* size = mean / 10: 1 / (1 - e^-0.1) = 10.5083 */
	KUNIT_EXPECT_LE(test, abs((int)mt_byte_sample_weight_q16(100, 1000) - 688673), 400);
	/* size >> mean: almost surely sampled, weight 1 */
	KUNIT_EXPECT_EQ(test, mt_byte_sample_weight_q16(1 << 20, 4096), 1ULL << 16);
	/* tiny: mean / size + 1/2 */
	KUNIT_EXPECT_EQ(test, mt_byte_sample_weight_q16(1, 1 << 20), (1ULL << 36) + (1 << 15));
}

/*
 * The estimate is unbiased: sample 200000 allocations of mixed sizes as
 * the hooks do and the weighted sum comes back to the true bytes (1%).
 */
static void mt_test_sampling_unbiased(struct kunit *test)
{
	static const u32 sizes[] = { 16, 64, 200, 1024, 5000, 70000 };
	const u32 mean = 8192;
	struct rnd_state rnd;
	s64 to_next;
	u64 true_bytes = 0, est_q16 = 0;
	int i;

	prandom_seed_state(&rnd, 42);
	to_next = mt_bytes_to_next_sample(mean, prandom_u32_state(&rnd));
	for (i = 0; i < 200000; i++) {
		u32 s = sizes[i % ARRAY_SIZE(sizes)];

		true_bytes += s;
		to_next -= s;
		if (to_next > 0)
			continue;
		to_next = mt_bytes_to_next_sample(mean, prandom_u32_state(&rnd));
		est_q16 += mt_byte_sample_weight_q16(s, mean) * s;
	}
	KUNIT_EXPECT_LE(test, abs((s64)(est_q16 >> 16) - (s64)true_bytes),
			(s64)true_bytes / 100);
}

/*
 * Decided on a slot larger than the object (SLUB debug metadata) and
 * thinned to the object's size, the estimate from the object's weight is
 * still unbiased (1%), where it would be high without the thinning.
 */
static void mt_test_sampling_thinned(struct kunit *test)
{
	static const u32 sizes[] = { 16, 64, 200, 1024, 5000 };
	const u32 mean = 8192, slack = 88;	/* slot = object + slack */
	struct rnd_state rnd;
	s64 to_next;
	u64 true_bytes = 0, est_q16 = 0, unthinned_q16 = 0;
	int i;

	prandom_seed_state(&rnd, 7);
	to_next = mt_bytes_to_next_sample(mean, prandom_u32_state(&rnd));
	for (i = 0; i < 300000; i++) {
		u32 s = sizes[i % ARRAY_SIZE(sizes)];
		u64 w = mt_byte_sample_weight_q16(s, mean) * s;

		true_bytes += s;
		to_next -= s + slack;
		if (to_next > 0)
			continue;
		to_next = mt_bytes_to_next_sample(mean, prandom_u32_state(&rnd));
		unthinned_q16 += w;
		if (mt_byte_sample_thin(s, s + slack, mean, prandom_u32_state(&rnd)))
			est_q16 += w;
	}
	KUNIT_EXPECT_LE(test, abs((s64)(est_q16 >> 16) - (s64)true_bytes),
			(s64)true_bytes / 100);
	/*
	 * Unthinned, the bias shows: about 6% here, most of it from the
	 * small sizes, which the slack makes several times likelier.
	 */
	KUNIT_EXPECT_GT(test, (s64)(unthinned_q16 >> 16), (s64)true_bytes * 21 / 20);
	/* Nothing to thin: an object as large as what was decided on is kept. */
	KUNIT_EXPECT_TRUE(test, mt_byte_sample_thin(64, 64, mean, U32_MAX));
	KUNIT_EXPECT_TRUE(test, mt_byte_sample_thin(64, 64, 0, U32_MAX));
}

/*
 * -s N by address: over slab-like addresses (a stride of 64 bytes) 1 in N
 * is sampled for any seed (within 5 sigma), the answer for an address
 * never changes under one (its free finds what its allocation did), and
 * another seed samples other addresses.
 */
static void mt_test_addr_sampling(struct kunit *test)
{
	static const u32 everies[] = { 2, 10, 100, 1000 };
	const unsigned long base = 0xffff888012340000UL;
	const int n = 1 << 20;
	int e, k, i;

	KUNIT_EXPECT_EQ(test, mt_addr_sample_threshold(0), 0U);
	KUNIT_EXPECT_EQ(test, mt_addr_sample_threshold(1), 0U);
	KUNIT_EXPECT_EQ(test, mt_addr_sample_threshold(2), 1U << 31);
	for (e = 0; e < ARRAY_SIZE(everies); e++) {
		u32 every = everies[e], thr = mt_addr_sample_threshold(every);
		/* binomial: sd = sqrt(n p (1 - p)) */
		s64 expect = n / every, sd = int_sqrt64((u64)n * (every - 1) / every / every);

		for (k = 0; k < 4; k++) {
			u64 seed = get_random_u64();
			u64 other = get_random_u64();
			s64 hits = 0, both = 0;

			for (i = 0; i < n; i++) {
				unsigned long a = base + (unsigned long)i * 64;
				bool in = mt_addr_sampled(a, seed, thr);

				hits += in;
				both += in && mt_addr_sampled(a, other, thr);
				if (in != mt_addr_sampled(a, seed, thr))
					KUNIT_FAIL(test, "address %lx: two answers", a);
			}
			KUNIT_EXPECT_LE_MSG(test, abs(hits - expect), 5 * sd + 1,
					    "1 in %u: %lld of %d sampled", every, hits, n);
			/* independent seeds: about 1 in N^2 sampled by both */
			if (every <= 10)
				KUNIT_EXPECT_LT(test, both, hits / every + 5 * sd);
		}
	}
}

/*
 * -s 10 over what a leak of 640 kmalloc-1k objects looks like (20 slabs of
 * 32 objects a KiB apart, at scattered 32 KiB-aligned addresses), under
 * 500 seeds: every session samples 64 of them within 5 sigma.  A hash
 * whose answers follow the stride (a multiply-shift's Weyl sequence) puts
 * some sessions at 0 or 160.
 */
static void mt_test_addr_sampling_slabs(struct kunit *test)
{
	const u32 every = 10, thr = mt_addr_sample_threshold(every);
	const int slabs = 20, per_slab = 32, n = slabs * per_slab;
	/* binomial: sd = sqrt(640 * 0.1 * 0.9), about 7.6 */
	const s64 expect = n / every, sd = int_sqrt64((u64)n * (every - 1) / every / every) + 1;
	unsigned long slab_base[20];
	int k, j, i, worst = 0;

	for (k = 0; k < 500; k++) {
		u64 seed = get_random_u64();
		s64 hits = 0;

		for (j = 0; j < slabs; j++)
			slab_base[j] = 0xffff888000000000UL +
				       ((get_random_u64() & 0xfffffUL) << 15);
		for (j = 0; j < slabs; j++)
			for (i = 0; i < per_slab; i++)
				hits += mt_addr_sampled(slab_base[j] + i * 1024UL, seed, thr);
		if (abs(hits - expect) > abs(worst - expect))
			worst = hits;
		KUNIT_EXPECT_LE_MSG(test, abs(hits - expect), 5 * sd,
				    "seed %llx: %lld of %d sampled", seed, hits, n);
	}
	kunit_info(test, "-s 10 over 640 slab objects, 500 seeds: farthest %d (expect %lld)\n",
		   worst, expect);
}

/* ---- user mode: calls in flight ---- */

/* A call and a nested one return in order; the slot is given up after. */
static void mt_test_calls_nested(struct kunit *test)
{
	struct mt_thread_calls *tc;
	struct mt_calltab t;
	struct mt_call *c, out;

	KUNIT_ASSERT_EQ(test, mt_calltab_init(&t, 64), 0);
	tc = mt_calltab_get(&t, 42);
	KUNIT_ASSERT_NOT_NULL(test, tc);
	c = mt_calltab_push(tc, 0x7000);	/* realloc() */
	KUNIT_ASSERT_PTR_EQ(test, c, &tc->call[0]);
	c->func = 3;
	c = mt_calltab_push(tc, 0x6f00);	/* -> malloc() */
	KUNIT_ASSERT_PTR_EQ(test, c, &tc->call[1]);
	c->func = 1;
	KUNIT_EXPECT_PTR_EQ(test, mt_calltab_get(&t, 42), tc);
	KUNIT_EXPECT_PTR_EQ(test, mt_calltab_find(&t, 42), tc);

	/* A return with no call at its stack pointer matches nothing. */
	KUNIT_EXPECT_FALSE(test, mt_calltab_pop(tc, 0x6000, &out));
	KUNIT_EXPECT_EQ(test, tc->depth, 2U);

	KUNIT_ASSERT_TRUE(test, mt_calltab_pop(tc, 0x6f08, &out));
	KUNIT_EXPECT_EQ(test, out.func, 1);
	KUNIT_ASSERT_TRUE(test, mt_calltab_pop(tc, 0x7008, &out));
	KUNIT_EXPECT_EQ(test, out.func, 3);
	KUNIT_EXPECT_EQ(test, tc->tid, 0U);
	KUNIT_EXPECT_NULL(test, mt_calltab_find(&t, 42));
	mt_calltab_destroy(&t);
}

/* Calls left by longjmp() are dropped by the next call or return above them. */
static void mt_test_calls_abandoned(struct kunit *test)
{
	struct mt_thread_calls *tc;
	struct mt_calltab t;
	struct mt_call *c, out;

	KUNIT_ASSERT_EQ(test, mt_calltab_init(&t, 64), 0);
	tc = mt_calltab_get(&t, 7);
	KUNIT_ASSERT_NOT_NULL(test, tc);
	c = mt_calltab_push(tc, 0x8000);
	c->func = 1;
	mt_calltab_push(tc, 0x7000)->func = 2;
	mt_calltab_push(tc, 0x6000)->func = 3;
	/* The two inner ones never return; a new call at 0x7800 is nested in the first. */
	c = mt_calltab_push(tc, 0x7800);
	KUNIT_ASSERT_PTR_EQ(test, c, &tc->call[1]);
	c->func = 4;
	KUNIT_EXPECT_EQ(test, tc->depth, 2U);
	/* The outer call's return drops whatever is still above it. */
	KUNIT_ASSERT_TRUE(test, mt_calltab_pop(tc, 0x8008, &out));
	KUNIT_EXPECT_EQ(test, out.func, 1);
	KUNIT_EXPECT_EQ(test, tc->depth, 0U);
	KUNIT_EXPECT_EQ(test, tc->tid, 0U);
	mt_calltab_destroy(&t);
}

/*
 * A free made inside a call in flight (operator delete -> free) is inside
 * it; one made after the call returned unseen is not, and drops it.
 */
static void mt_test_calls_inside(struct kunit *test)
{
	struct mt_thread_calls *tc;
	struct mt_calltab t;
	struct mt_call out;

	KUNIT_ASSERT_EQ(test, mt_calltab_init(&t, 64), 0);
	tc = mt_calltab_get(&t, 9);
	KUNIT_ASSERT_NOT_NULL(test, tc);
	mt_calltab_push(tc, 0x5000)->func = 14;	/* operator delete */
	KUNIT_EXPECT_TRUE(test, mt_calltab_inside(tc, 0x4f00));	/* its free() */
	KUNIT_EXPECT_EQ(test, tc->depth, 1U);
	KUNIT_ASSERT_TRUE(test, mt_calltab_pop(tc, 0x5008, &out));
	KUNIT_EXPECT_EQ(test, out.func, 14);
	KUNIT_EXPECT_NULL(test, mt_calltab_find(&t, 9));

	/* operator delete jumps to free() (a tail call): one stack pointer, still inside. */
	tc = mt_calltab_get(&t, 9);
	KUNIT_ASSERT_NOT_NULL(test, tc);
	mt_calltab_push(tc, 0x5000)->func = 14;
	KUNIT_EXPECT_TRUE(test, mt_calltab_inside(tc, 0x5000));
	/* operator new[] jumps to operator new: nested, and both return at one sp. */
	KUNIT_EXPECT_PTR_EQ(test, mt_calltab_push(tc, 0x5000), &tc->call[1]);
	tc->call[1].func = 1;
	KUNIT_ASSERT_TRUE(test, mt_calltab_pop(tc, 0x5008, &out));
	KUNIT_EXPECT_EQ(test, out.func, 1);
	KUNIT_ASSERT_TRUE(test, mt_calltab_pop(tc, 0x5008, &out));
	KUNIT_EXPECT_EQ(test, out.func, 14);
	KUNIT_EXPECT_NULL(test, mt_calltab_find(&t, 9));

	/* A delete whose return was lost (longjmp out of a destructor). */
	tc = mt_calltab_get(&t, 9);
	KUNIT_ASSERT_NOT_NULL(test, tc);
	mt_calltab_push(tc, 0x5000);
	KUNIT_EXPECT_FALSE(test, mt_calltab_inside(tc, 0x5100));
	KUNIT_EXPECT_EQ(test, tc->depth, 0U);
	KUNIT_EXPECT_EQ(test, tc->tid, 0U);
	mt_calltab_destroy(&t);
}

/* Nesting beyond MT_CALL_DEPTH and more threads than slots: refused, not lost track of. */
static void mt_test_calls_full(struct kunit *test)
{
	struct mt_thread_calls *tc, *held[MT_CALL_PROBES];
	struct mt_calltab t;
	struct mt_call out;
	unsigned int i;

	KUNIT_ASSERT_EQ(test, mt_calltab_init(&t, MT_CALL_PROBES), 0);
	tc = mt_calltab_get(&t, 1);
	KUNIT_ASSERT_NOT_NULL(test, tc);
	for (i = 0; i < MT_CALL_DEPTH; i++)
		KUNIT_ASSERT_NOT_NULL(test, mt_calltab_push(tc, 0x9000 - i * 0x100));
	KUNIT_EXPECT_NULL(test, mt_calltab_push(tc, 0x9000 - i * 0x100));
	/* The refused call's return is not mistaken for a kept one. */
	KUNIT_EXPECT_FALSE(test, mt_calltab_pop(tc, 0x9000 - i * 0x100 + 8, &out));
	KUNIT_EXPECT_EQ(test, tc->depth, (u32)MT_CALL_DEPTH);
	while (tc->depth)
		KUNIT_ASSERT_TRUE(test, mt_calltab_pop(tc, tc->call[tc->depth - 1].sp + 8, &out));

	/* The table holds exactly its size in threads with calls in flight. */
	for (i = 0; i < MT_CALL_PROBES; i++) {
		held[i] = mt_calltab_get(&t, 100 + i);
		KUNIT_ASSERT_NOT_NULL(test, held[i]);
		mt_calltab_push(held[i], 0x1000);
	}
	KUNIT_EXPECT_NULL(test, mt_calltab_get(&t, 5000));
	KUNIT_ASSERT_TRUE(test, mt_calltab_pop(held[3], 0x1008, &out));
	KUNIT_EXPECT_NOT_NULL(test, mt_calltab_get(&t, 5000));
	mt_calltab_destroy(&t);
}

/* Threads on every CPU claim, nest and release slots at once: none shares one. */
struct mt_calls_race {
	struct mt_calltab t;
	struct work_struct work[NR_CPUS > 64 ? 64 : NR_CPUS];
	atomic_t errors;
};

static struct mt_calls_race *mt_crace;

static void mt_calls_race_fn(struct work_struct *w)
{
	int idx = w - mt_crace->work;
	unsigned long sp;
	int round, thread;

	for (round = 0; round < 2000; round++) {
		/* A few "threads" per worker, all with calls in flight at once. */
		struct mt_thread_calls *tc[4];

		for (thread = 0; thread < 4; thread++) {
			u32 tid = 1 + idx * 4 + thread;
			struct mt_call *c;

			tc[thread] = mt_calltab_get(&mt_crace->t, tid);
			if (!tc[thread]) {
				atomic_inc(&mt_crace->errors);
				continue;
			}
			for (sp = 0x10000; sp > 0x10000 - 3 * 0x100; sp -= 0x100) {
				c = mt_calltab_push(tc[thread], sp);
				if (c)
					c->size = tid;
			}
		}
		for (thread = 0; thread < 4; thread++) {
			u32 tid = 1 + idx * 4 + thread;
			struct mt_call out;

			if (!tc[thread])
				continue;
			for (sp = 0x10000 - 2 * 0x100; sp <= 0x10000; sp += 0x100) {
				if (!mt_calltab_pop(tc[thread], sp + 8, &out) ||
				    out.size != tid)
					atomic_inc(&mt_crace->errors);
			}
		}
		cond_resched();
	}
}

static void mt_test_calls_concurrent(struct kunit *test)
{
	int cpu, used = 0, c;
	u32 i;

	mt_crace = kunit_kzalloc(test, sizeof(*mt_crace), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, mt_crace);
	KUNIT_ASSERT_EQ(test, mt_calltab_init(&mt_crace->t, 1024), 0);
	for_each_online_cpu(cpu) {
		if (cpu >= ARRAY_SIZE(mt_crace->work))
			break;
		INIT_WORK(&mt_crace->work[cpu], mt_calls_race_fn);
		schedule_work_on(cpu, &mt_crace->work[cpu]);
		used++;
	}
	for (c = 0; c < used; c++)
		flush_work(&mt_crace->work[c]);
	KUNIT_EXPECT_EQ(test, atomic_read(&mt_crace->errors), 0);
	for (i = 0; i <= mt_crace->t.mask; i++)
		KUNIT_EXPECT_EQ(test, mt_crace->t.slots[i].tid, 0U);
	mt_calltab_destroy(&mt_crace->t);
}

/* ---- trace ring ---- */

struct mt_ring_sink {
	u64 addr[64];
	u32 n;
	int fail_after;		/* -1: never */
};

static int mt_ring_sink_copy(void *ctx, const struct memtrace_trace_rec *recs, u32 n)
{
	struct mt_ring_sink *k = ctx;
	u32 i;

	if (k->fail_after >= 0 && k->n >= k->fail_after)
		return -EFAULT;
	for (i = 0; i < n && k->n < ARRAY_SIZE(k->addr); i++)
		k->addr[k->n++] = recs[i].addr;
	return 0;
}

static bool mt_ring_put_addr(struct mt_ring *r, u64 addr)
{
	struct memtrace_trace_rec rec = { .addr = addr, .type = MEMTRACE_TRACE_ALLOC };
	unsigned long flags;
	bool ok;

	local_irq_save(flags);
	ok = mt_ring_put(r, &rec);
	local_irq_restore(flags);
	return ok;
}

/* In order, full drops the new record, and wraps around its end. */
static void mt_test_ring_basic(struct kunit *test)
{
	struct mt_ring_sink k = { .fail_after = -1 };
	struct mt_ring r;
	u64 i;

	mt_ring_init(&r);
	KUNIT_EXPECT_EQ(test, mt_ring_pending(&r), 0ULL);
	KUNIT_ASSERT_EQ(test, mt_ring_resize(&r, 8), 0);
	KUNIT_EXPECT_EQ(test, mt_ring_size(&r), 8U);
	for (i = 1; i <= 8; i++)
		KUNIT_EXPECT_TRUE(test, mt_ring_put_addr(&r, i));
	KUNIT_EXPECT_FALSE(test, mt_ring_put_addr(&r, 9));
	KUNIT_EXPECT_EQ(test, mt_ring_pending(&r), 8ULL);

	KUNIT_EXPECT_EQ(test, mt_ring_consume(&r, 5, mt_ring_sink_copy, &k), 5L);
	for (i = 10; i < 15; i++)
		KUNIT_EXPECT_TRUE(test, mt_ring_put_addr(&r, i));
	KUNIT_EXPECT_EQ(test, mt_ring_consume(&r, 100, mt_ring_sink_copy, &k), 8L);
	KUNIT_ASSERT_EQ(test, k.n, 13U);
	for (i = 0; i < 8; i++)
		KUNIT_EXPECT_EQ(test, k.addr[i], i + 1);
	for (i = 8; i < 13; i++)
		KUNIT_EXPECT_EQ(test, k.addr[i], i + 2);
	KUNIT_EXPECT_EQ(test, mt_ring_consume(&r, 100, mt_ring_sink_copy, &k), 0L);

	/* A failing copy consumes nothing and says why. */
	KUNIT_EXPECT_TRUE(test, mt_ring_put_addr(&r, 99));
	k.fail_after = 0;
	KUNIT_EXPECT_EQ(test, mt_ring_consume(&r, 100, mt_ring_sink_copy, &k), (long)-EFAULT);
	KUNIT_EXPECT_EQ(test, mt_ring_pending(&r), 1ULL);
	mt_ring_clear(&r);
	KUNIT_EXPECT_EQ(test, mt_ring_pending(&r), 0ULL);
	mt_ring_destroy(&r);
}

/* A wait queue entry that only notes that it was woken. */
struct mt_ring_waiter {
	struct wait_queue_entry wq;
	bool woken;
};

static int mt_ring_waiter_wake(struct wait_queue_entry *wq, unsigned int mode,
			       int sync, void *key)
{
	container_of(wq, struct mt_ring_waiter, wq)->woken = true;
	return 0;
}

/*
 * The lost wake-up window: a producer has claimed its slot when the reader
 * drains the ring, finds it empty and sleeps; then the producer publishes.
 * Its record must wake the reader, or a blocking read(2) sleeps with
 * records pending for as long as the ring stays non-empty (no later record
 * finds it empty), i.e. until tracing stops.  Without the fix (the
 * emptiness decided before head was published) the waiter is never woken.
 */
static void mt_test_ring_wake_after_drain(struct kunit *test)
{
	struct mt_ring_sink k = { .fail_after = -1 };
	struct mt_ring_waiter w = { };
	struct memtrace_trace_rec *slot;
	unsigned long flags;
	struct mt_ring r;

	mt_ring_init(&r);
	KUNIT_ASSERT_EQ(test, mt_ring_resize(&r, 8), 0);
	KUNIT_ASSERT_TRUE(test, mt_ring_put_addr(&r, 1));
	irq_work_sync(&r.wake);
	init_waitqueue_func_entry(&w.wq, mt_ring_waiter_wake);
	add_wait_queue(&r.wait, &w.wq);

	local_irq_save(flags);
	slot = mt_ring_reserve(&r);
	if (slot) {
		/* The reader takes record 1 and sees nothing more: it sleeps. */
		KUNIT_EXPECT_EQ(test, mt_ring_consume(&r, 8, mt_ring_sink_copy, &k), 1L);
		KUNIT_EXPECT_EQ(test, mt_ring_pending(&r), 0ULL);
		*slot = (struct memtrace_trace_rec) { .addr = 2 };
	}
	mt_ring_commit(&r, slot);
	local_irq_restore(flags);
	KUNIT_ASSERT_NOT_NULL(test, slot);
	irq_work_sync(&r.wake);

	KUNIT_EXPECT_TRUE_MSG(test, w.woken,
			      "a reader asleep on an empty ring missed the record that filled it");
	KUNIT_EXPECT_EQ(test, mt_ring_pending(&r), 1ULL);
	KUNIT_EXPECT_EQ(test, mt_ring_consume(&r, 8, mt_ring_sink_copy, &k), 1L);
	KUNIT_EXPECT_EQ(test, k.addr[1], 2ULL);
	remove_wait_queue(&r.wait, &w.wq);
	mt_ring_destroy(&r);
}

/* Every CPU produces while one consumer drains: nothing lost or duplicated. */
#define MT_RING_RACE_PER_CPU	20000
struct mt_ring_race {
	struct mt_ring r;
	struct work_struct work[NR_CPUS > 64 ? 64 : NR_CPUS];
	atomic_t dropped;
	atomic_t producing;
	u32 next[NR_CPUS > 64 ? 64 : NR_CPUS];	/* consumer: next sequence per producer */
	atomic_t errors;
};

static struct mt_ring_race *mt_rrace;

static void mt_ring_race_fn(struct work_struct *w)
{
	u64 idx = w - mt_rrace->work, seq = 0;
	int i;

	for (i = 0; i < MT_RING_RACE_PER_CPU; i++) {
		/* A dropped record is retried, so the sequence has no holes. */
		while (!mt_ring_put_addr(&mt_rrace->r, idx << 32 | seq)) {
			atomic_inc(&mt_rrace->dropped);
			cond_resched();	/* the consumer may need this CPU */
		}
		seq++;
	}
	atomic_dec(&mt_rrace->producing);
}

static int mt_ring_race_copy(void *ctx, const struct memtrace_trace_rec *recs, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++) {
		u32 p = recs[i].addr >> 32, seq = (u32)recs[i].addr;

		if (p >= ARRAY_SIZE(mt_rrace->next) || mt_rrace->next[p] != seq)
			atomic_inc(&mt_rrace->errors);
		else
			mt_rrace->next[p]++;
	}
	return 0;
}

static void mt_test_ring_concurrent(struct kunit *test)
{
	int cpu, used = 0, c;

	mt_rrace = kunit_kzalloc(test, sizeof(*mt_rrace), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, mt_rrace);
	mt_ring_init(&mt_rrace->r);
	KUNIT_ASSERT_EQ(test, mt_ring_resize(&mt_rrace->r, 1024), 0);
	for_each_online_cpu(cpu) {
		if (cpu >= ARRAY_SIZE(mt_rrace->work))
			break;
		used++;
	}
	atomic_set(&mt_rrace->producing, used);
	for (c = 0; c < used; c++) {
		INIT_WORK(&mt_rrace->work[c], mt_ring_race_fn);
		schedule_work_on(c, &mt_rrace->work[c]);
	}
	while (atomic_read(&mt_rrace->producing) || mt_ring_pending(&mt_rrace->r)) {
		mutex_lock(&mt_rrace->r.read_lock);
		mt_ring_consume(&mt_rrace->r, 256, mt_ring_race_copy, NULL);
		mutex_unlock(&mt_rrace->r.read_lock);
		cond_resched();
	}
	for (c = 0; c < used; c++)
		flush_work(&mt_rrace->work[c]);
	KUNIT_EXPECT_EQ(test, atomic_read(&mt_rrace->errors), 0);
	for (c = 0; c < used; c++)
		KUNIT_EXPECT_EQ(test, mt_rrace->next[c], (u32)MT_RING_RACE_PER_CPU);
	kunit_info(test, "%d producers, %d full-ring retries\n", used,
		   atomic_read(&mt_rrace->dropped));
	mt_ring_destroy(&mt_rrace->r);
}

static struct kunit_case mt_stack_cases[] = {
	KUNIT_CASE(mt_test_stack_dedup),
	KUNIT_CASE(mt_test_stack_collisions),
	KUNIT_CASE(mt_test_stack_full),
	KUNIT_CASE(mt_test_stack_concurrent),
	KUNIT_CASE(mt_test_stack_code_freed),
	KUNIT_CASE(mt_test_kstack_memo_exact),
	KUNIT_CASE(mt_test_kstack_memo_variable_frame),
	KUNIT_CASE(mt_test_kstack_memo_refused),
	KUNIT_CASE(mt_test_kstack_no_memo),
	{}
};

static struct kunit_case mt_live_cases[] = {
	KUNIT_CASE(mt_test_live_basic),
	KUNIT_CASE(mt_test_live_one_entry),
	KUNIT_CASE(mt_test_live_full),
	KUNIT_CASE(mt_test_live_grow),
	KUNIT_CASE(mt_test_live_grow_kick),
	KUNIT_CASE(mt_test_live_concurrent),
	{}
};

static struct kunit_case mt_misc_cases[] = {
	KUNIT_CASE(mt_test_stat_merge),
	KUNIT_CASE(mt_test_stat_full),
	KUNIT_CASE(mt_test_names),
	KUNIT_CASE(mt_test_names_forget),
	KUNIT_CASE(mt_test_modsyms),
	KUNIT_CASE(mt_test_sampling_math),
	KUNIT_CASE(mt_test_sampling_unbiased),
	KUNIT_CASE(mt_test_sampling_thinned),
	KUNIT_CASE(mt_test_addr_sampling),
	KUNIT_CASE(mt_test_addr_sampling_slabs),
	{}
};

static struct kunit_case mt_calls_cases[] = {
	KUNIT_CASE(mt_test_calls_nested),
	KUNIT_CASE(mt_test_calls_abandoned),
	KUNIT_CASE(mt_test_calls_inside),
	KUNIT_CASE(mt_test_calls_full),
	KUNIT_CASE(mt_test_calls_concurrent),
	{}
};

static struct kunit_case mt_ring_cases[] = {
	KUNIT_CASE(mt_test_ring_basic),
	KUNIT_CASE(mt_test_ring_wake_after_drain),
	KUNIT_CASE(mt_test_ring_concurrent),
	{}
};

static struct kunit_suite mt_ring_suite = {
	.name = "memtrace_tracering",
	.test_cases = mt_ring_cases,
};

static struct kunit_suite mt_calls_suite = {
	.name = "memtrace_calltab",
	.test_cases = mt_calls_cases,
};

static struct kunit_suite mt_stack_suite = {
	.name = "memtrace_stacktab",
	.test_cases = mt_stack_cases,
};

static struct kunit_suite mt_live_suite = {
	.name = "memtrace_livetab",
	.test_cases = mt_live_cases,
};

static struct kunit_suite mt_misc_suite = {
	.name = "memtrace_counters",
	.test_cases = mt_misc_cases,
};

kunit_test_suites(&mt_stack_suite, &mt_live_suite, &mt_misc_suite,
		  &mt_calls_suite, &mt_ring_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit tests of memtrace's data structures");
