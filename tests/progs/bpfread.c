// SPDX-License-Identifier: GPL-2.0
/*
 * bpfread allowed|refused: the way BPF tracers read kernel memory, and
 * whether this boot lets it.  One TAP line per check.
 *
 * A kprobe program on __x64_sys_getppid() reads, with
 * bpf_probe_read_kernel(), the syscall number from the pt_regs the
 * syscall's first argument points to (kernel memory: the task's stack),
 * and stores it and the helper's result in an array map.  It is
 * assembled here by hand and loaded with bpf(2), so no compiler or
 * library stands between this test and the kernel; it is attached through
 * perf's kprobe PMU (not tracefs) to this process only.
 *
 *   allowed: the program loads, runs on getppid() and reads __NR_getppid.
 *   refused: the verifier refuses it (lockdown=confidentiality takes the
 *            helper away) while the same program without the read loads:
 *            BPF itself works, reading kernel memory does not.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include <linux/ptrace.h>

static int failures;

static void result(bool ok, const char *what, const char *detail)
{
	printf("%s - %s\n", ok ? "ok" : "not ok", what);
	if (!ok) {
		failures++;
		if (detail && *detail)
			printf("# %s\n", detail);
	}
}

#define INSN(c, d, s, o, i) ((struct bpf_insn) { .code = (c), .dst_reg = (d), \
						  .src_reg = (s), .off = (o), .imm = (i) })
#define MOV64_REG(d, s)		INSN(BPF_ALU64 | BPF_MOV | BPF_X, d, s, 0, 0)
#define MOV64_IMM(d, i)		INSN(BPF_ALU64 | BPF_MOV | BPF_K, d, 0, 0, i)
#define ADD64_IMM(d, i)		INSN(BPF_ALU64 | BPF_ADD | BPF_K, d, 0, 0, i)
#define LDX64(d, s, o)		INSN(BPF_LDX | BPF_MEM | BPF_DW, d, s, o, 0)
#define STX64(d, s, o)		INSN(BPF_STX | BPF_MEM | BPF_DW, d, s, o, 0)
#define ST32_IMM(d, o, i)	INSN(BPF_ST | BPF_MEM | BPF_W, d, 0, o, i)
#define JEQ_IMM(d, i, o)	INSN(BPF_JMP | BPF_JEQ | BPF_K, d, 0, o, i)
#define CALL(f)			INSN(BPF_JMP | BPF_CALL, 0, 0, 0, f)
#define EXIT()			INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)
#define LD_MAP_FD(d, fd)	INSN(BPF_LD | BPF_DW | BPF_IMM, d, BPF_PSEUDO_MAP_FD, 0, fd), \
				INSN(0, 0, 0, 0, 0)

/* Where the kprobe's context (struct pt_regs) keeps a register. */
#define REG_OFF(r)		((int)offsetof(struct pt_regs, r))

/* The map's one value: what the helper returned and what it read. */
struct readout {
	int64_t ret;
	uint64_t value;
};

static long bpf(int cmd, union bpf_attr *attr)
{
	return syscall(SYS_bpf, cmd, attr, sizeof(*attr));
}

static int map_create(void)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_type = BPF_MAP_TYPE_ARRAY;
	a.key_size = sizeof(uint32_t);
	a.value_size = sizeof(struct readout);
	a.max_entries = 1;
	return bpf(BPF_MAP_CREATE, &a);
}

/*
 * The program; with read_kernel false, the same without the helper call
 * (r0 = 0 in its place, and nothing read).
 */
static int prog_load(int map_fd, bool read_kernel, char *log, size_t log_size)
{
	struct bpf_insn insns[] = {
		MOV64_REG(BPF_REG_6, BPF_REG_1),		/* r6 = ctx */
		LDX64(BPF_REG_3, BPF_REG_6, REG_OFF(rdi)),	/* r3 = the syscall's regs */
		ADD64_IMM(BPF_REG_3, REG_OFF(orig_rax)),		/* r3 = &regs->orig_ax */
		MOV64_REG(BPF_REG_1, BPF_REG_10),
		ADD64_IMM(BPF_REG_1, -8),			/* r1 = fp - 8 */
		MOV64_IMM(BPF_REG_2, 8),
		read_kernel ? CALL(BPF_FUNC_probe_read_kernel) : MOV64_IMM(BPF_REG_0, 0),
		STX64(BPF_REG_10, BPF_REG_0, -16),		/* fp - 16 = result */
		ST32_IMM(BPF_REG_10, -20, 0),			/* key 0 */
		LD_MAP_FD(BPF_REG_1, map_fd),
		MOV64_REG(BPF_REG_2, BPF_REG_10),
		ADD64_IMM(BPF_REG_2, -20),
		CALL(BPF_FUNC_map_lookup_elem),
		JEQ_IMM(BPF_REG_0, 0, 4),
		LDX64(BPF_REG_1, BPF_REG_10, -16),
		STX64(BPF_REG_0, BPF_REG_1, 0),			/* value.ret */
		read_kernel ? LDX64(BPF_REG_1, BPF_REG_10, -8) : MOV64_IMM(BPF_REG_1, 0),
		STX64(BPF_REG_0, BPF_REG_1, 8),			/* value.value */
		MOV64_IMM(BPF_REG_0, 0),
		EXIT(),
	};
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_KPROBE;
	a.insns = (uintptr_t)insns;
	a.insn_cnt = sizeof(insns) / sizeof(insns[0]);
	a.license = (uintptr_t)"GPL";
	a.log_buf = (uintptr_t)log;
	a.log_size = log_size;
	a.log_level = 1;
	log[0] = '\0';
	return bpf(BPF_PROG_LOAD, &a);
}

