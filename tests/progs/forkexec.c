// SPDX-License-Identifier: GPL-2.0
/*
 * forkexec: a program that forks and execs, as a shell or a build tool
 * does.  It keeps 2 x malloc(128) from parent_leak(), forks, and the child
 * execs the command given (its allocations are its own image's); the
 * parent waits for it and exits with its status.  No stdio.  With
 * --vfork the child shares the parent's address space until its exec, as
 * posix_spawn's does: it is never a process of its own to follow.
 *
 * usage: forkexec [--vfork] PROGRAM [ARG]...
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static void *volatile kept[2];

static NOINLINE void parent_leak(void)
{
	for (volatile int i = 0; i < 2; i++)
		kept[i] = malloc(128);
}

/* The child runs PROGRAM (cmd[0]): its pid, or -1. */
static NOINLINE pid_t start_child(bool use_vfork, char *const *cmd)
{
	pid_t pid = use_vfork ? vfork() : fork();

	if (pid == 0) {
		execv(cmd[0], cmd);
		_exit(127);
	}
	return pid;
}

int main(int argc, char **argv)
{
	bool use_vfork = argc > 1 && !strcmp(argv[1], "--vfork");
	int first = use_vfork ? 2 : 1;
	int status;
	pid_t pid;

	if (argc <= first)
		return 2;
	parent_leak();
	pid = start_child(use_vfork, argv + first);
	if (pid < 0)
		return 1;
	if (waitpid(pid, &status, 0) != pid)
		return 1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
