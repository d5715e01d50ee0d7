/* SPDX-License-Identifier: GPL-2.0 */
/* What memtrace_leaker.ko exports to the other test modules. */
#ifndef MEMTRACE_LEAKER_H
#define MEMTRACE_LEAKER_H

/*
 * Keep obj (kmalloc'd) until memtrace_leaker unloads: a module that
 * unloads leaves it behind, a leak of a module that is gone.
 */
void memtrace_leaker_adopt(void *obj);

#endif
