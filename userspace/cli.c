// SPDX-License-Identifier: GPL-2.0
/*
 * Option parsing for memtrace-read.  Option letters and meanings follow
 * memleak(8) (BCC and libbpf-tools) so that its users can switch tools
 * without relearning; options memleak does not have are long-only.
 */
#include "cli.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

enum {
	OPT_VERSION = 0x100,
	OPT_KERNEL_LEAKS,
	OPT_SLAB,
	OPT_SAMPLE_BYTES,
	OPT_SORT,
	OPT_CACHE,
	OPT_STACK_DEPTH,
	OPT_FOLLOW_FORKS,
	OPT_UNWIND,
	OPT_RETURNS,
	OPT_BY_PID,
	OPT_BY_COMM,
	OPT_BY_CGROUP,
	OPT_MODULE,
	OPT_EVENTS,
	OPT_DEBUGINFOD,
	OPT_OOM,
	OPT_RECLAIM,
	/* Report formats and memleak compatibility. */
	OPT_FOLDED,
	OPT_JSON,
	OPT_PPROF,
	OPT_PROMETHEUS,
	OPT_SVG,
	OPT_MEMLEAK_FORMAT,
	OPT_FRAME_ADDRESSES,
	OPT_WA_MISSING_FREE,
	OPT_VMSCAN,
	OPT_COMPACTION,
	OPT_MIGRATION,
	OPT_MMAP,
	OPT_BRK,
	OPT_SHM,
	OPT_FAULTS,
	OPT_FFAULTS,
	OPT_STACKS,
	OPT_USE,
	OPT_USDT,
};

/*
 * '-': options and positional arguments are taken in order, so "--" ends
 * them where it stands and what follows it is the command, untouched.
 */
static const char short_options[] = "-:hp:c:O:tao:CPs:T:z:Z:" "vS:F";

static const struct option long_options[] = {
	{ "help",		no_argument,		NULL, 'h' },
	{ "version",		no_argument,		NULL, OPT_VERSION },
	{ "kernel-leaks",	no_argument,		NULL, OPT_KERNEL_LEAKS },
	{ "slab",		no_argument,		NULL, OPT_SLAB },
	{ "oom",		no_argument,		NULL, OPT_OOM },
	{ "reclaim",		no_argument,		NULL, OPT_RECLAIM },
	{ "vmscan",		no_argument,		NULL, OPT_VMSCAN },
	{ "compaction",		no_argument,		NULL, OPT_COMPACTION },
	{ "migration",		no_argument,		NULL, OPT_MIGRATION },
	{ "mmap",		no_argument,		NULL, OPT_MMAP },
	{ "brk",		no_argument,		NULL, OPT_BRK },
	{ "shm",		no_argument,		NULL, OPT_SHM },
	{ "faults",		no_argument,		NULL, OPT_FAULTS },
	{ "ffaults",		no_argument,		NULL, OPT_FFAULTS },
	{ "stacks",		no_argument,		NULL, OPT_STACKS },
	{ "use",		no_argument,		NULL, OPT_USE },
	{ "usdt",		required_argument,	NULL, OPT_USDT },
	{ "pid",		required_argument,	NULL, 'p' },
	{ "command",		required_argument,	NULL, 'c' },
	{ "obj",		required_argument,	NULL, 'O' },
	{ "follow-forks",	no_argument,		NULL, OPT_FOLLOW_FORKS },
	{ "unwind",		required_argument,	NULL, OPT_UNWIND },
	{ "returns",		required_argument,	NULL, OPT_RETURNS },
	{ "debuginfod",		no_argument,		NULL, OPT_DEBUGINFOD },
	{ "trace",		no_argument,		NULL, 't' },
	{ "show-allocs",	no_argument,		NULL, 'a' },
	{ "older",		required_argument,	NULL, 'o' },
	{ "combined-only",	no_argument,		NULL, 'C' },
	{ "percpu",		no_argument,		NULL, 'P' },
	{ "sample-rate",	required_argument,	NULL, 's' },
	{ "sample-bytes",	required_argument,	NULL, OPT_SAMPLE_BYTES },
	{ "top",		required_argument,	NULL, 'T' },
	{ "min-size",		required_argument,	NULL, 'z' },
	{ "max-size",		required_argument,	NULL, 'Z' },
	{ "sort",		required_argument,	NULL, OPT_SORT },
	{ "cache",		required_argument,	NULL, OPT_CACHE },
	{ "stack-depth",	required_argument,	NULL, OPT_STACK_DEPTH },
	{ "by-pid",		required_argument,	NULL, OPT_BY_PID },
	{ "by-comm",		required_argument,	NULL, OPT_BY_COMM },
	{ "by-cgroup",		required_argument,	NULL, OPT_BY_CGROUP },
	{ "module",		required_argument,	NULL, OPT_MODULE },
	{ "events",		required_argument,	NULL, OPT_EVENTS },
	/* Report formats and memleak compatibility. */
	{ "folded",		optional_argument,	NULL, OPT_FOLDED },
	{ "json",		optional_argument,	NULL, OPT_JSON },
	{ "pprof",		required_argument,	NULL, OPT_PPROF },
	{ "prometheus",		required_argument,	NULL, OPT_PROMETHEUS },
	{ "svg",		required_argument,	NULL, OPT_SVG },
	{ "memleak-format",	no_argument,		NULL, OPT_MEMLEAK_FORMAT },
	{ "frame-addresses",	no_argument,		NULL, OPT_FRAME_ADDRESSES },
	{ "wa-missing-free",	no_argument,		NULL, 'F' },
	{ "symbols-prefix",	required_argument,	NULL, 'S' },
	{ "verbose",		no_argument,		NULL, 'v' },
	{ NULL, 0, NULL, 0 },
};

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

