// SPDX-License-Identifier: GPL-2.0
/*
 * ufnoffset FUNC...: where a uprobe on each function FUNC goes, as the
 * dynamic linker resolves FUNC for a program (libc's malloc, free, ...).
 * Prints one line per FUNC: "PATH 0xOFFSET", the file that defines it and
 * the offset of its entry in that file, e.g.
 *   /usr/lib/x86_64-linux-gnu/libc.so.6 0x9a0a0
 * (for tests/bench/user-pairs.sh: memtrace_bench's uprobe_arm takes them).
 *
 * ufnoffset --rets FUNC...: the offsets of each FUNC's ret instructions
 * instead ("PATH 0xOFF 0xOFF ..."), as memtrace-read finds them
 * (userspace/retsites.c, the same code), from the bytes the process maps
 * and the symbol's size the dynamic linker knows (dladdr1); exit status 1
 * if a function has none usable (the reason on stderr).
 *
 * ufnoffset --entry FUNC...: where memtrace-read puts each FUNC's entry
 * probe (retsites_entry(): on an instruction uprobes performs itself, if
 * only flag-setting ones precede it), "PATH 0xOFFSET" as above.
 *
 * The address dlsym() gives is turned into a file offset through the
 * mapping of /proc/self/maps that holds it: the offset a uprobe takes, and
 * the one memtrace-read and probecheck compute from the ELF file (.dynsym
 * value through its PT_LOAD), without parsing ELF here.
 */
#include <dlfcn.h>
#include <inttypes.h>
#include <link.h>
#include <string.h>
#include <stdint.h>
#include <stdio.h>

#include "mtt.h"
#include "retsites.h"

/* The size of the function at addr, as the dynamic linker's symbol says; 0 if unknown. */
static size_t function_size(const char *name, void *addr)
{
	const ElfW(Sym) *sym = NULL;
	Dl_info info;

	if (!dladdr1(addr, &info, (void **)&sym, RTLD_DL_SYMENT) || !sym || !sym->st_size) {
		fprintf(stderr, "ufnoffset: %s: no symbol size\n", name);
		return 0;
	}
	return sym->st_size;
}

/* Prints the file offsets of the ret instructions of the function at addr (at file offset off). */
static int print_rets(const char *name, void *addr, uint64_t off)
{
	size_t size = function_size(name, addr);
	struct retsites rs;

	if (!size)
		return 1;
	if (!retsites_find(addr, size, &rs)) {
		fprintf(stderr, "ufnoffset: %s: no return sites: %s\n", name, rs.why);
		return 1;
	}
	for (size_t i = 0; i < rs.nr; i++)
		printf(" 0x%" PRIx64, off + rs.at[i]);
	return 0;
}

int main(int argc, char **argv)
{
	char path[4096];
	uint64_t off;

	int rets = argc > 1 && !strcmp(argv[1], "--rets");
	int entry = argc > 1 && !strcmp(argv[1], "--entry");
	int opt = rets || entry;

	if (argc < 2 + opt) {
		fprintf(stderr, "usage: ufnoffset [--rets | --entry] FUNC...\n");
		return 2;
	}
	for (int i = 1 + opt; i < argc; i++) {
		void *addr = dlsym(RTLD_DEFAULT, argv[i]);

		if (!addr) {
			fprintf(stderr, "ufnoffset: %s: not found\n", argv[i]);
			return 1;
		}
		if (mtt_file_offset((uintptr_t)addr, path, sizeof(path), &off)) {
			fprintf(stderr, "ufnoffset: %s at %p: in no executable file mapping\n",
				argv[i], addr);
			return 1;
		}
		if (entry) {
			size_t size = function_size(argv[i], addr);

			if (!size)
				return 1;
			off += retsites_entry(addr, size);
		}
		if (!rets) {
			printf("%s 0x%" PRIx64 "\n", path, off);
			continue;
		}
		printf("%s", path);
		if (print_rets(argv[i], addr, off))
			return 1;
		printf("\n");
	}
	return 0;
}
