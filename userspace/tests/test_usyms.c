// SPDX-License-Identifier: GPL-2.0
/*
 * The user-space symbolizer against real processes: this one (built with
 * -g, so its own functions resolve down to the line), libc, a library
 * dlopen'ed after the symbolizer started, one deleted after it was mapped,
 * forked children that die, a C++ library (demangled names), and static
 * programs chroot'ed into trees that hold their debug files (by build-id,
 * by .gnu_debuglink).
 */
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "usyms.h"

#define LINE_LEN 256
#define MAX_LINES 8

/*
 * Functions whose return addresses we know: never inlined, cloned or
 * merged with a look-alike, so that their symbol is their own name.
 */
#ifdef __clang__
#define TEST_NOIPA __attribute__((noinline))
#else
#define TEST_NOIPA __attribute__((noipa))
#endif

/* Lines of the calls below, set as they run (same line as each call). */
static int caller_line, inner_line, middle_line, outer_line;

/* The return address of its call: the instruction after it in the caller. */
static TEST_NOIPA uint64_t capture_ret(void)
{
	return (uint64_t)(uintptr_t)__builtin_return_address(0);
}

static TEST_NOIPA uint64_t usyms_test_caller(void)
{
	uint64_t r = capture_ret(); caller_line = __LINE__;

	/* Uses r after the call: no tail call, the call stays a call. */
	__asm__ volatile("" : "+r"(r));
	return r;
}

static inline __attribute__((always_inline)) uint64_t usyms_test_inner(void)
{
	uint64_t r = capture_ret(); inner_line = __LINE__;

	__asm__ volatile("" : "+r"(r));
	return r;
}

static inline __attribute__((always_inline)) uint64_t usyms_test_middle(void)
{
	uint64_t r = usyms_test_inner(); middle_line = __LINE__;

	__asm__ volatile("" : "+r"(r));
	return r;
}

/* capture_ret's call, two inline levels deep in usyms_test_outer. */
static TEST_NOIPA uint64_t usyms_test_outer(void)
{
	uint64_t r = usyms_test_middle(); outer_line = __LINE__;

	__asm__ volatile("" : "+r"(r));
	return r;
}

static char test_lines[MAX_LINES * LINE_LEN];

/*
 * addr's frames as the text report prints them (usyms_frames(), then
 * rm_frame_text()), line i at buf + i * line_len, at most max of them.
 */
static size_t format_lines(struct usyms *u, uint64_t addr, char *buf, size_t line_len,
			   size_t max)
{
	struct rm_frame frames[MAX_LINES];
	size_t n = usyms_frames(u, addr, frames, max < MAX_LINES ? max : MAX_LINES);

	for (size_t i = 0; i < n; i++)
		rm_frame_text(&frames[i], buf + i * line_len, line_len);
	return n;
}

static const char *line_at(size_t i)
{
	return test_lines + i * LINE_LEN;
}

/* Formats addr and compares the lines with want (NULL-terminated). */
static bool formats_as(struct usyms *u, uint64_t addr, const char *const *want)
{
	size_t n = format_lines(u, addr, test_lines, LINE_LEN, MAX_LINES), nr_want = 0;
	bool same;

	while (want[nr_want])
		nr_want++;
	same = n == nr_want;
	for (size_t i = 0; same && i < n; i++)
		same = !strcmp(line_at(i), want[i]);
	if (!same) {
		diag("0x%llx: expected %zu line(s), got %zu:", (unsigned long long)addr, nr_want,
		     n);
		for (size_t i = 0; i < nr_want; i++)
			diag("  want \"%s\"", want[i]);
		for (size_t i = 0; i < n; i++)
			diag("  got  \"%s\"", line_at(i));
	}
	return same;
}

static const char *self_name(void)
{
	static char name[64];
	char path[4096];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
	const char *slash;

	if (n < 0)
		return "?";
	path[n] = '\0';
	slash = strrchr(path, '/');
	snprintf(name, sizeof(name), "%.63s", slash ? slash + 1 : path);
	return name;
}

