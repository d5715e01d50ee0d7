/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The report formats other tools read, each rendering a report model
 * (rmodel.h): one module per format.
 *
 *   fmt_folded.c   "frame;frame;frame value" lines: flamegraph.pl,
 *                  inferno, speedscope
 *   fmt_json.c     one JSON object per report (docs/report-json.md)
 *   fmt_pprof.c    a gzipped profile.proto: go tool pprof, Pyroscope, Parca
 *   fmt_prom.c     Prometheus metrics for node_exporter's textfile collector
 *   fmt_svg.c      a self-contained interactive flame graph
 *   fmt_memcheck.c the closing summary of a traced command, in Memcheck's words
 */
#ifndef MEMTRACE_READ_FMT_H
#define MEMTRACE_READ_FMT_H

#include <stdio.h>

#include <jansson.h>

#include "rmodel.h"
#include "util.h"

/*
 * One line per stack, outermost frame first (a --slab stack under its
 * cache's name), and its bytes (--sort size) or allocations (--sort count).
 */
int fmt_folded(FILE *out, const struct report_model *m);

/* The frame name fmt_folded() and flame graphs use for f. */
const char *fmt_frame_name(const struct rm_frame *f, char *buf, size_t len);

/* One JSON object and a newline (JSON Lines over several reports). */
int fmt_json(FILE *out, const struct report_model *m);

/* One frame as the JSON report has it (also the event modes' frames); f->text set. */
json_t *fmt_json_frame(const struct rm_frame *f);

/* The profile, gzipped, to out.  0 or -errno with err. */
int fmt_pprof(FILE *out, const struct report_model *m, struct mt_err *err);

/* Stacks --prometheus gives series of their own: cardinality stays bounded. */
#define FMT_PROM_STACKS MT_PROM_STACKS

/* The report's metrics in Prometheus' text exposition format. */
int fmt_prometheus(FILE *out, const struct report_model *m, struct mt_err *err);

/* A metric's "# HELP" and "# TYPE" lines (also the event modes': evprom.h). */
void fmt_prom_header(FILE *out, const char *name, const char *type, const char *help);
/*
 * The families a leak report's file and a pressure mode's both write, with
 * one HELP each: node_exporter refuses a family whose files disagree on it.
 * Their series, as every series memtrace-read writes, carry mode="MODE":
 * the files of several runs (a leak report's, --vmscan's, --use's, or one
 * left from an earlier run) can share the textfile directory.
 */
void fmt_prom_lost_header(FILE *out);
void fmt_prom_timestamp(FILE *out, const char *mode);
/* A label value, escaped as the exposition format wants (\\, \", \n). */
void fmt_prom_label_value(FILE *out, const char *s);

/* The report as a flame graph: one SVG file with its script and style. */
int fmt_svg(FILE *out, const struct report_model *m, struct mt_err *err);

/* LEAK SUMMARY and a record per stack, in Valgrind Memcheck's words. */
int fmt_memcheck(FILE *out, const struct report_model *m);
/*
 * fmt_memcheck in its parts, for a caller that gives each stack its
 * frames only while its record prints (rmodel_stack_frames): the head,
 * then record i for i from m->nr_stacks - 1 down to 0, then the tail.
 */
void fmt_memcheck_head(FILE *out, const struct report_model *m);
void fmt_memcheck_record(FILE *out, const struct report_model *m, size_t i);
int fmt_memcheck_tail(FILE *out);

/*
 * Writes path atomically: render() into "path.tmp" (same directory), then
 * rename over path, so a reader (a scraper, a profiler agent) sees the
 * whole previous report or the whole new one.  0 or -errno with err.
 */
int fmt_write_file(const char *path, const struct report_model *m,
		   int (*render)(FILE *out, const struct report_model *m, struct mt_err *err),
		   struct mt_err *err);

/* The same for any output: render(out, ctx, err) writes it. */
int fmt_write_any(const char *path, const void *ctx,
		  int (*render)(FILE *out, const void *ctx, struct mt_err *err),
		  struct mt_err *err);

/*
 * --pprof, --prometheus and --svg: each of the files named (NULL: not
 * asked for) written with fmt_write_file(), until one fails.  0 or -errno
 * with err.
 */
int fmt_write_files(const char *pprof_file, const char *prometheus_file, const char *svg_file,
		    const struct report_model *m, struct mt_err *err);

/* fmt_folded() and fmt_json() in fmt_write_file()'s shape. */
int fmt_folded_file(FILE *out, const struct report_model *m, struct mt_err *err);
int fmt_json_file(FILE *out, const struct report_model *m, struct mt_err *err);

#endif
