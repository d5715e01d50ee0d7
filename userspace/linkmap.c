// SPDX-License-Identifier: GPL-2.0
/*
 * ld.so's lookup order in a process; see linkmap.h.
 */
#include "linkmap.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <gelf.h>
#include <link.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "elfsyms.h"
#include "procfs.h"

/* A link map longer than this is a loop (a corrupt or changing list). */
#define MAX_LINKS 4096

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

/*
 * Calls fn for each entry of elf's dynamic section, up to DT_NULL or until
 * fn returns false; strndx names the section's string table.
 */
static void for_each_dyn(Elf *elf, bool (*fn)(void *ctx, Elf *elf, size_t strndx,
					      const GElf_Dyn *dyn), void *ctx)
{
	Elf_Scn *scn = NULL;

	while (elf && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC || !sh.sh_entsize ||
		    !(data = elf_getdata(scn, NULL)))
			continue;
		for (size_t k = 0; k < sh.sh_size / sh.sh_entsize; k++) {
			GElf_Dyn dyn;

			if (!gelf_getdyn(data, (int)k, &dyn) || dyn.d_tag == DT_NULL ||
			    !fn(ctx, elf, sh.sh_link, &dyn))
				return;
		}
	}
}

static bool dyn_pie(void *ctx, Elf *elf, size_t strndx, const GElf_Dyn *dyn)
{
	(void)elf;
	(void)strndx;
	if (dyn->d_tag == DT_FLAGS_1 && (dyn->d_un.d_val & DF_1_PIE))
		*(bool *)ctx = true;
	return !*(bool *)ctx;
}

/*
 * Whether the ELF file at path is a program (ET_EXEC, or a PIE: DF_1_PIE)
 * rather than a shared object.  ld.so is a shared object even when it is
 * what the process exec'd ("ld.so ./prog").
 */
bool linkmap_is_program(const char *path)
{
	bool program = false;
	GElf_Ehdr eh;
	Elf *elf;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && gelf_getehdr(elf, &eh))
		program = eh.e_type == ET_EXEC;
	if (elf && !program)
		for_each_dyn(elf, dyn_pie, &program);
	if (elf)
		elf_end(elf);
	close(fd);
	return program;
}

size_t linkmap_exe_index(int pid, const struct mapped_object *objs, size_t nr)
{
	size_t exe = nr;
	char path[80];
	struct stat st;

	procfs_path(pid, "exe", path, sizeof(path));
	if (stat(path, &st))
		return nr;
	for (size_t i = 0; i < nr && exe == nr; i++)
		if (objs[i].inode == st.st_ino && objs[i].major == major(st.st_dev) &&
		    objs[i].minor == minor(st.st_dev))
			exe = i;
	if (exe == nr || linkmap_is_program(objs[exe].open_path))
		return exe;
	/*
	 * The process exec'd a shared object: ld.so run as a command
	 * ("/lib64/ld-linux-x86-64.so.2 ./prog"), which loaded the program
	 * itself.  /proc/PID/exe names the loader; the program, whose
	 * symbols come first, is the one program mapped (ld.so refuses to
	 * dlopen a PIE, so there is no other).
	 */
	for (size_t i = 0; i < nr; i++)
		if (i != exe && objs[i].executable && linkmap_is_program(objs[i].open_path))
			return i;
	return exe;
}

static bool add(size_t *order, size_t *n, bool *taken, size_t i)
{
	if (taken[i])
		return false;
	taken[i] = true;
	order[(*n)++] = i;
	return true;
}

/* The rest, in address order: objects the lookup order does not reach. */
static size_t add_rest(size_t nr, size_t *order, size_t n, bool *taken)
{
	for (size_t i = 0; i < nr; i++)
		add(order, &n, taken, i);
	return n;
}

/* Reads len bytes of pid's memory at addr; false if not all. */
static bool peek(int fd, uint64_t addr, void *buf, size_t len)
{
	return pread(fd, buf, len, (off_t)addr) == (ssize_t)len;
}

/* The object whose mappings span addr (a link map entry's l_ld), or nr. */
static size_t holding(const struct mapped_object *objs, size_t nr, uint64_t addr)
{
	for (size_t i = 0; i < nr; i++)
		if (addr >= objs[i].start && addr < objs[i].end)
			return i;
	return nr;
}

