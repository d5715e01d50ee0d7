// SPDX-License-Identifier: GPL-2.0
/*
 * Snapshot parsing.  Nothing in the buffer is trusted: every offset, count
 * and record size is checked against the buffer before use, with overflow
 * checked arithmetic, and each record is copied out with memcpy (no
 * unaligned loads from the buffer).  Records longer than this reader's
 * struct come from a newer module: their extra fields are skipped.
 */
#include "snapshot.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define BAD(err, ...) mt_errf(err, EBADMSG, "malformed snapshot: " __VA_ARGS__)

struct section {
	const char *name;
	uint64_t off, len;
};

/* [off, off + count * rec_size) must lie inside the used bytes, after the header. */
static int check_array(const char *name, uint64_t off, uint64_t count,
		       uint64_t rec_size, uint64_t min_rec_size, uint64_t used,
		       struct section *sec, struct mt_err *err)
{
	uint64_t bytes, end;

	sec->name = name;
	sec->off = off;
	sec->len = 0;
	if (rec_size < min_rec_size)
		return BAD(err, "%s record size %llu is smaller than this reader's %llu",
			   name, (unsigned long long)rec_size,
			   (unsigned long long)min_rec_size);
	if (count == 0)
		return 0;
	if (off < sizeof(struct memtrace_snap_header))
		return BAD(err, "%s section at offset %llu overlaps the header",
			   name, (unsigned long long)off);
	if (!mt_mul_ok(count, rec_size, &bytes) || !mt_add_ok(off, bytes, &end) || end > used)
		return BAD(err, "%s section (offset %llu, %llu records of %llu bytes) "
			   "runs past the %llu bytes used",
			   name, (unsigned long long)off, (unsigned long long)count,
			   (unsigned long long)rec_size, (unsigned long long)used);
	sec->len = bytes;
	return 0;
}

