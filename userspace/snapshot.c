// SPDX-License-Identifier: GPL-2.0
/*
 * Snapshot parsing.  Nothing in the buffer is trusted: every offset, count
 * and record size is checked against the buffer before use, with overflow
 * checked arithmetic, and each record is copied out with memcpy (no
 * unaligned loads from the buffer).  Records longer than this reader's
 * struct come from a newer module: their extra fields are skipped.
 */
#include "snapshot.h"
#include "kfmemo.h"

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
				s->epoch = rec.epoch;
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

static int freed_sym_cmp(const void *a, const void *b)
{
	const struct mt_freed_sym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->freed_epoch < y->freed_epoch ? -1 : x->freed_epoch > y->freed_epoch;
}

/*
 * The names of freed module code: variable-length records (ksym_rec_size
 * bytes, then the NUL-terminated name and module), each 8-aligned.  Two
 * passes, as for stacks: validate and measure, then copy.
 */
static int parse_ksyms(const uint8_t *buf, const struct memtrace_snap_header *h,
		       struct mt_snapshot *snap, struct section *sec, struct mt_err *err)
{
	size_t names_len = 0, name_at = 0;
	uint64_t pos = h->ksyms_off;

	sec->name = "module symbol";
	sec->off = h->ksyms_off;
	sec->len = 0;
	if (h->nr_ksyms == 0)
		return 0;
	if (h->ksym_rec_size < sizeof(struct memtrace_ksym_rec))
		return BAD(err, "module symbol record size %u is smaller than this reader's %zu",
			   h->ksym_rec_size, sizeof(struct memtrace_ksym_rec));
	if (h->ksyms_off < sizeof(*h) || h->ksyms_off % 8)
		return BAD(err, "module symbol section offset %llu is inside the header or not 8-aligned",
			   (unsigned long long)h->ksyms_off);
	for (int pass = 0; pass < 2; pass++) {
		pos = h->ksyms_off;
		for (uint32_t i = 0; i < h->nr_ksyms; i++) {
			struct memtrace_ksym_rec rec;
			const char *name, *module;
			uint64_t end;

			if (!mt_add_ok(pos, h->ksym_rec_size, &end) || end > h->used)
				return BAD(err, "module symbol %u at offset %llu runs past the end",
					   i, (unsigned long long)pos);
			memcpy(&rec, buf + pos, sizeof(rec));
			name = (const char *)buf + end;
			module = name + rec.name_len + 1;
			if (!mt_add_ok(end, (uint64_t)rec.name_len + rec.module_len + 2, &end) ||
			    end > h->used || name[rec.name_len] || module[rec.module_len] ||
			    memchr(name, '\0', rec.name_len) || memchr(module, '\0', rec.module_len))
				return BAD(err, "module symbol %u has a malformed name", i);
			if (pass == 0) {
				names_len += rec.name_len + rec.module_len + 2;
			} else {
				struct mt_freed_sym *f = &snap->freed_syms[i];

				f->start = rec.start;
				f->size = rec.size;
				f->freed_epoch = rec.freed_epoch;
				f->flags = rec.flags;
				f->name = memcpy(snap->freed_names + name_at, name,
						 rec.name_len + 1);
				name_at += rec.name_len + 1;
				f->module = memcpy(snap->freed_names + name_at, module,
						   rec.module_len + 1);
				name_at += rec.module_len + 1;
			}
			pos = mt_align_up(end, 8);
		}
		if (pass == 0) {
			snap->freed_syms = calloc(h->nr_ksyms, sizeof(*snap->freed_syms));
			snap->freed_names = malloc(names_len ? names_len : 1);
			if (!snap->freed_syms || !snap->freed_names)
				return mt_errf(err, ENOMEM, "out of memory for %u module symbols",
					       h->nr_ksyms);
		}
	}
	sec->len = (pos > h->used ? h->used : pos) - h->ksyms_off;
	snap->nr_freed_syms = h->nr_ksyms;
	qsort(snap->freed_syms, snap->nr_freed_syms, sizeof(*snap->freed_syms), freed_sym_cmp);
	return 0;
}

int snapshot_parse(const void *buffer, size_t len, struct mt_snapshot *snap,
		   struct mt_err *err)
{
	const uint8_t *buf = buffer;
	struct memtrace_snap_header *h = &snap->hdr;
	struct section secs[5];
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
		ret = parse_ksyms(buf, h, snap, &secs[4], err);
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
	/* Without one (no memory), frames are symbolized each time they show. */
	snap->kfmemo = kfmemo_new();
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
	free(snap->freed_syms);
	free(snap->freed_names);
	kfmemo_free(snap->kfmemo);
	snap->kfmemo = NULL;
	snap->freed_syms = NULL;
	snap->freed_names = NULL;
	snap->nr_freed_syms = 0;
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
