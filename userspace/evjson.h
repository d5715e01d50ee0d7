/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --json for the event modes (--oom, --reclaim, --vmscan, --compaction,
 * --migration, --mmap, --brk, --shm, --faults, --ffaults, --use, --usdt): one JSON
 * object a line (JSON Lines), a record per event or per interval report as
 * the text prints them, then the totals.  Every record starts with the
 * same four fields ("memtrace_event", "mode", "type", "time"); the schema
 * is docs/memtrace-report.schema.json ($defs/event), the fields are
 * explained in docs/report-json.md.  The helpers here are the common part;
 * each mode's module builds its own records with them.
 */
#ifndef MEMTRACE_READ_EVJSON_H
#define MEMTRACE_READ_EVJSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "cli.h"
#include "util.h"

/* The event records' schema version ("memtrace_event"). */
#define EVJSON_VERSION 1

/* Where --json's records go: stdout (instead of the text) or --json=FILE. */
struct evjson_out {
	FILE *f;		/* NULL: no --json */
	bool owned;		/* f is --json=FILE's, closed by evjson_close() */
};

/* Opens --json's destination for o (nothing without --json).  0 or -errno with err. */
int evjson_open(struct evjson_out *out, const struct mt_options *o, struct mt_err *err);
void evjson_close(struct evjson_out *out);

/*
 * Flushes stdout (the text, or the records) and --json=FILE: what a drain
 * or a report wrote is out.  0, or -1 (said on stderr, naming the file).
 */
int evjson_flush(const struct evjson_out *out, const struct mt_options *o);

/* The text report's stream: stdout, or NULL when --json or --folded takes stdout. */
FILE *evjson_text_stream(const struct mt_options *o);

/* {"memtrace_event":1,"mode":mode,"type":type,"time":hms}: fields follow. */
json_t *evjson_record(const char *mode, const char *type, const char *hms);
/* Writes rec as one line and frees it.  0 or -EIO (-ENOMEM if rec is NULL). */
int evjson_emit(FILE *out, json_t *rec);

/* A count: a JSON integer (saturated at INT64_MAX, jansson's integers are signed). */
json_t *evjson_u64(uint64_t v);
/* A record's task name (MEMTRACE_COMM_LEN bytes, maybe unterminated). */
json_t *evjson_comm(const char *comm);
/* The mode's name in records: "oom", "reclaim", "vmscan", ... ("mmap" for --mmap). */
const char *evjson_mode_name(enum mt_mode mode);

#endif
