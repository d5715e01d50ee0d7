// SPDX-License-Identifier: GPL-2.0
#include "device.h"
#include "version.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

/* errno values that mean the device no longer has a module behind it. */
static bool module_gone(int e)
{
	return e == ENODEV || e == EIO || e == ENXIO;
}

static int gone_error(const char *what, int e, struct mt_err *err)
{
	return mt_errf(err, ENODEV, "the memtrace module went away (%s: %s)", what, strerror(e));
}

/* ioctl, retried when a signal interrupts it (Ctrl+C is handled later). */
static int xioctl(int fd, unsigned long request, void *arg)
{
	int ret;

	do
		ret = ioctl(fd, request, arg);
	while (ret < 0 && errno == EINTR);
	return ret;
}

void device_events_str(uint32_t events, char *buf, size_t len)
{
	static const struct { uint32_t bit; const char *name; } names[] = {
		{ MEMTRACE_EV_KMALLOC, "kmalloc" }, { MEMTRACE_EV_CACHE, "cache" },
		{ MEMTRACE_EV_PAGE, "page" }, { MEMTRACE_EV_PERCPU, "percpu" },
		{ MEMTRACE_EV_VMALLOC, "vmalloc" },
	};
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < MT_ARRAY_SIZE(names); i++) {
		if (events & names[i].bit)
			used += snprintf(buf + used, used < len ? len - used : 0, "%s%s",
					 used ? " " : "", names[i].name);
	}
	if (!used)
		snprintf(buf, len, "none");
}

const char *device_kconfig_reason(const struct memtrace_version *v, uint32_t events)
{
	static const struct { uint32_t events, off; const char *why; } why[] = {
		{ MEMTRACE_EV_COMPACTION, MEMTRACE_KCONFIG_COMPACTION,
		  "the kernel is built without CONFIG_COMPACTION" },
		{ MEMTRACE_EV_MIGRATION, MEMTRACE_KCONFIG_MIGRATION,
		  "the kernel is built without CONFIG_MIGRATION" },
		/* Hooks a kernel has none of (MEMTRACE_NOHOOK_*): older kernels. */
		{ MEMTRACE_EV_MIGRATION, MEMTRACE_NOHOOK_MIGRATE_START,
		  "this kernel has no hook for it: no mm_migrate_pages_start tracepoint "
		  "(5.10 has none)" },
		{ MEMTRACE_EV_USER | MEMTRACE_EV_USDT, MEMTRACE_KCONFIG_UPROBES,
		  "the kernel is built without CONFIG_UPROBES" },
		{ MEMTRACE_EV_OOM | MEMTRACE_EV_VMALLOC | MEMTRACE_EV_GROWTH, MEMTRACE_KCONFIG_KPROBES,
		  "the kernel is built without CONFIG_KPROBES" },
		{ MEMTRACE_EV_VMALLOC | MEMTRACE_EV_GROWTH, MEMTRACE_KCONFIG_KRETPROBES,
		  "the kernel is built without CONFIG_KRETPROBES" },
	};

	for (size_t i = 0; i < MT_ARRAY_SIZE(why); i++)
		if ((events & why[i].events) && (v->kconfig_off & why[i].off))
			return why[i].why;
	return NULL;
}

static int handshake(struct mt_device *d, struct mt_err *err)
{
	struct memtrace_version *v = &d->version;

	memset(v, 0, sizeof(*v));
	v->abi_version = MEMTRACE_ABI_VERSION;
	if (xioctl(d->fd, MEMTRACE_IOC_VERSION, v) == 0) {
		v->module_version[sizeof(v->module_version) - 1] = '\0';
		/* Same ABI version: records may grow, never shrink. */
		if (v->header_size < sizeof(struct memtrace_snap_header) ||
		    v->stack_rec_size < sizeof(struct memtrace_stack_rec) ||
		    v->stat_rec_size < sizeof(struct memtrace_stat_rec) ||
		    v->alloc_rec_size < sizeof(struct memtrace_alloc_rec) ||
		    v->cache_rec_size < sizeof(struct memtrace_cache_rec))
			return mt_errf(err, EPROTO,
				       "memtrace.ko %s reports records smaller than ABI version %u "
				       "defines (header %u, stack %u, stat %u, alloc %u, cache %u "
				       "bytes): broken module build?", v->module_version,
				       MEMTRACE_ABI_VERSION, v->header_size, v->stack_rec_size,
				       v->stat_rec_size, v->alloc_rec_size, v->cache_rec_size);
		return 0;
	}
	if (errno == EPROTO) {
		v->module_version[sizeof(v->module_version) - 1] = '\0';
		if (v->abi_version != MEMTRACE_ABI_VERSION)
			return mt_errf(err, EPROTO,
				       "ABI mismatch: memtrace.ko %s speaks ABI version %u, "
				       "this memtrace-read (%s) speaks ABI version %u: "
				       "install matching versions",
				       v->module_version[0] ? v->module_version : "(unknown version)",
				       v->abi_version, MEMTRACE_READ_VERSION, MEMTRACE_ABI_VERSION);
		return mt_errf(err, EPROTO,
			       "ABI mismatch: memtrace.ko does not accept ABI version %u of this "
			       "memtrace-read (%s): install matching versions",
			       MEMTRACE_ABI_VERSION, MEMTRACE_READ_VERSION);
	}
	if (errno == EPERM)
		return mt_errf(err, EPERM, "%s: %s (memtrace-read needs CAP_PERFMON or "
			       "CAP_SYS_ADMIN)", d->path, strerror(errno));
	if (errno == ENOTTY || errno == EINVAL)
		return mt_errf(err, errno, "%s is not a memtrace device (version handshake: %s)",
			       d->path, strerror(errno));
	if (module_gone(errno))
		return gone_error("version handshake", errno, err);
	return mt_errf(err, errno, "version handshake with %s failed: %s", d->path,
		       strerror(errno));
}

