// SPDX-License-Identifier: GPL-2.0
/*
 * Interned cache and task names; see names.h.
 */
#include <linux/gfp.h>
#include <linux/jhash.h>
#include <linux/hash.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "compat/compat.h"
#include "tables/hooklock.h"
#include "tables/names.h"

int mt_names_init(struct mt_names *n)
{
	memset(n, 0, sizeof(*n));
	raw_spin_lock_init(&n->lock);
	n->caches = vzalloc(array_size(MT_CACHE_SLOTS, sizeof(*n->caches)));
	n->comms = vzalloc(array_size(MT_COMM_SLOTS, sizeof(*n->comms)));
	if (!n->caches || !n->comms) {
		mt_names_destroy(n);
		return -ENOMEM;
	}
	return 0;
}

void mt_names_destroy(struct mt_names *n)
{
	vfree(n->caches);
	vfree(n->comms);
	n->caches = NULL;
	n->comms = NULL;
}

void mt_names_clear(struct mt_names *n, const struct mt_cache_filter *filter)
{
	memset(n->caches, 0, MT_CACHE_SLOTS * sizeof(*n->caches));
	memset(n->comms, 0, MT_COMM_SLOTS * sizeof(*n->comms));
	n->nr_caches = 0;
	n->nr_comms = 0;
	n->filter = filter;
	atomic_inc(&n->generation);
}

bool mt_cache_filter_match(const struct mt_cache_filter *f, const char *name)
{
	u32 i;

	if (!f || !f->nr)
		return true;
	for (i = 0; i < f->nr; i++)
		if (!strncmp(f->names[i], name, MEMTRACE_NAME_LEN))
			return true;
	return false;
}

/*
 * Slot 0 is never used, so a slot index is an id and 0 means none.  Probing
 * stops at an empty slot: keys are never removed before a clear, only
 * replaced by MT_CACHE_FORGOTTEN, which no lookup matches and which probing
 * passes over.
 */
#define MT_CACHE_FORGOTTEN	(~0UL)

static u32 mt_cache_find(const struct mt_names *n, unsigned long key, u32 *empty)
{
	u32 i = hash_long(key, 32), tries;

	for (tries = 0; tries < MT_CACHE_SLOTS; tries++, i++) {
		u32 slot = i & (MT_CACHE_SLOTS - 1);
		unsigned long k;

		if (!slot)
			continue;
		/* Pairs with the release in mt_cache_intern(): name is set. */
		k = smp_load_acquire(&n->caches[slot].key);
		if (k == key)
			return slot;
		if (!k) {
			*empty = slot;
			return 0;
		}
	}
	*empty = 0;
	return 0;
}

u16 mt_cache_lookup(const struct mt_names *n, unsigned long key)
{
	u32 empty;

	return mt_cache_find(n, key, &empty);
}

void mt_cache_forget(struct mt_names *n, unsigned long key)
{
	unsigned long flags;
	u32 id, empty;

	mt_hook_lock_irqsave(&n->lock, flags);
	id = mt_cache_find(n, key, &empty);
	if (id) {
		/* Name and size stay for the id's records; the key goes. */
		WRITE_ONCE(n->caches[id].key, MT_CACHE_FORGOTTEN);
		atomic_inc(&n->generation);
	}
	raw_spin_unlock_irqrestore(&n->lock, flags);
}

u16 mt_cache_intern(struct mt_names *n, unsigned long key, const char *name,
		    u32 object_size)
{
	struct mt_cache_name *c;
	unsigned long flags;
	u32 id, empty;

	id = mt_cache_find(n, key, &empty);
	if (id)
		return id;

	mt_hook_lock_irqsave(&n->lock, flags);
	id = mt_cache_find(n, key, &empty);
	/* Keep the table at most 3/4 full so probes stay short. */
	if (id || !empty || n->nr_caches >= MT_CACHE_SLOTS * 3 / 4)
		goto out;
	c = &n->caches[empty];
	strscpy(c->name, name, sizeof(c->name));
	c->object_size = object_size;
	c->selected = mt_cache_filter_match(n->filter, c->name);
	n->nr_caches++;
	/* Publish the key last: lockless readers then see a complete name. */
	smp_store_release(&c->key, key);
	id = empty;
out:
	raw_spin_unlock_irqrestore(&n->lock, flags);
	return id;
}

/* The kmalloc cache families, as kmalloc_type() picks them in mm/slab.h. */
enum mt_kmalloc_family { MT_KM_NORMAL, MT_KM_DMA, MT_KM_RCL, MT_KM_CG, MT_KM_LARGE };

