// SPDX-License-Identifier: GPL-2.0
/*
 * Option parsing for memtrace-read.  Option letters and meanings follow
 * memleak(8) (BCC and libbpf-tools) so that its users can switch tools
 * without relearning; options memleak does not have are long-only.
 *
 * Every option is declared once, in cli_opts[] (cli_opts.c).  Here:
 * getopt's tables made from it, the parse loop that hands each option
 * to its setter, the choice of the mode, and the check of what the mode
 * does not take (the table's sets of modes) or cannot combine.  --help
 * is cli_help.c's.
 */
#include "cli.h"
#include "cli_opts.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* Text of the option getopt just rejected, for the error message. */
static const char *bad_option_text(char **argv, int argc, char *buf, size_t len)
{
	/* optopt is the letter for short options and for long options that
	 * have one; 0 or a long-only code otherwise. */
	if (optopt > 0 && optopt < 128 && isprint(optopt)) {
		snprintf(buf, len, "-%c", optopt);
		return buf;
	}
	if (optind - 1 >= 0 && optind - 1 < argc)
		return argv[optind - 1];
	return "?";
}

/* A positional argument: interval, then count. */
static int positional_arg(struct mt_options *o, unsigned int n, const char *arg,
			  struct mt_err *err)
{
	uint64_t v;
	int ret;

	switch (n) {
	case 0:
		ret = cli_number_arg("interval", arg, 1, MT_INTERVAL_MAX_S, &v, err);
		o->interval_s = (unsigned int)v;
		return ret;
	case 1:
		ret = cli_number_arg("count", arg, 1, MT_COUNT_MAX, &v, err);
		o->count = (unsigned long)v;
		return ret;
	default:
		return mt_errf(err, EINVAL, "unexpected argument '%s': only [interval [count]]%s",
			       arg, n == 2 ? " (a command goes after --)" : "");
	}
}

/*
 * -c's string, split into words as a shell would (quotes, backslashes,
 * $VAR, ~, globs), without running one: wordexp(3) without command
 * substitution.  What only a shell can do is refused, saying how.
 */
static int split_command(struct mt_options *o, const char *command, struct mt_err *err)
{
	int ret = wordexp(command, &o->words, WRDE_NOCMD);

	switch (ret) {
	case 0:
		break;
	case WRDE_BADCHAR:
		return mt_errf(err, EINVAL, "-c '%s': | & ; < > ( ) { } and newlines need a shell: "
			       "-c \"sh -c '...'\"", command);
	case WRDE_CMDSUB:
		return mt_errf(err, EINVAL, "-c '%s': command substitution needs a shell: "
			       "-c \"sh -c '...'\"", command);
	case WRDE_SYNTAX:
		return mt_errf(err, EINVAL, "-c '%s': unbalanced quotes", command);
	default:
		return mt_errf(err, ENOMEM, "-c '%s': cannot split it (wordexp: %d)", command, ret);
	}
	o->cmd_words = true;
	if (!o->words.we_wordc)
		return mt_errf(err, EINVAL, "-c needs a command");
	o->cmd_argv = o->words.we_wordv;
	return 0;
}

void cli_free(struct mt_options *o)
{
	if (o->cmd_words)
		wordfree(&o->words);
	o->cmd_words = false;
	o->cmd_argv = NULL;
}

/*
 * getopt_long's value for a row: its letter, so that getopt's optopt
 * names it by its letter in errors as it always did; else past any
 * character, by index.
 */
static int opt_val(size_t i)
{
	return cli_opts[i].shortopt ? cli_opts[i].shortopt[1] : 0x100 + (int)i;
}

static const struct cli_opt *opt_by_val(int c)
{
	if (c >= 0x100 && (size_t)(c - 0x100) < cli_nr_opts)
		return &cli_opts[c - 0x100];
	for (size_t i = 0; i < cli_nr_opts; i++)
		if (cli_opts[i].shortopt && cli_opts[i].shortopt[1] == c)
			return &cli_opts[i];
	return NULL;
}

