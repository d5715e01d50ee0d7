// SPDX-License-Identifier: GPL-2.0
#include "snapbuild.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sb_init(struct snapbuild *sb)
{
	memset(sb, 0, sizeof(*sb));
	sb->hdr.magic = MEMTRACE_SNAP_MAGIC;
	sb->hdr.abi_version = MEMTRACE_ABI_VERSION;
	sb->hdr.state = MEMTRACE_STATE_TRACING;
	sb->hdr.events = MEMTRACE_EV_ALL;
	sb->hdr.now_ns = 100ULL * 1000000000ULL;
	sb->hdr.start_ns = 10ULL * 1000000000ULL;
	sb->hdr.min_age_ns = 500ULL * 1000000ULL;
}

void sb_stack(struct snapbuild *sb, uint32_t id, unsigned int nr, const uint64_t *ips)
{
	sb->stacks[sb->nr_stacks].id = id;
	sb->stacks[sb->nr_stacks].nr = nr;
	if (nr)
		memcpy(sb->stacks[sb->nr_stacks].ips, ips, nr * sizeof(*ips));
	sb->nr_stacks++;
}

struct memtrace_stat_rec *sb_stat(struct snapbuild *sb, uint32_t stack_id, uint16_t cache_id,
				  uint8_t kind, uint64_t old_count, uint64_t old_bytes)
{
	struct memtrace_stat_rec *r = &sb->stats[sb->nr_stats++];

	memset(r, 0, sizeof(*r));
	r->stack_id = stack_id;
	r->cache_id = cache_id;
	r->kind = kind;
	r->old_count = r->live_count = r->est_old_count = r->total_allocs = old_count;
	r->old_bytes = r->live_bytes = r->live_bytes_req = r->est_old_bytes =
		r->total_bytes = old_bytes;
	return r;
}

struct memtrace_alloc_rec *sb_alloc(struct snapbuild *sb, uint64_t addr, uint64_t ts_ns,
				    uint32_t stack_id, uint32_t bytes, uint32_t pid,
				    const char *comm, uint8_t kind)
{
	struct memtrace_alloc_rec *r = &sb->allocs[sb->nr_allocs++];

	memset(r, 0, sizeof(*r));
	r->addr = addr;
	r->ts_ns = ts_ns;
	r->stack_id = stack_id;
	r->bytes_req = r->bytes_alloc = bytes;
	r->pid = pid;
	r->kind = kind;
	strncpy(r->comm, comm, sizeof(r->comm));
	return r;
}

void sb_cache(struct snapbuild *sb, uint16_t id, const char *name, uint32_t object_size)
{
	struct memtrace_cache_rec *r = &sb->caches[sb->nr_caches++];

	memset(r, 0, sizeof(*r));
	r->id = id;
	r->object_size = object_size;
	strncpy(r->name, name, sizeof(r->name) - 1);
}

void sb_ksym(struct snapbuild *sb, uint64_t start, uint32_t size, uint32_t freed_epoch,
	     uint32_t flags, const char *name, const char *module)
{
	struct sb_ksym *k = &sb->ksyms[sb->nr_ksyms++];

	memset(k, 0, sizeof(*k));
	k->rec.start = start;
	k->rec.size = size;
	k->rec.freed_epoch = freed_epoch;
	k->rec.flags = flags;
	snprintf(k->name, sizeof(k->name), "%s", name);
	snprintf(k->module, sizeof(k->module), "%s", module);
	k->rec.name_len = (uint16_t)strlen(k->name);
	k->rec.module_len = (uint16_t)strlen(k->module);
}

void sb_stack_epoch(struct snapbuild *sb, uint32_t id, uint32_t epoch)
{
	for (unsigned int i = 0; i < sb->nr_stacks; i++)
		if (sb->stacks[i].id == id)
			sb->stacks[i].epoch = epoch;
}

