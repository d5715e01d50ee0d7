// SPDX-License-Identifier: GPL-2.0
/* Snapshot parsing and validation against buffers laid out like the module's. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "snapbuild.h"
#include "snapshot.h"

static struct snapbuild sb;

static void build_valid(void)
{
	static const uint64_t s8[] = { 0xffffffff8123451aULL, 0xffffffff8110003fULL,
				       0xffffffffc0a00023ULL };
	static const uint64_t s3[] = { 0xffffffff81400010ULL };

	sb_init(&sb);
	/* Out of id order, as the module may emit them. */
	sb_stack(&sb, 8, 3, s8);
	sb_stack(&sb, 3, 1, s3);
	sb_stack(&sb, 5, 0, NULL);
	sb_stat(&sb, 8, 1, MEMTRACE_KIND_KMALLOC, 1, 8192);
	sb_stat(&sb, 3, 2, MEMTRACE_KIND_CACHE, 4, 256);
	sb_alloc(&sb, 0xffff888004a00000ULL, 50ULL * 1000000000ULL, 8, 8192, 42, "insmod",
		 MEMTRACE_KIND_KMALLOC);
	sb_cache(&sb, 2, "dentry", 192);
	sb_cache(&sb, 1, "kmalloc-8k", 8192);
}

static int parse_built(struct mt_snapshot *snap, struct mt_err *err,
		       void (*corrupt)(uint8_t *buf, size_t *len))
{
	size_t len;
	uint8_t *buf = sb_build(&sb, &len);
	int ret;

	if (corrupt)
		corrupt(buf, &len);
	ret = snapshot_parse(buf, len, snap, err);
	free(buf);
	return ret;
}

static void test_valid(void)
{
	struct mt_snapshot snap;
	struct mt_err err;
	const struct mt_stack *s;
	const struct memtrace_cache_rec *c;
	int ret;

	build_valid();
	ret = parse_built(&snap, &err, NULL);
	if (!check(ret == 0, "snapshot parses a valid buffer")) {
		diag("%s", err.msg);
		return;
	}
	s = snapshot_stack(&snap, 8);
	check(snap.nr_stacks == 3 && s && s->nr_frames == 3 && s->ips[0] == 0xffffffff8123451aULL &&
	      s->ips[2] == 0xffffffffc0a00023ULL && snapshot_stack(&snap, 5)->nr_frames == 0 &&
	      !snapshot_stack(&snap, 4) && !snapshot_stack(&snap, MEMTRACE_STACK_NONE),
	      "snapshot walks variable-length stack records and finds them by id");
	c = snapshot_cache(&snap, 2);
	check(snap.nr_stats == 2 && snap.stats[0].old_bytes == 8192 && snap.stats[1].kind ==
	      MEMTRACE_KIND_CACHE && snap.nr_allocs == 1 && !strcmp(snap.allocs[0].comm, "insmod") &&
	      c && !strcmp(c->name, "dentry") && c->object_size == 192 &&
	      !snapshot_cache(&snap, MEMTRACE_CACHE_NONE),
	      "snapshot copies stat, allocation and cache records");
	snapshot_free(&snap);
}

static void test_newer_module(void)
{
	struct mt_snapshot snap;
	struct mt_err err;
	int ret;

	build_valid();
	sb.extra_stack = 8;
	sb.extra_stat = 24;
	sb.extra_alloc = 16;
	sb.extra_cache = 8;
	ret = parse_built(&snap, &err, NULL);
	if (!check(ret == 0 && snap.nr_stats == 2 && snap.stats[1].old_bytes == 256 &&
		   snap.stats[1].stack_id == 3 && snapshot_stack(&snap, 8)->ips[1] ==
		   0xffffffff8110003fULL && snap.allocs[0].pid == 42 &&
		   !strcmp(snapshot_cache(&snap, 1)->name, "kmalloc-8k"),
		   "snapshot steps by the header's record sizes (newer module, longer records)"))
		diag("ret %d: %s", ret, ret ? err.msg : "");
	if (!ret)
		snapshot_free(&snap);
}

