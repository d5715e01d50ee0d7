// SPDX-License-Identifier: GPL-2.0
/*
 * probecheck PID: is the code of process PID the code of its files?  A uprobe
 * writes a breakpoint (int3, 0xcc) into the target's own copy of the page it
 * probes; once the probe is gone the original byte must be back.  Tests use
 * this to prove that a reader left no uprobe behind.
 *
 * Checked:
 *   - the libc PID maps defines malloc, calloc, realloc, free and
 *     posix_memalign (.dynsym; file offset = st_value through the PT_LOAD
 *     that contains it), each lies in an executable mapping, and its first
 *     bytes in /proc/PID/mem (mapping start + file offset - mapping offset)
 *     equal those of the file;
 *   - and beyond those: every byte of every file-backed executable mapping
 *     of PID (so a probe anywhere else, e.g. on memalign, mmap, or in an -O
 *     object, is found too).
 *
 * It finds the functions with libelf on its own rather than with
 * memtrace-read's userspace/elfsyms.c on purpose: a test oracle that shared
 * the code under test would agree with its mistakes.
 *
 * Output and exit status:
 *   0  "clean"
 *   1  one line per difference, e.g.
 *        "1234: breakpoint left at malloc (0xcc)"          (libc, at entry)
 *        "1234: breakpoint left at leak_malloc+0x4 [userleak] (0xcc)"
 *        "1234: code modified at ... (0x90 in memory, 0x55 in file)"
 *   2  "probecheck: <message>" on stderr: no such process, no libc mapped
 *      (a static program), unreadable memory or files, ...
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_REPORTS	32

static const char *const required[] = {
	"malloc", "calloc", "realloc", "free", "posix_memalign",
};
/* Other allocator functions a reader may probe: named first when found. */
static const char *const allocators[] = {
	"malloc", "calloc", "realloc", "free", "posix_memalign", "reallocarray",
	"aligned_alloc", "memalign", "valloc", "pvalloc", "mmap", "munmap", "mremap",
};

static int pid;

static void __attribute__((noreturn, format(printf, 1, 2))) fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "probecheck: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

struct mapping {
	uint64_t start, end, offset;
	int exec;
	unsigned long long inode;
	unsigned int dev_major, dev_minor;
	char *path;
};

struct sym {
	uint64_t value, size;
	const char *name;
	int hidden;		/* a non-default version (name@VER) */
};

struct object {
	unsigned long long inode;
	unsigned int dev_major, dev_minor;
	char *path;		/* as /proc/PID/maps names it */
	const char *base;
	int fd;
	uint64_t file_size;
	Elf *elf;
	GElf_Phdr *loads;
	size_t nloads;
	struct sym *syms;
	size_t nsyms;
	int is_libc;
};

static struct mapping *maps;
static size_t nmaps;
static struct object *objs;
static size_t nobjs;
static int mem_fd;
static unsigned int nreports;

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p)
		fail("out of memory");
	return p;
}

static const char *basename_of(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static int is_libc_name(const char *base)
{
	/* libc.so.6 (glibc >= 2.34 and most others), libc-2.31.so (older glibc) */
	return !strncmp(base, "libc.so", 7) ||
	       (!strncmp(base, "libc-", 5) && strstr(base, ".so"));
}

static void read_maps(void)
{
	char fn[64], line[4096];
	FILE *f;

	snprintf(fn, sizeof(fn), "/proc/%d/maps", pid);
	f = fopen(fn, "r");
	if (!f) {
		if (errno == ENOENT)
			fail("%d: no such process", pid);
		fail("%s: %s", fn, strerror(errno));
	}
	while (fgets(line, sizeof(line), f)) {
		struct mapping m = { 0 };
		char perms[8];
		int pos = 0;
		char *p;

		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %x:%x %llu %n",
			   &m.start, &m.end, perms, &m.offset, &m.dev_major, &m.dev_minor,
			   &m.inode, &pos) < 7)
			continue;
		p = line + pos;
		p[strcspn(p, "\n")] = '\0';
		if (p[0] != '/')
			continue;	/* anonymous, [heap], [vdso], ... */
		m.exec = perms[2] == 'x';
		m.path = strdup(p);
		if (!m.path)
			fail("out of memory");
		maps = xrealloc(maps, (nmaps + 1) * sizeof(*maps));
		maps[nmaps++] = m;
	}
	fclose(f);
}

