// SPDX-License-Identifier: GPL-2.0
/*
 * mtfuzz [-t SECONDS] [-p PROCESSES] [-j THREADS] [-s SEED]
 *
 * Hostile input for /dev/memtrace, for SECONDS (default 20): PROCESSES
 * worker processes (default 3) of THREADS threads each (default 3) share
 * a few descriptors per process and throw at them, in random order,
 * ioctls with random numbers, sizes, flags and reserved fields (mostly
 * well-formed enough to reach the module's deeper checks), read(2) with
 * odd lengths, blocking or not, poll(2), and mmap(2) of odd sizes,
 * offsets and protections, touching what was mapped and remapping it;
 * they close and reopen descriptors under each other, name as targets
 * throwaway processes that allocate and exit at random (with uprobes on
 * malloc/free and on random offsets), and themselves die at random,
 * some by SIGKILL, with sessions running and buffers mapped.  Unloading
 * the module in between is the caller's part (tests/e2e/80-fuzz.sh).
 *
 * The kernel is the oracle (KASAN, lockdep, WARN, kmemleak on the debug
 * kernel); mtfuzz itself checks that every error is one the module
 * documents, and that what it maps can be read.  Prints TAP lines.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mtt.h"

#define SLOTS		4	/* descriptors a worker process juggles */
#define MAX_THREADS	8
#define MAX_PROCS	8
#define MAX_MAPS	8	/* mappings a thread keeps around */
#define SCRATCH		8192

/* What the workers count, in a shared mapping; read by the parent. */
struct stats {
	atomic_ulong ops;
	atomic_ulong ioctls;
	atomic_ulong ioctl_ok;
	atomic_ulong reads;
	atomic_ulong maps;
	atomic_ulong opens_failed;	/* module unloaded: no device */
	atomic_int open_errno;		/* of the last failed open */
	atomic_ulong sessions;		/* successful START */
	atomic_ulong snapshots;		/* successful SNAPSHOT */
	atomic_ulong records;		/* trace records read */
	atomic_ulong targets;		/* target processes spawned */
	atomic_ulong bad_errno;
	atomic_ulong bad_map;
	atomic_int first_bad_errno;
	atomic_uint first_bad_cmd;
};

static struct stats *st;
static unsigned int nthreads = 3;
static uint64_t deadline_ns;

/* Where uprobes may go: libc's malloc and free, and this program. */
static char libc_path[4096];
static uint64_t malloc_off, free_off;
static off_t libc_size, self_size;

/* Per worker process. */
static atomic_int slot_fd[SLOTS];
static int libc_fd = -1, self_fd = -1, dir_fd = -1, pipe_fd[2] = { -1, -1 };
static atomic_int target_pid;

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ULL + t.tv_nsec;
}

/* xorshift64*, one state per thread. */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1DULL;
}

static uint64_t below(uint64_t *s, uint64_t n)
{
	return n ? rnd(s) % n : 0;
}

static bool chance(uint64_t *s, unsigned int percent)
{
	return below(s, 100) < percent;
}

/* ---- errors the module documents ------------------------------------ */

static bool errno_known(int e)
{
	switch (e) {
	case EINVAL: case EFAULT: case ENOTTY: case EPROTO: case EBUSY:
	case EPERM: case ESRCH: case EBADF: case ENOSPC: case ENOBUFS:
	case ENODATA: case EEXIST: case ENOENT: case EOPNOTSUPP: case ENOMEM:
	case EAGAIN: case EINTR: case ENODEV: case EACCES: case EFBIG:
		return true;
	default:
		return false;
	}
}

static void note_errno(int ret, unsigned int cmd)
{
	int zero = 0;
	unsigned int zcmd = 0;

	if (ret >= 0 || errno_known(errno))
		return;
	atomic_fetch_add(&st->bad_errno, 1);
	if (atomic_compare_exchange_strong(&st->first_bad_errno, &zero, errno))
		atomic_compare_exchange_strong(&st->first_bad_cmd, &zcmd, cmd);
}

