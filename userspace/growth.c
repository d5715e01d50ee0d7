// SPDX-License-Identifier: GPL-2.0
/*
 * --mmap, --brk and --shm; see growth.h.  The session: configure the
 * module for the mode's growth events with the task filters (-p's
 * process, -c's command, --by-comm, --by-cgroup), start, then sleep in
 * poll(2) on the device (the event rings' wake-up), a signalfd and the
 * command's events, printing each call as it comes (--mmap, --shm) or
 * counting it under its process and user stack for the reports (--brk,
 * --mmap --stacks).
 */
#include "growth.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include "device.h"
#include "evjson.h"
#include "evreader.h"
#include "fmt.h"
#include "util.h"
#include "report.h"
#include "rmodel.h"
#include "spawn.h"
#include "usdt.h"
#include "usermode.h"
#include "usyms.h"

#define PROG "memtrace-read"

/* ---- formatting ---- */

void growth_prot_str(uint64_t prot, char out[4])
{
	out[0] = prot & PROT_READ ? 'R' : '-';
	out[1] = prot & PROT_WRITE ? 'W' : '-';
	out[2] = prot & PROT_EXEC ? 'E' : '-';
	out[3] = '\0';
}

void growth_map_str(uint64_t flags, char out[5])
{
	out[0] = flags & MAP_SHARED ? 'S' : '-';
	out[1] = flags & MAP_PRIVATE ? 'P' : '-';
	out[2] = flags & MAP_FIXED ? 'F' : '-';
	out[3] = flags & MAP_ANONYMOUS ? 'A' : '-';
	out[4] = '\0';
}

/* Appends "NAME" (with '|' before all but the first) for each flag set in v. */
static void flag_names(char *buf, size_t len, size_t *at, uint64_t *v, uint64_t flag,
		       const char *name)
{
	if (!(*v & flag) || *at >= len)
		return;
	*at += snprintf(buf + *at, len - *at, "%s%s", *at ? "|" : "", name);
	*v &= ~flag;
}

void growth_shmflg_str(uint64_t flags, bool shmget, char *buf, size_t len)
{
	uint64_t v = flags;
	size_t at = 0;

	buf[0] = '\0';
	if (shmget) {
		flag_names(buf, len, &at, &v, IPC_CREAT, "IPC_CREAT");
		flag_names(buf, len, &at, &v, IPC_EXCL, "IPC_EXCL");
		flag_names(buf, len, &at, &v, SHM_HUGETLB, "SHM_HUGETLB");
		flag_names(buf, len, &at, &v, SHM_NORESERVE, "SHM_NORESERVE");
		/* The permission bits, octal as chmod takes them. */
		if (at < len)
			at += snprintf(buf + at, len - at, "%s%04" PRIo64, at ? "|" : "", v & 0777);
		v &= ~(uint64_t)0777;
	} else {
		flag_names(buf, len, &at, &v, SHM_RDONLY, "SHM_RDONLY");
		flag_names(buf, len, &at, &v, SHM_RND, "SHM_RND");
		flag_names(buf, len, &at, &v, SHM_REMAP, "SHM_REMAP");
		flag_names(buf, len, &at, &v, SHM_EXEC, "SHM_EXEC");
	}
	if (v && at < len)
		snprintf(buf + at, len - at, "%s0x%" PRIx64, at ? "|" : "", v);
}

/* A name from a record: at most MEMTRACE_COMM_LEN bytes, maybe unterminated. */
static void comm_of(char *dst, const char *src)
{
	memcpy(dst, src, MEMTRACE_COMM_LEN);
	dst[MEMTRACE_COMM_LEN] = '\0';
}

static void file_of(char *dst, const struct memtrace_ev_syscall *r)
{
	if (r->flags & MEMTRACE_SYSCALL_FILE_UNKNOWN) {
		strcpy(dst, "?");
		return;
	}
	memcpy(dst, r->file, MEMTRACE_FILE_NAME_LEN);
	dst[MEMTRACE_FILE_NAME_LEN] = '\0';
}

/* " = 0x..." for a result, or " (error: ENAME)" for a failure. */
static void result_str(int64_t ret, char *buf, size_t len)
{
	if (ret < 0 && ret > -4096)
		snprintf(buf, len, " (failed: %s)", strerrorname_np((int)-ret) ?
			 strerrorname_np((int)-ret) : "?");
	else
		snprintf(buf, len, " = 0x%" PRIx64, (uint64_t)ret);
}

const char *growth_header(enum mt_mode mode)
{
	if (mode == MT_MODE_USDT)
		return "TIME(s)      PID     TID     COMM             PROBE                    ARGS";
	if (mode == MT_MODE_SHM)
		return "PID    COMM                SYS              RET ARGs";
	return "PID    COMM             PROT MAP   OFFS(KB) SIZE(KB) FILE";
}

static const char *shm_name(uint16_t type)
{
	switch (type) {
	case MEMTRACE_EVT_SHMGET:
		return "SHMGET";
	case MEMTRACE_EVT_SHMAT:
		return "SHMAT";
	case MEMTRACE_EVT_SHMDT:
		return "SHMDT";
	default:
		return "SHMCTL";
	}
}

bool growth_format_call(char *buf, size_t len, const struct memtrace_ev_syscall *r)
{
	char comm[MEMTRACE_COMM_LEN + 1], file[MEMTRACE_FILE_NAME_LEN + 1], res[64];
	char prot[4], map[5], flg[96], retbuf[32];
	uint64_t a[6];

	for (int i = 0; i < 6; i++)
		a[i] = r->args[i];
	comm_of(comm, r->comm);
	switch (r->hdr.type) {
	case MEMTRACE_EVT_MMAP:
		growth_prot_str(a[2], prot);
		growth_map_str(a[3], map);
		file_of(file, r);
		result_str(r->ret, res, sizeof(res));
		/* mmapsnoop's columns; the result after them, where a file name may end. */
		snprintf(buf, len, "%-6" PRIu32 " %-16s %-4s %-4s %9" PRIu64 " %8" PRIu64 " %s%s%s",
			 r->pid, comm, prot, map, a[5] / 1024, a[1] / 1024, file,
			 file[0] ? " " : "", res + 1);
		return true;
	case MEMTRACE_EVT_MUNMAP:
		result_str(r->ret ? r->ret : 0, res, sizeof(res));
		snprintf(buf, len, "%-6" PRIu32 " %-16s %-9s %9s %8" PRIu64 " addr 0x%" PRIx64 "%s",
			 r->pid, comm, "munmap", "-", a[1] / 1024, a[0],
			 r->ret ? res : "");
		return true;
	case MEMTRACE_EVT_MREMAP:
		file_of(file, r);
		result_str(r->ret, res, sizeof(res));
		snprintf(buf, len, "%-6" PRIu32 " %-16s %-9s %9" PRIu64 " %8" PRIu64
			 " %s%saddr 0x%" PRIx64 " flags 0x%" PRIx64 "%s",
			 r->pid, comm, "mremap", a[1] / 1024, a[2] / 1024, file,
			 file[0] ? " " : "", a[0], a[3], res);
		return true;
	case MEMTRACE_EVT_SHMGET:
	case MEMTRACE_EVT_SHMAT:
	case MEMTRACE_EVT_SHMDT:
	case MEMTRACE_EVT_SHMCTL:
		break;
	default:
		return false;
	}
	if (r->ret < 0)
		snprintf(retbuf, sizeof(retbuf), "%" PRId64, (int64_t)r->ret);
	else
		snprintf(retbuf, sizeof(retbuf), "%" PRIx64, (uint64_t)r->ret);
	switch (r->hdr.type) {
	case MEMTRACE_EVT_SHMGET:
		growth_shmflg_str(a[2], true, flg, sizeof(flg));
		snprintf(buf, len, "%-6" PRIu32 " %-16s %6s %16s key: 0x%" PRIx64 ", size: %" PRIu64
			 ", shmflg: 0x%" PRIx64 " (%s)", r->pid, comm, shm_name(r->hdr.type), retbuf,
			 (uint64_t)(uint32_t)a[0], a[1], (uint64_t)(uint32_t)a[2], flg);
		break;
	case MEMTRACE_EVT_SHMAT:
		growth_shmflg_str(a[2], false, flg, sizeof(flg));
		snprintf(buf, len, "%-6" PRIu32 " %-16s %6s %16s shmid: 0x%" PRIx64 ", shmaddr: 0x%"
			 PRIx64 ", shmflg: 0x%" PRIx64 "%s%s%s", r->pid, comm, shm_name(r->hdr.type),
			 retbuf, (uint64_t)(uint32_t)a[0], a[1], (uint64_t)(uint32_t)a[2],
			 flg[0] ? " (" : "", flg, flg[0] ? ")" : "");
		break;
	case MEMTRACE_EVT_SHMDT:
		snprintf(buf, len, "%-6" PRIu32 " %-16s %6s %16s shmaddr: 0x%" PRIx64, r->pid, comm,
			 shm_name(r->hdr.type), retbuf, a[0]);
		break;
	default:
		snprintf(buf, len, "%-6" PRIu32 " %-16s %6s %16s shmid: 0x%" PRIx64 ", cmd: %" PRIu64
			 ", buf: 0x%" PRIx64, r->pid, comm, shm_name(r->hdr.type), retbuf,
			 (uint64_t)(uint32_t)a[0], (uint64_t)(uint32_t)a[1], a[2]);
		break;
	}
	return true;
}