#define REJECTS(name, errno_want, substr, ...)					\
	static void corrupt_##name(uint8_t *buf, size_t *len)			\
	{									\
		struct memtrace_snap_header h = sb_header(buf);			\
		(void)len;							\
		__VA_ARGS__;							\
		sb_set_header(buf, &h);						\
	}									\
	static void test_##name(void)						\
	{									\
		struct mt_snapshot snap;					\
		struct mt_err err = { "" };					\
		int ret;							\
		build_valid();							\
		ret = parse_built(&snap, &err, corrupt_##name);			\
		if (!check(ret == -(errno_want) && strstr(err.msg, substr),	\
			   "snapshot rejects " #name))				\
			diag("ret %d, \"%s\"", ret, err.msg);			\
		if (!ret)							\
			snapshot_free(&snap);					\
	}

REJECTS(truncated_buffer, EBADMSG, "header says", *len -= 1)
REJECTS(buffer_smaller_than_header, EBADMSG, "smaller than the", *len = 16)
REJECTS(bad_magic, EBADMSG, "bad magic", h.magic = 0x12345678)
REJECTS(other_abi_version, EPROTO, "ABI version 2", h.abi_version = 2)
REJECTS(stats_past_used, EBADMSG, "stat section", h.stats_off = h.used - 8)
REJECTS(huge_stat_count, EBADMSG, "stat section", h.nr_stats = 0xffffffffU)
REJECTS(offset_overflow, EBADMSG, "cache section", h.caches_off = UINT64_MAX - 16)
REJECTS(section_in_header, EBADMSG, "overlaps the header", h.allocs_off = 8)
REJECTS(overlapping_sections, EBADMSG, "overlap", h.caches_off = h.allocs_off)
REJECTS(short_stat_records, EBADMSG, "stat record size", h.stat_rec_size = 8)
REJECTS(misaligned_stacks, EBADMSG, "8-aligned", h.stacks_off += 4)
REJECTS(too_many_stacks, EBADMSG, "runs past the end", h.nr_stacks = 100)
REJECTS(stack_frames_past_end, EBADMSG, "runs past the end",
	{ struct memtrace_stack_rec r = { .id = 8, .nr_frames = 1000000 };
	  memcpy(buf + h.stacks_off, &r, sizeof(r)); })
REJECTS(reserved_stack_id, EBADMSG, "reserved id 0",
	{ struct memtrace_stack_rec r = { .id = 0, .nr_frames = 3 };
	  memcpy(buf + h.stacks_off, &r, sizeof(r)); })
REJECTS(duplicate_stack_id, EBADMSG, "appears twice",
	{ struct memtrace_stack_rec r = { .id = 8, .nr_frames = 1 };
	  memcpy(buf + h.stacks_off + sizeof(r) + 3 * 8, &r, sizeof(r)); })
REJECTS(unterminated_cache_name, EBADMSG, "without a terminating NUL",
	memset(buf + h.caches_off + offsetof(struct memtrace_cache_rec, name), 'x',
	       MEMTRACE_NAME_LEN))
REJECTS(used_below_header, EBADMSG, "header says", h.used = 4)

void snapshot_tests(void)
{
	test_valid();
	test_newer_module();
	test_truncated_buffer();
	test_buffer_smaller_than_header();
	test_bad_magic();
	test_other_abi_version();
	test_stats_past_used();
	test_huge_stat_count();
	test_offset_overflow();
	test_section_in_header();
	test_overlapping_sections();
	test_short_stat_records();
	test_misaligned_stacks();
	test_too_many_stacks();
	test_stack_frames_past_end();
	test_reserved_stack_id();
	test_duplicate_stack_id();
	test_unterminated_cache_name();
	test_used_below_header();
}