/* "usyms_test_caller+0x.. [unit-tests] test_usyms.c:LINE" for ret. */
static void caller_frame(uint64_t ret, char *buf, size_t len)
{
	snprintf(buf, len, "usyms_test_caller+0x%llx [%s] test_usyms.c:%d",
		 (unsigned long long)(ret - (uint64_t)(uintptr_t)&usyms_test_caller),
		 self_name(), caller_line);
}

/*
 * "NAME+0xOFF [bin]" optionally followed by " file:line", where NAME is
 * any alias of sym in lib (malloc is also __libc_malloc).
 */
static bool is_symbol_frame(const char *line, void *lib, void *sym, unsigned int off,
			    const char *bin)
{
	char name[128], tail[128], want_tail[160];
	unsigned int got_off = 0;
	int n = 0;

	if (sscanf(line, "%127[^+]+0x%x %n", name, &got_off, &n) != 2 || !n)
		return false;
	snprintf(want_tail, sizeof(want_tail), "[%s]", bin);
	snprintf(tail, sizeof(tail), "%s", line + n);
	if (strncmp(tail, want_tail, strlen(want_tail)) ||
	    (tail[strlen(want_tail)] && tail[strlen(want_tail)] != ' '))
		return false;
	if (got_off != off || dlsym(lib, name) != sym) {
		diag("\"%s\": %s is not the symbol at %p + 0x%x", line, name, sym, off);
		return false;
	}
	return true;
}

/* libc, and its own definitions: &malloc may be a sanitizer's. */
static void *libc(void)
{
	static void *handle;

	if (!handle)
		handle = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	return handle;
}

static void *libc_sym(const char *name)
{
	return libc() ? dlsym(libc(), name) : NULL;
}

static void test_self(void)
{
	uint64_t ret = usyms_test_caller();
	struct usyms *u = NULL;
	void *sym;
	struct mt_err err = { "" };
	char frame[LINE_LEN];
	int ret_new = usyms_new(getpid(), &u, &err);

	if (!check(ret_new == 0 && u, "usyms starts on this process")) {
		diag("%s", err.msg);
		return;
	}
	caller_frame(ret, frame, sizeof(frame));
	check(formats_as(u, ret, (const char *const[]){ frame, NULL }),
	      "usyms resolves a return address to caller+0xoff [binary] file:line");
	check(formats_as(u, ret, (const char *const[]){ frame, NULL }) && usyms_cached(u) == 1,
	      "usyms answers the same address from its cache");

	check(formats_as(u, 0x10, (const char *const[]){ "0x0000000000000010 [unknown]", NULL }) &&
	      formats_as(u, 0, (const char *const[]){ "0x0000000000000000 [unknown]", NULL }),
	      "usyms reports an address outside every mapping as [unknown]");

	sym = libc_sym("malloc");
	check(sym && format_lines(u, (uint64_t)(uintptr_t)sym + 4, test_lines, LINE_LEN,
				  MAX_LINES) >= 1 &&
	      is_symbol_frame(line_at(0), libc(), sym, 4, "libc.so.6"),
	      "usyms resolves malloc+0x4 [libc.so.6] (%s)", line_at(0));
	usyms_free(u);
}