void cli_usage(FILE *out, const char *prog)
{
	fprintf(out,
"usage: %s [-h] [--version] [--kernel-leaks | --slab | --oom | --reclaim |\n"
"       --vmscan | --compaction | --migration |\n"
"       --mmap [--stacks] | --brk | --shm [--stacks] | --faults | --ffaults |\n"
"       --use | --usdt BINARY:PROVIDER:NAME]\n"
"       [-p PID | -c COMMAND]\n"
"       [-O OBJ]... [--follow-forks] [--unwind=auto|fp|cfi] [--debuginfod]\n"
"       [--returns=auto|uretprobe]\n"
"       [-t] [-a] [-o OLDER] [-C] [-P] [-s SAMPLE_RATE] [--sample-bytes N]\n"
"       [-T TOP] [-z MIN_SIZE] [-Z MAX_SIZE] [--sort size|count]\n"
"       [--cache NAME]... [--stack-depth N] [--by-pid PID] [--by-comm NAME]\n"
"       [--by-cgroup DIR] [--module NAME] [--events LIST]\n"
"       [--folded[=FILE]] [--json[=FILE]] [--pprof FILE] [--prometheus FILE]\n"
"       [--svg FILE] [--memleak-format] [--frame-addresses] [-S PREFIX] [-F] [-v]\n"
"       [interval] [count]\n"
"       [-- COMMAND [ARG]...]\n"
"\n"
"Trace outstanding memory allocations that weren't freed, in the kernel or in\n"
"one process, and explain memory growth, through the memtrace kernel module\n"
"(/dev/memtrace), without BPF.\n"
"\n"
"modes:\n"
"  --kernel-leaks        report stacks with outstanding kernel allocations,\n"
"                        like memleak(8) without -p (the default mode)\n"
"  --slab                per slab cache: live objects and bytes, their change\n"
"                        since the last interval, and the stacks behind growth\n"
"  --oom                 each OOM kill, as oomkill(8): trigger, victim, its\n"
"                        memory, the memcg and its limit, constraint, load and\n"
"                        the trigger's kernel stack; [count] intervals, or until\n"
"                        Ctrl+C.  With -p, -c or --kernel-leaks: the leak report\n"
"                        as usual, and at each kill the traced victim's (or the\n"
"                        kernel's) top -T live stacks\n"
"  --reclaim             each direct (and memcg) reclaim, as drsnoop(8): task,\n"
"                        latency, pages reclaimed; a latency histogram per\n"
"                        process at the end\n"
"  --vmscan              page reclaim's work each interval, as vmscan(8): kswapd\n"
"                        runs and time awake, direct and memcg reclaims and\n"
"                        their time, pages scanned and reclaimed (anon, file),\n"
"                        writeback from reclaim, the -T slowest slab shrinkers;\n"
"                        totals per reclaimer and LRU list at the end\n"
"  --compaction          each zone's compaction run, as compactsnoop(8): task,\n"
"                        node, zone, order, mode, latency, outcome, pages\n"
"                        scanned; at the end, runs per zone and order and the\n"
"                        -T tasks that stalled longest in direct compaction\n"
"  --migration           page migration each interval, per reason (compaction,\n"
"                        migrate_pages(2), mbind, NUMA balancing, ...): calls,\n"
"                        pages migrated and failed, THPs, time; totals per\n"
"                        reason and the -T tasks that migrated most at the end\n"
"  --mmap                each mmap, munmap and mremap call, as mmapsnoop(8):\n"
"                        PID COMM PROT MAP OFFS(KB) SIZE(KB) FILE; with\n"
"                        --stacks, bytes mapped by user stack instead\n"
"  --brk                 brk growth by user stack and process, as brkstack(8):\n"
"                        calls and bytes grown\n"
"  --shm                 each shmget, shmat, shmdt and shmctl call with its\n"
"                        arguments and return value, as shmsnoop(8); with\n"
"                        --stacks, each call's user stack under it\n"
"  --faults              page faults by user stack and process, as faults(8):\n"
"                        minor and major\n"
"  --ffaults             page faults by the file mapped, as ffaults(8)\n"
"  --usdt BINARY:PROVIDER:NAME\n"
"                        each hit of a USDT probe (<sys/sdt.h>) of BINARY with\n"
"                        its arguments, as trace(8); hits by user stack at the\n"
"                        end (semaphores are set while traced)\n"
"                        (these six: -p/-c one process, else system-wide;\n"
"                        --by-comm, --by-cgroup select callers; -T stacks)\n"
"  --use                 memory in the USE method's terms each interval:\n"
"                        utilization (/proc/meminfo, the -T largest memcgs\n"
"                        against memory.max), saturation (PSI, swapping,\n"
"                        reclaim and compaction stalls, the module's reclaims\n"
"                        and compactions with their time), errors (OOM kills,\n"
"                        failed compactions, page allocation failures)\n"
"\n"
"positional arguments:\n"
"  interval              interval in seconds to print reports (default 5,\n"
"                        at most %u)\n"
"  count                 number of times to print the report before exiting\n"
"                        (default: until Ctrl+C or SIGTERM)\n"
"\n"
"options:\n"
"  -h, --help            show this help message and exit\n"
"  --version             print the reader's version and, if loaded, the module's\n"
"  -p PID, --pid PID     the PID to trace: its malloc family, mmap and munmap,\n"
"                        through uprobes on its libc; when it exits, the\n"
"                        allocations in use at exit and a heap summary\n"
"  -c COMMAND, --command COMMAND\n"
"                        execute and trace the specified command from its\n"
"                        first instruction, following its execs (env, nice,\n"
"                        a script, then the program); split into words as a\n"
"                        shell would (quotes, $VAR), but run without one;\n"
"                        memtrace-read exits with its exit status\n"
"  -- COMMAND [ARG]...   the same, the command given word by word\n"
"  -O OBJ, --obj OBJ     also probe the allocator functions in this object: a\n"
"                        path, or the name of a library the process maps\n"
"                        (\"c\", \"jemalloc\"; repeatable, up to %d)\n"
"  --follow-forks        also trace the processes it forks, from the fork on\n"
"  --unwind=MODE         user stacks: by call-frame tables (.eh_frame) for objects\n"
"                        built without frame pointers (auto, the default), for\n"
"                        every object (cfi), or by frame pointers only (fp);\n"
"                        the growth modes' stacks too, with -p or -c\n"
"  --returns=HOW         an allocator's returns: by probes on its ret\n"
"                        instructions, found by disassembling it, where every\n"
"                        way out of it is one (auto, the default), or by return\n"
"                        probes (uretprobe) for all; -v says which each got\n"
"                        (without it, a child is not traced)\n"
"  --debuginfod          let debug files missing on this host come from the\n"
"                        debuginfod servers of $DEBUGINFOD_URLS (not without)\n"
"  -t, --trace           print a line for each allocation recorded and each free\n"
"                        of one, as they happen, besides the reports\n"
"  -a, --show-allocs     show allocation addresses and sizes, with the\n"
"                        allocating task and the allocation's age, as well as\n"
"                        call stacks\n"
"  -o OLDER, --older OLDER\n"
"                        prune allocations younger than this age in\n"
"                        milliseconds (default 500)\n"
"  -C, --combined-only   show combined allocation statistics only: per stack\n"
"                        totals, with total allocations and frees\n"
"  -P, --percpu          report percpu allocations only\n"
"  -s SAMPLE_RATE, --sample-rate SAMPLE_RATE\n"
"                        sample every N-th allocation to decrease the overhead;\n"
"                        counts become estimates\n"
"  --sample-bytes N      sample allocations about once per N bytes allocated\n"
"                        (large allocations are more likely to be sampled);\n"
"                        counts become estimates\n"
"  -T TOP, --top TOP     display only this many top allocating stacks (or,\n"
"                        with --slab, caches) (default 10)\n"
"  -z MIN_SIZE, --min-size MIN_SIZE\n"
"                        capture only allocations larger than or equal to this\n"
"                        size\n"
"  -Z MAX_SIZE, --max-size MAX_SIZE\n"
"                        capture only allocations smaller than or equal to this\n"
"                        size\n"
"  --sort size|count     order stacks (caches) by bytes (default) or by number\n"
"                        of allocations (objects)\n"
"  --cache NAME          capture only slab allocations from this cache, as named\n"
"                        in /proc/slabinfo (repeatable, up to %d)\n"
"  --stack-depth N       frames kept per stack, 1..%d (default %d)\n"
"  --by-pid PID          kernel allocations made by this process (its threads,\n"
"                        in task context) only\n"
"  --by-comm NAME        kernel allocations made by tasks of this name only\n"
"  --by-cgroup DIR       kernel allocations made by tasks in this cgroup v2\n"
"                        directory or below (e.g. a container's memcg) only\n"
"  --module NAME         only stacks through the code of kernel module NAME;\n"
"                        when it is unloaded, report what it left allocated\n"
"  --events LIST         the kernel allocators to trace, comma-separated:\n"
"                        kmalloc, cache, page, percpu, vmalloc, or all\n"
"                        (default: all; --slab: kmalloc,cache; -P: percpu)\n"
"\n"
"report formats (the same stacks and numbers as the text report, -T of them):\n"
"  --folded[=FILE]       folded stacks for flame graphs (flamegraph.pl, inferno,\n"
"                        speedscope): \"frame;frame;frame VALUE\", root first,\n"
"                        VALUE bytes (--sort size) or allocations (--sort\n"
"                        count); --slab: stacks under their cache's name.\n"
"                        Without FILE: on stdout, instead of the text report;\n"
"                        with FILE: the latest report, rewritten atomically\n"
"                        each interval, beside the text report; --brk,\n"
"                        --mmap --stacks, --faults: each stack under its\n"
"                        process's name, VALUE its bytes or faults; --ffaults:\n"
"                        one frame per file\n"
"  --json[=FILE]         one JSON object per report (schema:\n"
"                        docs/report-json.md); stdout or FILE as --folded.\n"
"                        The pressure and growth modes and --use: a record per\n"
"                        event or interval report, then their totals; FILE\n"
"                        receives them as they come\n"
"  --pprof FILE          a gzipped pprof profile of the latest report (go tool\n"
"                        pprof, Pyroscope, Parca): inuse_space/inuse_objects as\n"
"                        reported, alloc_space/alloc_objects since the start\n"
"  --prometheus FILE     node_exporter textfile metrics of the latest report,\n"
"                        rewritten atomically each interval: the top %d\n"
"                        stacks' bytes and allocations, slab caches, losses;\n"
"                        the pressure modes and --use: their counters\n"
"  --svg FILE            the latest report as an interactive flame graph, one\n"
"                        self-contained SVG (click zooms, Search, tooltips)\n"
"\n"
"memleak compatibility:\n"
"  --memleak-format      print only what memleak prints: no trend or image\n"
"                        tags, totals, footer, source lines or inlined frames;\n"
"                        unknown frames as [unknown]; -a as \"addr = A size = S\"\n"
"  --frame-addresses     print each frame's address first, \"0x%%016x\\t\", as\n"
"                        BCC's memleak does\n"
"  -S PREFIX, --symbols-prefix PREFIX\n"
"                        the allocator's symbols carry this prefix (\"je_\" for\n"
"                        a jemalloc built with one), in the -O objects and the\n"
"                        executable; libc is probed by its own names\n"
"  -F, --wa-missing-free accepted and ignored: memleak's workaround for frees\n"
"                        its probes miss (in IRQ context); memtrace sees every\n"
"                        free, in any context, and counts any it cannot match\n"
"  -v, --verbose         say on stderr what is traced and what each report\n"
"                        read\n"
"  -C, as memleak's, counts every live allocation whatever its age (-o does\n"
"  not apply)\n"
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
"%s\n"
"        Trace allocations in kernel mode and display a summary of outstanding\n"
"        allocations every 5 seconds\n"
"%s -a 10\n"
"        Also display the outstanding allocations' addresses, sizes, tasks and\n"
"        ages, every 10 seconds\n"
"%s -o 60000\n"
"        Display outstanding allocations that are at least one minute old\n"
"%s -s 5\n"
"        Trace roughly every 5th allocation, to reduce overhead\n"
"%s --slab --cache dentry 1 10\n"
"        Watch the dentry cache every second, ten times\n"
"%s -p 181\n"
"        Trace process 181's allocations; report every 5 seconds, and at its exit\n"
"%s -c \"./leaky --input 'my data'\"\n"
"        Run a command traced from its start; report its leaks when it exits\n"
"%s -- sqlite3 db \"select 1\"\n"
"        The same, the command given word by word, as to strace or valgrind\n",
		prog, MT_INTERVAL_MAX_S, MT_MAX_OBJS, MEMTRACE_MAX_CACHE_FILTERS,
		MEMTRACE_MAX_FRAMES, MEMTRACE_MAX_FRAMES, MT_PROM_STACKS,
		prog, prog, prog, prog, prog, prog, prog, prog);
}

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

