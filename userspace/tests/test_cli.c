// SPDX-License-Identifier: GPL-2.0
/* Option parsing: defaults, memleak's options, and every rejected value. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_dump.h"
#include "harness.h"
#include "leaks.h"

#define ARGV(...) ((char *[]){ "memtrace-read", __VA_ARGS__, NULL })
#define ARGC(...) ((int)(sizeof((char *[]){ "memtrace-read", __VA_ARGS__ }) / sizeof(char *)))

static int parse(int argc, char **argv, struct mt_options *o, struct mt_err *err)
{
	cli_defaults(o);
	err->msg[0] = '\0';
	return cli_parse(argc, argv, o, err);
}

#define PARSE(o, e, ...) parse(ARGC(__VA_ARGS__), ARGV(__VA_ARGS__), o, e)

#define EXPECT_ERROR(substr, ...)						\
	do {									\
		struct mt_options o;						\
		struct mt_err e;						\
		int r = PARSE(&o, &e, __VA_ARGS__);				\
		if (!check(r != 0 && strstr(e.msg, substr),			\
			   "cli rejects " #__VA_ARGS__ " with \"%s\"", substr))	\
			diag("returned %d, message \"%s\"", r, e.msg);		\
	} while (0)

static void test_defaults(void)
{
	struct mt_options o;
	struct mt_err e;
	int r = parse(1, (char *[]){ "memtrace-read", NULL }, &o, &e);

	check(r == 0 && o.mode == MT_MODE_KERNEL_LEAKS && o.interval_s == 5 && o.count == 0 &&
	      o.older_ms == 500 && o.top == 10 && o.sort == MT_SORT_SIZE && !o.max_size &&
	      !o.sample_every && o.action == MT_ACTION_RUN,
	      "cli defaults match memleak (kernel mode, 5 s, -o 500, -T 10)");
}

static void test_full_kernel_leaks(void)
{
	struct mt_options o;
	struct mt_err e;
	int r = PARSE(&o, &e, "--kernel-leaks", "-a", "-o", "60000", "-T", "3", "-z", "16",
		      "-Z", "4096", "-s", "10", "--sort", "count", "--cache", "kmalloc-64",
		      "--cache", "dentry", "--stack-depth", "12", "2", "7");

	if (!check(r == 0 && o.mode == MT_MODE_KERNEL_LEAKS && o.show_allocs &&
		   o.older_ms == 60000 && o.top == 3 && o.min_size == 16 && o.max_size == 4096 &&
		   o.sample_every == 10 && o.sort == MT_SORT_COUNT && o.nr_caches == 2 &&
		   !strcmp(o.caches[0], "kmalloc-64") && !strcmp(o.caches[1], "dentry") &&
		   o.stack_depth == 12 && o.interval_s == 2 && o.count == 7,
		   "cli parses every kernel-leaks option and [interval [count]]"))
		diag("returned %d: %s", r, e.msg);
}

static void test_config(void)
{
	struct mt_options o;
	struct memtrace_config cfg;
	struct mt_err e;
	int r = PARSE(&o, &e, "--slab", "--sample-bytes", "4096", "-z", "8", "--cache", "dentry");

	leaks_build_config(&o, MEMTRACE_EV_KMALLOC | MEMTRACE_EV_CACHE, &cfg);
	check(r == 0 && o.mode == MT_MODE_SLAB && cfg.size == sizeof(cfg) &&
	      cfg.size >= MEMTRACE_CONFIG_SIZE_VER0 &&
	      cfg.events == (MEMTRACE_EV_KMALLOC | MEMTRACE_EV_CACHE) && cfg.min_size == 8 &&
	      cfg.max_size == 0 && cfg.sample_bytes == 4096 && cfg.sample_every == 0 &&
	      cfg.nr_caches == 1 && !strcmp(cfg.caches[0], "dentry") && cfg.stack_depth == 0,
	      "--slab options become the module configuration");
}

static void test_flags(void)
{
	struct mt_options o;
	struct mt_err e;
	int r = PARSE(&o, &e, "-C", "-P", "-t");

	check(r == 0 && o.combined_only && o.percpu && o.trace, "cli takes -C -P -t");
	r = PARSE(&o, &e, "--combined-only", "--show-allocs");
	check(r != 0, "cli rejects --show-allocs with --combined-only (long names)");
	r = PARSE(&o, &e, "--percpu", "--older", "0", "--top", "1", "--trace");
	check(r == 0 && o.percpu && o.older_ms == 0 && o.top == 1 && o.trace,
	      "cli takes memleak's long option names, -o 0");
}

static void test_user_mode(void)
{
	struct mt_options o;
	struct mt_err e;
	int r = PARSE(&o, &e, "-p", "1234");

	check(r == 0 && o.mode == MT_MODE_USER && o.pid == 1234, "-p PID selects user mode");
	r = PARSE(&o, &e, "-c", "./allocs");
	check(r == 0 && o.mode == MT_MODE_USER && !strcmp(o.command, "./allocs") &&
	      o.cmd_argv && !strcmp(o.cmd_argv[0], "./allocs") && !o.cmd_argv[1],
	      "-c COMMAND selects user mode");
	cli_free(&o);
}

/* -c splits as a shell would; -- takes the words as they are. */
static void test_command_words(void)
{
	struct mt_options o;
	struct mt_err e;
	int r;

	r = PARSE(&o, &e, "-c", "sqlite3 db \"select 1\" 'a  b' c\\ d", "-o", "0");
	check(r == 0 && o.cmd_argv && !strcmp(o.cmd_argv[0], "sqlite3") &&
	      !strcmp(o.cmd_argv[1], "db") && !strcmp(o.cmd_argv[2], "select 1") &&
	      !strcmp(o.cmd_argv[3], "a  b") && !strcmp(o.cmd_argv[4], "c d") &&
	      !o.cmd_argv[5] && o.older_ms == 0,
	      "-c 'sqlite3 db \"select 1\" ...' keeps quoted words whole");
	cli_free(&o);
	setenv("MT_TEST_WORD", "two words", 1);
	r = PARSE(&o, &e, "-c", "echo $MT_TEST_WORD \"$MT_TEST_WORD\"");
	check(r == 0 && !strcmp(o.cmd_argv[1], "two") && !strcmp(o.cmd_argv[2], "words") &&
	      !strcmp(o.cmd_argv[3], "two words") && !o.cmd_argv[4],
	      "-c expands $VAR and splits it unless quoted, as sh does");
	cli_free(&o);
	r = PARSE(&o, &e, "-O", "c", "2", "--", "sh", "-c", "exit 3", "-p", "5");
	check(r == 0 && o.mode == MT_MODE_USER && o.interval_s == 2 && o.nr_objs == 1 &&
	      !strcmp(o.cmd_argv[0], "sh") && !strcmp(o.cmd_argv[2], "exit 3") &&
	      !strcmp(o.cmd_argv[3], "-p") && !strcmp(o.cmd_argv[4], "5") && !o.cmd_argv[5] &&
	      !o.pid, "-- COMMAND ARGS: everything after -- is the command's, options too");
	cli_free(&o);
	r = PARSE(&o, &e, "--follow-forks", "--debuginfod", "--", "./a.out");
	check(r == 0 && o.follow_forks && o.debuginfod && !strcmp(o.cmd_argv[0], "./a.out"),
	      "--follow-forks and --debuginfod before -- COMMAND");
	cli_free(&o);
	r = PARSE(&o, &e, "-p", "5");
	check(r == 0 && o.unwind == MT_UNWIND_AUTO, "user stacks by unwind tables where needed "
	      "(--unwind=auto) unless asked otherwise");
	cli_free(&o);
	r = PARSE(&o, &e, "--unwind=cfi", "-p", "5");
	check(r == 0 && o.unwind == MT_UNWIND_CFI, "--unwind=cfi");
	cli_free(&o);
	r = PARSE(&o, &e, "--unwind", "fp", "-p", "5");
	check(r == 0 && o.unwind == MT_UNWIND_FP, "--unwind fp");
	cli_free(&o);
	r = PARSE(&o, &e, "--unwind=dwarf", "-p", "5");
	check(r < 0 && strstr(e.msg, "'dwarf' is not auto, fp or cfi"),
	      "--unwind of an unknown mode is refused, naming the modes (%s)", e.msg);
	cli_free(&o);
	r = PARSE(&o, &e, "--unwind=cfi", "--kernel-leaks");
	check(r < 0 && strstr(e.msg, "--unwind walks"),
	      "--unwind without a process is refused (%s)", e.msg);
	cli_free(&o);
	/* The growth modes that show stacks walk them by the tables too. */
	r = PARSE(&o, &e, "--brk", "--unwind=cfi", "-p", "5");
	check(r == 0 && o.mode == MT_MODE_BRK && o.unwind == MT_UNWIND_CFI, "--brk --unwind=cfi -p");
	cli_free(&o);
	r = PARSE(&o, &e, "--mmap", "--stacks", "--unwind=fp", "-p", "5");
	check(r == 0 && o.unwind == MT_UNWIND_FP, "--mmap --stacks --unwind=fp -p");
	cli_free(&o);
	r = PARSE(&o, &e, "--faults", "--unwind=cfi", "-c", "true");
	check(r == 0 && o.unwind == MT_UNWIND_CFI, "--faults --unwind=cfi -c");
	cli_free(&o);
	r = PARSE(&o, &e, "--shm", "--stacks", "--unwind=cfi", "-p", "5");
	check(r == 0 && o.unwind == MT_UNWIND_CFI, "--shm --stacks --unwind=cfi -p");
	cli_free(&o);
	r = PARSE(&o, &e, "--mmap", "--unwind=cfi", "-p", "5");
	check(r < 0 && strstr(e.msg, "--unwind"),
	      "--mmap without --stacks shows no stack: --unwind refused (%s)", e.msg);
	cli_free(&o);
	r = PARSE(&o, &e, "--ffaults", "--unwind=cfi", "-p", "5");
	check(r < 0 && strstr(e.msg, "--unwind"),
	      "--ffaults counts by file: --unwind refused (%s)", e.msg);
	cli_free(&o);
	r = PARSE(&o, &e, "--brk", "--unwind=cfi");
	check(r < 0 && strstr(e.msg, "--unwind walks"),
	      "--brk --unwind system-wide is refused: tables are a process's (%s)", e.msg);
	cli_free(&o);
	r = PARSE(&o, &e, "--ffaults", "--unwind=fp");
	check(r < 0 && strstr(e.msg, "cannot be combined with --unwind"),
	      "--ffaults --unwind system-wide: refused as a mode with no stacks, not for want "
	      "of -p (%s)", e.msg);
	cli_free(&o);
}

