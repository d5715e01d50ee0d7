// SPDX-License-Identifier: GPL-2.0
/*
 * nstime: one file operation timed by CLOCK_MONOTONIC, in ns (in an
 * -icount boot of scripts/bench.sh the guest clock counts instructions).
 *
 *   nstime read FILE         read FILE to its end (64 KiB at a time),
 *                            print "NS BYTES"
 *   nstime write FILE TEXT   write TEXT to FILE in one write(2) (a
 *                            /proc/sys knob: the kernel's work is in it),
 *                            print "NS"
 *   nstime run CMD ARGS...   run CMD (its output on stderr), print "NS"
 *                            from before the fork to after its wait; exit
 *                            status 1 if CMD does not exit 0
 *
 * Only the operation is timed: no fork, exec or shell between the two
 * clock reads.  Exit status 1 if a call fails, 2 on bad usage.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ULL + (uint64_t)t.tv_nsec;
}

int main(int argc, char **argv)
{
	static char buf[64 << 10];
	uint64_t t0, t1, bytes = 0;
	ssize_t n;
	int fd;

	if (argc == 3 && !strcmp(argv[1], "read")) {
		fd = open(argv[2], O_RDONLY);
		if (fd < 0) {
			perror(argv[2]);
			return 1;
		}
		t0 = now_ns();
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			bytes += (uint64_t)n;
		t1 = now_ns();
		if (n < 0) {
			perror("nstime: read");
			return 1;
		}
		printf("%" PRIu64 " %" PRIu64 "\n", t1 - t0, bytes);
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "write")) {
		size_t len = strlen(argv[3]);

		fd = open(argv[2], O_WRONLY);
		if (fd < 0) {
			perror(argv[2]);
			return 1;
		}
		t0 = now_ns();
		n = write(fd, argv[3], len);
		t1 = now_ns();
		if (n != (ssize_t)len) {
			perror("nstime: write");
			return 1;
		}
		printf("%" PRIu64 "\n", t1 - t0);
		return 0;
	}
	if (argc >= 3 && !strcmp(argv[1], "run")) {
		int status;
		pid_t pid;

		t0 = now_ns();
		pid = fork();
		if (pid == 0) {
			dup2(2, 1);
			execvp(argv[2], argv + 2);
			perror(argv[2]);
			_exit(127);
		}
		if (pid < 0 || waitpid(pid, &status, 0) != pid) {
			perror("nstime: fork");
			return 1;
		}
		t1 = now_ns();
		printf("%" PRIu64 "\n", t1 - t0);
		return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
	}
	fprintf(stderr, "usage: nstime read FILE | nstime write FILE TEXT | nstime run CMD...\n");
	return 2;
}
