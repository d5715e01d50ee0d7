// SPDX-License-Identifier: GPL-2.0
/*
 * procmaps against fixture maps text and real processes: this one, a
 * file it maps and then deletes, a static child built from
 * fixtures/elfsyms-static.c, a zombie, a pid that does not exist, the
 * kernel thread kthreadd, and (as nobody) a process it may not read.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/memtrace.h>

#include "elfsyms.h"
#include "harness.h"
#include "procmaps.h"

#define FAKE_PID 4242

static char tmpdir[64];


static bool parse_fixture(const char *name, struct mapped_object **objs, size_t *nr,
			  size_t *lines, struct mt_err *err)
{
	FILE *f = fopen(fixture_path(name), "r");
	int rc;

	if (!f) {
		diag("cannot open %s", fixture_path(name));
		return false;
	}
	rc = procmaps_parse(f, FAKE_PID, objs, nr, lines, err);
	fclose(f);
	if (rc)
		diag("%s: %s", name, err->msg);
	return rc == 0;
}

static bool obj_is(const struct mapped_object *o, const char *path, const char *open_path,
		   uint64_t start, uint64_t end, bool x, bool deleted)
{
	if (!strcmp(o->path, path) && !strcmp(o->open_path, open_path) && o->start == start &&
	    o->end == end && o->executable == x && o->deleted == deleted)
		return true;
	diag("expected %s (%s) %llx-%llx x=%d deleted=%d", path, open_path,
	     (unsigned long long)start, (unsigned long long)end, x, deleted);
	diag("     got %s (%s) %llx-%llx x=%d deleted=%d", o->path, o->open_path,
	     (unsigned long long)o->start, (unsigned long long)o->end, o->executable, o->deleted);
	return false;
}

#define ROOT "/proc/4242/root"
#define LIBC "/usr/lib/x86_64-linux-gnu/libc.so.6"
#define LD "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"

static void test_fixture_basic(void)
{
	const struct mapped_object *libc = NULL;
	struct mapped_object *o = NULL;
	struct mt_err err;
	size_t nr = 0, lines = 0;

	bool ok = parse_fixture("procmaps-basic.txt", &o, &nr, &lines, &err);

	if (!check(ok && nr == 7 && lines == 30,
		   "procmaps parses 30 maps lines into 7 objects (%zu, %zu)", lines, nr))
		goto out;
	check(obj_is(&o[0], "/usr/bin/cat", ROOT "/usr/bin/cat", 0x55d1c0a00000, 0x7f3a20c81000,
		     true, false),
	      "procmaps merges an object's mappings, even far apart, into one range");
	check(obj_is(&o[1], "/opt/my app/lib/libfoo bar.so", ROOT "/opt/my app/lib/libfoo bar.so",
		     0x7f3a20a00000, 0x7f3a20a20000, true, false),
	      "procmaps keeps spaces in paths");
	check(obj_is(&o[2], "/tmp/jit-stub.so", "/proc/4242/map_files/7f3a20b00000-7f3a20b01000",
		     0x7f3a20b00000, 0x7f3a20b02000, true, true) &&
	      obj_is(&o[3], "/memfd:shared-buf", "/proc/4242/map_files/7f3a20c00000-7f3a20c01000",
		     0x7f3a20c00000, 0x7f3a20c01000, false, true),
	      "procmaps marks deleted files and opens them through map_files");
	check(obj_is(&o[4], "/srv/odd\nname.so", ROOT "/srv/odd\nname.so", 0x7f3a20d80000,
		     0x7f3a20d81000, false, false),
	      "procmaps decodes the kernel's \\012 for a newline in a path");
	check(obj_is(&o[5], LIBC, ROOT LIBC, 0x7f3a20e00000, 0x7f3a20ffb000, true, false) &&
	      obj_is(&o[6], LD, ROOT LD, 0x7f3a21020000, 0x7f3a21052000, true, false),
	      "procmaps skips anonymous, [heap], [vdso], [anon:...] and anon_inode mappings");
	check(procmaps_find_libc(FAKE_PID, o, nr, &libc, &err) == 0 && libc == &o[5],
	      "procmaps_find_libc picks libc.so.6");
out:
	free(o);
}

static void test_fixture_other(void)
{
	const struct mapped_object *libc = NULL;
	struct mapped_object *o = NULL;
	size_t nr = 0, lines = 0;
	struct mt_err err;
	FILE *f;
	int rc;

	if (parse_fixture("procmaps-deleted-libc.txt", &o, &nr, &lines, &err))
		check(procmaps_find_libc(FAKE_PID, o, nr, &libc, &err) == 0 &&
		      obj_is(libc, LIBC, "/proc/4242/map_files/7f3a20e00000-7f3a20e28000",
			     0x7f3a20e00000, 0x7f3a20ffb000, true, true),
		      "procmaps_find_libc picks a deleted (upgraded) libc, opened via map_files");
	free(o);
	o = NULL;

	f = fopen(fixture_path("procmaps-malformed.txt"), "r");
	rc = f ? procmaps_parse(f, FAKE_PID, &o, &nr, NULL, &err) : -1;
	check(rc == -EINVAL && strstr(err.msg, "line 3"),
	      "procmaps rejects a line not in the maps format: %s", err.msg);
	if (f)
		fclose(f);

	f = fopen("/dev/null", "r");
	rc = f ? procmaps_parse(f, FAKE_PID, &o, &nr, &lines, &err) : -1;
	check(rc == 0 && nr == 0 && lines == 0, "procmaps parses empty maps as nothing");
	if (f)
		fclose(f);
	free(o);
}

static void test_is_libc(void)
{
	check(procmaps_is_libc(LIBC) && procmaps_is_libc("/lib/libc-2.31.so") &&
	      procmaps_is_libc("libc.so") && !procmaps_is_libc("/usr/lib/libc-client.so.2007e") &&
	      !procmaps_is_libc("/usr/lib/libcrypt.so.1") && !procmaps_is_libc("/lib/glibc.so") &&
	      !procmaps_is_libc("/opt/libc.so.6/x.so"),
	      "procmaps_is_libc knows libc.so* and libc-VERSION.so, not libc-client or libcrypt");
}

static const struct mapped_object *find_path(const struct mapped_object *o, size_t nr,
					     const char *path)
{
	size_t i;

	for (i = 0; i < nr; i++)
		if (!strcmp(o[i].path, path))
			return &o[i];
	return NULL;
}

static bool well_formed(const struct mapped_object *o, size_t nr, int pid)
{
	char root[64];
	size_t i;

	snprintf(root, sizeof(root), "/proc/%d/root/", pid);
	for (i = 0; i < nr; i++) {
		if (o[i].path[0] != '/' || o[i].start >= o[i].end ||
		    (i && o[i].start < o[i - 1].start) || find_path(o, i, o[i].path) ||
		    (!o[i].deleted && (strncmp(o[i].open_path, root, strlen(root) - 1) ||
				       strcmp(o[i].open_path + strlen(root) - 1, o[i].path)))) {
			diag("bad object %zu: %s (%s)", i, o[i].path, o[i].open_path);
			return false;
		}
	}
	return true;
}

static void test_self(void)
{
	const struct mapped_object *libc = NULL, *exe;
	struct mapped_object *o = NULL, *nolibc;
	char self_libc_path[4096], exe_path[4096];
	size_t nr = 0, i, n = 0;
	struct mt_err err;
	void *malloc_addr;
	ssize_t len;
	int rc;

	rc = procmaps_read(getpid(), &o, &nr, &err);
	if (!check(rc == 0 && nr > 2, "procmaps reads this process's maps (%zu objects)", nr)) {
		diag("%s", err.msg);
		return;
	}
	check(well_formed(o, nr, getpid()),
	      "its objects are absolute paths, sorted, unique, opened via /proc/PID/root");
	len = readlink("/proc/self/exe", exe_path, sizeof(exe_path) - 1);
	exe_path[len > 0 ? len : 0] = '\0';
	exe = find_path(o, nr, exe_path);
	check(exe && exe->executable && access(exe->open_path, R_OK) == 0,
	      "it lists the executable %s, openable as %s", exe_path, exe ? exe->open_path : "-");

	rc = procmaps_find_libc(getpid(), o, nr, &libc, &err);
	check(rc == 0 && self_libc(self_libc_path, sizeof(self_libc_path)) == 0 &&
	      !strcmp(libc->path, self_libc_path),
	      "procmaps_find_libc finds the libc the loader says: %s", rc ? err.msg : libc->path);
	malloc_addr = dlsym(RTLD_DEFAULT, "malloc");
	check(libc && (uintptr_t)malloc_addr >= libc->start && (uintptr_t)malloc_addr < libc->end,
	      "malloc (%p) lies in libc's range", malloc_addr);

	/* Without its libc, this dynamically linked binary defines no malloc. */
	nolibc = calloc(nr, sizeof(*nolibc));
	for (i = 0; nolibc && i < nr; i++)
		if (!procmaps_is_libc(o[i].path))
			nolibc[n++] = o[i];
	rc = procmaps_find_libc(getpid(), nolibc, n, &libc, &err);
	snprintf(self_libc_path, sizeof(self_libc_path), "pid %d maps no libc", getpid());
	check(rc == -ENOENT && strstr(err.msg, self_libc_path) && strstr(err.msg, "-O"),
	      "procmaps_find_libc without libc nor malloc: %s", err.msg);
	free(nolibc);
	free(o);
}

