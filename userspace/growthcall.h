/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One system call of the growth modes in words: the line modes' columns
 * (--mmap as mmapsnoop prints it, --shm as shmsnoop does), --json's
 * record of it, and what it grew.  Apart from the session so that the
 * host tests check them.
 */
#ifndef MEMTRACE_READ_GROWTHCALL_H
#define MEMTRACE_READ_GROWTHCALL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>
#include <linux/memtrace.h>

/* The column headers of growth_format_call()'s lines: --mmap's, or --shm's. */
const char *growth_call_header(bool shm);

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

/* What a call grew: brk's bytes of new break, mmap's (mremap's growth) bytes mapped. */
uint64_t growth_bytes(const struct memtrace_ev_syscall *r);

#endif
