// SPDX-License-Identifier: GPL-2.0
/*
 * -t trace lines; see tracefmt.h.
 */
#include "tracefmt.h"
#include "report.h"

#include <inttypes.h>
#include <string.h>

const char *tracefmt_kind(uint8_t kind)
{
	static const char *const names[] = {
		[MEMTRACE_KIND_KMALLOC] = "kmalloc",
		[MEMTRACE_KIND_CACHE] = "cache",
		[MEMTRACE_KIND_PAGE] = "page",
		[MEMTRACE_KIND_PERCPU] = "percpu",
		[MEMTRACE_KIND_SLAB_PAGE] = "slab-page",
		[MEMTRACE_KIND_USER] = "malloc",
		[MEMTRACE_KIND_USER_MMAP] = "mmap",
		[MEMTRACE_KIND_VMALLOC] = "vmalloc",
		[MEMTRACE_KIND_VMALLOC_PAGE] = "vmalloc-page",
		[MEMTRACE_KIND_PERCPU_PAGE] = "percpu-page",
		[MEMTRACE_KIND_KMALLOC_PAGE] = "kmalloc-page",
	};

	return kind < sizeof(names) / sizeof(names[0]) && names[kind] ? names[kind] : "?";
}

void tracefmt_line(FILE *out, const struct memtrace_trace_rec *r, struct ksyms *ks,
		   const struct images *images)
{
	bool user = r->kind == MEMTRACE_KIND_USER || r->kind == MEMTRACE_KIND_USER_MMAP;
	struct usyms *us = user && images ? images_usyms_of(images, r->cache_id, r->pid) : NULL;
	char comm[MEMTRACE_COMM_LEN + 1], frame[600] = "?";
	struct rm_frame f;

	memcpy(comm, r->comm, MEMTRACE_COMM_LEN);
	comm[MEMTRACE_COMM_LEN] = '\0';
	/* The caller's function, not what was inlined in it: one frame. */
	if (r->caller && user && us) {
		usyms_frames(us, r->caller, &f, 1);
		rm_frame_text(&f, frame, sizeof(frame));
	} else if (r->caller && !user && ks) {
		ksyms_frame(ks, NULL, 0, r->caller, &f);
		rm_frame_text(&f, frame, sizeof(frame));
	}
	fprintf(out, "[%" PRIu64 ".%06" PRIu64 "] %s kind=%s size=%" PRIu32 " addr=0x%" PRIx64
		" pid=%" PRIu32 " comm=%s from %s\n",
		(uint64_t)(r->ts_ns / 1000000000ULL), (uint64_t)(r->ts_ns % 1000000000ULL / 1000),
		r->type == MEMTRACE_TRACE_FREE ? "free " : "alloc",
		tracefmt_kind(r->kind), r->bytes_req, (uint64_t)report_addr(r->addr, r->kind),
		r->pid, comm, frame);
}
