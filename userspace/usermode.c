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

#include "binding.h"
#include "cli.h"
#include "elfsyms.h"
#include "linkmap.h"
#include "procfs.h"
#include "procmaps.h"
#include "retsites.h"
#include "unwtab.h"

#define MAX_OBJECTS 16
#define MAX_PROBED 1024
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
		uint64_t offset;
	} probed[MAX_PROBED];			/* functions handed over already */
	size_t nr_probed;
	int unwind;			/* MT_UNWIND_* */
	int returns;			/* MT_RETURNS_* */
	bool sites;			/* the module takes return sites */
	bool verbose;			/* -v: how each allocator's returns are seen, each table's size */
	bool quiet;			/* --memleak-format: no line memleak does not print */
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
	int resolved_pid;		/* the process and objects last resolved */
	uint64_t resolved_sig;
};

/* What pid maps, in one number: resolution is redone only when it changes. */
static uint64_t maps_signature(const struct mapped_object *maps, size_t nr)
{
	uint64_t h = 1469598103934665603ULL;	/* FNV-1a */

	for (size_t i = 0; i < nr; i++) {
		uint64_t v[3] = { maps[i].inode, maps[i].start, maps[i].end };

		for (size_t k = 0; k < 3; k++)
			h = (h ^ v[k]) * 1099511628211ULL;
	}
	return h;
}

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