static int kprobe_pmu_type(void)
{
	FILE *f = fopen("/sys/bus/event_source/devices/kprobe/type", "r");
	int type = -1;

	if (f) {
		if (fscanf(f, "%d", &type) != 1)
			type = -1;
		fclose(f);
	}
	return type;
}

/* Run the program on this process's getppid(); fill *out from the map. */
static int run(int prog_fd, int map_fd, struct readout *out, char *why, size_t len)
{
	struct perf_event_attr pa;
	union bpf_attr a;
	uint32_t key = 0;
	int type = kprobe_pmu_type(), ev;

	if (type < 0) {
		snprintf(why, len, "no kprobe PMU in /sys/bus/event_source/devices");
		return -1;
	}
	memset(&pa, 0, sizeof(pa));
	pa.size = sizeof(pa);
	pa.type = type;
	pa.config1 = (uintptr_t)"__x64_sys_getppid";	/* kprobe_func */
	pa.sample_period = 1;
	pa.disabled = 1;
	ev = syscall(SYS_perf_event_open, &pa, 0, -1, -1, 0);
	if (ev < 0) {
		snprintf(why, len, "perf_event_open(kprobe __x64_sys_getppid): %s", strerror(errno));
		return -1;
	}
	if (ioctl(ev, PERF_EVENT_IOC_SET_BPF, prog_fd) || ioctl(ev, PERF_EVENT_IOC_ENABLE, 0)) {
		snprintf(why, len, "attach: %s", strerror(errno));
		close(ev);
		return -1;
	}
	syscall(SYS_getppid);
	ioctl(ev, PERF_EVENT_IOC_DISABLE, 0);
	close(ev);
	memset(&a, 0, sizeof(a));
	a.map_fd = map_fd;
	a.key = (uintptr_t)&key;
	a.value = (uintptr_t)out;
	if (bpf(BPF_MAP_LOOKUP_ELEM, &a)) {
		snprintf(why, len, "map lookup: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* The verifier's line that mentions about, or (NULL) its last line. */
static const char *why_line(char *log, const char *about)
{
	char *end = log + strlen(log), *p = about ? strstr(log, about) : NULL;

	if (p) {
		while (p > log && p[-1] != '\n')
			p--;
		end = strchr(p, '\n');
		if (end)
			*end = '\0';
		return p;
	}
	while (end > log && end[-1] == '\n')
		*--end = '\0';
	p = strrchr(log, '\n');
	return p ? p + 1 : log;
}

int main(int argc, char **argv)
{
	static char log[1 << 16];
	bool refused = argc > 1 && !strcmp(argv[1], "refused");
	struct readout out = { -1, 0 };
	char why[300];
	int map_fd, prog_fd, plain_fd;

	if (argc != 2 || (!refused && strcmp(argv[1], "allowed"))) {
		fprintf(stderr, "usage: bpfread allowed|refused\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	map_fd = map_create();
	result(map_fd >= 0, "bpf: an array map", strerror(errno));
	if (map_fd < 0)
		return 1;
	plain_fd = prog_load(map_fd, false, log, sizeof(log));
	snprintf(why, sizeof(why), "%s: %s", strerror(errno), why_line(log, NULL));
	result(plain_fd >= 0, "bpf: a kprobe program that reads no kernel memory loads", why);

	prog_fd = prog_load(map_fd, true, log, sizeof(log));
	if (refused) {
		int err = errno;

		snprintf(why, sizeof(why), "loaded (fd %d)", prog_fd);
		result(prog_fd < 0, "bpf: the same program with bpf_probe_read_kernel() is refused", why);
		if (prog_fd < 0) {
			const char *line = why_line(log, "bpf_probe_read_kernel");

			snprintf(why, sizeof(why), "%s: %s", strerror(err), line);
			result(strstr(line, "bpf_probe_read_kernel"),
			       "bpf: ... because the helper is not there (the verifier's word)", why);
			printf("# verifier: %s\n", line);
		}
		return failures ? 1 : 0;
	}
	snprintf(why, sizeof(why), "%s: %s", strerror(errno), why_line(log, NULL));
	result(prog_fd >= 0, "bpf: the same program with bpf_probe_read_kernel() loads", why);
	if (prog_fd < 0)
		return 1;
	if (run(prog_fd, map_fd, &out, why, sizeof(why))) {
		result(false, "bpf: it runs on getppid()", why);
		return 1;
	}
	snprintf(why, sizeof(why), "helper returned %lld, read %llu (expected %d)",
		 (long long)out.ret, (unsigned long long)out.value, (int)SYS_getppid);
	result(out.ret == 0 && out.value == SYS_getppid,
	       "bpf: it reads kernel memory (the syscall number on the task's kernel stack)", why);
	return failures ? 1 : 0;
}
