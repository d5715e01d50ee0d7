// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite of the user-stack unwind tables (unwind.c), linked into
 * memtrace_kunit.ko: the lookup of a file offset (against a linear
 * search, on every boundary; directly and through the buckets the walk
 * uses), and the validation that refuses a reader's
 * corrupt table (unsorted, duplicated, out of the file, unknown rules,
 * offsets out of bounds or misaligned, non-zero padding, too many rows).
 */
#include <kunit/test.h>

#include "unwind/unwind.c"

static struct memtrace_unwind_row mt_unw_rsp(u32 start, s32 cfa_off)
{
	return (struct memtrace_unwind_row) {
		.start = start, .cfa_reg = MEMTRACE_UNW_CFA_RSP, .cfa_off = cfa_off, .ra_off = -8,
	};
}

static const struct memtrace_unwind_row *mt_unw_linear(const struct memtrace_unwind_row *rows,
							u32 nr, u64 off)
{
	const struct memtrace_unwind_row *best = NULL;
	u32 i;

	for (i = 0; i < nr; i++)
		if (rows[i].start <= off)
			best = &rows[i];
	return best;
}

static void mt_test_unwind_find(struct kunit *test)
{
	struct memtrace_unwind_row rows[3] = {
		mt_unw_rsp(0x100, 8),
		{ .start = 0x200, .cfa_reg = MEMTRACE_UNW_CFA_NONE },
		{ .start = 0x300, .cfa_reg = MEMTRACE_UNW_CFA_RBP, .cfa_off = 16, .ra_off = -8,
		  .rbp_rule = MEMTRACE_UNW_RBP_AT_CFA, .rbp_off = -16 },
	};

	KUNIT_EXPECT_NULL(test, mt_unwind_find(rows, 3, 0));
	KUNIT_EXPECT_NULL(test, mt_unwind_find(rows, 3, 0xff));
	KUNIT_EXPECT_PTR_EQ(test, mt_unwind_find(rows, 3, 0x100), &rows[0]);
	KUNIT_EXPECT_PTR_EQ(test, mt_unwind_find(rows, 3, 0x1ff), &rows[0]);
	KUNIT_EXPECT_PTR_EQ(test, mt_unwind_find(rows, 3, 0x200), &rows[1]);
	KUNIT_EXPECT_PTR_EQ(test, mt_unwind_find(rows, 3, 0x300), &rows[2]);
	KUNIT_EXPECT_PTR_EQ(test, mt_unwind_find(rows, 3, U32_MAX + 5ULL), &rows[2]);
	KUNIT_EXPECT_NULL(test, mt_unwind_find(rows, 0, 0x100));
	KUNIT_EXPECT_PTR_EQ(test, mt_unwind_find(rows, 1, 0x5000), &rows[0]);
}

/* Tables of every size up to 600 rows, at uneven strides: each boundary and each gap's middle. */
static void mt_test_unwind_find_all(struct kunit *test)
{
	struct memtrace_unwind_row *rows;
	u32 nr, i, start;

	rows = kunit_kcalloc(test, 600, sizeof(*rows), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rows);
	for (nr = 1; nr <= 600; nr += 37) {
		for (i = 0, start = 16; i < nr; i++, start += 1 + (i * 7919) % 97)
			rows[i] = mt_unw_rsp(start, 8 + 8 * (i % 4));
		KUNIT_EXPECT_EQ(test, mt_unwind_validate(rows, nr, start + 1), 0);
		for (i = 0; i < nr; i++) {
			u64 offs[3] = { rows[i].start, rows[i].start - 1,
					i + 1 < nr ? (rows[i].start + rows[i + 1].start) / 2 :
						     rows[i].start + 1000 };
			int k;

			for (k = 0; k < 3; k++)
				KUNIT_EXPECT_PTR_EQ(test, mt_unwind_find(rows, nr, offs[k]),
						    mt_unw_linear(rows, nr, offs[k]));
		}
	}
}

/*
 * The lookup through the buckets of 1 KiB (the walk's) against the linear
 * one: rows denser and sparser than a bucket, a first row above offset 0,
 * at each row's start and the byte before it, and at each bucket's edges.
 */