static const char * const mt_kmalloc_family_name[] = {
	[MT_KM_NORMAL] = "kmalloc",
	[MT_KM_DMA] = "dma-kmalloc",
	[MT_KM_RCL] = "kmalloc-rcl",
	[MT_KM_CG] = "kmalloc-cg",
	[MT_KM_LARGE] = "kmalloc-large",
};

u16 mt_kmalloc_cache_intern(struct mt_names *n, size_t bytes_req,
			    size_t bytes_alloc, gfp_t gfp)
{
	enum mt_kmalloc_family fam = MT_KM_NORMAL;
	char name[MEMTRACE_NAME_LEN];
	unsigned long key;
	size_t class;
	u32 id, empty;

	if (bytes_req > KMALLOC_MAX_CACHE_SIZE) {
		/* Past the largest kmalloc cache, kmalloc takes pages directly. */
		fam = MT_KM_LARGE;
		bytes_alloc = 0;
	} else if (IS_ENABLED(CONFIG_ZONE_DMA) && (gfp & __GFP_DMA)) {
		fam = MT_KM_DMA;
	} else if (gfp & __GFP_RECLAIMABLE) {
		fam = MT_KM_RCL;
	} else if (IS_ENABLED(CONFIG_MEMCG) && (gfp & __GFP_ACCOUNT)) {
		fam = MT_KM_CG;
	}
	/*
	 * bytes_alloc is the cache's slot size, which identifies the cache but
	 * includes SLUB debug metadata when that is on.  An odd key never
	 * equals a kmem_cache pointer.
	 */
	key = ((unsigned long)bytes_alloc << 8) | (fam << 1) | 1;
	id = mt_cache_find(n, key, &empty);
	if (id)
		return id;

	/* First sight of this cache: name it by its size class, as the kernel does. */
	class = fam == MT_KM_LARGE ? 0 : mt_kmalloc_size_roundup(bytes_req);
	if (fam == MT_KM_LARGE)
		strscpy(name, mt_kmalloc_family_name[fam], sizeof(name));
	else if (class >= 1024 && !(class & 1023))
		snprintf(name, sizeof(name), "%s-%zuk",
			 mt_kmalloc_family_name[fam], class >> 10);
	else
		snprintf(name, sizeof(name), "%s-%zu",
			 mt_kmalloc_family_name[fam], class);
	return mt_cache_intern(n, key, name, class);
}

const struct mt_cache_name *mt_cache_get(const struct mt_names *n, u16 id)
{
	/* Pairs with the release in mt_cache_intern(). */
	if (!id || id >= MT_CACHE_SLOTS || !smp_load_acquire(&n->caches[id].key))
		return NULL;
	return &n->caches[id];
}

static u32 mt_comm_hash(const char *comm)
{
	char buf[MEMTRACE_COMM_LEN] = { };

	strscpy(buf, comm, sizeof(buf));
	return jhash(buf, sizeof(buf), 0) | 1;	/* never 0: 0 marks empty */
}

static u32 mt_comm_find(const struct mt_names *n, const char *comm, u32 hash,
			u32 *empty)
{
	u32 i = hash, tries;

	for (tries = 0; tries < MT_COMM_SLOTS; tries++, i++) {
		u32 slot = i & (MT_COMM_SLOTS - 1);
		u32 h;

		if (!slot)
			continue;
		/* Pairs with the release in mt_comm_intern(): comm is set. */
		h = smp_load_acquire(&n->comms[slot].hash);
		if (h == hash && !strncmp(n->comms[slot].comm, comm, MEMTRACE_COMM_LEN))
			return slot;
		if (!h) {
			*empty = slot;
			return 0;
		}
	}
	*empty = 0;
	return 0;
}

u16 mt_comm_intern(struct mt_names *n, const char *comm)
{
	u32 hash = mt_comm_hash(comm), id, empty;
	unsigned long flags;

	id = mt_comm_find(n, comm, hash, &empty);
	if (id)
		return id;

	mt_hook_lock_irqsave(&n->lock, flags);
	id = mt_comm_find(n, comm, hash, &empty);
	if (id || !empty || n->nr_comms >= MT_COMM_SLOTS * 3 / 4)
		goto out;
	strscpy(n->comms[empty].comm, comm, MEMTRACE_COMM_LEN);
	n->nr_comms++;
	/* Publish the hash last: lockless readers then see the whole comm. */
	smp_store_release(&n->comms[empty].hash, hash);
	id = empty;
out:
	raw_spin_unlock_irqrestore(&n->lock, flags);
	return id;
}

const char *mt_comm_get(const struct mt_names *n, u16 id)
{
	/* Pairs with the release in mt_comm_intern(). */
	if (!id || id >= MT_COMM_SLOTS || !smp_load_acquire(&n->comms[id].hash))
		return "?";
	return n->comms[id].comm;
}
