// SPDX-License-Identifier: GPL-2.0
/*
 * memtrace-read --help, made from the option table (cli_opts.c): a
 * synopsis, then each section's options with their help, wrapped.
 */
#include "cli.h"
#include "cli_opts.h"

#include <getopt.h>
#include <string.h>

static const char *const group_titles[NR_GROUPS] = {
	[G_MODES] = "modes (one at a time; the default is --kernel-leaks)",
	[G_GENERAL] = "every mode",
	[G_PROCESS] = "one process (-p, -c or -- COMMAND: its leaks, or the growth modes')",
	[G_ALLOCS] = "allocations (--kernel-leaks, --slab, -p, -c)",
	[G_KERNEL] = "kernel allocations (--kernel-leaks, --slab; --by-comm and --by-cgroup also\n"
		     "the growth modes')",
	[G_FORMATS] = "report formats (the same stacks and numbers as the text report, -T of\n"
		      "them; the leak modes, --slab, the growth modes that count by stack)",
	[G_MEMLEAK] = "memleak compatibility",
};

/* Help text: words wrapped at 79 columns, continuation lines at column indent. */
#define HELP_WIDTH	79
#define HELP_COLUMN	24

/* One word that is not broken, on this line if it fits, else on the next. */
static void put_word(FILE *out, const char *word, size_t len, unsigned int *col,
		     unsigned int indent)
{
	if (*col > indent && *col + 1 + len > HELP_WIDTH) {
		fprintf(out, "\n%*s", (int)indent, "");
		*col = indent;
	} else if (*col > indent) {
		fputc(' ', out);
		(*col)++;
	}
	fprintf(out, "%.*s", (int)len, word);
	*col += (unsigned int)len;
}

/* A text's words; a newline in it starts a line. */
static void wrap(FILE *out, const char *text, unsigned int *col, unsigned int indent)
{
	while (*text) {
		size_t len;

		while (*text == ' ')
			text++;
		len = strcspn(text, " \n");
		put_word(out, text, len, col, indent);
		text += len;
		if (*text == '\n') {
			fprintf(out, "\n%*s", (int)indent, "");
			*col = indent;
			text++;
		}
	}
}

/* "-o OLDER, --older OLDER", "--cache NAME", "--folded[=FILE]". */
static void opt_synopsis(char *buf, size_t len, const struct cli_opt *opt, bool both)
{
	const char *meta = opt->metavar ? opt->metavar : "";
	const char *sep = opt->arg == no_argument ? "" : " ";

	if (opt->arg == optional_argument)
		snprintf(buf, len, "%s[=%s]", opt->longopt, meta);
	else if (opt->shortopt && both)
		snprintf(buf, len, "%s%s%s, %s%s%s", opt->shortopt, sep, meta, opt->longopt, sep,
			 meta);
	else
		snprintf(buf, len, "%s%s%s", cli_opt_name(opt), sep, meta);
}

static void usage_synopsis(FILE *out, const char *prog)
{
	unsigned int col = (unsigned int)(strlen("usage: ") + strlen(prog));
	char buf[96];
	bool first = true;

	fprintf(out, "usage: %s", prog);
	/* The modes, one of them; then every other option. */
	for (size_t i = 0; i < cli_nr_opts; i++) {
		const struct cli_opt *opt = &cli_opts[i];

		if (opt->set != cli_set_mode && opt->set != cli_set_usdt)
			continue;
		opt_synopsis(buf + 1, sizeof(buf) - 2, opt, false);
		buf[0] = first ? '[' : ' ';
		if (!first)
			put_word(out, "|", 1, &col, 7);
		if (opt->set == cli_set_usdt)	/* the last one */
			strcat(buf, "]");
		put_word(out, buf + !first, strlen(buf + !first), &col, 7);
		first = false;
	}
	/* Section by section, as the help below (the table's order is the checks'). */
	for (size_t n = 0; n < NR_GROUPS * cli_nr_opts; n++) {
		const struct cli_opt *opt = &cli_opts[n % cli_nr_opts];

		if (opt->group != n / cli_nr_opts || opt->set == cli_set_mode ||
		    opt->set == cli_set_usdt)
			continue;
		buf[0] = '[';
		opt_synopsis(buf + 1, sizeof(buf) - 3, opt, false);
		strcat(buf, "]");
		put_word(out, buf, strlen(buf), &col, 7);
	}
	wrap(out, "[interval [count]]\n[-- COMMAND [ARG]...]", &col, 7);
	fputc('\n', out);
}