static void test_help_version(void)
{
	struct mt_options o;
	struct mt_err e;

	check(PARSE(&o, &e, "-h") == 0 && o.action == MT_ACTION_HELP,
	      "-h asks for help");
	check(PARSE(&o, &e, "--version") == 0 &&
	      o.action == MT_ACTION_VERSION, "--version asks for the version");

	char buf[16384];
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	cli_usage(f, "memtrace-read");
	fclose(f);
	check(strstr(buf, "usage: memtrace-read") && strstr(buf, "--combined-only") &&
	      strstr(buf, "--percpu") && strstr(buf, "--slab") && strstr(buf, "--sample-bytes") &&
	      strstr(buf, "--cache NAME") && strstr(buf, "interval") && strstr(buf, "count"),
	      "usage text lists the options");
}

/* Kernel mode's task filters, --module and --events, and their config. */
static void test_kernel_filters(void)
{
	struct mt_options o;
	struct memtrace_config cfg;
	struct mt_err e;
	int r = PARSE(&o, &e, "--by-pid", "42", "--by-comm", "kworker/0:1", "--by-cgroup",
		      "/sys/fs/cgroup/db", "--module", "ext4", "--events", "kmalloc,vmalloc");

	leaks_build_config(&o, o.events, &cfg);
	check(r == 0 && o.mode == MT_MODE_KERNEL_LEAKS && o.by_pid == 42 &&
	      !strcmp(o.by_comm, "kworker/0:1") && !strcmp(o.by_cgroup, "/sys/fs/cgroup/db") &&
	      !strcmp(o.module, "ext4") &&
	      o.events == (MEMTRACE_EV_KMALLOC | MEMTRACE_EV_VMALLOC) &&
	      cfg.tgid == 42 && !strcmp(cfg.comm, "kworker/0:1") &&
	      cfg.events == (MEMTRACE_EV_KMALLOC | MEMTRACE_EV_VMALLOC) &&
	      !(cfg.flags & MEMTRACE_CFG_CGROUP),
	      "cli takes --by-pid, --by-comm, --by-cgroup, --module, --events into the config");
	r = PARSE(&o, &e, "--events", "all");
	check(r == 0 && o.events == MEMTRACE_EV_ALL, "cli takes --events all");
}

