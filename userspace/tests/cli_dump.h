/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One line for what cli_parse() made of a command line: every field of
 * struct mt_options, or the error.  The corpus test compares these lines
 * with the ones the parser gave before the option table replaced its
 * hand-written lists (tests/fixtures/cli-corpus.txt), so a change in any
 * field or message shows as a diff of one line.
 */
#ifndef MEMTRACE_TEST_CLI_DUMP_H
#define MEMTRACE_TEST_CLI_DUMP_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* Writes one field as " name=value" into *p, returning the next spot. */
static inline char *cli_dump_field(char *p, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static inline char *cli_dump_field(char *p, const char *name, const char *fmt, ...)
{
	va_list ap;

	p += sprintf(p, " %s=", name);
	va_start(ap, fmt);
	p += vsprintf(p, fmt, ap);
	va_end(ap);
	return p + 1;	/* fields are NUL-separated */
}

#define CLI_S(s) ((s) ? (s) : "(null)")

/* Every field, NUL-separated, in a fixed order; returns the count. */
static inline int cli_dump_fields(char *p, const struct mt_options *o)
{
	char list[2048] = "", *l = list;
	char *start = p;

	p = cli_dump_field(p, "action", "%d", o->action);
	p = cli_dump_field(p, "mode", "%d", o->mode);
	p = cli_dump_field(p, "interval", "%u", o->interval_s);
	p = cli_dump_field(p, "count", "%lu", o->count);
	p = cli_dump_field(p, "pid", "%d", o->pid);
	p = cli_dump_field(p, "command", "%s", CLI_S(o->command));
	for (char **a = o->cmd_argv; a && *a; a++)
		l += sprintf(l, "[%s]", *a);
	p = cli_dump_field(p, "argv", "%s", list);
	p = cli_dump_field(p, "words", "%d", o->cmd_words);
	p = cli_dump_field(p, "debuginfod", "%d", o->debuginfod);
	l = list;
	*l = '\0';
	for (unsigned int i = 0; i < o->nr_objs; i++)
		l += sprintf(l, "[%s]", o->objs[i]);
	p = cli_dump_field(p, "objs", "%s", list);
	p = cli_dump_field(p, "trace", "%d", o->trace);
	p = cli_dump_field(p, "follow_forks", "%d", o->follow_forks);
	p = cli_dump_field(p, "unwind", "%d", o->unwind);
	p = cli_dump_field(p, "returns", "%d", o->returns);
	p = cli_dump_field(p, "show_allocs", "%d", o->show_allocs);
	p = cli_dump_field(p, "combined_only", "%d", o->combined_only);
	p = cli_dump_field(p, "percpu", "%d", o->percpu);
	p = cli_dump_field(p, "older_ms", "%llu", (unsigned long long)o->older_ms);
	p = cli_dump_field(p, "sample_every", "%u", o->sample_every);
	p = cli_dump_field(p, "sample_bytes", "%u", o->sample_bytes);
	p = cli_dump_field(p, "top", "%u", o->top);
	p = cli_dump_field(p, "min_size", "%llu", (unsigned long long)o->min_size);
	p = cli_dump_field(p, "max_size", "%llu", (unsigned long long)o->max_size);
	p = cli_dump_field(p, "stack_depth", "%u", o->stack_depth);
	p = cli_dump_field(p, "sort", "%d", o->sort);
	l = list;
	*l = '\0';
	for (unsigned int i = 0; i < o->nr_caches; i++)
		l += sprintf(l, "[%s]", o->caches[i]);
	p = cli_dump_field(p, "caches", "%s", list);
	p = cli_dump_field(p, "by_pid", "%d", o->by_pid);
	p = cli_dump_field(p, "by_comm", "%s", CLI_S(o->by_comm));
	p = cli_dump_field(p, "by_cgroup", "%s", CLI_S(o->by_cgroup));
	p = cli_dump_field(p, "module", "%s", CLI_S(o->module));
	p = cli_dump_field(p, "events", "%#x", o->events);
	p = cli_dump_field(p, "stacks", "%d", o->stacks);
	p = cli_dump_field(p, "oom_kills", "%d", o->oom_kills);
	p = cli_dump_field(p, "usdt", "%s", CLI_S(o->usdt));
	p = cli_dump_field(p, "folded", "%d", o->folded);
	p = cli_dump_field(p, "folded_file", "%s", CLI_S(o->folded_file));
	p = cli_dump_field(p, "json", "%d", o->json);
	p = cli_dump_field(p, "json_file", "%s", CLI_S(o->json_file));
	p = cli_dump_field(p, "pprof", "%s", CLI_S(o->pprof_file));
	p = cli_dump_field(p, "prometheus", "%s", CLI_S(o->prometheus_file));
	p = cli_dump_field(p, "svg", "%s", CLI_S(o->svg_file));
	p = cli_dump_field(p, "memleak_format", "%d", o->memleak_format);
	p = cli_dump_field(p, "frame_addresses", "%d", o->frame_addresses);
	p = cli_dump_field(p, "verbose", "%d", o->verbose);
	p = cli_dump_field(p, "symbols_prefix", "%s", CLI_S(o->symbols_prefix));
	return (int)(p - start);
}

/* "ok" and the fields that differ from cli_defaults(), or the error. */
static inline void cli_dump(FILE *f, int ret, const struct mt_options *o, const struct mt_err *e)
{
	static char got[16384], def[16384];
	struct mt_options d;
	char *g = got, *x = def;

	if (ret) {
		fprintf(f, "error %d: %s\n", ret, e->msg);
		return;
	}
	cli_defaults(&d);
	cli_dump_fields(def, &d);
	int n = cli_dump_fields(got, o);

	fputs("ok", f);
	while (g < got + n) {
		if (strcmp(g, x))
			fputs(g, f);
		g += strlen(g) + 1;
		x += strlen(x) + 1;
	}
	fputc('\n', f);
}

#endif
