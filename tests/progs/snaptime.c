// SPDX-License-Identifier: GPL-2.0
/*
 * snaptime: the smallest memtrace session, for the scale benchmarks
 * (tests/bench/scale.sh): trace kernel allocations (the default
 * configuration, as memtrace-read --kernel-leaks), print "ready" once
 * tracing, then on each SIGUSR1 take one snapshot (no allocation records,
 * as memtrace-read without -a) and print how long the MEMTRACE_IOC_SNAPSHOT
 * ioctl took with the header's counters:
 *   snap ns=N used=BYTES live=N capacity=N grows=N stacks=N recorded=N
 *        matched=N live_full=N stack_full=N stat_full=N lost=N
 * (one line; lost: every loss counter but frees of untracked addresses).
 * SIGINT or SIGTERM prints a last one, stops tracing and exits.
 * Run as root in a guest with memtrace.ko loaded and no other reader.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <linux/memtrace.h>

static int fd = -1;
static void *map;
static uint64_t map_size;

static void die(const char *what)
{
	fprintf(stderr, "snaptime: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void set_buffer(uint64_t size)
{
	size = (size + 4095) & ~(uint64_t)4095;
	if (map)
		munmap(map, map_size);
	map = NULL;
	if (ioctl(fd, MEMTRACE_IOC_SET_BUFFER, &size) < 0)
		die("set buffer");
	map = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		die("mmap");
	map_size = size;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void snap(void)
{
	struct memtrace_snapshot_req req;
	const struct memtrace_snap_header *h;
	const struct memtrace_activity *a;
	const struct memtrace_loss *l;
	uint64_t t0, ns;

	for (;;) {
		memset(&req, 0, sizeof(req));
		req.size = sizeof(req);
		t0 = now_ns();
		if (ioctl(fd, MEMTRACE_IOC_SNAPSHOT, &req) == 0)
			break;
		if (errno != ENOSPC || req.needed <= map_size)
			die("snapshot");
		set_buffer(req.needed + req.needed / 2);
	}
	ns = now_ns() - t0;
	h = map;
	a = &h->activity;
	l = &h->loss;
	printf("snap ns=%llu used=%llu live=%llu capacity=%llu grows=%llu stacks=%llu "
	       "recorded=%llu matched=%llu live_full=%llu stack_full=%llu stat_full=%llu "
	       "lost=%llu\n",
	       (unsigned long long)ns, (unsigned long long)req.used,
	       (unsigned long long)a->live_entries, (unsigned long long)a->live_capacity,
	       (unsigned long long)a->live_grows, (unsigned long long)a->stacks,
	       (unsigned long long)a->allocs_recorded, (unsigned long long)a->frees_matched,
	       (unsigned long long)l->live_full, (unsigned long long)l->stack_full,
	       (unsigned long long)l->stat_full,
	       (unsigned long long)(l->recursion + l->nmi + l->live_full + l->stack_full +
				    l->stat_full + l->cache_full + l->comm_full +
				    l->calls_full + l->trace_full));
	fflush(stdout);
}

int main(void)
{
	struct memtrace_version v = { .abi_version = MEMTRACE_ABI_VERSION };
	struct memtrace_config c;
	sigset_t set;
	int sig;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_BLOCK, &set, NULL);

	fd = open(MEMTRACE_DEVICE, O_RDWR);
	if (fd < 0)
		die("open " MEMTRACE_DEVICE);
	if (ioctl(fd, MEMTRACE_IOC_VERSION, &v) < 0)
		die("version handshake");
	memset(&c, 0, sizeof(c));
	c.size = sizeof(c);
	if (ioctl(fd, MEMTRACE_IOC_CONFIG, &c) < 0)
		die("config");
	set_buffer(1 << 20);
	if (ioctl(fd, MEMTRACE_IOC_START) < 0)
		die("start");
	printf("ready\n");
	fflush(stdout);
	for (;;) {
		if (sigwait(&set, &sig))
			die("sigwait");
		snap();
		if (sig != SIGUSR1)
			break;
	}
	if (ioctl(fd, MEMTRACE_IOC_STOP) < 0)
		die("stop");
	return 0;
}
