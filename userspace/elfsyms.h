/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Finding the user allocator functions (MEMTRACE_UFN_*) in an ELF object,
 * as file offsets: uprobes are placed on (inode, file offset), so that is
 * what the module needs, independent of where the target mapped the file.
 */
#ifndef MEMTRACE_READ_ELFSYMS_H
#define MEMTRACE_READ_ELFSYMS_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

struct ufn_probe {
	uint32_t func;		/* MEMTRACE_UFN_* */
	uint64_t offset;	/* file offset of the function's first instruction */
	char symbol[64];	/* the symbol name it was found under */
};

/*
 * Looks up every allocator function (the MEMTRACE_UFN_*) defined in the ELF
 * file at path: in .symtab, else (per function) in .dynsym.  Only defined
 * GLOBAL/WEAK STT_FUNC symbols count (an IFUNC's address is its resolver,
 * wrong to probe, so IFUNCs are skipped); of several versions of a name the
 * default one wins; glibc's internal names ("__libc_malloc") are used only
 * when the public name is absent.  Functions at the same offset (aliases,
 * e.g. glibc's memalign and aligned_alloc) are returned once, under the
 * lowest MEMTRACE_UFN_*, since one probe already sees every call.
 *
 * Fills probes[] in MEMTRACE_UFN_* order, at most max; returns how many
 * (>= 0), or -errno with err set: the file cannot be opened (-errno of
 * open), is not an ELF executable or shared object (-ENOEXEC), or has no
 * symbol table at all (-ENOENT, "stripped").
 */
int elfsyms_find_allocators(const char *path, struct ufn_probe *probes, size_t max,
			    struct mt_err *err);

/* The name of a MEMTRACE_UFN_* ("malloc"), or NULL. */
const char *elfsyms_ufn_name(uint32_t func);

/*
 * Whether the ELF file at path defines name (any version) as a GLOBAL or
 * WEAK function, IFUNCs included: 1 or 0, or -errno as above.
 */
int elfsyms_defines(const char *path, const char *name, struct mt_err *err);

#endif