/* A mapped file with a space and a newline in its name, then deleted. */
static void test_mapped_file(void)
{
	char path[256], buf[8192], got[16];
	const struct mapped_object *m;
	struct mapped_object *o = NULL;
	struct mt_err err;
	size_t nr = 0;
	void *map;
	int fd;

	snprintf(path, sizeof(path), "%s/mapped odd\nname-XXXXXX", tmpdir);
	fd = mkstemp(path);
	memset(buf, 'M', sizeof(buf));
	if (fd < 0 || write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf) ||
	    (map = mmap(NULL, sizeof(buf), PROT_READ, MAP_PRIVATE, fd, 0)) == MAP_FAILED) {
		check(false, "procmaps: cannot map a temporary file");
		if (fd >= 0)
			close(fd);
		return;
	}
	close(fd);
	procmaps_read(getpid(), &o, &nr, &err);
	m = find_path(o, nr, path);
	fd = m ? open(m->open_path, O_RDONLY) : -1;
	check(m && !m->deleted && !m->executable && m->start == (uintptr_t)map &&
	      fd >= 0 && read(fd, got, sizeof(got)) == sizeof(got) && got[0] == 'M',
	      "procmaps lists a mapped file with a space and a newline in its name");
	if (fd >= 0)
		close(fd);
	free(o);

	unlink(path);
	o = NULL;
	procmaps_read(getpid(), &o, &nr, &err);
	m = find_path(o, nr, path);
	fd = m ? open(m->open_path, O_RDONLY) : -1;
	check(m && m->deleted && strstr(m->open_path, "/map_files/") && fd >= 0 &&
	      read(fd, got, sizeof(got)) == sizeof(got) && got[15] == 'M',
	      "procmaps marks it deleted once unlinked, still openable as %s",
	      m ? m->open_path : "-");
	if (fd >= 0)
		close(fd);
	free(o);
	munmap(map, sizeof(buf));
}

