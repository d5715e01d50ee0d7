// SPDX-License-Identifier: GPL-2.0
/*
 * mm_migrate_pages_start, the start of a migrate_pages() run --migration
 * pairs with its end: not in 5.10 (the mode is refused there).
 */
#include <linux/migrate.h>
#include <trace/events/migrate.h>

static int memtrace_probe(void)
{
	return register_trace_mm_migrate_pages_start(NULL, NULL);
}

int (*memtrace_probe_ptr)(void) = memtrace_probe;
