// SPDX-License-Identifier: GPL-2.0
/*
 * The JSON report, built with jansson: one object per report, the schema
 * in docs/report-json.md and docs/memtrace-report.schema.json.  Numbers
 * are JSON integers (jansson's are 64-bit signed: byte counts of a real
 * machine fit), addresses hex strings (a JSON number cannot hold every
 * 64-bit address exactly in readers that use doubles).
 */
#include "fmt.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>

/* The schema's version: bumped when a field changes meaning or goes away. */
#define FMT_JSON_VERSION 1

static json_t *uint_json(uint64_t v)
{
	return json_integer(v > (uint64_t)INT64_MAX ? INT64_MAX : (json_int_t)v);
}

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

json_t *fmt_json_frame(const struct rm_frame *f)
{
	char addr[24];

	snprintf(addr, sizeof(addr), "0x%016" PRIx64, f->addr);
	return json_pack("{s:s, s:o, s:o, s:o, s:o, s:o, s:b, s:s}",
			 "address", addr,
			 "function", str_or_null(f->function),
			 "offset", f->function ? uint_json(f->offset) : json_null(),
			 "module", str_or_null(f->module),
			 "file", str_or_null(f->file),
			 "line", f->file ? uint_json(f->line) : json_null(),
			 "inlined", f->inlined,
			 "text", f->text);
}

static json_t *stack_json(const struct report_model *m, const struct rm_stack *s)
{
	json_t *frames = json_array(), *o;

	for (size_t i = 0; frames && i < s->nr_frames; i++)
		json_array_append_new(frames, fmt_json_frame(&s->frames[i]));
	o = json_pack("{s:o, s:o, s:o, s:o}",
		      "bytes", uint_json(s->bytes),
		      "count", uint_json(s->count),
		      "stack_id", uint_json(s->stack_id),
		      "frames", frames ? frames : json_array());
	if (!o)
		return NULL;
	if (s->note)
		json_object_set_new(o, "note", json_string(s->note));
	if (m->mode == RM_SLAB) {
		json_object_set_new(o, "cache", json_string(s->cache));
	} else {
		json_object_set_new(o, "total_allocs", uint_json(s->total_allocs));
		json_object_set_new(o, "total_bytes", uint_json(s->total_bytes));
		json_object_set_new(o, "frees", uint_json(s->frees));
	}
	if (m->mode == RM_USER_LEAKS)
		json_object_set_new(o, "image", uint_json(s->image));
	return o;
}

static json_t *lost_json(const struct memtrace_loss *l)
{
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
			 "recursion", uint_json(l->recursion),
			 "nmi", uint_json(l->nmi),
			 "index_full", uint_json(l->live_full),
			 "stack_table_full", uint_json(l->stack_full),
			 "counter_table_full", uint_json(l->stat_full),
			 "cache_table_full", uint_json(l->cache_full),
			 "task_name_table_full", uint_json(l->comm_full),
			 "frees_untracked", uint_json(l->free_untracked),
			 "frees_never_seen", uint_json(l->missed_free),
			 "probe_hits_missed", uint_json(l->probe_missed),
			 "calls_table_full", uint_json(l->calls_full),
			 "trace_ring_full", uint_json(l->trace_full));
}

static json_t *activity_json(const struct memtrace_activity *a)
{
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
			 "allocs_seen", uint_json(a->allocs_seen),
			 "frees_seen", uint_json(a->frees_seen),
			 "allocs_recorded", uint_json(a->allocs_recorded),
			 "frees_matched", uint_json(a->frees_matched),
			 "filtered", uint_json(a->filtered),
			 "sampled_out", uint_json(a->sampled_out),
			 "live", uint_json(a->live_entries),
			 "index_capacity", uint_json(a->live_capacity));
}

int fmt_json(FILE *out, const struct report_model *m)
{
	json_t *stacks = json_array(), *root;
	int ret = 0;

	for (size_t i = 0; stacks && i < m->nr_stacks; i++)
		json_array_append_new(stacks, stack_json(m, &m->stacks[i]));
	root = json_pack("{s:i, s:s, s:s, s:o, s:o, s:s, s:i, s:b, s:o, s:o, s:o, s:o, s:o, "
			 "s:o, s:o}",
			 "memtrace_report", FMT_JSON_VERSION,
			 "mode", rmodel_mode_name(m->mode),
			 "time", m->timestamp,
			 "monotonic_ns", uint_json(m->now_ns),
			 "min_age_ns", uint_json(m->min_age_ns),
			 "sort", m->sort == MT_SORT_COUNT ? "count" : "size",
			 "top", (int)m->top,
			 "sampled", m->sampled,
			 "sample_every", uint_json(m->sample_every),
			 "sample_bytes", uint_json(m->sample_bytes),
			 "bytes", uint_json(m->bytes),
			 "count", uint_json(m->count),
			 "stacks", stacks ? stacks : json_array(),
			 "lost", lost_json(&m->loss),
			 "activity", activity_json(&m->activity));
	if (!root)
		return -ENOMEM;
	if (m->mode == RM_USER_LEAKS) {
		json_object_set_new(root, "pid", json_integer(m->pid));
		json_object_set_new(root, "final", json_boolean(m->final));
	}
	if (json_dumpf(root, out, JSON_COMPACT | JSON_PRESERVE_ORDER) || fputc('\n', out) == EOF)
		ret = -EIO;
	json_decref(root);
	return ret;
}

int fmt_json_file(FILE *out, const struct report_model *m, struct mt_err *err)
{
	int ret = fmt_json(out, m);

	return ret ? mt_errf(err, -ret, "cannot write the JSON report") : 0;
}
