/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tracing session's control (tracer.c): configure, start, stop,
 * clear, and who may.  One session at a time, module-wide; its state is
 * session.h's.  It belongs to the file that first configured, targeted or
 * started it, until that file is closed: only that file may reconfigure,
 * start, stop or clear it, take snapshots of it or read its trace
 * records.  Closing the file stops the session and drops what it recorded
 * from view, so a reader killed with SIGKILL leaves no hook behind, and
 * the next reader sees nothing of it.  Above the event sources: starting
 * a session attaches them, through their table (sources/sources.h).
 * Snapshots of the session: snapshot.c, declared here too.
 */
#ifndef MEMTRACE_TRACER_H
#define MEMTRACE_TRACER_H

#include "session/session.h"

/* Names of module code freed while tracing (modsyms.h): about 14K functions. */
#define MT_MODSYMS_BYTES	(1U << 20)

/* Largest trace ring a reader may ask for: 64 B each, 1 GiB. */
#define MT_TRACE_MAX_RECORDS	(1U << 24)

/* tracer.c: the session; all but init/exit with mt.lock held. */
int mt_tracer_init(void);
void mt_tracer_exit(void);
int mt_configure(const struct memtrace_config *cfg);
int mt_start(const void *owner);
int mt_stop(void);
int mt_clear(void);
/* Make file the session's owner: -EBUSY if another file owns it. */
int mt_claim(const void *file);
/* 0 if file may act on the session: -EPERM if another file owns it. */
int mt_check_owner(const void *file);
void mt_release_owner(const void *owner);
u32 mt_available_events(void);

/* snapshot.c */
int mt_snapshot(void *buf, size_t size, struct memtrace_snapshot_req *req,
		const struct mt_view *view);

#endif
