/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --reclaim's accounting: direct and memcg reclaims paired begin to end
 * (drsnoop's latency), each printed as it ends, and per process a count
 * and a log2 histogram of their latency for the summary at the end.
 */
#ifndef MEMTRACE_READ_RECLAIM_H
#define MEMTRACE_READ_RECLAIM_H

#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include <jansson.h>
#include <linux/memtrace.h>

#include "pidtab.h"

#define RECLAIM_PROCS	256	/* processes in the summary */
#define RECLAIM_HIST_SLOTS	40

struct reclaim_proc {
	uint32_t pid;
	char comm[MEMTRACE_COMM_LEN + 1];
	uint64_t count, total_ns, pages;
	uint64_t hist[RECLAIM_HIST_SLOTS];	/* log2 of microseconds */
};

struct reclaim_state {
	struct pidtab open;		/* reclaims in flight: v[0] the begin's time */
	struct reclaim_proc procs[RECLAIM_PROCS];
	unsigned int nr_procs;
	uint64_t events[2], pages[2];	/* [0] direct, [1] memcg */
	uint64_t ns[2];			/* their time, of those whose begin was seen */
	uint64_t unpaired;		/* ends without their begin (lost, or begun before start) */
	uint64_t procs_full;
};

/*
 * A reclaim's begin or end: an end pairs with its begin and is printed
 * (out: its text line, json: its record; either NULL), when its wall
 * clock time; counted either way.
 */
void reclaim_event(struct reclaim_state *st, const struct memtrace_ev_reclaim *r,
		   time_t when, FILE *out, FILE *json);
/* The summary at the end: totals, then each process's latency histogram. */
void reclaim_summary(const struct reclaim_state *st, FILE *out);
/* The same into --json's totals record rec.  0, or -1 (out of memory). */
int reclaim_summary_json(json_t *rec, const struct reclaim_state *st);

#endif