/* getopt_long's tables, from cli_opts[]. */
static void getopt_tables(struct option *longs, char *shorts)
{
	/*
	 * '-': options and positional arguments are taken in order, so "--"
	 * ends them where it stands and what follows it is the command,
	 * untouched.  ':': a missing value is told from an unknown option.
	 */
	*shorts++ = '-';
	*shorts++ = ':';
	for (size_t i = 0; i < cli_nr_opts; i++) {
		const struct cli_opt *opt = &cli_opts[i];

		longs[i] = (struct option){ opt->longopt + 2, opt->arg, NULL, opt_val(i) };
		if (!opt->shortopt)
			continue;
		*shorts++ = opt->shortopt[1];
		if (opt->arg != no_argument)
			*shorts++ = ':';
		if (opt->arg == optional_argument)
			*shorts++ = ':';
	}
	*shorts = '\0';
	longs[cli_nr_opts] = (struct option){ NULL, 0, NULL, 0 };
}

void cli_defaults(struct mt_options *o)
{
	memset(o, 0, sizeof(*o));
	o->action = MT_ACTION_RUN;
	o->mode = MT_MODE_KERNEL_LEAKS;
	o->interval_s = 5;	/* memleak's default */
	o->older_ms = 500;	/* memleak's default: younger allocations are not leaks yet */
	o->top = 10;		/* memleak's default */
	o->sort = MT_SORT_SIZE;
}

/*
 * The bit of a mode in the table's sets: --mmap and --shm with --stacks
 * have their own (they take the stack options).
 */
static uint32_t mode_bit(const struct mt_options *o)
{
	if (o->stacks && o->mode == MT_MODE_MMAP)
		return M_MMAP_STACKS;
	if (o->stacks && o->mode == MT_MODE_SHM)
		return M_SHM_STACKS;
	return 1u << o->mode;
}

/*
 * An option counts when it changed its field from the default: "--sort
 * size", "--unwind auto" or "-z 0" ask for nothing a mode could ignore.
 */
static bool in_effect(const struct cli_state *s, size_t i)
{
	const struct cli_opt *opt = &cli_opts[i];
	struct mt_options def;

	if (opt->refused_if_given)
		return s->seen & (1ull << i);
	if (!opt->size)
		return false;
	cli_defaults(&def);
	return memcmp((const char *)s->o + opt->off, (const char *)&def + opt->off, opt->size);
}

enum { ANY, NOT_MEMLEAK, MEMLEAK };

/*
 * Which option a mode names when it refuses several: the ones its
 * family lists, in that order, then the others in table order.  The
 * lists keep the messages what they were before the table; they say
 * nothing about which options are accepted (cli_opts[].modes does).
 */
static const char *const pressure_order[] = {
	"--folded", "--pprof", "--svg", "--memleak-format", "-t", "-a", "-C", "-P", "--cache",
	"--by-pid", "--by-comm", "--by-cgroup", "--module", "--events", "-O", "-s",
	"--sample-bytes", "--returns", "--unwind", "-S", "--frame-addresses", "--sort",
	"--follow-forks", "--debuginfod", "-z", "-Z", "-o", NULL,
};
static const char *const growth_order[] = {
	"-t", "-a", "-C", "-P", "--cache", "--module", "--events", "-O", "-s", "--sample-bytes",
	"-z", "-Z", "-o", "--follow-forks", "--debuginfod", "--by-pid", "--folded", "--pprof",
	"--prometheus", "--svg", "--memleak-format", "--returns", "--unwind", "-S",
	"--frame-addresses", NULL,
};
static const char *const user_order[] = {
	"-P", "--cache", "--by-pid", "--by-comm", "--by-cgroup", "--module", NULL,
};

static bool refuses(const struct cli_state *s, size_t i, int which)
{
	const struct cli_opt *opt = &cli_opts[i];

	if (which != ANY && (opt->group == G_MEMLEAK) != (which == MEMLEAK))
		return false;
	return !(opt->modes & mode_bit(s->o)) && in_effect(s, i);
}

/*
 * The first option given that the mode does not accept; which: whether
 * the memleak compatibility options are looked at (the leak modes refuse
 * them after the combinations of check_leaks(), as always).
 */
