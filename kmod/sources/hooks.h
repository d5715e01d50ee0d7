/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The allocation tracepoint probes: the events this kernel has
 * tracepoints for, and attaching them with the kprobe and kretprobe hooks
 * for the session (tracer.c).
 */
#ifndef MEMTRACE_HOOKS_H
#define MEMTRACE_HOOKS_H

#include <linux/types.h>

/* Finds the tracepoints: 0, or -ENOENT if none is there. */
int mt_tp_init(void);
/* MEMTRACE_EV_* the tracepoints found cover. */
u32 mt_tp_available(void);
/*
 * Attach the probes of events, tracepoints and kprobes: every free hook
 * before any allocation hook; detach in the reverse order.
 */
int mt_hooks_attach(u32 events);
void mt_hooks_detach(void);

#endif