/* ---- targets: processes that allocate, then exit ---------------------- */

/* Called through a pointer, so that the compiler keeps the calls. */
static void *(*volatile alloc_fn)(size_t) = malloc;

static void __attribute__((noinline)) target_body(uint64_t seed)
{
	uint64_t lifetime = 1000000ULL * (1 + below(&seed, 400));	/* up to 0.4 s */
	uint64_t end = now_ns() + lifetime;
	void *keep[64] = { 0 };

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	while (now_ns() < end) {
		unsigned int i = below(&seed, 64);

		free(keep[i]);
		keep[i] = alloc_fn(1 + below(&seed, 5000));
		if (chance(&seed, 5)) {
			pid_t c = fork();	/* followed, or not, by the module */

			if (!c) {
				free(alloc_fn(100));
				_exit(0);
			}
			if (c > 0)
				waitpid(c, NULL, 0);
		}
	}
	_exit(0);
}

static void spawn_target(uint64_t *s)
{
	pid_t old = atomic_load(&target_pid), pid;

	if (old > 0 && !waitpid(old, NULL, WNOHANG))
		return;		/* still running */
	pid = fork();
	if (!pid)
		target_body(rnd(s));
	atomic_store(&target_pid, pid > 0 ? pid : 0);
	if (pid > 0)
		atomic_fetch_add(&st->targets, 1);
}

/* ---- argument makers ------------------------------------------------- */

static uint32_t fuzz_size(uint64_t *s, uint32_t ver0, uint32_t full)
{
	switch (below(s, 8)) {
	case 0: return ver0;
	case 1: return 0;
	case 2: return below(s, full + 16);
	case 3: return full + 8 * (1 + below(s, 8));	/* a newer reader */
	case 4: return 4096 + below(s, 2);
	default: return full;
	}
}

static int pick_fd(uint64_t *s)
{
	switch (below(s, 10)) {
	case 0: return libc_fd;
	case 1: return self_fd;
	case 2: return dir_fd;
	case 3: return pipe_fd[0];
	case 4: return atomic_load(&slot_fd[below(s, SLOTS)]);
	case 5: return -1;
	case 6: return 1000 + below(s, 100);
	default: return libc_fd;
	}
}

static pid_t pick_pid(uint64_t *s)
{
	switch (below(s, 8)) {
	case 0: return 0;
	case 1: return getpid();
	case 2: return 1;
	case 3: return -1 - below(s, 5);
	case 4: return below(s, 400);
	default:
		spawn_target(s);
		return atomic_load(&target_pid);
	}
}

static void fill_config(uint64_t *s, struct memtrace_config *c)
{
	static const char *names[] = { "kmalloc-64", "kmalloc-1k", "no_such_cache",
				       "", "..", "dentry", "kmalloc-4k" };

	memset(c, 0, sizeof(*c));
	c->size = fuzz_size(s, MEMTRACE_CONFIG_SIZE_VER0, sizeof(*c));
	switch (below(s, 6)) {
	case 0: c->events = MEMTRACE_EV_USER; break;
	case 1: c->events = rnd(s); break;
	case 2: c->events = (below(s, 4) << 6) | (chance(s, 30) ? below(s, 8) << 11 : 0) |
			    (chance(s, 50) ? below(s, MEMTRACE_EV_ALL + 1) : 0); break;
	default: c->events = below(s, MEMTRACE_EV_ALL + 1); break;
	}
	if (chance(s, 20))
		c->evring_pages = chance(s, 80) ? below(s, 9) : rnd(s);
	if (chance(s, 30))
		c->min_size = below(s, 5000);
	if (chance(s, 30))
		c->max_size = below(s, 10000);
	if (chance(s, 30))
		c->sample_every = below(s, 6);
	if (chance(s, 20))
		c->sample_bytes = chance(s, 50) ? 4096 : rnd(s);
	c->stack_depth = below(s, MEMTRACE_MAX_FRAMES + 4);
	if (chance(s, 25)) {
		c->nr_caches = below(s, MEMTRACE_MAX_CACHE_FILTERS + 2);
		for (uint32_t i = 0; i < c->nr_caches && i < MEMTRACE_MAX_CACHE_FILTERS; i++) {
			if (chance(s, 10))
				memset(c->caches[i], 'a' + below(s, 26), MEMTRACE_NAME_LEN);
			else
				snprintf(c->caches[i], MEMTRACE_NAME_LEN, "%s",
					 names[below(s, sizeof(names) / sizeof(names[0]))]);
		}
	}
	switch (below(s, 6)) {
	case 0: c->flags = rnd(s); break;
	case 1: case 2: c->flags = MEMTRACE_CFG_TRACE; break;
	default: break;
	}
	switch (below(s, 5)) {
	case 0: c->trace_records = rnd(s); break;
	case 1: c->trace_records = 2 + below(s, 1 << 16); break;
	default: break;
	}
}

