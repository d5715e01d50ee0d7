// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite of the event rings (evring.c), linked into memtrace_kunit.ko:
 * records in and out in order, padding at the end of the data, a full
 * ring and a record nested in another dropped and counted, the wake-up
 * decision, the consumer's checks, -t's trace records, and every CPU
 * producing at once against one consumer.
 */
#include <kunit/test.h>
#include <linux/cpumask.h>
#include <linux/workqueue.h>

#include "rings/evring.c"
#include "rings/tracering.h"

struct mt_ev_test_rec {
	struct memtrace_ev_hdr hdr;
	u32 seq;
	u32 cpu;
};

/* Put a record of size bytes (at least the test record) with seq on this CPU's ring. */
static bool mt_ev_put(struct mt_evring *er, u32 size, u32 seq, bool *woke)
{
	struct mt_ev_test_rec *r;
	unsigned long flags;
	bool w;

	r = mt_evring_reserve(er, MEMTRACE_EVT_OOM_KILL, size, &flags);
	if (!r)
		return false;
	r->seq = seq;
	r->cpu = smp_processor_id();
	w = mt_evring_commit(er, r, flags);
	if (woke)
		*woke = w;
	return true;
}

/*
 * Read cpu's pending records as a reader of the mapping would: each
 * non-pad record's seq into seqs (up to max), then give the space back.
 * Returns the records read, or -1 on a malformed ring.
 */
static int mt_ev_drain(struct mt_evring *er, u32 cpu, u32 *seqs, int max)
{
	struct memtrace_evring_meta *m = er->cpus[cpu].meta;
	u64 pos = READ_ONCE(m->consumer_pos);
	/* Pairs with the producer's release: records below end are whole. */
	u64 end = smp_load_acquire(&m->producer_pos);
	int n = 0;

	while (pos < end) {
		const struct mt_ev_test_rec *r;

		r = (const void *)(er->cpus[cpu].data + (pos & (er->data_size - 1)));
		if (r->hdr.size < sizeof(r->hdr) || r->hdr.size % 8 ||
		    pos + r->hdr.size > end)
			return -1;
		if (r->hdr.type != MEMTRACE_EVT_PAD) {
			if (n < max)
				seqs[n] = r->seq;
			n++;
		}
		pos += r->hdr.size;
	}
	if (mt_evring_consume(er, cpu, pos))
		return -1;
	return n;
}

