// SPDX-License-Identifier: GPL-2.0
/*
 * migrate:mm_migrate_pages reports large folios split, not only THPs, in
 * newer kernels (6.12: a large_folio_split argument before mode; 6.1
 * has none).  Probe the prototype, not the version.
 */
#include <linux/migrate_mode.h>
#include <trace/events/migrate.h>

static void memtrace_probe_fn(void *data, unsigned long succeeded, unsigned long failed,
			      unsigned long thp_succeeded, unsigned long thp_failed,
			      unsigned long thp_split, unsigned long large_folio_split,
			      enum migrate_mode mode, int reason)
{
}

static int memtrace_probe(void)
{
	return register_trace_mm_migrate_pages(memtrace_probe_fn, NULL);
}

int (*memtrace_probe_ptr)(void) = memtrace_probe;
