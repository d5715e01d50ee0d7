// SPDX-License-Identifier: GPL-2.0
/* The memleak-style report: exact text for small snapshots. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aggregate.h"
#include "harness.h"
#include "kfmemo.h"
#include "ksyms.h"
#include "report.h"
#include "rmodel.h"
#include "snapbuild.h"
#include "snapshot.h"

#define SEC 1000000000ULL

static struct snapbuild sb;

/*
 * Five stacks with outstanding allocations: one over two caches (their
 * counters add up), one without a recorded stack, a percpu one, page
 * allocations, and one whose allocations are all too young to report.
 */
static void build(void)
{
	static const uint64_t s8[] = { 0xffffffff8123451aULL, 0xffffffff8110003fULL,
				       0xffffffffc0a00023ULL };
	static const uint64_t s3[] = { 0xffffffff81400010ULL, 0xffffffffc0a00110ULL };
	static const uint64_t s5[] = { 0xffffffffc0b00044ULL, 0xffffffff70000000ULL };
	static const uint64_t s9[] = { 0xffffffff81300008ULL };
	static const uint64_t s11[] = { 0xffffffff81500001ULL };
	struct memtrace_stat_rec *r;

	sb_init(&sb);
	sb_stack(&sb, 8, 3, s8);
	sb_stack(&sb, 3, 2, s3);
	sb_stack(&sb, 5, 2, s5);
	sb_stack(&sb, 9, 1, s9);
	sb_stack(&sb, 11, 1, s11);
	sb_cache(&sb, 1, "kmalloc-8k", 8192);
	sb_cache(&sb, 2, "dentry", 192);
	sb_cache(&sb, 3, "kmalloc-64", 64);
	sb_stat(&sb, 8, 1, MEMTRACE_KIND_KMALLOC, 1, 8192);
	r = sb_stat(&sb, 3, 2, MEMTRACE_KIND_CACHE, 4, 768);
	r->total_allocs = 40;
	r->total_bytes = 7680;
	r->frees = 36;
	r = sb_stat(&sb, 3, 3, MEMTRACE_KIND_KMALLOC, 2, 128);
	r->total_allocs = 10;
	r->total_bytes = 640;
	r->frees = 8;
	sb_stat(&sb, 5, 0, MEMTRACE_KIND_PAGE, 3, 12288);
	sb_stat(&sb, MEMTRACE_STACK_NONE, 3, MEMTRACE_KIND_KMALLOC, 1, 64);
	sb_stat(&sb, 9, 0, MEMTRACE_KIND_PERCPU, 2, 64);
	r = sb_stat(&sb, 11, 3, MEMTRACE_KIND_KMALLOC, 0, 0);
	r->live_count = 5;
	r->live_bytes = 320;
	sb_alloc(&sb, 0xffff888004a00000ULL, 50 * SEC, 8, 8192, 42, "insmod",
		 MEMTRACE_KIND_KMALLOC);
	sb_alloc(&sb, 0x12345, 10 * SEC + SEC / 2, 5, 4096, 1, "kworker/0:1", MEMTRACE_KIND_PAGE);
	sb_alloc(&sb, 0xffff888004b00040ULL, 99 * SEC + SEC / 4 * 3, 8, 64, 42, "insmod",
		 MEMTRACE_KIND_KMALLOC);	/* 0.25 s old: younger than -o */
	sb.hdr.loss = (struct memtrace_loss){ .recursion = 1, .nmi = 2, .live_full = 3,
					      .stack_full = 4, .stat_full = 5, .cache_full = 6,
					      .comm_full = 7, .free_untracked = 12 };
	sb.hdr.activity = (struct memtrace_activity){
		.allocs_seen = 1000, .frees_seen = 900, .allocs_recorded = 990,
		.frees_matched = 880, .filtered = 7, .sampled_out = 3, .live_entries = 110,
		.live_capacity = 65536 };
}

/* Parses the built snapshot and renders one report into a string. */
static char *render(struct mt_options *o, const char *kallsyms, struct trend_table *trend,
		    void (*prepare)(struct trend_table *))
{
	struct report_ctx ctx = { .opts = o, .trend = trend };
	struct stack_total *totals;
	struct mt_snapshot snap;
	struct mt_err err;
	size_t len, nr, size = 0;
	uint8_t *buf = sb_build(&sb, &len);
	char *text = NULL;
	FILE *out;

	snprintf(ctx.timestamp, sizeof(ctx.timestamp), "12:34:56");
	ctx.ksyms = ksyms_new(fixture_path(kallsyms));
	if (snapshot_parse(buf, len, &snap, &err) || ksyms_reload(ctx.ksyms, &err)) {
		diag("setup failed: %s", err.msg);
		free(buf);
		ksyms_free(ctx.ksyms);
		return strdup("");
	}
	out = open_memstream(&text, &size);
	aggregate_by_stack(&snap, report_kind_mask(o), &totals, &nr);
	if (prepare)
		prepare(trend);
	if (trend)
		trend_update(trend, totals, nr);
	report_leaks(out, &snap, totals, nr, &ctx);
	fclose(out);
	free(totals);
	snapshot_free(&snap);
	ksyms_free(ctx.ksyms);
	free(buf);
	return text;
}

