/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Builds snapshot buffers the way the module lays them out, from the real
 * uapi structs: header, then stacks (8-aligned, variable length), stats,
 * allocations, caches.  Tests then corrupt them on purpose.
 */
#ifndef MEMTRACE_READ_TEST_SNAPBUILD_H
#define MEMTRACE_READ_TEST_SNAPBUILD_H

#include <stddef.h>
#include <stdint.h>

#include <linux/memtrace.h>

#define SB_MAX 64

struct snapbuild {
	struct memtrace_snap_header hdr;	/* counters/config; layout filled by sb_build */
	struct { uint32_t id, nr, epoch; uint64_t ips[MEMTRACE_MAX_FRAMES]; } stacks[SB_MAX];
	unsigned int nr_stacks;
	struct memtrace_stat_rec stats[SB_MAX];
	unsigned int nr_stats;
	struct memtrace_alloc_rec allocs[SB_MAX];
	unsigned int nr_allocs;
	struct memtrace_cache_rec caches[SB_MAX];
	unsigned int nr_caches;
	struct sb_ksym { struct memtrace_ksym_rec rec; char name[64], module[64]; } ksyms[SB_MAX];
	unsigned int nr_ksyms;
	/* A newer module's records are longer: extra bytes (filled with 0xAA). */
	unsigned int extra_stack, extra_stat, extra_alloc, extra_cache;
};

void sb_init(struct snapbuild *sb);
void sb_stack(struct snapbuild *sb, uint32_t id, unsigned int nr, const uint64_t *ips);
struct memtrace_stat_rec *sb_stat(struct snapbuild *sb, uint32_t stack_id, uint16_t cache_id,
				  uint8_t kind, uint64_t old_count, uint64_t old_bytes);
struct memtrace_alloc_rec *sb_alloc(struct snapbuild *sb, uint64_t addr, uint64_t ts_ns,
				    uint32_t stack_id, uint32_t bytes, uint32_t pid,
				    const char *comm, uint8_t kind);
void sb_cache(struct snapbuild *sb, uint16_t id, const char *name, uint32_t object_size);
/* A function (or, name "", a range) of module code freed at freed_epoch. */
void sb_ksym(struct snapbuild *sb, uint64_t start, uint32_t size, uint32_t freed_epoch,
	     uint32_t flags, const char *name, const char *module);
/* The code epoch a stack was stored in (0 by default). */
void sb_stack_epoch(struct snapbuild *sb, uint32_t id, uint32_t epoch);

/* Lays the buffer out (malloc'd, *len bytes); header fields for layout set. */
uint8_t *sb_build(struct snapbuild *sb, size_t *len);

/* Header of a built buffer, to modify and write back. */
struct memtrace_snap_header sb_header(const uint8_t *buf);
void sb_set_header(uint8_t *buf, const struct memtrace_snap_header *h);

#endif
