// SPDX-License-Identifier: GPL-2.0
/*
 * privcheck: least privilege at /dev/memtrace.  One TAP line per check.
 *
 *   privcheck GID [--ptrace-fallback]
 *	every check below.  Run as root in a guest with memtrace.ko loaded,
 *	no other reader, and /dev/memtrace in group GID with mode 0660 (as
 *	the udev rule sets it).  --ptrace-fallback: the module could not
 *	reach ptrace_may_access() (it says so at load), so only
 *	CAP_SYS_PTRACE lets a caller trace another process.
 *   privcheck run-as UID GID CAPS CMD [ARG...]
 *	run CMD as UID (with GID as its group and supplementary group),
 *	holding only the capabilities CAPS ("cap_perfmon,cap_syslog", or ""
 *	for none), kept across the exec as ambient capabilities.
 *
 * Each case runs in a child process that takes on the credentials under
 * test (libcap), so that the checks themselves are made by the kernel
 * exactly as for a real unprivileged reader.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mtt.h"

#define USER_UID	1000	/* in the device's group */
#define OTHER_UID	1001	/* not in it */
#define BUF_SIZE	(8U << 20)
#define KERNEL_MIN	0xffff800000000000ULL

static gid_t dev_gid;
static bool ptrace_fallback;

static void die(const char *what)
{
	printf("not ok - %s: %s\n", what, strerror(errno));
	fflush(stdout);
	_exit(1);
}

/*
 * Take on uid (group uid, plus dev_gid if in_group) and exactly the
 * capabilities caps ("" for none), also as ambient capabilities so that
 * they survive an exec.  uid 0 keeps being root but loses the others,
 * from its bounding set too.
 */
static void become(uid_t uid, bool in_group, const char *caps)
{
	gid_t groups[1] = { dev_gid };
	char text[256];
	cap_value_t v;
	cap_t c;

	snprintf(text, sizeof(text), caps[0] ? "= %s+eip" : "=", caps);
	c = cap_from_text(text);
	if (!c)
		die("cap_from_text");
	if (setgroups(in_group ? 1 : 0, groups))
		die("setgroups");
	/* While still root with CAP_SETPCAP. */
	for (v = 0; v <= CAP_LAST_CAP; v++) {
		cap_flag_value_t on = CAP_CLEAR;

		cap_get_flag(c, v, CAP_PERMITTED, &on);
		if (!on && cap_drop_bound(v) && errno != EINVAL)
			die("cap_drop_bound");
	}
	if (uid) {
		if (setresgid(uid, uid, uid))
			die("setresgid");
		/* cap_setuid() keeps the permitted set across the change of uid. */
		if (cap_setuid(uid))
			die("cap_setuid");
	}
	if (cap_set_proc(c))
		die("cap_set_proc");
	for (v = 0; v <= CAP_LAST_CAP; v++) {
		cap_flag_value_t on = CAP_CLEAR;

		cap_get_flag(c, v, CAP_PERMITTED, &on);
		if (on && cap_set_ambient(v, CAP_SET))
			die("cap_set_ambient");
	}
	cap_free(c);
}

/* Run fn in a child with the given credentials; its failures are added to ours. */
static void as_child(uid_t uid, bool in_group, const char *caps, void (*fn)(void *), void *arg)
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		become(uid, in_group, caps);
		fn(arg);
		fflush(stdout);
		_exit(mtt_failures ? 1 : 0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 1)
			printf("not ok - a test process ended with status 0x%x\n", status);
		mtt_failures++;
	}
}