static void test_default(void)
{
	struct mt_options o;
	char *text;

	cli_defaults(&o);
	build();
	text = render(&o, "kallsyms-basic.txt", NULL, NULL);
	check(same_as_golden(text, "report-default.txt"),
	      "report: memleak format, top stacks by size, largest last, with the loss footer");
	free(text);
}

static void test_show_allocs(void)
{
	struct mt_options o;
	char *text;

	cli_defaults(&o);
	o.show_allocs = true;
	o.top = 2;
	build();
	text = render(&o, "kallsyms-basic.txt", NULL, NULL);
	check(same_as_golden(text, "report-show-allocs.txt"),
	      "report -a -T 2: addr/size lines with task and age, young ones left out");
	free(text);
}

/* Three earlier intervals: stack 3 growing by 56 recorded bytes, 9 flat. */
static void history(struct trend_table *t)
{
	for (uint64_t i = 1; i <= 3; i++) {
		struct stack_total tot[2] = { { .stack_id = 3, .live_bytes = 56 * i },
					      { .stack_id = 9, .live_bytes = 16 } };

		trend_update(t, tot, 2);
	}
}

static void test_combined_sampled_trend(void)
{
	struct trend_table *trend = trend_new();
	struct mt_options o;
	char *text;

	cli_defaults(&o);
	o.combined_only = true;
	o.sort = MT_SORT_COUNT;
	o.top = 3;
	build();
	/* 1 in 4 sampled: the module's estimates are 4x the recorded counts. */
	sb.hdr.sample_every = 4;
	for (unsigned int i = 0; i < sb.nr_stats; i++) {
		struct memtrace_stat_rec *r = &sb.stats[i];

		r->live_bytes /= 4;
		r->old_count = r->old_count ? (r->old_count + 3) / 4 : 0;
		r->old_bytes /= 4;
	}
	text = render(&o, "kallsyms-basic.txt", trend, history);
	check(same_as_golden(text, "report-combined-sampled.txt"),
	      "report -C --sort count -T 3 under sampling: estimates, totals, trend tags");
	free(text);
	trend_free(trend);
}

static void test_percpu_and_restricted(void)
{
	struct mt_options o;
	char *text;

	cli_defaults(&o);
	o.percpu = true;
	build();
	text = render(&o, "kallsyms-restricted.txt", NULL, NULL);
	check(strstr(text, "\t64 bytes in 2 allocations from stack\n"
		     "\t\t0xffffffff81300008 [unknown]\nLost:") &&
	      !strstr(text, "8192 bytes") && !strstr(text, "12288 bytes"),
	      "report -P shows only percpu allocations");
	check(strstr(text, "Note: ") && strstr(text, "kptr_restrict"),
	      "report says when kallsyms hides kernel addresses");
	free(text);
}

static void test_empty(void)
{
	struct mt_options o;
	char *text;

	cli_defaults(&o);
	sb_init(&sb);
	sb.hdr.state = MEMTRACE_STATE_STOPPED;
	text = render(&o, "kallsyms-basic.txt", NULL, NULL);
	check(!strncmp(text, "[12:34:56] Top 10 stacks with outstanding allocations:\nLost: 0 recursion",
		       strlen("[12:34:56] Top 10 stacks with outstanding allocations:\nLost: 0 recursion")) &&
	      strstr(text, "tracing is stopped"),
	      "report of an empty snapshot still has its header and footer");
	free(text);
}

/*
 * Module code freed while tracing: init code after a module's init, a
 * module's core at unload, then another module loaded at its address.
 * Frames of stacks made before the code went are named from the freed
 * functions; later stacks from kallsyms; the unload is reported.
 */
