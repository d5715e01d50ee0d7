// SPDX-License-Identifier: GPL-2.0
/*
 * Every option of memtrace-read, declared once: cli_opts[] gives its
 * names, its argument, the field of struct mt_options it sets (and how:
 * its setter, below), its help text and section, and the modes that
 * accept it.  getopt's tables, --help and the check of which mode takes
 * which option are made from it (cli.c, cli_help.c), and the man page
 * is checked against it (tests/test_cli.c).
 */
#include "cli_opts.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

/* A setter's definition: each takes all four, whether it needs them or not. */
#define UNUSED __attribute__((unused))
#define SETTER(fn, arg) int fn(UNUSED struct cli_state *s, UNUSED const struct cli_opt *opt, \
				      UNUSED const char *arg, UNUSED struct mt_err *err)

#define FIELD(f)	.off = offsetof(struct mt_options, f), \
			.size = sizeof(((struct mt_options *)0)->f)
#define FLAG(f)		.set = set_flag, FIELD(f)
#define NUMBER(f, w, lo, hi)	.set = cli_set_number, FIELD(f), .what = w, .min = lo, .max = hi
#define MODE(m)		.mode = MT_MODE_##m, .modes = M_ALL, .group = G_MODES
/* What the pressure modes and the growth modes call allocation options. */
#define FILTER_P	.as_pressure = "an allocation filter"
#define ALLOC_G		.as_growth = "an allocation option"

static cli_set_fn set_flag, set_action, set_command, set_obj, set_unwind, set_returns, set_sort,
	set_cache, set_by_comm, set_by_cgroup, set_module, set_events, set_format, set_file,
	set_symbols_prefix;

/*
 * The table.  A row's .modes is the whole of which modes take it (what
 * a mode refuses is what is not in it).  Its order is --help's within a
 * section, and the order in which the leak modes name what they refuse
 * when several options are given (cli.c's *_order lists give the other
 * modes' orders, which were different).
 */
