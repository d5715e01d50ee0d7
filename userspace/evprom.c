// SPDX-License-Identifier: GPL-2.0
/* --prometheus for the pressure modes and --use; see evprom.h. */
#include "evprom.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <time.h>

#include "fmt.h"
#include "util.h"

/* The mode of the file being written (evprom_begin()): every series' first label. */
static const char *evprom_mode = "";

void evprom_begin(const char *mode)
{
	evprom_mode = mode;
}

/* name{mode="MODE",labels}: what each sample line starts with. */
static void series(FILE *out, const char *name, const char *labels)
{
	fprintf(out, "%s{mode=\"%s\"%s%s}", name, evprom_mode, labels && labels[0] ? "," : "",
		labels ? labels : "");
}

void evprom_u64(FILE *out, const char *name, const char *labels, uint64_t v)
{
	series(out, name, labels);
	fprintf(out, " %" PRIu64 "\n", v);
}

void evprom_seconds(FILE *out, const char *name, const char *labels, uint64_t ns)
{
	series(out, name, labels);
	/* Integer arithmetic: the value is the JSON's nanoseconds, digit for digit. */
	fprintf(out, " %" PRIu64 ".%09" PRIu64 "\n", ns / UINT64_C(1000000000),
		ns % UINT64_C(1000000000));
}

void evprom_percent(FILE *out, const char *name, const char *labels, double v)
{
	series(out, name, labels);
	fprintf(out, " %.2f\n", v);
}

void evprom_counter(FILE *out, const char *name, const char *help)
{
	fmt_prom_header(out, name, "counter", help);
}

void evprom_gauge(FILE *out, const char *name, const char *help)
{
	fmt_prom_header(out, name, "gauge", help);
}

static const char *const reclaimer_label[] = { "reclaimer=\"direct\"", "reclaimer=\"memcg\"" };

void evprom_reclaims(FILE *out, const uint64_t reclaims[2], const uint64_t ns[2],
		     const uint64_t pages[2])
{
	evprom_counter(out, "memtrace_reclaims_total",
		       "Direct reclaims (an allocation reclaiming) and memcg reclaims (a memcg "
		       "over its limit), ended since tracing started.");
	for (int i = 0; i < 2; i++)
		evprom_u64(out, "memtrace_reclaims_total", reclaimer_label[i], reclaims[i]);
	evprom_counter(out, "memtrace_reclaim_seconds_total",
		       "Time spent in those reclaims (reclaims whose begin was seen).");
	for (int i = 0; i < 2; i++)
		evprom_seconds(out, "memtrace_reclaim_seconds_total", reclaimer_label[i], ns[i]);
	evprom_counter(out, "memtrace_reclaim_pages_total", "Pages those reclaims reclaimed.");
	for (int i = 0; i < 2; i++)
		evprom_u64(out, "memtrace_reclaim_pages_total", reclaimer_label[i], pages[i]);
}

/* One series per reclaimer (as pgscan_kswapd/_direct, and memcg) and LRU type. */
static void per_who(FILE *out, const char *name, const char *help,
		    const uint64_t v[VMSCAN_NR_WHO][2])
{
	static const char *const who[VMSCAN_NR_WHO] = {
		[VMSCAN_KSWAPD] = "kswapd", [VMSCAN_DIRECT] = "direct", [VMSCAN_MEMCG] = "memcg",
	};
	char labels[64];

	evprom_counter(out, name, help);
	for (int w = 0; w < VMSCAN_NR_WHO; w++)
		for (int t = 0; t < 2; t++) {
			snprintf(labels, sizeof(labels), "reclaimer=\"%s\",type=\"%s\"", who[w],
				 t ? "file" : "anon");
			evprom_u64(out, name, labels, v[w][t]);
		}
}