int device_open(struct mt_device *d, const char *path, struct mt_err *err)
{
	int ret;

	memset(d, 0, sizeof(*d));
	d->fd = -1;
	if (!path)
		path = getenv(DEVICE_PATH_ENV);
	if (!path || !path[0])
		path = MEMTRACE_DEVICE;
	d->path = path;
	/* Non-blocking: trace records (-t) are drained, never waited for. */
	d->fd = open(path, O_RDWR | O_CLOEXEC | O_NONBLOCK);
	if (d->fd < 0) {
		int e = errno;

		if (e == ENOENT || module_gone(e))
			return mt_errf(err, ENOENT, "memtrace module not loaded: modprobe memtrace "
				       "(%s: %s)", path, strerror(e));
		if (e == EPERM)
			return mt_errf(err, e, "cannot open %s: %s (memtrace-read needs "
				       "CAP_PERFMON or CAP_SYS_ADMIN, and CAP_SYSLOG to see "
				       "kernel addresses)", path, strerror(e));
		if (e == EACCES)
			return mt_errf(err, e, "cannot open %s: %s (memtrace-read needs root, "
				       "or membership of the device's group and CAP_PERFMON)",
				       path, strerror(e));
		return mt_errf(err, e, "cannot open %s: %s", path, strerror(e));
	}
	ret = handshake(d, err);
	if (ret) {
		close(d->fd);
		d->fd = -1;
	}
	return ret;
}

int device_configure(struct mt_device *d, const struct memtrace_config *cfg,
		     struct mt_err *err)
{
	if (xioctl(d->fd, MEMTRACE_IOC_CONFIG, (void *)cfg) == 0)
		return 0;
	if (module_gone(errno))
		return gone_error("configure", errno, err);
	if (errno == EBUSY)
		return mt_errf(err, EBUSY, "cannot configure: tracing already running "
			       "(another memtrace-read?)");
	return mt_errf(err, errno, "the module rejected the configuration: %s", strerror(errno));
}

int device_set_buffer(struct mt_device *d, uint64_t size, struct mt_err *err)
{
	long page = sysconf(_SC_PAGESIZE);
	void *map;

	size = mt_align_up(size, page > 0 ? (uint64_t)page : 4096);
	if (size > DEVICE_MAX_BUFFER)
		return mt_errf(err, EFBIG, "a snapshot needs %llu MiB, more than the %llu MiB "
			       "this reader maps: raise -o, filter with -z/-Z/--cache, or sample",
			       (unsigned long long)(size >> 20),
			       (unsigned long long)(DEVICE_MAX_BUFFER >> 20));
	/*
	 * The old buffer stays mapped (and the module's) until the new one
	 * is there: a refused buffer leaves the reader as it was.
	 */
	if (xioctl(d->fd, MEMTRACE_IOC_SET_BUFFER, &size) < 0) {
		if (module_gone(errno))
			return gone_error("set buffer", errno, err);
		if (errno == EINVAL)
			return mt_errf(err, EINVAL, "the module refuses a %llu MiB snapshot buffer "
				       "(above its max_buffer_mb parameter?): raise -o, filter with "
				       "-z/-Z/--cache, or sample", (unsigned long long)(size >> 20));
		if (errno == ENOMEM)
			return mt_errf(err, ENOMEM, "the module could not get a %llu MiB snapshot buffer "
				       "(it refuses more than half the memory available): filter "
				       "with -z/-Z/--cache, or sample", (unsigned long long)(size >> 20));
		return mt_errf(err, errno, "the module could not set up a %llu KiB snapshot "
			       "buffer: %s", (unsigned long long)(size >> 10), strerror(errno));
	}
	if (d->map) {
		munmap(d->map, d->map_size);
		d->map = NULL;
		d->map_size = 0;
	}
	map = mmap(NULL, size, PROT_READ, MAP_SHARED, d->fd, 0);
	if (map == MAP_FAILED) {
		if (module_gone(errno))
			return gone_error("mmap", errno, err);
		return mt_errf(err, errno, "cannot map the %llu KiB snapshot buffer: %s",
			       (unsigned long long)(size >> 10), strerror(errno));
	}
	d->map = map;
	d->map_size = size;
	return 0;
}

