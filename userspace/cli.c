// SPDX-License-Identifier: GPL-2.0
/*
 * Option parsing for memtrace-read.  Option letters and meanings follow
 * memleak(8) (BCC and libbpf-tools) so that its users can switch tools
 * without relearning; options memleak does not have are long-only.
 *
 * Every option is declared once, in cli_opts[] below: its names, its
 * argument, the field it sets, its help text and section, and the modes
 * that accept it.  getopt's tables, the --help text and the check of
 * which mode accepts which option are all made from that table, so an
 * option cannot be added to one and forgotten in another (and the man
 * page is checked against it: tests/test_cli.c).
 */
#include "cli.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

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
#define M_PRESSURE	(M(OOM) | M(RECLAIM) | M(VMSCAN) | M(COMPACTION) | M(MIGRATION) | M(USE))
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
/* A setter's definition: each takes all four, whether it needs them or not. */
#define UNUSED __attribute__((unused))
#define SETTER(fn, arg) static int fn(UNUSED struct cli_state *s, UNUSED const struct cli_opt *opt, \
				      UNUSED const char *arg, UNUSED struct mt_err *err)

struct cli_opt {
	const char *shortopt;		/* "-t", or NULL: long only */
	const char *longopt;		/* "--trace" */
	int arg;			/* no_argument, required_argument, optional_argument */
	const char *metavar;		/* the argument in --help */
	enum cli_group group;
	uint32_t modes;			/* modes that accept it; M_ALL: any */
	cli_set_fn *set;
	size_t off, size;		/* the field of mt_options it sets */
	uint64_t min, max;		/* set_number: the range */
	/*
	 * set_number: how its errors name the value; a process's options
	 * (and --module, --memleak-format in --slab): why a mode refuses it.
	 */
	const char *what;
	/* How the pressure and growth modes name it when they refuse it. */
	const char *as_pressure, *as_growth;
	int mode;			/* set_mode: the mode it selects; set_action: the action */
	bool refused_if_given;		/* refused even when given its default (-o 500) */
	unsigned int help_arg;		/* the number help's %u stands for */
	const char *help;
};

#define FIELD(f)	.off = offsetof(struct mt_options, f), \
			.size = sizeof(((struct mt_options *)0)->f)
#define FLAG(f)		.set = set_flag, FIELD(f)
#define NUMBER(f, w, lo, hi)	.set = set_number, FIELD(f), .what = w, .min = lo, .max = hi
#define MODE(m)		.mode = MT_MODE_##m, .modes = M_ALL, .group = G_MODES
/* What the pressure modes and the growth modes call allocation options. */
#define FILTER_P	.as_pressure = "an allocation filter"
#define ALLOC_G		.as_growth = "an allocation option"

static cli_set_fn set_flag, set_number, set_mode, set_action, set_usdt,
	set_command, set_obj, set_unwind, set_returns, set_sort, set_cache, set_by_comm,
	set_by_cgroup, set_module, set_events, set_format, set_file, set_symbols_prefix;

/*
 * The table.  Its order is the order in which a mode names the options
 * it refuses when several are given (the first refused one is named).
 */
