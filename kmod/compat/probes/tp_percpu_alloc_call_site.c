// SPDX-License-Identifier: GPL-2.0
/*
 * percpu_alloc_percpu with the caller, the bytes charged and the gfp
 * (6.1); 5.10's has neither.
 */
#include <linux/percpu.h>
#include <trace/events/percpu.h>

static void memtrace_probe_fn(void *data, unsigned long call_site, bool reserved,
			      bool is_atomic, size_t size, size_t align, void *base_addr,
			      int off, void __percpu *ptr, size_t bytes_alloc, gfp_t gfp)
{
}

static int memtrace_probe(void)
{
	return register_trace_percpu_alloc_percpu(memtrace_probe_fn, NULL);
}

int (*memtrace_probe_ptr)(void) = memtrace_probe;