void evprom_vmscan(FILE *out, const struct vmscan_counts *c)
{
	evprom_counter(out, "memtrace_kswapd_runs_total",
		       "kswapd's balancing runs (/proc/vmstat pageoutrun).");
	evprom_u64(out, "memtrace_kswapd_runs_total", NULL, c->kswapd_runs);
	evprom_counter(out, "memtrace_kswapd_awake_seconds_total", "Time kswapd was awake.");
	evprom_seconds(out, "memtrace_kswapd_awake_seconds_total", NULL, c->kswapd_ns);
	evprom_counter(out, "memtrace_kswapd_wakeups_total", "Allocations that woke kswapd.");
	evprom_u64(out, "memtrace_kswapd_wakeups_total", NULL, c->kswapd_wakeups);
	evprom_reclaims(out, c->reclaims, c->reclaim_ns, c->reclaim_pages);
	per_who(out, "memtrace_vmscan_scanned_pages_total",
		"Pages scanned on the LRU lists, per reclaimer and type (pgscan_*).", c->scan);
	per_who(out, "memtrace_vmscan_reclaimed_pages_total",
		"Pages reclaimed from the LRU lists, per reclaimer and type (pgsteal_*).",
		c->steal);
	evprom_counter(out, "memtrace_vmscan_written_pages_total",
		       "Pages reclaim wrote out (nr_vmscan_write), per type.");
	evprom_u64(out, "memtrace_vmscan_written_pages_total", "type=\"anon\"", c->written[0]);
	evprom_u64(out, "memtrace_vmscan_written_pages_total", "type=\"file\"", c->written[1]);
	evprom_counter(out, "memtrace_shrinker_calls_total", "Slab shrinker calls.");
	evprom_u64(out, "memtrace_shrinker_calls_total", NULL, c->slab_calls);
	evprom_counter(out, "memtrace_shrinker_seconds_total", "Time in slab shrinkers.");
	evprom_seconds(out, "memtrace_shrinker_seconds_total", NULL, c->slab_ns);
	evprom_counter(out, "memtrace_shrinker_scanned_objects_total",
		       "Objects slab shrinkers scanned (slabs_scanned).");
	evprom_u64(out, "memtrace_shrinker_scanned_objects_total", NULL, c->slab_scanned);
	evprom_counter(out, "memtrace_shrinker_freed_objects_total",
		       "Objects slab shrinkers freed.");
	evprom_u64(out, "memtrace_shrinker_freed_objects_total", NULL, c->slab_freed);
}

void evprom_compaction_stalls(FILE *out, uint64_t runs, uint64_t ns)
{
	evprom_counter(out, "memtrace_compaction_stalls_total",
		       "Compaction runs in allocating tasks (direct compaction).");
	evprom_u64(out, "memtrace_compaction_stalls_total", NULL, runs);
	evprom_counter(out, "memtrace_compaction_stall_seconds_total",
		       "Time allocating tasks spent compacting.");
	evprom_seconds(out, "memtrace_compaction_stall_seconds_total", NULL, ns);
}

void evprom_compaction(FILE *out, const struct compaction *c)
{
	uint64_t status[COMPACTION_NR_STATUS] = { 0 }, ns = 0;
	char labels[64];

	for (unsigned int i = 0; i < c->nr_zones; i++) {
		ns += c->zones[i].ns;
		for (unsigned int s = 0; s < COMPACTION_NR_STATUS; s++)
			status[s] += c->zones[i].status[s];
	}
	evprom_counter(out, "memtrace_compaction_runs_total",
		       "Compaction runs of a zone that ended (compactsnoop's lines).");
	evprom_u64(out, "memtrace_compaction_runs_total", NULL, c->runs);
	evprom_counter(out, "memtrace_compaction_outcomes_total",
		       "Compaction runs per outcome, as compactsnoop names them (runs of the "
		       "zones counted apart; see the totals' untracked).");
	for (unsigned int s = 0; s < COMPACTION_NR_STATUS; s++) {
		snprintf(labels, sizeof(labels), "status=\"%s\"", compaction_status_name(s));
		evprom_u64(out, "memtrace_compaction_outcomes_total", labels, status[s]);
	}
	evprom_counter(out, "memtrace_compaction_seconds_total",
		       "Time in compaction runs (runs whose begin was seen).");
	evprom_seconds(out, "memtrace_compaction_seconds_total", NULL, ns);
	evprom_counter(out, "memtrace_compaction_direct_total",
		       "Direct compactions entered by allocating tasks (at least compact_stall: "
		       "the kernel does not count those that skipped every zone).");
	evprom_u64(out, "memtrace_compaction_direct_total", NULL, c->direct_calls);
	evprom_counter(out, "memtrace_kcompactd_wakes_total", "kcompactd's wakeups "
		       "(compact_daemon_wake).");
	evprom_u64(out, "memtrace_kcompactd_wakes_total", NULL, c->kcompactd_wakes);
	evprom_counter(out, "memtrace_compaction_scanned_pages_total",
		       "Pages compaction's scanners scanned (compact_migrate_scanned, "
		       "compact_free_scanned).");
	evprom_u64(out, "memtrace_compaction_scanned_pages_total", "scanner=\"migrate\"",
		   c->migrate_scanned);
	evprom_u64(out, "memtrace_compaction_scanned_pages_total", "scanner=\"free\"",
		   c->free_scanned);
	evprom_compaction_stalls(out, c->direct_runs, c->direct_ns);
}