int device_start(struct mt_device *d, struct mt_err *err)
{
	if (xioctl(d->fd, MEMTRACE_IOC_START, NULL) == 0) {
		d->tracing = true;
		return 0;
	}
	if (errno == EBUSY)
		return mt_errf(err, EBUSY, "tracing already running (another memtrace-read?)");
	if (errno == ESRCH)
		return mt_errf(err, ESRCH, "the traced process is gone");
	if (module_gone(errno))
		return gone_error("start", errno, err);
	return mt_errf(err, errno, "cannot start tracing: %s", strerror(errno));
}

int device_set_target(struct mt_device *d, int pid, bool follow_forks, struct mt_err *err)
{
	struct memtrace_target t = {
		.size = sizeof(t), .pid = pid,
		.flags = follow_forks ? MEMTRACE_TARGET_FOLLOW_FORKS : 0,
	};

	if (xioctl(d->fd, MEMTRACE_IOC_TARGET, &t) == 0)
		return 0;
	if (errno == ESRCH)
		return mt_errf(err, ESRCH, "pid %d: no such process (or it is exiting)", pid);
	if (errno == EPERM)
		return mt_errf(err, EPERM, "pid %d: not permitted to trace it (as for ptrace: "
			       "same user and dumpable, or CAP_SYS_PTRACE)", pid);
	if (errno == EINVAL)
		return mt_errf(err, EINVAL, "pid %d is a kernel thread: it has no user "
			       "allocations to trace", pid);
	if (errno == ENOTTY || errno == EOPNOTSUPP)
		return mt_errf(err, EOPNOTSUPP, "this module has no user mode (memtrace.ko %s, "
			       "or a kernel without uprobes)", d->version.module_version);
	if (module_gone(errno))
		return gone_error("set the target", errno, err);
	return mt_errf(err, errno, "cannot trace pid %d: %s", pid, strerror(errno));
}

int device_add_unwind_table(struct mt_device *d, int fd, const struct memtrace_unwind_row *rows,
			    size_t nr, const uint8_t *build_id, uint32_t build_id_len,
			    struct mt_err *err)
{
	struct memtrace_unwind_table t = {
		.size = sizeof(t), .version = MEMTRACE_UNWIND_TABLE_VERSION, .fd = fd,
		.nr_rows = (uint32_t)nr, .rows = (uint64_t)(uintptr_t)rows,
		.row_size = sizeof(*rows), .build_id_len = build_id_len,
	};

	if (nr > MEMTRACE_UNW_MAX_ROWS || build_id_len > sizeof(t.build_id))
		return mt_errf(err, E2BIG, "unwind table too large (%zu rows)", nr);
	memcpy(t.build_id, build_id, build_id_len);
	if (xioctl(d->fd, MEMTRACE_IOC_UNWIND_TABLE, &t) == 0 || errno == EEXIST)
		return 0;
	if (module_gone(errno))
		return gone_error("hand over an unwind table", errno, err);
	return mt_errf(err, errno, "the module refused an unwind table: %s",
		       errno == ENOSPC ? "its tables are full (module parameter unwind_table_mb)" :
		       strerror(errno));
}

int device_add_uprobe(struct mt_device *d, int fd, uint64_t offset, uint32_t func,
		      uint32_t kind, struct mt_err *err)
{
	struct memtrace_uprobe u = {
		.size = sizeof(u), .fd = fd, .offset = offset, .func = func, .kind = kind,
	};

	if (xioctl(d->fd, MEMTRACE_IOC_UPROBE, &u) == 0 || errno == EEXIST)
		return 0;
	if (module_gone(errno))
		return gone_error("add a uprobe", errno, err);
	if (errno == ENOSPC)
		return mt_errf(err, ENOSPC, "cannot probe offset 0x%llx: the module's uprobe table "
			       "is full (MEMTRACE_MAX_UPROBES, %d a session, return sites "
			       "included; --returns=uretprobe or fewer -O objects take fewer)",
			       (unsigned long long)offset, MEMTRACE_MAX_UPROBES);
	return mt_errf(err, errno, "cannot probe offset 0x%llx: %s",
		       (unsigned long long)offset, strerror(errno));
}