static void test_formats(void)
{
	struct mt_options o;
	struct mt_err e;
	int r;

	r = PARSE(&o, &e, "--folded", "--json=/tmp/r.json", "--pprof", "/tmp/p.pb.gz",
		  "--prometheus", "/tmp/m.prom", "--memleak-format", "--frame-addresses", "-F", "-v");
	check(r == 0 && o.folded && !o.folded_file && o.json && !strcmp(o.json_file, "/tmp/r.json") &&
	      !strcmp(o.pprof_file, "/tmp/p.pb.gz") && !strcmp(o.prometheus_file, "/tmp/m.prom") &&
	      o.memleak_format && o.frame_addresses && o.verbose && !cli_text_report(&o),
	      "cli parses the report formats; --folded without a file replaces the text");
	/* The pressure modes' counters (evprom.h); --json beside them. */
	for (size_t i = 0; i < 6; i++) {
		static char *const modes[] = { "--oom", "--reclaim", "--vmscan",
					       "--compaction", "--migration", "--use" };

		r = PARSE(&o, &e, modes[i], "--prometheus", "/tmp/m.prom", "--json=/tmp/e.json");
		check(r == 0 && !strcmp(o.prometheus_file, "/tmp/m.prom") && cli_text_report(&o),
		      "cli: %s --prometheus FILE --json=FILE is taken, the text kept", modes[i]);
	}
	r = PARSE(&o, &e, "--folded=/tmp/f", "--slab");
	check(r == 0 && o.mode == MT_MODE_SLAB && cli_text_report(&o) &&
	      !strcmp(o.folded_file, "/tmp/f"), "cli: --slab --folded=FILE keeps the text report");
	r = PARSE(&o, &e, "-S", "je_", "-O", "jemalloc", "--wa-missing-free", "-c", "true");
	check(r == 0 && !strcmp(o.symbols_prefix, "je_") && o.mode == MT_MODE_USER,
	      "cli parses memleak's -S and --wa-missing-free");
	/* The pressure and growth modes write --json records; the stack ones fold. */
	r = PARSE(&o, &e, "--oom", "--json");
	check(r == 0 && o.mode == MT_MODE_OOM && o.json && !cli_text_report(&o),
	      "cli: --oom --json: records instead of the text");
	/* --oom in a leak session: the mode stays the leak mode's. */
	r = PARSE(&o, &e, "--oom", "-p", "123");
	check(r == 0 && o.mode == MT_MODE_USER && o.oom_kills && o.pid == 123,
	      "cli: --oom -p: user mode, with each kill and the victim's stacks");
	r = PARSE(&o, &e, "--kernel-leaks", "--oom", "5");
	check(r == 0 && o.mode == MT_MODE_KERNEL_LEAKS && o.oom_kills && o.interval_s == 5,
	      "cli: --kernel-leaks --oom: kernel leaks, with each kill and the top stacks");
	r = PARSE(&o, &e, "--oom");
	check(r == 0 && o.mode == MT_MODE_OOM && !o.oom_kills, "cli: --oom alone is oomkill's mode");
	r = PARSE(&o, &e, "--oom", "--folded=/tmp/oom.folded");
	check(r == 0 && o.mode == MT_MODE_OOM && o.folded && cli_text_report(&o),
	      "cli: --oom --folded=FILE folds the kills' trigger stacks, the text beside");
	r = PARSE(&o, &e, "--vmscan", "--json=/tmp/v.json", "1", "5");
	check(r == 0 && o.mode == MT_MODE_VMSCAN && cli_text_report(&o),
	      "cli: --vmscan --json=FILE keeps the text");
	r = PARSE(&o, &e, "--brk", "--folded", "--json=/tmp/b.json", "-c", "true");
	check(r == 0 && o.mode == MT_MODE_BRK && cli_growth_folds(&o) && !cli_text_report(&o),
	      "cli: --brk folds its stacks, --json=FILE beside");
	r = PARSE(&o, &e, "--mmap", "--stacks", "--folded=/tmp/m.folded");
	check(r == 0 && cli_growth_folds(&o), "cli: --mmap --stacks folds");
	r = PARSE(&o, &e, "--ffaults", "--folded");
	check(r == 0 && cli_growth_folds(&o), "cli: --ffaults folds by file");
	r = PARSE(&o, &e, "--faults", "--pprof", "/tmp/f.pb.gz", "--prometheus", "/tmp/f.prom",
		  "--svg", "/tmp/f.svg", "-c", "true");
	check(r == 0 && o.pprof_file && o.prometheus_file && o.svg_file && cli_text_report(&o),
	      "cli: --faults --pprof --prometheus --svg: files beside the text");
	r = PARSE(&o, &e, "--shm", "--stacks", "--folded=/tmp/s.folded", "--svg", "/tmp/s.svg");
	check(r == 0 && cli_growth_folds(&o), "cli: --shm --stacks folds its calls by stack");
	r = PARSE(&o, &e, "--usdt", "/bin/true:p:n", "--folded", "-c", "true");
	check(r == 0 && o.mode == MT_MODE_USDT && cli_growth_folds(&o) && !cli_text_report(&o),
	      "cli: --usdt --folded folds the hits' stacks in place of the text");
	r = PARSE(&o, &e, "--usdt", "/bin/true:p:n", "--json=/tmp/u.json", "-c", "true");
	check(r == 0 && o.mode == MT_MODE_USDT && o.json && cli_text_report(&o),
	      "cli: --usdt --json=FILE: records beside the text");
	r = PARSE(&o, &e, "--usdt", "/bin/true:p:n", "--json", "-c", "true");
	check(r == 0 && o.json && !cli_text_report(&o),
	      "cli: --usdt --json: records in place of the text");
}

