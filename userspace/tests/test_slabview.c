// SPDX-License-Identifier: GPL-2.0
/* --slab: per-cache totals, changes between intervals, growing stacks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "slabview.h"
#include "slabalias.h"
#include "snapbuild.h"

static struct snapbuild sb;

static void build(unsigned int interval)
{
	static const uint64_t s3[] = { 0xffffffff81400010ULL, 0xffffffffc0a00110ULL };
	static const uint64_t s4[] = { 0xffffffff81100020ULL };
	static const uint64_t s6[] = { 0xffffffffc0b00008ULL };
	static const uint64_t s7[] = { 0xffffffff81500030ULL };

	sb_init(&sb);
	sb.hdr.min_age_ns = 0;
	sb_stack(&sb, 3, 2, s3);
	sb_stack(&sb, 4, 1, s4);
	sb_stack(&sb, 6, 1, s6);
	sb_stack(&sb, 7, 1, s7);
	sb_cache(&sb, 2, "dentry", 192);
	sb_cache(&sb, 3, "kmalloc-64", 64);
	sb_cache(&sb, 4, "ext4_inode_cache", 1080);
	/* kmalloc-64: stack 3 leaks 10 objects per interval; stack 4 steady. */
	sb_stat(&sb, 3, 3, MEMTRACE_KIND_KMALLOC, 10 * interval, 640 * interval);
	sb_stat(&sb, 4, 3, MEMTRACE_KIND_KMALLOC, 5, 320);
	/* dentry: stack 6 grows a little, stack 7 shrinks more. */
	sb_stat(&sb, 6, 2, MEMTRACE_KIND_CACHE, 2 + interval, 576 + 192 * interval);
	sb_stat(&sb, 7, 2, MEMTRACE_KIND_CACHE, 20 - 4 * interval, 3840 - 768 * interval);
	/* ext4_inode_cache empties in the second interval. */
	if (interval == 1)
		sb_stat(&sb, 7, 4, MEMTRACE_KIND_CACHE, 1, 1080);
	/* Not slab: left out. */
	sb_stat(&sb, 6, 0, MEMTRACE_KIND_PAGE, 100, 409600);
}

static char *render(struct slab_state *st, struct ksyms *ks, unsigned int interval)
{
	struct mt_options o;
	struct report_ctx ctx = { .opts = &o, .ksyms = ks };
	struct mt_snapshot snap;
	struct mt_err err;
	char *text = NULL;
	size_t len, size;
	uint8_t *buf;
	FILE *out;

	cli_defaults(&o);
	build(interval);
	buf = sb_build(&sb, &len);
	snprintf(ctx.timestamp, sizeof(ctx.timestamp), "12:00:%02u", interval * 5);
	if (snapshot_parse(buf, len, &snap, &err)) {
		diag("%s", err.msg);
		free(buf);
		return strdup("");
	}
	out = open_memstream(&text, &size);
	slabview_report(out, &snap, st, &ctx);
	fclose(out);
	snapshot_free(&snap);
	free(buf);
	return text;
}

/* SLUB's sysfs of merged caches: names linking to one ":0000064" directory. */
static void test_aliases(void)
{
	char root[] = "/tmp/memtrace-slab-XXXXXX", path[256], buf[256];
	static const char *const links[] = { "kmalloc-64", "foo_cache", "bar" };
	bool ok;

	if (!mkdtemp(root)) {
		check(false, "slab aliases: cannot make a temporary directory");
		return;
	}
	snprintf(path, sizeof(path), "%s/:0000064", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/dentry", root);
	mkdir(path, 0755);
	for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", root, links[i]);
		if (symlink(":0000064", path))
			check(false, "slab aliases: cannot make a symlink");
	}
	setenv(SLABALIAS_ROOT_ENV, root, 1);
	ok = slab_aliases("kmalloc-64", buf, sizeof(buf)) == 2 && !strcmp(buf, "bar, foo_cache");
	ok = ok && slab_aliases("dentry", buf, sizeof(buf)) == 0 && !buf[0];
	ok = ok && slab_aliases("no_such_cache", buf, sizeof(buf)) == 0;
	check(ok, "slab aliases: the other names of a merged cache, none for an unmerged one");
	unsetenv(SLABALIAS_ROOT_ENV);
	for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", root, links[i]);
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s/:0000064", root);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/dentry", root);
	rmdir(path);
	rmdir(root);
}

void slabview_tests(void)
{
	struct slab_state *st = slab_state_new();
	struct ksyms *ks = ksyms_new(fixture_path("kallsyms-basic.txt"));
	struct mt_err err;
	char *one, *two, *both;
	size_t size = 0;
	FILE *out;

	test_aliases();
	/* The golden report has no merged caches, whatever this host has. */
	setenv(SLABALIAS_ROOT_ENV, "/nonexistent", 1);
	ksyms_reload(ks, &err);
	one = render(st, ks, 1);
	two = render(st, ks, 2);
	out = open_memstream(&both, &size);
	slabview_preamble(out);
	fputs(one, out);
	fputs(two, out);
	fclose(out);
	check(same_as_golden(both, "slab-two-intervals.txt"),
	      "slab view: per-cache totals, changes since the last interval, top growing stacks");
	unsetenv(SLABALIAS_ROOT_ENV);
	free(one);
	free(two);
	free(both);
	slab_state_free(st);
	ksyms_free(ks);
}
