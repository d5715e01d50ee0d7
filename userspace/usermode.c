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

#include "cli.h"
#include "elfsyms.h"
#include "procfs.h"
#include "procmaps.h"
#include "retsites.h"
#include "unwtab.h"

#define MAX_OBJECTS 16
#define MAX_PROBED 64
#define MAX_UNWOUND 256

struct object_list {
	char open_path[MAX_OBJECTS][PATH_MAX];
	char shown[MAX_OBJECTS][PATH_MAX];	/* as the user knows it */
	bool is_exe[MAX_OBJECTS];
	bool prefixed[MAX_OBJECTS];	/* -S applies: an -O object or the executable */
	size_t nr;
};

struct usermode {
	const char *const *objs;
	size_t nr_objs;
	const char *prefix;		/* -S, or NULL */
	bool mapped[MT_MAX_OBJS];	/* per -O name: some image mapped it */
	struct {
		dev_t dev;
		ino_t ino;
	} probed[MAX_PROBED];			/* files handed over already */
	size_t nr_probed;
	int unwind;			/* MT_UNWIND_* */
	int returns;			/* MT_RETURNS_* */
	bool sites;			/* the module takes return sites */
	bool verbose;			/* -v: how each allocator's returns are seen, each table's size */
	struct {
		dev_t dev;
		ino_t ino;
	} unwound[MAX_UNWOUND];			/* files given a table, or looked at */
	size_t nr_unwound;
	struct {
		uint8_t id[20];
		uint32_t len;
	} loaded[MAX_UNWOUND];			/* build ids of the tables handed over */
	size_t nr_loaded;
	bool unwind_warned;
};

struct usermode *usermode_new(const char *const *objs, size_t nr_objs)
{
	struct usermode *um = calloc(1, sizeof(*um));

	if (um) {
		um->objs = objs;
		um->nr_objs = nr_objs < MT_MAX_OBJS ? nr_objs : MT_MAX_OBJS;
	}
	return um;
}

void usermode_free(struct usermode *um)
{
	free(um);
}

void usermode_set_symbols_prefix(struct usermode *um, const char *prefix)
{
	um->prefix = prefix;
}

const char *usermode_unmapped(const struct usermode *um)
{
	for (size_t i = 0; i < um->nr_objs; i++)
		if (!um->mapped[i])
			return um->objs[i];
	return NULL;
}

/* By inode: /proc/PID/exe and /proc/PID/root/PATH may name one file. */
static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	if (stat(a, &sa) || stat(b, &sb))
		return !strcmp(a, b);
	return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* prefixed: -S applies to the object (an -O object, the executable). */
static int list_add(struct object_list *l, const char *open_path, const char *shown, bool exe,
		    bool prefixed, struct mt_err *err)
{
	for (size_t i = 0; i < l->nr; i++)
		if (same_file(l->open_path[i], open_path)) {
			l->prefixed[i] |= prefixed;
			return 0;
		}
	if (l->nr == MAX_OBJECTS)
		return mt_errf(err, E2BIG, "too many objects to probe (at most %d)", MAX_OBJECTS);
	snprintf(l->open_path[l->nr], PATH_MAX, "%s", open_path);
	snprintf(l->shown[l->nr], PATH_MAX, "%s", shown);
	l->is_exe[l->nr] = exe;
	l->prefixed[l->nr] = prefixed;
	l->nr++;
	return 0;
}

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

/* Whether the basename of path is name, or "lib" name ".so..." / "-...". */
static bool names_object(const char *path, const char *name)
{
	const char *b = base_name(path);
	size_t len = strlen(name);

	if (!strcmp(b, name))
		return true;
	return !strncmp(b, "lib", 3) && !strncmp(b + 3, name, len) &&
	       (b[3 + len] == '.' || b[3 + len] == '-');
}

/*
 * memleak's -O names: a path, "c" for libc, or a mapped object's name.
 * 0 with *found false if pid maps no such object.
 */
