/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The process memory growth modes: --mmap (mmapsnoop's job; --stacks:
 * bytes mapped by user stack), --brk (brkstack's), --shm (shmsnoop's),
 * --faults (faults': page faults by user stack), --ffaults (ffaults':
 * by file) and --usdt (trace's, for USDT probes), fed by the module's
 * per-CPU event rings (evreader.h), one record per system call, fault or
 * probe hit with the caller's user stack.  A call in words is
 * growthcall.h's, the counts growthagg.h's.
 */
#ifndef MEMTRACE_READ_GROWTH_H
#define MEMTRACE_READ_GROWTH_H

#include "mode.h"

/* The rows (mode.h) of --mmap, --brk, --shm, --faults, --ffaults and --usdt: the session driver runs them. */
extern const struct mt_mode_row growth_mmap_row, growth_brk_row, growth_shm_row,
	growth_faults_row, growth_ffaults_row, growth_usdt_row;

#endif
