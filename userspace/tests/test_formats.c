// SPDX-License-Identifier: GPL-2.0
/*
 * The report model and its formats, from a synthetic snapshot, against
 * the text report of the same snapshot and against the real consumers:
 * the JSON Schema validator (python3-jsonschema, docs/memtrace-report.schema.json)
 * and go tool pprof (golang-go).
 */
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "aggregate.h"
#include "fmt.h"
#include "harness.h"
#include "ksyms.h"
#include "report.h"
#include "rmodel.h"
#include "snapbuild.h"

static struct snapbuild sb;

/* Four stacks: two kernel ones through a module, one unknown frame, one unrecorded. */
static void build(void)
{
	static const uint64_t s8[] = { 0xffffffff8123451aULL, 0xffffffff8110003fULL,
				       0xffffffffc0a00023ULL };
	static const uint64_t s3[] = { 0xffffffff81400010ULL, 0xffffffffc0a00110ULL };
	static const uint64_t s5[] = { 0xffffffffc0b00044ULL, 0xffffffff70000000ULL };
	struct memtrace_stat_rec *r;

	sb_init(&sb);
	sb_stack(&sb, 8, 3, s8);
	sb_stack(&sb, 3, 2, s3);
	sb_stack(&sb, 5, 2, s5);
	sb_cache(&sb, 1, "kmalloc-8k", 8192);
	sb_cache(&sb, 2, "dentry", 192);
	sb_cache(&sb, 3, "kmalloc-64", 64);
	r = sb_stat(&sb, 8, 1, MEMTRACE_KIND_KMALLOC, 1, 8192);
	r->total_allocs = 3;
	r->total_bytes = 24576;
	r->frees = 2;
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
	sb.hdr.now_ns = 100ULL * 1000000000ULL;
	sb.hdr.activity.allocs_seen = 1000;
	sb.hdr.loss.recursion = 1;
}

struct rendered {
	char *text;		/* the text report */
	struct report_model model;
	struct mt_snapshot snap;
	struct ksyms *ks;
	uint8_t *buf;
	bool ok;
};

static void render(struct rendered *r, struct mt_options *o, bool slab)
{
	struct report_ctx ctx = { .opts = o };
	struct stack_total *totals = NULL;
	struct mt_err err;
	size_t len, nr = 0, size = 0;
	FILE *out;

	memset(r, 0, sizeof(*r));
	snprintf(ctx.timestamp, sizeof(ctx.timestamp), "12:34:56");
	r->buf = sb_build(&sb, &len);
	r->ks = ctx.ksyms = ksyms_new(fixture_path("kallsyms-basic.txt"));
	if (snapshot_parse(r->buf, len, &r->snap, &err) || ksyms_reload(r->ks, &err)) {
		diag("setup failed: %s", err.msg);
		return;
	}
	out = open_memstream(&r->text, &size);
	if (slab) {
		r->ok = !rmodel_build_slab(&r->model, &r->snap, &ctx);
	} else {
		aggregate_by_stack(&r->snap, report_kind_mask(o), &totals, &nr);
		report_leaks(out, &r->snap, totals, nr, &ctx);
		r->ok = !rmodel_build_leaks(&r->model, &r->snap, totals, nr, &ctx);
	}
	fclose(out);
	free(totals);
}

static void release(struct rendered *r)
{
	rmodel_free(&r->model);
	snapshot_free(&r->snap);
	ksyms_free(r->ks);
	free(r->buf);
	free(r->text);
}

static char *folded_text(const struct report_model *m)
{
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);

	fmt_folded(out, m);
	fclose(out);
	return text;
}

/*
 * rm_frame_text(): a frame's parts, as both symbolizers fill them, into
 * the text the text report prints (the address shown with no function:
 * the offset in the module, else the address itself).
 */
