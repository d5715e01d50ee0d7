// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/PID/maps lines are "START-END PERMS OFFSET MAJ:MIN INODE   PATH",
 * PATH running to the end of the line (it may contain spaces), padded to a
 * column, absent for anonymous memory, "[name]" for the kernel's pseudo
 * mappings and " (deleted)"-suffixed once the file was unlinked.  The
 * kernel escapes only '\n' in it, as "\012".
 */
#include "procmaps.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <linux/memtrace.h>

#include "elfsyms.h"
#include "procfs.h"

#define DELETED_SUFFIX " (deleted)"

struct objs {
	struct mapped_object *v;
	size_t nr, cap;
};

static void unescape_newlines(char *s)
{
	char *out = s;

	while (*s) {
		if (!strncmp(s, "\\012", 4)) {
			*out++ = '\n';
			s += 4;
		} else {
			*out++ = *s++;
		}
	}
	*out = '\0';
}

static bool strip_deleted(char *path)
{
	size_t n = strlen(path), sn = strlen(DELETED_SUFFIX);

	if (n <= sn || strcmp(path + n - sn, DELETED_SUFFIX))
		return false;
	path[n - sn] = '\0';
	return true;
}

/* Consecutive lines usually belong to the same object: look there first. */
static struct mapped_object *find_obj(struct objs *o, const char *path, bool deleted)
{
	size_t i;

	for (i = o->nr; i-- > 0;)
		if (o->v[i].deleted == deleted && !strcmp(o->v[i].path, path))
			return &o->v[i];
	return NULL;
}

static int new_obj(struct objs *o, int pid, const char *path, bool deleted,
		   const struct maps_line *l, struct mapped_object **obj)
{
	uint64_t start = l->start, end = l->end;
	struct mapped_object *m;
	int n;

	if (o->nr == o->cap) {
		size_t cap = o->cap ? o->cap * 2 : 32;
		struct mapped_object *v = realloc(o->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		o->v = v;
		o->cap = cap;
	}
	m = &o->v[o->nr];
	memset(m, 0, sizeof(*m));
	if (strlen(path) >= sizeof(m->path))
		return 0;
	strcpy(m->path, path);
	if (deleted)
		n = snprintf(m->open_path, sizeof(m->open_path), "/proc/%d/map_files/%" PRIx64
			     "-%" PRIx64, pid, start, end);
	else
		n = snprintf(m->open_path, sizeof(m->open_path), "/proc/%d/root%s", pid, path);
	if (n < 0 || (size_t)n >= sizeof(m->open_path))
		return 0;
	m->start = start;
	m->end = end;
	m->first_end = end;
	m->inode = l->inode;
	m->major = l->major;
	m->minor = l->minor;
	m->deleted = deleted;
	o->nr++;
	*obj = m;
	return 0;
}

bool procmaps_parse_line(const char *line, struct maps_line *m)
{
	char perms[8];
	int pos = -1;

	if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %x:%x %" SCNu64 " %n",
		   &m->start, &m->end, perms, &m->offset, &m->major, &m->minor, &m->inode,
		   &pos) != 7 || pos < 0 || strlen(perms) != 4 || m->end < m->start)
		return false;
	m->readable = perms[0] == 'r';
	m->exec = perms[2] == 'x';
	m->name = line + pos;
	m->name_len = strcspn(m->name, "\n");
	return true;
}

/* One line; *obj is left NULL for a mapping that is not a file's. */
static int parse_line(struct objs *o, int pid, char *line, struct mapped_object **obj)
{
	struct maps_line m;
	uint64_t start, end;
	char *path;
	bool deleted;

	*obj = NULL;
	if (!procmaps_parse_line(line, &m))
		return -EINVAL;
	start = m.start;
	end = m.end;
	path = line + (m.name - line);
	path[m.name_len] = '\0';
	/* Anonymous memory, [heap], [vdso], anon_inode:..., socket:... */
	if (path[0] != '/')
		return 0;
	unescape_newlines(path);
	deleted = strip_deleted(path);
	*obj = find_obj(o, path, deleted);
	if (*obj) {
		if (start < (*obj)->start)
			(*obj)->start = start;
		if (end > (*obj)->end)
			(*obj)->end = end;
	} else if (new_obj(o, pid, path, deleted, &m, obj)) {
		return -ENOMEM;
	}
	if (*obj && m.exec)
		(*obj)->executable = true;
	return 0;
}

