/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the test programs share: TAP result lines, the calls on
 * /dev/memtrace they all make, and where a uprobe on a function goes.
 */
#ifndef MTT_H
#define MTT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/memtrace.h>

/* "not ok" lines printed so far. */
extern int mtt_failures;

/* Expect 'ret' to be -1 with errno 'want' (0: expect success). */
void mtt_expect(const char *what, int ret, int want);
/* ok if cond; else not ok, with the printf-style detail as a comment. */
void mtt_check(const char *what, bool cond, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* open(2) of MEMTRACE_DEVICE; a "not ok" and exit(1) if it fails. */
int mtt_open(void);
int mtt_handshake(int fd);
/* MEMTRACE_IOC_CONFIG of c, its size filled in. */
int mtt_config(int fd, struct memtrace_config *c);
int mtt_set_buffer(int fd, uint64_t size);
/* MEMTRACE_IOC_SNAPSHOT into r, which is zeroed first. */
int mtt_snapshot(int fd, struct memtrace_snapshot_req *r, uint32_t flags);

/*
 * The file mapping of this process that holds the code at addr, and the
 * offset of addr in that file: where a uprobe on it goes.  0, or -1 if no
 * executable file mapping holds it.
 */
int mtt_file_offset(uintptr_t addr, char *path, size_t len, uint64_t *off);

#endif
