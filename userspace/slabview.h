/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --slab: per slab cache, the live objects and bytes traced, their change
 * since the previous interval, and the stacks that grew each cache most.
 */
#ifndef MEMTRACE_READ_SLABVIEW_H
#define MEMTRACE_READ_SLABVIEW_H

#include <stdio.h>

#include "report.h"

#define SLABVIEW_TOP_STACKS 3

struct slab_state;

/* Live objects and bytes of one stack in one cache (grouped by name). */
struct slab_row {
	char name[MEMTRACE_NAME_LEN];
	uint32_t object_size;	/* 0: unknown */
	uint32_t stack_id;
	uint64_t count, bytes;
};

/*
 * The snapshot's (cache name, stack) rows, merged, sorted by name then
 * stack (free() *out).  0 or -ENOMEM.
 */
int slabview_rows(const struct mt_snapshot *snap, struct slab_row **out, size_t *nr_out);

/* The previous interval starts empty, like tracing. */
struct slab_state *slab_state_new(void);
void slab_state_free(struct slab_state *st);

/* Printed once, before the first report. */
void slabview_preamble(FILE *out);

/* One report from a snapshot taken with min_age_ns 0 (every live object);
 * then remembers it as "the previous interval". */
int slabview_report(FILE *out, const struct mt_snapshot *snap, struct slab_state *st,
		    const struct report_ctx *ctx);

#endif
