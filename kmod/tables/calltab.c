// SPDX-License-Identifier: GPL-2.0
/*
 * User mode: the allocator calls in flight, per thread; see calltab.h.
 */
#include <linux/atomic.h>
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "tables/calltab.h"

int mt_calltab_init(struct mt_calltab *t, u32 slots)
{
	slots = roundup_pow_of_two(max_t(u32, slots, MT_CALL_PROBES));
	t->slots = vzalloc(array_size(slots, sizeof(*t->slots)));
	if (!t->slots)
		return -ENOMEM;
	t->mask = slots - 1;
	return 0;
}

void mt_calltab_destroy(struct mt_calltab *t)
{
	vfree(t->slots);
	t->slots = NULL;
}

void mt_calltab_clear(struct mt_calltab *t)
{
	memset(t->slots, 0, (size_t)(t->mask + 1) * sizeof(*t->slots));
}

struct mt_thread_calls *mt_calltab_find(struct mt_calltab *t, u32 tid)
{
	u32 h = hash_32(tid, 32), i;

	/*
	 * Only this thread claims or frees a slot holding its id, so if it
	 * has one, it is in its probe window whatever others do meanwhile.
	 */
	for (i = 0; i < MT_CALL_PROBES; i++) {
		struct mt_thread_calls *tc = &t->slots[(h + i) & t->mask];

		if (READ_ONCE(tc->tid) == tid)
			return tc;
	}
	return NULL;
}

struct mt_thread_calls *mt_calltab_get(struct mt_calltab *t, u32 tid)
{
	struct mt_thread_calls *tc = mt_calltab_find(t, tid);
	u32 h = hash_32(tid, 32), i;

	if (tc)
		return tc;
	for (i = 0; i < MT_CALL_PROBES; i++) {
		tc = &t->slots[(h + i) & t->mask];
		if (!READ_ONCE(tc->tid) && !cmpxchg(&tc->tid, 0, tid)) {
			tc->depth = 0;
			return tc;
		}
	}
	return NULL;
}

/*
 * Calls still recorded below stack pointer sp have returned unseen
 * (longjmp, a lost return probe): the stack grows down, so a live outer
 * call has a higher one.  One at sp itself has jumped to this one (a tail
 * call: operator new[] to operator new, operator delete to free()), which
 * is part of it; its return will be this one's.
 */
static void mt_calltab_drop_returned(struct mt_thread_calls *tc, unsigned long sp)
{
	while (tc->depth && tc->call[tc->depth - 1].sp < sp)
		tc->depth--;
}

static void mt_calltab_put(struct mt_thread_calls *tc)
{
	if (tc->depth)
		return;
	/* The slot's calls are finished before another thread may claim it. */
	smp_store_release(&tc->tid, 0);
}

bool mt_calltab_inside(struct mt_thread_calls *tc, unsigned long sp)
{
	mt_calltab_drop_returned(tc, sp);
	mt_calltab_put(tc);
	return tc->depth;
}

struct mt_call *mt_calltab_push(struct mt_thread_calls *tc, unsigned long sp)
{
	struct mt_call *c;

	mt_calltab_drop_returned(tc, sp);
	if (tc->depth == MT_CALL_DEPTH)
		return NULL;
	c = &tc->call[tc->depth++];
	memset(c, 0, sizeof(*c));
	c->sp = sp;
	return c;
}

bool mt_calltab_pop(struct mt_thread_calls *tc, unsigned long ret_sp,
		    struct mt_call *out)
{
	/* The return address has been popped: one word above the entry sp. */
	unsigned long sp = ret_sp - sizeof(unsigned long);
	u32 i = tc->depth;
	bool found = false;

	while (i--) {
		if (tc->call[i].sp == sp) {
			*out = tc->call[i];
			tc->depth = i;
			found = true;
			break;
		}
		/* Above every remaining call: not ours. */
		if (tc->call[i].sp > sp)
			break;
	}
	mt_calltab_put(tc);
	return found;
}