uint64_t growth_bytes(const struct memtrace_ev_syscall *r)
{
	switch (r->hdr.type) {
	case MEMTRACE_EVT_BRK:
		/* args[1]: the break before; ret: the break after. */
		return (uint64_t)r->ret > r->args[1] ? (uint64_t)r->ret - r->args[1] : 0;
	case MEMTRACE_EVT_MMAP:
		return r->ret < 0 && r->ret > -4096 ? 0 : r->args[1];
	case MEMTRACE_EVT_MREMAP:
		if (r->ret < 0 && r->ret > -4096)
			return 0;
		return r->args[2] > r->args[1] ? r->args[2] - r->args[1] : 0;
	default:
		return 0;
	}
}

static const char *call_name(uint16_t type)
{
	switch (type) {
	case MEMTRACE_EVT_MMAP:
		return "mmap";
	case MEMTRACE_EVT_MUNMAP:
		return "munmap";
	case MEMTRACE_EVT_MREMAP:
		return "mremap";
	case MEMTRACE_EVT_BRK:
		return "brk";
	case MEMTRACE_EVT_SHMGET:
		return "shmget";
	case MEMTRACE_EVT_SHMAT:
		return "shmat";
	case MEMTRACE_EVT_SHMDT:
		return "shmdt";
	default:
		return "shmctl";
	}
}

static json_t *hex_json(uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%" PRIx64, v);
	return json_string(buf);
}

json_t *growth_call_json(const struct memtrace_ev_syscall *r, const char *mode, const char *hms)
{
	json_t *rec = evjson_record(mode, call_name(r->hdr.type), hms), *args = json_array(), *more;
	const char *errname = r->ret < 0 && r->ret > -4096 ? strerrorname_np((int)-r->ret) : NULL;
	bool failed = r->ret < 0 && r->ret > -4096;
	char file[MEMTRACE_FILE_NAME_LEN + 1], a_prot[4], a_map[5], flg[96];
	const uint64_t *a = (const uint64_t *)r->args;

	if (!rec)
		return NULL;
	for (int i = 0; args && i < 6; i++)
		json_array_append_new(args, hex_json(a[i]));
	memcpy(file, r->file, MEMTRACE_FILE_NAME_LEN);
	file[MEMTRACE_FILE_NAME_LEN] = '\0';
	if (json_object_update_new(rec, json_pack(
		"{s:o, s:I, s:I, s:o, s:o, s:I, s:o}",
		"monotonic_ns", evjson_u64(r->ts_ns), "pid", (json_int_t)r->pid,
		"tid", (json_int_t)r->tid, "comm", evjson_comm(r->comm),
		"args", args ? args : json_array(), "ret", (json_int_t)r->ret,
		"error", failed ? json_string(errname ? errname : "?") : json_null()))) {
		json_decref(rec);
		return NULL;
	}
	switch (r->hdr.type) {
	case MEMTRACE_EVT_MMAP:
		growth_prot_str(a[2], a_prot);
		growth_map_str(a[3], a_map);
		more = json_pack("{s:o, s:o, s:s, s:s, s:o, s:o, s:o}",
				 "address", failed ? json_null() : hex_json((uint64_t)r->ret),
				 "length", evjson_u64(a[1]), "prot", a_prot, "map", a_map,
				 "offset", evjson_u64(a[5]),
				 "file", file[0] ? json_string(file) : json_null(),
				 "file_unknown",
				 json_boolean(r->flags & MEMTRACE_SYSCALL_FILE_UNKNOWN));
		break;
	case MEMTRACE_EVT_MUNMAP:
		more = json_pack("{s:o, s:o}", "address", hex_json(a[0]), "length", evjson_u64(a[1]));
		break;
	case MEMTRACE_EVT_MREMAP:
		more = json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "old_address", hex_json(a[0]),
				 "old_length", evjson_u64(a[1]), "new_length", evjson_u64(a[2]),
				 "flags", evjson_u64(a[3]),
				 "address", failed ? json_null() : hex_json((uint64_t)r->ret),
				 "file", file[0] ? json_string(file) : json_null(),
				 "file_unknown",
				 json_boolean(r->flags & MEMTRACE_SYSCALL_FILE_UNKNOWN));
		break;
	case MEMTRACE_EVT_BRK:
		more = json_pack("{s:o, s:o, s:o}", "requested", hex_json(a[0]),
				 "break_before", hex_json(a[1]),
				 "grown", evjson_u64(growth_bytes(r)));
		break;
	case MEMTRACE_EVT_SHMGET:
		growth_shmflg_str(a[2], true, flg, sizeof(flg));
		more = json_pack("{s:o, s:o, s:o, s:s}", "key", hex_json((uint32_t)a[0]),
				 "size", evjson_u64(a[1]), "shmflg", hex_json((uint32_t)a[2]),
				 "shmflg_text", flg);
		break;
	case MEMTRACE_EVT_SHMAT:
		growth_shmflg_str(a[2], false, flg, sizeof(flg));
		more = json_pack("{s:o, s:o, s:o, s:s}", "shmid", hex_json((uint32_t)a[0]),
				 "shmaddr", hex_json(a[1]), "shmflg", hex_json((uint32_t)a[2]),
				 "shmflg_text", flg);
		break;
	case MEMTRACE_EVT_SHMDT:
		more = json_pack("{s:o}", "shmaddr", hex_json(a[0]));
		break;
	default:
		more = json_pack("{s:o, s:o, s:o}", "shmid", hex_json((uint32_t)a[0]),
				 "cmd", evjson_u64((uint32_t)a[1]), "buf", hex_json(a[2]));
		break;
	}
	if (json_object_update_new(rec, more)) {
		json_decref(rec);
		return NULL;
	}
	return rec;
}

/* ---- totals by process and stack ---- */

#define AGG_MAX_ENTRIES	(1U << 20)

struct growth_agg {
	struct growth_entry **entries;
	size_t nr, cap;
	uint32_t *buckets;	/* index + 1 into entries; 0: empty (open addressing) */
	size_t nr_buckets;
	const struct growth_entry **sorted;
};

struct growth_agg *growth_agg_new(void)
{
	return calloc(1, sizeof(struct growth_agg));
}

void growth_agg_free(struct growth_agg *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->nr; i++)
		free(a->entries[i]);
	free(a->entries);
	free(a->buckets);
	free(a->sorted);
	free(a);
}

static uint64_t agg_hash(uint32_t pid, const char *comm, const uint64_t *frames, uint32_t nr)
{
	uint64_t h = 1469598103934665603ULL ^ pid;

	for (size_t i = 0; comm[i]; i++)
		h = (h ^ (uint8_t)comm[i]) * 1099511628211ULL;
	for (uint32_t i = 0; i < nr; i++)
		h = (h ^ frames[i]) * 1099511628211ULL;
	return h ^ (h >> 29);
}

static bool agg_same(const struct growth_entry *e, uint32_t pid, const char *comm,
		     const uint64_t *frames, uint32_t nr)
{
	return e->pid == pid && e->nr_frames == nr && !strcmp(e->comm, comm) &&
	       !memcmp(e->frames, frames, nr * sizeof(*frames));
}

static int agg_rehash(struct growth_agg *a, size_t nr_buckets)
{
	uint32_t *b = calloc(nr_buckets, sizeof(*b));

	if (!b)
		return -ENOMEM;
	for (size_t i = 0; i < a->nr; i++) {
		const struct growth_entry *e = a->entries[i];
		size_t at = agg_hash(e->pid, e->comm, e->frames, e->nr_frames) & (nr_buckets - 1);

		while (b[at])
			at = (at + 1) & (nr_buckets - 1);
		b[at] = (uint32_t)i + 1;
	}
	free(a->buckets);
	a->buckets = b;
	a->nr_buckets = nr_buckets;
	return 0;
}

