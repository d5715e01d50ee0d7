/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One frame of a stack, symbolized and split into its parts: what the
 * report model's stacks hold (rmodel.h), what the text report prints
 * (report_stack), and what the snapshot's memo of kernel frames keeps
 * (kfmemo.h).  The type alone; frames.h makes and frees them.
 */
#ifndef MEMTRACE_READ_RMFRAME_H
#define MEMTRACE_READ_RMFRAME_H

#include <stdbool.h>
#include <stdint.h>

struct rm_frame {
	uint64_t addr;		/* the return address recorded (user: in the process) */
	char *text;		/* as the text report prints it: "kfree+0x1a [kernel]" */
	char *function;		/* NULL: no function known */
	uint64_t offset;	/* of addr in function */
	char *module;		/* "kernel", "ext4", "libc.so.6"; NULL: unknown */
	char *file;		/* source file (basename); NULL without debug info */
	uint32_t line;
	bool inlined;		/* a call inlined at addr (the next frame has the same addr) */
	bool shared;		/* text, function, module, file: the snapshot's kfmemo's */
	/* User frames: the object mapped at addr (see usyms_mapping). */
	char *map_path;		/* NULL: none (kernel frames, or unknown) */
	char *build_id;		/* hex, "" if none */
	uint64_t map_start, map_limit, map_offset;
};

#endif