static void mt_test_evring_basic(struct kunit *test)
{
	struct mt_evwake wake;
	struct mt_evring *er;
	u32 seqs[8], cpu;
	bool woke = false;
	int i;

	mt_evwake_init(&wake);
	er = mt_evring_create(1, &wake);
	KUNIT_ASSERT_NOT_NULL(test, er);
	KUNIT_EXPECT_EQ(test, er->data_size, (u32)PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, er->nr_cpus, nr_cpu_ids);
	KUNIT_EXPECT_FALSE(test, mt_evring_any_pending(er));

	cpu = get_cpu();
	/* The first record makes the ring non-empty: a wake-up; the rest not. */
	KUNIT_EXPECT_TRUE(test, mt_ev_put(er, sizeof(struct mt_ev_test_rec), 1, &woke));
	KUNIT_EXPECT_TRUE(test, woke);
	KUNIT_EXPECT_TRUE(test, mt_ev_put(er, 20, 2, &woke));	/* rounded up to 24 */
	KUNIT_EXPECT_FALSE(test, woke);
	KUNIT_EXPECT_TRUE(test, mt_ev_put(er, 100, 3, &woke));
	KUNIT_EXPECT_FALSE(test, woke);
	KUNIT_EXPECT_EQ(test, mt_evring_pending(er, cpu), 16ULL + 24 + 104);
	KUNIT_EXPECT_TRUE(test, mt_evring_any_pending(er));
	KUNIT_EXPECT_EQ(test, READ_ONCE(er->cpus[cpu].meta->written), 3ULL);

	/* The consumer may not go backwards, past the producer, or off 8 bytes. */
	KUNIT_EXPECT_EQ(test, mt_evring_consume(er, cpu, 16 + 24 + 104 + 8), -EINVAL);
	KUNIT_EXPECT_EQ(test, mt_evring_consume(er, cpu, 4), -EINVAL);
	KUNIT_EXPECT_EQ(test, mt_evring_consume(er, nr_cpu_ids, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, mt_evring_consume(er, cpu, 16), 0);
	KUNIT_EXPECT_EQ(test, mt_evring_consume(er, cpu, 8), -EINVAL);

	KUNIT_EXPECT_EQ(test, mt_ev_drain(er, cpu, seqs, ARRAY_SIZE(seqs)), 2);
	KUNIT_EXPECT_EQ(test, seqs[0], 2U);
	KUNIT_EXPECT_EQ(test, seqs[1], 3U);
	KUNIT_EXPECT_EQ(test, mt_evring_pending(er, cpu), 0ULL);

	/* Drained: the next record wakes the reader again. */
	KUNIT_EXPECT_TRUE(test, mt_ev_put(er, 16, 4, &woke));
	KUNIT_EXPECT_TRUE(test, woke);
	/* Too small for a header, or larger than half the ring: refused, counted. */
	KUNIT_EXPECT_FALSE(test, mt_ev_put(er, PAGE_SIZE / 2 + 8, 5, NULL));
	KUNIT_EXPECT_EQ(test, READ_ONCE(er->cpus[cpu].meta->lost), 1ULL);
	for (i = 0; i < er->nr_cpus; i++)
		if (i != cpu)
			KUNIT_EXPECT_EQ(test, mt_evring_pending(er, i), 0ULL);
	put_cpu();
	mt_evwake_sync(&wake);
	mt_evring_put(er);
}

/* A full ring drops and counts; records never straddle the end of the data. */
static void mt_test_evring_wrap_full(struct kunit *test)
{
	const u32 size = 200;		/* not a divisor of the data size */
	u32 seqs[64], seq = 0, want = 0, cpu;
	u64 lost_before;
	struct mt_evwake wake;
	struct mt_evring *er;
	int round, n, i;

	mt_evwake_init(&wake);
	er = mt_evring_create(1, &wake);
	KUNIT_ASSERT_NOT_NULL(test, er);
	cpu = get_cpu();
	for (round = 0; round < 10; round++) {
		/* Fill it: PAGE_SIZE / 200 records fit at most. */
		while (mt_ev_put(er, size, seq, NULL))
			seq++;
		lost_before = READ_ONCE(er->cpus[cpu].meta->lost);
		KUNIT_EXPECT_EQ(test, lost_before, (u64)round + 1);
		KUNIT_EXPECT_LE(test, mt_evring_pending(er, cpu), (u64)PAGE_SIZE);
		n = mt_ev_drain(er, cpu, seqs, ARRAY_SIZE(seqs));
		KUNIT_EXPECT_GT(test, n, 0);
		if (n <= 0)
			break;
		for (i = 0; i < n; i++)
			KUNIT_EXPECT_EQ(test, seqs[i], want + i);
		want += n;
		KUNIT_EXPECT_EQ(test, want, seq);
	}
	/* Ten fills of a 4 KiB ring with 200-byte records went round it. */
	KUNIT_EXPECT_GT(test, READ_ONCE(er->cpus[cpu].meta->producer_pos), 8ULL * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, READ_ONCE(er->cpus[cpu].meta->written), (u64)seq);
	put_cpu();
	mt_evwake_sync(&wake);
	mt_evring_put(er);
}

/*
 * What an NMI (or a kprobe's int3) between reserve and commit meets: the
 * ring busy.  Its record is dropped and counted; the outer one is whole.
 */
static void mt_test_evring_nested(struct kunit *test)
{
	struct mt_ev_test_rec *outer;
	struct mt_evwake wake;
	struct mt_evring *er;
	unsigned long flags;
	u32 seqs[4], cpu;

	mt_evwake_init(&wake);
	er = mt_evring_create(1, &wake);
	KUNIT_ASSERT_NOT_NULL(test, er);
	outer = mt_evring_reserve(er, MEMTRACE_EVT_OOM_KILL, sizeof(*outer), &flags);
	KUNIT_ASSERT_NOT_NULL(test, outer);
	cpu = smp_processor_id();
	outer->seq = 7;
	KUNIT_EXPECT_FALSE(test, mt_ev_put(er, sizeof(*outer), 8, NULL));
	mt_evring_commit(er, outer, flags);
	KUNIT_EXPECT_EQ(test, READ_ONCE(er->cpus[cpu].meta->lost), 1ULL);
	KUNIT_EXPECT_EQ(test, mt_ev_drain(er, cpu, seqs, ARRAY_SIZE(seqs)), 1);
	KUNIT_EXPECT_EQ(test, seqs[0], 7U);
	mt_evwake_sync(&wake);
	mt_evring_put(er);
}

/* ---- trace records (-t) in the rings ---- */

/*
 * Read cpu's pending trace records, checking each is whole and typed as
 * its record says, and that its addr is the next seq; then give the space
 * back.  Returns the records read, or -1 on anything else.
 */
static int mt_ev_drain_trace(struct mt_evring *er, u32 cpu, u64 *next)
{
	struct memtrace_evring_meta *m = er->cpus[cpu].meta;
	u64 pos = READ_ONCE(m->consumer_pos);
	/* Pairs with the producer's release: records below end are whole. */
	u64 end = smp_load_acquire(&m->producer_pos);
	int n = 0;

	while (pos < end) {
		const struct memtrace_ev_trace *r;
		u16 want;

		r = (const void *)(er->cpus[cpu].data + (pos & (er->data_size - 1)));
		if (r->hdr.size < sizeof(r->hdr) || pos + r->hdr.size > end)
			return -1;
		if (r->hdr.type != MEMTRACE_EVT_PAD) {
			want = r->rec.type == MEMTRACE_TRACE_FREE ? MEMTRACE_EVT_FREE_TRACE :
								    MEMTRACE_EVT_ALLOC_TRACE;
			if (r->hdr.size != sizeof(*r) || r->hdr.type != want ||
			    r->rec.addr != *next || r->rec.ts_ns != *next * 10 ||
			    r->rec.bytes_req != 64 || memcmp(r->rec.comm, "tracer", 7))
				return -1;
			++*next;
			n++;
		}
		pos += r->hdr.size;
	}
	if (mt_evring_consume(er, cpu, pos))
		return -1;
	return n;
}

/*
 * -t's records through a one-page ring: each read back whole, in order,
 * typed alloc or free; a full ring drops the rest, and what was put is
 * exactly what was read plus what the ring counts lost, round after round.
 */
static void mt_test_evring_trace(struct kunit *test)
{
	struct memtrace_trace_rec rec = { .bytes_req = 64, .comm = "tracer" };
	u64 seq = 0, next = 0, produced = 0, dropped = 0, read = 0;
	struct mt_evwake wake;
	struct mt_evring *er;
	int round, n;
	u32 cpu;

	mt_evwake_init(&wake);
	er = mt_evring_create(1, &wake);
	KUNIT_ASSERT_NOT_NULL(test, er);
	cpu = get_cpu();
	for (round = 0; round < 8; round++) {
		/* More than fit: PAGE_SIZE / 72 at most. */
		for (n = 0; n < 100; n++) {
			rec.addr = seq;
			rec.ts_ns = seq * 10;
			rec.type = seq % 3 ? MEMTRACE_TRACE_ALLOC : MEMTRACE_TRACE_FREE;
			produced++;
			/* seq numbers the records kept: the reader's next. */
			if (mt_trace_evring_put(er, &rec))
				seq++;
			else
				dropped++;
		}
		KUNIT_EXPECT_EQ(test, READ_ONCE(er->cpus[cpu].meta->lost), dropped);
		n = mt_ev_drain_trace(er, cpu, &next);
		/* No ASSERT between get_cpu() and put_cpu(): it would not return. */
		KUNIT_EXPECT_GE(test, n, (int)(PAGE_SIZE / sizeof(struct memtrace_ev_trace)) - 1);
		if (n < 0)
			break;
		read += n;
		KUNIT_EXPECT_EQ(test, next, seq);
		KUNIT_EXPECT_EQ(test, produced, read + READ_ONCE(er->cpus[cpu].meta->lost));
	}
	KUNIT_EXPECT_EQ(test, READ_ONCE(er->cpus[cpu].meta->written), read);
	put_cpu();
	mt_evwake_sync(&wake);
	mt_evring_put(er);
}

/* ---- every CPU producing, one consumer ---- */

#define MT_EV_RACE_PER_CPU	20000
#define MT_EV_RACE_CPUS		8

static struct mt_ev_race {
	struct mt_evring *er;
	struct work_struct work[MT_EV_RACE_CPUS];
	u32 next[MT_EV_RACE_CPUS];	/* consumer: next seq expected per CPU */
	u32 delivered[MT_EV_RACE_CPUS];
	atomic_t producing;
	atomic_t errors;
	u32 seqs[512];			/* consumer's scratch: a 2-page ring's smallest records */
} *mt_ev_race;

static void mt_ev_race_fn(struct work_struct *w)
{
	u32 i;

	/* Bound to its CPU: each seq goes to that CPU's ring, or is lost. */
	for (i = 0; i < MT_EV_RACE_PER_CPU; i++) {
		mt_ev_put(mt_ev_race->er, 16 + 8 * (i % 5), i, NULL);
		if (!(i % 64))
			cond_resched();
	}
	atomic_dec(&mt_ev_race->producing);
}

static void mt_ev_race_drain(void)
{
	u32 *seqs = mt_ev_race->seqs, cpu;
	int n, i;

	for (cpu = 0; cpu < MT_EV_RACE_CPUS && cpu < mt_ev_race->er->nr_cpus; cpu++) {
		n = mt_ev_drain(mt_ev_race->er, cpu, seqs, ARRAY_SIZE(mt_ev_race->seqs));
		if (n < 0 || n > ARRAY_SIZE(mt_ev_race->seqs)) {
			atomic_inc(&mt_ev_race->errors);
			continue;
		}
		for (i = 0; i < n; i++) {
			/* In order; a gap is a dropped record, never a reordering. */
			if (seqs[i] < mt_ev_race->next[cpu])
				atomic_inc(&mt_ev_race->errors);
			mt_ev_race->next[cpu] = seqs[i] + 1;
		}
		mt_ev_race->delivered[cpu] += n;
	}
}

static void mt_test_evring_concurrent(struct kunit *test)
{
	struct mt_evwake wake;
	int cpu, used = 0, c;
	u64 lost, total = 0;

	mt_ev_race = kunit_kzalloc(test, sizeof(*mt_ev_race), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, mt_ev_race);
	mt_evwake_init(&wake);
	mt_ev_race->er = mt_evring_create(2, &wake);
	KUNIT_ASSERT_NOT_NULL(test, mt_ev_race->er);
	for_each_online_cpu(cpu) {
		if (cpu != used || used >= MT_EV_RACE_CPUS)
			break;
		used++;
	}
	atomic_set(&mt_ev_race->producing, used);
	for (c = 0; c < used; c++) {
		INIT_WORK(&mt_ev_race->work[c], mt_ev_race_fn);
		schedule_work_on(c, &mt_ev_race->work[c]);
	}
	while (atomic_read(&mt_ev_race->producing) || mt_evring_any_pending(mt_ev_race->er)) {
		mt_ev_race_drain();
		cond_resched();
	}
	for (c = 0; c < used; c++)
		flush_work(&mt_ev_race->work[c]);
	mt_ev_race_drain();
	KUNIT_EXPECT_EQ(test, atomic_read(&mt_ev_race->errors), 0);
	for (c = 0; c < used; c++) {
		struct memtrace_evring_meta *m = mt_ev_race->er->cpus[c].meta;

		/* Nothing vanishes: each record was delivered or counted lost. */
		lost = READ_ONCE(m->lost);
		KUNIT_EXPECT_EQ(test, mt_ev_race->delivered[c] + lost, (u64)MT_EV_RACE_PER_CPU);
		KUNIT_EXPECT_EQ(test, READ_ONCE(m->written), (u64)mt_ev_race->delivered[c]);
		total += lost;
	}
	kunit_info(test, "%d producers, %llu records dropped on a full ring\n", used, total);
	mt_evwake_sync(&wake);
	mt_evring_put(mt_ev_race->er);
}

static struct kunit_case mt_evring_cases[] = {
	KUNIT_CASE(mt_test_evring_basic),
	KUNIT_CASE(mt_test_evring_wrap_full),
	KUNIT_CASE(mt_test_evring_nested),
	KUNIT_CASE(mt_test_evring_trace),
	KUNIT_CASE(mt_test_evring_concurrent),
	{}
};

static struct kunit_suite mt_evring_suite = {
	.name = "memtrace_evring",
	.test_cases = mt_evring_cases,
};

kunit_test_suites(&mt_evring_suite);