static void test_corpus(void);
static void test_man_page(void);

void cli_tests(void)
{
	test_corpus();
	test_man_page();
	test_formats();
	EXPECT_ERROR("--folded and --json cannot both go to stdout", "--folded", "--json");
	EXPECT_ERROR("--json=: needs a file name", "--json=");
	EXPECT_ERROR("--pprof needs a file name", "--pprof", "");
	EXPECT_ERROR("option --prometheus needs a value", "--prometheus");
	EXPECT_ERROR("-S names a process's allocator symbols", "-S", "je_");
	EXPECT_ERROR("memleak has no --slab", "--slab", "--memleak-format");
	EXPECT_ERROR("-a prints text lines", "-a", "--json");
	EXPECT_ERROR("cannot be combined with --pprof", "--oom", "--pprof", "x");
	EXPECT_ERROR("--oom with -p prints its kills in the text report", "--oom", "-p", "1",
		     "--json");
	EXPECT_ERROR("--oom with -p prints its kills in the text report", "--oom", "-p", "1",
		     "--json=/tmp/x.json");
	EXPECT_ERROR("--oom with --follow-forks", "--oom", "-c", "true", "--follow-forks");
	EXPECT_ERROR("--oom reports memory pressure events", "--oom", "--slab");
	EXPECT_ERROR("--reclaim reports memory pressure events, not allocations: it cannot be "
		     "combined with --folded (it has no stacks to fold", "--reclaim", "--folded");
	EXPECT_ERROR("--mmap reports system calls, not allocations: it cannot be combined with "
		     "--folded (it prints each call", "--mmap", "--folded");
	EXPECT_ERROR("--shm reports system calls, not allocations: it cannot be combined with "
		     "--svg", "--shm", "--svg", "x");
	EXPECT_ERROR("--mmap reports system calls, not allocations: it cannot be combined with "
		     "--pprof (it prints each call", "--mmap", "--pprof", "x");
	EXPECT_ERROR("--shm reports system calls, not allocations: it cannot be combined with "
		     "--prometheus (it prints each call", "--shm", "--prometheus", "x");
	EXPECT_ERROR("--brk reports system calls, not allocations: it cannot be combined with "
		     "--memleak-format", "--brk", "--memleak-format");
	test_kernel_filters();
	EXPECT_ERROR("--by-comm 'averyveryverylongname'", "--by-comm", "averyveryverylongname");
	EXPECT_ERROR("--by-comm '': a task name is 1 to 15", "--by-comm", "");
	EXPECT_ERROR("invalid PID (--by-pid) 'x'", "--by-pid", "x");
	EXPECT_ERROR("--by-cgroup needs a cgroup directory", "--by-cgroup", "");
	EXPECT_ERROR("--module selects stacks of --kernel-leaks, not --slab", "--slab", "--module", "x");
	EXPECT_ERROR("--events 'slab'", "--events", "slab");
	EXPECT_ERROR("--events 'kmalloc,,x'", "--events", "kmalloc,,x");
	EXPECT_ERROR("--by-pid applies to kernel allocations, not to -p/-c", "-p", "1", "--by-pid", "2");
	EXPECT_ERROR("--events applies to kernel allocations", "-c", "true", "--events", "page");
	EXPECT_ERROR("-P is --events percpu", "-P", "--events", "page");
	test_defaults();
	test_full_kernel_leaks();
	test_config();
	test_flags();
	test_user_mode();
	test_command_words();
	test_help_version();

	EXPECT_ERROR("need a shell", "-c", "ls | wc");
	EXPECT_ERROR("command substitution needs a shell", "-c", "echo $(id)");
	EXPECT_ERROR("unbalanced quotes", "-c", "echo 'x");
	EXPECT_ERROR("-- needs a command", "5", "--");
	EXPECT_ERROR("not both", "-c", "true", "--", "true");
	EXPECT_ERROR("cannot specify both -p and a command", "-p", "3", "--", "true");
	EXPECT_ERROR("a command goes after --", "5", "6", "true");
	EXPECT_ERROR("--debuginfod finds a process's debug files", "--debuginfod");
	EXPECT_ERROR("interval '0' out of range", "0");
	EXPECT_ERROR("interval and count must be positive", "-5");
	EXPECT_ERROR("invalid interval 'abc'", "abc");
	EXPECT_ERROR("invalid interval '5s'", "5s");
	EXPECT_ERROR("interval '86401' out of range", "86401");
	EXPECT_ERROR("interval '99999999999999999999999' out of range", "99999999999999999999999");
	EXPECT_ERROR("count '0' out of range", "5", "0");
	EXPECT_ERROR("invalid count 'x'", "5", "x");
	EXPECT_ERROR("unexpected argument '3'", "1", "2", "3");
	EXPECT_ERROR("top (-T) '0' out of range", "-T", "0");
	EXPECT_ERROR("invalid top (-T) '-1'", "-T", "-1");
	EXPECT_ERROR("invalid sample rate (-s) ''", "-s", "");
	EXPECT_ERROR("sample rate (-s) '4294967296' out of range", "-s", "4294967296");
	EXPECT_ERROR("invalid age in milliseconds (-o) '1.5'", "-o", "1.5");
	EXPECT_ERROR("max size (-Z) '0' out of range", "-Z", "0");
	EXPECT_ERROR("min size (-z 10) can't be greater than max size (-Z 5)", "-z", "10", "-Z", "5");
	EXPECT_ERROR("invalid --sort 'bytes'", "--sort", "bytes");
	EXPECT_ERROR("option -T needs a value", "-T");
	EXPECT_ERROR("option --sort needs a value", "--sort");
	EXPECT_ERROR("unknown option '--bogus'", "--bogus");
	EXPECT_ERROR("unknown option '-x'", "-x");
	EXPECT_ERROR("stack depth (--stack-depth) '65' out of range", "--stack-depth", "65");
	EXPECT_ERROR("cache names are at most 31", "--cache", "a-cache-name-longer-than-31-chars");
	EXPECT_ERROR("too many --cache options", "--cache", "a", "--cache", "b", "--cache", "c",
		     "--cache", "d", "--cache", "e", "--cache", "f", "--cache", "g", "--cache", "h",
		     "--cache", "i");
	EXPECT_ERROR("choose one", "-s", "2", "--sample-bytes", "100");
	EXPECT_ERROR("choose one", "-a", "-C");
	EXPECT_ERROR("choose one", "--kernel-leaks", "--slab");
	EXPECT_ERROR("-a applies to --kernel-leaks", "--slab", "-a");
	EXPECT_ERROR("-o applies to --kernel-leaks", "--slab", "-o", "100");
	EXPECT_ERROR("cannot specify both -p and a command", "-p", "1", "-c", "ls");
	EXPECT_ERROR("cannot be combined with --slab", "--slab", "-p", "1");
	EXPECT_ERROR("invalid PID (-p) 'self'", "-p", "self");
}