static const struct cli_opt *refused(const struct cli_state *s, const char *const *order,
				     int which)
{
	for (; order && *order; order++)
		for (size_t i = 0; i < cli_nr_opts; i++)
			if (!strcmp(cli_opt_name(&cli_opts[i]), *order) && refuses(s, i, which))
				return &cli_opts[i];
	for (size_t i = 0; i < cli_nr_opts; i++)
		if (refuses(s, i, which))
			return &cli_opts[i];
	return NULL;
}

const char *cli_option_name(size_t i, bool short_name)
{
	if (i >= cli_nr_opts)
		return NULL;
	return short_name ? cli_opts[i].shortopt : cli_opts[i].longopt;
}

/* The option that selects mode. */
static const struct cli_opt *mode_opt(int mode)
{
	for (size_t i = 0; i < cli_nr_opts; i++)
		if ((cli_opts[i].set == cli_set_mode || cli_opts[i].set == cli_set_usdt) &&
		    cli_opts[i].mode == mode)
			return &cli_opts[i];
	return NULL;
}

static const char *mode_option(int mode)
{
	const struct cli_opt *opt = mode_opt(mode);

	return opt ? opt->longopt : NULL;
}

const char *cli_growth_option(enum mt_mode m)
{
	return cli_is_growth_mode(m) ? mode_option(m) : "--ffaults";
}

bool cli_growth_folds(const struct mt_options *o)
{
	return cli_is_growth_mode(o->mode) && (mode_bit(o) & M_FOLDS);
}

static bool given(const struct cli_state *s, int mode)
{
	return s->modes & (1u << mode);
}

/* The pressure modes and --use report events, not allocations. */
static int check_pressure(const struct cli_state *s, struct mt_err *err)
{
	const struct mt_options *o = s->o;
	const struct cli_opt *opt;
	const char *other = NULL;

	if (given(s, MT_MODE_KERNEL_LEAKS) || given(s, MT_MODE_SLAB))
		other = given(s, MT_MODE_KERNEL_LEAKS) ? "--kernel-leaks" : "--slab";
	else if (o->pid || o->cmd_argv)
		other = o->pid ? "-p" : "-c";
	else if ((opt = refused(s, pressure_order, ANY)))
		other = opt->as_pressure ? opt->as_pressure : cli_opt_name(opt);
	if (other)
		return mt_errf(err, EINVAL, "%s reports memory pressure events, not allocations: "
			       "it cannot be combined with %s", mode_option(o->mode), other);
	return 0;
}

/*
 * The growth modes report system calls, faults or probe hits: -p/-c or
 * --by-comm and --by-cgroup choose the callers, -T the stacks shown,
 * --stack-depth their depth.
 */
static int check_growth(const struct cli_state *s, struct mt_err *err)
{
	const struct mt_options *o = s->o;
	const struct cli_opt *opt;
	const char *other = NULL;

	if (o->pid && o->cmd_argv)
		return mt_errf(err, EINVAL, "cannot specify both -p and a command (-c or --)");
	/* The tables are a process's (growth.c): system-wide, frame pointers only. */
	if (o->unwind != MT_UNWIND_AUTO && (mode_bit(o) & M_WALKS) && !o->pid && !o->cmd_argv)
		return mt_errf(err, EINVAL, "--unwind walks a process's stacks: it needs -p or -c");
	if (o->stacks && o->mode != MT_MODE_MMAP && o->mode != MT_MODE_SHM)
		return mt_errf(err, EINVAL, "--stacks goes with --mmap or --shm (%s)",
			       o->mode == MT_MODE_FFAULTS ? "--ffaults counts by file" :
			       "--brk, --faults and --usdt always report stacks");
	if (given(s, MT_MODE_KERNEL_LEAKS) || given(s, MT_MODE_SLAB))
		other = given(s, MT_MODE_KERNEL_LEAKS) ? "--kernel-leaks" : "--slab";
	else if ((opt = refused(s, growth_order, ANY)))
		other = opt->as_growth ? opt->as_growth : cli_opt_name(opt);
	if (other)
		return mt_errf(err, EINVAL, "%s reports %s, not allocations: "
			       "it cannot be combined with %s", mode_option(o->mode),
			       mode_opt(o->mode)->what, other);
	return 0;
}

/* --module and --memleak-format say why --slab refuses them (a number's what names its value). */
static bool slab_reason(const struct cli_opt *opt)
{
	return (opt->modes & M(KERNEL_LEAKS)) && opt->what && opt->set != cli_set_number;
}