/* Counts one call (or fault) of pid, comm and its stack. */
static int agg_count(struct growth_agg *a, uint32_t pid, const char *rcomm,
		     const uint64_t *frames, uint32_t nr, uint64_t bytes, uint64_t major)
{
	char comm[MEMTRACE_COMM_LEN + 1];
	struct growth_entry *e;
	size_t at;

	if (nr > MEMTRACE_MAX_FRAMES)
		nr = MEMTRACE_MAX_FRAMES;
	comm_of(comm, rcomm);
	if (!a->nr_buckets || (a->nr + 1) * 2 > a->nr_buckets) {
		if (agg_rehash(a, a->nr_buckets ? a->nr_buckets * 2 : 256))
			return -ENOMEM;
	}
	at = agg_hash(pid, comm, frames, nr) & (a->nr_buckets - 1);
	for (; a->buckets[at]; at = (at + 1) & (a->nr_buckets - 1)) {
		e = a->entries[a->buckets[at] - 1];
		if (agg_same(e, pid, comm, frames, nr))
			goto count;
	}
	if (a->nr == AGG_MAX_ENTRIES)
		return -ENOMEM;
	if (a->nr == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 64;
		void *p = realloc(a->entries, cap * sizeof(*a->entries));

		if (!p)
			return -ENOMEM;
		a->entries = p;
		a->cap = cap;
	}
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->pid = pid;
	memcpy(e->comm, comm, sizeof(e->comm));
	e->nr_frames = nr;
	memcpy(e->frames, frames, nr * sizeof(*frames));
	a->entries[a->nr++] = e;
	a->buckets[at] = (uint32_t)a->nr;
count:
	e->calls++;
	e->bytes += bytes;
	e->major += major;
	return 0;
}

/* The frames a record of hdr_size bytes really holds, of the nr it claims. */
static uint32_t frames_in(uint32_t nr, uint32_t size, size_t hdr_size)
{
	return nr > (size - hdr_size) / sizeof(uint64_t) ?
	       (uint32_t)((size - hdr_size) / sizeof(uint64_t)) : nr;
}

int growth_agg_add(struct growth_agg *a, const struct memtrace_ev_syscall *r, uint64_t bytes)
{
	return agg_count(a, r->pid, r->comm, (const uint64_t *)(r + 1),
			 frames_in(r->nr_frames, r->hdr.size, sizeof(*r)), bytes, 0);
}

int growth_agg_add_usdt(struct growth_agg *a, const struct memtrace_ev_usdt *r)
{
	return agg_count(a, r->pid, r->comm, (const uint64_t *)(r + 1),
			 frames_in(r->nr_frames, r->hdr.size, sizeof(*r)), 0, 0);
}

int growth_agg_add_fault(struct growth_agg *a, const struct memtrace_ev_fault *r)
{
	return agg_count(a, r->pid, r->comm, (const uint64_t *)(r + 1),
			 frames_in(r->nr_frames, r->hdr.size, sizeof(*r)), 0,
			 !!(r->flags & MEMTRACE_FAULT_MAJOR));
}

/* ---- --ffaults: by file ---- */

#define FILES_MAX	(1U << 16)

struct growth_files {
	struct growth_file *files;
	size_t nr, cap;
	uint64_t anon_minor, anon_major;
	const struct growth_file **sorted;
};

struct growth_files *growth_files_new(void)
{
	return calloc(1, sizeof(struct growth_files));
}

void growth_files_free(struct growth_files *f)
{
	if (!f)
		return;
	free(f->files);
	free(f->sorted);
	free(f);
}

int growth_files_add(struct growth_files *f, const struct memtrace_ev_fault *r)
{
	bool major = r->flags & MEMTRACE_FAULT_MAJOR;
	char name[MEMTRACE_FILE_NAME_LEN + 1];
	struct growth_file *g = NULL;

	memcpy(name, r->file, MEMTRACE_FILE_NAME_LEN);
	name[MEMTRACE_FILE_NAME_LEN] = '\0';
	if (!name[0]) {
		*(major ? &f->anon_major : &f->anon_minor) += 1;
		return 0;
	}
	/* Few files fault: a program's libraries and data. */
	for (size_t i = 0; i < f->nr && !g; i++)
		if (!strcmp(f->files[i].name, name))
			g = &f->files[i];
	if (!g) {
		if (f->nr == FILES_MAX)
			return -ENOMEM;
		if (f->nr == f->cap) {
			size_t cap = f->cap ? f->cap * 2 : 64;
			void *p = realloc(f->files, cap * sizeof(*f->files));

			if (!p)
				return -ENOMEM;
			f->files = p;
			f->cap = cap;
		}
		g = &f->files[f->nr++];
		memset(g, 0, sizeof(*g));
		memcpy(g->name, name, sizeof(g->name));
	}
	*(major ? &g->major : &g->minor) += 1;
	return 0;
}

static int file_cmp(const void *x, const void *y)
{
	const struct growth_file *a = *(const struct growth_file *const *)x;
	const struct growth_file *b = *(const struct growth_file *const *)y;
	uint64_t ta = a->minor + a->major, tb = b->minor + b->major;

	if (ta != tb)
		return ta > tb ? -1 : 1;
	return strcmp(a->name, b->name);
}

const struct growth_file *const *growth_files_sorted(struct growth_files *f, size_t *n,
						     uint64_t *anon_minor, uint64_t *anon_major)
{
	const struct growth_file **s = realloc(f->sorted, (f->nr ? f->nr : 1) * sizeof(*s));

	*n = 0;
	*anon_minor = f->anon_minor;
	*anon_major = f->anon_major;
	if (!s)
		return NULL;
	f->sorted = s;
	for (size_t i = 0; i < f->nr; i++)
		s[i] = &f->files[i];
	qsort(s, f->nr, sizeof(*s), file_cmp);
	*n = f->nr;
	return s;
}

static int entry_cmp(const void *x, const void *y)
{
	const struct growth_entry *a = *(const struct growth_entry *const *)x;
	const struct growth_entry *b = *(const struct growth_entry *const *)y;

	if (a->bytes != b->bytes)
		return a->bytes > b->bytes ? -1 : 1;
	if (a->calls != b->calls)
		return a->calls > b->calls ? -1 : 1;
	return a->pid < b->pid ? -1 : a->pid > b->pid;
}

const struct growth_entry *const *growth_agg_sorted(struct growth_agg *a, size_t *n)
{
	const struct growth_entry **s = realloc(a->sorted, (a->nr ? a->nr : 1) * sizeof(*s));

	*n = 0;
	if (!s)
		return NULL;
	a->sorted = s;
	memcpy(s, a->entries, a->nr * sizeof(*s));
	qsort(s, a->nr, sizeof(*s), entry_cmp);
	*n = a->nr;
	return s;
}

/* ---- symbols: one usyms per process seen ---- */

#define SYM_PROCS	256

struct sym_proc {
	int pid;		/* 0: free */
	struct usyms *u;	/* NULL: could not be read (gone already) */
	uint64_t drain;		/* the drain that last read its mappings */
};

/* A stack's frames, inlined calls frames of their own: innermost first. */
#define STACK_LINES	(MEMTRACE_MAX_FRAMES * 4)
/* A frame's line in the text report (and its text in --json), cut to fit. */
#define LINE_LEN	256

struct growth {
	const struct mt_options *o;
	FILE *text;			/* the text report: stdout, or NULL (--json, --folded on it) */
	struct evjson_out json;		/* --json */
	int64_t mono_to_real_ns;	/* the calls' wall clock times */
	struct rm_frame stack[STACK_LINES];	/* stack_frames()'s; strings: usyms' */
	struct growth_agg *agg;
	struct growth_files *files;	/* --ffaults */
	uint64_t major;			/* --faults: the major ones of calls */
	struct sym_proc syms[SYM_PROCS];
	unsigned int nr_syms;
	uint64_t agg_full;
	uint64_t calls, printed_at;
	uint64_t drains;	/* drains of the rings so far */
	/* -p/-c: the unwind tables handed over for the stacks (um NULL: frame pointers only) */
	struct usermode *um;
	bool warned_32bit;
	/* --usdt: the probe's sites, what the hits' times count from */
	struct usdt_site usdt[MEMTRACE_MAX_USDT];
	int nr_usdt;
	char usdt_label[2 * USDT_NAME_LEN + 2];	/* PROVIDER:NAME */
	uint64_t start_ns;
	uint64_t arg_faults;	/* hits with an argument whose memory could not be read */
	/* --pprof, --prometheus, --svg: the losses they report, and whether one failed */
	struct mt_device *dev;
	const struct evreader *er;
	bool write_failed;
};

static struct sym_proc *sym_of(struct growth *g, int pid, bool make)
{
	struct mt_err err;