/* "kmalloc,cache,...": the MEMTRACE_EV_* bits named. */
static int parse_events(const char *list, uint32_t *out, struct mt_err *err)
{
	static const struct { const char *name; uint32_t bits; } names[] = {
		{ "kmalloc", MEMTRACE_EV_KMALLOC }, { "cache", MEMTRACE_EV_CACHE },
		{ "page", MEMTRACE_EV_PAGE }, { "percpu", MEMTRACE_EV_PERCPU },
		{ "vmalloc", MEMTRACE_EV_VMALLOC }, { "all", MEMTRACE_EV_ALL },
	};
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

static int add_cache(struct mt_options *o, const char *name, struct mt_err *err)
{
	size_t len = strlen(name);

	if (len == 0)
		return mt_errf(err, EINVAL, "--cache needs a cache name");
	if (len >= MEMTRACE_NAME_LEN)
		return mt_errf(err, EINVAL, "--cache '%s': cache names are at most %d characters",
			       name, MEMTRACE_NAME_LEN - 1);
	if (o->nr_caches >= MEMTRACE_MAX_CACHE_FILTERS)
		return mt_errf(err, EINVAL, "too many --cache options: at most %d",
			       MEMTRACE_MAX_CACHE_FILTERS);
	memcpy(o->caches[o->nr_caches++], name, len + 1);
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

/*
 * --oom, --reclaim and --vmscan report events, not allocations: only
 * interval and count apply (and -T for --reclaim's histograms and
 * --vmscan's shrinkers).
 */
/*
 * Options of the allocation and user modes that the event modes would
 * silently ignore: refused by name, so nobody believes they applied.
 */
/* A growth mode whose user stacks are walked (by the tables too: growth.c). */
static bool growth_walks_stacks(const struct mt_options *o)
{
	return (cli_growth_folds(o) || (o->mode == MT_MODE_SHM && o->stacks)) &&
	       o->mode != MT_MODE_FFAULTS;
}

static const char *ignored_by_event_modes(const struct mt_options *o, bool pressure,
					  bool older_given)
{
	if (o->returns != MT_RETURNS_AUTO)
		return "--returns";
	/* The growth modes' stacks are walked by the tables too (growth.c). */
	if (o->unwind != MT_UNWIND_AUTO && (pressure || !growth_walks_stacks(o)))
		return pressure ? "--unwind" : "--unwind (it walks the stacks --mmap --stacks, "
		       "--shm --stacks, --brk, --faults and --usdt show)";
	if (o->symbols_prefix)
		return "-S";
	if (o->frame_addresses)
		return "--frame-addresses";
	if (o->sort != MT_SORT_SIZE)
		return "--sort";
	if (!pressure)
		return NULL;
	if (o->follow_forks || o->debuginfod)
		return o->follow_forks ? "--follow-forks" : "--debuginfod";
	if (o->min_size || o->max_size || older_given)
		return o->min_size ? "-z" : o->max_size ? "-Z" : "-o";
	if (o->stack_depth)
		return "--stack-depth";
	return NULL;
}

static int check_pressure(const struct mt_options *o, bool kernel_leaks, bool slab,
			  bool older_given, struct mt_err *err)
{
	const char *mode = o->mode == MT_MODE_OOM ? "--oom" :
			   o->mode == MT_MODE_VMSCAN ? "--vmscan" :
			   o->mode == MT_MODE_COMPACTION ? "--compaction" :
			   o->mode == MT_MODE_MIGRATION ? "--migration" :
			   o->mode == MT_MODE_USE ? "--use" : "--reclaim";
	const char *other = NULL;

	if (kernel_leaks || slab)
		other = kernel_leaks ? "--kernel-leaks" : "--slab";
	else if (o->pid || o->cmd_argv)
		other = o->pid ? "-p" : "-c";
	else if ((o->folded && o->mode != MT_MODE_OOM) || o->pprof_file || o->svg_file ||
		 o->memleak_format)
		/*
		 * --prometheus does apply: the pressure counters (evprom.h); and
		 * --oom's --folded: the kills by their trigger's stack.
		 */
		other = o->folded ? "--folded (it has no stacks to fold; --json has every record)" :
			o->pprof_file ? "--pprof" : o->svg_file ? "--svg" : "--memleak-format";
	else if (o->trace || o->show_allocs || o->combined_only || o->percpu)
		other = o->trace ? "-t" : o->show_allocs ? "-a" : o->combined_only ? "-C" : "-P";
	else if (o->nr_caches || o->by_pid || o->by_comm || o->by_cgroup || o->module ||
		 o->events || o->nr_objs || o->sample_every || o->sample_bytes)
		other = "an allocation filter";
	else
		other = ignored_by_event_modes(o, true, older_given);
	if (other)
		return mt_errf(err, EINVAL, "%s reports memory pressure events, not allocations: "
			       "it cannot be combined with %s", mode, other);
	return 0;
}

bool cli_growth_folds(const struct mt_options *o)
{
	return o->mode == MT_MODE_BRK || o->mode == MT_MODE_FAULTS || o->mode == MT_MODE_USDT ||
	       o->mode == MT_MODE_FFAULTS ||
	       ((o->mode == MT_MODE_MMAP || o->mode == MT_MODE_SHM) && o->stacks);
}

const char *cli_growth_option(enum mt_mode m)
{
	return m == MT_MODE_MMAP ? "--mmap" : m == MT_MODE_BRK ? "--brk" :
	       m == MT_MODE_SHM ? "--shm" : m == MT_MODE_FAULTS ? "--faults" :
	       m == MT_MODE_USDT ? "--usdt" : "--ffaults";
}

/*
 * --mmap, --brk, --shm, --faults and --ffaults report system calls and faults: -p/-c or --by-comm and
 * --by-cgroup choose the callers, -T the stacks shown, --stack-depth
 * their depth; allocation options mean nothing to them.
 */
static int check_growth(const struct mt_options *o, bool kernel_leaks, bool slab,
			bool older_given, struct mt_err *err)
{
	const char *mode = cli_growth_option(o->mode);
	const char *other = NULL;

	if (o->pid && o->cmd_argv)
		return mt_errf(err, EINVAL, "cannot specify both -p and a command (-c or --)");
	/* The tables are a process's (growth.c): system-wide, frame pointers only. */
	if (o->unwind != MT_UNWIND_AUTO && growth_walks_stacks(o) && !o->pid && !o->cmd_argv)
		return mt_errf(err, EINVAL, "--unwind walks a process's stacks: it needs -p or -c");
	if (o->stacks && o->mode != MT_MODE_MMAP && o->mode != MT_MODE_SHM)
		return mt_errf(err, EINVAL, "--stacks goes with --mmap or --shm (%s)",
			       o->mode == MT_MODE_FFAULTS ? "--ffaults counts by file" :
			       "--brk, --faults and --usdt always report stacks");
	if (kernel_leaks || slab)
		other = kernel_leaks ? "--kernel-leaks" : "--slab";
	else if (o->trace || o->show_allocs || o->combined_only || o->percpu)
		other = o->trace ? "-t" : o->show_allocs ? "-a" : o->combined_only ? "-C" : "-P";
	else if (o->nr_caches || o->module || o->events || o->nr_objs || o->sample_every ||
		 o->sample_bytes || o->min_size || o->max_size || older_given ||
		 o->follow_forks || o->debuginfod)
		other = "an allocation option";
	else if (o->by_pid)
		other = "--by-pid (use -p)";
	else if ((o->folded || o->pprof_file || o->prometheus_file || o->svg_file) &&
		 !cli_growth_folds(o))
		/* Those four render the counts by stack (file) the line modes do not keep. */
		other = o->folded ? "--folded (it prints each call: no stacks counted to fold; "
				    "--json has every call)" :
			o->pprof_file ? "--pprof (it prints each call: no stacks counted)" :
			o->prometheus_file ? "--prometheus (it prints each call: no stacks "
					     "counted)" :
			"--svg (it prints each call: no stacks counted)";
	else if (o->memleak_format)
		other = "--memleak-format";
	else
		other = ignored_by_event_modes(o, false, false);
	if (other)
		return mt_errf(err, EINVAL, "%s reports %s, not allocations: "
			       "it cannot be combined with %s", mode,
			       o->mode == MT_MODE_FAULTS || o->mode == MT_MODE_FFAULTS ?
			       "page faults" : o->mode == MT_MODE_USDT ? "probe hits" :
			       "system calls", other);
	return 0;
}

/* Combinations that cannot mean anything: refuse them rather than guess. */
static int check_combinations(const struct mt_options *o, bool kernel_leaks,
			      bool slab, bool older_given, struct mt_err *err)
{
	bool user = o->pid || o->cmd_argv;

	if (o->pid && o->cmd_argv)
		return mt_errf(err, EINVAL, "cannot specify both -p and a command (-c or --)");
	if (user && (kernel_leaks || slab))
		return mt_errf(err, EINVAL, "-p/-c trace a process; they cannot be combined with %s",
			       slab ? "--slab" : "--kernel-leaks");
	if (o->nr_objs && !user)
		return mt_errf(err, EINVAL, "-O names a process's allocator: it needs -p or -c");
	if (o->follow_forks && !user)
		return mt_errf(err, EINVAL, "--follow-forks follows a process: it needs -p or -c");
	if (o->unwind != MT_UNWIND_AUTO && !user)
		return mt_errf(err, EINVAL, "--unwind walks a process's stacks: it needs -p or -c");
	if (o->returns != MT_RETURNS_AUTO && !user)
		return mt_errf(err, EINVAL, "--returns probes a process's allocators: "
			       "it needs -p or -c");
	if (o->debuginfod && !user)
		return mt_errf(err, EINVAL, "--debuginfod finds a process's debug files: "
			       "it needs -p or -c");
	if (user && (o->percpu || o->nr_caches))
		return mt_errf(err, EINVAL, "%s applies to kernel allocations, not to -p/-c",
			       o->percpu ? "-P" : "--cache");
	if (o->module && slab)
		return mt_errf(err, EINVAL, "--module selects stacks of --kernel-leaks, not --slab");
	if (kernel_leaks && slab)
		return mt_errf(err, EINVAL, "--kernel-leaks and --slab are different modes: choose one");
	if (slab) {
		const char *leak_only = o->show_allocs ? "-a" : o->combined_only ? "-C" :
			o->percpu ? "-P" : o->trace ? "-t" : older_given ? "-o" : NULL;

		if (leak_only)
			return mt_errf(err, EINVAL, "option %s applies to --kernel-leaks, not --slab",
				       leak_only);
	}
	if (o->show_allocs && o->combined_only)
		return mt_errf(err, EINVAL,
			       "-a shows individual allocations and -C only combined statistics: choose one");
	if (o->sample_every && o->sample_bytes)
		return mt_errf(err, EINVAL, "-s and --sample-bytes are two ways of sampling: choose one");
	if (user &&
	    (o->by_pid || o->by_comm || o->by_cgroup || o->module || o->events))
		return mt_errf(err, EINVAL, "%s applies to kernel allocations, not to -p/-c",
			       o->by_pid ? "--by-pid" : o->by_comm ? "--by-comm" :
			       o->by_cgroup ? "--by-cgroup" : o->module ? "--module" : "--events");
	if (o->events && o->percpu)
		return mt_errf(err, EINVAL, "-P is --events percpu: choose one");
	if (o->max_size && o->min_size > o->max_size)
		return mt_errf(err, EINVAL, "min size (-z %llu) can't be greater than max size (-Z %llu)",
			       (unsigned long long)o->min_size, (unsigned long long)o->max_size);
	return 0;
}

/* --folded[=FILE], --json[=FILE]. */
static int format_arg(struct mt_options *o, bool folded, const char *file, struct mt_err *err)
{
	const char *name = folded ? "--folded" : "--json";

	if (file && !file[0])
		return mt_errf(err, EINVAL, "%s=: needs a file name after '='", name);
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

/* Formats render leak and --slab reports; S needs an object it names. */
static int check_formats(const struct mt_options *o, struct mt_err *err)
{
	bool user = o->pid || o->cmd_argv;

	if (o->symbols_prefix && !user)
		return mt_errf(err, EINVAL, "-S names a process's allocator symbols: "
			       "it needs -p or -c");
	if (o->memleak_format && o->mode == MT_MODE_SLAB)
		return mt_errf(err, EINVAL, "--memleak-format applies to leak reports: "
			       "memleak has no --slab");
	if (!cli_text_report(o) && (o->trace || o->show_allocs))
		return mt_errf(err, EINVAL, "%s prints text lines: not with --folded or --json "
			       "on stdout (give it a file: --json=FILE)",
			       o->trace ? "-t" : "-a");
	return 0;
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

int cli_parse(int argc, char **argv, struct mt_options *o, struct mt_err *err)
{
	bool kernel_leaks = false, slab = false, older_given = false, oom = false, reclaim = false;
	bool vmscan = false, compaction = false, migration = false, use = false;
	int growth = 0;
	unsigned int positional = 0;
	uint64_t v;
	char optbuf[8];
	int ret = 0, c;

	/* optind = 0 makes glibc reinitialize getopt, so parsing twice works. */
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, short_options, long_options, NULL)) != -1) {
		switch (c) {
		case 'h':
			o->action = MT_ACTION_HELP;
			return 0;
		case OPT_VERSION:
			o->action = MT_ACTION_VERSION;
			return 0;
		case OPT_KERNEL_LEAKS:
			kernel_leaks = true;
			break;
		case OPT_SLAB:
			slab = true;
			break;
		case OPT_OOM:
			oom = true;
			break;
		case OPT_RECLAIM:
			reclaim = true;
			break;
		case OPT_VMSCAN:
			vmscan = true;
			break;
		case OPT_COMPACTION:
			compaction = true;
			break;
		case OPT_MIGRATION:
			migration = true;
			break;
		case OPT_USE:
			use = true;
			break;
		case OPT_MMAP:
		case OPT_BRK:
		case OPT_SHM:
		case OPT_FAULTS:
		case OPT_FFAULTS:
		case OPT_USDT:
			if (growth && growth != c)
				return mt_errf(err, EINVAL, "--mmap, --brk, --shm, --faults, "
					       "--ffaults and --usdt are different modes: choose one");
			if (c == OPT_USDT && o->usdt)
				return mt_errf(err, EINVAL, "--usdt takes one probe");
			if (c == OPT_USDT)
				o->usdt = optarg;
			growth = c;
			break;
		case OPT_STACKS:
			o->stacks = true;
			break;
		case 'p':
			ret = number_arg("PID (-p)", optarg, 1, 0x7fffffff, &v, err);
			o->pid = (int)v;
			break;
		case 'c':
			if (!optarg[0])
				return mt_errf(err, EINVAL, "-c needs a command");
			if (o->command)
				return mt_errf(err, EINVAL, "-c given twice");
			o->command = optarg;
			break;
		case 1:
			ret = positional_arg(o, positional++, optarg, err);
			break;
		case 'O':
			if (!optarg[0])
				return mt_errf(err, EINVAL, "-O needs an object");
			if (o->nr_objs == MT_MAX_OBJS)
				return mt_errf(err, EINVAL, "at most %d -O objects", MT_MAX_OBJS);
			o->objs[o->nr_objs++] = optarg;
			break;
		case 't':
			o->trace = true;
			break;
		case OPT_FOLLOW_FORKS:
			o->follow_forks = true;
			break;
		case OPT_UNWIND:
			if (!strcmp(optarg, "auto"))
				o->unwind = MT_UNWIND_AUTO;
			else if (!strcmp(optarg, "fp"))
				o->unwind = MT_UNWIND_FP;
			else if (!strcmp(optarg, "cfi"))
				o->unwind = MT_UNWIND_CFI;
			else
				return mt_errf(err, EINVAL, "--unwind: '%s' is not auto, fp or cfi",
					       optarg);
			break;
		case OPT_RETURNS:
			if (!strcmp(optarg, "auto"))
				o->returns = MT_RETURNS_AUTO;
			else if (!strcmp(optarg, "uretprobe"))
				o->returns = MT_RETURNS_URETPROBE;
			else
				return mt_errf(err, EINVAL, "--returns: '%s' is not auto or uretprobe",
					       optarg);
			break;
		case OPT_DEBUGINFOD:
			o->debuginfod = true;
			break;
		case 'a':
			o->show_allocs = true;
			break;
		case 'o':
			ret = number_arg("age in milliseconds (-o)", optarg, 0, MT_OLDER_MAX_MS,
					 &o->older_ms, err);
			older_given = true;
			break;
		case 'C':
			o->combined_only = true;
			break;
		case 'P':
			o->percpu = true;
			break;
		case 's':
			ret = number_arg("sample rate (-s)", optarg, 1, UINT32_MAX, &v, err);
			o->sample_every = (uint32_t)v;
			break;
		case OPT_SAMPLE_BYTES:
			ret = number_arg("sample bytes (--sample-bytes)", optarg, 1, UINT32_MAX,
					 &v, err);
			o->sample_bytes = (uint32_t)v;
			break;
		case 'T':
			ret = number_arg("top (-T)", optarg, 1, MT_TOP_MAX, &v, err);
			o->top = (unsigned int)v;
			break;
		case 'z':
			ret = number_arg("min size (-z)", optarg, 0, UINT64_MAX, &o->min_size, err);
			break;
		case 'Z':
			ret = number_arg("max size (-Z)", optarg, 1, UINT64_MAX, &o->max_size, err);
			break;
		case OPT_SORT:
			if (!strcmp(optarg, "size"))
				o->sort = MT_SORT_SIZE;
			else if (!strcmp(optarg, "count"))
				o->sort = MT_SORT_COUNT;
			else
				return mt_errf(err, EINVAL, "invalid --sort '%s': expected size or count",
					       optarg);
			break;
		case OPT_CACHE:
			ret = add_cache(o, optarg, err);
			break;
		case OPT_STACK_DEPTH:
			ret = number_arg("stack depth (--stack-depth)", optarg, 1,
					 MEMTRACE_MAX_FRAMES, &v, err);
			o->stack_depth = (unsigned int)v;
			break;
		case OPT_BY_PID:
			ret = number_arg("PID (--by-pid)", optarg, 1, 0x7fffffff, &v, err);
			o->by_pid = (int)v;
			break;
		case OPT_BY_COMM:
			if (!optarg[0] || strlen(optarg) >= MEMTRACE_COMM_LEN)
				return mt_errf(err, EINVAL, "--by-comm '%s': a task name is 1 to %d "
					       "characters (as in /proc/PID/comm)", optarg,
					       MEMTRACE_COMM_LEN - 1);
			o->by_comm = optarg;
			break;
		case OPT_BY_CGROUP:
			if (!optarg[0])
				return mt_errf(err, EINVAL, "--by-cgroup needs a cgroup directory");
			o->by_cgroup = optarg;
			break;
		case OPT_EVENTS:
			ret = parse_events(optarg, &o->events, err);
			break;
		case OPT_MODULE:
			if (!optarg[0] || strlen(optarg) >= MT_MODULE_NAME_LEN)
				return mt_errf(err, EINVAL, "--module '%s': a module name is 1 to %d "
					       "characters", optarg, MT_MODULE_NAME_LEN - 1);
			o->module = optarg;
			break;
		case OPT_FOLDED:
		case OPT_JSON:
			ret = format_arg(o, c == OPT_FOLDED, optarg, err);
			break;
		case OPT_PPROF:
		case OPT_PROMETHEUS:
		case OPT_SVG:
			if (!optarg[0])
				return mt_errf(err, EINVAL, "%s needs a file name",
					       c == OPT_PPROF ? "--pprof" :
					       c == OPT_SVG ? "--svg" : "--prometheus");
			*(c == OPT_PPROF ? &o->pprof_file : c == OPT_SVG ? &o->svg_file :
			  &o->prometheus_file) = optarg;
			break;
		case OPT_MEMLEAK_FORMAT:
			o->memleak_format = true;
			break;
		case OPT_FRAME_ADDRESSES:
			o->frame_addresses = true;
			break;
		case 'F':
			break;	/* --wa-missing-free: see the help */
		case 'S':
			if (!optarg[0] || strlen(optarg) > 32)
				return mt_errf(err, EINVAL, "-S '%s': a symbol prefix is 1 to 32 "
					       "characters", optarg);
			o->symbols_prefix = optarg;
			break;
		case 'v':
			o->verbose = true;
			break;
		case ':':
			return mt_errf(err, EINVAL, "option %s needs a value",
				       bad_option_text(argv, argc, optbuf, sizeof(optbuf)));
		default:
			/* "-1" is how a negative interval or count reaches getopt. */
			if (optopt > 0 && optopt < 128 && isdigit(optopt))
				return mt_errf(err, EINVAL,
					       "invalid argument '-%c': interval and count must be positive whole numbers",
					       optopt);
			return mt_errf(err, EINVAL, "unknown option '%s'",
				       bad_option_text(argv, argc, optbuf, sizeof(optbuf)));
		}
		if (ret)
			return ret;
	}

	/* Options end at "--" (or the end): a command may follow. */
	if (optind > 1 && optind <= argc && !strcmp(argv[optind - 1], "--")) {
		if (o->command)
			return mt_errf(err, EINVAL, "a command with -c, or after --: not both");
		if (optind == argc)
			return mt_errf(err, EINVAL, "-- needs a command after it");
		o->cmd_argv = argv + optind;
	} else if (o->command) {
		ret = split_command(o, o->command, err);
		if (ret)
			return ret;
	}

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
			       cli_growth_option(growth == OPT_MMAP ? MT_MODE_MMAP :
			       growth == OPT_BRK ? MT_MODE_BRK : growth == OPT_SHM ? MT_MODE_SHM :
			       growth == OPT_FAULTS ? MT_MODE_FAULTS :
			       growth == OPT_USDT ? MT_MODE_USDT : MT_MODE_FFAULTS));
	if (growth) {
		o->mode = growth == OPT_MMAP ? MT_MODE_MMAP : growth == OPT_BRK ? MT_MODE_BRK :
			  growth == OPT_SHM ? MT_MODE_SHM : growth == OPT_FAULTS ? MT_MODE_FAULTS :
			  growth == OPT_USDT ? MT_MODE_USDT : MT_MODE_FFAULTS;
		return check_growth(o, kernel_leaks, slab, older_given, err);
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
		oom = false;
	}
	if (oom || reclaim || vmscan || compaction || migration || use) {
		o->mode = oom ? MT_MODE_OOM : reclaim ? MT_MODE_RECLAIM :
			  vmscan ? MT_MODE_VMSCAN : compaction ? MT_MODE_COMPACTION :
			  migration ? MT_MODE_MIGRATION : MT_MODE_USE;
		return check_pressure(o, kernel_leaks, slab, older_given, err);
	}
	ret = check_combinations(o, kernel_leaks, slab, older_given, err);
	if (ret)
		return ret;
	if (o->pid || o->cmd_argv)
		o->mode = MT_MODE_USER;
	else if (slab)
		o->mode = MT_MODE_SLAB;
	else
		o->mode = MT_MODE_KERNEL_LEAKS;
	return check_formats(o, err);
}