static void test_frame_text(void)
{
	static const struct {
		const char *text, *function, *module, *file;
		uint64_t addr, offset;
		uint32_t line;
		bool inlined;
	} cases[] = {
		{ "kmalloc_trace+0x1a [kernel]", "kmalloc_trace", "kernel", NULL, 0, 0x1a, 0,
		  false },
		{ "0xffffffff70000000 [unknown]", NULL, NULL, NULL, 0xffffffff70000000ULL, 0, 0,
		  false },
		{ "0xffffffffc0d00090 [memtrace_leaker init]", NULL, "memtrace_leaker init", NULL,
		  0xffffffffc0d00090ULL, 0xffffffffc0d00090ULL, 0, false },
		{ "fibonacci+0x23 [leak] leak.c:12", "fibonacci", "leak", "leak.c", 0, 0x23, 12,
		  false },
		{ "grow [leak] leak.c:5 (inlined)", "grow", "leak", "leak.c", 0, 0, 5, true },
		{ "0x9a0f1 [libc.so.6]", NULL, "libc.so.6", NULL, 0x7f000009a0f1ULL, 0x9a0f1, 0,
		  false },
		{ "0x1130 [noline] noline.c:7", NULL, "noline", "noline.c", 0x401130, 0x1130, 7,
		  false },
		{ "0x00007f0000001234 [unknown]", NULL, NULL, NULL, 0x7f0000001234ULL, 0, 0,
		  false },
		{ "std::vector<int, std::allocator<int> >::operator[](unsigned long)+0x4 "
		  "[libfoo.so] vec.h:1066", "std::vector<int, std::allocator<int> >::operator[]"
		  "(unsigned long)", "libfoo.so", "vec.h", 0, 4, 1066, false },
		{ "operator new(unsigned long)+0x1c [libstdc++.so.6]",
		  "operator new(unsigned long)", "libstdc++.so.6", NULL, 0, 0x1c, 0, false },
	};
	char text[600], cut[8];
	bool ok = true;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rm_frame f = {
			.addr = cases[i].addr, .function = (char *)cases[i].function,
			.offset = cases[i].offset, .module = (char *)cases[i].module,
			.file = (char *)cases[i].file, .line = cases[i].line,
			.inlined = cases[i].inlined,
		};

		if (strcmp(rm_frame_text(&f, text, sizeof(text)), cases[i].text)) {
			diag("expected '%s', got '%s'", cases[i].text, text);
			ok = false;
		}
	}
	check(ok, "formats: a frame's parts (function, offset, module, file, line, inlined) "
	      "as the text report prints them, for both symbolizers' frames");
	check(!strcmp(rm_frame_text(&(struct rm_frame){ .function = "kfree", .offset = 0x1a,
							 .module = "kernel" }, cut, sizeof(cut)),
		      "kfree+0"),
	      "formats: a frame's text is cut to its buffer, as snprintf cuts");
}

static void test_folded(void)
{
	struct rendered r;
	struct mt_options o;
	char *folded;

	cli_defaults(&o);
	build();
	render(&r, &o, false);
	folded = folded_text(&r.model);
	check(r.ok && !strcmp(folded,
		"[unknown];other_fn 12288\n"
		"memtrace_leaker_init;ftrace_set_hash;alloc_and_copy_ftrace_hash.constprop.59 8192\n"
		"memtrace_leaker_work;kmalloc_trace 896\n"
		"[stack not recorded: stack table full] 64\n"),
	      "formats: --folded, root first, bytes, the text report's stacks in its order");
	if (strstr(r.text, "\t12288 bytes in 3 allocations from stack\n"
		   "\t\tother_fn+0x44 [other_mod]\n\t\t0xffffffff70000000 [unknown]\n") == NULL)
		diag("text report:\n%s", r.text);
	free(folded);
	release(&r);

	o.sort = MT_SORT_COUNT;
	o.top = 2;
	render(&r, &o, false);
	folded = folded_text(&r.model);
	check(r.ok && !strcmp(folded, "memtrace_leaker_work;kmalloc_trace 6\n"
			      "[unknown];other_fn 3\n"),
	      "formats: --folded --sort count -T 2: allocations, the top 2 by count");
	free(folded);
	release(&r);

	cli_defaults(&o);
	render(&r, &o, true);
	folded = folded_text(&r.model);
	check(r.ok && !strcmp(folded,
		"kmalloc-8k;memtrace_leaker_init;ftrace_set_hash;"
		"alloc_and_copy_ftrace_hash.constprop.59 8192\n"
		"dentry;memtrace_leaker_work;kmalloc_trace 768\n"
		"kmalloc-64;memtrace_leaker_work;kmalloc_trace 128\n"
		"kmalloc-64;[stack not recorded: stack table full] 64\n"),
	      "formats: --slab --folded: each stack under its cache, caches by live bytes");
	if (!r.ok || strstr(folded, "other_fn"))
		diag("%s", folded);
	free(folded);
	release(&r);
}

