// SPDX-License-Identifier: GPL-2.0
/*
 * The memcg reclaim tracepoints: only in kernels built with CONFIG_MEMCG.
 * Without them --reclaim sees direct reclaim only.
 */
#include <linux/memcontrol.h>
#include <trace/events/vmscan.h>

static int memtrace_probe(void)
{
	return register_trace_mm_vmscan_memcg_reclaim_begin(NULL, NULL);
}

int (*memtrace_probe_ptr)(void) = memtrace_probe;