/* A buffer whose end meets an unmapped page: partly valid arguments. */
static char *edge_page;

static void *fuzz_arg(uint64_t *s, void *good, size_t len)
{
	switch (below(s, 20)) {
	case 0: return NULL;
	case 1: return (void *)(uintptr_t)(1 + below(s, 4096));
	case 2: return edge_page + 4096 - (len > 1 ? below(s, len) + 1 : 1);
	case 3: return (void *)0xffffffffff600000ULL;	/* kernel half */
	default: return good;
	}
}

/* ---- one operation ------------------------------------------------------ */

struct maps {
	void *addr[MAX_MAPS];
	size_t len[MAX_MAPS];
};

static _Thread_local sigjmp_buf *touch_jmp;

static void on_fault(int sig)
{
	if (touch_jmp)
		siglongjmp(*touch_jmp, sig);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Read a byte of every page of a mapping the kernel gave: it must be backed. */
static void touch(void *addr, size_t len)
{
	sigjmp_buf jb;
	volatile unsigned char sum = 0;

	if (sigsetjmp(jb, 1)) {
		touch_jmp = NULL;
		atomic_fetch_add(&st->bad_map, 1);
		return;
	}
	touch_jmp = &jb;
	for (size_t off = 0; off < len; off += 4096)
		sum += ((volatile unsigned char *)addr)[off];
	touch_jmp = NULL;
	(void)sum;
}

static void op_mmap(uint64_t *s, int fd, struct maps *m)
{
	static const int prots[] = { PROT_READ, PROT_READ, PROT_READ | PROT_WRITE,
				     PROT_READ | PROT_EXEC, PROT_NONE };
	unsigned int i = below(s, MAX_MAPS);
	size_t len;
	off_t off = 0;
	int prot = prots[below(s, 5)];
	void *a;

	if (m->addr[i]) {
		switch (below(s, 4)) {
		case 0:
			a = mremap(m->addr[i], m->len[i], m->len[i] * 2, MREMAP_MAYMOVE);
			if (a != MAP_FAILED) {
				m->addr[i] = a;
				m->len[i] *= 2;
			}
			break;
		case 1:
			if (m->len[i] > 4096 && !munmap((char *)m->addr[i] + 4096, m->len[i] - 4096))
				m->len[i] = 4096;
			break;
		case 2:
			madvise(m->addr[i], m->len[i], MADV_DONTNEED);
			mprotect(m->addr[i], m->len[i], PROT_READ | PROT_WRITE);
			break;
		default:
			munmap(m->addr[i], m->len[i]);
			m->addr[i] = NULL;
			break;
		}
		return;
	}
	switch (below(s, 6)) {
	case 0: len = 1 + below(s, 4096); break;
	case 1: len = 4096 * (1 + below(s, 2048)); break;
	case 2: len = 1ULL << (20 + below(s, 12)); break;
	default: len = 4096 * (1 + below(s, 16)); break;
	}
	if (chance(s, 15))
		off = 4096 * below(s, 4);
	else if (chance(s, 15))	/* the event rings, and just past their offset */
		off = (off_t)MEMTRACE_EVRING_MMAP_OFFSET + 4096 * below(s, 2);
	atomic_fetch_add(&st->maps, 1);
	a = mmap(NULL, len, prot, chance(s, 80) ? MAP_SHARED : MAP_PRIVATE, fd, off);
	if (a == MAP_FAILED) {
		note_errno(-1, 0xfffffffe);
		return;
	}
	if (prot & PROT_READ)
		touch(a, len);
	m->addr[i] = a;
	m->len[i] = len;
}

static const unsigned int known_cmds[] = {
	MEMTRACE_IOC_VERSION, MEMTRACE_IOC_CONFIG, MEMTRACE_IOC_START, MEMTRACE_IOC_STOP,
	MEMTRACE_IOC_CLEAR, MEMTRACE_IOC_SET_BUFFER, MEMTRACE_IOC_SNAPSHOT,
	MEMTRACE_IOC_TARGET, MEMTRACE_IOC_UPROBE, MEMTRACE_IOC_EVRING_INFO,
	MEMTRACE_IOC_EVRING_CONSUME, MEMTRACE_IOC_EVSTATS,
};

static void op_ioctl(uint64_t *s, int fd, char *scratch)
{
	unsigned int cmd = known_cmds[below(s, sizeof(known_cmds) / sizeof(known_cmds[0]))];
	size_t len = _IOC_SIZE(cmd);
	void *arg = scratch;
	int ret;

	memset(scratch, 0, SCRATCH);
	switch (_IOC_NR(cmd)) {
	case 0x00: {
		struct memtrace_version *v = (void *)scratch;

		v->abi_version = chance(s, 90) ? MEMTRACE_ABI_VERSION : rnd(s);
		break;
	}
	case 0x01:
		fill_config(s, (void *)scratch);
		if (chance(s, 5))	/* non-zero bytes past what the module knows */
			scratch[sizeof(struct memtrace_config) + below(s, 8)] = 1;
		break;
	case 0x05: {
		uint64_t *size = (void *)scratch;

		switch (below(s, 6)) {
		case 0: *size = rnd(s); break;
		case 1: *size = 1 + below(s, 8192); break;
		case 2: *size = 4096ULL << below(s, 14); break;
		default: *size = 4096 * (1 + below(s, 512)); break;
		}
		break;
	}
	case 0x06: {
		struct memtrace_snapshot_req *r = (void *)scratch;

		r->size = fuzz_size(s, MEMTRACE_SNAPSHOT_REQ_SIZE_VER0, sizeof(*r));
		r->flags = chance(s, 10) ? rnd(s) : below(s, 2);
		r->min_age_ns = chance(s, 80) ? 0 : rnd(s);
		break;
	}
	case 0x07: {
		struct memtrace_target *t = (void *)scratch;

		t->size = fuzz_size(s, MEMTRACE_TARGET_SIZE_VER0, sizeof(*t));
		t->pid = pick_pid(s);
		t->flags = chance(s, 30) ? MEMTRACE_TARGET_FOLLOW_FORKS : 0;
		if (chance(s, 5))
			t->flags = rnd(s);
		if (chance(s, 5))
			t->__pad = 1;
		break;
	}
	case 0x08: {
		struct memtrace_uprobe *u = (void *)scratch;

		u->size = fuzz_size(s, MEMTRACE_UPROBE_SIZE_VER0, sizeof(*u));
		u->fd = pick_fd(s);
		u->func = chance(s, 90) ? 1 + below(s, MEMTRACE_UFN_MAX) : below(s, 256);
		if (u->fd == libc_fd && chance(s, 70))
			u->offset = chance(s, 50) ? malloc_off : free_off;
		else if (u->fd == self_fd)
			u->offset = below(s, self_size);
		else
			u->offset = chance(s, 80) ? below(s, libc_size ? libc_size : 1) : rnd(s);
		if (chance(s, 5))
			u->__pad = 1;
		break;
	}
	case 0x09: {
		struct memtrace_evring_info *e = (void *)scratch;

		e->size = fuzz_size(s, MEMTRACE_EVRING_INFO_SIZE_VER0, sizeof(*e));
		break;
	}
	case 0x0a: {
		struct memtrace_evring_consume *e = (void *)scratch;

		e->size = fuzz_size(s, MEMTRACE_EVRING_CONSUME_SIZE_VER0, sizeof(*e));
		e->cpu = chance(s, 80) ? below(s, 4) : rnd(s);
		e->pos = chance(s, 50) ? 8 * below(s, 4096) : rnd(s);
		break;
	}
	case 0x10: {
		struct memtrace_evstats *e = (void *)scratch;

		e->size = fuzz_size(s, MEMTRACE_EVSTATS_SIZE_VER0, sizeof(*e));
		break;
	}
	default:
		break;
	}
	/* Wrong sizes, directions, numbers; another magic. */
	switch (below(s, 20)) {
	case 0:
		cmd = _IOC(_IOC_DIR(cmd), MEMTRACE_IOC_MAGIC, _IOC_NR(cmd), below(s, 512));
		break;
	case 1:
		cmd = _IOC(below(s, 4), MEMTRACE_IOC_MAGIC, _IOC_NR(cmd), _IOC_SIZE(cmd));
		break;
	case 2:
		cmd = _IOC(below(s, 4), MEMTRACE_IOC_MAGIC, below(s, 256), below(s, 512));
		break;
	case 3:
		cmd = rnd(s);
		break;
	default:
		break;
	}
	arg = fuzz_arg(s, scratch, len ? len : 8);
	atomic_fetch_add(&st->ioctls, 1);
	ret = ioctl(fd, cmd, arg);
	note_errno(ret, cmd);
	if (!ret) {
		atomic_fetch_add(&st->ioctl_ok, 1);
		if (cmd == MEMTRACE_IOC_START)
			atomic_fetch_add(&st->sessions, 1);
		if (cmd == MEMTRACE_IOC_SNAPSHOT)
			atomic_fetch_add(&st->snapshots, 1);
	}
}

/* A session that the module will accept, so that hooks really run. */
static void op_session(uint64_t *s, int fd, char *scratch)
{
	struct memtrace_config c = { .flags = chance(s, 50) ? MEMTRACE_CFG_TRACE : 0,
				     .trace_records = 1 << below(s, 12) };
	struct memtrace_snapshot_req r;
	struct memtrace_uprobe u = { .size = sizeof(u), .fd = libc_fd };
	struct memtrace_target t = { .size = sizeof(t) };

	if (mtt_handshake(fd))
		return;
	if (chance(s, 50)) {
		spawn_target(s);
		t.pid = atomic_load(&target_pid);
		t.flags = chance(s, 50) ? MEMTRACE_TARGET_FOLLOW_FORKS : 0;
		c.events = MEMTRACE_EV_USER;
		note_errno(ioctl(fd, MEMTRACE_IOC_TARGET, &t), MEMTRACE_IOC_TARGET);
		u.offset = malloc_off;
		u.func = MEMTRACE_UFN_MALLOC;
		note_errno(ioctl(fd, MEMTRACE_IOC_UPROBE, &u), MEMTRACE_IOC_UPROBE);
		u.offset = free_off;
		u.func = MEMTRACE_UFN_FREE;
		note_errno(ioctl(fd, MEMTRACE_IOC_UPROBE, &u), MEMTRACE_IOC_UPROBE);
	}
	if (chance(s, 30))	/* pressure events too: the event rings and their hooks */
		c.events |= chance(s, 50) ? MEMTRACE_EV_OOM : MEMTRACE_EV_PRESSURE;
	/* System call events: kernel mode (user mode refuses them), or alone. */
	if (!(c.events & MEMTRACE_EV_USER) && chance(s, 30))
		c.events |= below(s, 8) << 11;
	if (mtt_config(fd, &c))
		return;
	mtt_set_buffer(fd, 4096 * (1 + below(s, 256)));
	if (!ioctl(fd, MEMTRACE_IOC_START))
		atomic_fetch_add(&st->sessions, 1);
	usleep(below(s, 20000));
	if (!mtt_snapshot(fd, &r, below(s, 2)))
		atomic_fetch_add(&st->snapshots, 1);
	if (chance(s, 50))
		ioctl(fd, MEMTRACE_IOC_STOP);
	(void)scratch;
}

static void op_read(uint64_t *s, int fd, char *scratch)
{
	static const size_t lens[] = { 0, 1, 63, 64, 65, 128, 4096, SCRATCH };
	size_t len = lens[below(s, sizeof(lens) / sizeof(lens[0]))];
	struct pollfd p = { .fd = fd, .events = POLLIN };
	ssize_t n;

	atomic_fetch_add(&st->reads, 1);
	if (chance(s, 30)) {
		note_errno(poll(&p, 1, below(s, 20)), 0xfffffffd);
		return;
	}
	if (chance(s, 5)) {
		note_errno(write(fd, scratch, len) < 0 ? -1 : 0, 0xfffffffb);
		return;
	}
	n = read(fd, fuzz_arg(s, scratch, len ? len : 1), len);
	note_errno(n < 0 ? -1 : 0, 0xfffffffc);
	if (n > 0)
		atomic_fetch_add(&st->records, n / sizeof(struct memtrace_trace_rec));
}

static void op_slot(uint64_t *s)
{
	unsigned int i = below(s, SLOTS);
	int fd, old;

	if (chance(s, 10)) {
		/* Another slot's file under this number. */
		old = atomic_load(&slot_fd[below(s, SLOTS)]);
		fd = old >= 0 ? dup(old) : -1;
	} else {
		fd = open(MEMTRACE_DEVICE, O_RDWR | (chance(s, 70) ? O_NONBLOCK : 0));
		if (fd < 0) {
			atomic_fetch_add(&st->opens_failed, 1);
			atomic_store(&st->open_errno, errno);
			usleep(1000);	/* unloaded: leave the CPU to the others */
		}
	}
	old = atomic_exchange(&slot_fd[i], fd);
	if (old >= 0)
		close(old);
}

struct thread {
	pthread_t tid;
	uint64_t seed;
};

static void *worker_thread(void *arg)
{
	struct thread *t = arg;
	uint64_t *s = &t->seed;
	struct maps m = { 0 };
	char *scratch = malloc(SCRATCH + 64);

	while (now_ns() < deadline_ns) {
		int fd = atomic_load(&slot_fd[below(s, SLOTS)]);

		atomic_fetch_add(&st->ops, 1);
		if (fd < 0 || chance(s, 4)) {
			op_slot(s);
			continue;
		}
		switch (below(s, 20)) {
		case 0: case 1:
			op_mmap(s, fd, &m);
			break;
		case 2: case 3: case 4:
			op_read(s, fd, scratch);
			break;
		case 5:
			op_session(s, fd, scratch);
			break;
		case 6:
			spawn_target(s);
			break;
		default:
			op_ioctl(s, fd, scratch);
			break;
		}
	}
	free(scratch);
	return NULL;
}

static void wake(int sig)
{
	(void)sig;
}

/* A worker process: threads on shared descriptors, for a random while. */
static void worker(uint64_t seed)
{
	struct thread th[MAX_THREADS];
	struct sigaction sa = { .sa_handler = on_fault };
	struct sigaction intr = { .sa_handler = wake };	/* no SA_RESTART: EINTR */
	uint64_t life;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGUSR1, &intr, NULL);
	for (int i = 0; i < SLOTS; i++)
		atomic_store(&slot_fd[i], -1);
	libc_fd = open(libc_path, O_RDONLY);
	self_fd = open("/proc/self/exe", O_RDONLY);
	dir_fd = open("/", O_RDONLY);
	if (pipe(pipe_fd))
		pipe_fd[0] = pipe_fd[1] = -1;
	life = 1000000ULL * (500 + rnd(&seed) % 5000);
	if (now_ns() + life < deadline_ns)
		deadline_ns = now_ns() + life;
	for (unsigned int i = 0; i < nthreads; i++) {
		th[i].seed = rnd(&seed) | 1;
		pthread_create(&th[i].tid, NULL, worker_thread, &th[i]);
	}
	/* Blocked readers are interrupted now and then; the rest end by deadline. */
	while (now_ns() < deadline_ns) {
		usleep(50000);
		for (unsigned int i = 0; i < nthreads; i++)
			pthread_kill(th[i].tid, SIGUSR1);
	}
	for (unsigned int i = 0; i < nthreads; i++)
		pthread_kill(th[i].tid, SIGUSR1);
	/* Die with everything open and mapped: the release paths run. */
	if (rnd(&seed) & 1) {
		for (unsigned int i = 0; i < nthreads; i++)
			pthread_join(th[i].tid, NULL);
	}
	_exit(0);
}