/* Open the file a mapping maps: its map_files link (the very file, even if
 * replaced or deleted since), else its path. */
static int open_mapped(const struct mapping *m)
{
	char fn[128];
	int fd;

	snprintf(fn, sizeof(fn), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, pid, m->start, m->end);
	fd = open(fn, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		fd = open(m->path, O_RDONLY | O_CLOEXEC);
	return fd;
}

static void load_symbols(struct object *o)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(o->elf, scn))) {
		GElf_Shdr sh, vsh;
		Elf_Data *data, *vdata = NULL;
		size_t n;

		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		data = elf_getdata(scn, NULL);
		if (!data || !sh.sh_entsize)
			continue;
		if (sh.sh_type == SHT_DYNSYM) {
			/* versions of .dynsym: the section of type SHT_GNU_versym */
			Elf_Scn *v = NULL;

			while ((v = elf_nextscn(o->elf, v)))
				if (gelf_getshdr(v, &vsh) && vsh.sh_type == SHT_GNU_versym) {
					vdata = elf_getdata(v, NULL);
					break;
				}
		}
		n = sh.sh_size / sh.sh_entsize;
		for (size_t i = 0; i < n; i++) {
			GElf_Sym s;
			GElf_Versym vs;
			const char *name;
			int type;

			if (!gelf_getsym(data, (int)i, &s))
				continue;
			type = GELF_ST_TYPE(s.st_info);
			if ((type != STT_FUNC && type != STT_GNU_IFUNC) || s.st_shndx == SHN_UNDEF ||
			    !s.st_value)
				continue;
			name = elf_strptr(o->elf, sh.sh_link, s.st_name);
			if (!name || !*name)
				continue;
			o->syms = xrealloc(o->syms, (o->nsyms + 1) * sizeof(*o->syms));
			o->syms[o->nsyms].value = s.st_value;
			o->syms[o->nsyms].size = s.st_size;
			o->syms[o->nsyms].name = name;
			o->syms[o->nsyms].hidden =
				vdata && gelf_getversym(vdata, (int)i, &vs) && (vs & 0x8000);
			o->nsyms++;
		}
	}
}

static void open_object(struct object *o, const struct mapping *m)
{
	struct stat st;
	size_t n;
	GElf_Ehdr eh;

	o->fd = open_mapped(m);
	if (o->fd < 0)
		fail("%d: cannot open %s: %s", pid, m->path, strerror(errno));
	if (fstat(o->fd, &st))
		fail("%s: %s", m->path, strerror(errno));
	o->file_size = (uint64_t)st.st_size;
	o->elf = elf_begin(o->fd, ELF_C_READ_MMAP, NULL);
	if (!o->elf || elf_kind(o->elf) != ELF_K_ELF || !gelf_getehdr(o->elf, &eh))
		fail("%s: not an ELF file (%s)", m->path, elf_errmsg(-1));
	if (elf_getphdrnum(o->elf, &n))
		fail("%s: %s", m->path, elf_errmsg(-1));
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(o->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		o->loads = xrealloc(o->loads, (o->nloads + 1) * sizeof(*o->loads));
		o->loads[o->nloads++] = ph;
	}
	load_symbols(o);
}

static struct object *object_of(const struct mapping *m)
{
	struct object *o;

