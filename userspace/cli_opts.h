/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside the command line: the option table, as cli_opts.c declares it
 * and cli.c (parsing, which mode takes which option) and cli_help.c
 * (--help) read it.  The rest of the reader uses cli.h only.
 */
#ifndef MEMTRACE_READ_CLI_OPTS_H
#define MEMTRACE_READ_CLI_OPTS_H

#include <stddef.h>

#include "options.h"

/*
 * Sets of modes, one bit per enum mt_mode.  --mmap and --shm are two
 * modes each here: with --stacks they count calls by user stack, which
 * takes the stack options and formats their line-per-call form cannot.
 */
#define M(mode)		(1u << MT_MODE_##mode)
#define M_MMAP_STACKS	(1u << 30)
#define M_SHM_STACKS	(1u << 31)
#define M_LEAKS		(M(KERNEL_LEAKS) | M(SLAB) | M(USER))
#define M_KERNEL	(M(KERNEL_LEAKS) | M(SLAB))
#define M_EVENTS	(M(OOM) | M(RECLAIM) | M(VMSCAN) | M(COMPACTION) | M(MIGRATION))
#define M_PRESSURE	(M_EVENTS | M(USE))
/* Growth modes whose user stacks are walked (by the unwind tables too: growth.c). */
#define M_WALKS		(M(BRK) | M(FAULTS) | M(USDT) | M_MMAP_STACKS | M_SHM_STACKS)
/* Growth modes that count by stack (or file), and so have folded stacks, pprof, ... */
#define M_FOLDS		(M_WALKS | M(FFAULTS))
#define M_GROWTH	(M_FOLDS | M(MMAP) | M(SHM))
#define M_ALL		(M_LEAKS | M_PRESSURE | M_GROWTH)

/* Sections of --help, in the order printed. */
enum cli_group {
	G_MODES,
	G_GENERAL,
	G_PROCESS,
	G_ALLOCS,
	G_KERNEL,
	G_FORMATS,
	G_MEMLEAK,
	NR_GROUPS,
};


struct cli_opt;

/* What parsing has seen so far, beyond what goes into mt_options. */
struct cli_state {
	struct mt_options *o;
	uint32_t modes;			/* mode options given (M() bits) */
	int growth;			/* the growth mode given (--mmap, ...); 0: none */
	uint64_t seen;			/* bit i: cli_opts[i] was given */
	unsigned int positional;
};

typedef int cli_set_fn(struct cli_state *s, const struct cli_opt *opt, const char *arg,
		       struct mt_err *err);

struct cli_opt {
	const char *shortopt;		/* "-t", or NULL: long only */
	const char *longopt;		/* "--trace" */
	int arg;			/* no_argument, required_argument, optional_argument */
	const char *metavar;		/* the argument in --help */
	enum cli_group group;
	uint32_t modes;			/* modes that accept it; M_ALL: any */
	cli_set_fn *set;
	size_t off, size;		/* the field of mt_options it sets */
	uint64_t min, max;		/* cli_set_number: the range */
	/*
	 * cli_set_number: how its errors name the value; a process's options
	 * (and --module, --memleak-format in --slab): why a mode refuses it;
	 * a growth mode's option: what the mode reports ("page faults").
	 */
	const char *what;
	/* How the pressure and growth modes name it when they refuse it. */
	const char *as_pressure, *as_growth;
	int mode;			/* cli_set_mode: the mode it selects; set_action: the action */
	bool refused_if_given;		/* refused even when given its default (-o 500) */
	unsigned int help_arg;		/* the number help's %u stands for */
	const char *help;
};

/* cli_state.seen has a bit per option; getopt's tables are sized by it. */
#define CLI_MAX_OPTS 64

extern const struct cli_opt cli_opts[];
extern const size_t cli_nr_opts;

/* The setters cli.c and cli_help.c tell mode options and numbers by. */
cli_set_fn cli_set_mode, cli_set_usdt, cli_set_number;

bool cli_is_growth_mode(int mode);
int cli_number_arg(const char *what, const char *s, uint64_t min, uint64_t max, uint64_t *out,
		   struct mt_err *err);

/* How messages name an option: its letter if it has one. */
static inline const char *cli_opt_name(const struct cli_opt *opt)
{
	return opt->shortopt ? opt->shortopt : opt->longopt;
}

#endif