	for (unsigned int i = 0; i < g->nr_syms; i++)
		if (g->syms[i].pid == pid)
			return &g->syms[i];
	if (!make || g->nr_syms == SYM_PROCS)
		return NULL;
	g->syms[g->nr_syms].pid = pid;
	if (usyms_new(pid, &g->syms[g->nr_syms].u, &err))
		g->syms[g->nr_syms].u = NULL;
	/* Read now: in this drain, or (-p) before the first. */
	g->syms[g->nr_syms].drain = g->drains;
	return &g->syms[g->nr_syms++];
}

/* The process may have mapped code since its symbols were read (a dlopen, an exec). */
static void sym_refresh(struct growth *g, int pid)
{
	struct sym_proc *s = sym_of(g, pid, true);
	struct mt_err err;

	if (s && s->u)
		usyms_refresh(s->u, &err);
	if (s)
		s->drain = g->drains;
}

/*
 * A process with calls in this drain: read its mappings again if they
 * were read before it (an exec, a dlopen since), while it is there; once
 * per drain, however many calls it made.  -p reads the target's at
 * attach, so its first drain with calls reads them again: a library it
 * dlopen()s then waits in is named even if its next calls are drained
 * only once it has exited (its maps gone).
 */
static void sym_seen(struct growth *g, int pid)
{
	struct sym_proc *s = sym_of(g, pid, true);
	struct mt_err err;

	if (!s || s->drain == g->drains)
		return;
	if (s->u)
		usyms_refresh(s->u, &err);
	s->drain = g->drains;
}

/* Modes that count and report at intervals rather than print each call. */
static bool stack_mode(const struct mt_options *o)
{
	return o->mode == MT_MODE_BRK || o->mode == MT_MODE_FAULTS ||
	       (o->mode == MT_MODE_MMAP && o->stacks);
}

/* Modes that count by user stack: their processes' symbols are read while they run. */
static bool counts_stacks(const struct mt_options *o)
{
	return stack_mode(o) || o->mode == MT_MODE_USDT;
}

/* Modes that show the user stacks of system calls, faults and probe hits (the module walks them). */
static bool shows_call_stacks(const struct mt_options *o)
{
	return counts_stacks(o) || (o->mode == MT_MODE_SHM && o->stacks);
}

static bool report_mode(const struct mt_options *o)
{
	return stack_mode(o) || o->mode == MT_MODE_FFAULTS;
}

/*
 * --shm --stacks prints each call with its stack, and counts the calls by
 * stack too for the formats that render counts (--folded, --pprof...).
 */
static bool shm_counts(const struct mt_options *o)
{
	return o->mode == MT_MODE_SHM && o->stacks;
}

/* Modes whose reports come at intervals and at the end (--usdt's: at the end). */
static bool interval_reports(const struct mt_options *o)
{
	return report_mode(o) || shm_counts(o);
}

/* The frames of a stack into g->stack (innermost first); their number. */
static size_t stack_frames(struct growth *g, uint32_t pid, const uint64_t *frames, uint32_t nr)
{
	struct sym_proc *s = sym_of(g, (int)pid, false);
	size_t at = 0;

	for (uint32_t i = 0; i < nr && at < STACK_LINES; i++) {
		size_t n = 0, max = STACK_LINES - at < 8 ? STACK_LINES - at : 8;

		if (s && s->u)
			n = usyms_frames(s->u, frames[i], &g->stack[at], max);
		if (!n) {
			g->stack[at] = (struct rm_frame){ .addr = frames[i] };
			n = 1;
		}
		at += n;
	}
	return at;
}

/* Frame l of g->stack with its text, the text report's line, in line (LINE_LEN bytes). */
static struct rm_frame stack_frame(const struct growth *g, size_t l, char *line)
{
	struct rm_frame f = g->stack[l];

	f.text = rm_frame_text(&f, line, LINE_LEN);
	return f;
}

static void print_stack(struct growth *g, uint32_t pid, const uint64_t *frames, uint32_t nr)
{
	size_t n = stack_frames(g, pid, frames, nr);
	char line[LINE_LEN];

	for (size_t l = 0; l < n; l++)
		fprintf(g->text, "\t\t%s\n", stack_frame(g, l, line).text);
	if (!n)
		fprintf(g->text, "\t\t[no user stack]\n");
}

/* The same stack as --json's frames. */
static json_t *stack_json(struct growth *g, uint32_t pid, const uint64_t *frames, uint32_t nr)
{
	size_t n = stack_frames(g, pid, frames, nr);
	json_t *a = json_array();
	char line[LINE_LEN];

	for (size_t l = 0; a && l < n; l++) {
		struct rm_frame f = stack_frame(g, l, line);

		json_array_append_new(a, fmt_json_frame(&f));
	}
	return a;
}

/* One folded line: the process's name, then the stack root first, and value. */
static void fold_stack(struct growth *g, FILE *out, const struct growth_entry *e,
		       uint64_t value)
{
	size_t n = stack_frames(g, e->pid, e->frames, e->nr_frames);
	char name[512];

	fputs(fmt_frame_name(&(struct rm_frame){ .function = (char *)e->comm }, name,
			     sizeof(name)), out);
	if (!n)
		fputs(";[no user stack]", out);
	while (n-- > 0)
		fprintf(out, ";%s", fmt_frame_name(&g->stack[n], name, sizeof(name)));
	fprintf(out, " %" PRIu64 "\n", value);
}

/*
 * What a stack report counts for an entry: bytes (--brk, --mmap --stacks),
 * faults, hits or calls (--shm --stacks).
 */
static uint64_t entry_value(const struct growth *g, const struct growth_entry *e)
{
	return g->o->mode == MT_MODE_FAULTS || g->o->mode == MT_MODE_USDT ||
	       g->o->mode == MT_MODE_SHM ? e->calls : e->bytes;
}

/* --folded: the report's stacks (--ffaults: files), one line each. */
static int fold_report(FILE *out, void *ctx)
{
	struct growth *g = ctx;
	size_t n;

	if (g->o->mode == MT_MODE_FFAULTS) {
		const struct growth_file *const *f;
		uint64_t amin, amaj;
		char name[512];

		f = growth_files_sorted(g->files, &n, &amin, &amaj);
		for (size_t i = 0; f && i < n && i < g->o->top; i++)
			fprintf(out, "%s %" PRIu64 "\n",
				fmt_frame_name(&(struct rm_frame){ .function = (char *)f[i]->name },
					       name, sizeof(name)), f[i]->minor + f[i]->major);
		if (amin + amaj)
			fprintf(out, "[anonymous memory] %" PRIu64 "\n", amin + amaj);
	} else {
		const struct growth_entry *const *s = growth_agg_sorted(g->agg, &n);

		for (size_t i = 0; s && i < n && i < g->o->top; i++)
			fold_stack(g, out, s[i], entry_value(g, s[i]));
	}
	return ferror(out) ? -EIO : 0;
}

static int fold_report_file(FILE *out, const void *ctx, struct mt_err *err)
{
	int ret = fold_report(out, (void *)ctx);

	return ret ? mt_errf(err, -ret, "cannot write the folded stacks") : 0;
}

static json_t *report_json(struct growth *g, const char *hms)
{
	json_t *rec = evjson_record(evjson_mode_name(g->o->mode), "report", hms), *a = json_array();
	size_t n;

	if (!rec || !a)
		goto fail;
	if (g->o->mode == MT_MODE_FFAULTS) {
		const struct growth_file *const *f;
		uint64_t amin, amaj;

		f = growth_files_sorted(g->files, &n, &amin, &amaj);
		for (size_t i = 0; f && i < n && i < g->o->top; i++)
			json_array_append_new(a, json_pack("{s:s, s:o, s:o}", "file", f[i]->name,
							   "minor", evjson_u64(f[i]->minor),
							   "major", evjson_u64(f[i]->major)));
		if (json_object_update_new(rec, json_pack(
			"{s:o, s:o, s:o, s:{s:o, s:o}, s:o}", "faults", evjson_u64(g->calls),
			"major", evjson_u64(g->major), "files", a,
			"anonymous", "minor", evjson_u64(amin), "major", evjson_u64(amaj),
			"untracked", evjson_u64(g->agg_full))))
			goto fail_rec;
		return rec;
	}
	if (g->o->mode == MT_MODE_USDT) {
		const struct growth_entry *const *s = growth_agg_sorted(g->agg, &n);

		for (size_t i = 0; s && i < n && i < g->o->top; i++)
			json_array_append_new(a, json_pack(
				"{s:I, s:o, s:o, s:o}", "pid", (json_int_t)s[i]->pid,
				"comm", evjson_comm(s[i]->comm), "hits", evjson_u64(s[i]->calls),
				"frames", stack_json(g, s[i]->pid, s[i]->frames, s[i]->nr_frames)));
		if (json_object_update_new(rec, json_pack("{s:s, s:i, s:o, s:o, s:o}",
							  "probe", g->usdt_label,
							  "sites", g->nr_usdt,
							  "hits", evjson_u64(g->calls), "stacks", a,
							  "untracked", evjson_u64(g->agg_full))))
			goto fail_rec;
		return rec;
	}
	{
		const struct growth_entry *const *s = growth_agg_sorted(g->agg, &n);

		for (size_t i = 0; s && i < n && i < g->o->top; i++)
			json_array_append_new(a, json_pack(
				"{s:I, s:o, s:o, s:o, s:o, s:o}", "pid", (json_int_t)s[i]->pid,
				"comm", evjson_comm(s[i]->comm), "calls", evjson_u64(s[i]->calls),
				"bytes", evjson_u64(s[i]->bytes), "major", evjson_u64(s[i]->major),
				"frames", stack_json(g, s[i]->pid, s[i]->frames, s[i]->nr_frames)));
	}
	if (json_object_update_new(rec, json_pack("{s:o, s:o, s:o, s:o}",
						  "calls", evjson_u64(g->calls),
						  "major", evjson_u64(g->major), "stacks", a,
						  "untracked", evjson_u64(g->agg_full))))
		goto fail_rec;
	return rec;
fail:
	json_decref(a);
fail_rec:
	json_decref(rec);
	return NULL;
}

