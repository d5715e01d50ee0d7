// SPDX-License-Identifier: GPL-2.0
/*
 * unwindbench DEPTH PAIRS: malloc(32)+free pairs made DEPTH calls deep,
 * timed as mallocbench times them (5 rounds after one to warm up; the
 * median printed as "ns/pair N"), for the cost of walking user stacks
 * by unwind tables against frame pointers (tests/bench/unwind-pairs.sh).
 * Built without frame pointers (unwindbench-nofp) and with them
 * (unwindbench-fp).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define ROUNDS 5
#define NOINLINE __attribute__((noinline, noclone, noipa))

static void *volatile sink;

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
}

static NOINLINE unsigned long long round_ns(unsigned long pairs)
{
	unsigned long long t0 = now_ns();

	for (unsigned long i = 0; i < pairs; i++) {
		char *p = malloc(32);

		if (!p)
			exit(1);
		p[0] = (char)i;
		sink = p;
		free(p);
	}
	return now_ns() - t0;
}

/* depth more frames between main and the loop, each a real call (not a tail call). */
static NOINLINE unsigned long long deep(unsigned int depth, unsigned long pairs)
{
	unsigned long long ns;

	if (!depth)
		return round_ns(pairs);
	ns = deep(depth - 1, pairs);
	sink = NULL;
	return ns;
}

static int cmp_ull(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	unsigned long long ns[ROUNDS];
	unsigned long pairs;
	unsigned int depth;

	if (argc != 3 || !(pairs = strtoul(argv[2], NULL, 10))) {
		fprintf(stderr, "usage: unwindbench DEPTH PAIRS\n");
		return 2;
	}
	/* main and round_ns are two of the frames. */
	depth = (unsigned int)strtoul(argv[1], NULL, 10);
	depth = depth > 2 ? depth - 2 : 0;
	deep(depth, pairs);
	for (int r = 0; r < ROUNDS; r++)
		ns[r] = deep(depth, pairs);
	qsort(ns, ROUNDS, sizeof(ns[0]), cmp_ull);
	printf("ns/pair %llu\n", ns[ROUNDS / 2] / pairs);
	return 0;
}