static int unused_pid(void)
{
	int pid;

	for (pid = 32767; pid > 300; pid--)
		if (kill(pid, 0) && errno == ESRCH)
			return pid;
	return -1;
}

static void test_no_process(void)
{
	struct mapped_object *o = NULL;
	char want[64];
	struct mt_err err;
	size_t nr = 0;
	int pid = unused_pid(), rc;

	rc = procmaps_read(pid, &o, &nr, &err);
	snprintf(want, sizeof(want), "pid %d: no such process", pid);
	check(rc == -ESRCH && !strcmp(err.msg, want), "procmaps: %s", err.msg);
	rc = procmaps_read(0, &o, &nr, &err);
	check(rc == -ESRCH, "procmaps rejects pid 0");
}

static void test_kthread(void)
{
	struct mapped_object *o = NULL;
	char *comm = read_file("/proc/2/comm", NULL);
	struct mt_err err;
	size_t nr = 0;
	int rc;

	if (!comm || strcmp(comm, "kthreadd\n")) {
		check(true, "procmaps rejects a kernel thread # SKIP pid 2 is not kthreadd here "
		      "(a pid namespace?)");
		free(comm);
		return;
	}
	free(comm);
	rc = procmaps_read(2, &o, &nr, &err);
	check(rc == -EINVAL &&
	      !strcmp(err.msg, "pid 2 is a kernel thread: it has no user allocations to trace"),
	      "procmaps rejects kthreadd: %s", err.msg);
}

