// SPDX-License-Identifier: GPL-2.0
/*
 * forkleak: allocations known exactly on both sides of a fork, for
 * memtrace-read --follow-forks.  The parent keeps 3 x malloc(100) from
 * parent_leak() and forks; the child keeps 5 x malloc(200) from
 * child_leak() and exits; the parent reaps it and exits.  No stdio (its
 * buffer is itself a malloc).
 */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static void *volatile kept[8];

static NOINLINE void parent_leak(void)
{
	for (volatile int i = 0; i < 3; i++)
		kept[i] = malloc(100);
}

static NOINLINE void child_leak(void)
{
	for (volatile int i = 0; i < 5; i++)
		kept[i + 3] = malloc(200);
}

int main(void)
{
	int status;
	pid_t pid;

	parent_leak();
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		child_leak();
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return 1;
	return WEXITSTATUS(status);
}
