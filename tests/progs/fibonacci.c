// SPDX-License-Identifier: GPL-2.0
/*
 * fibonacci: the leaking program of the memleak example
 * (/work/shared/seeds/000_14809f35ba7a6b00.txt).  A thread computes one
 * Fibonacci number per step into a fresh calloc(1024, sizeof(long long))
 * (8192 bytes) that it never frees, prints it, and sleeps.  memleak shows
 *     fibonacci+0x23 [leak]
 *     child+0x5a [leak]
 *
 * usage: fibonacci [STEPS [INTERVAL_MS]]
 *   STEPS        steps to run, then the thread returns and main joins it and
 *                returns (default 0: forever, as in the original)
 *   INTERVAL_MS  sleep after each step, in milliseconds (default 1000: the
 *                original's sleep(1))
 *
 * Changes from the original, none of which changes what it allocates:
 * fibonacci() is noinline (at -O2 it would be inlined into child() and
 * vanish from the stacks), the two arguments, and the sum wraps as unsigned
 * instead of overflowing (undefined) after step 92.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__clang__)
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE __attribute__((noinline, noclone, noipa))
#endif

static unsigned long steps;		/* 0: forever */
static unsigned long interval_ms = 1000;

NOINLINE long long *fibonacci(long long *n0, long long *n1)
{
	/* allocate space for observation */
	long long *v = (long long *)calloc(1024, sizeof(long long));

	if (!v) {
		perror("fibonacci: calloc");
		exit(1);
	}
	*v = (long long)((unsigned long long)*n0 + (unsigned long long)*n1);
	return v;
}

static void sleep_ms(unsigned long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

void *child(void *arg)
{
	long long n0 = 0;
	long long n1 = 1;
	long long *v = NULL;
	unsigned long n;

	(void)arg;
	for (n = 2; steps == 0 || n < steps + 2; n++) {
		v = fibonacci(&n0, &n1);
		n0 = n1;
		n1 = *v;
		printf("%luth => %lld\n", n, *v);
		sleep_ms(interval_ms);
	}
	return NULL;
}

static unsigned long number(const char *what, const char *s)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || *s == '-') {
		fprintf(stderr, "fibonacci: invalid %s '%s'\n", what, s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	pthread_t tid;
	int err;

	if (argc > 3) {
		fprintf(stderr, "usage: fibonacci [STEPS [INTERVAL_MS]]\n");
		return 2;
	}
	if (argc > 1)
		steps = number("STEPS", argv[1]);
	if (argc > 2)
		interval_ms = number("INTERVAL_MS", argv[2]);

	err = pthread_create(&tid, NULL, child, NULL);
	if (err) {
		fprintf(stderr, "fibonacci: pthread_create: %s\n", strerror(err));
		return 1;
	}
	pthread_join(tid, NULL);
	printf("main thread exit\n");
	return 0;
}