static void text_report(struct growth *g, const char *hms)
{
	const struct growth_entry *const *s;
	FILE *t = g->text;
	size_t n;

	if (g->o->mode == MT_MODE_FFAULTS) {
		const struct growth_file *const *f;
		uint64_t amin, amaj;

		f = growth_files_sorted(g->files, &n, &amin, &amaj);
		fprintf(t, "[%s] Page faults by file (%" PRIu64 " faults, %" PRIu64 " major):\n",
			hms, g->calls, g->major);
		fprintf(t, "%-40s %10s %10s\n", "FILE", "MINOR", "MAJOR");
		for (size_t i = 0; f && i < n && i < g->o->top; i++)
			fprintf(t, "%-40s %10" PRIu64 " %10" PRIu64 "\n", f[i]->name, f[i]->minor,
				f[i]->major);
		fprintf(t, "%-40s %10" PRIu64 " %10" PRIu64 "\n", "[anonymous memory]", amin, amaj);
		if (g->agg_full)
			fprintf(t, "(%" PRIu64 " faults not counted: out of memory for more files)\n",
				g->agg_full);
		return;
	}
	s = growth_agg_sorted(g->agg, &n);
	if (g->o->mode == MT_MODE_USDT)
		fprintf(t, "[%s] Top %zu stacks by hits of %s (%" PRIu64 " hits):\n", hms,
			n < g->o->top ? n : (size_t)g->o->top, g->usdt_label, g->calls);
	else if (g->o->mode == MT_MODE_FAULTS)
		fprintf(t, "[%s] Top %zu stacks by page faults (%" PRIu64 " faults, %" PRIu64
			" major):\n", hms, n < g->o->top ? n : (size_t)g->o->top, g->calls, g->major);
	else if (g->o->mode == MT_MODE_BRK)
		fprintf(t, "[%s] Top %zu stacks by brk growth (%" PRIu64 " brk calls):\n", hms,
			n < g->o->top ? n : (size_t)g->o->top, g->calls);
	else
		fprintf(t, "[%s] Top %zu stacks by bytes mapped (%" PRIu64 " calls):\n", hms,
			n < g->o->top ? n : (size_t)g->o->top, g->calls);
	for (size_t i = 0; s && i < n && i < g->o->top; i++) {
		if (g->o->mode == MT_MODE_USDT)
			fprintf(t, "\t%" PRIu64 " hits by %s [%" PRIu32 "] from stack\n", s[i]->calls,
				s[i]->comm, s[i]->pid);
		else if (g->o->mode == MT_MODE_FAULTS)
			fprintf(t, "\t%" PRIu64 " page faults (%" PRIu64 " major) by %s [%" PRIu32
				"] from stack\n", s[i]->calls, s[i]->major, s[i]->comm, s[i]->pid);
		else if (g->o->mode == MT_MODE_BRK)
			fprintf(t, "\t%" PRIu64 " bytes grown in %" PRIu64 " brk calls by %s [%" PRIu32
				"] from stack\n", s[i]->bytes, s[i]->calls, s[i]->comm, s[i]->pid);
		else
			fprintf(t, "\t%" PRIu64 " bytes mapped in %" PRIu64 " calls by %s [%" PRIu32
				"] from stack\n", s[i]->bytes, s[i]->calls, s[i]->comm, s[i]->pid);
		print_stack(g, s[i]->pid, s[i]->frames, s[i]->nr_frames);
	}
	if (g->agg_full)
		fprintf(t, "(%" PRIu64 " calls not counted: out of memory for more stacks)\n",
			g->agg_full);
}

/* One stack of the model: the entry's numbers, its frames as the text shows them. */
static int model_stack(struct growth *g, struct rm_stack *st, const struct growth_entry *e)
{
	struct sym_proc *sp = sym_of(g, (int)e->pid, false);
	size_t n = stack_frames(g, e->pid, e->frames, e->nr_frames), cap = 0;
	char line[LINE_LEN];
	int ret = 0;

	st->pid = e->pid;
	st->count = e->calls;
	st->bytes = e->bytes;
	st->major = e->major;
	st->comm = strdup(e->comm);
	if (!n)
		st->note = strdup("[no user stack]");
	if (!st->comm || (!n && !st->note))
		return -ENOMEM;
	for (size_t l = 0; l < n && !ret; l++) {
		struct rm_frame f = stack_frame(g, l, line);

		ret = rmodel_add_user_frame(st, &cap, &f, sp ? sp->u : NULL);
	}
	return ret;
}

/* --ffaults: a file as a stack of one frame, named by the file. */
static int model_file(struct rm_stack *st, const char *name, uint64_t minor, uint64_t major)
{
	size_t cap = 0;

	st->count = minor + major;
	st->major = major;
	return rmodel_add_user_frame(st, &cap, &(struct rm_frame){ .function = (char *)name,
								   .text = (char *)name }, NULL);
}

/*
 * The report as a report model (rmodel.h), for --pprof, --prometheus and
 * --svg: the text report's stacks (files), in its order, with its numbers.
 */
static int growth_model(struct growth *g, struct report_model *m, const char *hms)
{
	const enum mt_mode mode = g->o->mode;
	struct memtrace_evstats st;
	unsigned int cpus;
	struct mt_err err;
	size_t n;
	int ret = 0;

	memset(m, 0, sizeof(*m));
	m->mode = RM_GROWTH;
	m->growth_mode = evjson_mode_name(mode);
	snprintf(m->timestamp, sizeof(m->timestamp), "%s", hms);
	m->top = g->o->top;
	m->sort = mode == MT_MODE_BRK || mode == MT_MODE_MMAP ? MT_SORT_SIZE : MT_SORT_COUNT;
	m->counts = mode == MT_MODE_BRK || mode == MT_MODE_MMAP ? RM_COUNTS_BYTES_CALLS :
		    mode == MT_MODE_SHM ? RM_COUNTS_CALLS : mode == MT_MODE_USDT ? RM_COUNTS_HITS :
		    RM_COUNTS_FAULTS;
	m->title = mode == MT_MODE_BRK ? "Bytes grown by brk" :
		   mode == MT_MODE_MMAP ? "Bytes mapped" : mode == MT_MODE_SHM ? "shm calls" :
		   mode == MT_MODE_USDT ? "Probe hits" : mode == MT_MODE_FAULTS ?
		   "Page faults" : "Page faults by file";
	m->total_count = g->calls;
	m->total_major = g->major;
	m->untracked = g->agg_full;
	m->lost_events = g->er ? evreader_lost(g->er, &cpus) : 0;
	if (g->dev && !device_evstats(g->dev, &st, &err))
		m->probe_missed = st.probe_missed;
	if (mode == MT_MODE_FFAULTS) {
		const struct growth_file *const *f;
		uint64_t amin, amaj;

		f = growth_files_sorted(g->files, &n, &amin, &amaj);
		m->stacks = calloc((f ? n : 0) + 1, sizeof(*m->stacks));
		if (!m->stacks)
			return -ENOMEM;
		for (size_t i = 0; f && i < n && i < g->o->top && !ret; i++)
			ret = model_file(&m->stacks[m->nr_stacks++], f[i]->name, f[i]->minor,
					 f[i]->major);
		if (!ret && amin + amaj)
			ret = model_file(&m->stacks[m->nr_stacks++], "[anonymous memory]", amin,
					 amaj);
	} else {
		const struct growth_entry *const *s = growth_agg_sorted(g->agg, &n);

		m->stacks = calloc(s && n ? n : 1, sizeof(*m->stacks));
		if (!m->stacks)
			return -ENOMEM;
		for (size_t i = 0; s && i < n; i++)
			m->total_bytes += s[i]->bytes;
		for (size_t i = 0; s && i < n && i < g->o->top && !ret; i++)
			ret = model_stack(g, &m->stacks[m->nr_stacks++], s[i]);
	}
	for (size_t i = 0; i < m->nr_stacks; i++) {
		m->bytes += m->stacks[i].bytes;
		m->count += m->stacks[i].count;
	}
	return ret;
}

