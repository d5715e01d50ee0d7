// SPDX-License-Identifier: GPL-2.0
/*
 * One Dwfl per traced process (usymproc.h), fed from /proc/PID/maps much
 * as dwfl_linux_proc_report would, except that we read the file ourselves:
 * we keep only the mappings of code (see filter_maps), we need that text
 * anyway to tell whether it changed, and reporting from the same text
 * means that what we compare is exactly what libdwfl was told.
 */
#include "usymproc.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "debugfile.h"
#include "procfs.h"
#include "procmaps.h"
#include "usymtab.h"

/* NULL: libdwfl's default, ":.debug:/usr/lib/debug", plus build-ids. */
static char *debuginfo_path;
/* usymproc_allow_debuginfod(): the last resort for debug files. */
static bool debuginfod;

static int find_elf(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr base,
		    char **file_name, Elf **elfp);
static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			  Dwarf_Addr base, const char *file_name, const char *debuglink_file,
			  GElf_Word debuglink_crc, char **debuginfo_file_name);

static const Dwfl_Callbacks callbacks = {
	.find_elf = find_elf,
	.find_debuginfo = find_debuginfo,
	.debuginfo_path = &debuginfo_path,
};

void usymproc_allow_debuginfod(bool allow)
{
	debuginfod = allow;
}

/* ---- /proc ------------------------------------------------------------ */

/*
 * The start time of a process, which tells it from a later one with the
 * same pid, and whether it is a kernel thread.  -ESRCH once it has exited
 * (its mappings are gone).
 */
static int read_stat(int pid, unsigned long long *start, bool *kthread)
{
	struct proc_stat st;
	int ret = procfs_stat(pid, 0, &st);

	if (ret)
		return ret;
	if (!procfs_alive(pid))
		return -ESRCH;
	*start = st.start_time;
	*kthread = st.flags & PROCFS_PF_KTHREAD;
	return 0;
}

struct map_line {
	uint64_t start, end, offset;
	unsigned int major, minor;
	uint64_t ino;
	bool exec;
	const char *name;	/* path or "[vdso]"; "" if none */
};

/* "START-END PERMS OFFSET MAJ:MIN INODE [NAME]", NUL-terminated. */
static bool parse_map_line(const char *line, struct map_line *m)
{
	struct maps_line l;

	if (!procmaps_parse_line(line, &l))
		return false;
	*m = (struct map_line){ l.start, l.end, l.offset, l.major, l.minor, l.inode, l.exec,
				l.name };
	return true;
}

static bool is_file(const struct map_line *m)
{
	return m->name[0] == '/' && (m->ino || m->major || m->minor);
}

static bool same_file(const struct map_line *a, const struct map_line *b)
{
	return a->ino == b->ino && a->major == b->major && a->minor == b->minor;
}

/* The next line of maps (split in place into NUL-terminated lines). */
static char *next_line(char **pos, char *end)
{
	char *line = *pos, *nl;

	if (line >= end)
		return NULL;
	nl = memchr(line, '\n', (size_t)(end - line));
	if (nl)
		*nl = '\0';
	*pos = nl ? nl + 1 : end;
	return line;
}

static void append_line(char *out, size_t *out_len, const char *line)
{
	size_t n = strlen(line);

	memcpy(out + *out_len, line, n);
	*out_len += n;
	out[(*out_len)++] = '\n';
}

/*
 * Keeps the lines of loaded objects with code, and the vDSO: anonymous
 * memory, the heap, stacks and data files change as the program runs but
 * hold no symbols.  An object is a run of lines of one file (anonymous
 * lines, its .bss, may sit between them), from its ELF header at offset
 * 0 on; another mapping of the file, from offset 0 again, is not part of
 * it (libelf maps the files it reads, which shows when we symbolize our
 * own process).  A run without an executable line is dropped, all of an
 * object's lines are kept: libdwfl finds its load address from the first.
 * out has room for len + 1 bytes.
 */