static void test_zombie(void)
{
	struct mapped_object *o = NULL;
	struct mt_err err;
	char stat[64], *text = NULL, *p;
	size_t nr = 0;
	pid_t pid;
	int i, rc;

	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(0);
	if (pid < 0)
		return;
	snprintf(stat, sizeof(stat), "/proc/%d/stat", pid);
	for (i = 0; i < 200; i++) {
		free(text);
		text = read_file(stat, NULL);
		p = text ? strrchr(text, ')') : NULL;
		if (p && p[2] == 'Z')
			break;
		usleep(10000);
	}
	free(text);
	rc = procmaps_read(pid, &o, &nr, &err);
	check(rc == -ESRCH && strstr(err.msg, "zombie"), "procmaps: a zombie: %s", err.msg);
	waitpid(pid, NULL, 0);
}

/* As nobody, this (root) process's maps are off limits. */
static void test_eacces(void)
{
	pid_t parent = getpid(), pid;
	int status = 0;

	if (geteuid() != 0) {
		check(true, "procmaps reports -EACCES # SKIP needs root to switch to nobody");
		return;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		struct mapped_object *o = NULL;
		struct mt_err err;
		size_t nr;
		int rc;

		if (setgroups(0, NULL) || setgid(65534) || setuid(65534))
			_exit(3);
		rc = procmaps_read(parent, &o, &nr, &err);
		_exit(rc == -EACCES && strstr(err.msg, "permission denied") ? 0 : 1);
	}
	waitpid(pid, &status, 0);
	check(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "procmaps reports another user's process as -EACCES (child status %d)", status);
}

