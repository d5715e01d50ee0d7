// SPDX-License-Identifier: GPL-2.0
/*
 * threadleak: allocations on several threads after the main thread has
 * left with pthread_exit(): the process lives on in its threads, and so
 * must its tracing.  Thread k (0, 1, 2) keeps k + 1 blocks of 100 * (k + 1)
 * bytes from thread_leak() (100 + 400 + 900 = 1400 bytes in 6 blocks) and
 * makes 10 malloc(64)/free pairs; the last thread out ends the process
 * (status 0).  No stdio (its buffer is itself a malloc).
 *
 * usage: threadleak [GO_FILE]
 *   GO_FILE   the threads wait for this file to exist (after main has
 *             left) before they allocate; without it, for main to be gone
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#if defined(__clang__)
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE __attribute__((noinline, noclone, noipa))
#endif

#define NR_THREADS 3

static void *volatile kept[NR_THREADS][NR_THREADS];
static void *volatile scratch[NR_THREADS];
static const char *go_file;
static pid_t main_tid;

static void nap(void)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };

	nanosleep(&ts, NULL);
}

/* The main thread has exited: its /proc task says zombie (no stdio: read(2)). */
static int main_gone(void)
{
	char path[64], buf[512], *paren;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)main_tid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 1;
	buf[n] = '\0';
	paren = strrchr(buf, ')');
	return paren && (paren[2] == 'Z' || paren[2] == 'X');
}

NOINLINE void thread_leak(int k)
{
	for (volatile int i = 0; i <= k; i++)
		kept[k][i] = malloc(100 * (size_t)(k + 1));
}

NOINLINE void thread_churn(int k)
{
	for (volatile int i = 0; i < 10; i++) {
		scratch[k] = malloc(64);
		free(scratch[k]);
	}
}

static void *worker(void *arg)
{
	int k = (int)(long)arg;
	struct stat st;

	while (!main_gone() || (go_file && stat(go_file, &st)))
		nap();
	thread_leak(k);
	thread_churn(k);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;

	if (argc > 2) {
		static const char usage[] = "usage: threadleak [GO_FILE]\n";

		if (write(2, usage, sizeof(usage) - 1) < 0)
			return 2;
		return 2;
	}
	go_file = argc == 2 ? argv[1] : NULL;
	main_tid = (pid_t)syscall(SYS_gettid);
	for (long k = 0; k < NR_THREADS; k++)
		if (pthread_create(&t, NULL, worker, (void *)k))
			return 1;
	/* The process ends with its last thread. */
	pthread_exit(NULL);
}