static void test_memleak_text(void)
{
	struct rendered r;
	struct mt_options o;

	cli_defaults(&o);
	o.memleak_format = true;
	o.frame_addresses = true;
	o.combined_only = true;
	build();
	render(&r, &o, false);
	check(!strcmp(r.text,
		"[12:34:56] Top 10 stacks with outstanding allocations:\n"
		"\t64 bytes in 1 allocations from stack\n"
		"\t\t[stack not recorded: stack table full]\n"
		"\t896 bytes in 6 allocations from stack\n"
		"\t\t0xffffffff81400010\tkmalloc_trace+0x10 [kernel]\n"
		"\t\t0xffffffffc0a00110\tmemtrace_leaker_work+0x10 [memtrace_leaker]\n"
		"\t8192 bytes in 1 allocations from stack\n"
		"\t\t0xffffffff8123451a\talloc_and_copy_ftrace_hash.constprop.59+0x1a [kernel]\n"
		"\t\t0xffffffff8110003f\tftrace_set_hash+0x3f [kernel]\n"
		"\t\t0xffffffffc0a00023\tmemtrace_leaker_init+0x23 [memtrace_leaker]\n"
		"\t12288 bytes in 3 allocations from stack\n"
		"\t\t0xffffffffc0b00044\tother_fn+0x44 [other_mod]\n"
		"\t\t0xffffffff70000000\t[unknown]\n"
		"\n"),
	      "formats: --memleak-format --frame-addresses -C: memleak's lines only, "
	      "BCC's address prefix, [unknown]");
	if (strstr(r.text, "Lost:") || strstr(r.text, "total:"))
		diag("%s", r.text);
	release(&r);
}

