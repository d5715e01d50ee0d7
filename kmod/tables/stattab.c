// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU per-stack counters; see stattab.h.
 */
#include <linux/cpumask.h>
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/vmalloc.h>

#include "tables/stattab.h"

int mt_stattab_init(struct mt_stattab *t, u32 slots_per_cpu)
{
	int cpu;

	slots_per_cpu = roundup_pow_of_two(max_t(u32, slots_per_cpu, 64));
	t->mask = slots_per_cpu - 1;
	t->cpu = kcalloc(nr_cpu_ids, sizeof(*t->cpu), GFP_KERNEL);
	if (!t->cpu)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		t->cpu[cpu] = vzalloc(array_size(slots_per_cpu,
						 sizeof(struct mt_stat)));
		if (!t->cpu[cpu]) {
			mt_stattab_destroy(t);
			return -ENOMEM;
		}
	}
	return 0;
}

void mt_stattab_destroy(struct mt_stattab *t)
{
	int cpu;

	if (!t->cpu)
		return;
	for_each_possible_cpu(cpu)
		vfree(t->cpu[cpu]);
	kfree(t->cpu);
	t->cpu = NULL;
}

void mt_stattab_clear(struct mt_stattab *t)
{
	int cpu;

	for_each_possible_cpu(cpu)
		memset(t->cpu[cpu], 0, (t->mask + 1) * sizeof(struct mt_stat));
}

struct mt_stat *mt_stat_slot(struct mt_stat *tab, u32 mask, u64 key)
{
	u32 i = mt_stat_hash(key), n;

	for (n = 0; n <= mask; n++, i++) {
		struct mt_stat *s = &tab[i & mask];

		if (s->key == key)
			return s;
		if (!s->key) {
			s->key = key;
			return s;
		}
	}
	return NULL;
}

int mt_stattab_merge(struct mt_stattab *t, struct mt_stat *out, u32 slots)
{
	int cpu;
	u32 i;

	for_each_possible_cpu(cpu) {
		const struct mt_stat *tab = t->cpu[cpu];

		for (i = 0; i <= t->mask; i++) {
			const struct mt_stat *s = &tab[i];
			/* Pairs with the release in mt_stattab_get(). */
			u64 key = smp_load_acquire(&s->key);
			struct mt_stat *m;
			u64 first;

			if (!key)
				continue;
			m = mt_stat_slot(out, slots - 1, key);
			if (!m)
				return -ENOSPC;
			/* Racy reads of a live CPU's counters: a snapshot is a moment. */
			m->allocs += READ_ONCE(s->allocs);
			m->bytes += READ_ONCE(s->bytes);
			m->frees += READ_ONCE(s->frees);
			m->live_count += READ_ONCE(s->live_count);
			m->live_bytes += READ_ONCE(s->live_bytes);
			m->live_bytes_req += READ_ONCE(s->live_bytes_req);
			first = READ_ONCE(s->first_ns);
			if (first && (!m->first_ns || first < m->first_ns))
				m->first_ns = first;
			m->last_ns = max_t(u64, m->last_ns, READ_ONCE(s->last_ns));
		}
	}
	return 0;
}

u64 mt_stattab_used(struct mt_stattab *t)
{
	int cpu;
	u64 n = 0;
	u32 i;

	for_each_possible_cpu(cpu)
		for (i = 0; i <= t->mask; i++)
			n += !!READ_ONCE(t->cpu[cpu][i].key);
	return n;
}
