// SPDX-License-Identifier: GPL-2.0
/*
 * USDT probes for tests/e2e/61-usdt.sh, built with <sys/sdt.h>
 * (systemtap-sdt-dev):
 *   memtrace_test:plain  no semaphore; arguments of every kind the
 *                        assembler picks: registers, memory at a register
 *                        plus a displacement, constants
 *   memtrace_test:gated  with a semaphore: reached only while it is set,
 *                        as a program guards costly arguments
 * usage: usdtprog N       print the semaphore, hit both N times, print it again
 *        usdtprog -       the same, driven by stdin: "sem" prints the
 *                         semaphore, "run N" hits N times, "thread" hands
 *                         the commands to a new thread and ends the main
 *                         one (pthread_exit: the process lives on without
 *                         its leader), EOF ends
 * Each hit i (1..N) of plain passes i, -3*i, 1000000007*i, (short)-i, 42
 * and the volatile word 0x1122334455667700 + i; of gated, i and the
 * semaphore's value.  The gated probe is in usdtgate.c: <sys/sdt.h> gives
 * every probe of a file a semaphore or none.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sdt.h>

#include "usdtgate.h"

static unsigned long plain_hits;

__attribute__((noinline)) static void hit_plain(int i)
{
	volatile unsigned long word = 0x1122334455667700UL + (unsigned long)i;
	long neg = -3L * i;
	unsigned long big = 1000000007UL * (unsigned long)i;
	short s = (short)-i;

	DTRACE_PROBE6(memtrace_test, plain, i, neg, big, s, 42, word);
	plain_hits++;
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void run_loop(int n)
{
	for (int i = 1; i <= n; i++) {
		hit_plain(i);
		hit_gated(i);
	}
	printf("ran %d plain=%lu gated=%lu\n", n, plain_hits, usdtgate_hits);
	fflush(stdout);
}

static void print_semaphore(void)
{
	printf("semaphore=%u\n", usdtgate_semaphore());
	fflush(stdout);
}

static void *run_commands(void *unused)
{
	char line[64];
	pthread_t t;

	(void)unused;
	while (fgets(line, sizeof(line), stdin)) {
		if (!strncmp(line, "sem", 3)) {
			print_semaphore();
		} else if (!strncmp(line, "run ", 4)) {
			run_loop(atoi(line + 4));
		} else if (!strncmp(line, "thread", 6)) {
			printf("commands to a new thread\n");
			fflush(stdout);
			if (pthread_create(&t, NULL, run_commands, NULL)) {
				perror("usdtprog: pthread_create");
				exit(1);
			}
			pthread_exit(NULL);
		}
	}
	exit(0);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: usdtprog N | -\n");
		return 2;
	}
	if (strcmp(argv[1], "-")) {
		print_semaphore();
		run_loop(atoi(argv[1]));
		print_semaphore();
		return 0;
	}
	run_commands(NULL);
	return 0;
}
