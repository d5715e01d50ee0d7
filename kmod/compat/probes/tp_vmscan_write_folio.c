// SPDX-License-Identifier: GPL-2.0
/*
 * mm_vmscan_write_folio (folios, 6.1); 5.10 has mm_vmscan_writepage.
 */
#include <linux/mm.h>
#include <trace/events/vmscan.h>

static int memtrace_probe(void)
{
	return register_trace_mm_vmscan_write_folio(NULL, NULL);
}

int (*memtrace_probe_ptr)(void) = memtrace_probe;