/*
 * r_debug.r_map of the loader (the object other than the executable that
 * defines _r_debug), through /proc/PID/mem.  0 if it has none (yet).
 */
static size_t order_from_loader(int pid, const struct mapped_object *objs, size_t nr,
				size_t exe, size_t *order, bool *taken)
{
	struct r_debug rd;
	struct link_map lm;
	uint64_t vaddr, load, at = 0;
	char mem[80];
	size_t n = 0;
	int fd;

	for (size_t i = 0; i < nr && !at; i++) {
		struct mt_err ignored;

		if (i != exe && objs[i].executable &&
		    !elfsyms_lookup(objs[i].open_path, "_r_debug", &vaddr, &load, &ignored))
			at = objs[i].start - load + vaddr;
	}
	if (!at)
		return 0;
	fd = open(procfs_path(pid, "mem", mem, sizeof(mem)), O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	/*
	 * Only a list the loader says is complete: between RT_ADD (or
	 * RT_DELETE) and RT_CONSISTENT a dlopen() is linking objects in or
	 * out, and a half-built list would order them wrong (or end early).
	 * The caller falls back to the files; the next look reads it again.
	 */
	if (peek(fd, at, &rd, sizeof(rd)) && rd.r_version >= 1 && rd.r_state == RT_CONSISTENT) {
		uint64_t next = (uint64_t)(uintptr_t)rd.r_map;

		for (int k = 0; next && k < MAX_LINKS && peek(fd, next, &lm, sizeof(lm)); k++) {
			size_t i = holding(objs, nr, (uint64_t)(uintptr_t)lm.l_ld);

			if (i < nr)
				add(order, &n, taken, i);
			next = (uint64_t)(uintptr_t)lm.l_next;
		}
	}
	close(fd);
	return n;
}

/* What an object is asked for by: its DT_SONAME, else its file name. */
static bool answers_to(const struct mapped_object *m, const char *soname, const char *needed)
{
	return !strcmp(soname[0] ? soname : base_name(m->path), needed) ||
	       !strcmp(base_name(m->path), needed);
}

/* read_dynamic()'s state: DT_NEEDED names NUL-separated, and DT_SONAME. */
struct dyn_names {
	char *names, *soname;
	size_t len, soname_len, used, count;
};

static bool dyn_needed(void *ctx, Elf *elf, size_t strndx, const GElf_Dyn *dyn)
{
	struct dyn_names *d = ctx;
	const char *s;

	if (dyn->d_tag != DT_NEEDED && dyn->d_tag != DT_SONAME)
		return true;
	s = elf_strptr(elf, strndx, dyn->d_un.d_val);
	if (!s)
		return true;
	if (dyn->d_tag == DT_SONAME) {
		snprintf(d->soname, d->soname_len, "%s", s);
	} else if (d->used + strlen(s) + 1 <= d->len) {
		memcpy(d->names + d->used, s, strlen(s) + 1);
		d->used += strlen(s) + 1;
		d->count++;
	}
	return true;
}

/* One object's DT_NEEDED names (into names, NUL-separated) and its DT_SONAME. */
static size_t read_dynamic(const char *path, char *names, size_t len, char *soname,
			   size_t soname_len)
{
	struct dyn_names d = { names, soname, len, soname_len, 0, 0 };
	Elf *elf;
	int fd;

	soname[0] = '\0';
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	for_each_dyn(elf, dyn_needed, &d);
	if (elf)
		elf_end(elf);
	close(fd);
	return d.count;
}

/* Appends file's contents to buf (of len, holding *used), a space between. */
static void append_file(const char *file, char *buf, size_t len, size_t *used)
{
	ssize_t n;
	int fd;

	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (*used && *used + 1 < len)
		buf[(*used)++] = ' ';
	while (*used + 1 < len && (n = read(fd, buf + *used, len - 1 - *used)) > 0)
		*used += (size_t)n;
	buf[*used] = '\0';
	close(fd);
}

size_t linkmap_preload(int pid, char *buf, size_t len)
{
	static const char var[] = "LD_PRELOAD=";
	size_t used = 0, got = 0;
	char path[80], *env;
	ssize_t n;
	int fd;

	if (!len)
		return 0;
	buf[0] = '\0';
	env = malloc(1 << 20);
	fd = env ? open(procfs_path(pid, "environ", path, sizeof(path)), O_RDONLY | O_CLOEXEC) : -1;
	/* The environment the process started with: the one ld.so read. */
	while (fd >= 0 && got < (1 << 20) - 1 && (n = read(fd, env + got, (1 << 20) - 1 - got)) > 0)
		got += (size_t)n;
	if (fd >= 0)
		close(fd);
	for (size_t at = 0; env && at < got; at += strlen(env + at) + 1) {
		env[got] = '\0';
		if (!strncmp(env + at, var, sizeof(var) - 1))
			used = (size_t)snprintf(buf, len, "%s", env + at + sizeof(var) - 1);
	}
	free(env);
	if (used >= len)
		used = len - 1;
	/* ld.so loads /etc/ld.so.preload's after LD_PRELOAD's, in its root. */
	append_file(procfs_path(pid, "root/etc/ld.so.preload", path, sizeof(path)), buf, len,
		    &used);
	return used;
}

size_t linkmap_order_needed(const struct mapped_object *objs, size_t nr, size_t exe_index,
			    const char *preload, size_t *order)
{
	char (*sonames)[256] = calloc(nr ? nr : 1, sizeof(*sonames));
	bool *taken = calloc(nr ? nr : 1, sizeof(*taken));
	char *names = malloc(16384);
	size_t n = 0;

	if (!sonames || !taken || !names) {
		for (n = 0; n < nr; n++)
			order[n] = n;
		goto out;
	}
	for (size_t i = 0; i < nr; i++) {
		char ignored[1];

		read_dynamic(objs[i].open_path, ignored, 0, sonames[i], sizeof(sonames[i]));
	}
	if (exe_index < nr)
		add(order, &n, taken, exe_index);
	/*
	 * The preloaded objects come right after the executable, before
	 * anything it needs (ld.so's search list starts so), whatever their
	 * place in memory: named as LD_PRELOAD names them (a path or a file
	 * name, separated by spaces or colons), matched by file name.
	 */
	for (const char *p = preload ? preload : ""; *p;) {
		size_t w = strcspn(p, " :\t\n");
		char name[PATH_MAX];

		if (w && w < sizeof(name)) {
			memcpy(name, p, w);
			name[w] = '\0';
			for (size_t i = 0; i < nr; i++)
				if (answers_to(&objs[i], sonames[i], base_name(name)) &&
				    add(order, &n, taken, i))
					break;
		}
		p += w;
		p += strspn(p, " :\t\n");
	}
	/* Breadth-first: each object's DT_NEEDED, in its order, after all before it. */
	for (size_t q = 0; q < n; q++) {
		size_t count = read_dynamic(objs[order[q]].open_path, names, 16384,
					    sonames[order[q]], sizeof(sonames[0]));
		const char *s = names;

		for (size_t k = 0; k < count; k++, s += strlen(s) + 1)
			for (size_t i = 0; i < nr; i++)
				if (answers_to(&objs[i], sonames[i], s) && add(order, &n, taken, i))
					break;
	}
	n = add_rest(nr, order, n, taken);
out:
	free(sonames);
	free(taken);
	free(names);
	return n;
}

int linkmap_order(int pid, const struct mapped_object *objs, size_t nr, size_t *order,
		  const char **how, struct mt_err *err)
{
	size_t exe = linkmap_exe_index(pid, objs, nr), n;
	bool *taken = calloc(nr ? nr : 1, sizeof(*taken));

	if (!taken)
		return mt_errf(err, ENOMEM, "out of memory");
	n = order_from_loader(pid, objs, nr, exe, order, taken);
	/* The executable heads the loader's list; without it the list is not ld.so's. */
	if (n && (exe == nr || order[0] == exe)) {
		*how = "the loader's link map";
		n = add_rest(nr, order, n, taken);
	} else {
		char *preload = malloc(PATH_MAX * 4);

		*how = "DT_NEEDED";
		if (preload)
			linkmap_preload(pid, preload, PATH_MAX * 4);
		n = linkmap_order_needed(objs, nr, exe, preload, order);
		free(preload);
	}
	free(taken);
	return (int)n;
}
