// SPDX-License-Identifier: GPL-2.0
/*
 * An open-addressing table of (epoch, return address) -> frame, grown at
 * half full; never shrunk: it lives as long as its snapshot.
 */
#include "kfmemo.h"
#include "rmframe.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

struct kfmemo_slot {
	uint64_t ip;
	uint32_t epoch;
	bool used;
	struct rm_frame frame;
};

struct kfmemo {
	struct kfmemo_slot *slots;
	size_t size, used;	/* size: a power of two, or 0 */
	unsigned int loads;	/* of the symbol table the names come from */
	bool loads_set;
	bool retired;		/* the symbol table was loaded again */
};

void kfmemo_symbols(struct kfmemo *memo, unsigned int loads)
{
	if (!memo)
		return;
	if (memo->loads_set && memo->loads != loads)
		memo->retired = true;
	memo->loads = loads;
	memo->loads_set = true;
}

struct kfmemo *kfmemo_new(void)
{
	return calloc(1, sizeof(struct kfmemo));
}

void kfmemo_free(struct kfmemo *memo)
{
	if (!memo)
		return;
	for (size_t i = 0; i < memo->size; i++) {
		struct rm_frame *f = &memo->slots[i].frame;

		if (!memo->slots[i].used)
			continue;
		free(f->text);
		free(f->function);
		free(f->module);
		free(f->file);
	}
	free(memo->slots);
	free(memo);
}

static size_t slot_of(const struct kfmemo *memo, uint32_t epoch, uint64_t ip)
{
	uint64_t h = (ip ^ ((uint64_t)epoch << 40)) * 0x9e3779b97f4a7c15ULL;

	return (size_t)(h >> 32) & (memo->size - 1);
}

/* The slot of (epoch, ip), or the free one where it would go. */
static struct kfmemo_slot *find(const struct kfmemo *memo, uint32_t epoch, uint64_t ip)
{
	size_t i = slot_of(memo, epoch, ip);

	while (memo->slots[i].used &&
	       (memo->slots[i].ip != ip || memo->slots[i].epoch != epoch))
		i = (i + 1) & (memo->size - 1);
	return &memo->slots[i];
}

static int grow(struct kfmemo *memo)
{
	struct kfmemo old = *memo;

	memo->size = old.size ? old.size * 2 : 256;
	memo->slots = calloc(memo->size, sizeof(*memo->slots));
	if (!memo->slots) {
		*memo = old;
		return -ENOMEM;
	}
	for (size_t i = 0; i < old.size; i++)
		if (old.slots[i].used)
			*find(memo, old.slots[i].epoch, old.slots[i].ip) = old.slots[i];
	free(old.slots);
	return 0;
}

const struct rm_frame *kfmemo_get(const struct kfmemo *memo, uint32_t epoch, uint64_t ip)
{
	const struct kfmemo_slot *s;

	if (!memo || !memo->size || memo->retired)
		return NULL;
	s = find(memo, epoch, ip);
	return s->used ? &s->frame : NULL;
}

int kfmemo_put(struct kfmemo *memo, uint32_t epoch, uint64_t ip, struct rm_frame *f)
{
	struct kfmemo_slot *s;

	if (memo->retired)
		return -ESTALE;
	if (2 * (memo->used + 1) > memo->size && grow(memo))
		return -ENOMEM;
	s = find(memo, epoch, ip);
	if (s->used)
		return -EEXIST;	/* callers look first: not reached */
	f->shared = true;
	s->ip = ip;
	s->epoch = epoch;
	s->used = true;
	s->frame = *f;
	memo->used++;
	return 0;
}