static void build_freed(void)
{
	static const uint64_t s1[] = { 0xffffffffc0d00030ULL, 0xffffffffc0d00090ULL,
				       0xffffffffc0a00110ULL };
	static const uint64_t s2[] = { 0xffffffffc0b00010ULL, 0xffffffff81100020ULL };

	sb_init(&sb);
	sb.hdr.state = MEMTRACE_STATE_TRACING;
	sb.hdr.now_ns = 100ULL * 1000000000ULL;
	sb.hdr.code_epoch = 2;
	sb_stack(&sb, 8, 3, s1);
	sb_stack(&sb, 16, 2, s2);
	sb_stack(&sb, 24, 2, s2);
	sb_stack_epoch(&sb, 16, 1);
	sb_stack_epoch(&sb, 24, 2);
	sb_stat(&sb, 8, 0, MEMTRACE_KIND_KMALLOC, 1, 512);
	sb_stat(&sb, 16, 0, MEMTRACE_KIND_KMALLOC, 4, 1024);
	sb_stat(&sb, 24, 0, MEMTRACE_KIND_KMALLOC, 2, 64);
	/* memtrace_leaker's init code, freed at epoch 1 */
	sb_ksym(&sb, 0xffffffffc0d00000ULL, 0x100, 1, MEMTRACE_KSYM_INIT | MEMTRACE_KSYM_RANGE,
		"", "memtrace_leaker");
	sb_ksym(&sb, 0xffffffffc0d00000ULL, 0x40, 1, MEMTRACE_KSYM_INIT, "leaker_init",
		"memtrace_leaker");
	/* gone_mod unloaded at epoch 2; other_mod now lives at its address */
	sb_ksym(&sb, 0xffffffffc0b00000ULL, 0x1000, 2, MEMTRACE_KSYM_RANGE, "", "gone_mod");
	sb_ksym(&sb, 0xffffffffc0b00000ULL, 0x80, 2, 0, "gone_fn", "gone_mod");
}

/*
 * The freed-code snapshot (build_freed()) parsed, with the fixture's
 * kallsyms, for a default report at 12:34:56; the caller frees *buf and
 * ctx->ksyms.  Non-zero (and a failed check named by what) on error.
 */
static int freed_setup(struct report_ctx *ctx, struct mt_options *o, struct mt_snapshot *snap,
		       uint8_t **buf, const char *what)
{
	struct mt_err err;
	size_t len;

	build_freed();
	*buf = sb_build(&sb, &len);
	cli_defaults(o);
	o->older_ms = 0;
	ctx->opts = o;
	snprintf(ctx->timestamp, sizeof(ctx->timestamp), "12:34:56");
	ctx->ksyms = ksyms_new(fixture_path("kallsyms-basic.txt"));
	if (snapshot_parse(*buf, len, snap, &err) || ksyms_reload(ctx->ksyms, &err)) {
		check(false, "%s: setup failed: %s", what, err.msg);
		return -1;
	}
	return 0;
}

static void test_freed_code(void)
{
	struct report_ctx ctx = { 0 };
	struct stack_total *totals = NULL;
	struct mt_snapshot snap;
	struct mt_options o;
	size_t nr = 0, size = 0;
	uint8_t *buf;
	uint32_t seen = 0;
	char *text = NULL;
	FILE *out;
	bool ok;

	if (freed_setup(&ctx, &o, &snap, &buf, "freed code"))
		goto out;
	aggregate_by_stack(&snap, report_kind_mask(&o), &totals, &nr);
	out = open_memstream(&text, &size);
	report_module_unloads(out, &snap, totals, nr, &ctx, &seen);
	report_leaks(out, &snap, totals, nr, &ctx);
	fclose(out);
	ok = strstr(text, "\t\tleaker_init+0x30 [memtrace_leaker]\n"
			  "\t\t0xffffffffc0d00090 [memtrace_leaker init]\n"
			  "\t\tmemtrace_leaker_work+0x10 [memtrace_leaker]\n") != NULL;
	check(ok, "a frame in freed init code is named from the module's own symbols, "
	      "or its module where no function covers it");
	{
		struct rm_frame f, g;

		ksyms_frame(ctx.ksyms, &snap, 0, 0xffffffffc0d00090ULL, &f);
		ok = !f.function && f.module && !strcmp(f.module, "memtrace_leaker init") &&
		     f.offset == 0xffffffffc0d00090ULL;
		ksyms_frame(ctx.ksyms, &snap, 0, 0xffffffffc0d00030ULL, &g);
		ok = ok && g.function && !strcmp(g.function, "leaker_init") && g.offset == 0x30 &&
		     g.module && !strcmp(g.module, "memtrace_leaker");
		check(ok, "ksyms fills a frame in freed code: its function, or module "
		      "\"<module> init\" and the address");
	}
	ok = strstr(text, "\t1024 bytes in 4 allocations from stack\n"
			  "\t\tgone_fn+0x10 [gone_mod]\n") &&
	     strstr(text, "\t64 bytes in 2 allocations from stack\n"
			  "\t\tother_fn+0x10 [other_mod]\n");
	check(ok, "the same address is the unloaded module's for a stack made before, "
	      "the new module's for one made after");
	ok = strstr(text, "[12:34:56] Module gone_mod unloaded: 1024 bytes in 4 allocations "
			  "made through its code are still live:\n"
			  "\t1024 bytes in 4 allocations from stack\n"
			  "\t\tgone_fn+0x10 [gone_mod]\n") && seen == 2 &&
	     !strstr(text, "Module memtrace_leaker unloaded");
	check(ok, "an unloaded module is reported with what its code left, once");
	if (!ok)
		diag("%s", text);
	free(text);
	text = NULL;
	out = open_memstream(&text, &size);
	o.module = "gone_mod";
	report_leaks(out, &snap, totals, nr, &ctx);
	fclose(out);
	check(strstr(text, "gone_fn+0x10") && !strstr(text, "leaker_init") &&
	      !strstr(text, "other_fn"), "--module keeps the stacks through that module's code");
	free(text);
	free(totals);
	snapshot_free(&snap);
out:
	ksyms_free(ctx.ksyms);
	free(buf);
}