/* Runs cmd; its output in *out (free()).  The exit status, or -1. */
static int run(const char *cmd, char **out)
{
	char *text = NULL;
	size_t size = 0;
	FILE *p = popen(cmd, "r"), *o = open_memstream(&text, &size);
	char buf[4096];
	size_t n;
	int st;

	if (!p) {
		fclose(o);
		free(text);
		*out = strdup("");
		return -1;
	}
	while ((n = fread(buf, 1, sizeof(buf), p)) > 0)
		fwrite(buf, 1, n, o);
	st = pclose(p);
	fclose(o);
	*out = text;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void test_json(void)
{
	char dir[64], path[128], cmd[512], *out;
	struct rendered r;
	struct mt_options o;
	json_error_t jerr;
	json_t *root;
	bool ok = false;
	int st;

	if (!make_tmpdir(dir, sizeof(dir), "json")) {
		check(false, "formats: a temporary directory for the JSON report");
		return;
	}
	cli_defaults(&o);
	build();
	render(&r, &o, false);
	snprintf(path, sizeof(path), "%s/report.json", dir);
	{
		FILE *f = fopen(path, "w");

		fmt_json(f, &r.model);
		fmt_json(f, &r.model);	/* JSON Lines: two reports */
		fclose(f);
	}
	snprintf(cmd, sizeof(cmd), "/usr/bin/python3 %s/../validate-json.py "
		 "%s/../../../docs/memtrace-report.schema.json %s 2>&1", fixture_dir,
		 fixture_dir, path);
	st = run(cmd, &out);
	check(st == 0 && !strcmp(out, "valid 2\n"),
	      "formats: --json reports valid against docs/memtrace-report.schema.json "
	      "(python3-jsonschema)");
	if (st)
		diag("%s", out);
	free(out);

	root = json_load_file(path, JSON_DISABLE_EOF_CHECK, &jerr);
	if (root) {
		json_t *stacks = json_object_get(root, "stacks");
		json_t *s0 = json_array_get(stacks, 0);
		json_t *f1 = json_array_get(json_object_get(s0, "frames"), 1);

		ok = json_integer_value(json_object_get(root, "bytes")) == 12288 + 8192 + 896 + 64 &&
		     json_array_size(stacks) == 4 &&
		     json_integer_value(json_object_get(s0, "bytes")) == 12288 &&
		     json_integer_value(json_object_get(s0, "count")) == 3 &&
		     json_is_null(json_object_get(f1, "function")) &&
		     !strcmp(json_string_value(json_object_get(f1, "text")),
			     "0xffffffff70000000 [unknown]") &&
		     !strcmp(json_string_value(json_object_get(root, "mode")), "kernel-leaks");
		json_decref(root);
	}
	check(ok, "formats: --json has the text report's stacks, numbers and frames");
	release(&r);
	remove_tree(dir);
}

/* A notes file holding one GNU build-id of 20 bytes, first, first + 1, ... */
static void write_build_id_note(const char *path, uint8_t first)
{
	uint32_t hdr[3] = { 4, 20, 3 };
	uint8_t id[20];
	FILE *f = fopen(path, "w");

	for (int i = 0; i < 20; i++)
		id[i] = (uint8_t)(first + i);
	if (!f)
		return;
	fwrite(hdr, sizeof(hdr), 1, f);
	fwrite("GNU", 4, 1, f);
	fwrite(id, sizeof(id), 1, f);
	fclose(f);
}

/*
 * Kernel frames' mappings carry the build-ids sysfs gives (a fixture tree
 * as $MEMTRACE_SYSFS): vmlinux's, memtrace_leaker's; a module without
 * notes gets none, and the profile is written all the same.
 */
static void test_pprof_build_ids(const char *dir, struct rendered *r)
{
	char sys[128], path[256], cmd[512], *out;
	struct mt_err err;
	int st;

	snprintf(sys, sizeof(sys), "%s/sys", dir);
	run_quiet("mkdir -p %s/kernel %s/module/memtrace_leaker/notes", sys, sys);
	snprintf(path, sizeof(path), "%s/kernel/notes", sys);
	write_build_id_note(path, 0x10);
	snprintf(path, sizeof(path), "%s/module/memtrace_leaker/notes/.note.gnu.build-id", sys);
	write_build_id_note(path, 0xa0);
	setenv("MEMTRACE_SYSFS", sys, 1);
	snprintf(path, sizeof(path), "%s/kernel.pb.gz", dir);
	st = fmt_write_file(path, &r->model, fmt_pprof, &err);
	unsetenv("MEMTRACE_SYSFS");
	snprintf(cmd, sizeof(cmd), "HOME=%s go tool pprof -raw -symbolize=none %s 2>&1", dir, path);
	st = st ? st : run(cmd, &out);
	check(st == 0 && strstr(out, " kernel 101112131415161718191a1b1c1d1e1f20212223 [FN]\n") &&
	      strstr(out, " memtrace_leaker a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3 [FN]\n"),
	      "formats: go tool pprof reads kernel mappings' build-ids: vmlinux's and a "
	      "module's, as sysfs's notes give them");
	if (st || !strstr(out, "a0a1a2a3"))
		diag("%s", st ? err.msg : out);
	if (!st)
		free(out);
}

static void test_pprof(void)
{
	char dir[64], path[128], cmd[512], *out;
	struct rendered r;
	struct mt_options o;
	struct mt_err err;
	int st;

	if (!make_tmpdir(dir, sizeof(dir), "pprof")) {
		check(false, "formats: a temporary directory for the profile");
		return;
	}
	cli_defaults(&o);
	build();
	render(&r, &o, false);
	snprintf(path, sizeof(path), "%s/heap.pb.gz", dir);
	st = fmt_write_file(path, &r.model, fmt_pprof, &err);
	check(st == 0, "formats: --pprof writes a profile");
	/* -raw: every sample's values, exactly; the locations' functions. */
	snprintf(cmd, sizeof(cmd), "HOME=%s go tool pprof -raw -symbolize=none %s 2>&1", dir, path);
	st = run(cmd, &out);
	check(st == 0 && strstr(out, "alloc_objects/count alloc_space/bytes inuse_objects/count "
				"inuse_space/bytes[dflt]") &&
	      strstr(out, "          3      12288          3      12288: ") &&
	      strstr(out, "          3      24576          1       8192: ") &&
	      strstr(out, "         50       8320          6        896: ") &&
	      strstr(out, "          1         64          1         64: ") &&
	      strstr(out, "alloc_and_copy_ftrace_hash.constprop.59") &&
	      strstr(out, "memtrace_leaker_work") &&
	      strstr(out, "[stack not recorded: stack table full]"),
	      "formats: go tool pprof reads the profile: the text report's bytes and counts "
	      "per stack, allocations since the start, the functions");
	if (st || !strstr(out, "inuse_space/bytes[dflt]"))
		diag("%s", out);
	free(out);
	snprintf(cmd, sizeof(cmd), "HOME=%s go tool pprof -top -sample_index=inuse_objects "
		 "-symbolize=none %s 2>&1", dir, path);
	st = run(cmd, &out);
	check(st == 0 && strstr(out, "Showing nodes accounting for 11, 100% of 11 total") &&
	      strstr(out, "         6 54.55% 54.55%          6 54.55%  kmalloc_trace\n"),
	      "formats: go tool pprof -top: 11 allocations in all, as the text report's stacks");
	if (st || !strstr(out, "of 11 total"))
		diag("%s", out);
	free(out);
	test_pprof_build_ids(dir, &r);
	release(&r);
	remove_tree(dir);
}

static void test_prometheus(void)
{
	char dir[64], path[128], cmd[512], *out, *text;
	struct rendered r;
	struct mt_options o;
	struct mt_err err;
	int st;

	if (!make_tmpdir(dir, sizeof(dir), "prom")) {
		check(false, "formats: a temporary directory for the metrics");
		return;
	}
	cli_defaults(&o);
	build();
	sb_cache(&sb, 4, "we\"ird\\name", 32);
	sb_stat(&sb, 3, 4, MEMTRACE_KIND_CACHE, 1, 32);
	render(&r, &o, false);
	snprintf(path, sizeof(path), "%s/memtrace.prom", dir);
	st = fmt_write_file(path, &r.model, fmt_prometheus, &err);
	text = read_file(path, NULL);
	check(st == 0 && text &&
	      strstr(text, "memtrace_stack_bytes{mode=\"kernel-leaks\",stack_id=\"5\",functions=\"other_fn;[unknown]\"} "
		     "12288\n") &&
	      strstr(text, "memtrace_stack_allocations{mode=\"kernel-leaks\",stack_id=\"3\",functions=\"kmalloc_trace;"
		     "memtrace_leaker_work\"} 7\n") &&
	      strstr(text, "memtrace_report_bytes{mode=\"kernel-leaks\"} 21472\n") &&
	      strstr(text, "memtrace_slab_cache_bytes{mode=\"kernel-leaks\",cache=\"dentry\"} 768\n") &&
	      strstr(text, "memtrace_slab_cache_objects{mode=\"kernel-leaks\",cache=\"we\\\"ird\\\\name\"} 1\n") &&
	      strstr(text, "memtrace_lost_total{mode=\"kernel-leaks\",reason=\"recursion\"} 1\n"),
	      "formats: --prometheus: the top stacks' bytes and allocations as the text "
	      "report's, caches, losses; label values escaped");
	if (st || !text || !strstr(text, "21472"))
		diag("%s", text ? text : err.msg);
	free(text);
	snprintf(cmd, sizeof(cmd), "promtool check metrics < %s 2>&1", path);
	st = run(cmd, &out);
	check(st == 0, "formats: promtool check metrics accepts --prometheus's file");
	if (st)
		diag("%s", out);
	free(out);
	release(&r);
	remove_tree(dir);
}

/*
 * The flame graph in a real browser: headless Chromium renders it (a
 * screenshot is kept in $MEMTRACE_TEST_LOGS), runs its script, and a click
 * (dispatched by the file's own #zoom= handling, as a user's click reaches
 * the same handler) zooms; #search= colours matches and sums their share.
 */
static void test_svg(void)
{
	const char *logs = getenv("MEMTRACE_TEST_LOGS");
	char dir[64], path[128], cmd[1024], *out, *text;
	struct rendered r;
	struct mt_options o;
	struct mt_err err;
	int st;

	if (!make_tmpdir(dir, sizeof(dir), "svg")) {
		check(false, "formats: a temporary directory for the flame graph");
		return;
	}
	cli_defaults(&o);
	build();
	render(&r, &o, false);
	snprintf(path, sizeof(path), "%s/leaks.svg", dir);
	st = fmt_write_file(path, &r.model, fmt_svg, &err);
	text = read_file(path, NULL);
	check(st == 0 && text && strstr(text, "<script><![CDATA[") && !strstr(text, "http://www.w3.org/1999/xlink") &&
	      !strstr(text, "src=") && !strstr(text, "href=") &&
	      strstr(text, "<title>kmalloc_trace (896 bytes, 6 allocations, 4.18%)</title>") &&
	      strstr(text, "<title>all (21440 bytes, 11 allocations, 100.00%)</title>"),
	      "formats: --svg is one self-contained file: every box with its bytes, "
	      "allocations and percent");
	free(text);
#define CHROMIUM "chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage " \
	"--user-data-dir=%s/profile --virtual-time-budget=2000 "
	snprintf(cmd, sizeof(cmd), CHROMIUM "--dump-dom 'file://%s#zoom=memtrace_leaker_init' "
		 "2>/dev/null", dir, path);
	st = run(cmd, &out);
	check(st == 0 && strstr(out, "data-ready=\"9\"") &&
	      strstr(out, "data-zoomed=\"memtrace_leaker_init\"") &&
	      /* The zoomed box and its callee fill the width; other stacks are hidden. */
	      strstr(out, "<title>memtrace_leaker_init (8192 bytes, 1 allocations, 38.21%)</title>"
		     "<rect x=\"10\"") &&
	      strstr(out, "width=\"1180\"") &&
	      strstr(out, "style=\"display: none;\"><title>other_fn"),
	      "formats: Chromium runs the flame graph's script: a click on a box zooms to it");
	if (st || !strstr(out, "data-zoomed"))
		diag("%.3000s", out);
	free(out);
	snprintf(cmd, sizeof(cmd), CHROMIUM "--dump-dom 'file://%s#search=^kmalloc' 2>/dev/null",
		 dir, path);
	st = run(cmd, &out);
	check(st == 0 && strstr(out, "data-matched=\"4.18\"") && strstr(out, "Matched: 4.18%"),
	      "formats: the flame graph's search colours the matches and sums their share");
	if (st || !strstr(out, "data-matched"))
		diag("%.2000s", out);
	free(out);
	if (logs) {
		snprintf(cmd, sizeof(cmd), CHROMIUM "--window-size=1200,200 --screenshot=%s/"
			 "flamegraph.png 'file://%s' >/dev/null 2>&1 && test -s %s/flamegraph.png",
			 dir, logs, path, logs);
		st = run(cmd, &out);
		free(out);
		/* And zoomed on a box, as a click leaves it. */
		snprintf(cmd, sizeof(cmd), CHROMIUM "--window-size=1200,200 --screenshot=%s/"
			 "flamegraph-zoomed.png 'file://%s#zoom=memtrace_leaker_init' >/dev/null 2>&1 "
			 "&& test -s %s/flamegraph-zoomed.png", dir, logs, path, logs);
		st = st ? st : run(cmd, &out);
		check(st == 0, "formats: Chromium renders the flame graph, whole and zoomed "
		      "(%s/flamegraph*.png)", logs);
		if (!st)
			free(out);
	}
	release(&r);
	remove_tree(dir);
}

static void test_memcheck(void)
{
	struct rendered r;
	struct mt_options o;
	char *text = NULL;
	size_t size = 0;
	FILE *out;

	cli_defaults(&o);
	build();
	render(&r, &o, false);
	out = open_memstream(&text, &size);
	fmt_memcheck(out, &r.model);
	fclose(out);
	check(r.ok && !strncmp(text, "LEAK SUMMARY:\n"
		"   still in use: 21,440 bytes in 11 blocks, in 4 records\n"
		"   (memtrace follows no pointers: each may be lost or still reachable)\n"
		"\n64 bytes in 1 blocks are still in use in record 1 of 4\n"
		"   [stack not recorded: stack table full]\n"
		"\n896 bytes in 6 blocks are still in use in record 2 of 4\n"
		"   at 0xFFFFFFFF81400010: kmalloc_trace (in kernel)\n"
		"   by 0xFFFFFFFFC0A00110: memtrace_leaker_work (in memtrace_leaker)\n", 300) &&
	      strstr(text, "\n12,288 bytes in 3 blocks are still in use in record 4 of 4\n"
		     "   at 0xFFFFFFFFC0B00044: other_fn (in other_mod)\n"
		     "   by 0xFFFFFFFF70000000: ???\n"),
	      "formats: the closing summary in Memcheck's words, records smallest first");
	if (!strstr(text, "record 4 of 4"))
		diag("%s", text);
	free(text);
	release(&r);
}

/*
 * A growth mode's model (RM_GROWTH), as growth.c builds it: --faults'
 * stacks of two processes, one without a user stack, frames as usyms
 * fills them (no mappings: no process to read).
 */
static void growth_model(struct report_model *m)
{
	static const struct {
		const char *comm;
		uint32_t pid;
		uint64_t faults, major;
		size_t nr_frames;
		struct rm_frame frames[3];
	} stacks[] = {
		{ "memgrowth", 41, 64, 4, 3, {
			{ .function = "touch_pages", .offset = 0x1c, .module = "memgrowth" },
			{ .function = "run_faults", .offset = 0x33, .module = "memgrowth",
			  .file = "memgrowth.c", .line = 88 },
			{ .function = "main", .offset = 0x91, .module = "memgrowth",
			  .file = "memgrowth.c", .line = 120 } } },
		{ "memgrowth", 41, 10, 0, 2, {
			{ .function = NULL },	/* in no module: [unknown] */
			{ .function = "main", .offset = 0x91, .module = "memgrowth",
			  .file = "memgrowth.c", .line = 120 } } },
		{ "sh", 40, 3, 1, 0, { { 0 } } },
	};

	memset(m, 0, sizeof(*m));
	m->mode = RM_GROWTH;
	m->growth_mode = "faults";
	m->counts = RM_COUNTS_FAULTS;
	m->sort = MT_SORT_COUNT;
	m->title = "Page faults";
	snprintf(m->timestamp, sizeof(m->timestamp), "12:34:56");
	m->stacks = calloc(MT_ARRAY_SIZE(stacks), sizeof(*m->stacks));
	for (size_t i = 0; m->stacks && i < MT_ARRAY_SIZE(stacks); i++) {
		struct rm_stack *st = &m->stacks[m->nr_stacks++];
		size_t cap = 0;

		st->comm = strdup(stacks[i].comm);
		st->pid = stacks[i].pid;
		st->count = stacks[i].faults;
		st->major = stacks[i].major;
		for (size_t f = 0; f < stacks[i].nr_frames; f++) {
			struct rm_frame frame = stacks[i].frames[f];

			frame.addr = 0x401000 + 0x10 * f;
			rmodel_add_user_frame(st, &cap, &frame, NULL);
		}
		if (!st->nr_frames)
			st->note = strdup("[no user stack]");
		m->count += st->count;
		m->total_count += st->count;
		m->total_major += st->major;
	}
	m->total_count += 5;	/* faults of stacks beyond -T */
	m->lost_events = 2;
	m->untracked = 1;
}

/* --faults' profile, metrics and flame graph, read by pprof, promtool and Chromium. */
static void test_growth_formats(void)
{
	char dir[64], path[128], cmd[1024], *out, *text;
	struct report_model m;
	struct mt_err err;
	int st;

	if (!make_tmpdir(dir, sizeof(dir), "growth")) {
		check(false, "formats: a temporary directory for the growth formats");
		return;
	}
	growth_model(&m);
	snprintf(path, sizeof(path), "%s/faults.pb.gz", dir);
	st = fmt_write_file(path, &m, fmt_pprof, &err);
	check(st == 0, "formats: --faults --pprof writes a profile");
	snprintf(cmd, sizeof(cmd), "HOME=%s go tool pprof -raw -symbolize=none %s 2>&1", dir, path);
	st = run(cmd, &out);
	check(st == 0 && strstr(out, "faults/count[dflt] major_faults/count minor_faults/count\n") &&
	      strstr(out, "PeriodType: faults count") &&
	      strstr(out, "         64          4         60: ") &&
	      strstr(out, "         10          0         10: ") &&
	      strstr(out, "          3          1          2: ") &&
	      strstr(out, "comm:[memgrowth]") && strstr(out, "pid:[41]") &&
	      strstr(out, "touch_pages") && strstr(out, "[no user stack]"),
	      "formats: go tool pprof reads --faults' profile: faults, major and minor per "
	      "stack, comm and pid labels, the functions");
	if (st || !strstr(out, "faults/count"))
		diag("%s", out);
	free(out);
	snprintf(cmd, sizeof(cmd), "HOME=%s go tool pprof -top -symbolize=none %s 2>&1", dir, path);
	st = run(cmd, &out);
	check(st == 0 && strstr(out, "Showing nodes accounting for 77, 100% of 77 total") &&
	      strstr(out, "        64 83.12% 83.12%         64 83.12%  touch_pages\n"),
	      "formats: go tool pprof -top: faults by default, 77 in all, touch_pages' 64");
	if (st || !strstr(out, "of 77 total"))
		diag("%s", out);
	free(out);

	snprintf(path, sizeof(path), "%s/faults.prom", dir);
	st = fmt_write_file(path, &m, fmt_prometheus, &err);
	text = read_file(path, NULL);
	check(st == 0 && text &&
	      strstr(text, "memtrace_growth_stack_faults{mode=\"faults\",rank=\"1\",functions=\""
		     "touch_pages;run_faults;main\"} 64\n") &&
	      strstr(text, "memtrace_growth_stack_major_faults{mode=\"faults\",rank=\"3\","
		     "functions=\"[no user stack]\"} 1\n") &&
	      strstr(text, "memtrace_page_faults_total{mode=\"faults\",type=\"minor\"} 77\n") &&
	      strstr(text, "memtrace_page_faults_total{mode=\"faults\",type=\"major\"} 5\n") &&
	      strstr(text, "memtrace_lost_total{mode=\"faults\",reason=\"event_ring_full\"} 2\n") &&
	      strstr(text, "memtrace_lost_total{mode=\"faults\",reason=\"growth_table_full\"} 1\n") &&
	      !strstr(text, "pid=") && !strstr(text, "memgrowth\""),
	      "formats: --faults --prometheus: the top stacks by rank and functions, the "
	      "counters, the losses; no pid or task name");
	if (st || !text || !strstr(text, "rank="))
		diag("%s", text ? text : err.msg);
	free(text);
	snprintf(cmd, sizeof(cmd), "promtool check metrics < %s 2>&1", path);
	st = run(cmd, &out);
	check(st == 0, "formats: promtool check metrics accepts --faults' metrics");
	if (st)
		diag("%s", out);
	free(out);

	snprintf(path, sizeof(path), "%s/faults.svg", dir);
	st = fmt_write_file(path, &m, fmt_svg, &err);
	text = read_file(path, NULL);
	check(st == 0 && text &&
	      strstr(text, "<title>all (77 faults, 5 major, 100.00%)</title>") &&
	      strstr(text, "<title>memgrowth (74 faults, 4 major, 96.10%)</title>") &&
	      strstr(text, "<title>touch_pages (64 faults, 4 major, 83.12%)</title>") &&
	      strstr(text, "Page faults, faults, 12:34:56"),
	      "formats: --faults --svg: a box per process, then its stacks, with faults and "
	      "major faults");
	free(text);
	snprintf(cmd, sizeof(cmd), CHROMIUM "--dump-dom 'file://%s#zoom=run_faults' 2>/dev/null",
		 dir, path);
	st = run(cmd, &out);
	check(st == 0 && strstr(out, "data-zoomed=\"run_faults\"") &&
	      strstr(out, "<title>run_faults (64 faults, 4 major, 83.12%)</title><rect x=\"10\"") &&
	      strstr(out, "style=\"display: none;\"><title>sh (") &&
	      strstr(out, ">touch_pages</text>"),
	      "formats: Chromium renders --faults' flame graph: a click zooms on run_faults, "
	      "touch_pages above it");
	if (st || !strstr(out, "data-zoomed"))
		diag("%.3000s", out);
	free(out);
	rmodel_free(&m);
	remove_tree(dir);
}

void formats_tests(void)
{
	test_growth_formats();
	test_memcheck();
	test_svg();
	test_prometheus();
	test_frame_text();
	test_folded();
	test_memleak_text();
	test_json();
	test_pprof();
}
