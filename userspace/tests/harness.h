/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A minimal test harness: each check prints "ok - <desc>" or
 * "not ok - <desc>", diagnostics go on "# " lines, and the process exits
 * non-zero if anything failed.
 */
#ifndef MEMTRACE_READ_TEST_HARNESS_H
#define MEMTRACE_READ_TEST_HARNESS_H

#include <stdbool.h>
#include <stddef.h>

/* Directory of the fixture files (argv[1]). */
extern const char *fixture_dir;

/* Records and prints one test result; returns cond. */
bool check(bool cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The results so far, and results of checks made elsewhere (a child process). */
void check_counts(unsigned int *passed, unsigned int *failed);
void check_add(unsigned int passed, unsigned int failed);

/* fixture_dir + "/" + name, in a static buffer. */
const char *fixture_path(const char *name);
/* A file's contents, NUL-terminated (free()); NULL if unreadable. */
char *read_file(const char *path, size_t *len);
/* A fresh directory /tmp/memtrace-<tag>-XXXXXX in buf (len >= 64); false if not. */
bool make_tmpdir(char *buf, size_t len, const char *tag);
/* Runs a shell command, its output discarded; true if it exited 0. */
bool run_quiet(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Removes dir and everything in it (a make_tmpdir() directory). */
void remove_tree(const char *dir);

/*
 * The libc this test program runs with (dl_iterate_phdr: the loader's own
 * word, an oracle independent of /proc/PID/maps), symlinks resolved as
 * maps name it, in path.  0, or -ENOENT (no shared libc) / -ENAMETOOLONG.
 */
int self_libc(char *path, size_t len);

struct mt_options;
struct mt_err;
/*
 * cli_defaults() then cli_parse() of "memtrace-read" and argc - 1 more
 * words (char *), at most 7.
 */
int cli_parse_words(struct mt_options *o, struct mt_err *err, int argc, ...);

/* Compares text with a golden file; on mismatch prints both as diagnostics. */
bool same_as_golden(const char *text, const char *golden_name);

struct mt_options;
struct mt_err;

void cli_tests(void);
void ksyms_tests(void);
void snapshot_tests(void);
void report_tests(void);
void trend_tests(void);
void slabview_tests(void);
void usyms_tests(void);
void elfsyms_tests(void);
void linkmap_tests(void);
void growthhint_tests(void);
void procmaps_tests(void);
void procfs_tests(void);
void spawn_tests(void);
void pressure_tests(void);
void formats_tests(void);
void vmscan_tests(void);
void compaction_tests(void);
void migration_tests(void);
void unwtab_tests(void);
void growth_tests(void);
void evjson_tests(void);
void evprom_tests(void);
void use_tests(void);
void usdt_tests(void);
void retsites_tests(void);
void kbuildid_tests(void);
void device_tests(void);

#endif
