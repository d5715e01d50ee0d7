/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --vmscan: page reclaim's work per interval, from the module's
 * MEMTRACE_EV_VMSCAN and MEMTRACE_EV_RECLAIM records: kswapd's runs and
 * time awake, direct and memcg reclaims and their time, pages scanned and
 * reclaimed per LRU list and per reclaimer, slab shrinkers' calls and
 * latency by name, pages written out by reclaim.  Accounting and
 * formatting only: pressure.c runs the session and feeds the records in
 * time order.
 */
#ifndef MEMTRACE_READ_VMSCAN_H
#define MEMTRACE_READ_VMSCAN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>
#include <linux/memtrace.h>

#include "pidtab.h"

struct ksyms;

/* Who reclaimed: as /proc/vmstat's pgscan_kswapd, _direct, and memcg (counted apart). */
enum vmscan_who { VMSCAN_KSWAPD, VMSCAN_DIRECT, VMSCAN_MEMCG, VMSCAN_NR_WHO };

#define VMSCAN_NR_LRU		4	/* MEMTRACE_LRU_INACTIVE_ANON .. _ACTIVE_FILE */
#define VMSCAN_MAX_NODES	64
#define VMSCAN_SHRINKERS	256

struct vmscan_shrinker {
	uint64_t fn;			/* scan_objects(); 0: hidden */
	uint64_t calls, scanned, freed, ns, max_ns;
};

struct vmscan_counts {
	uint64_t kswapd_runs;		/* balancing runs (/proc/vmstat pageoutrun) */
	uint64_t kswapd_ns;		/* time kswapd was awake */
	uint64_t kswapd_wakeups;	/* allocations that woke it */
	uint64_t reclaims[2], reclaim_ns[2], reclaim_pages[2];	/* [0] direct, [1] memcg */
	/* As pgscan_* / pgsteal_*: [who][0 anon, 1 file] */
	uint64_t scan[VMSCAN_NR_WHO][2], steal[VMSCAN_NR_WHO][2];
	/* Per LRU list: pages isolated to scan, taken; reclaimed, activated (inactive lists); deactivated (active) */
	uint64_t lru_scanned[VMSCAN_NR_LRU], lru_taken[VMSCAN_NR_LRU];
	uint64_t lru_reclaimed[VMSCAN_NR_LRU], lru_activated[VMSCAN_NR_LRU];
	uint64_t lru_deactivated[VMSCAN_NR_LRU];
	uint64_t slab_calls, slab_scanned, slab_freed, slab_ns;
	uint64_t written[2];		/* pages written out by reclaim: [0] anon, [1] file */
	struct vmscan_shrinker shrinkers[VMSCAN_SHRINKERS];
	unsigned int nr_shrinkers;
	uint64_t shrinkers_full;	/* calls of shrinkers past the table */
};

struct vmscan {
	bool mglru;			/* multi-generational LRU: pgscan counts pages taken */
	uint64_t unpaired;		/* ends without their begin (lost, or begun before start) */
	uint64_t awake_since[VMSCAN_MAX_NODES];	/* kswapd of node awake since (0: asleep) */
	struct pidtab open;		/* v[0] reclaim begin, v[1] memcg; v[2] slab begin, v[3] its total_scan */
	struct vmscan_counts iv, total, last;
};

void vmscan_init(struct vmscan *v, bool mglru);
/* One record, in time order. */
void vmscan_account(struct vmscan *v, const struct memtrace_ev_hdr *h);
/*
 * Ends the interval at now_ns (CLOCK_MONOTONIC): kswapd time awake so far
 * is counted in it; returns its counts (valid until the next call) and
 * starts the next one.
 */
const struct vmscan_counts *vmscan_interval(struct vmscan *v, uint64_t now_ns);

/* The column heads and one interval's row (hms: its time); then its top shrinkers. */
void vmscan_print_head(FILE *out);
void vmscan_print_row(FILE *out, const char *hms, const struct vmscan_counts *c,
		      unsigned int top, struct ksyms *ks);
/* The session's totals, with the terms /proc/vmstat counts them in. */
void vmscan_print_totals(FILE *out, const struct vmscan *v, unsigned int top,
			 struct ksyms *ks);
/*
 * --json: one interval's counts (and its -T slowest shrinkers) added to
 * the record rec; the session's totals with the mode's notes and the
 * vmstat terms.  0, or -1 out of memory.
 */
int vmscan_counts_json(json_t *rec, const struct vmscan_counts *c, unsigned int top,
		       struct ksyms *ks);
int vmscan_totals_json(json_t *rec, const struct vmscan *v, unsigned int top, struct ksyms *ks);
/* The shrinker named by its scan function, in buf. */
void vmscan_shrinker_name(struct ksyms *ks, uint64_t fn, char *buf, size_t len);

#define VMSCAN_LRU_GEN_PATH	"/sys/kernel/mm/lru_gen/enabled"
/* /sys/kernel/mm/lru_gen/enabled's main switch (false where there is none). */
bool vmscan_mglru_on(const char *path);

#endif
