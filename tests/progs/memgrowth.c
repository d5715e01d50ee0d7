// SPDX-License-Identifier: GPL-2.0
/*
 * Process memory growth with known arguments, for --mmap, --brk and --shm
 * (tests/e2e/56-mmap.sh, 57-brk.sh, 58-shm.sh): each system call is made
 * from a function of its own (noinline, built with frame pointers), and
 * printed on stdout with its arguments and result, so the test compares
 * memtrace's lines and stacks with what the program did.
 *
 *   memgrowth mmap FILE   anonymous and file mappings, each PROT/MAP kind,
 *                         a failed one, mremap, munmap
 *   memgrowth brk N       grows the break N times by 64 KiB (grow_heap),
 *                         then shrinks it back (shrink_heap)
 *   memgrowth shm         shmget, shmat (rw, read-only), shmdt, shmctl
 *   memgrowth faults N FILE
 *                         touches N fresh anonymous pages (touch_pages), then
 *                         reads N pages of FILE through a mapping
 *                         (read_pages), printing the page faults each took
 *                         by getrusage()
 *   memgrowth majfaults N FILE
 *                         reads N pages of FILE (on a disk: ext4 on a loop
 *                         device, written and evicted from the page cache
 *                         by the caller; mincore() says how many are
 *                         resident) through a mapping, with MADV_RANDOM
 *                         where the kernel has madvise() (no read-around:
 *                         a page per fault, "RANDOM 1"), from read_pages,
 *                         printing the page faults getrusage() counts
 *   memgrowth rawmap MIB  writes "ready", waits for SIGUSR1, maps MIB MiB
 *                         anonymous by the raw system call (not libc's
 *                         mmap(), no allocator call) and touches it,
 *                         writes "done", waits for SIGTERM: growth no
 *                         allocator probe sees (tests/e2e/49-user-allocators.sh)
 *   memgrowth bench N     times N mmap+munmap pairs (64 KiB, anonymous) and
 *                         N page faults (fresh anonymous pages), the median
 *                         of 5 rounds after one to warm up: "ns/mmap X",
 *                         "ns/fault Y" (tests/bench/growth-costs.sh)
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <sys/shm.h>
#include <sys/syscall.h>
#include <unistd.h>

#define KB 1024UL
/* Each call from a function of its own, named as written: no inlining, no clones. */
#define NOINLINE __attribute__((noinline, noclone))

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fflush(stdout);
}

NOINLINE static void *map_anon(void *at, size_t len, int prot, int flags)
{
	void *p = mmap(at, len, prot, flags | MAP_ANONYMOUS, -1, 0);

	say("MMAP anon len %zu prot %d flags 0x%x = %p\n", len, prot, flags | MAP_ANONYMOUS, p);
	return p;
}

NOINLINE static void *map_file(int fd, size_t len, off_t off, int prot,
						 int flags)
{
	void *p = mmap(NULL, len, prot, flags, fd, off);

	say("MMAP file len %zu off %lld prot %d flags 0x%x = %p\n", len, (long long)off, prot,
	    flags, p);
	return p;
}

NOINLINE static void *grow_mapping(void *old, size_t old_len, size_t new_len)
{
	void *p = mremap(old, old_len, new_len, MREMAP_MAYMOVE);

	say("MREMAP %p %zu -> %zu = %p\n", old, old_len, new_len, p);
	return p;
}

NOINLINE static void unmap(void *p, size_t len)
{
	int r = munmap(p, len);

	say("MUNMAP %p %zu = %d\n", p, len, r);
}

NOINLINE static int run_mmap(const char *path)
{
	int fd = open(path, O_RDWR | O_CREAT, 0644);
	void *a, *b, *c, *d, *e, *f;

	if (fd < 0 || ftruncate(fd, 64 * KB)) {
		perror(path);
		return 1;
	}
	a = map_anon(NULL, 64 * KB, PROT_READ | PROT_WRITE, MAP_PRIVATE);
	b = map_anon(NULL, 128 * KB, PROT_READ, MAP_SHARED);
	c = map_anon(NULL, 16 * KB, PROT_NONE, MAP_PRIVATE);
	d = map_file(fd, 16 * KB, 8 * KB, PROT_READ, MAP_PRIVATE);
	e = map_file(fd, 32 * KB, 0, PROT_READ | PROT_WRITE, MAP_SHARED);
	f = map_file(fd, 4 * KB, 12 * KB, PROT_READ | PROT_EXEC, MAP_PRIVATE);
	/* A fixed mapping over the start of a: MAP_FIXED. */
	map_anon(a, 4 * KB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED);
	/* Fails: no such descriptor (EBADF). */
	map_file(-1, 4 * KB, 0, PROT_READ, MAP_SHARED);
	a = grow_mapping(a, 64 * KB, 256 * KB);
	unmap(a, 256 * KB);
	unmap(b, 128 * KB);
	unmap(c, 16 * KB);
	unmap(d, 16 * KB);
	unmap(e, 32 * KB);
	unmap(f, 4 * KB);
	close(fd);
	return 0;
}