static int resolve_object(const char *obj, const struct mapped_object *maps, size_t nr_maps,
			  struct object_list *l, bool *found, struct mt_err *err)
{
	*found = false;
	if (strchr(obj, '/')) {
		if (access(obj, R_OK))
			return mt_errf(err, errno, "-O %s: %s", obj, strerror(errno));
		*found = true;
		return list_add(l, obj, obj, false, true, err);
	}
	for (size_t i = 0; i < nr_maps; i++) {
		if (!strcmp(obj, "c") ? procmaps_is_libc(maps[i].path) :
		    names_object(maps[i].path, obj)) {
			*found = true;
			return list_add(l, maps[i].open_path, maps[i].path, false, true, err);
		}
	}
	return 0;
}

/* The executable, if it has allocators of its own (static, or interposing). */
static int add_executable(int pid, size_t nr_maps, const char *prefix, struct object_list *l,
			  struct mt_err *err)
{
	char exe[80], shown[PATH_MAX], malloc_name[64];
	ssize_t n;
	int ret;

	procfs_path(pid, "exe", exe, sizeof(exe));
	n = readlink(exe, shown, sizeof(shown) - 1);
	if (n < 0) {
		if (errno == ENOENT && nr_maps)
			return 0;
		return mt_errf(err, errno == ENOENT ? ESRCH : errno, "pid %d: %s: %s", pid,
			       exe, errno == ENOENT ? "no such process (or a kernel thread)" :
			       strerror(errno));
	}
	shown[n] = '\0';
	snprintf(malloc_name, sizeof(malloc_name), "%smalloc", prefix ? prefix : "");
	ret = elfsyms_defines(exe, malloc_name, err);
	if (ret == -ENOENT)
		return 0;	/* no symbols at all: stripped */
	if (ret <= 0)
		return ret;
	return list_add(l, exe, shown, true, true, err);
}

static bool probed_before(struct usermode *um, int fd, bool remember)
{
	struct stat st;

	if (fstat(fd, &st))
		return false;
	for (size_t i = 0; i < um->nr_probed; i++)
		if (um->probed[i].dev == st.st_dev && um->probed[i].ino == st.st_ino)
			return true;
	if (remember && um->nr_probed < MAX_PROBED) {
		um->probed[um->nr_probed].dev = st.st_dev;
		um->probed[um->nr_probed].ino = st.st_ino;
		um->nr_probed++;
	}
	return false;
}

/* free(), munmap(), operator delete, and the resizers that move a block. */
static bool ufn_ends_allocations(uint32_t func)
{
	return func == MEMTRACE_UFN_FREE || func == MEMTRACE_UFN_MUNMAP ||
	       func == MEMTRACE_UFN_DELETE || func == MEMTRACE_UFN_REALLOC ||
	       func == MEMTRACE_UFN_REALLOCARRAY || func == MEMTRACE_UFN_MREMAP;
}

/* free(), munmap(), operator delete: nothing to see at their return. */
static bool ufn_returns_nothing(uint32_t func)
{
	return func == MEMTRACE_UFN_FREE || func == MEMTRACE_UFN_MUNMAP ||
	       func == MEMTRACE_UFN_DELETE;
}

/*
 * The probes of one allocator function: for one whose every way out is a
 * ret instruction (retsites.h), a probe on each and one at its entry that
 * only keeps the call (the module performs each ret: one trap, no return
 * address diverted); else, or with --returns=uretprobe, the entry and a
 * return probe.  The return sites go first: an entry armed alone would
 * keep calls whose returns nobody sees.  The entry probe goes on the
 * first instruction uprobes performs itself if only flag-setting ones
 * precede it (free's test and je in glibc): one trap instead of two.
 */