const struct cli_opt cli_opts[] = {
	{ "-h", "--help", no_argument, .set = set_action, .mode = MT_ACTION_HELP, .group = G_GENERAL, .modes = M_ALL,
	  .help = "show this help message and exit"},
	{ NULL, "--version", no_argument, .set = set_action, .mode = MT_ACTION_VERSION, .group = G_GENERAL, .modes = M_ALL,
	  .help = "print the reader's version and, if loaded, the module's"},
	{ NULL, "--kernel-leaks", no_argument, MODE(KERNEL_LEAKS), .set = cli_set_mode,
	  .help = "report stacks with outstanding kernel allocations, like memleak(8) without "
		  "-p (the default mode)"},
	{ NULL, "--slab", no_argument, MODE(SLAB), .set = cli_set_mode,
	  .help = "per slab cache: live objects and bytes, their change since the last "
		  "interval, and the stacks behind growth"},
	{ NULL, "--oom", no_argument, MODE(OOM), .set = cli_set_mode,
	  .help = "each OOM kill, as oomkill(8): trigger, victim, its memory, the memcg and "
		  "its limit, constraint, load and the trigger's kernel stack; [count] "
		  "intervals, or until Ctrl+C.  With -p, -c or --kernel-leaks: the leak report "
		  "as usual, and at each kill the traced victim's (or the kernel's) top -T "
		  "live stacks"},
	{ NULL, "--reclaim", no_argument, MODE(RECLAIM), .set = cli_set_mode,
	  .help = "each direct (and memcg) reclaim, as drsnoop(8): task, latency, pages "
		  "reclaimed; a latency histogram per process at the end"},
	{ NULL, "--vmscan", no_argument, MODE(VMSCAN), .set = cli_set_mode,
	  .help = "page reclaim's work each interval, as vmscan(8): kswapd runs and time "
		  "awake, direct and memcg reclaims and their time, pages scanned and "
		  "reclaimed (anon, file), writeback from reclaim, the -T slowest slab "
		  "shrinkers; totals per reclaimer and LRU list at the end"},
	{ NULL, "--compaction", no_argument, MODE(COMPACTION), .set = cli_set_mode,
	  .help = "each zone's compaction run, as compactsnoop(8): task, node, zone, order, "
		  "mode, latency, outcome, pages scanned; at the end, runs per zone and order "
		  "and the -T tasks that stalled longest in direct compaction"},
	{ NULL, "--migration", no_argument, MODE(MIGRATION), .set = cli_set_mode,
	  .help = "page migration each interval, per reason (compaction, migrate_pages(2), "
		  "mbind, NUMA balancing, ...): calls, pages migrated and failed, THPs, time; "
		  "totals per reason and the -T tasks that migrated most at the end"},
	{ NULL, "--use", no_argument, MODE(USE), .set = cli_set_mode,
	  .help = "memory in the USE method's terms each interval: utilization (/proc/meminfo, "
		  "the -T largest memcgs against memory.max), saturation (PSI, swapping, "
		  "reclaim and compaction stalls, the module's reclaims and compactions with "
		  "their time), errors (OOM kills, failed compactions, page allocation "
		  "failures)"},
	{ NULL, "--mmap", no_argument, MODE(MMAP), .set = cli_set_mode, .what = "system calls",
	  .help = "each mmap, munmap and mremap call, as mmapsnoop(8): PID COMM PROT MAP "
		  "OFFS(KB) SIZE(KB) FILE; with --stacks, bytes mapped by user stack instead"},
	{ NULL, "--brk", no_argument, MODE(BRK), .set = cli_set_mode, .what = "system calls",
	  .help = "brk growth by user stack and process, as brkstack(8): calls and bytes grown"},
	{ NULL, "--shm", no_argument, MODE(SHM), .set = cli_set_mode, .what = "system calls",
	  .help = "each shmget, shmat, shmdt and shmctl call with its arguments and return "
		  "value, as shmsnoop(8); with --stacks, each call's user stack under it"},
	{ NULL, "--faults", no_argument, MODE(FAULTS), .set = cli_set_mode, .what = "page faults",
	  .help = "page faults by user stack and process, as faults(8): minor and major"},
	{ NULL, "--ffaults", no_argument, MODE(FFAULTS), .set = cli_set_mode, .what = "page faults",
	  .help = "page faults by the file mapped, as ffaults(8)"},
	{ NULL, "--usdt", required_argument, "BINARY:PROVIDER:NAME", MODE(USDT), .set = cli_set_usdt, .what = "probe hits",
	  .help = "each hit of a USDT probe (<sys/sdt.h>) of BINARY with its arguments, as "
		  "trace(8); hits by user stack at the end (semaphores are set while traced).  "
		  "These six growth modes: -p/-c one process, else system-wide; --by-comm, "
		  "--by-cgroup select callers; -T stacks"},
	/* --mmap and --shm only: checked with the mode (choose_mode, check_growth). */
	{ NULL, "--stacks", no_argument, FLAG(stacks), .group = G_MODES, .modes = M_ALL,
	  .help = "with --mmap or --shm: by user stack (see them)"},
	/* -p and -c choose the mode (user, or a growth mode's process): cli_parse. */
	{ "-p", "--pid", required_argument, "PID", NUMBER(pid, "PID (-p)", 1, 0x7fffffff), .group = G_PROCESS,
	  .modes = M_ALL,
	  .help = "the PID to trace: its malloc family, mmap and munmap, through uprobes on "
		  "its libc; when it exits, the allocations in use at exit and a heap summary"},
	{ "-c", "--command", required_argument, "COMMAND", .set = set_command, .group = G_PROCESS,
	  .modes = M_ALL,
	  .help = "execute and trace the specified command from its first instruction, "
		  "following its execs (env, nice, a script, then the program); split into "
		  "words as a shell would (quotes, $VAR), but run without one; memtrace-read "
		  "exits with its exit status.  -- COMMAND [ARG]... after the options: the "
		  "same, the command given word by word"},
	{ "-O", "--obj", required_argument, "OBJ", .set = set_obj, FIELD(nr_objs),
	  .group = G_PROCESS, .modes = M(USER), .what = "-O names a process's allocator",
	  FILTER_P, ALLOC_G, .help_arg = MT_MAX_OBJS,
	  .help = "also probe the allocator functions in this object: a path, or the name of a "
		  "library the process maps (\"c\", \"jemalloc\"; repeatable, up to %u)"},
	{ NULL, "--follow-forks", no_argument, FLAG(follow_forks), .group = G_PROCESS,
	  .modes = M(USER), .what = "--follow-forks follows a process", ALLOC_G,
	  .help = "also trace the processes it forks, from the fork on (without it, a child is "
		  "not traced)"},
	{ NULL, "--unwind", required_argument, "MODE", .set = set_unwind, FIELD(unwind),
	  .group = G_PROCESS, .modes = M(USER) | M_WALKS,
	  .what = "--unwind walks a process's stacks",
	  .as_growth = "--unwind (it walks the stacks --mmap --stacks, --shm --stacks, --brk, "
		       "--faults and --usdt show)",
	  .help = "user stacks: by call-frame tables (.eh_frame) for objects built without "
		  "frame pointers (auto, the default), for every object (cfi), or by frame "
		  "pointers only (fp); the growth modes' stacks too, with -p or -c"},
	{ NULL, "--returns", required_argument, "HOW", .set = set_returns, FIELD(returns),
	  .group = G_PROCESS, .modes = M(USER), .what = "--returns probes a process's allocators",
	  .help = "an allocator's returns: by probes on its ret instructions, found by "
		  "disassembling it, where every way out of it is one (auto, the default), or "
		  "by return probes (uretprobe) for all; -v says which each got"},
	{ NULL, "--debuginfod", no_argument, FLAG(debuginfod), .group = G_PROCESS,
	  .modes = M(USER), .what = "--debuginfod finds a process's debug files", ALLOC_G,
	  .help = "let debug files missing on this host come from the debuginfod servers of "
		  "$DEBUGINFOD_URLS (not without)"},
	{ NULL, "--module", required_argument, "NAME", .set = set_module, FIELD(module),
	  .group = G_KERNEL, .modes = M(KERNEL_LEAKS),
	  .what = "--module selects stacks of --kernel-leaks, not --slab", FILTER_P, ALLOC_G,
	  .help = "only stacks through the code of kernel module NAME; when it is unloaded, "
		  "report what it left allocated"},
	{ "-a", "--show-allocs", no_argument, FLAG(show_allocs), .group = G_ALLOCS,
	  .modes = M(KERNEL_LEAKS) | M(USER),
	  .help = "show allocation addresses and sizes, with the allocating task and the "
		  "allocation's age, as well as call stacks"},
	{ "-C", "--combined-only", no_argument, FLAG(combined_only), .group = G_ALLOCS,
	  .modes = M(KERNEL_LEAKS) | M(USER),
	  .help = "show combined allocation statistics only: per stack totals, with total "
		  "allocations and frees; as memleak's, it counts every live allocation "
		  "whatever its age (-o does not apply)"},
	{ "-P", "--percpu", no_argument, FLAG(percpu), .group = G_KERNEL,
	  .modes = M(KERNEL_LEAKS), .help = "report percpu allocations only" },
	{ "-t", "--trace", no_argument, FLAG(trace), .group = G_ALLOCS,
	  .modes = M(KERNEL_LEAKS) | M(USER),
	  .help = "print a line for each allocation recorded and each free of one, as they "
		  "happen, besides the reports"},
	{ "-o", "--older", required_argument, "OLDER",
	  NUMBER(older_ms, "age in milliseconds (-o)", 0, MT_OLDER_MAX_MS), .group = G_ALLOCS,
	  .modes = M(KERNEL_LEAKS) | M(USER), ALLOC_G, .refused_if_given = true,
	  .help = "prune allocations younger than this age in milliseconds (default 500)"},
	{ NULL, "--cache", required_argument, "NAME", .set = set_cache, FIELD(nr_caches),
	  .group = G_KERNEL, .modes = M_KERNEL, FILTER_P, ALLOC_G,
	  .help_arg = MEMTRACE_MAX_CACHE_FILTERS,
	  .help = "capture only slab allocations from this cache, as named in /proc/slabinfo "
		  "(repeatable, up to %u)"},
	{ NULL, "--by-pid", required_argument, "PID",
	  NUMBER(by_pid, "PID (--by-pid)", 1, 0x7fffffff), .group = G_KERNEL, .modes = M_KERNEL,
	  FILTER_P, .as_growth = "--by-pid (use -p)",
	  .help = "kernel allocations made by this process (its threads, in task context) only"},
	{ NULL, "--by-comm", required_argument, "NAME", .set = set_by_comm, FIELD(by_comm),
	  .group = G_KERNEL, .modes = M_KERNEL | M_GROWTH, FILTER_P,
	  .help = "kernel allocations made by tasks of this name only"},
	{ NULL, "--by-cgroup", required_argument, "DIR", .set = set_by_cgroup, FIELD(by_cgroup),
	  .group = G_KERNEL, .modes = M_KERNEL | M_GROWTH, FILTER_P,
	  .help = "kernel allocations made by tasks in this cgroup v2 directory or below (e.g. "
		  "a container's memcg) only"},
	{ NULL, "--events", required_argument, "LIST", .set = set_events, FIELD(events),
	  .group = G_KERNEL, .modes = M_KERNEL, FILTER_P, ALLOC_G,
	  .help = "the kernel allocators to trace, comma-separated: kmalloc, cache, page, "
		  "percpu, vmalloc, or all (default: all; --slab: kmalloc,cache; -P: percpu)"},
	{ "-S", "--symbols-prefix", required_argument, "PREFIX", .set = set_symbols_prefix,
	  FIELD(symbols_prefix), .group = G_MEMLEAK, .modes = M(USER),
	  .what = "-S names a process's allocator symbols",
	  .help = "the allocator's symbols carry this prefix (\"je_\" for a jemalloc built "
		  "with one), in the -O objects and the executable; libc is probed by its own "
		  "names"},
	{ NULL, "--memleak-format", no_argument, FLAG(memleak_format), .group = G_MEMLEAK,
	  .modes = M(KERNEL_LEAKS) | M(USER),
	  .what = "--memleak-format applies to leak reports: memleak has no --slab",
	  .help = "print only what memleak prints: no trend or image tags, totals, footer, "
		  "source lines or inlined frames; unknown frames as [unknown]; -a as \"addr = "
		  "A size = S\""},
	{ "-s", "--sample-rate", required_argument, "SAMPLE_RATE",
	  NUMBER(sample_every, "sample rate (-s)", 1, UINT32_MAX), .group = G_ALLOCS,
	  .modes = M_LEAKS, FILTER_P, ALLOC_G,
	  .help = "sample every N-th allocation to decrease the overhead; counts become "
		  "estimates"},
	{ NULL, "--sample-bytes", required_argument, "N",
	  NUMBER(sample_bytes, "sample bytes (--sample-bytes)", 1, UINT32_MAX), .group = G_ALLOCS,
	  .modes = M_LEAKS, FILTER_P, ALLOC_G,
	  .help = "sample allocations about once per N bytes allocated (large allocations are "
		  "more likely to be sampled); counts become estimates"},
	{ "-z", "--min-size", required_argument, "MIN_SIZE",
	  NUMBER(min_size, "min size (-z)", 0, UINT64_MAX), .group = G_ALLOCS, .modes = M_LEAKS,
	  ALLOC_G, .help = "capture only allocations larger than or equal to this size" },
	{ "-Z", "--max-size", required_argument, "MAX_SIZE",
	  NUMBER(max_size, "max size (-Z)", 1, UINT64_MAX), .group = G_ALLOCS, .modes = M_LEAKS,
	  ALLOC_G, .help = "capture only allocations smaller than or equal to this size" },
	{ NULL, "--sort", required_argument, "size|count", .set = set_sort, FIELD(sort),
	  .group = G_ALLOCS, .modes = M_LEAKS,
	  .help = "order stacks (caches) by bytes (default) or by number of allocations "
		  "(objects)"},
	{ NULL, "--stack-depth", required_argument, "N",
	  NUMBER(stack_depth, "stack depth (--stack-depth)", 1, MEMTRACE_MAX_FRAMES),
	  .group = G_ALLOCS, .modes = M_LEAKS | M_GROWTH, .help_arg = MEMTRACE_MAX_FRAMES,
	  .help = "frames kept per stack, 1..%1$u (default %1$u); the growth modes' too"},
	{ "-T", "--top", required_argument, "TOP", NUMBER(top, "top (-T)", 1, MT_TOP_MAX),
	  .group = G_GENERAL, .modes = M_ALL,
	  .help = "display only this many top allocating stacks (or, with --slab, caches; the "
		  "pressure and growth modes: what each says) (default 10)"},
	{ NULL, "--folded", optional_argument, "FILE", .set = set_format, FIELD(folded),
	  .group = G_FORMATS, .modes = M_LEAKS | M(OOM) | M_FOLDS,
	  .as_pressure = "--folded (it has no stacks to fold; --json has every record)",
	  .as_growth = "--folded (it prints each call: no stacks counted to fold; --json has "
		       "every call)",
	  .help = "folded stacks for flame graphs (flamegraph.pl, inferno, speedscope): "
		  "\"frame;frame;frame VALUE\", root first, VALUE bytes (--sort size) or "
		  "allocations (--sort count); --slab: stacks under their cache's name.  "
		  "Without FILE: on stdout, instead of the text report; with FILE: the latest "
		  "report, rewritten atomically each interval, beside the text report; --brk, "
		  "--mmap --stacks, --faults: each stack under its process's name, VALUE its "
		  "bytes or faults; --ffaults: one frame per file; --oom: the kills by their "
		  "trigger's stack"},
	{ NULL, "--json", optional_argument, "FILE", .set = set_format, FIELD(json),
	  .group = G_FORMATS, .modes = M_ALL,
	  .help = "one JSON object per report (schema: docs/report-json.md); stdout or FILE as "
		  "--folded.  The pressure and growth modes and --use: a record per event or "
		  "interval report, then their totals; FILE receives them as they come"},
	{ NULL, "--pprof", required_argument, "FILE", .set = set_file, FIELD(pprof_file),
	  .group = G_FORMATS, .modes = M_LEAKS | M_FOLDS,
	  .as_growth = "--pprof (it prints each call: no stacks counted)",
	  .help = "a gzipped pprof profile of the latest report (go tool pprof, Pyroscope, "
		  "Parca): inuse_space/inuse_objects as reported, alloc_space/alloc_objects "
		  "since the start"},
	{ NULL, "--prometheus", required_argument, "FILE", .set = set_file,
	  FIELD(prometheus_file), .group = G_FORMATS, .modes = M_LEAKS | M_PRESSURE | M_FOLDS,
	  .as_growth = "--prometheus (it prints each call: no stacks counted)",
	  .help_arg = MT_PROM_STACKS,
	  .help = "node_exporter textfile metrics of the latest report, rewritten atomically "
		  "each interval: the top %u stacks' bytes and allocations, slab caches, "
		  "losses; the pressure modes and --use: their counters"},
	{ NULL, "--svg", required_argument, "FILE", .set = set_file, FIELD(svg_file),
	  .group = G_FORMATS, .modes = M_LEAKS | M_FOLDS,
	  .as_growth = "--svg (it prints each call: no stacks counted)",
	  .help = "the latest report as an interactive flame graph, one self-contained SVG "
		  "(click zooms, Search, tooltips)"},
	{ NULL, "--frame-addresses", no_argument, FLAG(frame_addresses), .group = G_MEMLEAK,
	  .modes = M_LEAKS,
	  .help = "print each frame's address first, \"0x%%016x\\t\", as BCC's memleak does"},
	{ "-F", "--wa-missing-free", no_argument, .set = set_action, .mode = MT_ACTION_RUN, .group = G_MEMLEAK,
	  .modes = M_ALL,
	  .help = "accepted and ignored: memleak's workaround for frees its probes miss (in "
		  "IRQ context); memtrace sees every free, in any context, and counts any it "
		  "cannot match"},
	{ "-v", "--verbose", no_argument, FLAG(verbose), .group = G_GENERAL, .modes = M_ALL,
	  .help = "say on stderr what is traced and what each report read"},
};

