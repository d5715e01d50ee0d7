/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A parsed, validated snapshot.  Parsing copies what it needs out of the
 * buffer (records normalized to this reader's struct sizes), so the result
 * never points into memory the module controls.
 */
#ifndef MEMTRACE_READ_SNAPSHOT_H
#define MEMTRACE_READ_SNAPSHOT_H

#include <stddef.h>
#include <stdint.h>

#include <linux/memtrace.h>

#include "util.h"

struct mt_stack {
	uint32_t id;
	uint32_t nr_frames;
	uint32_t epoch;		/* the module-code epoch it was stored in */
	const uint64_t *ips;	/* innermost first; into mt_snapshot.frames */
};

/*
 * A function (or, with MEMTRACE_KSYM_RANGE, the whole text) of module code
 * that was freed while tracing, at freed_epoch: it names the frames of
 * stacks stored before then (epoch < freed_epoch).
 */
struct mt_freed_sym {
	uint64_t start;
	uint32_t size;
	uint32_t freed_epoch;
	uint32_t flags;		/* MEMTRACE_KSYM_* */
	const char *name;	/* into mt_snapshot.freed_names */
	const char *module;
};

struct mt_snapshot {
	struct memtrace_snap_header hdr;
	struct mt_stack *stacks;		/* sorted by id */
	size_t nr_stacks;
	uint64_t *frames;
	struct memtrace_stat_rec *stats;
	size_t nr_stats;
	struct memtrace_alloc_rec *allocs;
	size_t nr_allocs;
	struct memtrace_cache_rec *caches;	/* sorted by id */
	size_t nr_caches;
	struct mt_freed_sym *freed_syms;	/* sorted by start */
	size_t nr_freed_syms;
	char *freed_names;
	struct kfmemo *kfmemo;		/* its kernel frames, symbolized once (NULL: none) */
};

/*
 * Validates and parses len bytes of a snapshot buffer.  Returns 0, or
 * -EBADMSG / -EPROTO (other ABI) / -ENOMEM with the reason in err.
 */
int snapshot_parse(const void *buf, size_t len, struct mt_snapshot *snap,
		   struct mt_err *err);
void snapshot_free(struct mt_snapshot *snap);

/* NULL for MEMTRACE_STACK_NONE or an id with no record. */
const struct mt_stack *snapshot_stack(const struct mt_snapshot *snap, uint32_t id);
/* NULL for MEMTRACE_CACHE_NONE or an id with no record. */
const struct memtrace_cache_rec *snapshot_cache(const struct mt_snapshot *snap, uint16_t id);

/* Sampling was on: counts are estimates. */
static inline int snapshot_sampled(const struct mt_snapshot *snap)
{
	return snap->hdr.sample_every > 1 || snap->hdr.sample_bytes > 0;
}

#endif