/* --pprof, --prometheus and --svg, each written whole to its file. */
static void write_formats(struct growth *g, const char *hms)
{
	const struct mt_options *o = g->o;
	struct report_model m;
	struct mt_err err = { "" };
	int ret;

	if (!o->pprof_file && !o->prometheus_file && !o->svg_file)
		return;
	ret = growth_model(g, &m, hms);
	if (ret)
		mt_errf(&err, -ret, "out of memory for the report");
	else
		ret = fmt_write_files(o->pprof_file, o->prometheus_file, o->svg_file, &m, &err);
	if (ret) {
		fprintf(stderr, PROG ": %s\n", err.msg);
		g->write_failed = true;
	}
	rmodel_free(&m);
}

/* One interval's report in each output asked for. */
static void report(struct growth *g)
{
	char hms[16];
	time_t now = time(NULL);
	struct mt_err err;

	mt_hms(now, hms, sizeof(hms));
	/* --shm --stacks: the text and --json have each call already. */
	if (g->text && !shm_counts(g->o))
		text_report(g, hms);
	if (g->json.f && !shm_counts(g->o))
		evjson_emit(g->json.f, report_json(g, hms));
	if (g->o->folded && !g->o->folded_file)
		fold_report(stdout, g);
	else if (g->o->folded && fmt_write_any(g->o->folded_file, g, fold_report_file, &err))
		fprintf(stderr, PROG ": %s\n", err.msg);
	write_formats(g, hms);
	g->printed_at = g->calls;
}

/* --json's record of a call (--shm --stacks: with its stack). */
static void emit_call(struct growth *g, const struct memtrace_ev_syscall *r, uint32_t nr)
{
	time_t when = (time_t)(((int64_t)r->ts_ns + g->mono_to_real_ns) / 1000000000LL);
	json_t *rec;
	char hms[16];

	mt_hms(when, hms, sizeof(hms));
	rec = growth_call_json(r, evjson_mode_name(g->o->mode), hms);
	if (rec && g->o->stacks &&
	    json_object_set_new(rec, "frames", stack_json(g, r->pid, (const uint64_t *)(r + 1), nr))) {
		json_decref(rec);
		rec = NULL;
	}
	evjson_emit(g->json.f, rec);
}

/* A --usdt hit: its line as it comes, and counted under its stack. */
static void on_usdt(struct growth *g, const struct memtrace_ev_usdt *r)
{
	/* The site's own specs: sites of one probe may place its arguments differently. */
	const struct usdt_site *site = r->probe < (uint32_t)g->nr_usdt ? &g->usdt[r->probe] : NULL;
	char comm[MEMTRACE_COMM_LEN + 1];
	char args[768];

	comm_of(comm, r->comm);
	usdt_format_args(args, sizeof(args), r, site ? site->args : NULL,
			 site ? site->unsupported : 0);
	/* --folded on stdout takes the place of the text: the hits are counted only. */
	if (g->text)
		fprintf(g->text, "%-12.6f %-7" PRIu32 " %-7" PRIu32 " %-16s %-24s %s\n",
			r->ts_ns >= g->start_ns ? (double)(r->ts_ns - g->start_ns) / 1e9 : 0.0,
			r->pid, r->tid, comm, g->usdt_label, args);
	if (g->json.f) {
		time_t when = (time_t)(((int64_t)r->ts_ns + g->mono_to_real_ns) / 1000000000LL);
		char hms[16];

		mt_hms(when, hms, sizeof(hms));
		evjson_emit(g->json.f, usdt_hit_json(r, site, g->usdt_label, g->start_ns, hms));
	}
	g->arg_faults += r->arg_faults != 0;
	sym_seen(g, (int)r->pid);
	g->calls++;
	if (growth_agg_add_usdt(g->agg, r))
		g->agg_full++;
}

static void on_record(void *ctx, const struct memtrace_ev_hdr *h)
{
	const struct memtrace_ev_syscall *r = (const void *)h;
	struct growth *g = ctx;
	char line[512];

	if (h->type == MEMTRACE_EVT_USDT) {
		if (h->size >= sizeof(struct memtrace_ev_usdt))
			on_usdt(g, (const void *)h);
		return;
	}

	if (h->type == MEMTRACE_EVT_FAULT) {
		const struct memtrace_ev_fault *f = (const void *)h;
		int ret;

		if (h->size < sizeof(*f))
			return;
		if (g->o->mode == MT_MODE_FAULTS) {
			sym_seen(g, (int)f->pid);
			ret = growth_agg_add_fault(g->agg, f);
		} else {
			ret = growth_files_add(g->files, f);
		}
		if (ret) {
			g->agg_full++;
			return;
		}
		g->calls++;
		g->major += !!(f->flags & MEMTRACE_FAULT_MAJOR);
		return;
	}
	if (h->size < sizeof(*r) || h->type < MEMTRACE_EVT_MMAP || h->type > MEMTRACE_EVT_SHMCTL)
		return;		/* a type newer than this reader */
	if (!stack_mode(g->o)) {
		uint32_t nr = r->nr_frames;

		if (!growth_format_call(line, sizeof(line), r))
			return;
		if (nr > (h->size - sizeof(*r)) / sizeof(uint64_t))
			nr = (uint32_t)((h->size - sizeof(*r)) / sizeof(uint64_t));
		if (g->o->stacks)
			sym_seen(g, (int)r->pid);
		if (g->text) {
			fprintf(g->text, "%s\n", line);
			/* --shm --stacks: the caller's stack under each call. */
			if (g->o->stacks)
				print_stack(g, r->pid, (const uint64_t *)(r + 1), nr);
		}
		if (g->json.f)
			emit_call(g, r, nr);
		if (shm_counts(g->o)) {
			g->calls++;
			if (agg_count(g->agg, r->pid, r->comm, (const uint64_t *)(r + 1), nr, 0, 0))
				g->agg_full++;
		}
		return;
	}
	if (g->o->mode == MT_MODE_BRK ? h->type != MEMTRACE_EVT_BRK :
	    h->type != MEMTRACE_EVT_MMAP && h->type != MEMTRACE_EVT_MREMAP)
		return;
	/* Read the process's mappings while it is there: its stacks resolve later. */
	sym_seen(g, (int)r->pid);
	g->calls++;
	if (growth_agg_add(g->agg, r, growth_bytes(r)))
		g->agg_full++;
}

/* ---- the session ---- */

static int drain(struct growth *g, struct evreader *er)
{
	struct mt_err err;

	g->drains++;
	if (evreader_drain(er, on_record, g, &err)) {
		fprintf(stderr, PROG ": %s\n", err.msg);
		return -1;
	}
	return evjson_flush(&g->json, g->o);
}

/* The module's drops: the text's Lost: and Missed: lines, --json's "totals" record. */
static void print_lost(struct growth *g, struct mt_device *dev, const struct evreader *er)
{
	struct memtrace_evstats st;
	unsigned int cpus;
	uint64_t lost = evreader_lost(er, &cpus);
	struct mt_err err;
	char hms[16];
	time_t now = time(NULL);
	json_t *rec, *lost_rec;

	if (g->text)
		fprintf(g->text, "Lost: %" PRIu64 " events (ring full, or nested in another on "
			"its CPU)\n", lost);
	if (device_evstats(dev, &st, &err)) {
		fprintf(stderr, PROG ": %s\n", err.msg);
		return;
	}
	if (g->text && g->o->mode == MT_MODE_USDT)
		fprintf(g->text, "Missed: %" PRIu64 " stacks cut short; %" PRIu64
			" hits with an argument whose memory could not be read\n",
			(uint64_t)st.stack_faults, g->arg_faults);
	else if (g->text)
		fprintf(g->text, "Missed: %" PRIu64 " events (kretprobe instances exhausted); %"
			PRIu64 " stacks cut short; %" PRIu64 " mapped files not named\n",
			(uint64_t)st.probe_missed, (uint64_t)st.stack_faults,
			(uint64_t)st.file_unknown);
	/* -p/-c: how the stacks were walked (a module of before ver1 does not say). */
	if (g->text && (g->o->pid || g->o->cmd_argv) && shows_call_stacks(g->o) &&
	    st.size >= MEMTRACE_EVSTATS_SIZE_VER1)
		report_unwind(g->text, &st.unwind);
	if (!g->json.f)
		return;
	mt_hms(now, hms, sizeof(hms));
	rec = evjson_record(evjson_mode_name(g->o->mode), "totals", hms);
	/* As the text's Missed: line says it: --usdt's has its own terms. */
	if (g->o->mode == MT_MODE_USDT)
		lost_rec = json_pack("{s:o, s:o, s:o}", "events", evjson_u64(lost),
				     "stacks_cut", evjson_u64(st.stack_faults),
				     "args_unread", evjson_u64(g->arg_faults));
	else
		lost_rec = json_pack("{s:o, s:o, s:o, s:o}", "events", evjson_u64(lost),
				     "probe_missed", evjson_u64(st.probe_missed),
				     "stacks_cut", evjson_u64(st.stack_faults),
				     "files_unnamed", evjson_u64(st.file_unknown));
	if (!rec) {
		json_decref(lost_rec);
	} else if (json_object_set_new(rec, "lost", lost_rec)) {
		json_decref(rec);
		rec = NULL;
	}
	evjson_emit(g->json.f, rec);
}