static int find_libc(void)
{
	void *m = dlsym(RTLD_DEFAULT, "malloc"), *f = dlsym(RTLD_DEFAULT, "free");
	char path2[4096];
	struct stat sb;

	if (!m || !f || mtt_file_offset((uintptr_t)m, libc_path, sizeof(libc_path), &malloc_off) ||
	    mtt_file_offset((uintptr_t)f, path2, sizeof(path2), &free_off))
		return -1;
	if (!stat(libc_path, &sb))
		libc_size = sb.st_size;
	if (!stat("/proc/self/exe", &sb))
		self_size = sb.st_size;
	return 0;
}

int main(int argc, char **argv)
{
	unsigned int seconds = 20, nprocs = 3;
	uint64_t seed = now_ns() ^ getpid(), end, quiet;
	pid_t procs[MAX_PROCS] = { 0 };
	unsigned long spawned = 0, killed = 0, crashed = 0;
	int opt, status;

	while ((opt = getopt(argc, argv, "t:p:j:s:")) != -1) {
		switch (opt) {
		case 't': seconds = strtoul(optarg, NULL, 0); break;
		case 'p': nprocs = strtoul(optarg, NULL, 0); break;
		case 'j': nthreads = strtoul(optarg, NULL, 0); break;
		case 's': seed = strtoull(optarg, NULL, 0); break;
		default:
			fprintf(stderr, "usage: mtfuzz [-t SECONDS] [-p PROCESSES] [-j THREADS] [-s SEED]\n");
			return 2;
		}
	}
	if (nprocs < 1 || nprocs > MAX_PROCS || nthreads < 1 || nthreads > MAX_THREADS) {
		fprintf(stderr, "mtfuzz: 1..%d processes, 1..%d threads\n", MAX_PROCS, MAX_THREADS);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("# mtfuzz: %u s, %u processes x %u threads, seed 0x%" PRIx64 "\n",
	       seconds, nprocs, nthreads, seed);
	if (find_libc()) {
		printf("not ok - fuzz: malloc and free found in a file mapping\n");
		return 1;
	}
	st = mmap(NULL, sizeof(*st), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	edge_page = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (st == MAP_FAILED || edge_page == MAP_FAILED || munmap(edge_page + 4096, 4096)) {
		printf("not ok - fuzz: shared counters: %s\n", strerror(errno));
		return 1;
	}
	end = now_ns() + seconds * 1000000000ULL;
	/*
	 * Past the time asked for, go on (up to three times as long) until
	 * a session has started and a snapshot has been taken: on a loaded
	 * host the workers can spend the whole time refused by each other's
	 * sessions, and the run would then have fuzzed the errors only.
	 */
	deadline_ns = end + 2 * seconds * 1000000000ULL;
	quiet = now_ns() + 1500000000ULL;
	while (now_ns() < end ||
	       (now_ns() < deadline_ns &&
		(!atomic_load(&st->sessions) || !atomic_load(&st->snapshots)))) {
		/*
		 * Every few seconds all workers die at once and none follows for
		 * a moment: every descriptor is closed, and the module can be
		 * unloaded under the next ones' open(2).
		 */
		if (now_ns() >= quiet) {
			for (unsigned int i = 0; i < nprocs; i++) {
				if (procs[i] && !kill(procs[i], SIGKILL)) {
					waitpid(procs[i], &status, 0);
					killed++;
				}
				procs[i] = 0;
			}
			usleep(100000 + below(&seed, 100000));
			quiet = now_ns() + 1500000000ULL + below(&seed, 1500000000ULL);
		}
		for (unsigned int i = 0; i < nprocs; i++) {
			pid_t p;

			if (procs[i] && waitpid(procs[i], &status, WNOHANG) == procs[i]) {
				if (WIFSIGNALED(status) && WTERMSIG(status) != SIGKILL) {
					crashed++;
					printf("# worker %d died of signal %d\n", procs[i],
					       WTERMSIG(status));
				}
				procs[i] = 0;
			}
			if (procs[i])
				continue;
			fflush(stdout);
			p = fork();
			if (!p)
				worker(rnd(&seed));
			if (p > 0) {
				procs[i] = p;
				spawned++;
			}
		}
		usleep(20000 + below(&seed, 80000));
		/* Now and then, a worker dies by SIGKILL wherever it is. */
		if (chance(&seed, 3)) {
			unsigned int i = below(&seed, nprocs);

			if (procs[i] && !kill(procs[i], SIGKILL))
				killed++;
		}
	}
	for (unsigned int i = 0; i < nprocs; i++) {
		if (!procs[i])
			continue;
		kill(procs[i], SIGKILL);
		waitpid(procs[i], &status, 0);
	}
	printf("# %lu operations: %lu ioctls (%lu succeeded), %lu reads/polls, %lu mmaps; "
	       "%lu sessions started, %lu snapshots, %lu trace records read; %lu targets; "
	       "%lu workers (%lu killed); %lu opens failed (last: %s)\n",
	       atomic_load(&st->ops), atomic_load(&st->ioctls), atomic_load(&st->ioctl_ok),
	       atomic_load(&st->reads), atomic_load(&st->maps), atomic_load(&st->sessions),
	       atomic_load(&st->snapshots), atomic_load(&st->records), atomic_load(&st->targets),
	       spawned, killed, atomic_load(&st->opens_failed),
	       atomic_load(&st->opens_failed) ? strerror(atomic_load(&st->open_errno)) : "none");
	mtt_check("fuzz: every error is one the module documents", !atomic_load(&st->bad_errno),
		  "%lu calls failed with an undocumented errno, first %d (%s) from cmd 0x%x",
		  atomic_load(&st->bad_errno), atomic_load(&st->first_bad_errno),
		  strerror(atomic_load(&st->first_bad_errno)), atomic_load(&st->first_bad_cmd));
	mtt_check("fuzz: every page the module mapped can be read", !atomic_load(&st->bad_map),
		  "%lu mappings faulted", atomic_load(&st->bad_map));
	mtt_check("fuzz: no worker crashed", !crashed, "%lu crashed", crashed);
	mtt_check("fuzz: sessions ran (the fuzzer reached the hooks)",
		  atomic_load(&st->sessions) > 0 && atomic_load(&st->snapshots) > 0,
		  "%lu sessions, %lu snapshots", atomic_load(&st->sessions),
		  atomic_load(&st->snapshots));
	return mtt_failures ? 1 : 0;
}
