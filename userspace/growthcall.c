// SPDX-License-Identifier: GPL-2.0
/*
 * One growth call in words; see growthcall.h.  Decoded as the BCC tools
 * decode them (mmapsnoop's PROT and MAP letters, shmsnoop's flag names).
 */
#include "growthcall.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/shm.h>

#include "evjson.h"
#include "util.h"

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

const char *growth_call_header(bool shm)
{
	return shm ? "PID    COMM                SYS              RET ARGs" :
		     "PID    COMM             PROT MAP   OFFS(KB) SIZE(KB) FILE";
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
	mt_comm(comm, r->comm);
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