static void test_inline(void)
{
	uint64_t ret = usyms_test_outer();
	struct usyms *u = NULL;
	struct mt_err err;
	char inner[LINE_LEN], middle[LINE_LEN], outer[LINE_LEN];
	const char *bin = self_name();
	bool ok;

	if (usyms_new(getpid(), &u, &err)) {
		check(false, "usyms starts on this process: %s", err.msg);
		return;
	}
	snprintf(inner, sizeof(inner), "usyms_test_inner [%s] test_usyms.c:%d (inlined)",
		 bin, inner_line);
	snprintf(middle, sizeof(middle), "usyms_test_middle [%s] test_usyms.c:%d (inlined)",
		 bin, middle_line);
	snprintf(outer, sizeof(outer), "usyms_test_outer+0x%llx [%s] test_usyms.c:%d",
		 (unsigned long long)(ret - (uint64_t)(uintptr_t)&usyms_test_outer), bin,
		 outer_line);
	check(formats_as(u, ret, (const char *const[]){ inner, middle, outer, NULL }),
	      "usyms shows inlined functions innermost first, each at its call site");

	/* Too few lines: the innermost are kept, and the function line. */
	ok = format_lines(u, ret, test_lines, LINE_LEN, 2) == 2 &&
	     !strcmp(line_at(0), inner) && !strcmp(line_at(1), outer);
	check(ok, "usyms keeps the function line when max cuts the inline chain");
	ok = format_lines(u, ret, test_lines, 6, 1) == 1 && !strcmp(line_at(0), "usyms");
	check(ok, "usyms cuts lines to line_len - 1 bytes (\"%s\")", line_at(0));
	check(format_lines(u, ret, test_lines, LINE_LEN, 0) == 0,
	      "usyms writes nothing for max 0");
	usyms_free(u);
}

/* The vDSO's mapping in this process. */
static bool vdso_range(uint64_t *start, uint64_t *end)
{
	char *maps = read_file("/proc/self/maps", NULL);
	char *line = maps ? strstr(maps, "[vdso]") : NULL;
	unsigned long long s, e;
	bool found;

	while (line && line > maps && line[-1] != '\n')
		line--;
	found = line && sscanf(line, "%llx-%llx", &s, &e) == 2;
	if (found) {
		*start = s;
		*end = e;
	}
	free(maps);
	return found;
}

/* The vDSO, which libdwfl reads from /proc/PID/mem: its functions resolve. */
static void test_vdso(void)
{
	uint64_t start, end, addr;
	struct usyms *u = NULL;
	struct mt_err err;
	bool named = false;

	if (!vdso_range(&start, &end)) {
		check(true, "usyms names vDSO functions # SKIP no vDSO here");
		return;
	}
	if (usyms_new(getpid(), &u, &err)) {
		check(false, "usyms starts on this process: %s", err.msg);
		return;
	}
	for (addr = start + 1; addr < end && !named; addr += 16) {
		size_t n = format_lines(u, addr, test_lines, LINE_LEN, MAX_LINES);

		named = strstr(line_at(n - 1), "+0x") && strstr(line_at(n - 1), " [vdso]");
	}
	check(named, "usyms names vDSO functions (%s)", line_at(0));
	usyms_free(u);
}

static bool maps_have(const char *what)
{
	char *maps = read_file("/proc/self/maps", NULL);
	bool found = maps && strstr(maps, what);

	free(maps);
	return found;
}

/*
 * libm: libdw's constructor loads libdebuginfod and with it much of the
 * system (libresolv among them), but not libm.
 */
static void test_dlopen(void)
{
	struct usyms *u = NULL;
	struct mt_err err;
	void *lib, *sym;
	bool was_loaded = maps_have("/libm.so.6");
	uint64_t ret = usyms_test_caller();
	int r1, r2;

	if (usyms_new(getpid(), &u, &err)) {
		check(false, "usyms starts on this process: %s", err.msg);
		return;
	}
	format_lines(u, ret, test_lines, LINE_LEN, MAX_LINES);
	/* Our mallocs map and unmap memory: those changes must not count. */
	free(malloc(64 << 20));
	r1 = usyms_refresh(u, &err);
	check(r1 == 0 && usyms_reports(u) == 1 && usyms_cached(u) == 1,
	      "usyms refresh keeps mappings and cache while no code was mapped (%u reports)",
	      usyms_reports(u));

	lib = dlopen("libm.so.6", RTLD_NOW | RTLD_LOCAL);
	sym = lib ? dlsym(lib, "cbrt") : NULL;
	if (!sym || was_loaded) {
		check(true, "usyms refresh finds a dlopen'ed library # SKIP %s",
		      sym ? "libm.so.6 was already loaded" : dlerror());
	} else {
		r2 = usyms_refresh(u, &err);
		check(r2 == 0 && usyms_reports(u) == 2 && usyms_cached(u) == 0 &&
		      format_lines(u, (uint64_t)(uintptr_t)sym + 4, test_lines, LINE_LEN,
				   MAX_LINES) >= 1 &&
		      is_symbol_frame(line_at(0), lib, sym, 4, "libm.so.6"),
		      "usyms refresh finds a dlopen'ed library, emptying the cache (%s)",
		      line_at(0));
	}
	if (lib)
		dlclose(lib);
	usyms_free(u);
}