	for (size_t i = 0; i < nobjs; i++)
		if (objs[i].inode == m->inode && objs[i].dev_major == m->dev_major &&
		    objs[i].dev_minor == m->dev_minor && !strcmp(objs[i].path, m->path))
			return &objs[i];
	objs = xrealloc(objs, (nobjs + 1) * sizeof(*objs));
	o = &objs[nobjs++];
	memset(o, 0, sizeof(*o));
	o->inode = m->inode;
	o->dev_major = m->dev_major;
	o->dev_minor = m->dev_minor;
	o->path = m->path;
	o->base = basename_of(m->path);
	o->is_libc = is_libc_name(o->base);
	open_object(o, m);
	return o;
}

static int vaddr_to_offset(const struct object *o, uint64_t vaddr, uint64_t *off)
{
	for (size_t i = 0; i < o->nloads; i++) {
		const GElf_Phdr *ph = &o->loads[i];

		if (vaddr >= ph->p_vaddr && vaddr < ph->p_vaddr + ph->p_filesz) {
			*off = vaddr - ph->p_vaddr + ph->p_offset;
			return 0;
		}
	}
	return -1;
}

static int offset_to_vaddr(const struct object *o, uint64_t off, uint64_t *vaddr)
{
	for (size_t i = 0; i < o->nloads; i++) {
		const GElf_Phdr *ph = &o->loads[i];

		if (off >= ph->p_offset && off < ph->p_offset + ph->p_filesz) {
			*vaddr = off - ph->p_offset + ph->p_vaddr;
			return 0;
		}
	}
	return -1;
}

/* How good a name is for an address: allocator names, then public names. */
static int name_rank(const struct sym *s)
{
	for (size_t i = 0; i < sizeof(allocators) / sizeof(allocators[0]); i++)
		if (!strcmp(s->name, allocators[i]))
			return 0;
	if (s->hidden)
		return 3;
	return s->name[0] == '_' ? 2 : 1;
}

/* "sym" or "sym+0xOFF" for a file offset of o; "0xOFF" if no symbol. */
static void symbolize(const struct object *o, uint64_t off, char *buf, size_t len)
{
	const struct sym *best = NULL;
	uint64_t vaddr;

	if (offset_to_vaddr(o, off, &vaddr)) {
		snprintf(buf, len, "file offset 0x%" PRIx64, off);
		return;
	}
	for (size_t i = 0; i < o->nsyms; i++) {
		const struct sym *s = &o->syms[i];

		if (vaddr < s->value || vaddr - s->value >= (s->size ? s->size : 1))
			continue;
		if (!best || s->value > best->value ||
		    (s->value == best->value && name_rank(s) < name_rank(best)))
			best = s;
	}
	if (!best) {
		/* no symbol covers it: the nearest one before it */
		for (size_t i = 0; i < o->nsyms; i++) {
			const struct sym *s = &o->syms[i];

			if (s->value <= vaddr && (!best || s->value > best->value ||
			    (s->value == best->value && name_rank(s) < name_rank(best))))
				best = s;
		}
	}
	if (!best)
		snprintf(buf, len, "0x%" PRIx64, vaddr);
	else if (vaddr == best->value)
		snprintf(buf, len, "%s", best->name);
	else
		snprintf(buf, len, "%s+0x%" PRIx64, best->name, vaddr - best->value);
}

static void report(const struct object *o, uint64_t off, unsigned char in_mem, unsigned char in_file)
{
	char where[512];

	nreports++;
	if (nreports > MAX_REPORTS) {
		if (nreports == MAX_REPORTS + 1)
			printf("%d: ... (more differences not listed)\n", pid);
		return;
	}
	symbolize(o, off, where, sizeof(where));
	if (!o->is_libc) {
		size_t l = strlen(where);

		snprintf(where + l, sizeof(where) - l, " [%s]", o->base);
	}
	if (in_mem == 0xcc)
		printf("%d: breakpoint left at %s (0x%02x)\n", pid, where, in_mem);
	else
		printf("%d: code modified at %s (0x%02x in memory, 0x%02x in file)\n",
		       pid, where, in_mem, in_file);
}