static uint32_t mode_events(enum mt_mode m)
{
	switch (m) {
	case MT_MODE_MMAP:
		return MEMTRACE_EV_MMAP;
	case MT_MODE_BRK:
		return MEMTRACE_EV_BRK;
	case MT_MODE_FAULTS:
		return MEMTRACE_EV_FAULT;
	case MT_MODE_FFAULTS:
		return MEMTRACE_EV_FFAULT;
	case MT_MODE_USDT:
		return MEMTRACE_EV_USDT;
	default:
		return MEMTRACE_EV_SHM;
	}
}

/*
 * A module that walks the growth modes' stacks by the tables reports
 * those walks (evstats grown to MEMTRACE_EVSTATS_SIZE_VER1); an older
 * one, with tables for user mode only, does not.
 */
static bool module_walks_growth_by_tables(struct mt_device *dev)
{
	struct memtrace_evstats st;
	struct mt_err ignored;

	return (dev->version.features & MEMTRACE_FEAT_UNWIND_CFI) &&
	       !device_evstats(dev, &st, &ignored) && st.size >= MEMTRACE_EVSTATS_SIZE_VER1;
}

/*
 * -p/-c: the module walks the calls' user stacks with the unwind tables
 * of the process's code, as user mode's (--unwind=auto|cfi|fp,
 * usermode.h), where it has them; by frame pointers elsewhere.  The
 * module takes tables for its target only: the process is named one
 * (MEMTRACE_IOC_TARGET, which arms no probe by itself), before tracing
 * starts.  With auto, a process the module will not take as a target
 * has its stacks walked by frame pointers, said; with cfi, an error.
 */
static int unwind_setup(struct growth *g, struct mt_device *dev, pid_t pid, struct mt_err *err)
{
	const struct mt_options *o = g->o;
	int ret;

	if (!pid || !shows_call_stacks(o) || o->unwind == MT_UNWIND_FP)
		return 0;
	if (!module_walks_growth_by_tables(dev)) {
		if (o->unwind == MT_UNWIND_CFI)
			return mt_errf(err, EOPNOTSUPP, "--unwind=cfi: this memtrace.ko walks the "
				       "stacks of system calls and faults by frame pointers only");
		return 0;
	}
	g->um = usermode_new(NULL, 0);
	if (!g->um)
		return mt_errf(err, ENOMEM, "out of memory");
	ret = usermode_set_unwind(g->um, o->unwind, dev, err);
	if (!ret)
		ret = device_set_target(dev, pid, false, err);
	if (ret) {
		usermode_free(g->um);
		g->um = NULL;
		if (o->unwind == MT_UNWIND_CFI)
			return ret;
		fprintf(stderr, PROG ": warning: %s; its stacks are walked by frame pointers\n",
			err->msg);
		return 0;
	}
	return 0;
}

/*
 * An ia32 program makes its system calls through the 32-bit entry points,
 * which the module does not probe, and its stacks are not x86-64's: said
 * once, rather than a report that silently shows nothing.  (An x32 one,
 * ELFCLASS32 too but EM_X86_64, runs in long mode: its mmap, munmap,
 * mremap and brk are the x86-64 ones.)
 */
static void warn_32bit(struct growth *g, pid_t pid)
{
	GElf_Ehdr ehdr;
	char path[64];
	Elf *elf;
	int fd;

	if (g->warned_32bit)
		return;
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf && gelf_getclass(elf) == ELFCLASS32 && gelf_getehdr(elf, &ehdr) &&
	    ehdr.e_machine == EM_386) {
		fprintf(stderr, PROG ": warning: pid %d runs a 32-bit program: its system calls "
			"are not seen (only x86-64 ones are), its page faults have no stack "
			"past their PC\n", (int)pid);
		g->warned_32bit = true;
	}
	elf_end(elf);
	close(fd);
}

/* The tables of the code pid maps now (an image exec'd, a dlopen: before it runs). */
static void unwind_tables(struct growth *g, pid_t pid)
{
	struct mt_err err;

	if (usermode_unwind_process(g->um, g->dev, pid, &err))
		fprintf(stderr, PROG ": pid %d: unwind tables: %s\n", (int)pid, err.msg);
}

/* Handles the command's news; true once it ended (*code: its exit status). */
static bool command_events(struct growth *g, struct spawn *sp, struct evreader *er,
			   int *code)
{
	struct spawn_event ev;
	bool ended = false;

	while (spawn_next(sp, &ev)) {
		switch (ev.kind) {
		case SPAWN_EV_IMAGE:
		case SPAWN_EV_MAPPED:
		case SPAWN_EV_EXITING:
			if (ev.kind == SPAWN_EV_IMAGE)
				warn_32bit(g, ev.pid);
			if (g->um && ev.kind != SPAWN_EV_EXITING)
				unwind_tables(g, ev.pid);
			if (shows_call_stacks(g->o)) {
				/* Its calls so far name their processes' symbols first. */
				drain(g, er);
				sym_refresh(g, ev.pid);
			}
			spawn_release(sp, ev.pid);
			break;
		case SPAWN_EV_ENDED:
			*code = spawn_exit_code(ev.status);
			ended = true;
			break;
		}
	}
	return ended;
}

/* --usdt: the probe's sites in its object; -errno, said. */
static int find_usdt(struct growth *g, const struct mt_options *o)
{
	char path[4096], provider[USDT_NAME_LEN], name[USDT_NAME_LEN];
	struct mt_err err;
	int n;

	n = usdt_parse_probe(o->usdt, path, sizeof(path), provider, name, &err);
	if (!n)
		n = usdt_find(path, provider, name, g->usdt, MT_ARRAY_SIZE(g->usdt), &err);
	if (n < 0) {
		fprintf(stderr, PROG ": %s\n", err.msg);
		return n;
	}
	g->nr_usdt = n;
	snprintf(g->usdt_label, sizeof(g->usdt_label), "%s:%s", provider, name);
	for (int i = 0; i < n; i++)
		if (g->usdt[i].unsupported)
			fprintf(stderr, PROG ": %s at 0x%" PRIx64 ": arguments '%s': those "
				"shown as ? are not decoded (a symbol, an index register or "
				"a segment)\n", g->usdt_label, g->usdt[i].pc, g->usdt[i].specs);
	return 0;
}

/* Hands the sites over, each as the object's descriptor and its offsets. */
static int add_usdt(struct growth *g, struct mt_device *dev, struct mt_err *err)
{
	char path[4096], provider[USDT_NAME_LEN], name[USDT_NAME_LEN];
	int fd, ret = 0;

	if (usdt_parse_probe(g->o->usdt, path, sizeof(path), provider, name, err))
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return mt_errf(err, errno, "%s: %s", path, strerror(errno));
	for (int i = 0; i < g->nr_usdt && !ret; i++) {
		struct memtrace_usdt u;

		memset(&u, 0, sizeof(u));
		u.fd = fd;
		u.offset = g->usdt[i].offset;
		u.ref_ctr_offset = g->usdt[i].ref_ctr_offset;
		u.probe = (uint32_t)i;
		u.nr_args = g->usdt[i].nr_args;
		memcpy(u.args, g->usdt[i].args, sizeof(u.args));
		ret = device_usdt(dev, &u, err);
	}
	/* The module holds its own reference to the file. */
	close(fd);
	return ret;
}