static size_t filter_maps(char *raw, size_t len, char *out)
{
	size_t out_len = 0, run_start = 0;
	char *pos = raw, *line;
	struct map_line m, run = { .name = "" };
	bool run_exec = false;

	while ((line = next_line(&pos, raw + len))) {
		if (!parse_map_line(line, &m))
			continue;
		if (!is_file(&m) && strcmp(m.name, "[vdso]"))
			continue;
		if (is_file(&m) && is_file(&run) && same_file(&run, &m) && m.offset) {
			append_line(out, &out_len, line);
			run_exec |= m.exec;
			continue;
		}
		/* This line ends the run before it: keep that one if it had code. */
		if (!run_exec)
			out_len = run_start;
		run_start = out_len;
		run = m;
		run_exec = m.exec || !is_file(&m);
		append_line(out, &out_len, line);
	}
	if (!run_exec)
		out_len = run_start;
	out[out_len] = '\0';
	return out_len;
}

/*
 * The filtered maps of our process; -ESRCH once it is gone: no maps file,
 * a zombie, empty maps (it is exiting), or the pid now names another one.
 */
static int read_maps(struct usymproc *p, char **text, size_t *text_len)
{
	unsigned long long start;
	char *raw, *out;
	bool kthread;
	size_t len;
	int ret = procmaps_read_text(p->pid, &raw, &len);

	if (ret)
		return ret;
	/* Read after the maps: if the pid is still ours, so were they. */
	ret = read_stat(p->pid, &start, &kthread);
	if (!ret && (start != p->start_time || len == 0))
		ret = -ESRCH;
	out = ret ? NULL : malloc(len + 1);
	if (!ret && !out)
		ret = -ENOMEM;
	if (!ret)
		*text_len = filter_maps(raw, len, out);
	free(raw);
	*text = out;
	return ret;
}


/*
 * dwfl_report_end callback: a module is dropped, and our data with it.
 * Declared as taking a void *, but libdwfl passes the userdata's address,
 * as to dwfl_getmodules callbacks (MODCB_ARGS in libdwflP.h).
 */
static int module_removed(Dwfl_Module *mod, void *userdata, const char *name,
				Dwarf_Addr start, void *arg)
{
	void **slot = userdata;

	(void)mod;
	(void)name;
	(void)start;
	(void)arg;
	usymtab_module_free(*slot);
	*slot = NULL;
	return DWARF_CB_OK;
}

/* dwfl_getmodules callback, before dwfl_end: frees every module's data. */
static int module_free_all(Dwfl_Module *mod, void **userdata, const char *name,
			     Dwarf_Addr start, void *arg)
{
	return module_removed(mod, userdata, name, start, arg);
}

/* ---- opening a module's file ----------------------------------------- */

bool usymproc_is_deleted(const char *name, size_t *len)
{
	static const char suffix[] = " (deleted)";
	size_t n = strlen(name);

	*len = n;
	if (n < sizeof(suffix) - 1 || strcmp(name + n - (sizeof(suffix) - 1), suffix))
		return false;
	*len = n - (sizeof(suffix) - 1);
	return true;
}

/*
 * The file the process maps, whatever has become of its path: through
 * /proc/PID/map_files (root only), the very inode mapped, even deleted or
 * replaced since (a library upgraded under a running process); else
 * through /proc/PID/root, for a process in another mount namespace.
 */
static int open_mapped(const struct usyms_module *m, const char *name, size_t len)
{
	char path[4096 + 64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, m->pid,
		 m->vma_start, m->vma_end);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 || len > 4096)
		return fd;
	snprintf(path, sizeof(path), "/proc/%d/root%.*s", m->pid, (int)len, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 || m->root_fd < 0)
		return fd;
	/* Gone: its root directory, held since we first saw it. */
	snprintf(path, sizeof(path), "/proc/self/fd/%d%.*s", m->root_fd, (int)len, name);
	return open(path, O_RDONLY | O_CLOEXEC);
}

/* ---- its debug files -------------------------------------------------- */

/*
 * Dwfl_Callbacks.find_debuginfo: the object's debug file where gdb looks,
 * in the process's own file tree (debugfile.h); a download from
 * debuginfod only with --debuginfod.
 */
static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			  Dwarf_Addr base, const char *file_name, const char *debuglink_file,
			  GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	const struct usyms_module *m = *userdata;
	const unsigned char *id = NULL;
	char root[48] = "";
	GElf_Addr id_vaddr;
	int len, fd;

	if (m && m->root_fd >= 0)
		snprintf(root, sizeof(root), "/proc/self/fd/%d", m->root_fd);
	len = dwfl_module_build_id(mod, &id, &id_vaddr);
	fd = debugfile_find(root, file_name, id, len, debuglink_file, debuginfo_file_name);
	if (fd >= 0)
		return fd;
	if (debuginfod)
		return dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name,
						    debuglink_file, debuglink_crc,
						    debuginfo_file_name);
	return -1;
}