/*
 * The corpus (fixtures/cli-corpus.txt): about 1,450 command lines, each
 * with what the parser made of it before the option table; every one
 * must still parse to the same fields, or fail with the same message.
 */
static void test_corpus(void)
{
	FILE *f = fopen(fixture_path("cli-corpus.txt"), "r");
	char line[4096], want[4096], got[4096];
	unsigned int cases = 0, differ = 0;

	if (!check(f != NULL, "cli corpus: %s opens", fixture_path("cli-corpus.txt")))
		return;
	while (fgets(line, sizeof(line), f)) {
		char *args[128] = { "memtrace-read" }, *p = line + 2;
		struct mt_options o;
		struct mt_err e;
		FILE *m;
		int n = 1, r;

		if (strncmp(line, "$ ", 2) || !fgets(want, sizeof(want), f) ||
		    strncmp(want, "> ", 2))
			continue;
		line[strcspn(line, "\n")] = '\0';
		for (char *tab; line[2] && n < 127; p = tab + 1) {	/* "" is an argument too */
			args[n++] = p;
			tab = strchr(p, '\t');
			if (!tab)
				break;
			*tab = '\0';
		}
		args[n] = NULL;
		r = parse(n, args, &o, &e);
		m = fmemopen(got, sizeof(got), "w");
		cli_dump(m, r, &o, &e);
		fclose(m);
		cli_free(&o);
		cases++;
		if (strcmp(got, want + 2) && differ++ < 5)
			diag("%s\n#   was: %s#   now: %s", line + 2, want + 2, got);
	}
	fclose(f);
	check(cases > 1000 && !differ, "cli: %u command lines of the corpus parse as before "
	      "(%u differ)", cases, differ);
}