static const struct cli_opt cli_opts[] = {
	{ "-h", "--help", no_argument, .set = set_action, .mode = MT_ACTION_HELP, .group = G_GENERAL, .modes = M_ALL,
	  .help = "show this help message and exit"},
	{ NULL, "--version", no_argument, .set = set_action, .mode = MT_ACTION_VERSION, .group = G_GENERAL, .modes = M_ALL,
	  .help = "print the reader's version and, if loaded, the module's"},
	{ NULL, "--kernel-leaks", no_argument, MODE(KERNEL_LEAKS), .set = set_mode,
	  .help = "report stacks with outstanding kernel allocations, like memleak(8) without "
		  "-p (the default mode)"},
	{ NULL, "--slab", no_argument, MODE(SLAB), .set = set_mode,
	  .help = "per slab cache: live objects and bytes, their change since the last "
		  "interval, and the stacks behind growth"},
	{ NULL, "--oom", no_argument, MODE(OOM), .set = set_mode,
	  .help = "each OOM kill, as oomkill(8): trigger, victim, its memory, the memcg and "
		  "its limit, constraint, load and the trigger's kernel stack; [count] "
		  "intervals, or until Ctrl+C.  With -p, -c or --kernel-leaks: the leak report "
		  "as usual, and at each kill the traced victim's (or the kernel's) top -T "
		  "live stacks"},
	{ NULL, "--reclaim", no_argument, MODE(RECLAIM), .set = set_mode,
	  .help = "each direct (and memcg) reclaim, as drsnoop(8): task, latency, pages "
		  "reclaimed; a latency histogram per process at the end"},
	{ NULL, "--vmscan", no_argument, MODE(VMSCAN), .set = set_mode,
	  .help = "page reclaim's work each interval, as vmscan(8): kswapd runs and time "
		  "awake, direct and memcg reclaims and their time, pages scanned and "
		  "reclaimed (anon, file), writeback from reclaim, the -T slowest slab "
		  "shrinkers; totals per reclaimer and LRU list at the end"},
	{ NULL, "--compaction", no_argument, MODE(COMPACTION), .set = set_mode,
	  .help = "each zone's compaction run, as compactsnoop(8): task, node, zone, order, "
		  "mode, latency, outcome, pages scanned; at the end, runs per zone and order "
		  "and the -T tasks that stalled longest in direct compaction"},
	{ NULL, "--migration", no_argument, MODE(MIGRATION), .set = set_mode,
	  .help = "page migration each interval, per reason (compaction, migrate_pages(2), "
		  "mbind, NUMA balancing, ...): calls, pages migrated and failed, THPs, time; "
		  "totals per reason and the -T tasks that migrated most at the end"},
	{ NULL, "--use", no_argument, MODE(USE), .set = set_mode,
	  .help = "memory in the USE method's terms each interval: utilization (/proc/meminfo, "
		  "the -T largest memcgs against memory.max), saturation (PSI, swapping, "
		  "reclaim and compaction stalls, the module's reclaims and compactions with "
		  "their time), errors (OOM kills, failed compactions, page allocation "
		  "failures)"},
	{ NULL, "--mmap", no_argument, MODE(MMAP), .set = set_mode,
	  .help = "each mmap, munmap and mremap call, as mmapsnoop(8): PID COMM PROT MAP "
		  "OFFS(KB) SIZE(KB) FILE; with --stacks, bytes mapped by user stack instead"},
	{ NULL, "--brk", no_argument, MODE(BRK), .set = set_mode,
	  .help = "brk growth by user stack and process, as brkstack(8): calls and bytes grown"},
	{ NULL, "--shm", no_argument, MODE(SHM), .set = set_mode,
	  .help = "each shmget, shmat, shmdt and shmctl call with its arguments and return "
		  "value, as shmsnoop(8); with --stacks, each call's user stack under it"},
	{ NULL, "--faults", no_argument, MODE(FAULTS), .set = set_mode,
	  .help = "page faults by user stack and process, as faults(8): minor and major"},
	{ NULL, "--ffaults", no_argument, MODE(FFAULTS), .set = set_mode,
	  .help = "page faults by the file mapped, as ffaults(8)"},
	{ NULL, "--usdt", required_argument, "BINARY:PROVIDER:NAME", MODE(USDT), .set = set_usdt,
	  .help = "each hit of a USDT probe (<sys/sdt.h>) of BINARY with its arguments, as "
		  "trace(8); hits by user stack at the end (semaphores are set while traced).  "
		  "These six growth modes: -p/-c one process, else system-wide; --by-comm, "
		  "--by-cgroup select callers; -T stacks"},
	/* Its modes are checked with the mode: --mmap and --shm (cli_parse). */
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

#define NR_OPTS MT_ARRAY_SIZE(cli_opts)
_Static_assert(NR_OPTS <= 64, "cli_state.seen has a bit per option");

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

static int number_arg(const char *what, const char *s, uint64_t min,
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
		ret = number_arg("interval", arg, 1, MT_INTERVAL_MAX_S, &v, err);
		o->interval_s = (unsigned int)v;
		return ret;
	case 1:
		ret = number_arg("count", arg, 1, MT_COUNT_MAX, &v, err);
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

SETTER(set_flag, arg)
{
	*(bool *)((char *)s->o + opt->off) = true;
	return 0;
}

/* The table's numbers are 32- or 64-bit fields (int ones hold at most INT_MAX). */
SETTER(set_number, arg)
{
	char *field = (char *)s->o + opt->off;
	uint64_t v;
	uint32_t v32;
	int ret = number_arg(opt->what, arg, opt->min, opt->max, &v, err);

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

static bool is_growth_mode(int mode)
{
	return (1u << mode) & (M_GROWTH & ~(M_MMAP_STACKS | M_SHM_STACKS));
}

/* Which mode wins is decided when all are known (cli_parse); growth modes exclude each other. */
SETTER(set_mode, arg)
{
	if (is_growth_mode(opt->mode)) {
		if (s->growth && s->growth != opt->mode)
			return mt_errf(err, EINVAL, "--mmap, --brk, --shm, --faults, "
				       "--ffaults and --usdt are different modes: choose one");
		s->growth = opt->mode;
	}
	s->modes |= 1u << opt->mode;
	return 0;
}

SETTER(set_usdt, arg)
{
	int ret = set_mode(s, opt, arg, err);

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

static const char *opt_name(const struct cli_opt *opt)
{
	return opt->shortopt ? opt->shortopt : opt->longopt;
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
	if (c >= 0x100 && (size_t)(c - 0x100) < NR_OPTS)
		return &cli_opts[c - 0x100];
	for (size_t i = 0; i < NR_OPTS; i++)
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
	for (size_t i = 0; i < NR_OPTS; i++) {
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
	longs[NR_OPTS] = (struct option){ NULL, 0, NULL, 0 };
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
		snprintf(buf, len, "%s%s%s", opt_name(opt), sep, meta);
}

static void usage_synopsis(FILE *out, const char *prog)
{
	unsigned int col = (unsigned int)(strlen("usage: ") + strlen(prog));
	char buf[96];
	bool first = true;

	fprintf(out, "usage: %s", prog);
	/* The modes, one of them; then every other option. */
	for (size_t i = 0; i < NR_OPTS; i++) {
		const struct cli_opt *opt = &cli_opts[i];

		if (opt->set != set_mode && opt->set != set_usdt)
			continue;
		opt_synopsis(buf + 1, sizeof(buf) - 2, opt, false);
		buf[0] = first ? '[' : ' ';
		if (!first)
			put_word(out, "|", 1, &col, 7);
		if (opt->set == set_usdt)	/* the last one */
			strcat(buf, "]");
		put_word(out, buf + !first, strlen(buf + !first), &col, 7);
		first = false;
	}
	for (size_t i = 0; i < NR_OPTS; i++) {
		const struct cli_opt *opt = &cli_opts[i];

		if (opt->set == set_mode || opt->set == set_usdt)
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
		for (size_t i = 0; i < NR_OPTS; i++) {
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
		for (size_t i = 0; i < NR_OPTS; i++)
			if (!strcmp(opt_name(&cli_opts[i]), *order) && refuses(s, i, which))
				return &cli_opts[i];
	for (size_t i = 0; i < NR_OPTS; i++)
		if (refuses(s, i, which))
			return &cli_opts[i];
	return NULL;
}

const char *cli_option_name(size_t i, bool short_name)
{
	if (i >= NR_OPTS)
		return NULL;
	return short_name ? cli_opts[i].shortopt : cli_opts[i].longopt;
}

static const char *mode_option(int mode)
{
	for (size_t i = 0; i < NR_OPTS; i++)
		if ((cli_opts[i].set == set_mode || cli_opts[i].set == set_usdt) &&
		    cli_opts[i].mode == mode)
			return cli_opts[i].longopt;
	return NULL;
}

const char *cli_growth_option(enum mt_mode m)
{
	return is_growth_mode(m) ? mode_option(m) : "--ffaults";
}

bool cli_growth_folds(const struct mt_options *o)
{
	return is_growth_mode(o->mode) && (mode_bit(o) & M_FOLDS);
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
		other = opt->as_pressure ? opt->as_pressure : opt_name(opt);
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
		other = opt->as_growth ? opt->as_growth : opt_name(opt);
	if (other)
		return mt_errf(err, EINVAL, "%s reports %s, not allocations: "
			       "it cannot be combined with %s", mode_option(o->mode),
			       o->mode == MT_MODE_FAULTS || o->mode == MT_MODE_FFAULTS ?
			       "page faults" : o->mode == MT_MODE_USDT ? "probe hits" :
			       "system calls", other);
	return 0;
}

/* --module and --memleak-format say why --slab refuses them (a number's what names its value). */
static bool slab_reason(const struct cli_opt *opt)
{
	return (opt->modes & M(KERNEL_LEAKS)) && opt->what && opt->set != set_number;
}

/* Why a leak mode (--kernel-leaks, --slab, -p/-c) refuses an option. */
static int refuse_leak(const struct mt_options *o, const struct cli_opt *opt, struct mt_err *err)
{
	if (o->mode == MT_MODE_USER)
		return mt_errf(err, EINVAL, "%s applies to kernel allocations, not to -p/-c",
			       opt_name(opt));
	if (!(opt->modes & M(KERNEL_LEAKS)))	/* a process's option */
		return mt_errf(err, EINVAL, "%s: it needs -p or -c", opt->what);
	if (slab_reason(opt))
		return mt_errf(err, EINVAL, "%s", opt->what);
	return mt_errf(err, EINVAL, "option %s applies to --kernel-leaks, not --slab",
		       opt_name(opt));
}

/* The leak modes: options the mode refuses, and combinations that cannot mean anything. */
static int check_leaks(const struct cli_state *s, struct mt_err *err)
{
	const struct mt_options *o = s->o;
	bool kernel_leaks = given(s, MT_MODE_KERNEL_LEAKS), slab = given(s, MT_MODE_SLAB);
	const struct cli_opt *opt;

	if (o->pid && o->cmd_argv)
		return mt_errf(err, EINVAL, "cannot specify both -p and a command (-c or --)");
	if (o->mode == MT_MODE_USER && (kernel_leaks || slab))
		return mt_errf(err, EINVAL, "-p/-c trace a process; they cannot be combined with %s",
			       slab ? "--slab" : "--kernel-leaks");
	opt = refused(s, o->mode == MT_MODE_USER ? user_order : NULL, NOT_MEMLEAK);
	/* Both modes: a process's options and --module are named first, as always. */
	if (kernel_leaks && slab &&
	    (!opt || ((opt->modes & M(KERNEL_LEAKS)) && !slab_reason(opt))))
		return mt_errf(err, EINVAL, "--kernel-leaks and --slab are different modes: choose one");
	if (opt)
		return refuse_leak(o, opt, err);
	if (o->show_allocs && o->combined_only)
		return mt_errf(err, EINVAL,
			       "-a shows individual allocations and -C only combined statistics: choose one");
	if (o->sample_every && o->sample_bytes)
		return mt_errf(err, EINVAL, "-s and --sample-bytes are two ways of sampling: choose one");
	if (o->events && o->percpu)
		return mt_errf(err, EINVAL, "-P is --events percpu: choose one");
	if (o->max_size && o->min_size > o->max_size)
		return mt_errf(err, EINVAL, "min size (-z %llu) can't be greater than max size (-Z %llu)",
			       (unsigned long long)o->min_size, (unsigned long long)o->max_size);
	opt = refused(s, NULL, MEMLEAK);
	if (opt)
		return refuse_leak(o, opt, err);
	if (!cli_text_report(o) && (o->trace || o->show_allocs))
		return mt_errf(err, EINVAL, "%s prints text lines: not with --folded or --json "
			       "on stdout (give it a file: --json=FILE)",
			       o->trace ? "-t" : "-a");
	return 0;
}

/* The mode options given decide the mode, and with it the checks. */
static int choose_mode(struct cli_state *s, struct mt_err *err)
{
	struct mt_options *o = s->o;
	bool kernel_leaks = given(s, MT_MODE_KERNEL_LEAKS), oom = given(s, MT_MODE_OOM);
	bool reclaim = given(s, MT_MODE_RECLAIM), vmscan = given(s, MT_MODE_VMSCAN);
	bool compaction = given(s, MT_MODE_COMPACTION), migration = given(s, MT_MODE_MIGRATION);
	bool use = given(s, MT_MODE_USE);
	int growth = s->growth;

	if (use && (oom || reclaim || vmscan || compaction || migration || growth))
		return mt_errf(err, EINVAL, "--use and %s are different modes: choose one",
			       oom ? "--oom" : reclaim ? "--reclaim" : vmscan ? "--vmscan" :
			       compaction ? "--compaction" : migration ? "--migration" :
			       "a growth mode");
	if (oom + reclaim + vmscan + compaction + migration > 1)
		return mt_errf(err, EINVAL, "%s and %s are different modes: choose one",
			       oom ? "--oom" : reclaim ? "--reclaim" : vmscan ? "--vmscan" :
			       "--compaction",
			       migration ? "--migration" : compaction ? "--compaction" :
			       vmscan ? "--vmscan" : "--reclaim");
	if (growth && (oom || reclaim || vmscan || compaction || migration))
		return mt_errf(err, EINVAL, "%s and %s are different modes: choose one",
			       oom ? "--oom" : reclaim ? "--reclaim" : vmscan ? "--vmscan" :
			       compaction ? "--compaction" : "--migration",
			       cli_growth_option(growth));
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
	if (oom && !reclaim && !vmscan && !compaction && !migration && !use &&
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
		oom = false;
	}
	if (oom || reclaim || vmscan || compaction || migration || use) {
		o->mode = oom ? MT_MODE_OOM : reclaim ? MT_MODE_RECLAIM :
			  vmscan ? MT_MODE_VMSCAN : compaction ? MT_MODE_COMPACTION :
			  migration ? MT_MODE_MIGRATION : MT_MODE_USE;
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
	struct option longs[NR_OPTS + 1];
	char shorts[3 * NR_OPTS + 3];
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
