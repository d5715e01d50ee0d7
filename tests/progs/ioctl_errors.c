// SPDX-License-Identifier: GPL-2.0
/*
 * Bad input to /dev/memtrace: every malformed request gets a clear errno
 * and leaves the module usable.  Prints one TAP line per check.
 * Run as root in a guest with memtrace.ko loaded and no other reader.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/memtrace.h>

static int failures;

/* Expect 'ret' to be -1 with errno 'want' (0: expect success). */
static void expect(const char *what, int ret, int want)
{
	int got = ret < 0 ? errno : 0;

	if (got == want) {
		printf("ok - %s\n", what);
	} else {
		printf("not ok - %s (expected %s, got %s)\n", what,
		       want ? strerror(want) : "success", got ? strerror(got) : "success");
		failures++;
	}
}

static int open_dev(void)
{
	int fd = open(MEMTRACE_DEVICE, O_RDWR);

	if (fd < 0) {
		printf("not ok - open %s: %s\n", MEMTRACE_DEVICE, strerror(errno));
		exit(1);
	}
	return fd;
}

static int handshake(int fd)
{
	struct memtrace_version v = { .abi_version = MEMTRACE_ABI_VERSION };

	return ioctl(fd, MEMTRACE_IOC_VERSION, &v);
}

static int config(int fd, struct memtrace_config *c)
{
	c->size = sizeof(*c);
	return ioctl(fd, MEMTRACE_IOC_CONFIG, c);
}

static int set_buffer(int fd, uint64_t size)
{
	return ioctl(fd, MEMTRACE_IOC_SET_BUFFER, &size);
}

static int snapshot(int fd, struct memtrace_snapshot_req *r)
{
	memset(r, 0, sizeof(*r));
	r->size = sizeof(*r);
	return ioctl(fd, MEMTRACE_IOC_SNAPSHOT, r);
}

/* User mode's target and uprobes, the trace ring's configuration and read(2). */
static void user_mode_errors(int fd)
{
	struct memtrace_target t = { .size = sizeof(t) };
	struct memtrace_uprobe u = { .size = sizeof(u), .offset = 0x1000,
				     .func = MEMTRACE_UFN_MALLOC };
	struct memtrace_trace_rec rec;
	struct memtrace_config c;
	int exe = open("/proc/self/exe", O_RDONLY), dir = open("/", O_RDONLY);

	u.fd = exe;
	expect("uprobe before any target", ioctl(fd, MEMTRACE_IOC_UPROBE, &u), ESRCH);
	t.pid = -1;
	expect("negative target pid", ioctl(fd, MEMTRACE_IOC_TARGET, &t), EINVAL);
	t.pid = 0x7ffffff0;
	expect("target pid that does not exist", ioctl(fd, MEMTRACE_IOC_TARGET, &t), ESRCH);
	t.pid = 2;
	expect("kernel thread as target", ioctl(fd, MEMTRACE_IOC_TARGET, &t), EINVAL);
	t.pid = getpid();
	t.flags = 1U << 5;
	expect("unknown target flags", ioctl(fd, MEMTRACE_IOC_TARGET, &t), EINVAL);
	t.flags = 0;
	expect("this process as target", ioctl(fd, MEMTRACE_IOC_TARGET, &t), 0);
	u.func = 0;
	expect("uprobe of function 0", ioctl(fd, MEMTRACE_IOC_UPROBE, &u), EINVAL);
	u.func = MEMTRACE_UFN_MAX + 1;
	expect("uprobe of an unknown function", ioctl(fd, MEMTRACE_IOC_UPROBE, &u), EINVAL);
	u.func = MEMTRACE_UFN_MALLOC;
	u.fd = -1;
	expect("uprobe with a bad descriptor", ioctl(fd, MEMTRACE_IOC_UPROBE, &u), EBADF);
	u.fd = dir;
	expect("uprobe in a directory", ioctl(fd, MEMTRACE_IOC_UPROBE, &u), EINVAL);
	u.fd = exe;
	u.offset = 1ULL << 40;
	expect("uprobe beyond the end of the file", ioctl(fd, MEMTRACE_IOC_UPROBE, &u), EINVAL);
	u.offset = 0x1000;
	u.__pad = 1;
	expect("uprobe with non-zero padding", ioctl(fd, MEMTRACE_IOC_UPROBE, &u), EINVAL);
	u.__pad = 0;
	expect("uprobe", ioctl(fd, MEMTRACE_IOC_UPROBE, &u), 0);
	expect("the same uprobe twice is refused", ioctl(fd, MEMTRACE_IOC_UPROBE, &u), EEXIST);

	memset(&c, 0, sizeof(c));
	c.events = MEMTRACE_EV_USER | MEMTRACE_EV_KMALLOC;
	expect("user and kernel events together", config(fd, &c), EINVAL);
	memset(&c, 0, sizeof(c));
	c.flags = 1U << 9;
	expect("unknown config flags", config(fd, &c), EINVAL);
	memset(&c, 0, sizeof(c));
	c.flags = MEMTRACE_CFG_TRACE;
	c.trace_records = 1U << 30;
	expect("trace ring beyond the maximum", config(fd, &c), EINVAL);
	expect("read(2) into less than one record",
	       read(fd, &rec, sizeof(rec) - 1) < 0 ? -1 : 0, EINVAL);

	t.pid = 0;
	expect("no target", ioctl(fd, MEMTRACE_IOC_TARGET, &t), 0);
	memset(&c, 0, sizeof(c));
	c.events = MEMTRACE_EV_USER;
	expect("user events", config(fd, &c), 0);
	expect("start in user mode without a target", ioctl(fd, MEMTRACE_IOC_START), ESRCH);
	memset(&c, 0, sizeof(c));
	expect("back to the default configuration", config(fd, &c), 0);
	close(exe);
	close(dir);
}

