// SPDX-License-Identifier: GPL-2.0
/*
 * cfileak: leaks reached through known call chains, for user stacks walked
 * by unwind tables (tests/e2e/44-user-cfi.sh).  Built twice: cfileak-nofp
 * (-O2 -fomit-frame-pointer, as Debian builds) and cfileak-fp
 * (-O2 -fno-omit-frame-pointer).
 *
 *   cfileak            main -> level1 -> level2 -> level3: 7 x malloc(111)
 *   cfileak deep N     main -> recurse() N deep -> malloc(222), once
 *   cfileak badstack   malloc(333) called on a stack of one page whose
 *                      caller's frame would lie in the unmapped page
 *                      above it: the walk must fault, and stop, counted
 *   cfileak signal     main -> spin(), interrupted by SIGALRM, whose
 *                      handler on_signal() does malloc(444): the walk
 *                      goes through the signal frame back into spin()
 *   cfileak growth     main -> grow1 -> grow2 -> grow3, which maps 7
 *                      anonymous pages (mmap, 28672 bytes), writes each
 *                      (7 page faults in grow3) and grows the break by
 *                      3 x 64 KiB through sbrk -> brk: the growth modes'
 *                      stacks (tests/e2e/47-user-growth-cfi.sh)
 *   cfileak growth wait   the same once sent SIGUSR1, after it printed
 *                      "ready" (for a reader that attaches with -p), then
 *                      _exit(0)
 *
 * All of it kept; nothing else allocates (write(2) only); growth calls
 * no malloc.
 */
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline, noclone, noipa))

/* Stores through a volatile: no allocation dropped, no call made a tail call. */
static void *volatile kept[16];
static unsigned int nkept;

static NOINLINE void keep(void *p)
{
	kept[nkept++ % 16] = p;
}

static NOINLINE void level3(void)
{
	void *p = malloc(111);

	keep(p);
}

static NOINLINE void level2(void)
{
	level3();
	keep(NULL);
}

static NOINLINE void level1(void)
{
	for (volatile int i = 0; i < 7; i++)
		level2();
	keep(NULL);
}

static NOINLINE unsigned int recurse(unsigned int n)
{
	unsigned int r;

	if (!n) {
		keep(malloc(222));
		return 0;
	}
	r = recurse(n - 1);
	keep(NULL);
	return r + 1;
}

/* malloc(n) with rsp at top: the return lands here, whose frame the tables put above top. */
static NOINLINE void *malloc_on(void *top, size_t n)
{
	void *ret;

	__asm__ volatile("mov %%rsp, %%r12\n\t"
		     "mov %[top], %%rsp\n\t"
		     "call malloc@PLT\n\t"
		     "mov %%r12, %%rsp\n\t"
		     : "=a"(ret), "+D"(n)
		     : [top] "r"(top)
		     : "r12", "rcx", "rdx", "rsi", "r8", "r9", "r10", "r11", "memory", "cc",
		       "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",
		       "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15");
	return ret;
}

static int badstack(void)
{
	long page = sysconf(_SC_PAGESIZE);
	char *m = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED || munmap(m + page, page))
		return 1;
	/* malloc's return address is the page's last word: its caller's frame is above. */
	keep(malloc_on(m + page, 333));
	return 0;
}

static volatile sig_atomic_t signalled;

static void on_signal(int sig)
{
	(void)sig;
	keep(malloc(444));
	signalled = 1;
}

/* Busy until the handler ran: the signal interrupts this function's loop. */
static NOINLINE void spin(void)
{
	while (!signalled)
		;
	keep(NULL);
}

static int signal_mode(void)
{
	struct itimerval it = { .it_value = { .tv_usec = 20000 } };
	struct sigaction sa = { .sa_handler = on_signal };

	if (sigaction(SIGALRM, &sa, NULL) || setitimer(ITIMER_REAL, &it, NULL))
		return 1;
	spin();
	return 0;
}

#define GROW_PAGES	7
#define GROW_BRK	65536

static NOINLINE int grow3(void)
{
	long page = sysconf(_SC_PAGESIZE);
	char *m = mmap(NULL, GROW_PAGES * page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED)
		return 1;
	for (int i = 0; i < GROW_PAGES; i++)
		((volatile char *)m)[i * page] = 1;
	keep(m);
	for (int i = 0; i < 3; i++)
		if (sbrk(GROW_BRK) == (void *)-1)
			return 1;
	return 0;
}

static NOINLINE int grow2(void)
{
	int r = grow3();

	keep(NULL);
	return r;
}

static NOINLINE int grow1(void)
{
	int r = grow2();

	keep(NULL);
	return r;
}

static volatile sig_atomic_t go;

static void on_go(int sig)
{
	(void)sig;
	go = 1;
}

/* "ready" on stdout, then nothing until SIGUSR1. */
static int wait_for_go(void)
{
	struct sigaction sa = { .sa_handler = on_go };
	sigset_t block, old;

	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	if (sigaction(SIGUSR1, &sa, NULL) || sigprocmask(SIG_BLOCK, &block, &old) ||
	    write(1, "ready\n", 6) != 6)
		return 1;
	while (!go)
		sigsuspend(&old);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 2 && !strcmp(argv[1], "deep")) {
		recurse((unsigned int)strtoul(argv[2], NULL, 0));
	} else if (argc > 1 && !strcmp(argv[1], "signal")) {
		if (signal_mode())
			return 1;
	} else if (argc > 1 && !strcmp(argv[1], "growth")) {
		bool wait = argc > 2 && !strcmp(argv[2], "wait");

		if (wait && wait_for_go())
			return 1;
		if (grow1())
			return 1;
		/*
		 * Traced from its start (-p): no exit handlers, whose first
		 * run may fault in crtstuff's __do_global_dtors_aux, which
		 * has no unwind table (its frame is found by rbp).
		 */
		if (wait)
			_exit(0);
	} else if (argc > 1 && !strcmp(argv[1], "badstack")) {
		if (badstack())
			return 1;
	} else {
		level1();
	}
	keep(NULL);
	return 0;
}
