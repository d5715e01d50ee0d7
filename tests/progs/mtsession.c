// SPDX-License-Identifier: GPL-2.0
/*
 * mtsession [-p PID] [-m MS] [-a]: one short memtrace session, as a
 * reader runs it, for tests that load and unload the module many times
 * (memtrace-read's symbol loading would take most of their time).
 *
 *   -p PID  user mode: trace PID through uprobes on libc's malloc, calloc,
 *           realloc, free and posix_memalign (the offsets of this process's
 *           libc, the file PID maps too); without -p, the kernel's allocators
 *   -m MS   trace for MS milliseconds (default 200), then take snapshots
 *           until one has an allocation recorded (5 s at most)
 *   -a      end abruptly: exit with the session running and its buffer
 *           mapped, as a killed reader does (default: stop, then exit)
 *   -t      also trace every call as a reader older than the per-CPU trace
 *           rings does (a memtrace_config of MEMTRACE_CONFIG_SIZE_VER2
 *           bytes, records by read(2)): print "tracing" once started, read
 *           the records while tracing and after the stop, and print
 *           "trace: A allocs, F frees"
 *
 * Prints "recorded N allocations (M live)"; exit status 0 if N > 0.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "mtt.h"

#define BUF_SIZE	(4U << 20)

static int fail(const char *what)
{
	fprintf(stderr, "mtsession: %s: %s\n", what, strerror(errno));
	return 2;
}

static int add_uprobe(int dev, int lib, const char *name, uint32_t func)
{
	struct memtrace_uprobe u = { .size = sizeof(u), .fd = lib, .func = func };
	void *addr = dlsym(RTLD_DEFAULT, name);
	char path[4096];
	uint64_t off;

	if (!addr || mtt_file_offset((uintptr_t)addr, path, sizeof(path), &off))
		return -1;
	u.offset = off;
	return ioctl(dev, MEMTRACE_IOC_UPROBE, &u);
}

static unsigned long long trace_allocs, trace_frees;

/*
 * The trace records read(2) has now; with wait_ms, wait that long for some
 * first.  Returns what read(2) returned (0: end of file, the session stopped).
 */
static ssize_t read_trace(int dev, int wait_ms)
{
	static struct memtrace_trace_rec recs[1024];
	struct pollfd pf = { .fd = dev, .events = POLLIN };
	ssize_t n;

	if (wait_ms && poll(&pf, 1, wait_ms) <= 0)
		return -1;
	n = read(dev, recs, sizeof(recs));
	for (ssize_t i = 0; i < n / (ssize_t)sizeof(recs[0]); i++) {
		if (recs[i].type == MEMTRACE_TRACE_ALLOC)
			trace_allocs++;
		else if (recs[i].type == MEMTRACE_TRACE_FREE)
			trace_frees++;
	}
	return n;
}

static unsigned long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ULL + ts.tv_nsec / 1000000;
}

int main(int argc, char **argv)
{
	static const struct { const char *name; uint32_t func; } fns[] = {
		{ "malloc", MEMTRACE_UFN_MALLOC }, { "calloc", MEMTRACE_UFN_CALLOC },
		{ "realloc", MEMTRACE_UFN_REALLOC }, { "free", MEMTRACE_UFN_FREE },
		{ "posix_memalign", MEMTRACE_UFN_POSIX_MEMALIGN },
	};
	struct memtrace_config cfg = { 0 };
	struct memtrace_snapshot_req req;
	const struct memtrace_snap_header *h;
	unsigned int ms = 200;
	int opt, dev, abrupt = 0, trace = 0;
	pid_t pid = 0;
	void *map;

	while ((opt = getopt(argc, argv, "p:m:at")) != -1) {
		switch (opt) {
		case 'p': pid = atoi(optarg); break;
		case 'm': ms = atoi(optarg); break;
		case 'a': abrupt = 1; break;
		case 't': trace = 1; break;
		default:
			fprintf(stderr, "usage: mtsession [-p PID] [-m MS] [-a] [-t]\n");
			return 2;
		}
	}
	dev = open(MEMTRACE_DEVICE, O_RDWR);
	if (dev < 0 || mtt_handshake(dev))
		return fail(MEMTRACE_DEVICE);
	if (pid) {
		struct memtrace_target t = { .size = sizeof(t), .pid = pid };
		char path[4096];
		uint64_t off;
		int lib;

		if (mtt_file_offset((uintptr_t)dlsym(RTLD_DEFAULT, "malloc"), path, sizeof(path), &off))
			return fail("libc");
		lib = open(path, O_RDONLY);
		if (lib < 0 || ioctl(dev, MEMTRACE_IOC_TARGET, &t))
			return fail("target");
		for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
			if (add_uprobe(dev, lib, fns[i].name, fns[i].func))
				return fail(fns[i].name);
		cfg.events = MEMTRACE_EV_USER;
	}
	if (trace) {
		cfg.flags = MEMTRACE_CFG_TRACE;
		cfg.size = MEMTRACE_CONFIG_SIZE_VER2;	/* knows nothing of trace_flags */
		if (ioctl(dev, MEMTRACE_IOC_CONFIG, &cfg))
			return fail("configure");
	} else if (mtt_config(dev, &cfg)) {
		return fail("configure");
	}
	if (mtt_set_buffer(dev, BUF_SIZE))
		return fail("configure");
	map = mmap(NULL, BUF_SIZE, PROT_READ, MAP_SHARED, dev, 0);
	if (map == MAP_FAILED || ioctl(dev, MEMTRACE_IOC_START))
		return fail("start");
	if (trace) {
		unsigned long long end = now_ms() + ms;

		printf("tracing\n");
		fflush(stdout);
		while (now_ms() < end)
			read_trace(dev, 50);
	} else {
		usleep(ms * 1000);
	}
	h = map;
	for (int tries = 0; tries < 250; tries++) {
		if (mtt_snapshot(dev, &req, 0))
			return fail("snapshot");
		if (h->activity.allocs_recorded)
			break;
		usleep(20000);
	}
	printf("recorded %llu allocations (%llu live)\n",
	       (unsigned long long)h->activity.allocs_recorded,
	       (unsigned long long)h->activity.live_entries);
	fflush(stdout);
	if (!abrupt && ioctl(dev, MEMTRACE_IOC_STOP))
		return fail("stop");
	if (trace && !abrupt) {
		/* Stopped: what the ring still holds, then the end of file. */
		while (read_trace(dev, 0) > 0)
			;
		printf("trace: %llu allocs, %llu frees\n", trace_allocs, trace_frees);
	}
	return h->activity.allocs_recorded ? 0 : 1;
}
