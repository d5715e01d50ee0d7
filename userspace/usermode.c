// SPDX-License-Identifier: GPL-2.0
/*
 * User mode's setup; see usermode.h.  Each object is opened here and the
 * descriptor handed to the module with each function's file offset: the
 * module holds the file (so the inode stays) and parses no ELF.
 */
#include "usermode.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elfsyms.h"
#include "procmaps.h"

#define MAX_OBJECTS 16

struct object_list {
	char open_path[MAX_OBJECTS][PATH_MAX];
	char shown[MAX_OBJECTS][PATH_MAX];	/* as the user knows it */
	size_t nr;
};

/* By inode: /proc/PID/exe and /proc/PID/root/PATH may name one file. */
static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	if (stat(a, &sa) || stat(b, &sb))
		return !strcmp(a, b);
	return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

static int list_add(struct object_list *l, const char *open_path, const char *shown,
		    struct mt_err *err)
{
	for (size_t i = 0; i < l->nr; i++)
		if (same_file(l->open_path[i], open_path))
			return 0;
	if (l->nr == MAX_OBJECTS)
		return mt_errf(err, E2BIG, "too many objects to probe (at most %d)", MAX_OBJECTS);
	snprintf(l->open_path[l->nr], PATH_MAX, "%s", open_path);
	snprintf(l->shown[l->nr], PATH_MAX, "%s", shown);
	l->nr++;
	return 0;
}

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

/* memleak's -O names: a path, "c" for libc, or a mapped object's name. */
static int resolve_object(const char *obj, int pid, const struct mapped_object *maps,
			  size_t nr_maps, struct object_list *l, struct mt_err *err)
{
	char lib[PATH_MAX];
	size_t len;

	if (strchr(obj, '/')) {
		if (access(obj, R_OK))
			return mt_errf(err, errno, "-O %s: %s", obj, strerror(errno));
		return list_add(l, obj, obj, err);
	}
	snprintf(lib, sizeof(lib), "lib%s", obj);
	len = strlen(lib);
	for (size_t i = 0; i < nr_maps; i++) {
		const char *b = base_name(maps[i].path);

		if (!strcmp(obj, "c") ? procmaps_is_libc(maps[i].path) :
		    !strcmp(b, obj) || (!strncmp(b, lib, len) &&
					(b[len] == '.' || b[len] == '-')))
			return list_add(l, maps[i].open_path, maps[i].path, err);
	}
	return mt_errf(err, ENOENT, "-O %s: pid %d maps no such object (give its path)",
		       obj, pid);
}

/* The executable, if it has allocators of its own (static, or interposing). */
static int add_executable(int pid, struct object_list *l, bool *has_malloc,
			  struct mt_err *err)
{
	char exe[64], shown[PATH_MAX];
	ssize_t n;
	int ret;

	snprintf(exe, sizeof(exe), "/proc/%d/exe", pid);
	n = readlink(exe, shown, sizeof(shown) - 1);
	if (n < 0)
		return mt_errf(err, errno == ENOENT ? ESRCH : errno, "pid %d: %s: %s", pid,
			       exe, errno == ENOENT ? "no such process (or a kernel thread)" :
			       strerror(errno));
	shown[n] = '\0';
	ret = elfsyms_defines(exe, "malloc", err);
	if (ret == -ENOENT) {
		/* No symbols at all: stripped, which matters only if static. */
		*has_malloc = false;
		return 0;
	}
	if (ret < 0)
		return ret;
	*has_malloc = ret;
	return ret ? list_add(l, exe, shown, err) : 0;
}

static bool maps_interpreter(const struct mapped_object *maps, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		if (!strncmp(base_name(maps[i].path), "ld-", 3))
			return true;
	return false;
}

static int probe_object(struct mt_device *d, const char *open_path, const char *shown,
			struct mt_err *err)
{
	struct ufn_probe probes[ELFSYMS_MAX_PROBES];
	int n, fd, ret = 0;

	n = elfsyms_find_allocators(open_path, probes, MT_ARRAY_SIZE(probes), err);
	if (n < 0)
		return n;
	if (n == 0)
		return mt_errf(err, ENOENT, "%s defines none of the allocator functions "
			       "(malloc, calloc, realloc, free, ...)", shown);
	fd = open(open_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return mt_errf(err, errno, "%s: %s", shown, strerror(errno));
	for (int i = 0; i < n && !ret; i++)
		ret = device_add_uprobe(d, fd, probes[i].offset, probes[i].func, err);
	close(fd);
	return ret ? ret : n;
}

int usermode_add_probes(struct mt_device *d, int pid, bool at_exec,
			const char *const *objs, size_t nr_objs, struct mt_err *err)
{
	struct mapped_object *maps = NULL;
	const struct mapped_object *libc;
	struct object_list *l;
	bool exe_malloc = false;
	size_t nr_maps = 0;
	int ret, total = 0;

	l = calloc(1, sizeof(*l));
	if (!l)
		return mt_errf(err, ENOMEM, "out of memory");
	ret = procmaps_read(pid, &maps, &nr_maps, err);
	if (ret)
		goto out;
	ret = add_executable(pid, l, &exe_malloc, err);
	if (ret)
		goto out;
	if (at_exec) {
		/*
		 * Stopped at its exec, a dynamic command has mapped only itself
		 * and its interpreter; it will load the libc we run with.
		 */
		char self[PATH_MAX];

		if (maps_interpreter(maps, nr_maps)) {
			ret = procmaps_self_libc(self, sizeof(self), err);
			if (!ret)
				ret = list_add(l, self, self, err);
		} else if (!exe_malloc && !nr_objs) {
			ret = mt_errf(err, ENOENT, "pid %d is statically linked and its "
				      "executable defines no malloc (stripped?): name the "
				      "allocator's object with -O", pid);
		}
	} else {
		ret = procmaps_find_libc(pid, maps, nr_maps, &libc, err);
		if (!ret)
			ret = list_add(l, libc->open_path, libc->path, err);
		else if (nr_objs)
			ret = 0;	/* -O names the allocator */
	}
	for (size_t i = 0; !ret && i < nr_objs; i++)
		ret = resolve_object(objs[i], pid, maps, nr_maps, l, err);
	for (size_t i = 0; !ret && i < l->nr; i++) {
		ret = probe_object(d, l->open_path[i], l->shown[i], err);
		if (ret > 0) {
			total += ret;
			ret = 0;
		}
	}
out:
	free(maps);
	free(l);
	return ret ? ret : total;
}
