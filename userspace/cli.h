/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Command line of memtrace-read: memleak(8)'s options and positional
 * [interval [count]], plus memtrace's own (--slab, --cache, --sort, ...).
 * Parsing only validates and records (into struct mt_options, options.h);
 * what a mode does lives elsewhere.
 */
#ifndef MEMTRACE_READ_CLI_H
#define MEMTRACE_READ_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "options.h"

/* Exit status for bad usage, as most tools (getopt conventions). */
#define MT_EXIT_USAGE 2

void cli_defaults(struct mt_options *o);

/*
 * Parses argv into *o (after cli_defaults).  Returns 0, or -EINVAL with a
 * message in err naming the option and the accepted values.  Safe to call
 * more than once in a process (it resets getopt).
 */
int cli_parse(int argc, char **argv, struct mt_options *o, struct mt_err *err);

/* Frees what cli_parse() allocated (the split -c command). */
void cli_free(struct mt_options *o);

void cli_usage(FILE *out, const char *prog);

/*
 * The i-th option of the table: its long name ("--trace") or, with
 * short_name, its short one ("-t", NULL if it has none).  NULL past the
 * last (the man page test walks them).
 */
const char *cli_option_name(size_t i, bool short_name);

/* The option of a growth mode (--mmap, --brk, --shm, --faults, --ffaults). */
const char *cli_growth_option(enum mt_mode m);

/*
 * Growth modes that count by user stack (or by file) and report at
 * intervals, and so have folded stacks (and --pprof, --prometheus and
 * --svg): --brk, --mmap --stacks, --faults, --ffaults (its files as
 * one-frame stacks), --usdt, --shm --stacks (its calls by stack).
 */
bool cli_growth_folds(const struct mt_options *o);

#endif