static int probe_function(struct usermode *um, struct mt_device *d, int fd, const char *shown,
			  const struct ufn_probe *p, struct mt_err *err)
{
	const char *name = elfsyms_ufn_name(p->func);
	struct retsites rs = { .why = "--returns=uretprobe" };
	uint64_t entry = 0;
	uint8_t *code = NULL;
	bool have_code = false;
	int ret;

	if (p->size) {
		code = malloc(p->size);
		if (!code)
			return mt_errf(err, ENOMEM, "out of memory");
		have_code = pread(fd, code, p->size, (off_t)p->offset) == (ssize_t)p->size;
	}
	if (have_code && um->sites)
		entry = retsites_entry(code, p->size);
	if (ufn_returns_nothing(p->func)) {
		free(code);
		return device_add_uprobe(d, fd, p->offset + entry, p->func,
					 MEMTRACE_UPROBE_CALL, err);
	}
	if (!um->sites)
		snprintf(rs.why, sizeof(rs.why), "this memtrace.ko has no return-site probes");
	else if (um->returns == MT_RETURNS_AUTO && !have_code)
		snprintf(rs.why, sizeof(rs.why), "its bytes cannot be read");
	else if (um->returns == MT_RETURNS_AUTO)
		retsites_find(code, p->size, &rs);
	free(code);
	for (size_t i = 0; i < rs.nr; i++) {
		ret = device_add_uprobe(d, fd, p->offset + rs.at[i], p->func,
					MEMTRACE_UPROBE_RETURN_SITE, err);
		if (!ret)
			continue;
		if (ret != -EINVAL && ret != -ENOSPC)
			return ret;
		/*
		 * The module read no ret there (the file changed under us),
		 * or has no room for more probes: the return probe instead.
		 * The sites armed already are harmless: a call the entry
		 * keeps is completed once, by whichever sees its return first.
		 */
		snprintf(rs.why, sizeof(rs.why), "the module %s the ret at +0x%llx",
			 ret == -ENOSPC ? "has no room for a probe on" : "refused",
			 (unsigned long long)rs.at[i]);
		rs.nr = 0;
	}
	if (um->verbose && rs.nr)
		fprintf(stderr, "memtrace-read: %s in %s: %zu ret-instruction probe%s\n",
			name, shown, rs.nr, rs.nr == 1 ? "" : "s");
	else if (um->verbose)
		fprintf(stderr, "memtrace-read: %s in %s: a return probe (uretprobe): %s\n",
			name, shown, rs.why);
	return device_add_uprobe(d, fd, p->offset + entry, p->func,
				 rs.nr ? MEMTRACE_UPROBE_ENTRY : MEMTRACE_UPROBE_CALL, err);
}

static int probe_object(struct usermode *um, struct mt_device *d, const char *open_path,
			const char *shown, bool exe, bool prefixed, struct mt_err *err)
{
	struct ufn_probe probes[ELFSYMS_MAX_PROBES];
	int n, fd, ret = 0;

	fd = open(open_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return mt_errf(err, errno, "%s: %s", shown, strerror(errno));
	/* Libraries mapped after the exec get the breakpoints of their probes as they map. */
	if (probed_before(um, fd, true) && !exe) {
		close(fd);
		return 0;
	}
	n = elfsyms_find_prefixed(open_path, prefixed ? um->prefix : NULL, probes,
				  MT_ARRAY_SIZE(probes), err);
	if (n == 0)
		ret = mt_errf(err, ENOENT, "%s defines none of the allocator functions "
			      "(%smalloc, %scalloc, %srealloc, %sfree, ...)", shown,
			      prefixed && um->prefix ? um->prefix : "",
			      prefixed && um->prefix ? um->prefix : "",
			      prefixed && um->prefix ? um->prefix : "",
			      prefixed && um->prefix ? um->prefix : "");
	else if (n < 0)
		ret = n;
	/*
	 * What ends allocations first: while the target runs (or an exec'd
	 * image is taken in while tracing) an allocation recorded before the
	 * probe that ends it is armed would be a false leak.
	 */
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < n && !ret; i++)
			if (ufn_ends_allocations(probes[i].func) == !pass)
				ret = probe_function(um, d, fd, shown, &probes[i], err);
	close(fd);
	return ret ? ret : n;
}

