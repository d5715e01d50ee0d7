/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a task has in flight (a reclaim begun, a shrinker called), keyed
 * by its pid: the pressure modes pair begin and end records with it.  A
 * fixed table, open addressing; pid 0 marks a free slot.
 */
#ifndef MEMTRACE_READ_PIDTAB_H
#define MEMTRACE_READ_PIDTAB_H

#include <stdbool.h>
#include <stdint.h>

#define PIDTAB_SLOTS	4096	/* tasks with something in flight at once */

struct pidtab_ent {
	uint32_t pid;		/* 0: free */
	uint32_t flags;		/* the user's */
	uint64_t v[5];		/* the user's */
};

struct pidtab {
	struct pidtab_ent ent[PIDTAB_SLOTS];
};

/* pid's entry; a new zeroed one if make and there is none; NULL if none (or full). */
struct pidtab_ent *pidtab_get(struct pidtab *t, uint32_t pid, bool make);
/* Frees e (from pidtab_get). */
void pidtab_del(struct pidtab *t, struct pidtab_ent *e);

#endif