/* Runs path with its stdout on a pipe; returns its pid and first line. */
static pid_t start_child(const char *path, char *line, size_t len)
{
	int pfd[2];
	pid_t pid;
	FILE *f;

	if (pipe(pfd))
		return -1;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		dup2(pfd[1], 1);
		close(pfd[0]);
		close(pfd[1]);
		execl(path, path, (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	f = fdopen(pfd[0], "r");
	if (pid > 0 && (!f || !fgets(line, (int)len, f))) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		pid = -1;
	}
	if (f)
		fclose(f);
	else
		close(pfd[0]);
	return pid;
}

static void stop_child(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* The child runs at addr the bytes the file has at offset. */
static bool child_runs(pid_t pid, uint64_t addr, const char *file, uint64_t offset)
{
	unsigned char mem[16], disk[16];
	char path[64];
	int fd_mem, fd_file;
	bool same;

	snprintf(path, sizeof(path), "/proc/%d/mem", pid);
	fd_mem = open(path, O_RDONLY);
	fd_file = open(file, O_RDONLY);
	same = fd_mem >= 0 && fd_file >= 0 &&
	       pread(fd_mem, mem, sizeof(mem), (off_t)addr) == (ssize_t)sizeof(mem) &&
	       pread(fd_file, disk, sizeof(disk), (off_t)offset) == (ssize_t)sizeof(disk) &&
	       !memcmp(mem, disk, sizeof(mem));
	if (fd_mem >= 0)
		close(fd_mem);
	if (fd_file >= 0)
		close(fd_file);
	return same;
}

static void check_static_child(const char *exe, pid_t pid, uint64_t addr)
{
	const struct mapped_object *libc = NULL;
	struct ufn_probe p[ELFSYMS_MAX_PROBES];
	struct mapped_object *o = NULL;
	char real[4096] = "";
	struct mt_err err;
	size_t nr = 0;
	int i, n = 0;

	if (!realpath(exe, real) || procmaps_read(pid, &o, &nr, &err) ||
	    procmaps_find_libc(pid, o, nr, &libc, &err)) {
		check(false, "procmaps_find_libc on a static binary: %s", err.msg);
		free(o);
		return;
	}
	check(!strcmp(libc->path, real) && addr >= libc->start && addr < libc->end,
	      "procmaps_find_libc picks a static binary that defines malloc: %s", libc->path);
	n = elfsyms_find_allocators(libc->open_path, p, ELFSYMS_MAX_PROBES, &err);
	for (i = 0; i < n && p[i].func != MEMTRACE_UFN_MALLOC; i++)
		;
	check(i < n && child_runs(pid, addr, libc->open_path, p[i].offset),
	      "the static (ET_EXEC) binary runs malloc's file bytes at its address %#llx",
	      (unsigned long long)addr);
	free(o);
}

static void test_static_child(void)
{
	char exe[256], stripped[256], line[64], cmd[1024], want[64];
	const struct mapped_object *libc;
	struct mapped_object *o = NULL;
	struct mt_err err;
	size_t nr = 0;
	pid_t pid;
	int rc;

	snprintf(exe, sizeof(exe), "%s/procmaps-static", tmpdir);
	snprintf(stripped, sizeof(stripped), "%s/procmaps-static-stripped", tmpdir);
	fflush(stdout);
	if (system("{ command -v cc && command -v objcopy && "
		   "cc -print-file-name=libc.a | grep -q /; } >/dev/null 2>&1")) {
		check(true, "procmaps_find_libc on a static binary # SKIP needs cc, objcopy "
		      "and a static libc (libc.a) to build one");
		return;
	}
	snprintf(cmd, sizeof(cmd), "cc -static -O1 -o '%s' '%s' >/dev/null 2>&1 && "
		 "objcopy --strip-all '%s' '%s' >/dev/null 2>&1", exe,
		 fixture_path("elfsyms-static.c"), exe, stripped);
	if (!check(system(cmd) == 0, "a static binary builds, and strips"))
		return;
	pid = start_child(exe, line, sizeof(line));
	if (!check(pid > 0, "a static child runs from %s", tmpdir))
		return;
	check_static_child(exe, pid, strtoull(line, NULL, 16));
	stop_child(pid);

	pid = start_child(stripped, line, sizeof(line));
	if (pid <= 0)
		return;
	rc = procmaps_read(pid, &o, &nr, &err);
	if (!rc)
		rc = procmaps_find_libc(pid, o, nr, &libc, &err);
	snprintf(want, sizeof(want), "pid %d maps no libc", pid);
	check(rc == -ENOENT && strstr(err.msg, want),
	      "procmaps_find_libc on a stripped static binary: %s", err.msg);
	free(o);
	stop_child(pid);
}

void procmaps_tests(void)
{
	test_fixture_basic();
	test_fixture_other();
	test_is_libc();
	if (!make_tmpdir(tmpdir, sizeof(tmpdir), "procmaps")) {
		check(false, "procmaps: cannot create a temporary directory");
		return;
	}
	test_self();
	test_mapped_file();
	test_no_process();
	test_kthread();
	test_zombie();
	test_eacces();
	test_static_child();
	remove_tree(tmpdir);
}
