// SPDX-License-Identifier: GPL-2.0
/*
 * tbprof: a qemu TCG plugin for `make bench`'s profile boot
 * (scripts/bench-profile.sh): counts the guest instructions executed per
 * translation block, between marks the guest sets by executing a marker
 * instruction (tests/bench/profile/mark.c), and writes them to a file per
 * window: "<start address> <instructions>" lines, which the host
 * attributes to functions by the guest's symbols.
 *
 * The marker is a long nop, `nopl MAGIC+CMD(%rax)` (0f 1f 80 <disp32>),
 * which does nothing on any x86 CPU: CMD 1 opens a window (counts
 * zeroed), CMD 2 closes it and writes it to <out>.<N>, N = 1, 2, ...
 *
 * Debian's qemu-system-x86 (7.2) is built with plugin support but ships
 * neither the plugins nor <qemu-plugin.h>; the few calls used here are
 * declared below as that release's plugin API (version 1) defines them.
 *
 * usage: qemu-system-x86_64 ... -plugin tbprof.so,out=/path/prefix
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- qemu's plugin API, version 1 (QEMU 7.2), the parts used here ---- */
#define QEMU_PLUGIN_EXPORT __attribute__((visibility("default")))
typedef uint64_t qemu_plugin_id_t;
typedef struct qemu_info_t {
	const char *target_name;
	struct {
		int min;
		int cur;
	} version;
	bool system_emulation;
	union {
		struct {
			int smp_vcpus;
			int max_vcpus;
		} system;
	};
} qemu_info_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS };
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index, void *userdata);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb, enum qemu_plugin_op op,
					      void *ptr, uint64_t imm);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
					    qemu_plugin_vcpu_udata_cb_t cb,
					    enum qemu_plugin_cb_flags flags, void *userdata);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb, void *userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
QEMU_PLUGIN_EXPORT int qemu_plugin_version = 1;
/* ---------------------------------------------------------------------- */

#define MARK_MAGIC 0x4d540000u	/* "MT": the marker's displacement, less CMD */
#define MARK_OPEN 1u
#define MARK_CLOSE 2u

/*
 * One entry per (start address, length) a block was translated with: a
 * block retranslated with the same shape counts into the same entry.
 * Open addressing, never shrunk; the counters are updated by code qemu
 * inlines into the block, so entries never move: the table is an array
 * of pointers to them.
 */
struct block {
	uint64_t vaddr;
	uint64_t n_insns;
	uint64_t execs;
};

static struct block **table;
static size_t table_size = 1 << 16, table_used;
static const char *out_prefix;
static unsigned int windows;
static bool open_window;

static size_t slot_of(uint64_t vaddr, uint64_t n)
{
	uint64_t h = (vaddr ^ (n << 48)) * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 20) & (table_size - 1);
}

static void grow(void)
{
	struct block **old = table;
	size_t i, old_size = table_size;

	table_size *= 2;
	table = calloc(table_size, sizeof(*table));
	if (!table) {
		perror("tbprof");
		exit(1);
	}
	for (i = 0; i < old_size; i++) {
		size_t s;

		if (!old[i])
			continue;
		s = slot_of(old[i]->vaddr, old[i]->n_insns);
		while (table[s])
			s = (s + 1) & (table_size - 1);
		table[s] = old[i];
	}
	free(old);
}

static struct block *block_of(uint64_t vaddr, uint64_t n)
{
	size_t s;

	if (2 * (table_used + 1) > table_size)
		grow();
	s = slot_of(vaddr, n);
	while (table[s]) {
		if (table[s]->vaddr == vaddr && table[s]->n_insns == n)
			return table[s];
		s = (s + 1) & (table_size - 1);
	}
	table[s] = calloc(1, sizeof(struct block));
	if (!table[s]) {
		perror("tbprof");
		exit(1);
	}
	table[s]->vaddr = vaddr;
	table[s]->n_insns = n;
	table_used++;
	return table[s];
}

static void zero_counts(void)
{
	size_t i;

	for (i = 0; i < table_size; i++)
		if (table[i])
			table[i]->execs = 0;
}

static void write_window(void)
{
	char path[4096];
	size_t i;
	FILE *f;

	snprintf(path, sizeof(path), "%s.%u", out_prefix, ++windows);
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		return;
	}
	for (i = 0; i < table_size; i++)
		if (table[i] && table[i]->execs)
			fprintf(f, "%llx %llu\n", (unsigned long long)table[i]->vaddr,
				(unsigned long long)(table[i]->execs * table[i]->n_insns));
	fclose(f);
}

static void on_mark(unsigned int vcpu, void *cmd)
{
	(void)vcpu;
	if ((uintptr_t)cmd == MARK_OPEN) {
		zero_counts();
		open_window = true;
	} else if (open_window) {
		write_window();
		open_window = false;
	}
}

/* The marker's command, or 0 if INSN is not the marker. */
static unsigned int mark_of(const struct qemu_plugin_insn *insn)
{
	const uint8_t *b = qemu_plugin_insn_data(insn);
	uint32_t disp;

	if (qemu_plugin_insn_size(insn) != 7 || b[0] != 0x0f || b[1] != 0x1f || b[2] != 0x80)
		return 0;
	memcpy(&disp, b + 3, 4);
	if ((disp & 0xffff0000u) != MARK_MAGIC)
		return 0;
	disp &= 0xffff;
	return disp == MARK_OPEN || disp == MARK_CLOSE ? disp : 0;
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb);
	struct block *b = block_of(qemu_plugin_tb_vaddr(tb), n);

	(void)id;
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &b->execs, 1);
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		unsigned int cmd = mark_of(insn);

		if (cmd)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_mark, QEMU_PLUGIN_CB_NO_REGS,
							       (void *)(uintptr_t)cmd);
	}
}

static void on_qemu_exit(qemu_plugin_id_t id, void *data)
{
	(void)id;
	(void)data;
	if (open_window)
		write_window();
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
					   int argc, char **argv)
{
	int i;

	(void)info;
	for (i = 0; i < argc; i++)
		if (!strncmp(argv[i], "out=", 4))
			out_prefix = argv[i] + 4;
	if (!out_prefix) {
		fprintf(stderr, "tbprof: usage: -plugin tbprof.so,out=PREFIX\n");
		return -1;
	}
	table = calloc(table_size, sizeof(*table));
	if (!table)
		return -1;
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, on_qemu_exit, NULL);
	return 0;
}