static void read_exact(int fd, void *buf, size_t len, uint64_t pos, const char *what)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(fd, (char *)buf + done, len - done, (off_t)(pos + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			fail("%d: reading %s at 0x%" PRIx64 ": %s", pid, what, pos + done,
			     strerror(errno));
		if (n == 0)
			fail("%d: reading %s at 0x%" PRIx64 ": unexpected end (did the process exit?)",
			     pid, what, pos + done);
		done += (size_t)n;
	}
}

/* Compare an executable mapping with its file, byte for byte. */
static void compare_mapping(const struct mapping *m, struct object *o)
{
	static unsigned char a[65536], b[65536];
	uint64_t len = m->end - m->start;

	/* the part past the end of the file reads as zeroes: not code */
	if (m->offset >= o->file_size)
		return;
	if (len > o->file_size - m->offset)
		len = o->file_size - m->offset;
	for (uint64_t done = 0; done < len;) {
		size_t chunk = len - done < sizeof(a) ? (size_t)(len - done) : sizeof(a);

		read_exact(mem_fd, a, chunk, m->start + done, "memory");
		read_exact(o->fd, b, chunk, m->offset + done, o->path);
		if (memcmp(a, b, chunk))
			for (size_t i = 0; i < chunk; i++)
				if (a[i] != b[i])
					report(o, m->offset + done + i, a[i], b[i]);
		done += chunk;
	}
}

/* The allocator functions of libc: defined, and mapped executable. */
static void check_libc(struct object *libc)
{
	for (size_t r = 0; r < sizeof(required) / sizeof(required[0]); r++) {
		const struct sym *s = NULL;
		uint64_t off;
		int mapped = 0;

		for (size_t i = 0; i < libc->nsyms; i++)
			if (!strcmp(libc->syms[i].name, required[r]) &&
			    (!s || (s->hidden && !libc->syms[i].hidden)))
				s = &libc->syms[i];
		if (!s)
			fail("%s: defines no %s", libc->path, required[r]);
		if (vaddr_to_offset(libc, s->value, &off))
			fail("%s: %s (0x%" PRIx64 ") is in no PT_LOAD segment", libc->path,
			     required[r], s->value);
		for (size_t i = 0; i < nmaps; i++) {
			const struct mapping *m = &maps[i];

			if (m->exec && !strcmp(m->path, libc->path) && m->inode == libc->inode &&
			    off >= m->offset && off < m->offset + (m->end - m->start))
				mapped = 1;
		}
		if (!mapped)
			fail("%d: %s of %s (file offset 0x%" PRIx64 ") is not mapped executable",
			     pid, required[r], libc->path, off);
	}
}

int main(int argc, char **argv)
{
	char fn[64], *end;
	struct object *libc = NULL;
	long v;

	if (argc != 2) {
		fprintf(stderr, "usage: probecheck PID\n");
		return 2;
	}
	errno = 0;
	v = strtol(argv[1], &end, 10);
	if (errno || end == argv[1] || *end || v <= 0 || v > 0x7fffffff)
		fail("invalid PID '%s'", argv[1]);
	pid = (int)v;
	if (elf_version(EV_CURRENT) == EV_NONE)
		fail("libelf: %s", elf_errmsg(-1));

	read_maps();
	for (size_t i = 0; i < nmaps; i++)
		if (is_libc_name(basename_of(maps[i].path))) {
			libc = object_of(&maps[i]);
			break;
		}
	if (!libc)
		fail("%d maps no libc (a static program, a kernel thread, or a zombie?)", pid);
	check_libc(libc);

	snprintf(fn, sizeof(fn), "/proc/%d/mem", pid);
	mem_fd = open(fn, O_RDONLY | O_CLOEXEC);
	if (mem_fd < 0)
		fail("%s: %s", fn, strerror(errno));
	for (size_t i = 0; i < nmaps; i++)
		if (maps[i].exec)
			compare_mapping(&maps[i], object_of(&maps[i]));

	if (nreports)
		return 1;
	printf("clean\n");
	return 0;
}
