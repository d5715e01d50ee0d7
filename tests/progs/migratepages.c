// SPDX-License-Identifier: GPL-2.0
/*
 * migratepages MIB: write MIB MiB of anonymous memory bound to node 0
 * (set_mempolicy MPOL_BIND), then move this process's pages from node 0
 * to node 1 with migrate_pages(2), and print how many pages the mapping
 * has on each node before and after (from /proc/self/numa_maps, the
 * kernel's own account) and what migrate_pages() returned.  Raw system
 * calls: no libnuma in the guest.
 * migratepages -b MIB SECONDS: write MIB MiB bound to node 1, then run on
 * CPU 0 (node 0) reading it over and over for SECONDS: NUMA balancing's
 * hinting faults find it misplaced and move it to node 0.  Prints the
 * node counts before and after.
 * Exit status 1 if a call fails, 2 on bad usage.
 */
#include <errno.h>
#include <sched.h>
#include <time.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MPOL_DEFAULT	0
#define MPOL_BIND	2
#define MAXNODE		64

/* Pages of the mapping at addr on node, from numa_maps ("N<node>=<pages>"). */
static long pages_on(void *addr, int node)
{
	char line[4096], key[32], want[32];
	FILE *f = fopen("/proc/self/numa_maps", "r");
	long n = 0;

	if (!f)
		return -1;
	snprintf(want, sizeof(want), "%lx ", (unsigned long)addr);
	snprintf(key, sizeof(key), " N%d=", node);
	while (fgets(line, sizeof(line), f)) {
		char *p;

		if (strncmp(line, want, strlen(want)))
			continue;
		p = strstr(line, key);
		if (p)
			n = strtol(p + strlen(key), NULL, 10);
	}
	fclose(f);
	return n;
}

/* Reads the mapping on CPU 0 until seconds pass: NUMA balancing's work. */
static int misplaced(char *p, size_t len, long page, unsigned int seconds)
{
	struct timespec t0, t;
	volatile char sum = 0;
	cpu_set_t cpus;

	CPU_ZERO(&cpus);
	CPU_SET(0, &cpus);
	if (sched_setaffinity(0, sizeof(cpus), &cpus)) {
		perror("migratepages: sched_setaffinity");
		return 1;
	}
	printf("before: node0 %ld node1 %ld\n", pages_on(p, 0), pages_on(p, 1));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (size_t off = 0; off < len; off += (size_t)page)
			sum += p[off];
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec < (time_t)seconds);
	printf("after: node0 %ld node1 %ld\n", pages_on(p, 0), pages_on(p, 1));
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long node0 = 1UL << 0, node1 = 1UL << 1;
	long page = sysconf(_SC_PAGESIZE), left;
	bool balance = argc == 4 && !strcmp(argv[1], "-b");
	unsigned long mib;
	size_t len;
	char *p;

	if ((argc != 2 && !balance) || (mib = strtoul(argv[balance ? 2 : 1], NULL, 10)) == 0) {
		fprintf(stderr, "usage: migratepages MIB | migratepages -b MIB SECONDS\n");
		return 2;
	}
	len = (size_t)mib << 20;
	if (syscall(SYS_set_mempolicy, MPOL_BIND, balance ? &node1 : &node0, MAXNODE)) {
		perror("migratepages: set_mempolicy");
		return 1;
	}
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("migratepages: mmap");
		return 1;
	}
	madvise(p, len, MADV_NOHUGEPAGE);
	for (size_t off = 0; off < len; off += (size_t)page)
		p[off] = 1;
	/* Bound, the pages could not move. */
	if (syscall(SYS_set_mempolicy, MPOL_DEFAULT, NULL, 0)) {
		perror("migratepages: set_mempolicy");
		return 1;
	}
	if (balance)
		return misplaced(p, len, page, (unsigned int)strtoul(argv[3], NULL, 10));
	printf("before: node0 %ld node1 %ld\n", pages_on(p, 0), pages_on(p, 1));
	left = syscall(SYS_migrate_pages, 0, MAXNODE, &node0, &node1);
	if (left < 0) {
		perror("migratepages: migrate_pages");
		return 1;
	}
	printf("migrate_pages: %ld not moved\n", left);
	printf("after: node0 %ld node1 %ld\n", pages_on(p, 0), pages_on(p, 1));
	return 0;
}
