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
 *
 * All of it kept; nothing else allocates (write(2) only).
 */
#include <signal.h>
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

int main(int argc, char **argv)
{
	if (argc > 2 && !strcmp(argv[1], "deep")) {
		recurse((unsigned int)strtoul(argv[2], NULL, 0));
	} else if (argc > 1 && !strcmp(argv[1], "signal")) {
		if (signal_mode())
			return 1;
	} else if (argc > 1 && !strcmp(argv[1], "badstack")) {
		if (badstack())
			return 1;
	} else {
		level1();
	}
	keep(NULL);
	return 0;
}