/* A child that only waits to be killed: a copy of us, same addresses. */
static pid_t sleeper(void)
{
	pid_t pid;

	/* The child must not flush our buffered output a second time. */
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		for (;;)
			pause();
	}
	return pid;
}

static void test_exited(void)
{
	uint64_t ret = usyms_test_caller();
	struct usyms *u = NULL;
	void *sym;
	struct mt_err err = { "" };
	char frame[LINE_LEN];
	siginfo_t info;
	pid_t pid = sleeper();
	bool ok;

	if (pid < 0 || usyms_new(pid, &u, &err)) {
		check(false, "usyms starts on a child: %s", pid < 0 ? strerror(errno) : err.msg);
		if (pid > 0) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
		}
		return;
	}
	caller_frame(ret, frame, sizeof(frame));
	ok = formats_as(u, ret, (const char *const[]){ frame, NULL }) &&
	     usyms_refresh(u, &err) == 0;
	check(ok, "usyms symbolizes another process");

	/* A zombie has no mappings left: the last ones must stay. */
	kill(pid, SIGKILL);
	waitid(P_PID, (id_t)pid, &info, WEXITED | WNOWAIT);
	err.msg[0] = '\0';
	ok = usyms_refresh(u, &err) == -ESRCH && strstr(err.msg, "exited");
	check(ok, "usyms refresh of a zombie returns -ESRCH (%s)", err.msg);
	waitpid(pid, NULL, 0);
	ok = usyms_refresh(u, &err) == -ESRCH &&
	     formats_as(u, ret, (const char *const[]){ frame, NULL });
	check(ok, "usyms refresh of a reaped process returns -ESRCH, lookups go on");
	/* Not looked up before the process died: libc was opened when reported. */
	sym = libc_sym("free");
	ok = sym && format_lines(u, (uint64_t)(uintptr_t)sym + 4, test_lines, LINE_LEN,
				 MAX_LINES) >= 1 &&
	     is_symbol_frame(line_at(0), libc(), sym, 4, "libc.so.6");
	check(ok, "usyms resolves new addresses of an exited process (%s)", line_at(0));
	usyms_free(u);
}

/* Whether pid runs path and has mapped libc: done with exec and ld.so. */
static bool runs_with_libc(pid_t pid, const char *path)
{
	char link[64], exe[4096], *maps;
	ssize_t n;
	bool done;

	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	n = readlink(link, exe, sizeof(exe) - 1);
	if (n < 0)
		return false;
	exe[n] = '\0';
	snprintf(link, sizeof(link), "/proc/%d/maps", (int)pid);
	maps = read_file(link, NULL);
	done = !strcmp(exe, path) && maps && strstr(maps, "/libc.so.6");
	free(maps);
	return done;
}

/*
 * -c: the command is symbolized from its fork on, then it execs: the same
 * pid, the same start time, all new mappings.
 */
static void test_exec(void)
{
	uint64_t ret = usyms_test_caller();
	struct usyms *u = NULL;
	struct mt_err err;
	char frame[LINE_LEN];
	int fds[2], tries = 0;
	bool ok;
	pid_t pid;

	if (access("/bin/sleep", X_OK) || pipe(fds)) {
		check(true, "usyms refresh follows an exec # SKIP no /bin/sleep");
		return;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		char c;

		close(fds[1]);
		if (read(fds[0], &c, 1) == 1)
			execl("/bin/sleep", "sleep", "60", (char *)NULL);
		_exit(127);
	}
	close(fds[0]);
	caller_frame(ret, frame, sizeof(frame));
	ok = pid > 0 && usyms_new(pid, &u, &err) == 0 &&
	     formats_as(u, ret, (const char *const[]){ frame, NULL });
	if (write(fds[1], "x", 1) != 1)
		ok = false;
	close(fds[1]);
	while (ok && !runs_with_libc(pid, "/bin/sleep") && tries++ < 500)
		usleep(10000);
	ok = ok && usyms_refresh(u, &err) == 0 && usyms_reports(u) == 2 &&
	     format_lines(u, ret, test_lines, LINE_LEN, MAX_LINES) >= 1 &&
	     !strstr(line_at(0), self_name());
	check(ok, "usyms refresh follows an exec (then: %s)", line_at(0));
	usyms_free(u);
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
}

