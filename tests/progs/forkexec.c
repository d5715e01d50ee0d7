// SPDX-License-Identifier: GPL-2.0
/*
 * forkexec: a program that forks and execs, as a shell or a build tool
 * does.  It keeps 2 x malloc(128) from parent_leak(), forks, and the child
 * execs the command given (its allocations are its own image's); the
 * parent waits for it and exits with its status.  No stdio.
 *
 * usage: forkexec PROGRAM [ARG]...
 */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static void *volatile kept[2];

static NOINLINE void parent_leak(void)
{
	for (volatile int i = 0; i < 2; i++)
		kept[i] = malloc(128);
}

int main(int argc, char **argv)
{
	int status;
	pid_t pid;

	if (argc < 2)
		return 2;
	parent_leak();
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		execv(argv[1], argv + 1);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid)
		return 1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
