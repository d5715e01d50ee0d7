/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --prometheus for the pressure modes (--oom, --reclaim, --vmscan,
 * --compaction, --migration) and --use: node_exporter textfile metrics,
 * written atomically each interval and at the end (fmt_write_any()).
 *
 * Counters count from the start of memtrace-read (a restart resets them,
 * as Prometheus' rate() expects of any counter): each is the sum of the
 * intervals' numbers the text and --json print, so at the end it is the
 * totals record's.  Label values come from short fixed lists (reclaimer,
 * LRU type, migration reason, compaction outcome, loss reason): no pid,
 * task name or address, so cardinality stays bounded.  docs/report-json.md
 * lists the metrics.
 */
#ifndef MEMTRACE_READ_EVPROM_H
#define MEMTRACE_READ_EVPROM_H

#include <stdint.h>
#include <stdio.h>

#include "compaction.h"
#include "migration.h"
#include "vmscan.h"

/*
 * The file about to be written is MODE's (evjson_mode_name(): "vmscan",
 * "use"...): each sample below carries mode="MODE" as its first label
 * (fmt.h says why).  memtrace-read writes one metrics file at a time.
 */
void evprom_begin(const char *mode);
/* A sample: name{mode,labels} value ("labels" without braces, NULL or "" for none). */
void evprom_u64(FILE *out, const char *name, const char *labels, uint64_t v);
/* The same, a percentage with two decimals (PSI's averages). */
void evprom_percent(FILE *out, const char *name, const char *labels, double v);
/* The same for a time in nanoseconds, written in seconds (exactly: S.NNNNNNNNN). */
void evprom_seconds(FILE *out, const char *name, const char *labels, uint64_t ns);
/* A counter's or a gauge's HELP and TYPE lines (fmt_prom_header()). */
void evprom_counter(FILE *out, const char *name, const char *help);
void evprom_gauge(FILE *out, const char *name, const char *help);

/*
 * Direct ([0]) and memcg ([1]) reclaims, their time and the pages they
 * reclaimed: memtrace_reclaims_total, memtrace_reclaim_seconds_total,
 * memtrace_reclaim_pages_total{reclaimer="direct"|"memcg"} (--reclaim,
 * --vmscan and --use alike).
 */
void evprom_reclaims(FILE *out, const uint64_t reclaims[2], const uint64_t ns[2],
		     const uint64_t pages[2]);

/* --vmscan: the session's counts so far (struct vmscan's total). */
void evprom_vmscan(FILE *out, const struct vmscan_counts *c);
/* --compaction: runs, outcomes, time, pages scanned, kcompactd's wakes. */
void evprom_compaction(FILE *out, const struct compaction *c);
/*
 * Direct compaction stalls: runs of compaction in an allocating task, and
 * their time (--compaction, --use).
 */
void evprom_compaction_stalls(FILE *out, uint64_t runs, uint64_t ns);
/* --migration: per reason (the kernel's names), calls, pages and time. */
void evprom_migration(FILE *out, const struct migration_counts *c);
/* OOM kills the module recorded (--oom, --use). */
void evprom_oom_kills(FILE *out, uint64_t kills);
/*
 * Records the module dropped: memtrace_lost_total{reason="event_ring_full"}
 * and, with probe_missed, {reason="probe_hits_missed"} (the leak reports'
 * metric and name for the kernel's dropped kprobe hits).
 */
void evprom_lost(FILE *out, uint64_t ring_full, uint64_t probe_missed);
/* memtrace_report_timestamp_seconds: when the file was written (Unix time). */
void evprom_timestamp(FILE *out);

#endif
