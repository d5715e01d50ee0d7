/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One frame of a stack, symbolized into its parts: what the symbolizers
 * fill (ksyms_frame(), usyms_frames()), what the report model's stacks
 * hold (rmodel.h), and what the snapshot's memo of kernel frames keeps
 * (kfmemo.h).  rm_frame_text() is the one place a frame becomes the text
 * the text report prints; every format reads the parts, none parses text.
 * Below everything that symbolizes or prints frames; calls only libc.
 */
#ifndef MEMTRACE_READ_RMFRAME_H
#define MEMTRACE_READ_RMFRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rm_frame {
	uint64_t addr;		/* the return address recorded (user: in the process) */
	/*
	 * rm_frame_text()'s text, made once where a frame is kept (frames.c,
	 * the memo: a report prints the same kernel frames millions of times);
	 * for a frame no symbolizer saw, its address.  NULL: not made.
	 */
	char *text;
	char *function;		/* NULL: no function known */
	/*
	 * Of addr in function.  With no function but a module: where addr is
	 * in the module, the ELF file's address for a user object (what
	 * addr2line -e takes), addr itself for the kernel's.
	 */
	uint64_t offset;
	/* "kernel", "ext4", "ext4 init" (its init code, freed since), "libc.so.6", "vdso"; NULL: unknown */
	char *module;
	char *file;		/* source file (basename); NULL without debug info */
	uint32_t line;
	bool inlined;		/* a call inlined at addr (the next frame has the same addr) */
	bool shared;		/* text, function, module, file: the snapshot's kfmemo's */
	/* User frames: the object mapped at addr (see usyms_mapping). */
	char *map_path;		/* NULL: none (kernel frames, or unknown) */
	char *build_id;		/* hex, "" if none */
	uint64_t map_start, map_limit, map_offset;
};

/*
 * The frame as the text report prints it, into buf (len bytes, cut to fit
 * as snprintf cuts); returns buf.  As memleak prints a frame, with the
 * source line where there is one:
 *
 *	"kmalloc_trace+0x1a [kernel]"
 *	"fibonacci+0x23 [leak] leak.c:12"
 *	"grow [leak] leak.c:5 (inlined)"	(a call inlined at the next frame's)
 *	"0x9a0f1 [libc.so.6]"			(no function: offset, in the object)
 *	"0x00007f3a5c0d1e2f [unknown]"		(no module: the address)
 */
char *rm_frame_text(const struct rm_frame *f, char *buf, size_t len);

#endif