static int section_cmp(const void *a, const void *b)
{
	const struct section *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

/* Two sections sharing bytes means at least one of them is garbage. */
static int check_overlaps(struct section *secs, size_t n, struct mt_err *err)
{
	qsort(secs, n, sizeof(*secs), section_cmp);
	for (size_t i = 0; i + 1 < n; i++) {
		if (!secs[i].len)
			continue;
		for (size_t j = i + 1; j < n; j++) {
			if (secs[j].len && secs[i].off + secs[i].len > secs[j].off)
				return BAD(err, "%s and %s sections overlap",
					   secs[i].name, secs[j].name);
		}
	}
	return 0;
}

static int stack_cmp(const void *a, const void *b)
{
	const struct mt_stack *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

static int cache_cmp(const void *a, const void *b)
{
	const struct memtrace_cache_rec *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/*
 * Stacks are variable length: {id, nr_frames} (stack_rec_size bytes), then
 * nr_frames addresses, the next record at the following 8-byte boundary.
 * Two passes: the first validates and counts frames, the second copies.
 */
static int parse_stacks(const uint8_t *buf, const struct memtrace_snap_header *h,
			struct mt_snapshot *snap, struct section *sec, struct mt_err *err)
{
	uint64_t pos = h->stacks_off, total_frames = 0;
	size_t frame_at = 0;

	sec->name = "stack";
	sec->off = h->stacks_off;
	sec->len = 0;
	if (h->stack_rec_size < sizeof(struct memtrace_stack_rec))
		return BAD(err, "stack record size %u is smaller than this reader's %zu",
			   h->stack_rec_size, sizeof(struct memtrace_stack_rec));
	if (h->nr_stacks == 0)
		return 0;
	if (h->stacks_off < sizeof(*h) || h->stacks_off % 8)
		return BAD(err, "stack section offset %llu is inside the header or not 8-aligned",
			   (unsigned long long)h->stacks_off);

	for (int pass = 0; pass < 2; pass++) {
		pos = h->stacks_off;
		for (uint32_t i = 0; i < h->nr_stacks; i++) {
			struct memtrace_stack_rec rec;
			uint64_t frames_bytes, end;

			if (!mt_add_ok(pos, h->stack_rec_size, &end) || end > h->used)
				return BAD(err, "stack record %u at offset %llu runs past the end",
					   i, (unsigned long long)pos);
			memcpy(&rec, buf + pos, sizeof(rec));
			if (rec.id == MEMTRACE_STACK_NONE)
				return BAD(err, "stack record %u uses the reserved id 0", i);
			frames_bytes = (uint64_t)rec.nr_frames * sizeof(uint64_t);
			if (!mt_add_ok(end, frames_bytes, &end) || end > h->used)
				return BAD(err, "stack %u (%u frames) runs past the end",
					   rec.id, rec.nr_frames);
			if (pass == 0) {
				total_frames += rec.nr_frames;
			} else {
				struct mt_stack *s = &snap->stacks[i];

				s->id = rec.id;
				s->nr_frames = rec.nr_frames;
				s->ips = snap->frames + frame_at;
				memcpy(snap->frames + frame_at, buf + pos + h->stack_rec_size,
				       frames_bytes);
				frame_at += rec.nr_frames;
			}
			pos = mt_align_up(end, 8);
		}
		if (pass == 0) {
			snap->stacks = calloc(h->nr_stacks, sizeof(*snap->stacks));
			snap->frames = calloc(total_frames ? total_frames : 1, sizeof(uint64_t));
			if (!snap->stacks || !snap->frames)
				return mt_errf(err, ENOMEM, "out of memory for %u stacks",
					       h->nr_stacks);
		}
	}
	/* pos was aligned past the last record; only the records count. */
	sec->len = (pos > h->used ? h->used : pos) - h->stacks_off;
	snap->nr_stacks = h->nr_stacks;
	qsort(snap->stacks, snap->nr_stacks, sizeof(*snap->stacks), stack_cmp);
	for (size_t i = 1; i < snap->nr_stacks; i++)
		if (snap->stacks[i].id == snap->stacks[i - 1].id)
			return BAD(err, "stack id %u appears twice", snap->stacks[i].id);
	return 0;
}

/* Copies count records of rec_size bytes into an array of our_size ones. */
static void *copy_records(const uint8_t *buf, uint64_t off, uint32_t count,
			  uint32_t rec_size, size_t our_size)
{
	uint8_t *out = calloc(count ? count : 1, our_size);

	if (!out)
		return NULL;
	for (uint32_t i = 0; i < count; i++)
		memcpy(out + (size_t)i * our_size, buf + off + (uint64_t)i * rec_size, our_size);
	return out;
}

static int parse_caches(struct mt_snapshot *snap, struct mt_err *err)
{
	for (size_t i = 0; i < snap->nr_caches; i++) {
		struct memtrace_cache_rec *c = &snap->caches[i];

		if (c->id == MEMTRACE_CACHE_NONE)
			return BAD(err, "cache record %zu uses the reserved id 0", i);
		if (!memchr(c->name, '\0', sizeof(c->name)))
			return BAD(err, "cache %u has a name without a terminating NUL", c->id);
	}
	qsort(snap->caches, snap->nr_caches, sizeof(*snap->caches), cache_cmp);
	for (size_t i = 1; i < snap->nr_caches; i++)
		if (snap->caches[i].id == snap->caches[i - 1].id)
			return BAD(err, "cache id %u appears twice", snap->caches[i].id);
	return 0;
}

int snapshot_parse(const void *buffer, size_t len, struct mt_snapshot *snap,
		   struct mt_err *err)
{
	const uint8_t *buf = buffer;
	struct memtrace_snap_header *h = &snap->hdr;
	struct section secs[4];
	int ret;

	memset(snap, 0, sizeof(*snap));
	if (len < sizeof(*h))
		return BAD(err, "%zu bytes, smaller than the %zu-byte header", len, sizeof(*h));
	memcpy(h, buf, sizeof(*h));
	if (h->magic != MEMTRACE_SNAP_MAGIC)
		return BAD(err, "bad magic 0x%08x (expected 0x%08x)", h->magic,
			   MEMTRACE_SNAP_MAGIC);
	if (h->abi_version != MEMTRACE_ABI_VERSION)
		return mt_errf(err, EPROTO, "snapshot has ABI version %u, this reader speaks %u",
			       h->abi_version, MEMTRACE_ABI_VERSION);
	if (h->used < sizeof(*h) || h->used > len)
		return BAD(err, "header says %llu bytes used, but the buffer holds %zu",
			   (unsigned long long)h->used, len);

	ret = parse_stacks(buf, h, snap, &secs[0], err);
	if (!ret)
		ret = check_array("stat", h->stats_off, h->nr_stats, h->stat_rec_size,
				  sizeof(struct memtrace_stat_rec), h->used, &secs[1], err);
	if (!ret)
		ret = check_array("allocation", h->allocs_off, h->nr_allocs, h->alloc_rec_size,
				  sizeof(struct memtrace_alloc_rec), h->used, &secs[2], err);
	if (!ret)
		ret = check_array("cache", h->caches_off, h->nr_caches, h->cache_rec_size,
				  sizeof(struct memtrace_cache_rec), h->used, &secs[3], err);
	if (!ret)
		ret = check_overlaps(secs, MT_ARRAY_SIZE(secs), err);
	if (ret)
		goto fail;

	snap->stats = copy_records(buf, h->stats_off, h->nr_stats, h->stat_rec_size,
				   sizeof(*snap->stats));
	snap->allocs = copy_records(buf, h->allocs_off, h->nr_allocs, h->alloc_rec_size,
				    sizeof(*snap->allocs));
	snap->caches = copy_records(buf, h->caches_off, h->nr_caches, h->cache_rec_size,
				    sizeof(*snap->caches));
	if (!snap->stats || !snap->allocs || !snap->caches) {
		ret = mt_errf(err, ENOMEM, "out of memory for a snapshot of %llu bytes",
			      (unsigned long long)h->used);
		goto fail;
	}
	snap->nr_stats = h->nr_stats;
	snap->nr_allocs = h->nr_allocs;
	snap->nr_caches = h->nr_caches;
	ret = parse_caches(snap, err);
	if (ret)
		goto fail;
	return 0;
fail:
	snapshot_free(snap);
	return ret;
}

void snapshot_free(struct mt_snapshot *snap)
{
	free(snap->stacks);
	free(snap->frames);
	free(snap->stats);
	free(snap->allocs);
	free(snap->caches);
	snap->stacks = NULL;
	snap->frames = NULL;
	snap->stats = NULL;
	snap->allocs = NULL;
	snap->caches = NULL;
	snap->nr_stacks = snap->nr_stats = snap->nr_allocs = snap->nr_caches = 0;
}

const struct mt_stack *snapshot_stack(const struct mt_snapshot *snap, uint32_t id)
{
	struct mt_stack key = { .id = id };

	if (id == MEMTRACE_STACK_NONE || !snap->nr_stacks)
		return NULL;
	return bsearch(&key, snap->stacks, snap->nr_stacks, sizeof(key), stack_cmp);
}

const struct memtrace_cache_rec *snapshot_cache(const struct mt_snapshot *snap, uint16_t id)
{
	struct memtrace_cache_rec key = { .id = id };

	if (id == MEMTRACE_CACHE_NONE || !snap->nr_caches)
		return NULL;
	return bsearch(&key, snap->caches, snap->nr_caches, sizeof(key), cache_cmp);
}
