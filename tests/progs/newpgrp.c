// SPDX-License-Identifier: GPL-2.0
/*
 * newpgrp CMD [ARG]...: run CMD in a process group of its own, as a shell
 * with job control runs a job.  The kernel discards SIGTSTP (Ctrl+Z) sent
 * to an orphaned process group, and a test script's group, whose parent is
 * init, is one: a job-control test needs its command in a group whose
 * parent (the script) is in the same session but another group.
 */
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: newpgrp CMD [ARG]...\n");
		return 2;
	}
	if (setpgid(0, 0)) {
		perror("newpgrp: setpgid");
		return 126;
	}
	execvp(argv[1], argv + 1);
	perror("newpgrp: exec");
	return 127;
}