void usermode_set_returns(struct usermode *um, int mode, bool verbose,
			  const struct mt_device *d)
{
	um->returns = mode;
	um->verbose = verbose;
	um->sites = d->version.features & MEMTRACE_FEAT_RETURN_SITES;
}

int usermode_set_unwind(struct usermode *um, int mode, const struct mt_device *d,
			struct mt_err *err)
{
	bool have = d->version.features & MEMTRACE_FEAT_UNWIND_CFI;

	if (mode == MT_UNWIND_CFI && !have)
		return mt_errf(err, EOPNOTSUPP, "--unwind=cfi: this memtrace.ko walks user stacks "
			       "by frame pointers only");
	um->unwind = have ? mode : MT_UNWIND_FP;
	return 0;
}

static bool unwound_before(struct usermode *um, int fd)
{
	struct stat st;

	if (fstat(fd, &st))
		return true;
	for (size_t i = 0; i < um->nr_unwound; i++)
		if (um->unwound[i].dev == st.st_dev && um->unwound[i].ino == st.st_ino)
			return true;
	if (um->nr_unwound == MAX_UNWOUND)
		return true;
	um->unwound[um->nr_unwound].dev = st.st_dev;
	um->unwound[um->nr_unwound].ino = st.st_ino;
	um->nr_unwound++;
	return false;
}

static bool loaded_before(const struct usermode *um, const uint8_t *id, uint32_t len)
{
	for (size_t i = 0; len && i < um->nr_loaded; i++)
		if (um->loaded[i].len == len && !memcmp(um->loaded[i].id, id, len))
			return true;
	return false;
}

/*
 * One mapped object's unwind table, unless auto finds its code keeps frame
 * pointers.  An object without call-frame information gets none: its
 * frames are found by frame pointers, or the stack ends there, counted.
 */
static int unwind_object(struct usermode *um, struct mt_device *d, const struct mapped_object *m,
			 struct mt_err *err)
{
	uint8_t id[20];
	uint32_t id_len;
	struct unwtab t;
	struct mt_err ignored;
	int fd, ret = 0;