/* A copy of the library holding sym, at path; false if it cannot be made. */
static bool copy_library(void *sym, const char *path)
{
	Dl_info info;
	size_t len;
	char *data = dladdr(sym, &info) && info.dli_fname ? read_file(info.dli_fname, &len) : NULL;
	FILE *f = data ? fopen(path, "w") : NULL;
	bool ok = f && fwrite(data, 1, len, f) == len;

	if (f)
		ok = !fclose(f) && ok;
	free(data);
	return ok;
}

/* A child that dlopens path and sends back the address of cbrt in it. */
static pid_t cbrt_child(const char *path, uint64_t *addr)
{
	int fds[2];
	pid_t pid;

	if (pipe(fds))
		return -1;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
		uint64_t a = lib ? (uint64_t)(uintptr_t)dlsym(lib, "cbrt") : 0;

		if (write(fds[1], &a, sizeof(a)) != sizeof(a))
			_exit(1);
		for (;;)
			pause();
	}
	close(fds[1]);
	if (pid > 0 && read(fds[0], addr, sizeof(*addr)) != sizeof(*addr))
		*addr = 0;
	close(fds[0]);
	return pid;
}

/*
 * A library deleted after the process mapped it (an upgrade under a running
 * process): its path names nothing, /proc/PID/map_files still has it.
 */
static void test_deleted(void)
{
	char dir[] = "/tmp/memtrace-usyms-XXXXXX", path[64], want[64];
	void *libm = dlopen("libm.so.6", RTLD_NOW | RTLD_LOCAL);
	void *cbrt_sym = libm ? dlsym(libm, "cbrt") : NULL;
	struct usyms *u = NULL;
	struct mt_err err;
	uint64_t addr = 0;
	pid_t pid = -1;
	bool ok;

	if (cbrt_sym && mkdtemp(dir)) {
		snprintf(path, sizeof(path), "%s/libusyms-test.so", dir);
		if (copy_library(cbrt_sym, path))
			pid = cbrt_child(path, &addr);
		unlink(path);
		rmdir(dir);
	}
	if (pid < 0 || !addr) {
		check(false, "usyms: cannot run a child with a copy of libm");
	} else {
		ok = usyms_new(pid, &u, &err) == 0 &&
		     format_lines(u, addr + 4, test_lines, LINE_LEN, MAX_LINES) >= 1;
		snprintf(want, sizeof(want), "cbrt+0x4 [libusyms-test.so]");
		check(ok && !strncmp(line_at(0), want, strlen(want)),
		      "usyms resolves a deleted library through map_files (%s)",
		      ok ? line_at(0) : err.msg);
		usyms_free(u);
	}
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	if (libm)
		dlclose(libm);
}

static void test_no_process(void)
{
	struct usyms *u = (struct usyms *)&u;	/* must come back NULL */
	struct mt_err err = { "" };
	char want[64];
	pid_t pid;
	int ret;

	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	/* The pid of a reaped child: free until the pid space wraps around. */
	ret = usyms_new(pid, &u, &err);
	snprintf(want, sizeof(want), "pid %d: no such process", (int)pid);
	check(ret == -ESRCH && !u && !strcmp(err.msg, want),
	      "usyms_new of a missing pid: -ESRCH \"%s\"", err.msg);
	ret = usyms_new(-1, &u, &err);
	check(ret == -EINVAL && !u, "usyms_new rejects pid -1 (%s)", err.msg);
}

