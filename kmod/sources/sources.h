/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The event sources, as one table (sources.c): a row per source, in the
 * order they attach, each with the events it serves, what it does at load
 * and unload, the events this kernel lets it serve, and its attach and
 * detach.  The session's control (control/tracer.c) initialises every
 * row at load, attaches the rows a session's events ask for when it
 * starts, and detaches them when it stops, through the table only; what
 * one source offers beyond that (user mode's target ready, an owner's
 * USDT probes released, counters for a snapshot or an ioctl) the control
 * and the device ask the source's own header for.
 *
 * Attaching walks the rows in order; a row that fails has attached
 * nothing, and the rows attached before it are detached in reverse, so a
 * failed start leaves no hook.  Detaching walks the rows in reverse.  The
 * order is the kernel allocations' rows (their free side, the kprobe
 * hooks, their allocation side: every free hook before any allocation
 * hook), user mode, pressure, growth, USDT.  User mode and the kernel
 * allocations' rows never attach together (a session traces the kernel's
 * allocators or one process's).  Only the rows together keep detach's
 * promise: the allocation side's detach does not wait for its hooks
 * (hooks.c), the free side's, detached after it, waits for both.
 *
 * Everything here runs under mt.lock, but init (at load).
 */
#ifndef MEMTRACE_SOURCES_H
#define MEMTRACE_SOURCES_H

#include <linux/types.h>

/*
 * At load, each row's init in order: what this kernel has.  A source this
 * kernel lacks is no error (its available() says so): an init fails only
 * where the module cannot load.  On a failure, the rows done are exited
 * in reverse (exit is safe right after init), and the module does not
 * load.
 */
int mt_sources_init(void);
/* At unload, no session running: each row's exit, in reverse order. */
void mt_sources_exit(void);
/* MEMTRACE_EV_* this kernel has hooks for: every row's, together. */
u32 mt_sources_available(void);
/* Attach the rows events asks for (MEMTRACE_EV_*): all of them, or none. */
int mt_sources_attach(u32 events);
/* Detach the rows events asked for; no hook of theirs runs after it returns. */
void mt_sources_detach(u32 events);

#endif
