// SPDX-License-Identifier: GPL-2.0
/*
 * The growth modes' counts; see growthagg.h.  By (process, stack): a
 * hash table (open addressing) of entries allocated one by one; by file:
 * an array searched by name.
 */
#include "growthagg.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define AGG_MAX_ENTRIES	(1U << 20)

struct growth_agg {
	struct growth_entry **entries;
	size_t nr, cap;
	uint32_t *buckets;	/* index + 1 into entries; 0: empty (open addressing) */
	size_t nr_buckets;
	const struct growth_entry **sorted;
};

struct growth_agg *growth_agg_new(void)
{
	return calloc(1, sizeof(struct growth_agg));
}

void growth_agg_free(struct growth_agg *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->nr; i++)
		free(a->entries[i]);
	free(a->entries);
	free(a->buckets);
	free(a->sorted);
	free(a);
}

static uint64_t agg_hash(uint32_t pid, const char *comm, const uint64_t *frames, uint32_t nr)
{
	uint64_t h = 1469598103934665603ULL ^ pid;

	for (size_t i = 0; comm[i]; i++)
		h = (h ^ (uint8_t)comm[i]) * 1099511628211ULL;
	for (uint32_t i = 0; i < nr; i++)
		h = (h ^ frames[i]) * 1099511628211ULL;
	return h ^ (h >> 29);
}

static bool agg_same(const struct growth_entry *e, uint32_t pid, const char *comm,
		     const uint64_t *frames, uint32_t nr)
{
	return e->pid == pid && e->nr_frames == nr && !strcmp(e->comm, comm) &&
	       !memcmp(e->frames, frames, nr * sizeof(*frames));
}

static int agg_rehash(struct growth_agg *a, size_t nr_buckets)
{
	uint32_t *b = calloc(nr_buckets, sizeof(*b));

	if (!b)
		return -ENOMEM;
	for (size_t i = 0; i < a->nr; i++) {
		const struct growth_entry *e = a->entries[i];
		size_t at = agg_hash(e->pid, e->comm, e->frames, e->nr_frames) & (nr_buckets - 1);

		while (b[at])
			at = (at + 1) & (nr_buckets - 1);
		b[at] = (uint32_t)i + 1;
	}
	free(a->buckets);
	a->buckets = b;
	a->nr_buckets = nr_buckets;
	return 0;
}

/* Counts one call (or fault) of pid, comm and its stack. */
int growth_agg_count(struct growth_agg *a, uint32_t pid, const char *rcomm,
		     const uint64_t *frames, uint32_t nr, uint64_t bytes, uint64_t major)
{
	char comm[MEMTRACE_COMM_LEN + 1];
	struct growth_entry *e;
	size_t at;

	if (nr > MEMTRACE_MAX_FRAMES)
		nr = MEMTRACE_MAX_FRAMES;
	mt_comm(comm, rcomm);
	if (!a->nr_buckets || (a->nr + 1) * 2 > a->nr_buckets) {
		if (agg_rehash(a, a->nr_buckets ? a->nr_buckets * 2 : 256))
			return -ENOMEM;
	}
	at = agg_hash(pid, comm, frames, nr) & (a->nr_buckets - 1);
	for (; a->buckets[at]; at = (at + 1) & (a->nr_buckets - 1)) {
		e = a->entries[a->buckets[at] - 1];
		if (agg_same(e, pid, comm, frames, nr))
			goto count;
	}
	if (a->nr == AGG_MAX_ENTRIES)
		return -ENOMEM;
	if (a->nr == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 64;
		void *p = realloc(a->entries, cap * sizeof(*a->entries));

		if (!p)
			return -ENOMEM;
		a->entries = p;
		a->cap = cap;
	}
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->pid = pid;
	memcpy(e->comm, comm, sizeof(e->comm));
	e->nr_frames = nr;
	memcpy(e->frames, frames, nr * sizeof(*frames));
	a->entries[a->nr++] = e;
	a->buckets[at] = (uint32_t)a->nr;
count:
	e->calls++;
	e->bytes += bytes;
	e->major += major;
	return 0;
}

/* The frames a record of hdr_size bytes really holds, of the nr it claims. */
static uint32_t frames_in(uint32_t nr, uint32_t size, size_t hdr_size)
{
	return nr > (size - hdr_size) / sizeof(uint64_t) ?
	       (uint32_t)((size - hdr_size) / sizeof(uint64_t)) : nr;
}

int growth_agg_add(struct growth_agg *a, const struct memtrace_ev_syscall *r, uint64_t bytes)
{
	return growth_agg_count(a, r->pid, r->comm, (const uint64_t *)(r + 1),
			 frames_in(r->nr_frames, r->hdr.size, sizeof(*r)), bytes, 0);
}