int growth_run(const struct mt_options *o)
{
	uint32_t want = mode_events(o->mode);
	const char *mode = cli_growth_option(o->mode);
	struct growth *g = calloc(1, sizeof(*g));
	struct memtrace_config cfg;
	struct evreader er = { 0 };
	struct spawn *sp = NULL;
	struct mt_device dev;
	struct timespec deadline;
	struct mt_err err;
	int sigfd = -1, status = 1, code = 0, ret;
	bool ended = false;
	pid_t pid = o->pid;

	dev.fd = -1;
	if (!g || !(g->agg = growth_agg_new()) || !(g->files = growth_files_new())) {
		fprintf(stderr, PROG ": out of memory\n");
		goto out;
	}
	g->o = o;
	g->text = evjson_text_stream(o);
	g->mono_to_real_ns = mt_realtime_offset_ns();
	if (evjson_open(&g->json, o, &err) || device_open(&dev, NULL, &err)) {
		fprintf(stderr, PROG ": %s\n", err.msg);
		goto out;
	}
	if (o->mode == MT_MODE_USDT && find_usdt(g, o) < 0)
		goto out;
	if (!(dev.version.features & MEMTRACE_FEAT_EVRING) || !(dev.version.features & want)) {
		const char *kconfig = device_kconfig_reason(&dev.version, want);

		fprintf(stderr, PROG ": %s: not supported by this module on this kernel "
			"(memtrace.ko %s: %s)\n", mode, dev.version.module_version,
			!(dev.version.features & MEMTRACE_FEAT_EVRING) ? "no event rings" :
			kconfig ? kconfig :
			o->mode == MT_MODE_USDT ? "no uprobes" :
			"its system calls cannot be probed (see dmesg)");
		goto out;
	}
	if (o->cmd_argv) {
		if (spawn_start(o->cmd_argv, false, &sp, &err)) {
			fprintf(stderr, PROG ": %s\n", err.msg);
			goto out;
		}
		pid = spawn_pid(sp);
	}
	/* After the spawn: the command runs with the mask we were started with. */
	sigfd = stop_signals_fd();
	if (sigfd < 0) {
		fprintf(stderr, PROG ": cannot take signals: %s\n", strerror(errno));
		goto out;
	}
	memset(&cfg, 0, sizeof(cfg));
	cfg.size = sizeof(cfg);
	cfg.events = want;
	cfg.stack_depth = o->stack_depth ? o->stack_depth : MEMTRACE_MAX_FRAMES;
	/*
	 * Faults come in bursts (a page at a time, thousands as a program
	 * starts): the largest rings the budget allows, at least the
	 * module's default (16 pages) each.
	 */
	if (o->mode == MT_MODE_FAULTS || o->mode == MT_MODE_FFAULTS)
		cfg.evring_pages = evreader_ring_pages(16);
	cfg.tgid = pid;
	if (o->by_comm)
		snprintf(cfg.comm, sizeof(cfg.comm), "%s", o->by_comm);
	if (o->by_cgroup) {
		cfg.cgroup_fd = open(o->by_cgroup, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (cfg.cgroup_fd < 0) {
			fprintf(stderr, PROG ": --by-cgroup %s: %s\n", o->by_cgroup, strerror(errno));
			goto out;
		}
		cfg.flags |= MEMTRACE_CFG_CGROUP;
	}
	ret = device_configure(&dev, &cfg, &err);
	g->dev = &dev;
	if (!ret)
		ret = unwind_setup(g, &dev, pid, &err);
	/* -c: its image's tables once it exec'd (command_events()). */
	if (!ret && g->um && o->pid)
		unwind_tables(g, pid);
	if (!ret && o->pid)
		warn_32bit(g, pid);
	if (!ret && o->mode == MT_MODE_USDT)
		ret = add_usdt(g, &dev, &err);
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	g->start_ns = (uint64_t)deadline.tv_sec * 1000000000ULL + (uint64_t)deadline.tv_nsec;
	if (!ret)
		ret = device_start(&dev, &err);
	if (!ret)
		ret = evreader_open(&er, &dev, &err);
	if (ret) {
		if (o->pid && ret == -ESRCH)
			fprintf(stderr, PROG ": pid %d: no such process\n", o->pid);
		else if (o->mode == MT_MODE_USDT && ret == -EPERM && !pid)
			fprintf(stderr, PROG ": --usdt system-wide sets breakpoints and raises "
				"semaphores in every process mapping %s: it needs CAP_SYS_ADMIN, "
				"as perf's uprobes do (-p or -c trace one process)\n", g->usdt_label);
		else if (o->mode == MT_MODE_USDT && ret == -EPERM)
			fprintf(stderr, PROG ": --usdt: %s: ptrace could not attach to that "
				"process, nor may memtrace probe it\n", err.msg);
		else
			fprintf(stderr, PROG ": %s\n", err.msg);
		if (o->by_cgroup)
			close(cfg.cgroup_fd);
		goto out;
	}
	if (o->by_cgroup)
		close(cfg.cgroup_fd);
	if (o->pid && shows_call_stacks(o))
		sym_of(g, o->pid, true);
	g->er = &er;
	ret = sp ? spawn_exec(sp, &err) : 0;
	if (ret) {
		fprintf(stderr, PROG ": %s\n", err.msg);
		status = ret == -ENOENT ? 127 : 126;
		goto stop_quiet;
	}
	/* With --json or --folded on stdout the banner goes to stderr. */
	if (o->mode == MT_MODE_USDT && g->text)
		fprintf(g->text, "Tracing %s (%d site%s) %s, Ctrl+C to quit.\n%s\n", g->usdt_label,
			g->nr_usdt, g->nr_usdt == 1 ? "" : "s",
			pid ? "in one process" : "system-wide", growth_header(o->mode));
	else if (o->mode == MT_MODE_USDT)
		fprintf(stderr, "Tracing %s (%d site%s) %s, Ctrl+C to quit.\n", g->usdt_label,
			g->nr_usdt, g->nr_usdt == 1 ? "" : "s",
			pid ? "in one process" : "system-wide");
	else if (report_mode(o))
		fprintf(g->text ? g->text : stderr, "Tracing %s %s, Ctrl+C to quit.\n",
			o->mode == MT_MODE_BRK ? "brk growth" :
			o->mode == MT_MODE_MMAP ? "bytes mapped" : o->mode == MT_MODE_FAULTS ?
			"page faults by stack" : "page faults by file",
			pid ? "of one process" : "system-wide");
	else if (g->text)
		fprintf(g->text, "%s\n", growth_header(o->mode));
	fflush(stdout);
	status = 0;
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	for (unsigned long n = 0; !ended && (!o->count || n < o->count); n++) {
		bool signalled = false;

		deadline.tv_sec += o->interval_s;
		while (!signalled && !ended) {
			/* -p: notice the process gone at least every 100 ms. */
			int w = evreader_wait(&er, sigfd, sp ? spawn_event_fd(sp) : -1, &deadline,
					      o->pid ? 100 : -1, &err);

			if (w < 0) {
				fprintf(stderr, PROG ": %s\n", err.msg);
				status = 1;
				goto stop;
			}
			signalled = w == EVREADER_SIGNAL;
			if (drain(g, &er)) {
				status = 1;
				goto stop;
			}
			if (sp)
				ended = command_events(g, sp, &er, &code);
			else if (o->pid && kill(o->pid, 0) && errno == ESRCH)
				ended = true;
			if (w == EVREADER_TIMEOUT)
				break;
		}
		/*
		 * -p sees no dlopen() or exec happen: objects mapped since get
		 * their tables now, each interval (those handed over before
		 * are not again); their calls before this were walked without.
		 */
		if (g->um && o->pid && !ended && !signalled) {
			struct mt_err gone;	/* it may have ended since */

			usermode_unwind_process(g->um, &dev, pid, &gone);
		}
		if (signalled)
			break;
		if (interval_reports(o) && !ended)
			report(g);
	}
stop:
	if (dev.tracing && device_stop(&dev, &err) && !status) {
		fprintf(stderr, PROG ": %s\n", err.msg);
		status = 1;
	}
	/* What the rings still hold was written before the stop. */
	if (!status && drain(g, &er))
		status = 1;
	if (interval_reports(o) && !status &&
	    (g->printed_at != g->calls || !g->calls || ended))
		report(g);
	if (o->mode == MT_MODE_USDT && !status)
		report(g);
	if (er.map)
		print_lost(g, &dev, &er);
	if (evjson_flush(&g->json, o) && !status)
		status = 1;
	if (!status && g->write_failed)
		status = 1;
	if (!status && sp)
		status = code;
	goto out;
stop_quiet:
	if (dev.tracing)
		device_stop(&dev, &err);
out:
	if (sp)
		spawn_finish(sp);
	evreader_close(&er);
	device_close(&dev);
	if (sigfd >= 0)
		close(sigfd);
	if (g) {
		for (unsigned int i = 0; i < g->nr_syms; i++)
			usyms_free(g->syms[i].u);
		usermode_free(g->um);
		growth_agg_free(g->agg);
		growth_files_free(g->files);
		evjson_close(&g->json);
		free(g);
	}
	return status;
}
