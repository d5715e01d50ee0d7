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
#include <string.h>

static int file_offset(uintptr_t addr, char *path, size_t len, uint64_t *off)
{
	char line[4096];
	int found = 0;
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f) {
		perror("ufnoffset: /proc/self/maps");
		return -1;
	}
	while (!found && fgets(line, sizeof(line), f)) {
		uint64_t start, end, pgoff;
		char perms[8];
		int pos = 0;

		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*x:%*x %*u %n",
			   &start, &end, perms, &pgoff, &pos) < 4 || !pos)
			continue;
		if (addr < start || addr >= end || perms[2] != 'x' || line[pos] != '/')
			continue;
		line[pos + strcspn(line + pos, "\n")] = '\0';
		snprintf(path, len, "%s", line + pos);
		*off = addr - start + pgoff;
		found = 1;
	}
	fclose(f);
	return found ? 0 : -1;
}

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
		if (file_offset((uintptr_t)addr, path, sizeof(path), &off)) {
			fprintf(stderr, "ufnoffset: %s at %p: in no executable file mapping\n",
				argv[i], addr);
			return 1;
		}
		printf("%s 0x%" PRIx64 "\n", path, off);
	}
	return 0;
}