NOINLINE static void grow_heap(size_t by)
{
	void *old = sbrk(0);
	int r = brk((char *)old + by);

	say("BRK %p -> %p = %d\n", old, (void *)((char *)old + by), r);
}

NOINLINE static void shrink_heap(void *to)
{
	void *old = sbrk(0);
	int r = brk(to);

	say("BRKDOWN %p -> %p = %d\n", old, to, r);
}

NOINLINE static int run_brk(int n)
{
	void *start = sbrk(0);

	for (int i = 0; i < n; i++)
		grow_heap(64 * KB);
	shrink_heap(start);
	return 0;
}

NOINLINE static int make_segment(size_t size)
{
	int id = shmget(IPC_PRIVATE, size, IPC_CREAT | 0600);

	say("SHMGET size %zu = 0x%x\n", size, id);
	return id;
}

NOINLINE static void *attach_segment(int id, int flags)
{
	void *p = shmat(id, NULL, flags);

	say("SHMAT 0x%x flags 0x%x = %p\n", id, flags, p);
	return p;
}

NOINLINE static void detach_segment(void *p)
{
	int r = shmdt(p);

	say("SHMDT %p = %d\n", p, r);
}

NOINLINE static void control_segment(int id, int cmd, struct shmid_ds *ds)
{
	int r = shmctl(id, cmd, ds);

	say("SHMCTL 0x%x cmd %d buf %p = %d errno %d\n", id, cmd, (void *)ds, r, r ? errno : 0);
}

NOINLINE static int run_shm(void)
{
	struct shmid_ds ds;
	int id = make_segment(64 * KB);
	void *rw, *ro;

	if (id < 0) {
		perror("shmget");
		return 1;
	}
	rw = attach_segment(id, 0);
	ro = attach_segment(id, SHM_RDONLY);
	control_segment(id, IPC_STAT, &ds);
	detach_segment(rw);
	detach_segment(ro);
	control_segment(id, IPC_RMID, NULL);
	/* Fails: the segment is gone. */
	control_segment(id, IPC_STAT, &ds);
	return 0;
}

#define PAGE 4096UL

NOINLINE static void touch_pages(volatile char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i * PAGE] = 1;
}

NOINLINE static unsigned long read_pages(const volatile char *p, size_t n)
{
	unsigned long sum = 0;

	for (size_t i = 0; i < n; i++)
		sum += (unsigned char)p[i * PAGE];
	return sum;
}

/* The page faults getrusage() counts between two calls: minor, major. */
static void faults_since(const struct rusage *r0, long *minor, long *major)
{
	struct rusage r1;

	getrusage(RUSAGE_SELF, &r1);
	*minor = r1.ru_minflt - r0->ru_minflt;
	*major = r1.ru_majflt - r0->ru_majflt;
}

