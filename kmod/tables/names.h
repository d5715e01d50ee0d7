/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Small interned tables the hooks fill without allocating: slab cache
 * names (so a live entry carries a 13-bit cache id, not a pointer to a
 * cache that may be destroyed before the report) and task names (a 16-bit
 * id instead of 16 bytes of comm in every live entry).
 *
 * Lookups are lockless; inserts, rare, take a raw spinlock.  An id, once
 * given, is stable until the table is cleared.
 */
#ifndef MEMTRACE_NAMES_H
#define MEMTRACE_NAMES_H

#include <linux/types.h>
#include <linux/spinlock.h>
#include <linux/memtrace.h>

#define MT_CACHE_SLOTS	4096	/* ids fit the 12 bits of mt_live.cache_kind */
#define MT_COMM_SLOTS	16384

struct mt_cache_name {
	unsigned long key;	/* cache pointer, or an odd kmalloc class key */
	u32 object_size;
	bool selected;		/* passes the cache filter */
	char name[MEMTRACE_NAME_LEN];
};

struct mt_comm_name {
	u32 hash;		/* 0: empty */
	char comm[MEMTRACE_COMM_LEN];
};

/* Cache filter: names a slab allocation must come from; none: all. */
struct mt_cache_filter {
	u32 nr;
	char names[MEMTRACE_MAX_CACHE_FILTERS][MEMTRACE_NAME_LEN];
};

struct mt_names {
	raw_spinlock_t lock;
	/*
	 * Bumped when a cache is destroyed: per-CPU memos of (cache, id)
	 * made before are stale, as a new cache may get the same address.
	 */
	atomic_t generation;
	struct mt_cache_name *caches;
	struct mt_comm_name *comms;
	u32 nr_caches;
	u32 nr_comms;
	const struct mt_cache_filter *filter;
};

int mt_names_init(struct mt_names *n);
void mt_names_destroy(struct mt_names *n);
/* Only while no hook can run. */
void mt_names_clear(struct mt_names *n, const struct mt_cache_filter *filter);

/*
 * Id of a cache (MEMTRACE_CACHE_NONE when the table is full).  'name' and
 * 'object_size' are read only when the key is new.
 */
/* Id of a known cache key, 0 if unknown. */
u16 mt_cache_lookup(const struct mt_names *n, unsigned long key);
u16 mt_cache_intern(struct mt_names *n, unsigned long key, const char *name,
		    u32 object_size);
/*
 * The cache at key is being destroyed: lookups of key find nothing from
 * now on (a cache created later at the same address is interned anew),
 * while its id keeps its name for the records that carry it.
 */
void mt_cache_forget(struct mt_names *n, unsigned long key);
/*
 * The kmalloc cache of an allocation, named by size class as the kernel
 * names its caches; its object_size is the class size (0 for kmalloc-large).
 */
u16 mt_kmalloc_cache_intern(struct mt_names *n, size_t bytes_req,
			    size_t bytes_alloc, gfp_t gfp);
const struct mt_cache_name *mt_cache_get(const struct mt_names *n, u16 id);

/* Id of a task name; 0 when the table is full. */
u16 mt_comm_intern(struct mt_names *n, const char *comm);
const char *mt_comm_get(const struct mt_names *n, u16 id);

bool mt_cache_filter_match(const struct mt_cache_filter *f, const char *name);

#endif
