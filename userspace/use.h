/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --use: memory on one screen in the USE method's terms, each interval.
 *
 *   utilization  /proc/meminfo (free, available, page cache, slab, anon,
 *                swap) and each memcg's memory.current against memory.max
 *   saturation   PSI (/proc/pressure/memory), and /proc/vmstat's deltas:
 *                swap in/out, direct reclaim stalls (allocstall_*),
 *                compaction stalls, pages scanned and reclaimed; with the
 *                module loaded, its reclaims and direct compactions with
 *                their time
 *   errors       OOM kills (/proc/vmstat oom_kill, each memcg's
 *                memory.events, the module's OOM kill records), failed
 *                compactions (compact_fail), and the kernel's "page
 *                allocation failure" warnings in its log (/dev/kmsg)
 *
 * The parsers are apart from the session so the host tests can check
 * them on fixed text.
 */
#ifndef MEMTRACE_READ_USE_H
#define MEMTRACE_READ_USE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli.h"
#include "mode.h"

/* --use's row (mode.h): the session driver runs it. */
extern const struct mt_mode_row use_row;

/* /proc/meminfo's lines --use shows, in kB. */
struct use_meminfo {
	uint64_t total, free, available, buffers, cached, shmem, slab, sreclaimable, anon;
	uint64_t swap_total, swap_free;
};

/* Parses /proc/meminfo's text.  0, or -EPROTO without MemTotal. */
int use_parse_meminfo(const char *text, struct use_meminfo *m);

/* /proc/vmstat's counters --use shows, as the kernel names them. */
enum use_counter {
	USE_PSWPIN, USE_PSWPOUT, USE_ALLOCSTALL, USE_COMPACT_STALL, USE_COMPACT_FAIL,
	USE_PGSCAN_KSWAPD, USE_PGSCAN_DIRECT, USE_PGSTEAL_KSWAPD, USE_PGSTEAL_DIRECT,
	USE_PGSCAN_ANON, USE_PGSCAN_FILE, USE_PGSTEAL_ANON, USE_PGSTEAL_FILE,
	USE_PGMAJFAULT, USE_OOM_KILL, USE_NR_COUNTERS,
};

/* The name of counter c in /proc/vmstat ("allocstall": the sum of allocstall_<zone>). */
const char *use_counter_name(enum use_counter c);

struct use_vmstat {
	uint64_t v[USE_NR_COUNTERS];
	bool have[USE_NR_COUNTERS];	/* /proc/vmstat has it (kernel config, version) */
};

/* Parses /proc/vmstat's text.  0, or -EPROTO if it has none of the counters. */
int use_parse_vmstat(const char *text, struct use_vmstat *v);

/* /proc/pressure/memory: "some" and "full", their averages and total stall time. */
struct use_psi_line {
	double avg10, avg60, avg300;
	uint64_t total_us;
};

struct use_psi {
	struct use_psi_line some, full;
};

/* Parses /proc/pressure/memory's text.  0, or -EPROTO. */
int use_parse_psi(const char *text, struct use_psi *p);

/*
 * Whether a /dev/kmsg record ("PRIO,SEQ,USEC,FLAGS;MESSAGE") is the
 * kernel's warning of a failed page allocation (warn_alloc(): "COMM:
 * page allocation failure: order:N, mode:...").
 */
bool use_kmsg_alloc_failure(const char *record, size_t len);

/* A memcg's memory.max: bytes, or UINT64_MAX for "max".  0, or -EPROTO. */
int use_parse_memcg_max(const char *text, uint64_t *max);

#endif