long device_read_trace(struct mt_device *d, struct memtrace_trace_rec *recs, size_t max,
		       struct mt_err *err)
{
	ssize_t n;

	do {
		n = read(d->fd, recs, max * sizeof(*recs));
	} while (n < 0 && errno == EINTR);
	if (n >= 0)
		return n / (ssize_t)sizeof(*recs);
	if (errno == EAGAIN)
		return 0;
	if (module_gone(errno))
		return gone_error("read trace records", errno, err);
	return mt_errf(err, errno, "cannot read trace records: %s", strerror(errno));
}

int device_stop(struct mt_device *d, struct mt_err *err)
{
	d->tracing = false;
	if (xioctl(d->fd, MEMTRACE_IOC_STOP, NULL) == 0)
		return 0;
	if (module_gone(errno))
		return gone_error("stop", errno, err);
	return mt_errf(err, errno, "cannot stop tracing: %s", strerror(errno));
}

/*
 * If the module tears the mapping down under us, touching it raises
 * SIGBUS (or SIGSEGV): catch that during the one copy out of the mapping
 * and report it instead of dying with the reports unexplained.
 */
static sigjmp_buf copy_jmp;
static volatile sig_atomic_t copy_active;

static void copy_fault(int sig)
{
	if (copy_active)
		siglongjmp(copy_jmp, 1);
	signal(sig, SIG_DFL);
	raise(sig);
}

static int guarded_copy(void *dst, const void *src, size_t len)
{
	struct sigaction sa, old_bus, old_segv;
	int faulted;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = copy_fault;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, &old_bus);
	sigaction(SIGSEGV, &sa, &old_segv);
	faulted = sigsetjmp(copy_jmp, 1);
	if (!faulted) {
		copy_active = 1;
		memcpy(dst, src, len);
	}
	copy_active = 0;
	sigaction(SIGBUS, &old_bus, NULL);
	sigaction(SIGSEGV, &old_segv, NULL);
	return faulted ? -EFAULT : 0;
}

int device_snapshot(struct mt_device *d, uint32_t flags, uint64_t min_age_ns,
		    void **copy, size_t *len, struct mt_err *err)
{
	/* Each retry maps what the module asked for, plus half for growth:
	 * a few rounds are enough unless something is badly wrong. */
	for (int attempt = 0; attempt < 8; attempt++) {
		struct memtrace_snapshot_req req;
		void *buf;
		int ret;

		memset(&req, 0, sizeof(req));
		req.size = sizeof(req);
		req.flags = flags;
		req.min_age_ns = min_age_ns;
		if (xioctl(d->fd, MEMTRACE_IOC_SNAPSHOT, &req) < 0) {
			if (errno == ENOSPC) {
				if (req.needed <= d->map_size)
					return mt_errf(err, EPROTO, "the module says the %zu-byte "
						       "buffer is too small but needs only %llu",
						       d->map_size, (unsigned long long)req.needed);
				/* The module already adds headroom; add some more, within
				 * what this reader maps at most. */
				uint64_t size = req.needed + req.needed / 2;

				if (size > DEVICE_MAX_BUFFER && req.needed <= DEVICE_MAX_BUFFER)
					size = DEVICE_MAX_BUFFER;
				ret = device_set_buffer(d, size, err);
				if (ret)
					return ret;
				continue;
			}
			if (module_gone(errno))
				return gone_error("snapshot", errno, err);
			return mt_errf(err, errno, "snapshot failed: %s", strerror(errno));
		}
		if (req.used < sizeof(struct memtrace_snap_header) || req.used > d->map_size)
			return mt_errf(err, EBADMSG, "the module reports %llu bytes used in a "
				       "%zu-byte buffer", (unsigned long long)req.used, d->map_size);
		buf = malloc(req.used);
		if (!buf)
			return mt_errf(err, ENOMEM, "out of memory for a %llu-byte snapshot",
				       (unsigned long long)req.used);
		if (guarded_copy(buf, d->map, req.used)) {
			free(buf);
			return mt_errf(err, ENODEV, "the memtrace module went away "
				       "(the snapshot buffer vanished)");
		}
		*copy = buf;
		*len = req.used;
		return 0;
	}
	return mt_errf(err, ENOSPC, "the snapshot kept outgrowing its buffer (%zu bytes)",
		       d->map_size);
}