/* One report of snap, as a string. */
static char *leaks_text(const struct mt_snapshot *snap, const struct stack_total *totals,
			size_t nr, const struct report_ctx *ctx)
{
	size_t size = 0;
	char *text = NULL;
	FILE *out = open_memstream(&text, &size);

	report_leaks(out, snap, totals, nr, ctx);
	fclose(out);
	return text;
}

/*
 * The snapshot's memo of kernel frames (kfmemo.c) changes no byte: a
 * report without it, one filling it and one from it are the same, with
 * an address named differently by stacks of two epochs (build_freed).
 */
/* Names from a symbol table loaded again (a module came or went) are not reused. */
static void test_frame_memo_retires(void)
{
	struct kfmemo *m = kfmemo_new();
	struct rm_frame f = { .addr = 0x1000, .text = strdup("kfree+0x1a [kernel]"),
			      .function = strdup("kfree"), .module = strdup("kernel") };
	struct rm_frame g = f;

	kfmemo_symbols(m, 1);
	check(kfmemo_put(m, 0, 0x1000, &f) == 0 && f.shared && kfmemo_get(m, 0, 0x1000) &&
	      !kfmemo_get(m, 1, 0x1000), "kfmemo: a frame is kept by (epoch, address)");
	kfmemo_symbols(m, 1);
	check(kfmemo_get(m, 0, 0x1000) != NULL, "kfmemo: the same symbol table: still found");
	kfmemo_symbols(m, 2);
	g.shared = false;
	check(!kfmemo_get(m, 0, 0x1000) && kfmemo_put(m, 0, 0x2000, &g) == -ESTALE && !g.shared,
	      "kfmemo: symbols loaded again: nothing found or kept any more");
	kfmemo_free(m);
}

static void test_frame_memo(void)
{
	struct report_ctx ctx = { 0 };
	struct stack_total *totals = NULL;
	struct kfmemo *memo;
	struct mt_snapshot snap;
	struct mt_options o;
	size_t nr = 0;
	char *plain, *filling, *kept;
	uint8_t *buf;

	if (freed_setup(&ctx, &o, &snap, &buf, "frame memo")) {
		ksyms_free(ctx.ksyms);
		free(buf);
		return;
	}
	aggregate_by_stack(&snap, report_kind_mask(&o), &totals, &nr);
	memo = snap.kfmemo;
	snap.kfmemo = NULL;
	plain = leaks_text(&snap, totals, nr, &ctx);
	snap.kfmemo = memo;
	filling = leaks_text(&snap, totals, nr, &ctx);
	kept = leaks_text(&snap, totals, nr, &ctx);
	check(memo && !strcmp(plain, filling) && !strcmp(plain, kept) &&
	      strstr(kept, "gone_fn+0x10 [gone_mod]") && strstr(kept, "other_fn+0x10 [other_mod]"),
	      "frame memo: the report is the same without it, filling it and from it");
	free(plain);
	free(filling);
	free(kept);
	free(totals);
	snapshot_free(&snap);
	ksyms_free(ctx.ksyms);
	free(buf);
}

void report_tests(void)
{
	test_freed_code();
	test_frame_memo();
	test_frame_memo_retires();
	test_default();
	test_show_allocs();
	test_combined_sampled_trend();
	test_percpu_and_restricted();
	test_empty();
}
