/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The growth modes' counts: by process and user stack (--brk, --mmap
 * --stacks, --shm --stacks, --faults, --usdt's hits) and by file
 * (--ffaults).  Apart from the session so that the host tests check them.
 */
#ifndef MEMTRACE_READ_GROWTHAGG_H
#define MEMTRACE_READ_GROWTHAGG_H

#include <stddef.h>
#include <stdint.h>

#include <linux/memtrace.h>

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
/*
 * Counts one call (or fault) of process pid (rcomm: its comm as the
 * module gives it, MEMTRACE_COMM_LEN bytes) and stack, bytes and major
 * faults more; -ENOMEM if full.
 */
int growth_agg_count(struct growth_agg *a, uint32_t pid, const char *rcomm,
		     const uint64_t *frames, uint32_t nr, uint64_t bytes, uint64_t major);
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

#endif