static int by_start(const void *a, const void *b)
{
	const struct mapped_object *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

int procmaps_parse(FILE *f, int pid, struct mapped_object **out, size_t *nr, size_t *lines,
		   struct mt_err *err)
{
	struct objs o = { 0 };
	size_t cap = 0, n = 0;
	char *line = NULL;
	int rc = 0;

	while (getline(&line, &cap, f) > 0) {
		struct mapped_object *obj;

		n++;
		rc = parse_line(&o, pid, line, &obj);
		if (rc == -ENOMEM) {
			rc = mt_errf(err, ENOMEM, "out of memory reading the maps of pid %d", pid);
			break;
		}
		if (rc) {
			line[strcspn(line, "\n")] = '\0';
			rc = mt_errf(err, EINVAL,
				     "pid %d maps, line %zu: not in the maps format: %.200s",
				     pid, n, line);
			break;
		}
	}
	if (!rc && ferror(f))
		rc = mt_errf(err, errno ? errno : EIO, "cannot read the maps of pid %d: %s", pid,
			     strerror(errno ? errno : EIO));
	free(line);
	if (rc) {
		free(o.v);
		return rc;
	}
	/* The kernel lists mappings in address order; keep that promise for
	 * any text. */
	if (o.nr)
		qsort(o.v, o.nr, sizeof(*o.v), by_start);
	*out = o.v;
	*nr = o.nr;
	if (lines)
		*lines = n;
	return 0;
}

static int kthread_err(int pid, struct mt_err *err)
{
	return mt_errf(err, EINVAL,
		       "pid %d is a kernel thread: it has no user allocations to trace", pid);
}

/*
 * The thread whose maps show the process's memory: the leader, or another
 * thread if the leader left by pthread_exit() (its own maps are empty).
 */
static int check_task(int pid, int *tid, struct mt_err *err)
{
	struct proc_stat st;
	int rc;

	rc = procfs_stat(pid, 0, &st);
	if (rc == -ESRCH)
		return mt_errf(err, ESRCH, "pid %d: no such process", pid);
	if (rc)
		return mt_errf(err, -rc, "cannot read /proc/%d/stat: %s", pid, strerror(-rc));
	if (st.flags & PROCFS_PF_KTHREAD)
		return kthread_err(pid, err);
	*tid = procfs_live_thread(pid);
	if (*tid <= 0)
		return mt_errf(err, ESRCH, "pid %d: no such process (it has exited: a zombie)",
			       pid);
	return 0;
}

static int open_maps(int pid, int tid, FILE **f, struct mt_err *err)
{
	char path[64];

	if (tid == pid)
		snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	else
		snprintf(path, sizeof(path), "/proc/%d/task/%d/maps", pid, tid);
	*f = fopen(path, "re");
	if (*f)
		return 0;
	if (errno == ENOENT || errno == ESRCH)
		return mt_errf(err, ESRCH, "pid %d: no such process", pid);
	if (errno == EACCES || errno == EPERM)
		return mt_errf(err, EACCES,
			       "pid %d: permission denied reading %s: tracing another user's "
			       "process needs root (CAP_SYS_PTRACE)", pid, path);
	return mt_errf(err, errno, "cannot open %s: %s", path, strerror(errno));
}

int procmaps_read_text(int pid, char **text, size_t *len)
{
	char what[48];
	int tid = procfs_live_thread(pid);

	if (tid <= 0)
		return tid ? tid : -ESRCH;
	if (tid == pid)
		snprintf(what, sizeof(what), "maps");
	else
		snprintf(what, sizeof(what), "task/%d/maps", tid);
	return procfs_read(pid, what, text, len);
}

/* A kernel thread has no mm: its maps are empty and it has no exe. */
static bool has_exe(int pid)
{
	char path[64], target[16];

	snprintf(path, sizeof(path), "/proc/%d/exe", pid);
	return readlink(path, target, sizeof(target)) >= 0;
}

/*
 * A path in maps is the file's as seen from our root: for a process in a
 * chroot, /proc/PID/root + path names another file, or none.  Then the
 * mapping itself, through map_files, is the way to it.
 */
static bool is_mapped_file(const char *path, const struct mapped_object *m)
{
	struct stat st;

	return stat(path, &st) == 0 && st.st_ino == m->inode && major(st.st_dev) == m->major &&
	       minor(st.st_dev) == m->minor;
}

static void check_open_paths(int pid, int tid, struct mapped_object *objs, size_t nr)
{
	for (size_t i = 0; i < nr; i++) {
		struct mapped_object *m = &objs[i];
		char path[sizeof(m->open_path)];

		if (m->deleted || is_mapped_file(m->open_path, m))
			continue;
		snprintf(path, sizeof(path), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64,
			 pid, m->start, m->first_end);
		if (access(path, R_OK) && tid != pid)
			/* The main thread has left: its root and mm are gone, a thread's are not. */
			snprintf(path, sizeof(path), "/proc/%d/task/%d/root%.3900s", pid, tid,
				 m->path);
		if (access(path, R_OK) == 0)
			snprintf(m->open_path, sizeof(m->open_path), "%s", path);
	}
}

int procmaps_read(int pid, struct mapped_object **out, size_t *nr, struct mt_err *err)
{
	size_t lines;
	int rc, tid = 0;
	FILE *f;

	if (pid <= 0)
		return mt_errf(err, ESRCH, "pid %d: no such process", pid);
	rc = check_task(pid, &tid, err);
	if (!rc)
		rc = open_maps(pid, tid, &f, err);
	if (rc)
		return rc;
	errno = 0;
	rc = procmaps_parse(f, pid, out, nr, &lines, err);
	fclose(f);
	if (!rc)
		check_open_paths(pid, tid, *out, *nr);
	if (rc || lines)
		return rc;
	if (!has_exe(pid)) {
		free(*out);
		*out = NULL;
		*nr = 0;
		if (kill(pid, 0) && errno == ESRCH)
			return mt_errf(err, ESRCH, "pid %d: no such process", pid);
		return kthread_err(pid, err);
	}
	return 0;
}

bool procmaps_is_libc(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	if (!strncmp(base, "libc.so", 7))
		return true;
	return !strncmp(base, "libc-", 5) && base[5] >= '0' && base[5] <= '9';
}

/* The object /proc/PID/exe names, or NULL. */
static const struct mapped_object *find_exe(int pid, const struct mapped_object *objs, size_t nr)
{
	char link[64], target[4096 + sizeof(DELETED_SUFFIX)];
	bool deleted;
	ssize_t n;
	size_t i;

	snprintf(link, sizeof(link), "/proc/%d/exe", pid);
	n = readlink(link, target, sizeof(target) - 1);
	if (n <= 0)
		return NULL;
	target[n] = '\0';
	deleted = strip_deleted(target);
	for (i = 0; i < nr; i++)
		if (objs[i].deleted == deleted && !strcmp(objs[i].path, target))
			return &objs[i];
	return NULL;
}

static bool defines_malloc(const struct mapped_object *obj)
{
	struct ufn_probe probes[ELFSYMS_MAX_PROBES];
	int i, n;

	n = elfsyms_find_allocators(obj->open_path, probes, MT_ARRAY_SIZE(probes), NULL);
	for (i = 0; i < n; i++)
		if (probes[i].func == MEMTRACE_UFN_MALLOC)
			return true;
	return false;
}

int procmaps_find_libc(int pid, const struct mapped_object *objs, size_t nr,
		       const struct mapped_object **libc, struct mt_err *err)
{
	const struct mapped_object *exe;
	size_t i;

	/* Only code mappings matter: calls go where libc's text is. */
	for (i = 0; i < nr; i++) {
		if (objs[i].executable && procmaps_is_libc(objs[i].path)) {
			*libc = &objs[i];
			return 0;
		}
	}
	exe = find_exe(pid, objs, nr);
	if (exe && defines_malloc(exe)) {
		*libc = exe;
		return 0;
	}
	return mt_errf(err, ENOENT,
		       "pid %d maps no libc and its executable defines no malloc: statically "
		       "linked and stripped? name the allocator's object with -O", pid);
}