	fd = open(m->open_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;	/* gone since maps was read: nothing to walk */
	if (unwound_before(um, fd))
		goto out;
	id_len = unwtab_build_id(m->open_path, id);
	if (loaded_before(um, id, id_len)) {
		ret = device_add_unwind_table(d, fd, NULL, 0, id, id_len, err);
		if (!ret && um->verbose)
			fprintf(stderr, "memtrace-read: unwind table of %s: shared by build id, "
				"0 bytes more\n", m->path);
		goto out;
	}
	if (unwtab_build(m->open_path, &t, &ignored))
		goto out;
	if (um->unwind == MT_UNWIND_CFI || !unwtab_has_frame_pointers(&t)) {
		ret = device_add_unwind_table(d, fd, t.rows, t.nr, t.build_id, t.build_id_len, err);
		/* The bytes the module keeps for it: tests/bench/unwind-pairs.sh sums them. */
		if (!ret && um->verbose)
			fprintf(stderr, "memtrace-read: unwind table of %s: %zu rows, %zu bytes\n",
				m->path, t.nr, t.nr * sizeof(t.rows[0]));
		if (!ret && t.build_id_len && um->nr_loaded < MAX_UNWOUND) {
			memcpy(um->loaded[um->nr_loaded].id, t.build_id, t.build_id_len);
			um->loaded[um->nr_loaded].len = t.build_id_len;
			um->nr_loaded++;
		}
	} else if (um->verbose) {
		fprintf(stderr, "memtrace-read: unwind table of %s: none (--unwind=auto: its "
			"code keeps frame pointers)\n", m->path);
	}
	unwtab_free(&t);
out:
	close(fd);
	return ret;
}

/* Unwind tables for the code pid maps; a table the module refuses is said once, not fatal. */
static void unwind_image(struct usermode *um, struct mt_device *d,
			 const struct mapped_object *maps, size_t nr_maps)
{
	struct mt_err err;

	if (um->unwind == MT_UNWIND_FP)
		return;
	for (size_t i = 0; i < nr_maps; i++) {
		if (!maps[i].executable || !unwind_object(um, d, &maps[i], &err))
			continue;
		if (!um->unwind_warned)
			fprintf(stderr, "memtrace-read: warning: %s: %s; its frames are walked by "
				"frame pointers\n", maps[i].path, err.msg);
		um->unwind_warned = true;
	}
}

static bool maps_libstdcxx(const struct mapped_object *m)
{
	return m->executable && !strncmp(base_name(m->path), "libstdc++.so", 12);
}

/*
 * The objects pid maps: its executable (with_exe), libc, libstdc++, the -O
 * objects, each probed once; then the unwind tables of all its code.
 */
static int probe_mapped(struct usermode *um, struct mt_device *d, int pid, bool strict,
			bool with_exe, struct mt_err *err)
{
	struct mapped_object *maps = NULL;
	const struct mapped_object *libc;
	struct object_list *l;
	size_t nr_maps = 0;
	int ret, total = 0;

	l = calloc(1, sizeof(*l));
	if (!l)
		return mt_errf(err, ENOMEM, "out of memory");
	ret = procmaps_read(pid, &maps, &nr_maps, err);
	if (!ret && with_exe)
		ret = add_executable(pid, nr_maps, um->prefix, l, err);
	if (!ret && procmaps_find_libc(pid, maps, nr_maps, &libc, err) == 0)
		ret = list_add(l, libc->open_path, libc->path, false, false, err);
	for (size_t i = 0; !ret && i < nr_maps; i++)
		if (maps_libstdcxx(&maps[i]))
			ret = list_add(l, maps[i].open_path, maps[i].path, false, false, err);
	for (size_t i = 0; !ret && i < um->nr_objs; i++) {
		bool found;

		ret = resolve_object(um->objs[i], maps, nr_maps, l, &found, err);
		um->mapped[i] |= found;
		if (!ret && !found && strict)
			ret = mt_errf(err, ENOENT, "-O %s: pid %d maps no such object (give its path)",
				      um->objs[i], pid);
	}
	if (!ret && !l->nr && strict && with_exe)
		ret = mt_errf(err, ENOENT, "pid %d maps no libc and its executable defines no "
			      "malloc: statically linked and stripped? name the allocator's "
			      "object with -O", pid);
	for (size_t i = 0; !ret && i < l->nr; i++) {
		ret = probe_object(um, d, l->open_path[i], l->shown[i], l->is_exe[i],
				   l->prefixed[i], err);
		if (ret > 0) {
			total += ret;
			ret = 0;
		}
	}
	if (!ret)
		unwind_image(um, d, maps, nr_maps);
	free(maps);
	free(l);
	return ret ? ret : total;
}

int usermode_probe_image(struct usermode *um, struct mt_device *d, int pid, bool strict,
			 struct mt_err *err)
{
	return probe_mapped(um, d, pid, strict, true, err);
}

int usermode_probe_mapped(struct usermode *um, struct mt_device *d, int pid, struct mt_err *err)
{
	return probe_mapped(um, d, pid, false, false, err);
}

int usermode_unwind_process(struct usermode *um, struct mt_device *d, int pid,
			    struct mt_err *err)
{
	struct mapped_object *maps = NULL;
	size_t nr_maps = 0;
	int ret;

	ret = procmaps_read(pid, &maps, &nr_maps, err);
	if (!ret)
		unwind_image(um, d, maps, nr_maps);
	free(maps);
	return ret;
}