/* Why a leak mode (--kernel-leaks, --slab, -p/-c) refuses an option. */
static int refuse_leak(bool user, const struct cli_opt *opt, struct mt_err *err)
{
	if (user)
		return mt_errf(err, EINVAL, "%s applies to kernel allocations, not to -p/-c",
			       cli_opt_name(opt));
	if (!(opt->modes & M(KERNEL_LEAKS)))	/* a process's option */
		return mt_errf(err, EINVAL, "%s: it needs -p or -c", opt->what);
	if (slab_reason(opt))
		return mt_errf(err, EINVAL, "%s", opt->what);
	return mt_errf(err, EINVAL, "option %s applies to --kernel-leaks, not --slab",
		       cli_opt_name(opt));
}

/* The leak modes: options the mode refuses, and combinations that cannot mean anything. */
static int check_leaks(const struct cli_state *s, struct mt_err *err)
{
	const struct mt_options *o = s->o;
	bool kernel_leaks = given(s, MT_MODE_KERNEL_LEAKS), slab = given(s, MT_MODE_SLAB);
	bool user = o->mode == MT_MODE_USER;
	const struct cli_opt *opt;

	if (o->pid && o->cmd_argv)
		return mt_errf(err, EINVAL, "cannot specify both -p and a command (-c or --)");
	if (user && (kernel_leaks || slab))
		return mt_errf(err, EINVAL, "-p/-c trace a process; they cannot be combined with %s",
			       slab ? "--slab" : "--kernel-leaks");
	opt = refused(s, user ? user_order : NULL, NOT_MEMLEAK);
	/* Both modes: a process's options and --module are named first, as always. */
	if (kernel_leaks && slab &&
	    (!opt || ((opt->modes & M(KERNEL_LEAKS)) && !slab_reason(opt))))
		return mt_errf(err, EINVAL, "--kernel-leaks and --slab are different modes: choose one");
	/* -p/-c name -P and --cache before the two ways of choosing one below, the rest after. */
	if (opt && !(user && strcmp(opt->longopt, "--percpu") &&
		     strcmp(opt->longopt, "--cache")))
		return refuse_leak(user, opt, err);
	if (o->show_allocs && o->combined_only)
		return mt_errf(err, EINVAL,
			       "-a shows individual allocations and -C only combined statistics: choose one");
	if (o->sample_every && o->sample_bytes)
		return mt_errf(err, EINVAL, "-s and --sample-bytes are two ways of sampling: choose one");
	if (opt)
		return refuse_leak(user, opt, err);
	if (o->events && o->percpu)
		return mt_errf(err, EINVAL, "-P is --events percpu: choose one");
	if (o->max_size && o->min_size > o->max_size)
		return mt_errf(err, EINVAL, "min size (-z %llu) can't be greater than max size (-Z %llu)",
			       (unsigned long long)o->min_size, (unsigned long long)o->max_size);
	opt = refused(s, NULL, MEMLEAK);
	if (opt)
		return refuse_leak(user, opt, err);
	if (!cli_text_report(o) && (o->trace || o->show_allocs))
		return mt_errf(err, EINVAL, "%s prints text lines: not with --folded or --json "
			       "on stdout (give it a file: --json=FILE)",
			       o->trace ? "-t" : "-a");
	return 0;
}

/* The mode options given decide the mode, and with it the checks. */
/*
 * The event modes given (the pressure modes but --use), in the table's
 * order: how many, the first and the last.
 */
static unsigned int event_modes(const struct cli_state *s, const struct cli_opt **first,
				const struct cli_opt **last)
{
	unsigned int n = 0;

	*first = *last = NULL;
	for (size_t i = 0; i < cli_nr_opts; i++) {
		const struct cli_opt *opt = &cli_opts[i];

		if (opt->set != cli_set_mode || !(M_EVENTS & (1u << opt->mode)) ||
		    !given(s, opt->mode))
			continue;
		if (!n++)
			*first = opt;
		*last = opt;
	}
	return n;
}