/*
 * Dwfl_Callbacks.find_elf.  Once the process is gone, only the path is
 * left, as dwfl_linux_proc_find_elf opens it, which also reads the vDSO
 * from /proc/PID/mem.  That is why modules are opened as soon as they are
 * reported (open_module).
 */
static int find_elf(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr base,
		    char **file_name, Elf **elfp)
{
	const struct usyms_module *m = *userdata;
	size_t len;
	int fd;

	if (!m || !m->pid || name[0] != '/')
		return dwfl_linux_proc_find_elf(mod, userdata, name, base, file_name, elfp);
	usymproc_is_deleted(name, &len);
	fd = open_mapped(m, name, len);
	if (fd < 0)
		return dwfl_linux_proc_find_elf(mod, userdata, name, base, file_name, elfp);
	/* The path, not ours: debug files are looked for next to it. */
	*file_name = strndup(name, len);
	if (!*file_name) {
		close(fd);
		return -1;
	}
	return fd;
}

/* ---- reporting to libdwfl --------------------------------------------- */

/*
 * dwfl_linux_proc_maps_report skips the vDSO (it only learns where it is
 * from /proc/PID/auxv); dwfl_linux_proc_find_elf reads a module named
 * "[vdso: PID]" from /proc/PID/mem, as dwfl_linux_proc_report names it.
 */
static int report_vdso(struct usymproc *p, char *text, size_t len)
{
	char *pos = text, *line, name[32];
	struct map_line m;
	int ret = 0;

	while (!ret && (line = next_line(&pos, text + len))) {
		if (!parse_map_line(line, &m) || strcmp(m.name, "[vdso]"))
			continue;
		snprintf(name, sizeof(name), "[vdso: %d]", p->pid);
		if (!dwfl_report_module(p->dwfl, name, m.start, m.end))
			ret = -ENOMEM;
	}
	return ret;
}

/* Reports the modules of filtered maps text; between report begin and end. */
static int report_maps(struct usymproc *p, const char *text, size_t len)
{
	char *copy;
	FILE *f;
	int ret;

	if (!len)
		return 0;
	f = fmemopen((void *)text, len, "r");
	if (!f)
		return -errno;
	ret = dwfl_linux_proc_maps_report(p->dwfl, f);
	fclose(f);
	/* Positive: an errno; negative: libdwfl failed to add a module. */
	if (ret)
		return ret > 0 ? -ret : -ENOMEM;
	copy = malloc(len + 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, text, len);
	copy[len] = '\0';
	ret = report_vdso(p, copy, len);
	free(copy);
	return ret;
}

struct open_arg {
	int pid;
	int root_fd;
	const char *text;	/* the filtered maps reported */
	size_t len;
};

/* The end of the mapping that starts at start, per the maps text. */
static uint64_t vma_end(const char *text, size_t len, uint64_t start)
{
	const char *line = text, *end = text + len;

	while (line < end) {
		const char *nl = memchr(line, '\n', (size_t)(end - line));
		uint64_t s, e;

		if (sscanf(line, "%" SCNx64 "-%" SCNx64, &s, &e) == 2 && s == start)
			return e;
		line = nl ? nl + 1 : end;
	}
	return 0;
}

/*
 * dwfl_getmodules callback after a report: gives each new module our data
 * and opens its file now, while the process still maps it.
 */
static int open_module(Dwfl_Module *mod, void **userdata, const char *name,
		       Dwarf_Addr start, void *arg)
{
	const struct open_arg *a = arg;
	struct usyms_module *m = *userdata;
	Dwarf_Addr bias;

	(void)name;
	if (m)
		return DWARF_CB_OK;
	m = calloc(1, sizeof(*m));
	if (m) {
		m->pid = a->pid;
		m->root_fd = a->root_fd;
		m->vma_start = start;
		m->vma_end = vma_end(a->text, a->len, start);
		*userdata = m;
	}
	dwfl_module_getelf(mod, &bias);
	return DWARF_CB_OK;
}