const size_t cli_nr_opts = MT_ARRAY_SIZE(cli_opts);
_Static_assert(MT_ARRAY_SIZE(cli_opts) <= CLI_MAX_OPTS, "cli_state.seen has a bit per option");

/*
 * Whole decimal numbers only: "5s", "0x10", " 5", "-1" and "" are all
 * rejected, so a typo never silently becomes a different value.
 */
static int parse_number(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!s || !isdigit((unsigned char)s[0]))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (*end != '\0')
		return -EINVAL;
	if (errno == ERANGE || v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int cli_number_arg(const char *what, const char *s, uint64_t min,
		      uint64_t max, uint64_t *out, struct mt_err *err)
{
	int ret = parse_number(s, min, max, out);

	if (ret == -EINVAL)
		return mt_errf(err, EINVAL,
			       "invalid %s '%s': expected a whole number from %llu to %llu",
			       what, s, (unsigned long long)min, (unsigned long long)max);
	if (ret == -ERANGE)
		return mt_errf(err, EINVAL, "%s '%s' out of range: expected %llu to %llu",
			       what, s, (unsigned long long)min, (unsigned long long)max);
	return 0;
}

SETTER(set_flag, arg)
{
	*(bool *)((char *)s->o + opt->off) = true;
	return 0;
}

/* The table's numbers are 32- or 64-bit fields (int ones hold at most INT_MAX). */
SETTER(cli_set_number, arg)
{
	char *field = (char *)s->o + opt->off;
	uint64_t v;
	uint32_t v32;
	int ret = cli_number_arg(opt->what, arg, opt->min, opt->max, &v, err);

	if (ret)
		return ret;
	if (opt->size == sizeof(v)) {
		memcpy(field, &v, sizeof(v));
	} else {
		v32 = (uint32_t)v;
		memcpy(field, &v32, sizeof(v32));
	}
	return 0;
}

bool cli_is_growth_mode(int mode)
{
	return (1u << mode) & (M_GROWTH & ~(M_MMAP_STACKS | M_SHM_STACKS));
}

/*
 * Which mode wins is decided when all are known (cli.c: choose_mode);
 * growth modes exclude each other at once.
 */
SETTER(cli_set_mode, arg)
{
	if (cli_is_growth_mode(opt->mode)) {
		if (s->growth && s->growth != opt->mode)
			return mt_errf(err, EINVAL, "--mmap, --brk, --shm, --faults, "
				       "--ffaults and --usdt are different modes: choose one");
		s->growth = opt->mode;
	}
	s->modes |= 1u << opt->mode;
	return 0;
}

SETTER(cli_set_usdt, arg)
{
	int ret = cli_set_mode(s, opt, arg, err);

	if (ret)
		return ret;
	if (s->o->usdt)
		return mt_errf(err, EINVAL, "--usdt takes one probe");
	s->o->usdt = arg;
	return 0;
}

/*
 * -h, --version (1: stop parsing, successfully: they ignore the rest, as
 * always) and -F (accepted and ignored: see its help).
 */
SETTER(set_action, arg)
{
	s->o->action = opt->mode;
	return opt->mode != MT_ACTION_RUN;
}

SETTER(set_command, arg)
{
	if (!arg[0])
		return mt_errf(err, EINVAL, "-c needs a command");
	if (s->o->command)
		return mt_errf(err, EINVAL, "-c given twice");
	s->o->command = arg;
	return 0;
}

SETTER(set_obj, arg)
{
	if (!arg[0])
		return mt_errf(err, EINVAL, "-O needs an object");
	if (s->o->nr_objs == MT_MAX_OBJS)
		return mt_errf(err, EINVAL, "at most %d -O objects", MT_MAX_OBJS);
	s->o->objs[s->o->nr_objs++] = (char *)arg;
	return 0;
}

SETTER(set_unwind, arg)
{
	if (!strcmp(arg, "auto"))
		s->o->unwind = MT_UNWIND_AUTO;
	else if (!strcmp(arg, "fp"))
		s->o->unwind = MT_UNWIND_FP;
	else if (!strcmp(arg, "cfi"))
		s->o->unwind = MT_UNWIND_CFI;
	else
		return mt_errf(err, EINVAL, "--unwind: '%s' is not auto, fp or cfi", arg);
	return 0;
}

SETTER(set_returns, arg)
{
	if (!strcmp(arg, "auto"))
		s->o->returns = MT_RETURNS_AUTO;
	else if (!strcmp(arg, "uretprobe"))
		s->o->returns = MT_RETURNS_URETPROBE;
	else
		return mt_errf(err, EINVAL, "--returns: '%s' is not auto or uretprobe", arg);
	return 0;
}

SETTER(set_sort, arg)
{
	if (!strcmp(arg, "size"))
		s->o->sort = MT_SORT_SIZE;
	else if (!strcmp(arg, "count"))
		s->o->sort = MT_SORT_COUNT;
	else
		return mt_errf(err, EINVAL, "invalid --sort '%s': expected size or count", arg);
	return 0;
}

SETTER(set_cache, arg)
{
	size_t len = strlen(arg);

	if (len == 0)
		return mt_errf(err, EINVAL, "--cache needs a cache name");
	if (len >= MEMTRACE_NAME_LEN)
		return mt_errf(err, EINVAL, "--cache '%s': cache names are at most %d characters",
			       arg, MEMTRACE_NAME_LEN - 1);
	if (s->o->nr_caches >= MEMTRACE_MAX_CACHE_FILTERS)
		return mt_errf(err, EINVAL, "too many --cache options: at most %d",
			       MEMTRACE_MAX_CACHE_FILTERS);
	memcpy(s->o->caches[s->o->nr_caches++], arg, len + 1);
	return 0;
}

SETTER(set_by_comm, arg)
{
	if (!arg[0] || strlen(arg) >= MEMTRACE_COMM_LEN)
		return mt_errf(err, EINVAL, "--by-comm '%s': a task name is 1 to %d "
			       "characters (as in /proc/PID/comm)", arg, MEMTRACE_COMM_LEN - 1);
	s->o->by_comm = arg;
	return 0;
}

SETTER(set_by_cgroup, arg)
{
	if (!arg[0])
		return mt_errf(err, EINVAL, "--by-cgroup needs a cgroup directory");
	s->o->by_cgroup = arg;
	return 0;
}

SETTER(set_module, arg)
{
	if (!arg[0] || strlen(arg) >= MT_MODULE_NAME_LEN)
		return mt_errf(err, EINVAL, "--module '%s': a module name is 1 to %d "
			       "characters", arg, MT_MODULE_NAME_LEN - 1);
	s->o->module = arg;
	return 0;
}

/* "kmalloc,cache,...": the MEMTRACE_EV_* bits named. */
SETTER(set_events, list)
{
	static const struct { const char *name; uint32_t bits; } names[] = {
		{ "kmalloc", MEMTRACE_EV_KMALLOC }, { "cache", MEMTRACE_EV_CACHE },
		{ "page", MEMTRACE_EV_PAGE }, { "percpu", MEMTRACE_EV_PERCPU },
		{ "vmalloc", MEMTRACE_EV_VMALLOC }, { "all", MEMTRACE_EV_ALL },
	};
	uint32_t *out = &s->o->events;
	const char *p = list;

	*out = 0;
	while (*p) {
		size_t len = strcspn(p, ","), i;

		for (i = 0; i < MT_ARRAY_SIZE(names); i++)
			if (strlen(names[i].name) == len && !strncmp(p, names[i].name, len))
				break;
		if (i == MT_ARRAY_SIZE(names))
			return mt_errf(err, EINVAL, "--events '%s': expected a comma-separated list of "
				       "kmalloc, cache, page, percpu, vmalloc, all", list);
		*out |= names[i].bits;
		p += len;
		if (*p == ',')
			p++;
	}
	if (!*out)
		return mt_errf(err, EINVAL, "--events needs at least one allocator");
	return 0;
}

/* --folded[=FILE], --json[=FILE]. */
SETTER(set_format, file)
{
	struct mt_options *o = s->o;
	bool folded = opt->off == offsetof(struct mt_options, folded);

	if (file && !file[0])
		return mt_errf(err, EINVAL, "%s=: needs a file name after '='", opt->longopt);
	if (folded) {
		o->folded = true;
		o->folded_file = file;
	} else {
		o->json = true;
		o->json_file = file;
	}
	if (o->folded && o->json && !o->folded_file && !o->json_file)
		return mt_errf(err, EINVAL, "--folded and --json cannot both go to stdout: "
			       "give one of them a file (--json=FILE)");
	return 0;
}

/* --pprof, --prometheus, --svg FILE. */
SETTER(set_file, arg)
{
	if (!arg[0])
		return mt_errf(err, EINVAL, "%s needs a file name", opt->longopt);
	memcpy((char *)s->o + opt->off, &arg, sizeof(arg));
	return 0;
}

SETTER(set_symbols_prefix, arg)
{
	if (!arg[0] || strlen(arg) > 32)
		return mt_errf(err, EINVAL, "-S '%s': a symbol prefix is 1 to 32 characters", arg);
	s->o->symbols_prefix = arg;
	return 0;
}