static int choose_mode(struct cli_state *s, struct mt_err *err)
{
	struct mt_options *o = s->o;
	bool kernel_leaks = given(s, MT_MODE_KERNEL_LEAKS), use = given(s, MT_MODE_USE);
	const struct cli_opt *first, *last;
	unsigned int events = event_modes(s, &first, &last);
	int growth = s->growth;

	if (use && (events || growth))
		return mt_errf(err, EINVAL, "--use and %s are different modes: choose one",
			       events ? first->longopt : "a growth mode");
	if (events > 1)
		return mt_errf(err, EINVAL, "%s and %s are different modes: choose one",
			       first->longopt, last->longopt);
	if (growth && events)
		return mt_errf(err, EINVAL, "%s and %s are different modes: choose one",
			       first->longopt, cli_growth_option(growth));
	if (growth) {
		o->mode = growth;
		return check_growth(s, err);
	}
	if (o->stacks)
		return mt_errf(err, EINVAL, "--stacks goes with --mmap or --shm");
	/*
	 * --oom in a leak session (oomkill and memleak at once): each kill, and
	 * the traced process's (or the kernel's) top live stacks at it.
	 */
	if (given(s, MT_MODE_OOM) && !use &&
	    (kernel_leaks || o->pid || o->cmd_argv)) {
		if (!cli_text_report(o) || o->json || o->memleak_format)
			return mt_errf(err, EINVAL, "--oom with %s prints its kills in the text "
				       "report: not with --json, --folded or --memleak-format",
				       kernel_leaks ? "--kernel-leaks" : o->pid ? "-p" : "-c");
		if (o->follow_forks)
			return mt_errf(err, EINVAL, "--oom with --follow-forks: the victim's stacks "
				       "are told apart only for one traced process");
		o->oom_kills = true;
		s->modes &= ~M(OOM);
		events = 0;
	}
	if (events || use) {
		o->mode = events ? first->mode : MT_MODE_USE;
		return check_pressure(s, err);
	}
	o->mode = o->pid || o->cmd_argv ? MT_MODE_USER :
		  given(s, MT_MODE_SLAB) ? MT_MODE_SLAB : MT_MODE_KERNEL_LEAKS;
	return check_leaks(s, err);
}

/* Options end at "--" (or the end): a command may follow. */
static int take_command(struct mt_options *o, int argc, char **argv, struct mt_err *err)
{
	if (optind > 1 && optind <= argc && !strcmp(argv[optind - 1], "--")) {
		if (o->command)
			return mt_errf(err, EINVAL, "a command with -c, or after --: not both");
		if (optind == argc)
			return mt_errf(err, EINVAL, "-- needs a command after it");
		o->cmd_argv = argv + optind;
		return 0;
	}
	return o->command ? split_command(o, o->command, err) : 0;
}

int cli_parse(int argc, char **argv, struct mt_options *o, struct mt_err *err)
{
	struct option longs[CLI_MAX_OPTS + 1];
	char shorts[3 * CLI_MAX_OPTS + 3];
	struct cli_state s = { .o = o };
	char optbuf[8];
	int ret, c;

	getopt_tables(longs, shorts);
	/* optind = 0 makes glibc reinitialize getopt, so parsing twice works. */
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
		const struct cli_opt *opt = opt_by_val(c);

		if (opt) {
			s.seen |= 1ull << (opt - cli_opts);
			ret = opt->set(&s, opt, optarg, err);
			if (ret)
				return ret > 0 ? 0 : ret;
			continue;
		}
		if (c == 1) {
			ret = positional_arg(o, s.positional++, optarg, err);
			if (ret)
				return ret;
			continue;
		}
		if (c == ':')
			return mt_errf(err, EINVAL, "option %s needs a value",
				       bad_option_text(argv, argc, optbuf, sizeof(optbuf)));
		/* "-1" is how a negative interval or count reaches getopt. */
		if (optopt > 0 && optopt < 128 && isdigit(optopt))
			return mt_errf(err, EINVAL,
				       "invalid argument '-%c': interval and count must be positive whole numbers",
				       optopt);
		return mt_errf(err, EINVAL, "unknown option '%s'",
			       bad_option_text(argv, argc, optbuf, sizeof(optbuf)));
	}
	ret = take_command(o, argc, argv, err);
	return ret ? ret : choose_mode(&s, err);
}