/*
 * Options named in the man page's OPTIONS headers (the lines after .TP),
 * as "--name" and "-x", NUL-separated into names; returns the count.
 */
static unsigned int man_options(const char *man, char *names, size_t len)
{
	const char *sec = strstr(man, "\n.SH OPTIONS\n"), *end;
	unsigned int count = 0;
	char *out = names;

	end = sec ? strstr(sec + 1, "\n.SH ") : NULL;
	for (const char *p = sec; p && p < end && (p = strstr(p, "\n.TP\n")) && p < end; p += 4) {
		const char *h = p + 5, *eol = strchr(h, '\n');
		char word[64];
		size_t w = 0;

		/* "\-" is groff's minus; a name is letters, digits and '-', up to '='. */
		for (const char *c = h; c <= eol; c++) {
			if (c[0] == '\\' && c[1] == '-') {
				word[w < 63 ? w++ : w] = '-';
				c++;
				continue;
			}
			if (c < eol && w && w < 63 && (isalnum((unsigned char)*c) || *c == '-')) {
				word[w++] = *c;
				continue;
			}
			word[w] = '\0';
			if ((w > 2 && word[0] == '-' && word[1] == '-') ||
			    (w == 2 && word[0] == '-' && isalpha((unsigned char)word[1]))) {
				if ((size_t)(out - names) + w + 1 < len) {
					memcpy(out, word, w + 1);
					out += w + 1;
					count++;
				}
			}
			w = 0;
		}
	}
	return count;
}

