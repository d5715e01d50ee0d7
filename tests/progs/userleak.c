// SPDX-License-Identifier: GPL-2.0
/*
 * userleak: user allocations known exactly, for memtrace-read -p / -c.
 *
 *   leak_malloc()    5 x malloc(100), kept                       500 B
 *   leak_calloc()    3 x calloc(10, 20), kept                    600 B
 *   leak_realloc()   2 x p = realloc_seed() [malloc(50)], then
 *                    2 x p = realloc(p, 300) (one grows in place,
 *                    one moves), kept                            600 B
 *   leak_memalign()  4 x posix_memalign(&p, 64, 256), kept      1024 B
 *   churn()          1000 x { p = malloc(64); free(p); }
 *
 * As Valgrind Memcheck counts them (realloc = one alloc and one free):
 *   in use at exit: 2,724 bytes in 14 blocks
 *   total heap usage: 1,016 allocs, 1,002 frees, 66,824 bytes allocated
 *
 * Nothing else allocates: no stdio (its buffer is a malloc), only write(2),
 * and signals are taken with sigwait() on a blocked set (no handler).
 *
 * usage: userleak            allocate, then return from main
 *        userleak --wait     write "ready\n", wait for SIGUSR1, allocate,
 *                            write "done\n", wait for SIGTERM, _exit(0)
 *                            (SIGTERM before SIGUSR1: _exit(0) at once;
 *                            SIGUSR1 again after "done": ignored)
 *        userleak --wait-oom MIB
 *                            as --wait, but after "done" map MIB MiB of
 *                            anonymous memory with the raw system call
 *                            (no allocator call memtrace sees) and touch
 *                            every page: in a memcg with a smaller
 *                            memory.max, the OOM killer ends it with its
 *                            leaks live (exit status 4 if it survives)
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

/*
 * The functions must stay what they are in the source, by these names: not
 * inlined, not cloned (no leak_malloc.constprop.0), not merged.
 */
#if defined(__clang__)
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE __attribute__((noinline, noclone, noipa))
#endif

#define N_MALLOC	5
#define N_CALLOC	3
#define N_REALLOC	2
#define N_MEMALIGN	4
#define N_CHURN		1000

/*
 * Every pointer goes through a volatile store, so the compiler can neither
 * drop an allocation (nor a malloc/free pair) nor turn a call whose result
 * is stored into a tail call (the caller's frame would vanish from stacks).
 */
/*
 * One call site per allocator call: the loops count with a volatile, so the
 * compiler cannot unroll them (an unrolled loop calls the allocator from as
 * many return addresses, i.e. as many stacks).
 */
static void *volatile kept[N_MALLOC + N_CALLOC + N_REALLOC + N_MEMALIGN];
static void *volatile scratch;
static unsigned int nkept;

static void say(const char *s)
{
	size_t len = strlen(s);

	while (len) {
		ssize_t n = write(1, s, len);

		if (n <= 0)
			_exit(3);
		s += n;
		len -= (size_t)n;
	}
}

static void die(const char *s)
{
	/* stderr, unbuffered: still no allocation */
	ssize_t n = write(2, s, strlen(s));

	(void)n;
	_exit(2);
}

static void keep(void *p)
{
	if (!p)
		die("userleak: allocation failed\n");
	kept[nkept++] = p;
}

NOINLINE void leak_malloc(void)
{
	for (volatile int i = 0; i < N_MALLOC; i++)
		keep(malloc(100));
}

NOINLINE void leak_calloc(void)
{
	for (volatile int i = 0; i < N_CALLOC; i++)
		keep(calloc(10, 20));
}

/* The malloc(50)s realloc takes over: their own stack, not leak_realloc's. */
NOINLINE void *realloc_seed(void)
{
	scratch = malloc(50);
	return scratch;
}

/*
 * Both seeds first, then the second realloc, then the first: natively glibc
 * grows the second in place (its chunk borders the top of the heap) and
 * must move the first (the second is in its way), so both ways a realloc
 * ends are seen.  Valgrind always moves; the counts are the same.
 */
NOINLINE void leak_realloc(void)
{
	void *p[N_REALLOC];

	for (volatile int i = 0; i < N_REALLOC; i++) {
		p[i] = realloc_seed();
		if (!p[i])
			die("userleak: allocation failed\n");
	}
	for (volatile int i = N_REALLOC; i-- > 0;)
		keep(realloc(p[i], 300));
}

NOINLINE void leak_memalign(void)
{
	for (volatile int i = 0; i < N_MEMALIGN; i++) {
		void *p = NULL;

		if (posix_memalign(&p, 64, 256))
			die("userleak: posix_memalign failed\n");
		keep(p);
	}
}

NOINLINE void churn(void)
{
	for (volatile int i = 0; i < N_CHURN; i++) {
		scratch = malloc(64);
		if (!scratch)
			die("userleak: allocation failed\n");
		free(scratch);
	}
}

/*
 * Wait for signal 'want' (all of 'blocked' are blocked).  SIGTERM ends the
 * process at any time, with status 0; other signals of the set are ignored.
 */
static void wait_signal(const sigset_t *blocked, int want)
{
	int sig;

	do {
		if (sigwait(blocked, &sig))
			die("userleak: sigwait failed\n");
		if (sig == SIGTERM)
			_exit(0);
	} while (sig != want);
}

int main(int argc, char **argv)
{
	const char *exec_path = NULL;
	unsigned long oom_mib = 0;
	int wait_mode = 0;
	sigset_t blocked;

	if (argc == 2 && !strcmp(argv[1], "--wait"))
		wait_mode = 1;
	else if (argc == 3 && !strcmp(argv[1], "--wait-oom") &&
		 (oom_mib = strtoul(argv[2], NULL, 10)) != 0)
		wait_mode = 1;
	else if (argc == 3 && !strcmp(argv[1], "--exec"))
		exec_path = argv[2];	/* allocate, then become exec_path */
	else if (argc != 1)
		die("usage: userleak [--wait | --wait-oom MIB | --exec PROGRAM]\n");

	if (wait_mode) {
		/* Blocked before "ready": a signal sent right after stays pending. */
		sigemptyset(&blocked);
		sigaddset(&blocked, SIGUSR1);
		sigaddset(&blocked, SIGTERM);
		if (sigprocmask(SIG_BLOCK, &blocked, NULL))
			die("userleak: sigprocmask failed\n");
		say("ready\n");
		wait_signal(&blocked, SIGUSR1);
	}

	leak_malloc();
	leak_calloc();
	leak_realloc();
	leak_memalign();
	churn();

	if (exec_path) {
		char *const args[] = { (char *)exec_path, NULL };

		execv(exec_path, args);
		die("userleak: exec failed\n");
	}
	if (wait_mode) {
		say("done\n");
		if (oom_mib) {
			size_t len = oom_mib << 20;
			/* Not mmap(): libc's is a function memtrace may probe. */
			char *p = (char *)syscall(SYS_mmap, NULL, len, PROT_READ | PROT_WRITE,
						  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			if (p == MAP_FAILED)
				die("userleak: mmap failed\n");
			for (size_t off = 0; off < len; off += 4096)
				((volatile char *)p)[off] = 1;
			_exit(4);
		}
		wait_signal(&blocked, SIGTERM);
		_exit(0);
	}
	return 0;
}