int device_evring_map(struct mt_device *d, struct memtrace_evring_info *info,
		      const void **map, struct mt_err *err)
{
	void *m;

	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	if (xioctl(d->fd, MEMTRACE_IOC_EVRING_INFO, info) < 0) {
		if (module_gone(errno))
			return gone_error("event rings", errno, err);
		return mt_errf(err, errno, "the module has no event rings for this session: %s",
			       strerror(errno));
	}
	if (!info->nr_cpus || !info->data_size || (info->data_size & (info->data_size - 1)) ||
	    info->data_offset < sizeof(struct memtrace_evring_meta) ||
	    info->cpu_stride < info->data_offset + info->data_size ||
	    info->mmap_size / info->cpu_stride < info->nr_cpus)
		return mt_errf(err, EPROTO, "the module describes its event rings inconsistently "
			       "(%u CPUs, stride %llu, data %llu at %llu, %llu bytes)",
			       info->nr_cpus, (unsigned long long)info->cpu_stride,
			       (unsigned long long)info->data_size,
			       (unsigned long long)info->data_offset,
			       (unsigned long long)info->mmap_size);
	m = mmap(NULL, info->mmap_size, PROT_READ, MAP_SHARED, d->fd,
		 (off_t)MEMTRACE_EVRING_MMAP_OFFSET);
	if (m == MAP_FAILED) {
		if (module_gone(errno))
			return gone_error("mmap of the event rings", errno, err);
		return mt_errf(err, errno, "cannot map the event rings (%llu KiB): %s",
			       (unsigned long long)(info->mmap_size >> 10), strerror(errno));
	}
	*map = m;
	return 0;
}

int device_evring_consume(struct mt_device *d, uint32_t cpu, uint64_t pos,
			  struct mt_err *err)
{
	struct memtrace_evring_consume c = { .size = sizeof(c), .cpu = cpu, .pos = pos };

	if (xioctl(d->fd, MEMTRACE_IOC_EVRING_CONSUME, &c) == 0)
		return 0;
	if (module_gone(errno))
		return gone_error("event ring consume", errno, err);
	return mt_errf(err, errno, "the module refused the event ring position %llu of CPU %u: %s",
		       (unsigned long long)pos, cpu, strerror(errno));
}

/* ver1 (the walk's counters) is what this reader asks for, and reads when the module gives it. */
_Static_assert(sizeof(struct memtrace_evstats) == MEMTRACE_EVSTATS_SIZE_VER1,
	       "memtrace_evstats grows only at its end, one version at a time");

int device_evstats(struct mt_device *d, struct memtrace_evstats *st, struct mt_err *err)
{
	memset(st, 0, sizeof(*st));
	st->size = sizeof(*st);
	if (xioctl(d->fd, MEMTRACE_IOC_EVSTATS, st) == 0)
		return 0;
	if (module_gone(errno))
		return gone_error("event statistics", errno, err);
	return mt_errf(err, errno, "the module gives no event statistics: %s", strerror(errno));
}

int device_usdt(struct mt_device *d, struct memtrace_usdt *u, struct mt_err *err)
{
	u->size = sizeof(*u);
	if (xioctl(d->fd, MEMTRACE_IOC_USDT, u) == 0)
		return 0;
	if (module_gone(errno))
		return gone_error("a USDT probe", errno, err);
	return mt_errf(err, errno, "the module refused a USDT probe at file offset 0x%llx: %s",
		       (unsigned long long)u->offset, strerror(errno));
}

void device_close(struct mt_device *d)
{
	if (d->fd >= 0 && d->tracing)
		device_stop(d, NULL);
	if (d->map)
		munmap(d->map, d->map_size);
	if (d->fd >= 0)
		close(d->fd);
	d->map = NULL;
	d->fd = -1;
}

int device_print_version(FILE *out)
{
	struct mt_device dev;
	struct mt_err err;
	char hooks[64];

	fprintf(out, "memtrace-read %s (ABI %u)\n", MEMTRACE_READ_VERSION, MEMTRACE_ABI_VERSION);
	if (device_open(&dev, NULL, &err)) {
		fprintf(out, "memtrace.ko: %s\n", err.msg);
		return 0;
	}
	device_events_str(dev.version.features, hooks, sizeof(hooks));
	fprintf(out, "memtrace.ko %s (ABI %u, hooks: %s)\n",
		dev.version.module_version[0] ? dev.version.module_version : "(no version)",
		dev.version.abi_version, hooks);
	device_close(&dev);
	return 0;
}
