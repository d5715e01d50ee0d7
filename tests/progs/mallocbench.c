// SPDX-License-Identifier: GPL-2.0
/*
 * mallocbench PAIRS: the cost of a malloc(32)+free pair, for `make bench`
 * (tests/bench/user-pairs.sh).  One round is PAIRS pairs, timed with
 * CLOCK_MONOTONIC; after one round to warm up, ROUNDS rounds are timed.
 * Prints "ns/pair N", the median round's nanoseconds per pair (rounded).
 *
 * mallocbench --wait-usr1 PAIRS: first print "waiting PID" and wait for a
 * SIGUSR1, so that a tracer which attaches to a running process (BCC's
 * memleak -p, scripts/bench-peers.sh) can attach before the loops start.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define ROUNDS 5

/* Each block escapes through here, so the compiler keeps every malloc+free. */
static void *volatile sink;

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
}

static __attribute__((noinline)) unsigned long long round_ns(unsigned long pairs)
{
	unsigned long long t0 = now_ns();

	for (unsigned long i = 0; i < pairs; i++) {
		char *p = malloc(32);

		if (!p) {
			perror("mallocbench: malloc");
			exit(1);
		}
		p[0] = (char)i;
		sink = p;
		free(p);
	}
	return now_ns() - t0;
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
	char *end;
	int wait_usr1 = argc == 3 && !strcmp(argv[1], "--wait-usr1");

	errno = 0;
	pairs = argc == 2 + wait_usr1 ? strtoul(argv[1 + wait_usr1], &end, 10) : 0;
	if (argc != 2 + wait_usr1 || errno || end == argv[1 + wait_usr1] || *end || !pairs) {
		fprintf(stderr, "usage: mallocbench [--wait-usr1] PAIRS\n");
		return 2;
	}
	if (wait_usr1) {
		sigset_t set;
		int sig;

		sigemptyset(&set);
		sigaddset(&set, SIGUSR1);
		sigprocmask(SIG_BLOCK, &set, NULL);
		printf("waiting %d\n", (int)getpid());
		fflush(stdout);
		if (sigwait(&set, &sig)) {
			perror("mallocbench: sigwait");
			return 1;
		}
	}
	round_ns(pairs);	/* warm up */
	for (int r = 0; r < ROUNDS; r++)
		ns[r] = round_ns(pairs);
	qsort(ns, ROUNDS, sizeof(ns[0]), cmp_ull);
	printf("ns/pair %llu\n", (ns[ROUNDS / 2] + pairs / 2) / pairs);
	return 0;
}
