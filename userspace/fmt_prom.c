// SPDX-License-Identifier: GPL-2.0
/*
 * Prometheus metrics in the text exposition format, for node_exporter's
 * textfile collector (--prometheus FILE, written atomically each
 * interval: node_exporter reads *.prom files whole).
 *
 * Cardinality is bounded by construction: the top FMT_PROM_STACKS stacks
 * of the report (labelled by the module's stack id and their innermost
 * functions; a growth mode's by their rank in the text report), one series
 * per slab cache (a kernel has a few hundred), one per loss reason.  No
 * label carries an address or a task name.
 */
#include "fmt.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <time.h>

/* Innermost functions named in a stack's label. */
#define FMT_PROM_FRAMES 3

void fmt_prom_label_value(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fputc('\\', out);
		if (*s == '\n')
			fputs("\\n", out);
		else
			fputc(*s, out);
	}
}

void fmt_prom_header(FILE *out, const char *name, const char *type, const char *help)
{
	fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

void fmt_prom_lost_header(FILE *out)
{
	fmt_prom_header(out, "memtrace_lost_total", "counter",
			"Events the module could not record, by reason (the report's Lost: "
			"and Missed: lines).");
}

void fmt_prom_timestamp(FILE *out, const char *mode)
{
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	fmt_prom_header(out, "memtrace_report_timestamp_seconds", "gauge",
			"When the file was written (Unix time).");
	fprintf(out, "memtrace_report_timestamp_seconds{mode=\"%s\"} %lld\n", mode,
		(long long)now.tv_sec);
}

/* "f1;f2;f3": the stack's innermost functions, innermost first. */
static void stack_label(FILE *out, const struct rm_stack *s)
{
	char name[256];
	size_t shown = 0;

	if (!s->nr_frames) {
		fmt_prom_label_value(out, s->note ? s->note : "[no stack]");
		return;
	}
	for (size_t i = 0; i < s->nr_frames && shown < FMT_PROM_FRAMES; i++) {
		if (s->frames[i].inlined)
			continue;
		if (shown++)
			fputc(';', out);
		fmt_prom_label_value(out, fmt_frame_name(&s->frames[i], name, sizeof(name)));
	}
}

static void stack_series(FILE *out, const struct report_model *m, const char *metric, bool bytes)
{
	size_t n = m->nr_stacks < FMT_PROM_STACKS ? m->nr_stacks : FMT_PROM_STACKS;

	for (size_t i = 0; i < n; i++) {
		const struct rm_stack *s = &m->stacks[i];

		fprintf(out, "%s{mode=\"%s\",stack_id=\"%" PRIu32 "\",", metric,
			rmodel_mode_name(m->mode), s->stack_id);
		/* One stack may be several images' code: the image keeps series apart. */
		if (m->mode == RM_USER_LEAKS)
			fprintf(out, "image=\"%" PRIu32 "\",", s->image);
		if (s->cache) {
			fputs("cache=\"", out);
			fmt_prom_label_value(out, s->cache);
			fputs("\",", out);
		}
		fputs("functions=\"", out);
		stack_label(out, s);
		fprintf(out, "\"} %" PRIu64 "\n", bytes ? s->bytes : s->count);
	}
}

/* One series per slab cache: bytes, or objects. */
static void cache_series(FILE *out, const struct report_model *m, const char *metric,
			 const char *what, const char *which, bool bytes)
{
	char help[128];

	snprintf(help, sizeof(help), "%s, per cache (%s).", what, which);
	fmt_prom_header(out, metric, "gauge", help);
	for (size_t i = 0; i < m->nr_caches; i++) {
		fprintf(out, "%s{mode=\"%s\",cache=\"", metric, rmodel_mode_name(m->mode));
		fmt_prom_label_value(out, m->caches[i].name);
		fprintf(out, "\"} %" PRIu64 "\n", bytes ? m->caches[i].bytes : m->caches[i].count);
	}
}

/*
 * A growth mode's metric per top stack: "rank" is the stack's place in the
 * text report (1 the biggest), "functions" its innermost functions (for
 * --ffaults: "file", its file).  No pid nor task name: at most
 * FMT_PROM_STACKS series a metric.
 */
static void growth_series(FILE *out, const struct report_model *m, const char *metric,
			  int which)
{
	size_t n = m->nr_stacks < FMT_PROM_STACKS ? m->nr_stacks : FMT_PROM_STACKS;

	for (size_t i = 0; i < n; i++) {
		const struct rm_stack *s = &m->stacks[i];
		uint64_t v = which == 'b' ? s->bytes : which == 'M' ? s->major : s->count;

		fprintf(out, "%s{mode=\"%s\",rank=\"%zu\",%s=\"", metric, rmodel_name(m), i + 1,
			s->comm ? "functions" : "file");
		if (s->comm)
			stack_label(out, s);
		else
			fmt_prom_label_value(out, s->nr_frames ? s->frames[0].function : "?");
		fprintf(out, "\"} %" PRIu64 "\n", v);
	}
}

static void growth_gauge(FILE *out, const struct report_model *m, const char *metric,
			 const char *what, int which)
{
	char help[256];

	snprintf(help, sizeof(help), "%s of the report's top stacks (at most %d; rank 1 the "
		 "biggest).", what, FMT_PROM_STACKS);
	fmt_prom_header(out, metric, "gauge", help);
	growth_series(out, m, metric, which);
}

static void growth_counter(FILE *out, const struct report_model *m, const char *metric,
			   const char *help, const char *labels, uint64_t v)
{
	if (help)
		fmt_prom_header(out, metric, "counter", help);
	fprintf(out, "%s{mode=\"%s\"%s} %" PRIu64 "\n", metric, rmodel_name(m), labels, v);
}

/*
 * The growth modes' metrics: the top stacks' numbers (gauges: the text
 * report's), what was counted since the start (counters), and the losses.
 */
static int fmt_prom_growth(FILE *out, const struct report_model *m, struct mt_err *err)
{
	const char *mode = rmodel_name(m);

	switch (m->counts) {
	case RM_COUNTS_BYTES_CALLS:
		/* One HELP for --brk's and --mmap's files alike (fmt.h says why). */
		growth_gauge(out, m, "memtrace_growth_stack_bytes",
			     "Bytes grown (brk) or mapped (mmap, mremap's growth)", 'b');
		growth_gauge(out, m, "memtrace_growth_stack_calls", "Calls", 'c');
		growth_counter(out, m, "memtrace_growth_calls_total",
			       "System calls counted since tracing started.", "", m->total_count);
		growth_counter(out, m, "memtrace_growth_bytes_total",
			       "Bytes those calls grew the process by (brk) or mapped (mmap, "
			       "mremap's growth).", "", m->total_bytes);
		break;
	case RM_COUNTS_CALLS:
		growth_gauge(out, m, "memtrace_growth_stack_calls", "Calls", 'c');
		growth_counter(out, m, "memtrace_growth_calls_total",
			       "System calls counted since tracing started.", "", m->total_count);
		break;
	case RM_COUNTS_FAULTS:
		growth_gauge(out, m, "memtrace_growth_stack_faults", "Page faults", 'c');
		growth_gauge(out, m, "memtrace_growth_stack_major_faults", "Major page faults", 'M');
		growth_counter(out, m, "memtrace_page_faults_total",
			       "Page faults counted since tracing started.", ",type=\"minor\"",
			       m->total_count - m->total_major);
		growth_counter(out, m, "memtrace_page_faults_total", NULL, ",type=\"major\"",
			       m->total_major);
		break;
	default:
		growth_gauge(out, m, "memtrace_growth_stack_hits", "Probe hits", 'c');
		growth_counter(out, m, "memtrace_usdt_hits_total",
			       "Probe hits counted since tracing started.", "", m->total_count);
		break;
	}
	fmt_prom_lost_header(out);
	fprintf(out, "memtrace_lost_total{mode=\"%s\",reason=\"event_ring_full\"} %" PRIu64 "\n",
		mode, m->lost_events);
	fprintf(out, "memtrace_lost_total{mode=\"%s\",reason=\"probe_hits_missed\"} %" PRIu64
		"\n", mode, m->probe_missed);
	fprintf(out, "memtrace_lost_total{mode=\"%s\",reason=\"growth_table_full\"} %" PRIu64
		"\n", mode, m->untracked);
	fmt_prom_timestamp(out, mode);
	return ferror(out) ? mt_errf(err, EIO, "cannot write the metrics") : 0;
}

int fmt_prometheus(FILE *out, const struct report_model *m, struct mt_err *err)
{
	const struct memtrace_loss *l = &m->loss;
	const struct { const char *reason; uint64_t n; } lost[] = {
		{ "recursion", l->recursion }, { "nmi", l->nmi },
		{ "index_full", l->live_full }, { "stack_table_full", l->stack_full },
		{ "counter_table_full", l->stat_full }, { "cache_table_full", l->cache_full },
		{ "task_name_table_full", l->comm_full }, { "frees_untracked", l->free_untracked },
		{ "frees_never_seen", l->missed_free }, { "probe_hits_missed", l->probe_missed },
		{ "calls_table_full", l->calls_full }, { "trace_ring_full", l->trace_full },
	};
	const char *what = m->mode == RM_SLAB ? "live" : "outstanding";
	const char *mode = rmodel_mode_name(m->mode);
	char help[256];

	if (m->mode == RM_GROWTH)
		return fmt_prom_growth(out, m, err);
	snprintf(help, sizeof(help), "Bytes of the report's top stacks (%s; at most %d stacks).",
		 what, FMT_PROM_STACKS);
	fmt_prom_header(out, "memtrace_stack_bytes", "gauge", help);
	stack_series(out, m, "memtrace_stack_bytes", true);
	snprintf(help, sizeof(help), "Allocations of the report's top stacks (%s; at most %d "
		 "stacks).", what, FMT_PROM_STACKS);
	fmt_prom_header(out, "memtrace_stack_allocations", "gauge", help);
	stack_series(out, m, "memtrace_stack_allocations", false);

	fmt_prom_header(out, "memtrace_report_bytes", "gauge",
	       "Bytes of the stacks the report shows (-T of them).");
	fprintf(out, "memtrace_report_bytes{mode=\"%s\"} %" PRIu64 "\n", mode, m->bytes);
	fmt_prom_header(out, "memtrace_report_allocations", "gauge",
	       "Allocations of the stacks the report shows (-T of them).");
	fprintf(out, "memtrace_report_allocations{mode=\"%s\"} %" PRIu64 "\n", mode,
		m->count);

	if (m->nr_caches) {
		cache_series(out, m, "memtrace_slab_cache_bytes", "Bytes of the slab objects traced",
			     what, true);
		cache_series(out, m, "memtrace_slab_cache_objects", "Slab objects traced", what,
			     false);
	}

	fmt_prom_lost_header(out);
	for (size_t i = 0; i < MT_ARRAY_SIZE(lost); i++)
		fprintf(out, "memtrace_lost_total{mode=\"%s\",reason=\"%s\"} %" PRIu64 "\n", mode,
			lost[i].reason, lost[i].n);
	fmt_prom_header(out, "memtrace_allocs_seen_total", "counter",
	       "Allocations the module saw since tracing started.");
	fprintf(out, "memtrace_allocs_seen_total{mode=\"%s\"} %" PRIu64 "\n", mode,
		(uint64_t)m->activity.allocs_seen);
	fmt_prom_header(out, "memtrace_frees_seen_total", "counter",
	       "Frees the module saw since tracing started.");
	fprintf(out, "memtrace_frees_seen_total{mode=\"%s\"} %" PRIu64 "\n", mode,
		(uint64_t)m->activity.frees_seen);
	fmt_prom_header(out, "memtrace_live_allocations", "gauge",
	       "Allocations recorded and not yet freed (the module's index).");
	fprintf(out, "memtrace_live_allocations{mode=\"%s\"} %" PRIu64 "\n", mode,
		(uint64_t)m->activity.live_entries);
	fmt_prom_timestamp(out, mode);
	return ferror(out) ? mt_errf(err, EIO, "cannot write the metrics") : 0;
}