/* kthreadd, pid 2, outside of containers. */
static void test_kernel_thread(void)
{
	char *comm = read_file("/proc/2/comm", NULL);
	struct usyms *u = NULL;
	struct mt_err err = { "" };

	if (!comm || strcmp(comm, "kthreadd\n")) {
		check(true, "usyms_new rejects a kernel thread # SKIP no kthreadd at pid 2");
	} else {
		check(usyms_new(2, &u, &err) == -EINVAL && !u && strstr(err.msg, "kernel thread"),
		      "usyms_new rejects a kernel thread (%s)", err.msg);
	}
	free(comm);
}

/* The libc text mapping of this process. */
static bool libc_text(uint64_t *start, uint64_t *end)
{
	char *maps = read_file("/proc/self/maps", NULL);
	bool found = false;

	for (char *line = maps; line && *line && !found;) {
		char *nl = strchr(line, '\n');
		unsigned long long s, e;
		char perms[5];

		if (nl)
			*nl = '\0';
		found = sscanf(line, "%llx-%llx %4s", &s, &e, perms) == 3 && perms[2] == 'x' &&
			strstr(line, "/libc.so.6");
		if (found) {
			*start = s;
			*end = e;
		}
		line = nl ? nl + 1 : NULL;
	}
	free(maps);
	return found;
}

static double seconds_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

