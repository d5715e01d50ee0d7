// SPDX-License-Identifier: GPL-2.0
/*
 * Tasks with something in flight; see pidtab.h.
 */
#include "pidtab.h"

#include <string.h>

struct pidtab_ent *pidtab_get(struct pidtab *t, uint32_t pid, bool make)
{
	if (!pid)
		return NULL;
	for (unsigned int i = 0, h = pid % PIDTAB_SLOTS; i < PIDTAB_SLOTS; i++) {
		struct pidtab_ent *e = &t->ent[(h + i) % PIDTAB_SLOTS];

		if (e->pid == pid)
			return e;
		if (!e->pid) {
			if (!make)
				return NULL;
			memset(e, 0, sizeof(*e));
			e->pid = pid;
			return e;
		}
	}
	return NULL;
}

void pidtab_del(struct pidtab *t, struct pidtab_ent *e)
{
	/* Backward-shift deletion keeps every probe chain whole. */
	unsigned int i = (unsigned int)(e - t->ent), j = i;

	for (;;) {
		unsigned int home;

		j = (j + 1) % PIDTAB_SLOTS;
		if (!t->ent[j].pid)
			break;
		home = t->ent[j].pid % PIDTAB_SLOTS;
		if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
			t->ent[i] = t->ent[j];
			i = j;
		}
	}
	t->ent[i].pid = 0;
}
