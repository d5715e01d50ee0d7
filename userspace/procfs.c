// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/PID/stat and friends; see procfs.h.
 */
#include "procfs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Field n (from 3, the state, on) of a stat line, after the ')' ending field 2. */
static const char *stat_field(const char *paren, int n)
{
	const char *p = paren;

	for (int field = 2; p && field < n; field++)
		p = strchr(p + 1, ' ');
	return p ? p + 1 : NULL;
}

int procfs_parse_stat(const char *text, struct proc_stat *st)
{
	const char *paren = strrchr(text, ')');
	const char *state, *ppid, *flags, *start;
	char *end;

	if (!paren || paren[1] != ' ')
		return -EPROTO;
	state = stat_field(paren, 3);
	ppid = stat_field(paren, 4);
	flags = stat_field(paren, 9);
	start = stat_field(paren, 22);
	if (!state || !ppid || !flags || !start || !*state || *state == ' ')
		return -EPROTO;
	st->state = *state;
	st->ppid = (int)strtol(ppid, &end, 10);
	if (end == ppid || *end != ' ')
		return -EPROTO;
	st->flags = (unsigned int)strtoul(flags, &end, 10);
	if (end == flags || *end != ' ')
		return -EPROTO;
	st->start_time = strtoull(start, &end, 10);
	if (end == start || (*end != ' ' && *end != '\n' && *end))
		return -EPROTO;
	return 0;
}

int procfs_read(int pid, const char *what, char **out, size_t *len)
{
	size_t cap = 16384, n = 0;
	char path[96], *buf;
	int fd, ret = 0;

	snprintf(path, sizeof(path), "/proc/%d/%s", pid, what);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	buf = malloc(cap);
	while (buf) {
		ssize_t got;

		if (n + 1 == cap) {
			char *bigger = realloc(buf, cap * 2);

			if (!bigger)
				break;
			buf = bigger;
			cap *= 2;
		}
		got = read(fd, buf + n, cap - n - 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			ret = errno == ESRCH ? -ESRCH : -errno;
		if (got <= 0)
			break;
		n += (size_t)got;
	}
	close(fd);
	if (!ret && (!buf || n + 1 == cap))
		ret = -ENOMEM;
	if (ret) {
		free(buf);
		return ret;
	}
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
}

int procfs_stat(int pid, int tid, struct proc_stat *st)
{
	char what[48], *text;
	size_t len;
	int ret;

	if (tid)
		snprintf(what, sizeof(what), "task/%d/stat", tid);
	else
		snprintf(what, sizeof(what), "stat");
	ret = procfs_read(pid, what, &text, &len);
	if (ret)
		return ret;
	/* Empty: the process went away between open and read. */
	ret = len ? procfs_parse_stat(text, st) : -ESRCH;
	free(text);
	return ret;
}

static bool exited(char state)
{
	return state == 'Z' || state == 'X';
}

int procfs_live_thread(int pid)
{
	struct proc_stat st;
	struct dirent *de;
	char path[48];
	int tid = 0, ret;
	DIR *d;

	ret = procfs_stat(pid, 0, &st);
	if (ret)
		return ret == -ESRCH ? 0 : ret;
	if (!exited(st.state))
		return pid;
	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while (!tid && (de = readdir(d))) {
		int t = atoi(de->d_name);

		if (t > 0 && t != pid && procfs_stat(pid, t, &st) == 0 && !exited(st.state))
			tid = t;
	}
	closedir(d);
	return tid;
}

bool procfs_alive(int pid)
{
	return procfs_live_thread(pid) > 0;
}

const char *procfs_path(int pid, const char *what, char *buf, size_t len)
{
	int tid = procfs_live_thread(pid);

	if (tid > 0 && tid != pid)
		snprintf(buf, len, "/proc/%d/task/%d/%s", pid, tid, what);
	else
		snprintf(buf, len, "/proc/%d/%s", pid, what);
	return buf;
}