int growth_agg_add_usdt(struct growth_agg *a, const struct memtrace_ev_usdt *r)
{
	return growth_agg_count(a, r->pid, r->comm, (const uint64_t *)(r + 1),
			 frames_in(r->nr_frames, r->hdr.size, sizeof(*r)), 0, 0);
}

int growth_agg_add_fault(struct growth_agg *a, const struct memtrace_ev_fault *r)
{
	return growth_agg_count(a, r->pid, r->comm, (const uint64_t *)(r + 1),
			 frames_in(r->nr_frames, r->hdr.size, sizeof(*r)), 0,
			 !!(r->flags & MEMTRACE_FAULT_MAJOR));
}

/* ---- --ffaults: by file ---- */

#define FILES_MAX	(1U << 16)

struct growth_files {
	struct growth_file *files;
	size_t nr, cap;
	uint64_t anon_minor, anon_major;
	const struct growth_file **sorted;
};

struct growth_files *growth_files_new(void)
{
	return calloc(1, sizeof(struct growth_files));
}

void growth_files_free(struct growth_files *f)
{
	if (!f)
		return;
	free(f->files);
	free(f->sorted);
	free(f);
}

int growth_files_add(struct growth_files *f, const struct memtrace_ev_fault *r)
{
	bool major = r->flags & MEMTRACE_FAULT_MAJOR;
	char name[MEMTRACE_FILE_NAME_LEN + 1];
	struct growth_file *g = NULL;

	memcpy(name, r->file, MEMTRACE_FILE_NAME_LEN);
	name[MEMTRACE_FILE_NAME_LEN] = '\0';
	if (!name[0]) {
		*(major ? &f->anon_major : &f->anon_minor) += 1;
		return 0;
	}
	/* Few files fault: a program's libraries and data. */
	for (size_t i = 0; i < f->nr && !g; i++)
		if (!strcmp(f->files[i].name, name))
			g = &f->files[i];
	if (!g) {
		if (f->nr == FILES_MAX)
			return -ENOMEM;
		if (f->nr == f->cap) {
			size_t cap = f->cap ? f->cap * 2 : 64;
			void *p = realloc(f->files, cap * sizeof(*f->files));

			if (!p)
				return -ENOMEM;
			f->files = p;
			f->cap = cap;
		}
		g = &f->files[f->nr++];
		memset(g, 0, sizeof(*g));
		memcpy(g->name, name, sizeof(g->name));
	}
	*(major ? &g->major : &g->minor) += 1;
	return 0;
}

static int file_cmp(const void *x, const void *y)
{
	const struct growth_file *a = *(const struct growth_file *const *)x;
	const struct growth_file *b = *(const struct growth_file *const *)y;
	uint64_t ta = a->minor + a->major, tb = b->minor + b->major;

	if (ta != tb)
		return ta > tb ? -1 : 1;
	return strcmp(a->name, b->name);
}

const struct growth_file *const *growth_files_sorted(struct growth_files *f, size_t *n,
						     uint64_t *anon_minor, uint64_t *anon_major)
{
	const struct growth_file **s = realloc(f->sorted, (f->nr ? f->nr : 1) * sizeof(*s));

	*n = 0;
	*anon_minor = f->anon_minor;
	*anon_major = f->anon_major;
	if (!s)
		return NULL;
	f->sorted = s;
	for (size_t i = 0; i < f->nr; i++)
		s[i] = &f->files[i];
	qsort(s, f->nr, sizeof(*s), file_cmp);
	*n = f->nr;
	return s;
}

static int entry_cmp(const void *x, const void *y)
{
	const struct growth_entry *a = *(const struct growth_entry *const *)x;
	const struct growth_entry *b = *(const struct growth_entry *const *)y;

	if (a->bytes != b->bytes)
		return a->bytes > b->bytes ? -1 : 1;
	if (a->calls != b->calls)
		return a->calls > b->calls ? -1 : 1;
	return a->pid < b->pid ? -1 : a->pid > b->pid;
}

const struct growth_entry *const *growth_agg_sorted(struct growth_agg *a, size_t *n)
{
	const struct growth_entry **s = realloc(a->sorted, (a->nr ? a->nr : 1) * sizeof(*s));

	*n = 0;
	if (!s)
		return NULL;
	a->sorted = s;
	memcpy(s, a->entries, a->nr * sizeof(*s));
	qsort(s, a->nr, sizeof(*s), entry_cmp);
	*n = a->nr;
	return s;
}
