// SPDX-License-Identifier: GPL-2.0
/*
 * memhog MIB: map MIB MiB of anonymous memory, write every page of it
 * (the guest's memory pressure, for page reclaim to answer), say so and
 * exit.
 * memhog -H MIB: the same in transparent huge pages (MADV_HUGEPAGE): each
 * fault asks for a 2 MiB page, which may compact memory first.
 * memhog -f MIB: the same as memhog MIB, then give every other page back
 * (MADV_DONTNEED), leaving free memory in single pages between pages in
 * use, say "fragmented" and wait for a signal: memory for compaction.
 * Exit status 1 if the mapping fails, 2 on bad usage.
 */
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long page = sysconf(_SC_PAGESIZE);
	bool fragment = argc == 3 && !strcmp(argv[1], "-f");
	bool huge = argc == 3 && !strcmp(argv[1], "-H");
	unsigned long mib;
	size_t len;
	char *p;

	if ((argc != 2 && !fragment && !huge) || (mib = strtoul(argv[argc - 1], NULL, 10)) == 0) {
		fprintf(stderr, "usage: memhog [-f|-H] MIB\n");
		return 2;
	}
	len = (size_t)mib << 20;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("memhog: mmap");
		return 1;
	}
	/* Order-0 pages unless asked: a huge page's allocation would compact, not just reclaim. */
	madvise(p, len, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
	for (size_t off = 0; off < len; off += (size_t)page)
		p[off] = 1;
	printf("memhog: touched %lu MiB\n", mib);
	if (!fragment)
		return 0;
	for (size_t off = 0; off < len; off += 2 * (size_t)page)
		madvise(p + off, (size_t)page, MADV_DONTNEED);
	printf("memhog: fragmented\n");
	fflush(stdout);
	pause();
	return 0;
}
