// SPDX-License-Identifier: GPL-2.0
/* Shared by the test programs; see mtt.h. */
#include "mtt.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

int mtt_failures;

void mtt_expect(const char *what, int ret, int want)
{
	int got = ret < 0 ? errno : 0;

	if (got == want) {
		printf("ok - %s\n", what);
	} else {
		printf("not ok - %s (expected %s, got %s)\n", what,
		       want ? strerror(want) : "success", got ? strerror(got) : "success");
		mtt_failures++;
	}
	fflush(stdout);
}

void mtt_check(const char *what, bool cond, const char *fmt, ...)
{
	va_list ap;

	printf("%s - %s\n", cond ? "ok" : "not ok", what);
	if (!cond) {
		mtt_failures++;
		printf("# ");
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
		printf("\n");
	}
	fflush(stdout);
}

int mtt_open(void)
{
	int fd = open(MEMTRACE_DEVICE, O_RDWR);

	if (fd < 0) {
		printf("not ok - open %s: %s\n", MEMTRACE_DEVICE, strerror(errno));
		exit(1);
	}
	return fd;
}

int mtt_handshake(int fd)
{
	struct memtrace_version v = { .abi_version = MEMTRACE_ABI_VERSION };

	return ioctl(fd, MEMTRACE_IOC_VERSION, &v);
}

int mtt_config(int fd, struct memtrace_config *c)
{
	c->size = sizeof(*c);
	return ioctl(fd, MEMTRACE_IOC_CONFIG, c);
}

int mtt_set_buffer(int fd, uint64_t size)
{
	return ioctl(fd, MEMTRACE_IOC_SET_BUFFER, &size);
}

int mtt_snapshot(int fd, struct memtrace_snapshot_req *r, uint32_t flags)
{
	memset(r, 0, sizeof(*r));
	r->size = sizeof(*r);
	r->flags = flags;
	return ioctl(fd, MEMTRACE_IOC_SNAPSHOT, r);
}

int mtt_file_offset(uintptr_t addr, char *path, size_t len, uint64_t *off)
{
	char line[4096];
	int found = 0;
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		return -1;
	while (!found && fgets(line, sizeof(line), f)) {
		uint64_t start, end, pgoff;
		char perms[8];
		int pos = 0;

		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*x:%*x %*u %n",
			   &start, &end, perms, &pgoff, &pos) < 4 || !pos)
			continue;
		if (addr < start || addr >= end || perms[2] != 'x' || line[pos] != '/')
			continue;
		line[pos + strcspn(line + pos, "\n")] = '\0';
		snprintf(path, len, "%s", line + pos);
		*off = addr - start + pgoff;
		found = 1;
	}
	fclose(f);
	return found ? 0 : -1;
}
