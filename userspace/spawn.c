// SPDX-License-Identifier: GPL-2.0
/*
 * -c COMMAND under ptrace; see spawn.h.
 */
#include "spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_ARGS 256

static int split_command(char *buf, char **argv, size_t max)
{
	size_t n = 0;

	for (char *tok = strtok(buf, " \t\n"); tok; tok = strtok(NULL, " \t\n")) {
		if (n + 1 >= max)
			return -E2BIG;
		argv[n++] = tok;
	}
	argv[n] = NULL;
	return n ? (int)n : -EINVAL;
}

/* In the child: stop at the exec for the parent, or report why not. */
static void __attribute__((noreturn)) run_child(char **argv, int report_fd)
{
	int e;

	if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) == 0)
		execvp(argv[0], argv);
	e = errno;
	if (write(report_fd, &e, sizeof(e)) < 0)
		_exit(126);
	_exit(127);
}

int spawn_stopped(const char *command, pid_t *pid, struct mt_err *err)
{
	char *buf = strdup(command), *argv[MAX_ARGS];
	int fds[2], status, child_errno = 0, ret;
	ssize_t got;
	pid_t child;

	if (!buf)
		return mt_errf(err, ENOMEM, "out of memory");
	ret = split_command(buf, argv, MAX_ARGS);
	if (ret < 0) {
		free(buf);
		return mt_errf(err, -ret, "-c '%s': %s", command,
			       ret == -E2BIG ? "too many arguments" : "empty command");
	}
	if (pipe2(fds, O_CLOEXEC)) {
		free(buf);
		return mt_errf(err, errno, "pipe: %s", strerror(errno));
	}
	child = fork();
	if (child < 0) {
		ret = mt_errf(err, errno, "fork: %s", strerror(errno));
		goto out;
	}
	if (child == 0) {
		close(fds[0]);
		run_child(argv, fds[1]);
	}
	close(fds[1]);
	fds[1] = -1;
	/* The exec closed the pipe (O_CLOEXEC), or the child wrote why it failed. */
	got = read(fds[0], &child_errno, sizeof(child_errno));
	if (waitpid(child, &status, 0) != child) {
		ret = mt_errf(err, errno, "waitpid: %s", strerror(errno));
		goto out;
	}
	if (got == sizeof(child_errno) || !WIFSTOPPED(status)) {
		if (WIFSTOPPED(status))
			spawn_kill(child);
		ret = mt_errf(err, got == sizeof(child_errno) ? child_errno : ECHILD,
			      "cannot run '%s': %s", argv[0],
			      got == sizeof(child_errno) ? strerror(child_errno) :
			      "it ended before its exec");
		goto out;
	}
	/*
	 * Stop it again at its exit, while its mappings can still be read.
	 * TRACEEXEC makes a later exec an event stop instead of a SIGTRAP
	 * that would otherwise be delivered to (and kill) the command.
	 */
	if (ptrace(PTRACE_SETOPTIONS, child, NULL,
		   (void *)(PTRACE_O_TRACEEXIT | PTRACE_O_TRACEEXEC))) {
		ret = mt_errf(err, errno, "ptrace(%d): %s", (int)child, strerror(errno));
		spawn_kill(child);
		goto out;
	}
	*pid = child;
	ret = 0;
out:
	close(fds[0]);
	if (fds[1] >= 0)
		close(fds[1]);
	free(buf);
	return ret;
}

int spawn_resume(pid_t pid, struct mt_err *err)
{
	if (ptrace(PTRACE_CONT, pid, NULL, NULL) == 0 || errno == ESRCH)
		return 0;
	return mt_errf(err, errno, "cannot resume pid %d: %s", (int)pid, strerror(errno));
}

enum spawn_event spawn_poll(pid_t pid, int *status)
{
	for (;;) {
		pid_t got = waitpid(pid, status, WNOHANG);

		if (got <= 0)
			return got < 0 && errno == ECHILD ? SPAWN_GONE : SPAWN_NOTHING;
		if (WIFEXITED(*status) || WIFSIGNALED(*status))
			return SPAWN_GONE;
		if (!WIFSTOPPED(*status))
			continue;
		if (*status >> 8 == (SIGTRAP | (PTRACE_EVENT_EXIT << 8)))
			return SPAWN_EXITING;
		if (*status >> 8 == (SIGTRAP | (PTRACE_EVENT_EXEC << 8))) {
			/* The module sees the exec too and ends the tracing. */
			ptrace(PTRACE_CONT, pid, NULL, NULL);
			continue;
		}
		/*
		 * A signal for the command: deliver it.  Once a stop signal is
		 * delivered the command enters group-stop, which ptrace reports
		 * again but with no siginfo: leave it stopped then, as it would
		 * be untraced (ptrace cannot make SIGCONT resume it, a known
		 * limit of PTRACE_TRACEME).
		 */
		siginfo_t si;

		if (ptrace(PTRACE_GETSIGINFO, pid, NULL, &si) && errno == EINVAL)
			continue;
		ptrace(PTRACE_CONT, pid, NULL, (void *)(long)WSTOPSIG(*status));
	}
}

void spawn_kill(pid_t pid)
{
	int status;

	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
}