/* Whether -S applies to the object at open_path (it is in l, prefixed). */
static bool prefixed_object(const struct object_list *l, const char *open_path)
{
	for (size_t i = 0; i < l->nr; i++)
		if (l->prefixed[i] && same_file(l->open_path[i], open_path))
			return true;
	return false;
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

/* Whether the function at offset in the file open as fd was handed over already. */
static bool probed_before(struct usermode *um, int fd, uint64_t offset, bool remember)
{
	struct stat st;

	if (fstat(fd, &st))
		return false;
	for (size_t i = 0; i < um->nr_probed; i++)
		if (um->probed[i].dev == st.st_dev && um->probed[i].ino == st.st_ino &&
		    um->probed[i].offset == offset)
			return true;
	if (remember && um->nr_probed < MAX_PROBED) {
		um->probed[um->nr_probed].dev = st.st_dev;
		um->probed[um->nr_probed].ino = st.st_ino;
		um->probed[um->nr_probed].offset = offset;
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

/* One function to probe: which object, and where in it. */
struct planned {
	const char *open_path;
	const char *shown;
	bool exe;		/* re-armed for each image: mapped before it was traced */
	struct ufn_probe p;
};

struct plan {
	struct planned fn[MAX_OBJECTS * ELFSYMS_MAX_PROBES + ELFSYMS_MAX_PROBES];
	size_t nr;
};

static void plan_add(struct plan *pl, const char *open_path, const char *shown, bool exe,
		     const struct ufn_probe *p)
{
	for (size_t i = 0; i < pl->nr; i++)
		if (pl->fn[i].p.offset == p->offset && same_file(pl->fn[i].open_path, open_path))
			return;
	if (pl->nr == MT_ARRAY_SIZE(pl->fn))
		return;
	pl->fn[pl->nr].open_path = open_path;
	pl->fn[pl->nr].shown = shown;
	pl->fn[pl->nr].exe = exe;
	pl->fn[pl->nr].p = *p;
	pl->nr++;
}

/* Every allocator function of an -O object (or of the executable, with -S). */
static int plan_object(struct usermode *um, struct plan *pl, const char *open_path,
		       const char *shown, bool exe, bool prefixed, struct mt_err *err)
{
	struct ufn_probe probes[ELFSYMS_MAX_PROBES];
	int n;

	n = elfsyms_find_prefixed(open_path, prefixed ? um->prefix : NULL, probes,
				  MT_ARRAY_SIZE(probes), err);
	if (n == 0)
		return mt_errf(err, ENOENT, "%s defines none of the allocator functions "
			       "(%smalloc, %scalloc, %srealloc, %sfree, ...)", shown,
			       prefixed && um->prefix ? um->prefix : "",
			       prefixed && um->prefix ? um->prefix : "",
			       prefixed && um->prefix ? um->prefix : "",
			       prefixed && um->prefix ? um->prefix : "");
	if (n < 0)
		return n;
	for (int i = 0; i < n; i++)
		plan_add(pl, open_path, shown, exe, &probes[i]);
	return n;
}

/*
 * Hands the planned functions over, what ends allocations first: while
 * the target runs (or an exec'd image is taken in while tracing) an
 * allocation recorded before the probe that ends it is armed would be a
 * false leak.  A function handed over before is not again, but for the
 * executable's with_exe.  Returns the number handed over, or -errno.
 */
static int probe_plan(struct usermode *um, struct mt_device *d, const struct plan *pl,
		      bool with_exe, bool *handed, struct mt_err *err)
{
	int total = 0, ret = 0;

	for (int pass = 0; pass < 2 && !ret; pass++) {
		for (size_t i = 0; i < pl->nr && !ret; i++) {
			const struct planned *f = &pl->fn[i];
			int fd;

			if (ufn_ends_allocations(f->p.func) != !pass)
				continue;
			fd = open(f->open_path, O_RDONLY | O_CLOEXEC);
			if (fd < 0) {
				ret = mt_errf(err, errno, "%s: %s", f->shown, strerror(errno));
				break;
			}
			if (!probed_before(um, fd, f->p.offset, true) || (f->exe && with_exe)) {
				ret = probe_function(um, d, fd, f->shown, &f->p, err);
				if (ret == -ENOSPC) {
					/* Which function found the table full. */
					char msg[sizeof(err->msg)];

					memcpy(msg, err->msg, sizeof(msg));
					ret = mt_errf(err, ENOSPC, "%.64s in %.200s: %.230s",
						      f->p.symbol, f->shown, msg);
				}
				if (!ret) {
					handed[i] = true;
					total++;
				}
			}
			close(fd);
		}
	}
	return ret ? ret : total;
}

void usermode_set_quiet(struct usermode *um, bool quiet)
{
	um->quiet = quiet;
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

/*
 * The line that says where pid's allocator is: for each object probed,
 * the first entry point bound to it ("malloc: libjemalloc.so.2"); with
 * -v, every entry point and where it resolved.
 */
static void tell_bindings(struct usermode *um, int pid, bool with_exe, const char *how,
			  const struct binding *b, const size_t *order, size_t n,
			  const struct mapped_object *maps, const bool *handed_obj)
{
	char line[1024];
	size_t len = 0;

	line[0] = '\0';
	for (size_t k = 0; k < n; k++) {
		size_t first = ELFSYMS_MAX_PROBES;

		if (!handed_obj[k])
			continue;
		for (size_t s = 0; s < ELFSYMS_MAX_PROBES && first == ELFSYMS_MAX_PROBES; s++)
			if (b->obj[s] == k)
				first = s;
		if (first == ELFSYMS_MAX_PROBES || len >= sizeof(line))
			continue;
		len += (size_t)snprintf(line + len, sizeof(line) - len, "%s%s: %s",
					len ? ", " : "", binding_slot_name(first),
					base_name(maps[order[k]].path));
	}
	if (len && !um->quiet)
		fprintf(stderr, "memtrace-read: pid %d %s: %s\n", pid,
			with_exe ? "allocator" : "mapped an allocator", line);
	if (!um->verbose)
		return;
	for (size_t s = 0; s < ELFSYMS_MAX_PROBES; s++) {
		if (b->obj[s] == n && s >= ELFSYMS_STANDARD_SLOTS)
			continue;	/* another allocator's own entry point */
		if (b->obj[s] == n)
			fprintf(stderr, "memtrace-read: pid %d: %s: defined nowhere\n", pid,
				elfsyms_slot_symbol(s));
		else
			fprintf(stderr, "memtrace-read: pid %d: %s: %s+0x%llx (%s, %s)%s\n", pid,
				elfsyms_slot_symbol(s), maps[order[b->obj[s]]].path,
				(unsigned long long)b->def[s].offset, how,
				b->def[s].symbol, b->def[s].ifunc ? " (an IFUNC: not probed)" :
				binding_is_alias(b, n, s) ? " (an alias: probed once)" : "");
	}
}

/*
 * The executable's own allocator under -S: its prefixed functions, if it
 * defines the prefixed malloc.
 */
static int plan_prefixed_executable(struct usermode *um, int pid, size_t nr_maps,
				    struct object_list *l, struct mt_err *err)
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
	snprintf(malloc_name, sizeof(malloc_name), "%smalloc", um->prefix);
	ret = elfsyms_defines(exe, malloc_name, err);
	if (ret == -ENOENT)
		return 0;	/* no symbols at all: stripped */
	if (ret <= 0)
		return ret;
	return list_add(l, exe, shown, true, true, err);
}

/*
 * The objects pid maps: each allocator entry point where ld.so binds it
 * (linkmap.h, binding.h), and every function of the -O objects; each
 * function probed once (the executable's again for a new image,
 * with_exe); then the unwind tables of all its code.
 */
static int probe_mapped(struct usermode *um, struct mt_device *d, int pid, bool strict,
			bool with_exe, struct mt_err *err)
{
	struct mapped_object *maps = NULL;
	const char **paths = NULL;
	size_t *order = NULL, exe, nr_maps = 0, n = 0;
	bool *handed = NULL, *handed_obj = NULL;
	struct object_list *l;
	struct binding *b;
	struct plan *pl;
	const char *how = "";
	int ret;

	l = calloc(1, sizeof(*l));
	b = calloc(1, sizeof(*b));
	pl = calloc(1, sizeof(*pl));
	if (!l || !b || !pl) {
		ret = mt_errf(err, ENOMEM, "out of memory");
		goto out;
	}
	ret = procmaps_read(pid, &maps, &nr_maps, err);
	if (ret)
		goto out;
	/*
	 * A 32-bit program (i386, x32): its allocators take their arguments
	 * where the module does not read them (i386: on the stack) and its
	 * loader's r_debug and link map are laid out in 32-bit words, so any
	 * probe would record garbage.  Refused, saying so.
	 */
	exe = linkmap_exe_index(pid, maps, nr_maps);
	if (exe < nr_maps && elfsyms_class(maps[exe].open_path) == ELFCLASS32) {
		ret = mt_errf(err, EOPNOTSUPP, "pid %d runs a 32-bit program (%s): its allocator "
			      "calls are not traced (user mode probes x86-64 allocators)", pid,
			      maps[exe].path);
		goto out;
	}
	/*
	 * -p looks again at each report: with the same objects mapped, the
	 * same functions bind (and are probed already).
	 */
	if (!with_exe && pid == um->resolved_pid &&
	    maps_signature(maps, nr_maps) == um->resolved_sig) {
		unwind_image(um, d, maps, nr_maps);
		goto out;
	}
	order = calloc(nr_maps + 1, sizeof(*order));
	paths = calloc(nr_maps + 1, sizeof(*paths));
	handed = calloc(MT_ARRAY_SIZE(pl->fn), sizeof(*handed));
	handed_obj = calloc(nr_maps + 1, sizeof(*handed_obj));
	if (!order || !paths || !handed || !handed_obj) {
		ret = mt_errf(err, ENOMEM, "out of memory");
		goto out;
	}
	ret = linkmap_order(pid, maps, nr_maps, order, &how, err);
	if (ret < 0)
		goto out;
	n = (size_t)ret;
	ret = 0;
	for (size_t k = 0; k < n; k++)
		paths[k] = maps[order[k]].open_path;
	binding_resolve(paths, n, b);
	if (with_exe && um->prefix)
		ret = plan_prefixed_executable(um, pid, nr_maps, l, err);
	for (size_t i = 0; !ret && i < um->nr_objs; i++) {
		bool found;

		ret = resolve_object(um->objs[i], maps, nr_maps, l, &found, err);
		um->mapped[i] |= found;
		if (!ret && !found && strict)
			ret = mt_errf(err, ENOENT, "-O %s: pid %d maps no such object (give its path)",
				      um->objs[i], pid);
	}
	/* An object -S applies to is probed by the prefixed names alone. */
	for (size_t s = 0; !ret && s < ELFSYMS_MAX_PROBES; s++) {
		if (b->obj[s] == n || binding_is_alias(b, n, s) ||
		    (um->prefix && prefixed_object(l, paths[b->obj[s]])))
			continue;
		/*
		 * Bound to an IFUNC: the calls go to whatever its resolver
		 * chose, not to its address nor to a later object's
		 * definition.  Said, not probed elsewhere in its stead.
		 */
		if (b->def[s].ifunc) {
			fprintf(stderr, "memtrace-read: pid %d: %s binds to an IFUNC in %s (its "
				"code is chosen at load time): not traced; name the "
				"implementation's object with -O\n", pid, elfsyms_slot_symbol(s),
				maps[order[b->obj[s]]].path);
			continue;
		}
		plan_add(pl, paths[b->obj[s]], maps[order[b->obj[s]]].path,
			 order[b->obj[s]] == exe, &b->def[s]);
	}
	for (size_t i = 0; !ret && i < l->nr; i++) {
		ret = plan_object(um, pl, l->open_path[i], l->shown[i], l->is_exe[i],
				  l->prefixed[i], err);
		ret = ret > 0 ? 0 : ret;
	}
	if (!ret && !pl->nr && strict && with_exe)
		ret = mt_errf(err, ENOENT, "pid %d maps no libc and its executable defines no "
			      "malloc: statically linked and stripped? name the allocator's "
			      "object with -O", pid);
	if (!ret)
		ret = probe_plan(um, d, pl, with_exe, handed, err);
	if (ret >= 0) {
		um->resolved_pid = pid;
		um->resolved_sig = maps_signature(maps, nr_maps);
		for (size_t i = 0; i < pl->nr; i++)
			for (size_t k = 0; handed[i] && k < n; k++)
				if (paths[k] == pl->fn[i].open_path)
					handed_obj[k] = true;
		tell_bindings(um, pid, with_exe, how, b, order, n, maps, handed_obj);
		unwind_image(um, d, maps, nr_maps);
	}
out:
	free(maps);
	free(order);
	free(paths);
	free(handed);
	free(handed_obj);
	free(l);
	free(b);
	free(pl);
	return ret;
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
