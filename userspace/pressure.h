/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The memory pressure modes: --oom (oomkill's job), --reclaim
 * (drsnoop's), --vmscan (vmscan.c), --compaction (compaction.c) and
 * --migration (migration.c), fed by the module's per-CPU event rings
 * (evreader.h).  Formatting is apart from the session so the host tests
 * can check it.
 */
#ifndef MEMTRACE_READ_PRESSURE_H
#define MEMTRACE_READ_PRESSURE_H

#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include <jansson.h>
#include <linux/memtrace.h>

#include "cli.h"
#include "mode.h"

struct ksyms;

/* The five modes' rows (mode.h): the session driver runs them. */
extern const struct mt_mode_row pressure_oom_row, pressure_reclaim_row, pressure_vmscan_row,
	pressure_compaction_row, pressure_migration_row;

/*
 * The cgroup v2 directory whose id (its inode number in cgroup2fs) is id,
 * as a path below the cgroup2 mount at root ("/" for the root itself), in
 * buf; false if none is found (a cgroup removed since).
 */
bool pressure_cgroup_path(const char *root, uint64_t id, char *buf, size_t len);

/* Where cgroup2 is mounted (malloc'd), or NULL. */
char *pressure_cgroup2_root(void);

/* /proc/loadavg's way of printing the kernel's fixed-point load (FSHIFT 11). */
void pressure_loadavg(const uint32_t load[3], char *buf, size_t len);

/*
 * An OOM kill, oomkill(8)'s line and then the details: when is the wall
 * clock time of the record, memcg the memcg's path (NULL: unknown), ks
 * names the trigger's frames (NULL: addresses).
 */
void pressure_print_oom_kill(FILE *out, const struct memtrace_ev_oom_kill *r, time_t when,
			     const char *memcg, struct ksyms *ks);
/* The victim's memory when it was marked, as the kernel's "Killed process" line. */
void pressure_print_oom_victim(FILE *out, const struct memtrace_ev_oom_victim *r);

/* The same two as --json records (evjson.h); hms: the record's time.  NULL: out of memory. */
json_t *pressure_oom_kill_json(const struct memtrace_ev_oom_kill *r, const char *hms,
			       const char *memcg, struct ksyms *ks);
json_t *pressure_oom_victim_json(const struct memtrace_ev_oom_victim *r, const char *hms);

#endif
