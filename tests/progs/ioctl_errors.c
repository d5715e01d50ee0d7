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

#include "mtt.h"

/* A /proc/meminfo or /sys value in its own unit; 0 if unreadable. */
static uint64_t read_number(const char *path, const char *key)
{
	char line[256];
	uint64_t v = 0;
	size_t klen = strlen(key);
	FILE *f = fopen(path, "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, klen)) {
			v = strtoull(line + klen, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

#define MAX_BUFFER_PARAM "/sys/module/memtrace/parameters/max_buffer_mb"

static bool write_number(const char *path, uint64_t v)
{
	FILE *f = fopen(path, "w");
	bool ok;

	if (!f)
		return false;
	ok = fprintf(f, "%llu\n", (unsigned long long)v) > 0;
	return fclose(f) == 0 && ok;
}

/*
 * A buffer max_buffer_mb allows (raised for the test if need be) but that
 * would take most of the memory available: ENOMEM, not the OOM killer
 * ending other processes.
 */
static void buffer_above_memory(int fd)
{
	uint64_t avail = read_number("/proc/meminfo", "MemAvailable:") << 10;
	uint64_t max_mb = read_number(MAX_BUFFER_PARAM, "");
	uint64_t size = (avail / 4 * 3) & ~(uint64_t)4095;

	if (!avail || !max_mb) {
		mtt_check("MemAvailable and max_buffer_mb read", false, "%s", "unreadable");
		return;
	}
	if (size > max_mb << 20 && !write_number(MAX_BUFFER_PARAM, (size >> 20) + 1)) {
		mtt_check("max_buffer_mb raised for a buffer of 3/4 of the available memory", false, "%s", strerror(errno));
		return;
	}
	mtt_expect("a buffer of 3/4 of the available memory", mtt_set_buffer(fd, size), ENOMEM);
	write_number(MAX_BUFFER_PARAM, max_mb);
}

/*
 * Unwind tables (MEMTRACE_IOC_UNWIND_TABLE), for a target set: every
 * malformed header and corrupt table refused, a good one loaded once,
 * shared by build id, and the bounds kept.
 */
static void unwind_table_errors(int fd, int exe, int dir)
{
	struct memtrace_unwind_row rows[3] = {
		{ .start = 0x100, .cfa_reg = MEMTRACE_UNW_CFA_RSP, .cfa_off = 8, .ra_off = -8 },
		{ .start = 0x104, .cfa_reg = MEMTRACE_UNW_CFA_RSP, .cfa_off = 16, .ra_off = -8 },
		{ .start = 0x120, .cfa_reg = MEMTRACE_UNW_CFA_NONE },
	};
	struct memtrace_unwind_table t = {
		.size = sizeof(t), .version = MEMTRACE_UNWIND_TABLE_VERSION, .fd = exe,
		.nr_rows = 3, .rows = (uintptr_t)rows, .row_size = sizeof(rows[0]),
		.build_id_len = 4, .build_id = { 1, 2, 3, 4 },
	};
	struct memtrace_unwind_table b;

#define MT_UNW_EXPECT(desc, field, value, err) do {				\
		b = t;								\
		b.field = value;						\
		mtt_expect(desc, ioctl(fd, MEMTRACE_IOC_UNWIND_TABLE, &b), err);	\
	} while (0)
	MT_UNW_EXPECT("unwind table of an unknown version", version, 2, EINVAL);
	MT_UNW_EXPECT("unwind table with another row size", row_size, 12, EINVAL);
	MT_UNW_EXPECT("unwind table with a 21-byte build id", build_id_len, 21, EINVAL);
	MT_UNW_EXPECT("unwind table with non-zero padding", __pad, 1, EINVAL);
	MT_UNW_EXPECT("unwind table with a bad descriptor", fd, -1, EBADF);
	MT_UNW_EXPECT("unwind table of a directory", fd, dir, EINVAL);
	MT_UNW_EXPECT("unwind table at a bad address", rows, 16, EFAULT);
	MT_UNW_EXPECT("unwind table of no rows, new build id", nr_rows, 0, EINVAL);
	MT_UNW_EXPECT("unwind table of too many rows", nr_rows, MEMTRACE_UNW_MAX_ROWS + 1, EINVAL);
	rows[1].start = 0x80;
	mtt_expect("unwind table not sorted", ioctl(fd, MEMTRACE_IOC_UNWIND_TABLE, &t), EINVAL);
	rows[1].start = 0x100;
	mtt_expect("unwind table with a start twice", ioctl(fd, MEMTRACE_IOC_UNWIND_TABLE, &t),
		   EINVAL);
	rows[1].start = 0x104;
	rows[2].start = 0x7fffffff;
	mtt_expect("unwind table beyond the end of the file",
		   ioctl(fd, MEMTRACE_IOC_UNWIND_TABLE, &t), EINVAL);
	rows[2].start = 0x120;
	rows[1].cfa_off = 0;
	mtt_expect("unwind table with its CFA at the stack pointer",
		   ioctl(fd, MEMTRACE_IOC_UNWIND_TABLE, &t), EINVAL);
	rows[1].cfa_off = 16;
	rows[1].ra_off = -4;
	mtt_expect("unwind table with a misaligned return address",
		   ioctl(fd, MEMTRACE_IOC_UNWIND_TABLE, &t), EINVAL);
	rows[1].ra_off = -8;
	rows[0].cfa_reg = MEMTRACE_UNW_CFA_MAX + 1;
	mtt_expect("unwind table with an unknown rule", ioctl(fd, MEMTRACE_IOC_UNWIND_TABLE, &t),
		   EINVAL);
	rows[0].cfa_reg = MEMTRACE_UNW_CFA_RSP;
	mtt_expect("unwind table", ioctl(fd, MEMTRACE_IOC_UNWIND_TABLE, &t), 0);
	mtt_expect("the same file's table twice is refused",
		   ioctl(fd, MEMTRACE_IOC_UNWIND_TABLE, &t), EEXIST);
	{
		/* Files of 16 and 4096 bytes: the table (rows to 0x120) fits only the second. */
		char small[] = "/tmp/mt-unw-XXXXXX", big[] = "/tmp/mt-unw-XXXXXX";
		int s = mkstemp(small), g = mkstemp(big);
		static const char page[4096];

		if (s < 0 || g < 0 || write(s, page, 16) != 16 || write(g, page, 4096) != 4096) {
			mtt_expect("temporary files", -1, 0);
		} else {
			b = t;
			b.fd = s;
			b.nr_rows = 0;
			mtt_expect("a table shared by build id with a file it does not fit",
				   ioctl(fd, MEMTRACE_IOC_UNWIND_TABLE, &b), EINVAL);
			b.fd = g;
			mtt_expect("a table shared by build id, no rows handed again",
				   ioctl(fd, MEMTRACE_IOC_UNWIND_TABLE, &b), 0);
		}
		close(s);
		close(g);
		unlink(small);
		unlink(big);
	}
	/* Beyond unwind_table_mb (64 MiB by default) with the first one loaded: before any copy. */
	t.build_id_len = 0;
	MT_UNW_EXPECT("unwind tables beyond the module's bound", nr_rows, MEMTRACE_UNW_MAX_ROWS,
		      ENOSPC);
#undef MT_UNW_EXPECT
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
	mtt_expect("uprobe before any target", ioctl(fd, MEMTRACE_IOC_UPROBE, &u), ESRCH);
	{
		struct memtrace_unwind_table ut = {
			.size = sizeof(ut), .version = MEMTRACE_UNWIND_TABLE_VERSION, .fd = exe,
		};

		mtt_expect("unwind table before any target",
			   ioctl(fd, MEMTRACE_IOC_UNWIND_TABLE, &ut), ESRCH);
	}
	t.pid = -1;
	mtt_expect("negative target pid", ioctl(fd, MEMTRACE_IOC_TARGET, &t), EINVAL);
	t.pid = 0x7ffffff0;
	mtt_expect("target pid that does not exist", ioctl(fd, MEMTRACE_IOC_TARGET, &t), ESRCH);
	t.pid = 2;
	mtt_expect("kernel thread as target", ioctl(fd, MEMTRACE_IOC_TARGET, &t), EINVAL);
	t.pid = getpid();
	t.flags = 1U << 5;
	mtt_expect("unknown target flags", ioctl(fd, MEMTRACE_IOC_TARGET, &t), EINVAL);
	t.flags = 0;
	mtt_expect("this process as target", ioctl(fd, MEMTRACE_IOC_TARGET, &t), 0);
	u.func = 0;
	mtt_expect("uprobe of function 0", ioctl(fd, MEMTRACE_IOC_UPROBE, &u), EINVAL);
	u.func = MEMTRACE_UFN_MAX + 1;
	mtt_expect("uprobe of an unknown function", ioctl(fd, MEMTRACE_IOC_UPROBE, &u), EINVAL);
	u.func = MEMTRACE_UFN_MALLOC;
	u.fd = -1;
	mtt_expect("uprobe with a bad descriptor", ioctl(fd, MEMTRACE_IOC_UPROBE, &u), EBADF);
	u.fd = dir;
	mtt_expect("uprobe in a directory", ioctl(fd, MEMTRACE_IOC_UPROBE, &u), EINVAL);
	u.fd = exe;
	u.offset = 1ULL << 40;
	mtt_expect("uprobe beyond the end of the file", ioctl(fd, MEMTRACE_IOC_UPROBE, &u), EINVAL);
	u.offset = 0x1000;
	u.__pad = 1;
	mtt_expect("uprobe with non-zero padding", ioctl(fd, MEMTRACE_IOC_UPROBE, &u), EINVAL);
	u.__pad = 0;
	u.__pad2 = 1;
	mtt_expect("uprobe with non-zero padding at its end", ioctl(fd, MEMTRACE_IOC_UPROBE, &u),
		   EINVAL);
	u.__pad2 = 0;
	u.kind = MEMTRACE_UPROBE_RETURN_SITE + 1;
	mtt_expect("uprobe of an unknown kind", ioctl(fd, MEMTRACE_IOC_UPROBE, &u), EINVAL);
	u.kind = MEMTRACE_UPROBE_RETURN_SITE;
	u.offset = 0;
	mtt_expect("return site on no ret (the ELF header)", ioctl(fd, MEMTRACE_IOC_UPROBE, &u),
		   EINVAL);
	u.func = MEMTRACE_UFN_FREE;
	mtt_expect("return site of free (nothing to see at its return)",
		   ioctl(fd, MEMTRACE_IOC_UPROBE, &u), EINVAL);
	u.func = MEMTRACE_UFN_MALLOC;
	u.kind = MEMTRACE_UPROBE_CALL;
	u.offset = 0x1000;
	mtt_expect("uprobe", ioctl(fd, MEMTRACE_IOC_UPROBE, &u), 0);
	mtt_expect("the same uprobe twice is refused", ioctl(fd, MEMTRACE_IOC_UPROBE, &u), EEXIST);
	unwind_table_errors(fd, exe, dir);

	memset(&c, 0, sizeof(c));
	c.events = MEMTRACE_EV_USER | MEMTRACE_EV_KMALLOC;
	mtt_expect("user and kernel events together", mtt_config(fd, &c), EINVAL);
	memset(&c, 0, sizeof(c));
	c.flags = 1U << 9;
	mtt_expect("unknown config flags", mtt_config(fd, &c), EINVAL);
	memset(&c, 0, sizeof(c));
	c.flags = MEMTRACE_CFG_TRACE;
	c.trace_records = 1U << 30;
	mtt_expect("trace ring beyond the maximum", mtt_config(fd, &c), EINVAL);
	c.trace_records = 0;
	c.trace_flags = 1U << 7;
	mtt_expect("unknown trace flags", mtt_config(fd, &c), EINVAL);
	c.trace_flags = MEMTRACE_TRACEF_EVRING;
	c.__pad_trace = 1;
	mtt_expect("trace flags' padding not zero", mtt_config(fd, &c), EINVAL);
	memset(&c, 0, sizeof(c));
	c.trace_flags = MEMTRACE_TRACEF_EVRING;
	mtt_expect("trace records in the rings without trace records", mtt_config(fd, &c), EINVAL);
	c.flags = MEMTRACE_CFG_TRACE;
	mtt_expect("trace records in the rings", mtt_config(fd, &c), 0);
	mtt_expect("read(2) into less than one record",
	       read(fd, &rec, sizeof(rec) - 1) < 0 ? -1 : 0, EINVAL);

	t.pid = 0;
	mtt_expect("no target", ioctl(fd, MEMTRACE_IOC_TARGET, &t), 0);
	memset(&c, 0, sizeof(c));
	c.events = MEMTRACE_EV_USER;
	mtt_expect("user events", mtt_config(fd, &c), 0);
	mtt_expect("start in user mode without a target", ioctl(fd, MEMTRACE_IOC_START), ESRCH);
	memset(&c, 0, sizeof(c));
	mtt_expect("back to the default configuration", mtt_config(fd, &c), 0);
	close(exe);
	close(dir);
}

int main(void)
{
	struct memtrace_version v = { .abi_version = MEMTRACE_ABI_VERSION + 100 };
	struct memtrace_snapshot_req req;
	struct memtrace_config c;
	unsigned char big[512];
	int fd = mtt_open(), fd2;
	size_t map_len;
	void *map;

	/* The handshake comes first, and must name our ABI version. */
	mtt_expect("ioctl before the version handshake is refused", ioctl(fd, MEMTRACE_IOC_START), EPROTO);
	mtt_expect("wrong ABI version is refused", ioctl(fd, MEMTRACE_IOC_VERSION, &v), EPROTO);
	mtt_expect("the refusal reports the module's ABI version", v.abi_version == MEMTRACE_ABI_VERSION ? 0 : -1, 0);
	mtt_expect("still refused after a failed handshake", ioctl(fd, MEMTRACE_IOC_START), EPROTO);
	mtt_expect("handshake with our ABI version", mtt_handshake(fd), 0);
	mtt_expect("bad pointer to the handshake", ioctl(fd, MEMTRACE_IOC_VERSION, (void *)8), EFAULT);
	mtt_expect("unknown ioctl", ioctl(fd, _IO(MEMTRACE_IOC_MAGIC, 0x7f)), ENOTTY);

	/* Configuration is validated as a whole. */
	memset(&c, 0, sizeof(c));
	c.events = 1U << 30;
	mtt_expect("unknown event bits", mtt_config(fd, &c), EINVAL);
	memset(&c, 0, sizeof(c));
	c.events = MEMTRACE_EV_USER | MEMTRACE_EV_MMAP;
	mtt_expect("user mode with system call events", mtt_config(fd, &c), EINVAL);
	memset(&c, 0, sizeof(c));
	c.min_size = 100;
	c.max_size = 10;
	mtt_expect("min size above max size", mtt_config(fd, &c), EINVAL);
	memset(&c, 0, sizeof(c));
	c.stack_depth = MEMTRACE_MAX_FRAMES + 1;
	mtt_expect("stack depth beyond the maximum", mtt_config(fd, &c), EINVAL);
	memset(&c, 0, sizeof(c));
	c.sample_every = 10;
	c.sample_bytes = 4096;
	mtt_expect("count and byte sampling together", mtt_config(fd, &c), EINVAL);
	memset(&c, 0, sizeof(c));
	c.nr_caches = MEMTRACE_MAX_CACHE_FILTERS + 1;
	mtt_expect("too many cache filters", mtt_config(fd, &c), EINVAL);
	memset(&c, 0, sizeof(c));
	c.nr_caches = 1;
	strcpy(c.caches[0], "no_such_cache_xyz");
	mtt_expect("unknown cache name", mtt_config(fd, &c), ENOENT);
	memset(&c, 0, sizeof(c));
	c.nr_caches = 1;
	memset(c.caches[0], 'a', MEMTRACE_NAME_LEN);
	mtt_expect("unterminated cache name", mtt_config(fd, &c), EINVAL);
	memset(&c, 0, sizeof(c));
	c.nr_caches = 1;
	strcpy(c.caches[0], "../kmalloc-64");
	mtt_expect("cache name with a path", mtt_config(fd, &c), EINVAL);
	memset(&c, 0, sizeof(c));
	c.size = 8;
	mtt_expect("config smaller than ABI version 0", ioctl(fd, MEMTRACE_IOC_CONFIG, &c), EINVAL);
	memset(big, 0, sizeof(big));
	*(uint32_t *)big = sizeof(big);
	mtt_expect("config from a newer reader, zero tail", ioctl(fd, MEMTRACE_IOC_CONFIG, big), 0);
	big[sizeof(big) - 1] = 1;
	mtt_expect("config from a newer reader, unknown non-zero tail", ioctl(fd, MEMTRACE_IOC_CONFIG, big), EINVAL);
	memset(&c, 0, sizeof(c));
	c.nr_caches = 1;
	strcpy(c.caches[0], "kmalloc-64");
	mtt_expect("a real cache name", mtt_config(fd, &c), 0);
	memset(&c, 0, sizeof(c));
	mtt_expect("default configuration", mtt_config(fd, &c), 0);

	/* Buffers and snapshots. */
	mtt_expect("snapshot before any buffer", mtt_snapshot(fd, &req, 0), ENOBUFS);
	mtt_expect("mmap before any buffer",
	       mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0) == MAP_FAILED ? -1 : 0, ENOBUFS);
	mtt_expect("zero buffer size", mtt_set_buffer(fd, 0), EINVAL);
	mtt_expect("unaligned buffer size", mtt_set_buffer(fd, 4097), EINVAL);
	mtt_expect("huge buffer size", mtt_set_buffer(fd, 1ULL << 50), EINVAL);
	buffer_above_memory(fd);
	mtt_expect("one-page buffer", mtt_set_buffer(fd, 4096), 0);
	mtt_expect("writable mapping refused",
	       mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) == MAP_FAILED ? -1 : 0, EPERM);
	mtt_expect("mapping larger than the buffer",
	       mmap(NULL, 8192, PROT_READ, MAP_SHARED, fd, 0) == MAP_FAILED ? -1 : 0, EINVAL);
	mtt_expect("mapping at an offset",
	       mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 4096) == MAP_FAILED ? -1 : 0, EINVAL);
	map = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	mtt_expect("read-only mapping", map == MAP_FAILED ? -1 : 0, 0);
	mtt_expect("snapshot with no trace ever run", mtt_snapshot(fd, &req, 0), ENODATA);
	mtt_expect("stop with no trace running", ioctl(fd, MEMTRACE_IOC_STOP), EINVAL);

	/* One session at a time. */
	mtt_expect("start", ioctl(fd, MEMTRACE_IOC_START), 0);
	mtt_expect("start twice", ioctl(fd, MEMTRACE_IOC_START), EBUSY);
	mtt_expect("configure while tracing", mtt_config(fd, &c), EBUSY);
	fd2 = mtt_open();
	mtt_expect("second reader: handshake", mtt_handshake(fd2), 0);
	mtt_expect("second reader cannot start", ioctl(fd2, MEMTRACE_IOC_START), EBUSY);
	mtt_expect("second reader cannot configure", mtt_config(fd2, &c), EBUSY);
	mtt_expect("second reader cannot stop the session", ioctl(fd2, MEMTRACE_IOC_STOP), EPERM);
	mtt_expect("second reader cannot clear it", ioctl(fd2, MEMTRACE_IOC_CLEAR), EPERM);
	mtt_expect("second reader cannot take a snapshot of it", mtt_snapshot(fd2, &req, 0), EPERM);
	{
		struct memtrace_evstats st = { .size = sizeof(st) };

		mtt_expect("second reader cannot read the event statistics",
			   ioctl(fd2, MEMTRACE_IOC_EVSTATS, &st), EPERM);
		st.size = 8;
		mtt_expect("event statistics smaller than ABI version 0",
			   ioctl(fd, MEMTRACE_IOC_EVSTATS, &st), EINVAL);
		st.size = sizeof(st);
		mtt_expect("event statistics of the session's owner",
			   ioctl(fd, MEMTRACE_IOC_EVSTATS, &st), 0);
	}
	{
		struct memtrace_uprobe u = { .size = sizeof(u), .offset = 0x1000,
					     .func = MEMTRACE_UFN_MALLOC };

		u.fd = open("/proc/self/exe", O_RDONLY);
		mtt_expect("second reader cannot hand over a uprobe while another traces",
			   ioctl(fd2, MEMTRACE_IOC_UPROBE, &u), EBUSY);
		close(u.fd);
	}

	memset(&req, 0, sizeof(req));
	req.size = sizeof(req);
	req.flags = 1U << 7;
	mtt_expect("unknown snapshot flags", ioctl(fd, MEMTRACE_IOC_SNAPSHOT, &req), EINVAL);
	/* A busy kernel outgrows one page: the module says how much will do. */
	system("ls -R /sys/kernel >/dev/null 2>&1");
	memset(&req, 0, sizeof(req));
	req.size = sizeof(req);
	req.flags = MEMTRACE_SNAP_ALLOCS;
	mtt_expect("snapshot into a too small buffer", ioctl(fd, MEMTRACE_IOC_SNAPSHOT, &req), ENOSPC);
	mtt_expect("the module says how big a buffer must be", req.needed > 4096 ? 0 : -1, 0);
	mtt_expect("bigger buffer while the old one is mapped", mtt_set_buffer(fd, req.needed), 0);
	mtt_expect("the old mapping stays readable",
	       ((struct memtrace_snap_header *)map)->magic == MEMTRACE_SNAP_MAGIC ||
	       ((struct memtrace_snap_header *)map)->magic == 0 ? 0 : -1, 0);
	munmap(map, 4096);
	map_len = req.needed;
	map = mmap(NULL, map_len, PROT_READ, MAP_SHARED, fd, 0);
	mtt_expect("map the bigger buffer", map == MAP_FAILED ? -1 : 0, 0);
	req.flags = MEMTRACE_SNAP_ALLOCS;
	mtt_expect("snapshot now fits", ioctl(fd, MEMTRACE_IOC_SNAPSHOT, &req), 0);
	mtt_expect("snapshot header is valid",
	       ((struct memtrace_snap_header *)map)->magic == MEMTRACE_SNAP_MAGIC &&
	       ((struct memtrace_snap_header *)map)->state == MEMTRACE_STATE_TRACING ? 0 : -1, 0);

	/*
	 * Closing the file that started tracing stops it: nothing is left
	 * behind.  A mapping holds the file open, so unmap first (a killed
	 * reader loses both at once).
	 */
	munmap(map, map_len);
	close(fd);
	mtt_expect("second reader: buffer", mtt_set_buffer(fd2, 1 << 20), 0);
	map = mmap(NULL, 1 << 20, PROT_READ, MAP_SHARED, fd2, 0);
	mtt_expect("second reader: nothing the closed session recorded is in view",
		   mtt_snapshot(fd2, &req, 0), ENODATA);
	mtt_expect("second reader can start now: tracing stopped with its owner",
		   ioctl(fd2, MEMTRACE_IOC_START), 0);
	mtt_expect("second reader: its own session in view", mtt_snapshot(fd2, &req, 0), 0);
	mtt_expect("second reader: its session is tracing",
		   map != MAP_FAILED &&
		   ((struct memtrace_snap_header *)map)->state == MEMTRACE_STATE_TRACING ? 0 : -1, 0);
	mtt_expect("clear while tracing", ioctl(fd2, MEMTRACE_IOC_CLEAR), 0);
	mtt_expect("stop", ioctl(fd2, MEMTRACE_IOC_STOP), 0);
	mtt_expect("clear while stopped", ioctl(fd2, MEMTRACE_IOC_CLEAR), 0);
	mtt_expect("snapshot after clear has no data", mtt_snapshot(fd2, &req, 0), ENODATA);
	user_mode_errors(fd2);
	close(fd2);
	return mtt_failures ? 1 : 0;
}
