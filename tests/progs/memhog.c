// SPDX-License-Identifier: GPL-2.0
/*
 * memhog MIB: map MIB MiB of anonymous memory, write every page of it
 * (the guest's memory pressure, for page reclaim to answer), say so and
 * exit.  Exit status 1 if the mapping fails.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned long mib;
	size_t len;
	char *p;

	if (argc != 2 || (mib = strtoul(argv[1], NULL, 10)) == 0) {
		fprintf(stderr, "usage: memhog MIB\n");
		return 2;
	}
	len = (size_t)mib << 20;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("memhog: mmap");
		return 1;
	}
	/* Order-0 pages: a huge page's allocation would compact, not just reclaim. */
	madvise(p, len, MADV_NOHUGEPAGE);
	for (size_t off = 0; off < len; off += (size_t)page)
		p[off] = 1;
	printf("memhog: touched %lu MiB\n", mib);
	return 0;
}