static void mt_test_unwind_find_indexed(struct kunit *test)
{
	static const u32 strides[] = { 1, 37, 1500, 9000 };
	struct mt_unwind_table t = { };
	struct memtrace_unwind_row *rows;
	u32 nr, i, s, start, b;

	rows = kunit_kcalloc(test, 300, sizeof(*rows), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rows);
	for (s = 0; s < ARRAY_SIZE(strides); s++) {
		for (nr = 1; nr <= 300; nr += 23) {
			for (i = 0, start = 5000; i < nr; i++)
				rows[i] = mt_unw_rsp(start += strides[s] * (1 + (i * 7919) % 13), 8);
			t.rows = rows;
			t.nr_rows = nr;
			t.nr_buckets = mt_unwind_nr_buckets(rows, nr);
			t.bucket = kunit_kcalloc(test, t.nr_buckets, sizeof(u32), GFP_KERNEL);
			KUNIT_ASSERT_NOT_NULL(test, t.bucket);
			mt_unwind_index(rows, nr, t.bucket, t.nr_buckets);
			for (i = 0; i < nr; i++) {
				u64 off = rows[i].start;

				KUNIT_EXPECT_PTR_EQ(test, mt_unwind_find_indexed(&t, off),
						    mt_unw_linear(rows, nr, off));
				KUNIT_EXPECT_PTR_EQ(test, mt_unwind_find_indexed(&t, off - 1),
						    mt_unw_linear(rows, nr, off - 1));
			}
			for (b = 0; b <= t.nr_buckets + 1; b++) {
				u64 first = (u64)b << MT_UNWIND_BUCKET_SHIFT;

				KUNIT_EXPECT_PTR_EQ(test, mt_unwind_find_indexed(&t, first),
						    mt_unw_linear(rows, nr, first));
				KUNIT_EXPECT_PTR_EQ(test, mt_unwind_find_indexed(&t, first + 1023),
						    mt_unw_linear(rows, nr, first + 1023));
			}
			KUNIT_EXPECT_PTR_EQ(test, mt_unwind_find_indexed(&t, U32_MAX + 5ULL),
					    &rows[nr - 1]);
			kunit_kfree(test, t.bucket);
			/* A table too small for an index: searched as it is. */
			t.bucket = NULL;
			KUNIT_EXPECT_PTR_EQ(test, mt_unwind_find_indexed(&t, rows[0].start - 1), NULL);
			KUNIT_EXPECT_PTR_EQ(test, mt_unwind_find_indexed(&t, rows[nr - 1].start),
					    &rows[nr - 1]);
		}
	}
}

/* Each corruption of a good table, alone, is refused. */
static void mt_test_unwind_validate(struct kunit *test)
{
	struct memtrace_unwind_row good[4] = {
		mt_unw_rsp(0x10, 8),
		mt_unw_rsp(0x11, 16),
		{ .start = 0x14, .cfa_reg = MEMTRACE_UNW_CFA_RBP, .cfa_off = 16, .ra_off = -8,
		  .rbp_rule = MEMTRACE_UNW_RBP_AT_CFA, .rbp_off = -16 },
		/* A row without information may carry anything in its offsets. */
		{ .start = 0x40, .cfa_reg = MEMTRACE_UNW_CFA_NONE, .cfa_off = -5, .ra_off = 3 },
	};
	struct memtrace_unwind_row t[4];

#define MT_UNW_BAD(what, row, field, value) do {				\
		memcpy(t, good, sizeof(good));					\
		t[row].field = value;						\
		KUNIT_EXPECT_EQ_MSG(test, mt_unwind_validate(t, 4, 0x1000), -EINVAL, what); \
	} while (0)

	KUNIT_EXPECT_EQ(test, mt_unwind_validate(good, 4, 0x1000), 0);
	KUNIT_EXPECT_EQ(test, mt_unwind_validate(good, 0, 0x1000), -EINVAL);
	KUNIT_EXPECT_EQ(test, mt_unwind_validate(good, MEMTRACE_UNW_MAX_ROWS + 1, 0x1000),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, mt_unwind_validate(good, 4, 0x40), -EINVAL);
	MT_UNW_BAD("unsorted", 1, start, 0x5);
	MT_UNW_BAD("start twice", 1, start, 0x10);
	MT_UNW_BAD("unknown CFA rule", 0, cfa_reg, MEMTRACE_UNW_CFA_MAX + 1);
	MT_UNW_BAD("unknown rbp rule", 0, rbp_rule, 2);
	MT_UNW_BAD("padding", 2, __pad, 1);
	MT_UNW_BAD("CFA at sp", 0, cfa_off, 0);
	MT_UNW_BAD("CFA below sp", 1, cfa_off, -8);
	MT_UNW_BAD("CFA too far", 1, cfa_off, MEMTRACE_UNW_MAX_CFA_OFF);
	MT_UNW_BAD("return address above the CFA", 0, ra_off, 8);
	MT_UNW_BAD("return address misaligned", 0, ra_off, -12);
	MT_UNW_BAD("saved rbp above the CFA", 2, rbp_off, 16);
	MT_UNW_BAD("saved rbp misaligned", 2, rbp_off, -20);
#undef MT_UNW_BAD
}

static struct kunit_case mt_unwind_cases[] = {
	KUNIT_CASE(mt_test_unwind_find),
	KUNIT_CASE(mt_test_unwind_find_all),
	KUNIT_CASE(mt_test_unwind_find_indexed),
	KUNIT_CASE(mt_test_unwind_validate),
	{}
};

static struct kunit_suite mt_unwind_suite = {
	.name = "memtrace_unwind",
	.test_cases = mt_unwind_cases,
};

kunit_test_suites(&mt_unwind_suite);
