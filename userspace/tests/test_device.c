// SPDX-License-Identifier: GPL-2.0
/*
 * The reader's words for the module's refusals (device.c), without a
 * module: a child process whose ioctl(2) a seccomp filter answers with the
 * errno the module would give.  A full uprobe table (ENOSPC) must name
 * the limit, MEMTRACE_MAX_UPROBES, not just strerror's "No space left".
 */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "device.h"
#include "harness.h"

/* In the calling process: every ioctl fails with e. */
static bool ioctl_fails_with(int e)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_ioctl, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (unsigned int)e),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };

	return !prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) &&
	       !prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

/* device_add_uprobe()'s return and message when the module says e. */
static int uprobe_refused(int e, char *msg, size_t len)
{
	int p[2], status, rc = 1;
	ssize_t n;
	pid_t pid;

	msg[0] = '\0';
	if (pipe(p))
		return 1;
	pid = fork();
	if (pid == 0) {
		struct mt_device d = { .fd = 0 };
		struct mt_err err = { "" };
		int ret = -1;

		close(p[0]);
		if (ioctl_fails_with(e))
			ret = device_add_uprobe(&d, 0, 0x1234, 0, 0, &err);
		if (write(p[1], err.msg, strlen(err.msg)) < 0)
			_exit(2);
		_exit(ret == -e ? 0 : 1);
	}
	close(p[1]);
	n = read(p[0], msg, len - 1);
	msg[n > 0 ? n : 0] = '\0';
	close(p[0]);
	if (pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status))
		rc = WEXITSTATUS(status);
	return rc;
}

void device_tests(void)
{
	char msg[512];

	check(uprobe_refused(ENOSPC, msg, sizeof(msg)) == 0 &&
	      strstr(msg, "MEMTRACE_MAX_UPROBES") && strstr(msg, "256"),
	      "device: a full uprobe table (ENOSPC) is an error naming the limit: %s", msg);
	check(uprobe_refused(EINVAL, msg, sizeof(msg)) == 0 && strstr(msg, "Invalid argument"),
	      "device: another refusal keeps strerror's words: %s", msg);
}