/* A migration counter per reason that migrated; field: a migration_stats member. */
static void per_reason(FILE *out, const char *name, const char *help,
		       const struct migration_counts *c, size_t field, bool seconds)
{
	char labels[64];

	evprom_counter(out, name, help);
	for (unsigned int i = 0; i < MIGRATION_REASONS; i++) {
		const struct migration_stats *s = &c->reason[i];
		uint64_t v;

		if (!s->calls)
			continue;
		memcpy(&v, (const char *)s + field, sizeof(v));
		snprintf(labels, sizeof(labels), "reason=\"%s\"", migration_reason_name(i));
		if (seconds)
			evprom_seconds(out, name, labels, v);
		else
			evprom_u64(out, name, labels, v);
	}
}

void evprom_migration(FILE *out, const struct migration_counts *in)
{
	struct migration_counts c = *in;
	static const struct {
		const char *name, *help;
		size_t field;
	} m[] = {
		{ "memtrace_migration_calls_total", "migrate_pages() calls, per reason.",
		  offsetof(struct migration_stats, calls) },
		{ "memtrace_migration_succeeded_pages_total", "Pages migrated, per reason.",
		  offsetof(struct migration_stats, succeeded) },
		{ "memtrace_migration_failed_pages_total", "Pages that failed to migrate, "
		  "per reason.", offsetof(struct migration_stats, failed) },
		{ "memtrace_migration_thp_succeeded_total", "THPs migrated whole, per reason.",
		  offsetof(struct migration_stats, thp_succeeded) },
		{ "memtrace_migration_thp_failed_total", "THPs that failed to migrate, per "
		  "reason.", offsetof(struct migration_stats, thp_failed) },
		{ "memtrace_migration_thp_split_total", "THPs split to migrate, per reason.",
		  offsetof(struct migration_stats, thp_split) },
	};
	for (size_t i = 0; i < MT_ARRAY_SIZE(m); i++)
		per_reason(out, m[i].name, m[i].help, &c, m[i].field, false);
	per_reason(out, "memtrace_migration_seconds_total", "Time in migrate_pages(), per "
		   "reason.", &c, offsetof(struct migration_stats, ns), true);
}

void evprom_oom_kills(FILE *out, uint64_t kills)
{
	evprom_counter(out, "memtrace_oom_kills_total", "OOM kills the module recorded "
		       "(oom_kill_process).");
	evprom_u64(out, "memtrace_oom_kills_total", NULL, kills);
}

void evprom_lost(FILE *out, uint64_t ring_full, uint64_t probe_missed)
{
	fmt_prom_lost_header(out);
	evprom_u64(out, "memtrace_lost_total", "reason=\"event_ring_full\"", ring_full);
	evprom_u64(out, "memtrace_lost_total", "reason=\"probe_hits_missed\"", probe_missed);
}

void evprom_timestamp(FILE *out)
{
	fmt_prom_timestamp(out, evprom_mode);
}
