/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The process memory growth modes: --mmap (mmapsnoop's job; --stacks:
 * bytes mapped by user stack), --brk (brkstack's), --shm (shmsnoop's),
 * --faults (faults': page faults by user stack) and --ffaults (ffaults':
 * by file),
 * fed by the module's per-CPU event rings (evreader.h), one record per
 * system call with the caller's user stack.  Formatting and aggregation
 * are apart from the session so the host tests can check them.
 */
#ifndef MEMTRACE_READ_GROWTH_H
#define MEMTRACE_READ_GROWTH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>
#include <linux/memtrace.h>

#include "cli.h"
#include "mode.h"

/* The rows (mode.h) of --mmap, --brk, --shm, --faults, --ffaults and --usdt: the session driver runs them. */
extern const struct mt_mode_row growth_mmap_row, growth_brk_row, growth_shm_row,
	growth_faults_row, growth_ffaults_row, growth_usdt_row;

/* The column headers of the line modes. */
const char *growth_header(enum mt_mode mode);

/*
 * One call as a line (no newline) of --mmap or --shm: mmapsnoop's
 * "PID COMM PROT MAP OFFS(KB) SIZE(KB) FILE" for mmap (munmap and mremap
 * in the same columns, PROT naming the call), shmsnoop's
 * "PID COMM SYS RET ARGs" for shm*.  Returns false for a record of
 * another type.
 */
bool growth_format_call(char *buf, size_t len, const struct memtrace_ev_syscall *r);

/*
 * --json's record of one call (evjson.h): type the call's name, its
 * arguments raw and decoded as the text line decodes them, its result.
 * NULL: out of memory.
 */
json_t *growth_call_json(const struct memtrace_ev_syscall *r, const char *mode, const char *hms);

/* mmap's PROT_* as "RWE" with '-' for each absent, and MAP_* as "SPFA". */
void growth_prot_str(uint64_t prot, char out[4]);
void growth_map_str(uint64_t flags, char out[5]);

/* shmget's and shmat's flag words as shmsnoop decodes them: "IPC_CREAT|0600". */
void growth_shmflg_str(uint64_t flags, bool shmget, char *buf, size_t len);

/*
 * Totals by (process, user stack): --brk's bytes grown and --mmap
 * --stacks' bytes mapped.
 */
struct growth_agg;

struct growth_entry {
	uint32_t pid;
	char comm[MEMTRACE_COMM_LEN + 1];
	uint32_t nr_frames;
	uint64_t frames[MEMTRACE_MAX_FRAMES];
	uint64_t calls;		/* calls, or page faults */
	uint64_t bytes;
	uint64_t major;		/* page faults: the major ones */
};

struct growth_agg *growth_agg_new(void);
void growth_agg_free(struct growth_agg *a);
/* Counts one call of r's process and stack, bytes more; -ENOMEM if full. */
int growth_agg_add(struct growth_agg *a, const struct memtrace_ev_syscall *r, uint64_t bytes);
/* Counts one --usdt hit of r's process and stack. */
int growth_agg_add_usdt(struct growth_agg *a, const struct memtrace_ev_usdt *r);
/* Counts one page fault of r's process and stack. */
int growth_agg_add_fault(struct growth_agg *a, const struct memtrace_ev_fault *r);
/* The entries, most bytes first (then most calls); *n of them, valid until the next add. */
const struct growth_entry *const *growth_agg_sorted(struct growth_agg *a, size_t *n);

/* --ffaults: page faults by the name of the file mapped. */
struct growth_file {
	char name[MEMTRACE_FILE_NAME_LEN + 1];
	uint64_t minor, major;
};

struct growth_files;

struct growth_files *growth_files_new(void);
void growth_files_free(struct growth_files *f);
/* Counts r under its file (anonymous memory apart); -ENOMEM if full. */
int growth_files_add(struct growth_files *f, const struct memtrace_ev_fault *r);
/* The files, most faults first; *n of them, *anon_minor and *anon_major the rest. */
const struct growth_file *const *growth_files_sorted(struct growth_files *f, size_t *n,
						     uint64_t *anon_minor, uint64_t *anon_major);

/* What a call grew: brk's bytes of new break, mmap's (mremap's growth) bytes mapped. */
uint64_t growth_bytes(const struct memtrace_ev_syscall *r);

#endif