static bool in_names(const char *names, unsigned int count, const char *name)
{
	for (unsigned int i = 0; i < count; i++, names += strlen(names) + 1)
		if (!strcmp(names, name))
			return true;
	return false;
}

/* The man page documents every option of the table, and no other. */
static void test_man_page(void)
{
	const char *path = fixture_path("../../../docs/memtrace-read.8");
	char *man = read_file(path, NULL), names[8192];
	unsigned int count, missing = 0, unknown = 0;
	const char *n = names;

	if (!check(man != NULL, "cli: the man page %s reads", path))
		return;
	count = man_options(man, names, sizeof(names));
	for (size_t i = 0; cli_option_name(i, false); i++)
		for (int s = 0; s < 2; s++) {
			const char *name = cli_option_name(i, s);

			if (name && !in_names(names, count, name) && ++missing)
				diag("%s is not in the man page's OPTIONS", name);
		}
	for (unsigned int i = 0; i < count; i++, n += strlen(n) + 1) {
		bool known = false;

		for (size_t j = 0; cli_option_name(j, false) && !known; j++)
			known = !strcmp(n, cli_option_name(j, false)) ||
				(cli_option_name(j, true) && !strcmp(n, cli_option_name(j, true)));
		if (!known && ++unknown)
			diag("the man page documents %s, which the option table (cli_opts.c) does not have", n);
	}
	check(count > 50 && !missing && !unknown, "cli: the man page's OPTIONS are the table's "
	      "(%u names; %u missing, %u unknown)", count, missing, unknown);
	free(man);
}
