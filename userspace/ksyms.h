/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel symbolization from /proc/kallsyms.
 *
 * Why not libdwfl: it can only symbolize the running kernel from vmlinux and
 * module debug files, which production machines rarely have; /proc/kallsyms
 * always describes exactly what is loaded now, modules included.
 */
#ifndef MEMTRACE_READ_KSYMS_H
#define MEMTRACE_READ_KSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rmframe.h"
#include "util.h"

#define KSYMS_DEFAULT_PATH "/proc/kallsyms"
/* Overrides the path, for tests against fixture files. */
#define KSYMS_PATH_ENV "MEMTRACE_KALLSYMS"

struct ksyms;

struct ksym {
	uint64_t addr;
	uint64_t size;		/* to the next symbol, its bound */
	const char *name;
	const char *module;	/* "kernel" for vmlinux */
};

struct mt_snapshot;

/* path NULL: $MEMTRACE_KALLSYMS, else /proc/kallsyms.  Loads nothing yet. */
struct ksyms *ksyms_new(const char *path);
void ksyms_free(struct ksyms *ks);

/* (Re)reads the file: call once per report so modules loaded since the
 * last one resolve.  On failure the previous table stays in use. */
int ksyms_reload(struct ksyms *ks, struct mt_err *err);

/*
 * Reload only if the loaded modules changed since the last load (read from
 * /proc/modules, which costs far less than /proc/kallsyms); always for a
 * file other than /proc/kallsyms.  Call once per report.
 */
int ksyms_refresh(struct ksyms *ks, struct mt_err *err);
/* How many times the table was (re)loaded. */
unsigned int ksyms_loads(const struct ksyms *ks);

/*
 * The function holding addr: the symbol at or before it, if that is a
 * function, addr is before the next symbol, and (for a module) inside the
 * module's memory.  False otherwise: then no name is the right one.
 */
bool ksyms_lookup(const struct ksyms *ks, uint64_t addr, struct ksym *out);

/*
 * A stack frame, i.e. a return address, into f: the function holding
 * ret - 1 and the offset of ret in it, and its module ("kernel" for
 * vmlinux); no file or line (kallsyms has none).  Where no function is
 * known, function is NULL and offset ret (module NULL: unknown).  Frames
 * in module code freed after a stack (stored at epoch) was made are named
 * from snap's freed functions (module "<module> init" where none covers
 * them: its init code).  A miss triggers one reload per loaded table, so
 * a module loaded after the last reload still resolves.  snap may be NULL
 * (a frame of no stored stack: a trace record's caller, an OOM kill's).
 *
 * f's strings are ks's and snap's: valid until the next call into ks,
 * which may load the table again.  rm_frame_text() prints the frame.
 */
void ksyms_frame(struct ksyms *ks, const struct mt_snapshot *snap, uint32_t epoch,
		 uint64_t ret, struct rm_frame *f);
/* Whether that frame is in the code of module (as it was for that stack). */
bool ksyms_frame_in_module(struct ksyms *ks, const struct mt_snapshot *snap,
			   uint32_t epoch, uint64_t ret, const char *module);

size_t ksyms_count(const struct ksyms *ks);
/* Every address in the file was 0: kptr_restrict hides them (or not root). */
bool ksyms_restricted(const struct ksyms *ks);
const char *ksyms_path(const struct ksyms *ks);

#endif