/* Only measured: the time depends on the host and on libc's debug info. */
static void test_speed(void)
{
	const size_t nr = 100000;
	uint64_t start = 0, end = 0, step;
	struct usyms *u = NULL;
	struct timespec t0;
	struct mt_err err;
	size_t lines = 0, with_src = 0;
	double cold, warm;

	if (!libc_text(&start, &end) || usyms_new(getpid(), &u, &err)) {
		check(false, "usyms speed: cannot find libc's text or start usyms");
		return;
	}
	step = (end - start) / nr;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (size_t i = 0; i < nr; i++) {
		size_t n = format_lines(u, start + 1 + i * step, test_lines, LINE_LEN, MAX_LINES);

		lines += n;
		with_src += strchr(line_at(n - 1), ':') != NULL;
	}
	cold = seconds_since(&t0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (size_t i = 0; i < nr; i++)
		format_lines(u, start + 1 + i * step, test_lines, LINE_LEN, MAX_LINES);
	warm = seconds_since(&t0);
	diag("usyms: %zu distinct libc addresses in %.3f s (%zu lines, %zu with file:line), "
	     "again from the cache in %.3f s", nr, cold, lines, with_src, warm);
	check(usyms_cached(u) == nr, "usyms caches %zu distinct addresses", usyms_cached(u));
	usyms_free(u);
}

/* ---- C++ names, and debug files in the process's own tree ------------ */

static char cxx_tmp[64];

/* A frame of a C++ function reads as the source spells it. */
static void test_demangle(void)
{
	char lib_path[128], cmd[1024];
	uint64_t (*make)(uint64_t (*)(void)), ret;
	struct usyms *u = NULL;
	struct mt_err err;
	void *lib;

	if (!make_tmpdir(cxx_tmp, sizeof(cxx_tmp), "usyms-cxx")) {
		check(false, "a temporary directory for the C++ fixture");
		return;
	}
	snprintf(lib_path, sizeof(lib_path), "%s/libusyms-cxx.so", cxx_tmp);
	snprintf(cmd, sizeof(cmd), "c++ -shared -fPIC -O1 -g -o '%s' '%s'", lib_path,
		 fixture_path("usyms-cxx.cc"));
	if (!run_quiet("%s", cmd)) {
		check(true, "usyms demangles C++ names # SKIP no C++ compiler (c++)");
		remove_tree(cxx_tmp);
		return;
	}
	lib = dlopen(lib_path, RTLD_NOW | RTLD_LOCAL);
	make = lib ? (uint64_t (*)(uint64_t (*)(void)))dlsym(lib, "_ZN4demo6Widget4makeEPFmvE") :
		     NULL;
	if (!check(make != NULL, "the C++ fixture loads: %s", make ? lib_path : dlerror())) {
		remove_tree(cxx_tmp);
		return;
	}
	ret = make(capture_ret);
	if (usyms_new(getpid(), &u, &err) == 0) {
		format_lines(u, ret, test_lines, LINE_LEN, MAX_LINES);
		check(!strncmp(line_at(0), "demo::Widget::make(unsigned long (*)())+0x", 42) &&
		      strstr(line_at(0), "[libusyms-cxx.so] usyms-cxx.cc:"),
		      "a C++ frame is demangled: %s", line_at(0));
		usyms_free(u);
	} else {
		check(false, "usyms starts on this process: %s", err.msg);
	}
	dlclose(lib);
	remove_tree(cxx_tmp);
}

/*
 * A static program in a chroot whose debug info is only in a separate
 * file of that chroot's tree (how: "build-id" or "debuglink"): its frame
 * has a line only if usyms looks there.
 */
static void debug_in_root(const char *how)
{
	char dir[64], cmd[4096], addr_text[64] = "";
	int out[2], status;
	struct usyms *u = NULL;
	struct mt_err err;
	uint64_t work = 0;
	ssize_t n;
	pid_t pid;

	char *src = realpath(fixture_path("usyms-debug.c"), NULL);

	if (!src || !make_tmpdir(dir, sizeof(dir), "usyms-root")) {
		check(false, "the debug fixture and a temporary directory");
		free(src);
		return;
	}
	/* Build, keep the debug info aside, strip every symbol from the program. */
	snprintf(cmd, sizeof(cmd),
		 "set -e; cd '%s'; cc -static -g -O1 -Wl,--build-id -o prog '%s'; "
		 "objcopy --only-keep-debug prog prog.debug; "
		 "if [ %s = build-id ]; then "
		 "  id=$(readelf -n prog | sed -n 's/.*Build ID: *//p'); "
		 "  d=usr/lib/debug/.build-id/$(echo $id | cut -c1-2); mkdir -p $d; "
		 "  mv prog.debug $d/$(echo $id | cut -c3-).debug; objcopy --strip-all prog; "
		 "else mkdir .debug; mv prog.debug .debug/; "
		 "  objcopy --strip-all --add-gnu-debuglink=.debug/prog.debug prog; fi",
		 dir, src, how);
	free(src);
	if (!run_quiet("command -v objcopy && cc -print-file-name=libc.a | grep -q /")) {
		check(true, "usyms finds a chroot's debug file by %s # SKIP no objcopy or "
		      "static libc", how);
		remove_tree(dir);
		return;
	}
	if (!check(run_quiet("%s", cmd), "a static program with its debug info aside by %s", how)) {
		remove_tree(dir);
		return;
	}
	if (pipe(out)) {
		remove_tree(dir);
		return;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		dup2(out[1], 1);
		if (chroot(dir) == 0 && chdir("/") == 0)
			execl("/prog", "prog", (char *)NULL);
		_exit(127);
	}
	close(out[1]);
	n = read(out[0], addr_text, sizeof(addr_text) - 1);
	close(out[0]);
	addr_text[n > 0 ? n : 0] = '\0';
	work = strtoull(addr_text, NULL, 16);
	if (!check(work != 0, "a program runs in a chroot (%s), its debug info aside by %s",
		   dir, how)) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		remove_tree(dir);
		return;
	}
	if (usyms_new(pid, &u, &err) == 0) {
		format_lines(u, work + 1, test_lines, LINE_LEN, MAX_LINES);
		check(!strncmp(line_at(0), "work+0x1 [prog] usyms-debug.c:", 30),
		      "usyms finds the debug file in the process's own tree by %s: %s", how,
		      line_at(0));
	} else {
		check(false, "usyms starts on the chroot'ed program: %s", err.msg);
	}
	/* Once the process is gone, its tree still resolves (new lookups). */
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	usyms_free(u);
	remove_tree(dir);
}

static void test_debug_files(void)
{
	if (geteuid() != 0) {
		check(true, "usyms finds debug files in a chroot # SKIP not root (chroot)");
		return;
	}
	debug_in_root("build-id");
	debug_in_root("debuglink");
}