int main(void)
{
	struct memtrace_version v = { .abi_version = MEMTRACE_ABI_VERSION + 100 };
	struct memtrace_snapshot_req req;
	struct memtrace_config c;
	unsigned char big[512];
	int fd = open_dev(), fd2;
	size_t map_len;
	void *map;

	/* The handshake comes first, and must name our ABI version. */
	expect("ioctl before the version handshake is refused", ioctl(fd, MEMTRACE_IOC_START), EPROTO);
	expect("wrong ABI version is refused", ioctl(fd, MEMTRACE_IOC_VERSION, &v), EPROTO);
	expect("the refusal reports the module's ABI version", v.abi_version == MEMTRACE_ABI_VERSION ? 0 : -1, 0);
	expect("still refused after a failed handshake", ioctl(fd, MEMTRACE_IOC_START), EPROTO);
	expect("handshake with our ABI version", handshake(fd), 0);
	expect("bad pointer to the handshake", ioctl(fd, MEMTRACE_IOC_VERSION, (void *)8), EFAULT);
	expect("unknown ioctl", ioctl(fd, _IO(MEMTRACE_IOC_MAGIC, 0x7f)), ENOTTY);

	/* Configuration is validated as a whole. */
	memset(&c, 0, sizeof(c));
	c.events = 1U << 30;
	expect("unknown event bits", config(fd, &c), EINVAL);
	memset(&c, 0, sizeof(c));
	c.min_size = 100;
	c.max_size = 10;
	expect("min size above max size", config(fd, &c), EINVAL);
	memset(&c, 0, sizeof(c));
	c.stack_depth = MEMTRACE_MAX_FRAMES + 1;
	expect("stack depth beyond the maximum", config(fd, &c), EINVAL);
	memset(&c, 0, sizeof(c));
	c.sample_every = 10;
	c.sample_bytes = 4096;
	expect("count and byte sampling together", config(fd, &c), EINVAL);
	memset(&c, 0, sizeof(c));
	c.nr_caches = MEMTRACE_MAX_CACHE_FILTERS + 1;
	expect("too many cache filters", config(fd, &c), EINVAL);
	memset(&c, 0, sizeof(c));
	c.nr_caches = 1;
	strcpy(c.caches[0], "no_such_cache_xyz");
	expect("unknown cache name", config(fd, &c), ENOENT);
	memset(&c, 0, sizeof(c));
	c.nr_caches = 1;
	memset(c.caches[0], 'a', MEMTRACE_NAME_LEN);
	expect("unterminated cache name", config(fd, &c), EINVAL);
	memset(&c, 0, sizeof(c));
	c.nr_caches = 1;
	strcpy(c.caches[0], "../kmalloc-64");
	expect("cache name with a path", config(fd, &c), EINVAL);
	memset(&c, 0, sizeof(c));
	c.size = 8;
	expect("config smaller than ABI version 0", ioctl(fd, MEMTRACE_IOC_CONFIG, &c), EINVAL);
	memset(big, 0, sizeof(big));
	*(uint32_t *)big = sizeof(big);
	expect("config from a newer reader, zero tail", ioctl(fd, MEMTRACE_IOC_CONFIG, big), 0);
	big[sizeof(big) - 1] = 1;
	expect("config from a newer reader, unknown non-zero tail", ioctl(fd, MEMTRACE_IOC_CONFIG, big), EINVAL);
	memset(&c, 0, sizeof(c));
	c.nr_caches = 1;
	strcpy(c.caches[0], "kmalloc-64");
	expect("a real cache name", config(fd, &c), 0);
	memset(&c, 0, sizeof(c));
	expect("default configuration", config(fd, &c), 0);

	/* Buffers and snapshots. */
	expect("snapshot before any buffer", snapshot(fd, &req), ENOBUFS);
	expect("mmap before any buffer",
	       mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0) == MAP_FAILED ? -1 : 0, ENOBUFS);
	expect("zero buffer size", set_buffer(fd, 0), EINVAL);
	expect("unaligned buffer size", set_buffer(fd, 4097), EINVAL);
	expect("huge buffer size", set_buffer(fd, 1ULL << 50), EINVAL);
	expect("one-page buffer", set_buffer(fd, 4096), 0);
	expect("writable mapping refused",
	       mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) == MAP_FAILED ? -1 : 0, EPERM);
	expect("mapping larger than the buffer",
	       mmap(NULL, 8192, PROT_READ, MAP_SHARED, fd, 0) == MAP_FAILED ? -1 : 0, EINVAL);
	expect("mapping at an offset",
	       mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 4096) == MAP_FAILED ? -1 : 0, EINVAL);
	map = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	expect("read-only mapping", map == MAP_FAILED ? -1 : 0, 0);
	expect("snapshot with no trace ever run", snapshot(fd, &req), ENODATA);
	expect("stop with no trace running", ioctl(fd, MEMTRACE_IOC_STOP), EINVAL);

	/* One session at a time. */
	expect("start", ioctl(fd, MEMTRACE_IOC_START), 0);
	expect("start twice", ioctl(fd, MEMTRACE_IOC_START), EBUSY);
	expect("configure while tracing", config(fd, &c), EBUSY);
	fd2 = open_dev();
	expect("second reader: handshake", handshake(fd2), 0);
	expect("second reader cannot start", ioctl(fd2, MEMTRACE_IOC_START), EBUSY);
	{
		struct memtrace_uprobe u = { .size = sizeof(u), .offset = 0x1000,
					     .func = MEMTRACE_UFN_MALLOC };

		u.fd = open("/proc/self/exe", O_RDONLY);
		expect("second reader cannot hand over a uprobe while another traces",
		       ioctl(fd2, MEMTRACE_IOC_UPROBE, &u), EBUSY);
		close(u.fd);
	}

	memset(&req, 0, sizeof(req));
	req.size = sizeof(req);
	req.flags = 1U << 7;
	expect("unknown snapshot flags", ioctl(fd, MEMTRACE_IOC_SNAPSHOT, &req), EINVAL);
	/* A busy kernel outgrows one page: the module says how much will do. */
	system("ls -R /sys/kernel >/dev/null 2>&1");
	memset(&req, 0, sizeof(req));
	req.size = sizeof(req);
	req.flags = MEMTRACE_SNAP_ALLOCS;
	expect("snapshot into a too small buffer", ioctl(fd, MEMTRACE_IOC_SNAPSHOT, &req), ENOSPC);
	expect("the module says how big a buffer must be", req.needed > 4096 ? 0 : -1, 0);
	expect("bigger buffer while the old one is mapped", set_buffer(fd, req.needed), 0);
	expect("the old mapping stays readable",
	       ((struct memtrace_snap_header *)map)->magic == MEMTRACE_SNAP_MAGIC ||
	       ((struct memtrace_snap_header *)map)->magic == 0 ? 0 : -1, 0);
	munmap(map, 4096);
	map_len = req.needed;
	map = mmap(NULL, map_len, PROT_READ, MAP_SHARED, fd, 0);
	expect("map the bigger buffer", map == MAP_FAILED ? -1 : 0, 0);
	req.flags = MEMTRACE_SNAP_ALLOCS;
	expect("snapshot now fits", ioctl(fd, MEMTRACE_IOC_SNAPSHOT, &req), 0);
	expect("snapshot header is valid",
	       ((struct memtrace_snap_header *)map)->magic == MEMTRACE_SNAP_MAGIC &&
	       ((struct memtrace_snap_header *)map)->state == MEMTRACE_STATE_TRACING ? 0 : -1, 0);

	/*
	 * Closing the file that started tracing stops it: nothing is left
	 * behind.  A mapping holds the file open, so unmap first (a killed
	 * reader loses both at once).
	 */
	munmap(map, map_len);
	close(fd);
	expect("second reader: buffer", set_buffer(fd2, 1 << 20), 0);
	map = mmap(NULL, 1 << 20, PROT_READ, MAP_SHARED, fd2, 0);
	expect("second reader: snapshot after the owner closed", snapshot(fd2, &req), 0);
	expect("tracing stopped with its owner",
	       map != MAP_FAILED && ((struct memtrace_snap_header *)map)->state == MEMTRACE_STATE_STOPPED ? 0 : -1, 0);
	expect("second reader can start now", ioctl(fd2, MEMTRACE_IOC_START), 0);
	expect("clear while tracing", ioctl(fd2, MEMTRACE_IOC_CLEAR), 0);
	expect("stop", ioctl(fd2, MEMTRACE_IOC_STOP), 0);
	expect("clear while stopped", ioctl(fd2, MEMTRACE_IOC_CLEAR), 0);
	expect("snapshot after clear has no data", snapshot(fd2, &req), ENODATA);
	user_mode_errors(fd2);
	close(fd2);
	return failures ? 1 : 0;
}
