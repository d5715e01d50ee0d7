/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What memtrace-read's command line says: the mode and every option's
 * value, as cli_parse() (cli.c) records them and each mode reads them.
 * Only types and limits here, so that the option table (cli_opts.h) and
 * the modes can share them without depending on the parser.
 */
#ifndef MEMTRACE_READ_OPTIONS_H
#define MEMTRACE_READ_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <wordexp.h>

#include <linux/memtrace.h>

#include "util.h"
#include "version.h"

enum mt_mode {
	MT_MODE_KERNEL_LEAKS,	/* --kernel-leaks (the default, like memleak without -p) */
	MT_MODE_SLAB,		/* --slab */
	MT_MODE_USER,		/* -p / -c: one process's allocations, through uprobes */
	MT_MODE_OOM,		/* --oom: OOM kills, as oomkill(8) */
	MT_MODE_RECLAIM,	/* --reclaim: direct reclaim, as drsnoop(8) */
	MT_MODE_VMSCAN,		/* --vmscan: page reclaim's work per interval, as vmscan(8) */
	MT_MODE_COMPACTION,	/* --compaction: compaction runs, as compactsnoop(8) */
	MT_MODE_MIGRATION,	/* --migration: page migration per interval and reason */
	MT_MODE_MMAP,		/* --mmap: mmap/munmap/mremap calls, as mmapsnoop(8) */
	MT_MODE_BRK,		/* --brk: brk growth by user stack, as brkstack(8) */
	MT_MODE_SHM,		/* --shm: System V shared memory calls, as shmsnoop(8) */
	MT_MODE_FAULTS,		/* --faults: page faults by user stack, as faults(8) */
	MT_MODE_FFAULTS,	/* --ffaults: page faults by file, as ffaults(8) */
	MT_MODE_USE,		/* --use: utilization, saturation, errors of memory */
	MT_MODE_USDT,		/* --usdt: hits of a USDT probe, as trace(8) */
};

enum mt_sort {
	MT_SORT_SIZE,
	MT_SORT_COUNT,
};

enum mt_action {
	MT_ACTION_RUN,
	MT_ACTION_HELP,
	MT_ACTION_VERSION,
};

/* Limits of the option values, also quoted in the error messages. */
#define MT_INTERVAL_MAX_S	86400U		/* one day */
#define MT_COUNT_MAX		1000000000UL
#define MT_TOP_MAX		1000000U
#define MT_MAX_OBJS		8
#define MT_OLDER_MAX_MS		(UINT64_MAX / 1000000ULL)
#define MT_MODULE_NAME_LEN	56		/* MODULE_NAME_LEN on 64-bit */
#define MT_PROM_STACKS		20		/* --prometheus: stacks with series of their own */

/* --unwind: how user stacks are walked. */
enum {
	MT_UNWIND_AUTO,	/* unwind tables for objects whose code has no frame pointers */
	MT_UNWIND_FP,	/* frame pointers only */
	MT_UNWIND_CFI,	/* unwind tables for every object */
};

/* --returns: how an allocator's returns are seen. */
enum {
	MT_RETURNS_AUTO,	/* probes on its ret instructions where disassembly allows */
	MT_RETURNS_URETPROBE,	/* return probes (uretprobes) for every allocator */
};

struct mt_options {
	enum mt_action action;
	enum mt_mode mode;
	unsigned int interval_s;	/* seconds between reports */
	unsigned long count;		/* reports before exiting; 0: until a signal */
	int pid;			/* -p, user mode; 0 when not given */
	const char *command;		/* -c, user mode: as given */
	char **cmd_argv;		/* -c (split as a shell would) or -- CMD ARGS...; NULL-ended */
	bool cmd_words;			/* cmd_argv comes from wordexp(): cli_free() frees it */
	bool debuginfod;		/* --debuginfod: debug files from $DEBUGINFOD_URLS */
	unsigned int nr_objs;		/* -O, repeatable */
	char *objs[MT_MAX_OBJS];	/* into argv */
	bool trace;			/* -t */
	bool follow_forks;		/* --follow-forks, user mode */
	int unwind;			/* --unwind: MT_UNWIND_* (user mode) */
	int returns;			/* --returns: MT_RETURNS_* (user mode) */
	bool show_allocs;		/* -a */
	bool combined_only;		/* -C / --combined-only */
	bool percpu;			/* -P / --percpu */
	uint64_t older_ms;		/* -o */
	uint32_t sample_every;		/* -s; 0: every allocation */
	uint32_t sample_bytes;		/* --sample-bytes; 0: off */
	unsigned int top;		/* -T */
	uint64_t min_size;		/* -z */
	uint64_t max_size;		/* -Z; 0: no limit */
	unsigned int stack_depth;	/* --stack-depth; 0: module maximum */
	enum mt_sort sort;		/* --sort */
	unsigned int nr_caches;		/* --cache, repeatable */
	char caches[MEMTRACE_MAX_CACHE_FILTERS][MEMTRACE_NAME_LEN];
	int by_pid;			/* --by-pid: kernel allocations of one process; 0: any */
	const char *by_comm;		/* --by-comm; NULL: any */
	const char *by_cgroup;		/* --by-cgroup: a cgroup v2 directory; NULL: any */
	const char *module;		/* --module: stacks through this module's code */
	uint32_t events;		/* --events: MEMTRACE_EV_* to attach; 0: the mode's */
	bool stacks;			/* --stacks, --mmap: bytes mapped by user stack */
	/*
	 * --oom with -p, -c or --kernel-leaks: the leak session also prints
	 * each OOM kill, and with it the top stacks of what was traced.
	 */
	bool oom_kills;
	const char *usdt;		/* --usdt BINARY:PROVIDER:NAME, into argv */
	wordexp_t words;		/* -c split */

	/* Report formats and memleak compatibility (docs/memtrace-read.8). */
	bool folded;			/* --folded[=FILE] */
	const char *folded_file;	/* NULL: stdout, instead of the text report */
	bool json;			/* --json[=FILE] */
	const char *json_file;		/* NULL: stdout, instead of the text report */
	const char *pprof_file;		/* --pprof FILE */
	const char *prometheus_file;	/* --prometheus FILE */
	const char *svg_file;		/* --svg FILE */
	bool memleak_format;		/* --memleak-format: only what memleak prints */
	bool frame_addresses;		/* --frame-addresses: BCC's "0x%016x\t" before frames */
	bool verbose;			/* -v */
	const char *symbols_prefix;	/* -S: allocator symbols' prefix (-O objects, executable) */
};

/* The text report goes to stdout (not replaced by --folded or --json). */
static inline bool cli_text_report(const struct mt_options *o)
{
	return !(o->folded && !o->folded_file) && !(o->json && !o->json_file);
}

#endif