/* Whether f has these parts (function and file NULL: none), diag if not. */
static bool frame_is(const struct rm_frame *f, uint64_t addr, const char *function,
		     uint64_t offset, const char *module, const char *file, uint32_t line,
		     bool inlined)
{
	bool same = f->addr == addr && f->offset == offset && f->line == line &&
		    f->inlined == inlined && !f->text && !f->map_path &&
		    (function ? f->function && !strcmp(f->function, function) : !f->function) &&
		    (module ? f->module && !strcmp(f->module, module) : !f->module) &&
		    (file ? f->file && !strcmp(f->file, file) : !f->file);

	if (!same)
		diag("frame 0x%llx: function %s +0x%llx module %s file %s:%u%s; wanted "
		     "%s +0x%llx %s %s:%u%s", (unsigned long long)f->addr,
		     f->function ? f->function : "(none)", (unsigned long long)f->offset,
		     f->module ? f->module : "(none)", f->file ? f->file : "(none)", f->line,
		     f->inlined ? " inlined" : "", function ? function : "(none)",
		     (unsigned long long)offset, module ? module : "(none)",
		     file ? file : "(none)", line, inlined ? " inlined" : "");
	return same;
}

/*
 * The frames usyms fills, part by part: the text's tests above check
 * what they print, these what every other format reads (the function,
 * offset, module, file, line and inlined of each).
 */
static void test_frame_parts(void)
{
	uint64_t caller = usyms_test_caller(), outer = usyms_test_outer();
	const char *bin = self_name();
	struct rm_frame f[MAX_LINES];
	struct usyms *u = NULL;
	struct mt_err err;
	void *sym = libc_sym("malloc");
	bool ok;

	if (usyms_new(getpid(), &u, &err)) {
		check(false, "usyms starts on this process: %s", err.msg);
		return;
	}
	ok = usyms_frames(u, caller, f, MAX_LINES) == 1 &&
	     frame_is(&f[0], caller, "usyms_test_caller",
		      caller - (uint64_t)(uintptr_t)&usyms_test_caller, bin, "test_usyms.c",
		      (uint32_t)caller_line, false);
	check(ok, "usyms fills a frame's function, offset, module, file and line");
	ok = usyms_frames(u, outer, f, MAX_LINES) == 3 &&
	     frame_is(&f[0], outer, "usyms_test_inner", 0, bin, "test_usyms.c",
		      (uint32_t)inner_line, true) &&
	     frame_is(&f[1], outer, "usyms_test_middle", 0, bin, "test_usyms.c",
		      (uint32_t)middle_line, true) &&
	     frame_is(&f[2], outer, "usyms_test_outer",
		      outer - (uint64_t)(uintptr_t)&usyms_test_outer, bin, "test_usyms.c",
		      (uint32_t)outer_line, false);
	check(ok, "usyms fills inlined calls as frames of their own, innermost first, each "
	      "with the line of the call in it");
	ok = usyms_frames(u, 0x10, f, MAX_LINES) == 1 &&
	     frame_is(&f[0], 0x10, NULL, 0, NULL, NULL, 0, false);
	check(ok, "usyms: an address in no module has neither function nor module");
	ok = sym && usyms_frames(u, (uint64_t)(uintptr_t)sym + 4, f, 1) == 1 &&
	     f[0].function && dlsym(libc(), f[0].function) == sym && f[0].offset == 4 &&
	     f[0].module && !strcmp(f[0].module, "libc.so.6") && !f[0].inlined;
	check(ok, "usyms fills libc's malloc+0x4 [libc.so.6] (%s)",
	      ok ? f[0].function : "no frame");
	usyms_free(u);
}

void usyms_tests(void)
{
	test_self();
	test_inline();
	test_frame_parts();
	test_vdso();
	test_dlopen();
	test_exited();
	test_exec();
	test_deleted();
	test_no_process();
	test_kernel_thread();
	test_demangle();
	test_debug_files();
	test_speed();
}