static const char usage_intro[] =
"\n"
"Trace outstanding memory allocations that weren't freed, in the kernel or in\n"
"one process, and explain memory growth, through the memtrace kernel module\n"
"(/dev/memtrace), without BPF.\n"
"\n"
"positional arguments:\n"
"  interval              interval in seconds to print reports (default 5,\n"
"                        at most %u)\n"
"  count                 number of times to print the report before exiting\n"
"                        (default: until Ctrl+C or SIGTERM)\n";

static const char usage_notes[] =
"\n"
"With --kernel-leaks, a module unloaded while tracing is reported with the\n"
"allocations made through its code that are still live (the module-leak\n"
"check); frames in module code freed since (init code, unloaded modules)\n"
"are named as they were when the stack was recorded.\n"
"\n"
"Stacks whose live bytes grew in each of the last 3 or more intervals are\n"
"tagged [growing] (likely leaks); stacks unchanged for 3 or more intervals\n"
"are tagged [stable] (long-lived allocations, not leaks).\n"
"\n"
"EXAMPLES:\n"
"%1$s\n"
"        Trace allocations in kernel mode and display a summary of outstanding\n"
"        allocations every 5 seconds\n"
"%1$s -a 10\n"
"        Also display the outstanding allocations' addresses, sizes, tasks and\n"
"        ages, every 10 seconds\n"
"%1$s -o 60000\n"
"        Display outstanding allocations that are at least one minute old\n"
"%1$s -s 5\n"
"        Trace roughly every 5th allocation, to reduce overhead\n"
"%1$s --slab --cache dentry 1 10\n"
"        Watch the dentry cache every second, ten times\n"
"%1$s -p 181\n"
"        Trace process 181's allocations; report every 5 seconds, and at its exit\n"
"%1$s -c \"./leaky --input 'my data'\"\n"
"        Run a command traced from its start; report its leaks when it exits\n"
"%1$s -- sqlite3 db \"select 1\"\n"
"        The same, the command given word by word, as to strace or valgrind\n";

void cli_usage(FILE *out, const char *prog)
{
	char flags[96], help[1024];

	usage_synopsis(out, prog);
	fprintf(out, usage_intro, MT_INTERVAL_MAX_S);
	for (unsigned int g = 0; g < NR_GROUPS; g++) {
		unsigned int col = 0;

		fputc('\n', out);
		wrap(out, group_titles[g], &col, 0);
		fputs(":\n", out);
		for (size_t i = 0; i < cli_nr_opts; i++) {
			const struct cli_opt *opt = &cli_opts[i];

			if (opt->group != g)
				continue;
			opt_synopsis(flags, sizeof(flags), opt, true);
			fprintf(out, "  %s", flags);
			col = 2 + (unsigned int)strlen(flags);
			if (col + 2 > HELP_COLUMN) {
				fputc('\n', out);
				col = 0;
			}
			fprintf(out, "%*s", (int)(HELP_COLUMN - col), "");
			col = HELP_COLUMN;
			/* The help texts are the table's own literals: not user input. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
			snprintf(help, sizeof(help), opt->help, opt->help_arg);
#pragma GCC diagnostic pop
			wrap(out, help, &col, HELP_COLUMN);
			fputc('\n', out);
		}
	}
	fprintf(out, usage_notes, prog);
}