/* A process that sleeps until killed, as uid, dumpable or not: set up when this returns. */
static pid_t spawn_sleeper(uid_t uid, bool dumpable)
{
	int ready[2];
	pid_t pid;
	char c;

	if (pipe(ready))
		die("pipe");
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		close(ready[0]);
		if (uid && (setresgid(uid, uid, uid) || setresuid(uid, uid, uid)))
			_exit(1);
		/* A change of uid made it undumpable: say which it is to be. */
		prctl(PR_SET_DUMPABLE, dumpable ? 1 : 0);
		if (write(ready[1], "r", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(ready[1]);
	if (read(ready[0], &c, 1) != 1)
		die("a sleeper process did not start");
	close(ready[0]);
	return pid;
}

static void reap(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

static int target(int fd, pid_t pid)
{
	struct memtrace_target t = { .size = sizeof(t), .pid = pid };

	return ioctl(fd, MEMTRACE_IOC_TARGET, &t);
}

#define HELD_FILES 16
static int held[HELD_FILES];

/*
 * Kernel allocations by this task: opening and reading procfs files, and
 * some that stay live (open files) until release_some().
 */
static void allocate_some(void)
{
	char buf[256];

	for (int i = 0; i < 50; i++) {
		int fd = open("/proc/self/status", O_RDONLY);

		if (fd >= 0) {
			while (read(fd, buf, sizeof(buf)) > 0)
				;
			close(fd);
		}
	}
	for (int i = 0; i < HELD_FILES; i++)
		if (!held[i])
			held[i] = open("/proc/self/stat", O_RDONLY);
}

static void release_some(void)
{
	for (int i = 0; i < HELD_FILES; i++) {
		if (held[i] > 0)
			close(held[i]);
		held[i] = 0;
	}
}

/* A kernel-mode session with trace records on fd, owned by it. */
static int start_kernel_session(int fd)
{
	struct memtrace_config c = { .flags = MEMTRACE_CFG_TRACE, .trace_records = 1U << 14 };

	if (mtt_handshake(fd) || mtt_config(fd, &c) || mtt_set_buffer(fd, BUF_SIZE))
		return -1;
	return ioctl(fd, MEMTRACE_IOC_START);
}

/* ---- open: the module's own check, behind the device's mode ---------- */

struct open_case {
	const char *what;
	int err;
};

static void open_denied(void *arg)
{
	const struct open_case *o = arg;
	int fd = open(MEMTRACE_DEVICE, O_RDWR);

	mtt_expect(o->what, fd, o->err);
	if (fd >= 0)
		close(fd);
}

/* ---- a descriptor handed to a process without the privilege ---------- */

static int shared_fd = -1;

static void handed_fd(void *what)
{
	struct memtrace_version v = { .abi_version = MEMTRACE_ABI_VERSION };
	struct memtrace_uprobe u = { .size = sizeof(u), .fd = 0, .func = MEMTRACE_UFN_MALLOC };
	struct memtrace_snapshot_req req;
	struct memtrace_trace_rec rec;
	struct memtrace_config c = { 0 };
	struct pollfd p = { .fd = shared_fd, .events = POLLIN };
	char msg[160];
	void *map;

#define DENIED(op, ret) do { \
		snprintf(msg, sizeof(msg), "%s: %s refused", (char *)what, op); \
		mtt_expect(msg, ret, EPERM); \
	} while (0)
	DENIED("MEMTRACE_IOC_VERSION", ioctl(shared_fd, MEMTRACE_IOC_VERSION, &v));
	DENIED("MEMTRACE_IOC_CONFIG", mtt_config(shared_fd, &c));
	DENIED("MEMTRACE_IOC_START", ioctl(shared_fd, MEMTRACE_IOC_START));
	DENIED("MEMTRACE_IOC_STOP", ioctl(shared_fd, MEMTRACE_IOC_STOP));
	DENIED("MEMTRACE_IOC_CLEAR", ioctl(shared_fd, MEMTRACE_IOC_CLEAR));
	DENIED("MEMTRACE_IOC_SET_BUFFER", mtt_set_buffer(shared_fd, 4096));
	DENIED("MEMTRACE_IOC_SNAPSHOT", mtt_snapshot(shared_fd, &req, 0));
	DENIED("MEMTRACE_IOC_TARGET", target(shared_fd, getpid()));
	DENIED("MEMTRACE_IOC_UPROBE", ioctl(shared_fd, MEMTRACE_IOC_UPROBE, &u));
	DENIED("an unknown ioctl", ioctl(shared_fd, _IO(MEMTRACE_IOC_MAGIC, 0x7f)));
	DENIED("read(2)", read(shared_fd, &rec, sizeof(rec)) < 0 ? -1 : 0);
	map = mmap(NULL, 4096, PROT_READ, MAP_SHARED, shared_fd, 0);
	DENIED("mmap(2)", map == MAP_FAILED ? -1 : 0);
	snprintf(msg, sizeof(msg), "%s: poll(2) says error", (char *)what);
	mtt_check(msg, poll(&p, 1, 0) == 1 && (p.revents & POLLERR), "revents 0x%x", p.revents);
#undef DENIED
}

/* With CAP_PERFMON but not CAP_SYSLOG: not the buffer that held kernel addresses. */
static void handed_fd_perfmon(void *unused __attribute__((unused)))
{
	void *map = mmap(NULL, 4096, PROT_READ, MAP_SHARED, shared_fd, 0);

	mtt_expect("CAP_PERFMON without CAP_SYSLOG cannot map a buffer that held kernel addresses",
		   map == MAP_FAILED ? -1 : 0, EPERM);
	mtt_expect("... but may give the file a new buffer", mtt_set_buffer(shared_fd, 4096), 0);
	map = mmap(NULL, 4096, PROT_READ, MAP_SHARED, shared_fd, 0);
	mtt_expect("... and map that one", map == MAP_FAILED ? -1 : 0, 0);
}

static void check_handed_fd(void)
{
	struct memtrace_snapshot_req req;
	struct memtrace_snap_header h;
	void *map;

	shared_fd = mtt_open();
	mtt_expect("root: a kernel-mode session", start_kernel_session(shared_fd), 0);
	allocate_some();
	mtt_expect("root: a snapshot (with kernel addresses)", mtt_snapshot(shared_fd, &req, 0), 0);
	release_some();
	as_child(USER_UID, true, "", handed_fd, "uid 1000 without capabilities, given the descriptor");
	as_child(0, false, "cap_syslog,cap_sys_ptrace,cap_dac_override,cap_setuid",
		 handed_fd, "root without CAP_PERFMON and CAP_SYS_ADMIN, given the descriptor");
	map = mmap(NULL, BUF_SIZE, PROT_READ, MAP_SHARED, shared_fd, 0);
	mtt_expect("root: the session is untouched", mtt_snapshot(shared_fd, &req, 0), 0);
	if (map != MAP_FAILED) {
		memcpy(&h, map, sizeof(h));
		mtt_check("root: ... still tracing", h.state == MEMTRACE_STATE_TRACING,
			  "state %u", h.state);
		munmap(map, BUF_SIZE);
	}
	as_child(USER_UID, true, "cap_perfmon", handed_fd_perfmon, NULL);
	mtt_expect("root: stops its session", ioctl(shared_fd, MEMTRACE_IOC_STOP), 0);
	close(shared_fd);
}

/* ---- kernel addresses: only with CAP_SYSLOG -------------------------- */

struct kaddr_case {
	const char *who;
	bool syslog;
};

/* Records of the snapshot at map. */
#define SNAP_RECS(map, h, off, type) ((const type *)((const char *)(map) + (h)->off))

static void kaddr_session(void *arg)
{
	const struct kaddr_case *k = arg;
	static struct memtrace_trace_rec recs[4096];
	unsigned long n_allocs = 0, kaddrs = 0, frames = 0, kframes = 0;
	unsigned long n_trace = 0, trace_kaddrs = 0, trace_callers = 0;
	const struct memtrace_snap_header *h;
	struct memtrace_snapshot_req req;
	char what[200];
	ssize_t got;
	void *map;
	int fd = open(MEMTRACE_DEVICE, O_RDWR | O_NONBLOCK);

	snprintf(what, sizeof(what), "%s: opens the device", k->who);
	mtt_expect(what, fd, 0);
	if (fd < 0)
		return;
	snprintf(what, sizeof(what), "%s: traces the kernel", k->who);
	mtt_expect(what, start_kernel_session(fd), 0);
	allocate_some();
	snprintf(what, sizeof(what), "%s: takes a snapshot", k->who);
	mtt_expect(what, mtt_snapshot(fd, &req, MEMTRACE_SNAP_ALLOCS), 0);
	map = mmap(NULL, BUF_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	snprintf(what, sizeof(what), "%s: maps it", k->who);
	mtt_expect(what, map == MAP_FAILED ? -1 : 0, 0);
	if (map == MAP_FAILED)
		return;
	h = map;
	for (uint32_t i = 0; i < h->nr_allocs; i++) {
		const struct memtrace_alloc_rec *a = SNAP_RECS(map, h, allocs_off,
							       struct memtrace_alloc_rec) + i;

		n_allocs++;
		if (a->kind == MEMTRACE_KIND_KMALLOC || a->kind == MEMTRACE_KIND_CACHE)
			kaddrs += a->addr >= KERNEL_MIN;
		else if (a->addr)
			kaddrs++;	/* a PFN is a kernel address too */
	}
	for (uint32_t i = 0, off = h->stacks_off; i < h->nr_stacks; i++) {
		const struct memtrace_stack_rec *s = (const void *)((const char *)map + off);
		const uint64_t *ip = (const uint64_t *)(s + 1);

		frames += s->nr_frames;
		for (uint32_t f = 0; f < s->nr_frames; f++)
			kframes += ip[f] >= KERNEL_MIN;
		off += h->stack_rec_size + s->nr_frames * sizeof(uint64_t);
	}
	got = read(fd, recs, sizeof(recs));
	for (ssize_t i = 0; i < got / (ssize_t)sizeof(recs[0]); i++) {
		n_trace++;
		trace_kaddrs += recs[i].addr != 0;
		trace_callers += recs[i].caller != 0;
	}
	ioctl(fd, MEMTRACE_IOC_STOP);
	snprintf(what, sizeof(what), "%s: the snapshot has allocations and stacks", k->who);
	mtt_check(what, n_allocs > 0 && h->nr_stacks > 0, "%lu allocations, %u stacks",
		  n_allocs, h->nr_stacks);
	snprintf(what, sizeof(what), "%s: trace records", k->who);
	mtt_check(what, n_trace > 0, "read(2) gave %zd", got);
	if (k->syslog) {
		snprintf(what, sizeof(what), "%s: sees kernel addresses and stacks", k->who);
		mtt_check(what, !(h->flags & MEMTRACE_HDR_KADDR_HIDDEN) && kaddrs == n_allocs &&
			  frames > 0 && kframes == frames && trace_kaddrs == n_trace &&
			  trace_callers > 0,
			  "flags 0x%x, %lu/%lu addresses, %lu/%lu kernel frames, trace: %lu/%lu addresses, %lu callers",
			  h->flags, kaddrs, n_allocs, kframes, frames, trace_kaddrs, n_trace,
			  trace_callers);
	} else {
		snprintf(what, sizeof(what),
			 "%s: no kernel address in the snapshot or the trace records", k->who);
		mtt_check(what, (h->flags & MEMTRACE_HDR_KADDR_HIDDEN) && kaddrs == 0 &&
			  frames == 0 && trace_kaddrs == 0 && trace_callers == 0,
			  "flags 0x%x, %lu addresses, %lu frames, trace: %lu addresses, %lu callers",
			  h->flags, kaddrs, frames, trace_kaddrs, trace_callers);
	}
	munmap(map, BUF_SIZE);
	close(fd);
}

/* ---- only the owning file acts on the session ------------------------ */

static void check_ownership(void)
{
	struct memtrace_uprobe u = { .size = sizeof(u), .offset = 0,
				     .func = MEMTRACE_UFN_MALLOC };
	struct memtrace_trace_rec rec;
	struct memtrace_config c = { 0 };
	int fd1 = mtt_open(), fd2 = mtt_open();
	struct pollfd p = { .fd = fd2, .events = POLLIN };

	fcntl(fd2, F_SETFL, O_NONBLOCK);
	mtt_expect("owner: handshake and configure",
		   mtt_handshake(fd1) || mtt_config(fd1, &c) ? -1 : 0, 0);
	mtt_expect("other file: handshake", mtt_handshake(fd2), 0);
	mtt_expect("other file: cannot name a target", target(fd2, getpid()), EBUSY);
	u.fd = open("/proc/self/exe", O_RDONLY);
	mtt_expect("other file: cannot add a uprobe", ioctl(fd2, MEMTRACE_IOC_UPROBE, &u), EBUSY);
	close(u.fd);
	mtt_expect("owner: starts with trace records", start_kernel_session(fd1), 0);
	allocate_some();
	release_some();
	mtt_expect("other file: cannot read the owner's trace records",
		   read(fd2, &rec, sizeof(rec)) < 0 ? -1 : 0, EPERM);
	mtt_check("other file: poll(2) says error", poll(&p, 1, 0) == 1 && (p.revents & POLLERR),
		  "revents 0x%x", p.revents);
	mtt_expect("other file: cannot stop the session", ioctl(fd2, MEMTRACE_IOC_STOP), EPERM);
	close(fd1);
	mtt_expect("other file, once the owner closed: no records of its session",
		   read(fd2, &rec, sizeof(rec)) < 0 ? -1 : 0, 0);
	mtt_expect("other file: now configures", mtt_config(fd2, &c), 0);
	mtt_check("other file: still none of the closed session's records",
		  read(fd2, &rec, sizeof(rec)) == 0, "read(2) returned records");
	close(fd2);
}

/* ---- tracing a process takes the right to ptrace it ------------------ */

static pid_t ptrace_root_pid, ptrace_sibling_pid;
static int yama_scope = -1;	/* as set for the case; -1: no Yama */

static void ptrace_cases(void *arg)
{
	const char *who = arg;
	bool sys_ptrace = strstr(who, "CAP_SYS_PTRACE") != NULL;
	pid_t own = spawn_sleeper(0, true), nodump = spawn_sleeper(0, false);
	int fd = mtt_open();
	char what[200];

	mtt_handshake(fd);
	snprintf(what, sizeof(what), "%s: may trace its own child", who);
	mtt_expect(what, target(fd, own), ptrace_fallback && !sys_ptrace ? EPERM : 0);
	snprintf(what, sizeof(what), "%s: may trace itself", who);
	mtt_expect(what, target(fd, getpid()), 0);
	snprintf(what, sizeof(what), "%s: %s root's process", who,
		 sys_ptrace ? "may trace" : "may not trace");
	mtt_expect(what, target(fd, ptrace_root_pid), sys_ptrace ? 0 : EPERM);
	snprintf(what, sizeof(what), "%s: %s its own child once not dumpable", who,
		 sys_ptrace ? "may trace" : "may not trace");
	mtt_expect(what, target(fd, nodump), sys_ptrace ? 0 : EPERM);
	if (ptrace_sibling_pid) {
		/* Yama, an LSM: ptrace_scope 1 allows descendants only. */
		snprintf(what, sizeof(what),
			 "%s: Yama ptrace_scope %d: %s a process of its uid that is not its descendant",
			 who, yama_scope, yama_scope == 1 && !sys_ptrace ? "may not trace" : "may trace");
		mtt_expect(what, target(fd, ptrace_sibling_pid),
			   yama_scope == 1 && !sys_ptrace ? EPERM : 0);
	}
	mtt_expect("the target is dropped", target(fd, 0), 0);
	close(fd);
	reap(own);
	reap(nodump);
}

static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY), ret;

	if (fd < 0)
		return -1;
	ret = write(fd, s, strlen(s)) == (ssize_t)strlen(s) ? 0 : -1;
	close(fd);
	return ret;
}

static void check_ptrace(void)
{
	static const char yama[] = "/proc/sys/kernel/yama/ptrace_scope";
	char old_scope[16] = "";
	int fd = open(yama, O_RDONLY);

	if (fd >= 0) {
		ssize_t n = read(fd, old_scope, sizeof(old_scope) - 1);

		old_scope[n > 0 ? n : 0] = '\0';
		close(fd);
	}
	ptrace_root_pid = spawn_sleeper(0, true);
	ptrace_sibling_pid = 0;
	if (old_scope[0] && !ptrace_fallback) {
		mtt_expect("Yama ptrace_scope set to 1", write_file(yama, "1"), 0);
		yama_scope = 1;
		ptrace_sibling_pid = spawn_sleeper(USER_UID, true);
	} else {
		printf("ok - Yama ptrace_scope # SKIP %s\n",
		       old_scope[0] ? "ptrace_may_access() not reachable" : "no Yama in this kernel");
	}
	as_child(USER_UID, true, "cap_perfmon", ptrace_cases, "uid 1000 with CAP_PERFMON");
	as_child(USER_UID, true, "cap_perfmon,cap_sys_ptrace", ptrace_cases,
		 "uid 1000 with CAP_PERFMON and CAP_SYS_PTRACE");
	if (ptrace_sibling_pid) {
		mtt_expect("Yama ptrace_scope set to 0", write_file(yama, "0"), 0);
		yama_scope = 0;
		as_child(USER_UID, true, "cap_perfmon", ptrace_cases, "uid 1000 with CAP_PERFMON");
		reap(ptrace_sibling_pid);
	}
	if (old_scope[0])
		write_file(yama, old_scope);
	reap(ptrace_root_pid);
}

/* ---- pid namespaces --------------------------------------------------- */

static void in_pid_ns(pid_t outside)
{
	static struct memtrace_trace_rec recs[4096];
	unsigned long mine = 0, mine_ok = 0, foreign = 0, trace_mine = 0, trace_bad = 0;
	const struct memtrace_snap_header *h;
	struct memtrace_snapshot_req req;
	struct memtrace_config c = { 0 };
	int fd = open(MEMTRACE_DEVICE, O_RDWR | O_NONBLOCK);
	ssize_t got;
	void *map;

	prctl(PR_SET_NAME, "mtt-pidns");
	if (fd < 0 || mtt_handshake(fd))
		die("pid namespace: open");
	mtt_check("pid namespace: this process is pid 1 in it", getpid() == 1, "pid %d", getpid());
	mtt_expect("pid namespace: a process outside it cannot be named",
		   target(fd, outside), ESRCH);
	mtt_expect("pid namespace: this process can", target(fd, 1), 0);
	mtt_expect("pid namespace: no target", target(fd, 0), 0);
	mtt_expect("pid namespace: kernel-mode configuration", mtt_config(fd, &c), 0);
	mtt_expect("pid namespace: a kernel-mode session", start_kernel_session(fd), 0);
	allocate_some();
	mtt_expect("pid namespace: snapshot", mtt_snapshot(fd, &req, MEMTRACE_SNAP_ALLOCS), 0);
	map = mmap(NULL, BUF_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	got = read(fd, recs, sizeof(recs));
	ioctl(fd, MEMTRACE_IOC_STOP);
	release_some();
	if (map == MAP_FAILED)
		die("pid namespace: mmap");
	h = map;
	for (uint32_t i = 0; i < h->nr_allocs; i++) {
		const struct memtrace_alloc_rec *a = SNAP_RECS(map, h, allocs_off,
							       struct memtrace_alloc_rec) + i;

		if (!strcmp(a->comm, "mtt-pidns")) {
			mine++;
			mine_ok += a->pid == 1;
		} else if (a->pid > 1) {
			foreign++;
		}
	}
	for (ssize_t i = 0; i < got / (ssize_t)sizeof(recs[0]); i++) {
		if (!strcmp(recs[i].comm, "mtt-pidns"))
			trace_mine += recs[i].pid == 1;
		trace_bad += recs[i].pid > 1;
	}
	mtt_check("pid namespace: its allocations carry its pid in the namespace (1)",
		  mine > 0 && mine_ok == mine, "%lu of %lu records with pid 1", mine_ok, mine);
	mtt_check("pid namespace: tasks outside it carry pid 0",
		  foreign == 0, "%lu records with another pid", foreign);
	mtt_check("pid namespace: trace records too", trace_mine > 0 && trace_bad == 0,
		  "%lu with pid 1, %lu with another pid", trace_mine, trace_bad);
	munmap(map, BUF_SIZE);
	close(fd);
}

static void check_pid_ns(void)
{
	pid_t outside = getpid(), pid;
	int status;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		pid_t inner;

		if (unshare(CLONE_NEWPID)) {
			printf("ok - pid namespaces # SKIP unshare(CLONE_NEWPID): %s\n",
			       strerror(errno));
			_exit(0);
		}
		fflush(stdout);
		inner = fork();
		if (!inner) {
			in_pid_ns(outside);
			fflush(stdout);
			_exit(mtt_failures ? 1 : 0);
		}
		if (inner < 0 || waitpid(inner, &status, 0) != inner)
			_exit(1);
		_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		mtt_failures++;
}

/* ---- no uninitialized (or stale) byte reaches the reader -------------- */

static bool zero(const void *p, size_t len)
{
	const unsigned char *c = p;

	while (len--)
		if (*c++)
			return false;
	return true;
}

/* Everything after the string's terminating NUL is zero. */
static bool zero_padded(const char *s, size_t len)
{
	size_t n = strnlen(s, len);

	return n < len && zero(s + n, len - n);
}

static void check_no_stray_bytes(void)
{
	static struct memtrace_trace_rec recs[4096];
	struct memtrace_version v;
	const struct memtrace_snap_header *h;
	struct memtrace_snapshot_req req;
	unsigned long bad_allocs = 0, bad_stats = 0, bad_caches = 0, bad_trace = 0;
	int fd = open(MEMTRACE_DEVICE, O_RDWR | O_NONBLOCK);
	ssize_t got;
	void *map;

	memset(&v, 0xa5, sizeof(v));
	v.abi_version = MEMTRACE_ABI_VERSION;
	mtt_expect("stray bytes: handshake", ioctl(fd, MEMTRACE_IOC_VERSION, &v), 0);
	mtt_check("stray bytes: the version's kconfig_off has only known bits and the tail of its version string is zero",
		  !(v.kconfig_off & ~0x7fU) && zero_padded(v.module_version, sizeof(v.module_version)),
		  "kconfig_off 0x%x", v.kconfig_off);
	mtt_expect("stray bytes: a kernel-mode session", start_kernel_session(fd), 0);
	prctl(PR_SET_NAME, "a-long-name-xyz");
	allocate_some();
	prctl(PR_SET_NAME, "short");	/* a stale tail of the long name must not show */
	allocate_some();
	mtt_expect("stray bytes: snapshot", mtt_snapshot(fd, &req, MEMTRACE_SNAP_ALLOCS), 0);
	got = read(fd, recs, sizeof(recs));
	ioctl(fd, MEMTRACE_IOC_STOP);
	release_some();
	map = mmap(NULL, BUF_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		die("stray bytes: mmap");
	h = map;
	mtt_check("stray bytes: header padding and reserved words are zero",
		  !h->__pad1 && !h->__pad2,
		  "pads 0x%x 0x%x", h->__pad1, h->__pad2);
	for (uint32_t i = 0; i < h->nr_allocs; i++) {
		const struct memtrace_alloc_rec *a = SNAP_RECS(map, h, allocs_off,
							       struct memtrace_alloc_rec) + i;

		bad_allocs += a->__pad0 || a->__pad1 || !zero_padded(a->comm, sizeof(a->comm));
	}
	for (uint32_t i = 0; i < h->nr_stats; i++)
		bad_stats += SNAP_RECS(map, h, stats_off, struct memtrace_stat_rec)[i].__pad0 != 0;
	for (uint32_t i = 0; i < h->nr_caches; i++) {
		const struct memtrace_cache_rec *cr = SNAP_RECS(map, h, caches_off,
								struct memtrace_cache_rec) + i;

		bad_caches += !zero_padded(cr->name, sizeof(cr->name));
	}
	for (ssize_t i = 0; i < got / (ssize_t)sizeof(recs[0]); i++)
		bad_trace += recs[i].__pad || !zero_padded(recs[i].comm, sizeof(recs[i].comm));
	mtt_check("stray bytes: allocation records", h->nr_allocs > 0 && !bad_allocs,
		  "%lu of %u with stray bytes", bad_allocs, h->nr_allocs);
	mtt_check("stray bytes: counter records", h->nr_stats > 0 && !bad_stats,
		  "%lu of %u with stray bytes", bad_stats, h->nr_stats);
	mtt_check("stray bytes: cache records", !bad_caches,
		  "%lu of %u with stray bytes", bad_caches, h->nr_caches);
	mtt_check("stray bytes: trace records", got > 0 && !bad_trace,
		  "%lu of %zd with stray bytes", bad_trace, got / (ssize_t)sizeof(recs[0]));
	munmap(map, BUF_SIZE);
	close(fd);
}

/* ---- run-as ------------------------------------------------------------ */

static int run_as(int argc, char **argv)
{
	if (argc < 6) {
		fprintf(stderr, "usage: privcheck run-as UID GID CAPS CMD [ARG...]\n");
		return 2;
	}
	dev_gid = atoi(argv[3]);
	become(atoi(argv[2]), true, argv[4]);
	execvp(argv[5], argv + 5);
	perror(argv[5]);
	return 127;
}

int main(int argc, char **argv)
{
	struct kaddr_case perfmon = { "uid 1000 with CAP_PERFMON", false };
	struct kaddr_case syslog = { "uid 1000 with CAP_PERFMON and CAP_SYSLOG", true };

	if (argc > 1 && !strcmp(argv[1], "run-as"))
		return run_as(argc, argv);
	if (argc < 2) {
		fprintf(stderr, "usage: privcheck GID [--ptrace-fallback] | run-as ...\n");
		return 2;
	}
	dev_gid = atoi(argv[1]);
	ptrace_fallback = argc > 2 && !strcmp(argv[2], "--ptrace-fallback");
	setvbuf(stdout, NULL, _IOLBF, 0);

	as_child(USER_UID, true, "", open_denied, &(struct open_case) {
		 "uid 1000 in the device's group, without capabilities: open refused by the module",
		 EPERM });
	as_child(OTHER_UID, false, "cap_perfmon", open_denied, &(struct open_case) {
		 "uid 1001 with CAP_PERFMON, not in the device's group: open refused by its mode",
		 EACCES });
	as_child(0, false, "cap_syslog,cap_sys_ptrace,cap_dac_override", open_denied,
		 &(struct open_case) {
		 "root without CAP_PERFMON and CAP_SYS_ADMIN: open refused by the module", EPERM });
	check_handed_fd();
	as_child(USER_UID, true, "cap_perfmon", kaddr_session, &perfmon);
	as_child(USER_UID, true, "cap_perfmon,cap_syslog", kaddr_session, &syslog);
	check_ownership();
	check_ptrace();
	check_pid_ns();
	check_no_stray_bytes();
	return mtt_failures ? 1 : 0;
}
