// SPDX-License-Identifier: GPL-2.0
/*
 * ufnoffset FUNC...: where a uprobe on each function FUNC goes, as the
 * dynamic linker resolves FUNC for a program (libc's malloc, free, ...).
 * Prints one line per FUNC: "PATH 0xOFFSET", the file that defines it and
 * the offset of its entry in that file, e.g.
 *   /usr/lib/x86_64-linux-gnu/libc.so.6 0x9a0a0
 * (for tests/bench/user-pairs.sh: memtrace_bench's uprobe_arm takes them).
 *
 * The address dlsym() gives is turned into a file offset through the
 * mapping of /proc/self/maps that holds it: the offset a uprobe takes, and
 * the one memtrace-read and probecheck compute from the ELF file (.dynsym
 * value through its PT_LOAD), without parsing ELF here.
 */
#include <dlfcn.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

#include "mtt.h"

int main(int argc, char **argv)
{
	char path[4096];
	uint64_t off;

	if (argc < 2) {
		fprintf(stderr, "usage: ufnoffset FUNC...\n");
		return 2;
	}
	for (int i = 1; i < argc; i++) {
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
		printf("%s 0x%" PRIx64 "\n", path, off);
	}
	return 0;
}
