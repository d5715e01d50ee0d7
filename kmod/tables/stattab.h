/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-CPU tables of per-stack counters, keyed by (stack, cache, kind).
 *
 * Each CPU updates only its own table, with interrupts disabled, so no
 * update needs a lock or an atomic.  A free is counted on the CPU that
 * frees, usually not the one that allocated: per-CPU live counts may go
 * negative and only their sum, taken by mt_stattab_merge() at snapshot
 * time, means anything.
 *
 * Open addressing with linear probing; a key, once placed, stays until the
 * table is cleared, and is published with release semantics so a reader
 * on another CPU sees zeroed counters behind it.
 */
#ifndef MEMTRACE_STATTAB_H
#define MEMTRACE_STATTAB_H

#include <linux/hash.h>
#include <linux/smp.h>
#include <linux/types.h>
#include <asm/barrier.h>

struct mt_stat {
	u64 key;		/* MT_STAT_KEY(); 0: empty slot */
	u64 allocs;
	u64 bytes;
	u64 frees;
	s64 live_count;
	s64 live_bytes;
	s64 live_bytes_req;
	u64 first_ns;
	u64 last_ns;
};

#define MT_STAT_KEY(stack_id, cache_kind) \
	((1ULL << 63) | ((u64)(cache_kind) << 32) | (u32)(stack_id))
#define MT_STAT_STACK(key)	((u32)(key))
#define MT_STAT_CACHE_KIND(key)	((u16)((key) >> 32))

struct mt_stattab {
	struct mt_stat **cpu;	/* per possible CPU, vmalloc'd */
	u32 mask;		/* slots per CPU - 1 */
};

int mt_stattab_init(struct mt_stattab *t, u32 slots_per_cpu);
void mt_stattab_destroy(struct mt_stattab *t);
/* Only while no hook can run. */
void mt_stattab_clear(struct mt_stattab *t);

/* Probe this many slots before calling a table full. */
#define MT_STAT_MAX_PROBE	64

static inline u32 mt_stat_hash(u64 key)
{
	return hash_64(key, 32);
}

/*
 * This CPU's counters of key, created if needed; NULL when the table is
 * full.  Inline: the hooks call it at every allocation and free.
 */
static inline struct mt_stat *mt_stattab_get(struct mt_stattab *t, u64 key)
{
	struct mt_stat *tab = t->cpu[smp_processor_id()];
	u32 i = mt_stat_hash(key), n;

	for (n = 0; n < MT_STAT_MAX_PROBE; n++, i++) {
		struct mt_stat *s = &tab[i & t->mask];
		u64 k = s->key;		/* only this CPU writes keys here */

		if (k == key)
			return s;
		if (!k) {
			/* Counters are zero since the last clear. */
			smp_store_release(&s->key, key);
			return s;
		}
	}
	return NULL;
}

/*
 * Sum the counters of all CPUs into out[] (a hash table of 'slots'
 * entries, slots a power of two, zeroed by the caller).  Returns 0, or
 * -ENOSPC when out[] is too small.
 */
int mt_stattab_merge(struct mt_stattab *t, struct mt_stat *out, u32 slots);
/* Find or add key in a merge table as filled by mt_stattab_merge(). */
struct mt_stat *mt_stat_slot(struct mt_stat *tab, u32 mask, u64 key);
/* Keys in use over all CPUs: an upper bound of the merged count. */
u64 mt_stattab_used(struct mt_stattab *t);

#endif