NOINLINE static int run_faults(int n, const char *path)
{
	static char data[PAGE];
	const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	long minor, major;
	struct rusage r0;
	char *a, *m;
	int fd;

	a = mmap(NULL, n * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (a == MAP_FAILED || fd < 0) {
		perror("memgrowth faults");
		return 1;
	}
	/* A page each: no transparent huge page maps many at once. */
	madvise(a, n * PAGE, MADV_NOHUGEPAGE);
	memset(data, 'x', sizeof(data));
	for (int i = 0; i < n; i++)
		if (write(fd, data, sizeof(data)) != sizeof(data)) {
			perror(path);
			return 1;
		}
	m = mmap(NULL, n * PAGE, PROT_READ, MAP_PRIVATE, fd, 0);
	if (m == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	/* Their code and getrusage()'s faulted in first: only the pages count. */
	touch_pages(a, 0);
	read_pages(m, 0);
	getrusage(RUSAGE_SELF, &r0);
	faults_since(&r0, &minor, &major);

	getrusage(RUSAGE_SELF, &r0);
	touch_pages(a, n);
	faults_since(&r0, &minor, &major);
	say("TOUCH %d pages minflt %ld majflt %ld\n", n, minor, major);
	getrusage(RUSAGE_SELF, &r0);
	read_pages(m, n);
	faults_since(&r0, &minor, &major);
	say("READ %s %d pages minflt %ld majflt %ld\n", name, n, minor, major);
	close(fd);
	return 0;
}

NOINLINE static int run_majfaults(int n, const char *path)
{
	const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	unsigned char *vec = calloc((size_t)n, 1);
	long minor, major, resident = 0;
	struct rusage r0;
	int fd, random;
	char *m;

	fd = open(path, O_RDONLY);
	if (fd < 0 || !vec) {
		perror("memgrowth majfaults");
		return 1;
	}
	m = mmap(NULL, n * PAGE, PROT_READ, MAP_PRIVATE, fd, 0);
	if (m == MAP_FAILED || mincore(m, n * PAGE, vec)) {
		perror("mmap/mincore");
		return 1;
	}
	/* A kernel without madvise() (CONFIG_ADVISE_SYSCALLS) reads around. */
	random = !madvise(m, n * PAGE, MADV_RANDOM);
	for (int i = 0; i < n; i++)
		resident += vec[i] & 1;
	say("RESIDENT %s %ld of %d pages\n", name, resident, n);
	say("RANDOM %d\n", random);
	/* Its code and getrusage()'s faulted in first: only the pages count. */
	read_pages(m, 0);
	getrusage(RUSAGE_SELF, &r0);
	faults_since(&r0, &minor, &major);

	getrusage(RUSAGE_SELF, &r0);
	read_pages(m, n);
	faults_since(&r0, &minor, &major);
	say("READ %s %d pages minflt %ld majflt %ld\n", name, n, minor, major);
	close(fd);
	free(vec);
	return 0;
}

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ULL + (uint64_t)t.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* One round: ns per mmap+munmap pair and per fault, of n each. */
static int bench_round(int n, uint64_t *mmap_ns, uint64_t *fault_ns)
{
	uint64_t t0 = now_ns();
	char *a;

	for (int i = 0; i < n; i++) {
		void *p = mmap(NULL, 64 * KB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			       -1, 0);

		if (p == MAP_FAILED || munmap(p, 64 * KB))
			return -1;
	}
	*mmap_ns = (now_ns() - t0) / n;
	a = mmap(NULL, n * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (a == MAP_FAILED)
		return -1;
	madvise(a, n * PAGE, MADV_NOHUGEPAGE);
	t0 = now_ns();
	touch_pages(a, n);
	*fault_ns = (now_ns() - t0) / n;
	return munmap(a, n * PAGE);
}

NOINLINE static int run_bench(int n)
{
	uint64_t m[6], f[6];

	if (n <= 0)
		return 2;
	for (int r = 0; r < 6; r++)
		if (bench_round(n, &m[r], &f[r])) {
			perror("memgrowth bench");
			return 1;
		}
	/* Round 0 warms up. */
	qsort(m + 1, 5, sizeof(m[0]), cmp_u64);
	qsort(f + 1, 5, sizeof(f[0]), cmp_u64);
	say("ns/mmap %llu\nns/fault %llu\n", (unsigned long long)m[3], (unsigned long long)f[3]);
	return 0;
}

static void wait_for_signal(int sig)
{
	sigset_t set;
	int got;

	sigemptyset(&set);
	sigaddset(&set, sig);
	sigwait(&set, &got);
}

static int run_rawmap(int mib)
{
	size_t len = (size_t)mib << 20;
	sigset_t set;
	long p;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_BLOCK, &set, NULL);
	if (write(1, "ready\n", 6) != 6)
		return 1;
	wait_for_signal(SIGUSR1);
	/* Populated in the call: RSS grows with the mapping, in one interval. */
	p = syscall(SYS_mmap, NULL, len, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (p == -1)
		return 1;
	for (size_t i = 0; i < len; i += 4096)
		((volatile char *)p)[i] = 1;
	if (write(1, "done\n", 5) != 5)
		return 1;
	wait_for_signal(SIGTERM);
	_exit(0);
}

int main(int argc, char **argv)
{
	static char outbuf[4096];
	int status = 2;

	/* stdio's buffer is not malloc'ed: nothing but grow_heap moves the break. */
	setvbuf(stdout, outbuf, _IOLBF, sizeof(outbuf));
	/* Not tail calls: main keeps its frame, and stacks show it. */
	if (argc == 3 && !strcmp(argv[1], "mmap"))
		status = run_mmap(argv[2]);
	else if (argc == 3 && !strcmp(argv[1], "brk"))
		status = run_brk(atoi(argv[2]));
	else if (argc == 2 && !strcmp(argv[1], "shm"))
		status = run_shm();
	else if (argc == 4 && !strcmp(argv[1], "faults"))
		status = run_faults(atoi(argv[2]), argv[3]);
	else if (argc == 4 && !strcmp(argv[1], "majfaults"))
		status = run_majfaults(atoi(argv[2]), argv[3]);
	else if (argc == 3 && !strcmp(argv[1], "rawmap"))
		status = run_rawmap(atoi(argv[2]));
	else if (argc == 3 && !strcmp(argv[1], "bench"))
		status = run_bench(atoi(argv[2]));
	else
		fprintf(stderr, "usage: memgrowth mmap FILE | brk N | shm | faults N FILE | "
			"majfaults N FILE | bench N\n");
	say("END %d\n", status);
	return status;
}