/*
 * Replaces the modules with those of text.  Modules reported again with
 * the same name and bounds are kept by libdwfl with their ELF and DWARF
 * open, so a dlopen costs only the new library.  On failure the previous
 * modules are reported back, which keeps them the same way.
 */
static int report(struct usymproc *p, const char *text, size_t len)
{
	struct open_arg arg = { p->pid, p->root_fd, text, len };
	int ret;

	dwfl_report_begin(p->dwfl);
	ret = report_maps(p, text, len);
	if (ret) {
		dwfl_report_begin(p->dwfl);
		report_maps(p, p->maps, p->maps_len);
		arg.text = p->maps;
		arg.len = p->maps_len;
	}
	if (dwfl_report_end(p->dwfl, module_removed, NULL) && !ret)
		ret = -ENOMEM;
	dwfl_getmodules(p->dwfl, open_module, &arg, 0);
	if (!ret)
		p->reports++;
	return ret;
}

/* ---- life cycle ------------------------------------------------------- */

static int proc_error(int pid, int ret, struct mt_err *err)
{
	if (ret == -ESRCH)
		return mt_errf(err, ESRCH, "pid %d: no such process", pid);
	return mt_errf(err, -ret, "pid %d: cannot read /proc/%d/maps: %s", pid, pid,
		       strerror(-ret));
}

int usymproc_open(struct usymproc *p, int pid, struct mt_err *err)
{
	char root[64], *maps;
	bool kthread;
	size_t len;
	int ret;

	memset(p, 0, sizeof(*p));
	p->root_fd = -1;
	if (pid <= 0)
		return mt_errf(err, EINVAL, "pid %d: not a process id", pid);
	p->pid = pid;
	ret = read_stat(pid, &p->start_time, &kthread);
	if (!ret && kthread)
		return mt_errf(err, EINVAL, "pid %d is a kernel thread: it has no user stacks",
			       pid);
	if (!ret)
		ret = read_maps(p, &maps, &len);
	if (ret)
		return proc_error(pid, ret, err);
	/* Its files, debug files included, are in its tree (a chroot's, a container's). */
	p->root_fd = open(procfs_path(pid, "root", root, sizeof(root)),
			  O_PATH | O_DIRECTORY | O_CLOEXEC);
	p->dwfl = dwfl_begin(&callbacks);
	if (!p->dwfl) {
		free(maps);
		usymproc_close(p);
		return mt_errf(err, ENOMEM, "cannot start libdwfl: %s", dwfl_errmsg(-1));
	}
	ret = report(p, maps, len);
	if (ret) {
		free(maps);
		usymproc_close(p);
		return mt_errf(err, -ret, "pid %d: cannot report its mappings to libdwfl: %s",
			       pid, strerror(-ret));
	}
	p->maps = maps;
	p->maps_len = len;
	return 0;
}

int usymproc_refresh(struct usymproc *p, bool *changed, struct mt_err *err)
{
	char *maps;
	size_t len;
	int ret;

	*changed = false;
	if (p->gone)
		return mt_errf(err, ESRCH, "pid %d: the process has exited", p->pid);
	ret = read_maps(p, &maps, &len);
	if (ret == -ESRCH) {
		p->gone = true;
		return mt_errf(err, ESRCH, "pid %d: the process has exited", p->pid);
	}
	if (ret)
		return proc_error(p->pid, ret, err);
	if (len == p->maps_len && !memcmp(maps, p->maps, len)) {
		free(maps);
		return 0;
	}
	ret = report(p, maps, len);
	if (ret) {
		free(maps);
		return mt_errf(err, -ret, "pid %d: cannot report its mappings to libdwfl: %s",
			       p->pid, strerror(-ret));
	}
	free(p->maps);
	p->maps = maps;
	p->maps_len = len;
	*changed = true;
	return 0;
}

void usymproc_close(struct usymproc *p)
{
	if (p->dwfl) {
		dwfl_getmodules(p->dwfl, module_free_all, NULL, 0);
		dwfl_end(p->dwfl);
		p->dwfl = NULL;
	}
	if (p->root_fd >= 0)
		close(p->root_fd);
	p->root_fd = -1;
	free(p->maps);
	p->maps = NULL;
}
