/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The /dev/memtrace client: handshake, configuration, the mmap'd snapshot
 * buffer and its growth, start/stop.  Errors come back as -errno with a
 * message meant for the user; -ENODEV always means "the module went away".
 */
#ifndef MEMTRACE_READ_DEVICE_H
#define MEMTRACE_READ_DEVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/memtrace.h>

#include "util.h"

/* Overrides MEMTRACE_DEVICE, e.g. to test the "not loaded" path. */
#define DEVICE_PATH_ENV		"MEMTRACE_DEVICE"
#define DEVICE_INITIAL_BUFFER	(4ULL << 20)
#define DEVICE_MAX_BUFFER	(1ULL << 30)

struct mt_device {
	int fd;
	const char *path;
	void *map;
	size_t map_size;
	bool tracing;
	struct memtrace_version version;	/* as the module filled it */
};

/* Opens the device and does the MEMTRACE_IOC_VERSION handshake. */
int device_open(struct mt_device *d, const char *path, struct mt_err *err);
int device_configure(struct mt_device *d, const struct memtrace_config *cfg,
		     struct mt_err *err);
/* (Re)sizes and maps the snapshot buffer: size is rounded up to pages. */
int device_set_buffer(struct mt_device *d, uint64_t size, struct mt_err *err);
int device_start(struct mt_device *d, struct mt_err *err);
/* User mode: the process to trace, then each allocator function to probe. */
int device_set_target(struct mt_device *d, int pid, bool follow_forks, struct mt_err *err);
/*
 * Hands the module the unwind table of fd's object (rows may be NULL with
 * nr 0 when a table of the same build id was handed over before).  An
 * object bound already is no error.
 */
int device_add_unwind_table(struct mt_device *d, int fd, const struct memtrace_unwind_row *rows,
			    size_t nr, const uint8_t *build_id, uint32_t build_id_len,
			    struct mt_err *err);
int device_add_uprobe(struct mt_device *d, int fd, uint64_t offset, uint32_t func,
		      uint32_t kind,
		      struct mt_err *err);
int device_stop(struct mt_device *d, struct mt_err *err);
/*
 * Takes a snapshot, growing the buffer when the module says it is too
 * small, and returns a private copy of its used bytes in *copy (free()
 * it): parsing never reads memory the module can change or take away.
 */
int device_snapshot(struct mt_device *d, uint32_t flags, uint64_t min_age_ns,
		    void **copy, size_t *len, struct mt_err *err);
/*
 * Trace records (-t): up to max whole records without waiting; returns how
 * many (0: none now), or -errno with err set.
 */
long device_read_trace(struct mt_device *d, struct memtrace_trace_rec *recs, size_t max,
		       struct mt_err *err);

/*
 * Pressure events: the geometry of the session's per-CPU event rings and
 * a read-only mapping of them all (munmap(*map, info->mmap_size)).
 */
int device_evring_map(struct mt_device *d, struct memtrace_evring_info *info,
		      const void **map, struct mt_err *err);
/* The records of cpu's ring below pos are read: give their space back. */
int device_evring_consume(struct mt_device *d, uint32_t cpu, uint64_t pos,
			  struct mt_err *err);

/* What the event hooks lost outside the rings (MEMTRACE_IOC_EVSTATS). */
int device_evstats(struct mt_device *d, struct memtrace_evstats *st, struct mt_err *err);
/* Hands one USDT probe site over (MEMTRACE_IOC_USDT; u->fd open on its object). */
int device_usdt(struct mt_device *d, struct memtrace_usdt *u, struct mt_err *err);

/* Stops tracing if this reader started it, unmaps, closes. */
void device_close(struct mt_device *d);

/*
 * Why the module cannot trace events on this kernel when it is an option
 * the kernel is built without ("the kernel is built without
 * CONFIG_COMPACTION") or a hook the kernel has none of ("this kernel has
 * no hook for it: ..."), from the handshake's kconfig_off; NULL when not
 * (another cause, or a module older than the field).
 */
const char *device_kconfig_reason(const struct memtrace_version *v, uint32_t events);

/* "kmalloc cache page percpu" for MEMTRACE_EV_* bits. */
void device_events_str(uint32_t events, char *buf, size_t len);

/* --version: the reader's version and, if the device answers, the module's. */
int device_print_version(FILE *out);

#endif