static size_t put(uint8_t *buf, size_t at, const void *rec, size_t size, size_t extra)
{
	memcpy(buf + at, rec, size);
	memset(buf + at + size, 0xAA, extra);
	return at + size + extra;
}

uint8_t *sb_build(struct snapbuild *sb, size_t *len)
{
	struct memtrace_snap_header *h = &sb->hdr;
	size_t stack_rec = sizeof(struct memtrace_stack_rec) + sb->extra_stack;
	size_t stat_rec = sizeof(struct memtrace_stat_rec) + sb->extra_stat;
	size_t alloc_rec = sizeof(struct memtrace_alloc_rec) + sb->extra_alloc;
	size_t cache_rec = sizeof(struct memtrace_cache_rec) + sb->extra_cache;
	size_t cap = sizeof(*h) + 64 + sb->nr_stacks * (stack_rec + 8 + MEMTRACE_MAX_FRAMES * 8) +
		sb->nr_stats * stat_rec + sb->nr_allocs * alloc_rec + sb->nr_caches * cache_rec +
		sb->nr_ksyms * (sizeof(struct memtrace_ksym_rec) + 136);
	uint8_t *buf = calloc(1, cap);
	size_t at = (sizeof(*h) + 7) & ~(size_t)7;

	h->stack_rec_size = (uint32_t)stack_rec;
	h->stat_rec_size = (uint32_t)stat_rec;
	h->alloc_rec_size = (uint32_t)alloc_rec;
	h->cache_rec_size = (uint32_t)cache_rec;

	h->stacks_off = at;
	h->nr_stacks = sb->nr_stacks;
	for (unsigned int i = 0; i < sb->nr_stacks; i++) {
		struct memtrace_stack_rec rec = { .id = sb->stacks[i].id,
						  .nr_frames = sb->stacks[i].nr,
						  .epoch = sb->stacks[i].epoch };

		at = put(buf, at, &rec, sizeof(rec), sb->extra_stack);
		at = put(buf, at, sb->stacks[i].ips, sb->stacks[i].nr * 8, 0);
		at = (at + 7) & ~(size_t)7;
	}
	h->stats_off = at;
	h->nr_stats = sb->nr_stats;
	for (unsigned int i = 0; i < sb->nr_stats; i++)
		at = put(buf, at, &sb->stats[i], sizeof(sb->stats[i]), sb->extra_stat);
	h->allocs_off = at;
	h->nr_allocs = sb->nr_allocs;
	for (unsigned int i = 0; i < sb->nr_allocs; i++)
		at = put(buf, at, &sb->allocs[i], sizeof(sb->allocs[i]), sb->extra_alloc);
	h->caches_off = at;
	h->nr_caches = sb->nr_caches;
	for (unsigned int i = 0; i < sb->nr_caches; i++)
		at = put(buf, at, &sb->caches[i], sizeof(sb->caches[i]), sb->extra_cache);
	at = (at + 7) & ~(size_t)7;
	h->ksyms_off = at;
	h->nr_ksyms = sb->nr_ksyms;
	h->ksym_rec_size = sizeof(struct memtrace_ksym_rec);
	for (unsigned int i = 0; i < sb->nr_ksyms; i++) {
		at = put(buf, at, &sb->ksyms[i].rec, sizeof(sb->ksyms[i].rec), 0);
		at = put(buf, at, sb->ksyms[i].name, sb->ksyms[i].rec.name_len + 1, 0);
		at = put(buf, at, sb->ksyms[i].module, sb->ksyms[i].rec.module_len + 1, 0);
		at = (at + 7) & ~(size_t)7;
	}
	h->used = at;
	memcpy(buf, h, sizeof(*h));
	*len = at;
	return buf;
}

struct memtrace_snap_header sb_header(const uint8_t *buf)
{
	struct memtrace_snap_header h;

	memcpy(&h, buf, sizeof(h));
	return h;
}

void sb_set_header(uint8_t *buf, const struct memtrace_snap_header *h)
{
	memcpy(buf, h, sizeof(*h));
}
