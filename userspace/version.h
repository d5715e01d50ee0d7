/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MEMTRACE_READ_VERSION_H
#define MEMTRACE_READ_VERSION_H

/* The Makefile passes the real one; this keeps a lone compile working. */
#ifndef MEMTRACE_READ_VERSION
#define MEMTRACE_READ_VERSION "0.1.0"
#endif

#endif
