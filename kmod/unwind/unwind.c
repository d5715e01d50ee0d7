// SPDX-License-Identifier: GPL-2.0
/*
 * User stacks by call-frame tables; see unwind.h.
 *
 * The reader parses the DWARF (libdw), the module only looks rows up:
 * a row says where the caller's frame is (CFA = rsp or rbp + offset),
 * where the return address and the saved rbp are, or that the frame is
 * the outermost or a signal trampoline's.  A PC is turned into a file
 * offset through the mapping that holds it (vma->vm_file, vm_pgoff),
 * which needs the mm read-locked: the uprobe handler takes the lock in
 * task context before it enters the hook guard (see uprobes.c), the
 * growth hooks' kretprobe handlers only if a trylock gets it (ustack.c),
 * so the walk itself runs with interrupts or preemption off, reads only
 * through copy_from_user_nofault() and never sleeps.  This is the one
 * user-stack walker: the uprobe, USDT and growth hooks all call
 * mt_unwind_user(), which also holds the frame-pointer walk and the
 * system-call wrapper's leaf case.
 *
 * Tables are shared by build id (a library mapped by the target and each
 * child or image exec'd is loaded once), bound to each file that carries
 * them, and bounded in all (unwind_table_mb).
 */
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/ptrace.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "unwind/unwind.h"

static uint unwind_table_mb = 64;
module_param(unwind_table_mb, uint, 0444);
MODULE_PARM_DESC(unwind_table_mb,
		 "User stacks: MiB the unwind tables of a session may take (default 64)");

#define MT_UNWIND_MAX_TABLES	256
#define MT_UNWIND_MAX_FILES	512

/* Nothing is mapped below this by default (vm.mmap_min_addr): no code either. */
#define MT_UNWIND_CODE_MIN	0x10000UL

/* Where the interrupted registers are in a signal frame's ucontext (x86-64 uc_mcontext.gregs). */
#define MT_UC_RBP	120
#define MT_UC_RSP	160
#define MT_UC_RIP	168

/*
 * Rows are found through buckets of 1 KiB of file offsets, then a binary
 * search of the few rows a bucket spans (some 15 in glibc's code, against
 * its 28000 rows: 4 steps instead of 15); the index costs 4 bytes a KiB.
 * A table of a few rows is searched as it is: its index would cost more
 * steps than it saves.
 */
#define MT_UNWIND_BUCKET_SHIFT	10
#define MT_UNWIND_INDEX_MIN_ROWS	64

struct mt_unwind_table {
	struct memtrace_unwind_row *rows;
	/* Per bucket: the last row starting at or below its first offset (or row 0); or NULL. */
	u32 *bucket;
	u32 nr_buckets;
	u32 nr_rows;
	u32 build_id_len;
	u8 build_id[20];
};

struct mt_unwind_file {
	struct file *file;	/* referenced: its inode is what mappings are compared with */
	const struct mt_unwind_table *table;
};

static struct {
	struct mt_unwind_table *tables[MT_UNWIND_MAX_TABLES];
	u32 nr_tables;
	/* Appended under mt.lock, published by nr_files (release); read locklessly. */
	struct mt_unwind_file files[MT_UNWIND_MAX_FILES];
	u32 nr_files;
	u64 bytes;
} mt_unw;

/* ---- the tables themselves (pure: KUnit tests these) ------------------ */

static bool mt_unwind_off_ok(s32 off)
{
	return off > -MEMTRACE_UNW_MAX_CFA_OFF && off < MEMTRACE_UNW_MAX_CFA_OFF;
}

int mt_unwind_validate(const struct memtrace_unwind_row *rows, u32 nr, u64 file_size)
{
	u32 i;

	if (!nr || nr > MEMTRACE_UNW_MAX_ROWS)
		return -EINVAL;
	for (i = 0; i < nr; i++) {
		const struct memtrace_unwind_row *r = &rows[i];

		if (r->__pad || r->cfa_reg > MEMTRACE_UNW_CFA_MAX ||
		    r->rbp_rule > MEMTRACE_UNW_RBP_AT_CFA)
			return -EINVAL;
		if (r->start >= file_size || (i && r->start <= rows[i - 1].start))
			return -EINVAL;
		if (r->cfa_reg != MEMTRACE_UNW_CFA_RSP && r->cfa_reg != MEMTRACE_UNW_CFA_RBP)
			continue;
		/*
		 * The CFA is above the frame's stack pointer; the return
		 * address and the saved rbp lie below it, 8-aligned.
		 */
		if (r->cfa_off <= 0 || r->cfa_off >= MEMTRACE_UNW_MAX_CFA_OFF ||
		    r->ra_off >= 0 || r->ra_off % 8)
			return -EINVAL;
		if (r->rbp_rule == MEMTRACE_UNW_RBP_AT_CFA &&
		    (r->rbp_off >= 0 || r->rbp_off % 8 || !mt_unwind_off_ok(r->rbp_off)))
			return -EINVAL;
	}
	return 0;
}

const struct memtrace_unwind_row *mt_unwind_find(const struct memtrace_unwind_row *rows,
						 u32 nr, u64 off)
{
	u32 lo = 0, hi = nr;

	/* The first row starting above off, then the one before it. */
	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (rows[mid].start <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &rows[lo - 1] : NULL;
}

/* Buckets of a table (nr > 0): up to the one its last row starts in. */
static u32 mt_unwind_nr_buckets(const struct memtrace_unwind_row *rows, u32 nr)
{
	return (rows[nr - 1].start >> MT_UNWIND_BUCKET_SHIFT) + 1;
}

static void mt_unwind_index(const struct memtrace_unwind_row *rows, u32 nr, u32 *bucket,
			    u32 nr_buckets)
{
	u32 b, i = 0;

	for (b = 0; b < nr_buckets; b++) {
		u64 first = (u64)b << MT_UNWIND_BUCKET_SHIFT;

		while (i + 1 < nr && rows[i + 1].start <= first)
			i++;
		bucket[b] = i;
	}
}

/* mt_unwind_find() of a table, narrowed by its buckets first. */
static const struct memtrace_unwind_row *mt_unwind_find_indexed(const struct mt_unwind_table *t,
								 u64 off)
{
	u64 b = off >> MT_UNWIND_BUCKET_SHIFT;
	u32 lo, hi;

	if (!t->bucket)
		return mt_unwind_find(t->rows, t->nr_rows, off);
	/* Past the last row's bucket: past its start. */
	if (b >= t->nr_buckets)
		return &t->rows[t->nr_rows - 1];
	/*
	 * The row sought starts at or below off: not before the bucket's
	 * (which starts at or below its first offset, unless it is row 0),
	 * not after the next bucket's (which starts above off, if any does).
	 */
	lo = t->bucket[b];
	hi = b + 1 < t->nr_buckets ? t->bucket[b + 1] + 1 : t->nr_rows;
	return mt_unwind_find(t->rows + lo, hi - lo, off);
}

/* ---- the session's tables (under mt.lock) ----------------------------- */

static struct mt_unwind_table *mt_unwind_by_build_id(const u8 *id, u32 len)
{
	u32 i;

	if (!len)
		return NULL;
	for (i = 0; i < mt_unw.nr_tables; i++) {
		struct mt_unwind_table *t = mt_unw.tables[i];

		if (t->build_id_len == len && !memcmp(t->build_id, id, len))
			return t;
	}
	return NULL;
}

static int mt_unwind_bind(struct file *file, const struct mt_unwind_table *t)
{
	u32 n = mt_unw.nr_files, i;

	for (i = 0; i < n; i++)
		if (file_inode(mt_unw.files[i].file) == file_inode(file))
			return -EEXIST;
	if (n == MT_UNWIND_MAX_FILES)
		return -ENOSPC;
	mt_unw.files[n].file = get_file(file);
	mt_unw.files[n].table = t;
	/* Pairs with mt_unwind_file_of()'s acquire: the slot is written. */
	smp_store_release(&mt_unw.nr_files, n + 1);
	return 0;
}

static struct mt_unwind_table *mt_unwind_load(const struct memtrace_unwind_table *ut,
					      u64 file_size)
{
	const void __user *urows = u64_to_user_ptr(ut->rows);
	struct mt_unwind_table *t;
	size_t bytes, index_bytes;
	u64 limit = (u64)unwind_table_mb << 20;
	int ret;

	if (!ut->nr_rows || ut->nr_rows > MEMTRACE_UNW_MAX_ROWS)
		return ERR_PTR(-EINVAL);
	bytes = (size_t)ut->nr_rows * sizeof(struct memtrace_unwind_row);
	if (mt_unw.bytes + bytes > limit || mt_unw.nr_tables == MT_UNWIND_MAX_TABLES)
		return ERR_PTR(-ENOSPC);
	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return ERR_PTR(-ENOMEM);
	t->rows = kvmalloc(bytes, GFP_KERNEL);
	if (!t->rows) {
		kfree(t);
		return ERR_PTR(-ENOMEM);
	}
	ret = copy_from_user(t->rows, urows, bytes) ? -EFAULT : 0;
	if (!ret)
		ret = mt_unwind_validate(t->rows, ut->nr_rows, file_size);
	if (ret)
		goto fail;
	/* The index counts against the bound too: a sparse table's could outweigh its rows. */
	index_bytes = 0;
	if (ut->nr_rows >= MT_UNWIND_INDEX_MIN_ROWS) {
		t->nr_buckets = mt_unwind_nr_buckets(t->rows, ut->nr_rows);
		index_bytes = (size_t)t->nr_buckets * sizeof(*t->bucket);
		ret = -ENOSPC;
		if (mt_unw.bytes + bytes + index_bytes > limit)
			goto fail;
		ret = -ENOMEM;
		t->bucket = kvmalloc_array(t->nr_buckets, sizeof(*t->bucket), GFP_KERNEL);
		if (!t->bucket)
			goto fail;
		mt_unwind_index(t->rows, ut->nr_rows, t->bucket, t->nr_buckets);
	}
	t->nr_rows = ut->nr_rows;
	t->build_id_len = ut->build_id_len;
	memcpy(t->build_id, ut->build_id, ut->build_id_len);
	mt_unw.tables[mt_unw.nr_tables++] = t;
	mt_unw.bytes += bytes + index_bytes;
	return t;
fail:
	kvfree(t->rows);
	kfree(t);
	return ERR_PTR(ret);
}

int mt_unwind_add_table(const struct memtrace_unwind_table *ut)
{
	struct mt_unwind_table *t;
	struct inode *inode;
	struct file *file;
	int ret;

	if (ut->version != MEMTRACE_UNWIND_TABLE_VERSION || ut->__pad ||
	    ut->row_size != sizeof(struct memtrace_unwind_row) ||
	    ut->build_id_len > sizeof(ut->build_id))
		return -EINVAL;
	file = fget(ut->fd);
	if (!file)
		return -EBADF;
	inode = file_inode(file);
	if (!S_ISREG(inode->i_mode) || !(file->f_mode & FMODE_READ)) {
		fput(file);
		return -EINVAL;
	}
	t = mt_unwind_by_build_id(ut->build_id, ut->build_id_len);
	/* Shared only with a file the table fits: a build id is the reader's word. */
	if (t && t->rows[t->nr_rows - 1].start >= i_size_read(inode))
		t = ERR_PTR(-EINVAL);
	else if (!t)
		t = mt_unwind_load(ut, i_size_read(inode));
	ret = IS_ERR(t) ? PTR_ERR(t) : mt_unwind_bind(file, t);
	/* A table loaded for no file stays until release: bounded, and shared later. */
	fput(file);
	return ret;
}

void mt_unwind_release(void)
{
	u32 i;

	for (i = 0; i < mt_unw.nr_files; i++)
		fput(mt_unw.files[i].file);
	for (i = 0; i < mt_unw.nr_tables; i++) {
		kvfree(mt_unw.tables[i]->bucket);
		kvfree(mt_unw.tables[i]->rows);
		kfree(mt_unw.tables[i]);
	}
	memset(&mt_unw, 0, sizeof(mt_unw));
}

bool mt_unwind_active(void)
{
	return READ_ONCE(mt_unw.nr_files) != 0;
}

void mt_unwind_snapshot(struct memtrace_unwind_stats *st)
{
	st->nr_tables = mt_unw.nr_tables;
	/* Under mt.lock, as tables are added: no ordering needed beyond the lock. */
	st->nr_files = mt_unw.nr_files;
	st->table_bytes = mt_unw.bytes;
}

/* ---- the event hooks' counts ------------------------------------------ */

void mt_unwind_count(struct memtrace_unwind_stats __percpu *sum,
		     const struct memtrace_unwind_stats *st)
{
	this_cpu_add(sum->frames_cfi, st->frames_cfi);
	this_cpu_add(sum->frames_fp, st->frames_fp);
	this_cpu_add(sum->frames_signal, st->frames_signal);
	this_cpu_add(sum->end_outermost, st->end_outermost);
	this_cpu_add(sum->end_no_table, st->end_no_table);
	this_cpu_add(sum->end_unmapped, st->end_unmapped);
	this_cpu_add(sum->end_bad_rule, st->end_bad_rule);
	this_cpu_add(sum->end_not_up, st->end_not_up);
	this_cpu_add(sum->end_fault, st->end_fault);
	this_cpu_add(sum->mm_busy, st->mm_busy);
}

void mt_unwind_sum(struct memtrace_unwind_stats __percpu *sum,
		   struct memtrace_unwind_stats *total)
{
	unsigned int cpu;

	/* Read while walks add to them: each counter is a snapshot. */
	for_each_possible_cpu(cpu) {
		const struct memtrace_unwind_stats *c = per_cpu_ptr(sum, cpu);

		total->frames_cfi += READ_ONCE(c->frames_cfi);
		total->frames_fp += READ_ONCE(c->frames_fp);
		total->frames_signal += READ_ONCE(c->frames_signal);
		total->end_outermost += READ_ONCE(c->end_outermost);
		total->end_no_table += READ_ONCE(c->end_no_table);
		total->end_unmapped += READ_ONCE(c->end_unmapped);
		total->end_bad_rule += READ_ONCE(c->end_bad_rule);
		total->end_not_up += READ_ONCE(c->end_not_up);
		total->end_fault += READ_ONCE(c->end_fault);
		total->mm_busy += READ_ONCE(c->mm_busy);
	}
	mt_unwind_snapshot(total);
}

void mt_unwind_sum_reset(struct memtrace_unwind_stats __percpu *sum)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		memset(per_cpu_ptr(sum, cpu), 0, sizeof(*sum));
}

/* ---- the walk (inside the hook guard: no sleeping) -------------------- */

/* A mapping looked up: its range, where it lies in its file, its table. */
struct mt_unwind_map {
	unsigned long start, end;	/* the vma's range */
	u64 pgoff_bytes;		/* file offset of start */
	const struct mt_unwind_table *table;	/* NULL: a file with no table */
	bool file;			/* a file mapping at all */
};

/*
 * The mappings a walk looked up last.  A stack's frames lie in a few
 * objects, but it goes back and forth between them (malloc in libc, the
 * program, libc's start-up code, the program's _start): one entry would
 * look each change up again, with find_vma() and the file's table.
 * Valid for one walk only: the mm is read-locked for its length.
 */
#define MT_UNWIND_MAPS	4

struct mt_unwind_maps {
	struct mt_unwind_map map[MT_UNWIND_MAPS];	/* the first nr are valid */
	unsigned int nr;
	unsigned int last;	/* the entry that held the last PC: tried first */
};

enum mt_unwind_where { MT_UNW_UNMAPPED, MT_UNW_NO_TABLE, MT_UNW_ROW };

static const struct mt_unwind_table *mt_unwind_table_of(const struct inode *inode)
{
	/* Pairs with mt_unwind_bind()'s release. */
	u32 n = smp_load_acquire(&mt_unw.nr_files), i;

	for (i = 0; i < n; i++)
		if (file_inode(mt_unw.files[i].file) == inode)
			return mt_unw.files[i].table;
	return NULL;
}

static enum mt_unwind_where mt_unwind_lookup(struct mm_struct *mm, struct mt_unwind_maps *maps,
					     unsigned long pc,
					     const struct memtrace_unwind_row **row)
{
	struct mt_unwind_map *map;
	struct vm_area_struct *vma;
	unsigned int i;
	u64 off;

	if (!mm)
		return MT_UNW_NO_TABLE;
	/* Consecutive frames mostly lie in one object: the last entry first. */
	map = &maps->map[maps->last];
	if (maps->nr && pc >= map->start && pc < map->end)
		goto found;
	for (i = 0; i < maps->nr; i++) {
		map = &maps->map[i];
		if (pc >= map->start && pc < map->end) {
			maps->last = i;
			goto found;
		}
	}
	vma = find_vma(mm, pc);
	if (!vma || vma->vm_start > pc)
		return MT_UNW_UNMAPPED;
	/* A free entry, else the one after the last used. */
	if (maps->nr < MT_UNWIND_MAPS)
		maps->last = maps->nr++;
	else
		maps->last = (maps->last + 1) % MT_UNWIND_MAPS;
	map = &maps->map[maps->last];
	map->start = vma->vm_start;
	map->end = vma->vm_end;
	map->pgoff_bytes = (u64)vma->vm_pgoff << PAGE_SHIFT;
	map->file = vma->vm_file;
	map->table = vma->vm_file ? mt_unwind_table_of(file_inode(vma->vm_file)) : NULL;
found:
	if (!map->file)
		return MT_UNW_UNMAPPED;
	if (!map->table)
		return MT_UNW_NO_TABLE;
	off = pc - map->start + map->pgoff_bytes;
	*row = mt_unwind_find_indexed(map->table, off);
	return *row ? MT_UNW_ROW : MT_UNW_NO_TABLE;
}

static bool mt_unwind_read(unsigned long addr, unsigned long *val)
{
	return !copy_from_user_nofault(val, (const void __user *)addr, sizeof(*val));
}

static bool mt_unwind_is_code(unsigned long pc)
{
	return pc >= MT_UNWIND_CODE_MIN && pc < TASK_SIZE_MAX;
}

/* Words above sp searched for a leaf system-call wrapper's return address. */
#define MT_UNWIND_LEAF_WORDS	16

/*
 * x86-64: ret follows a call: e8 rel32 (5 bytes), or ff /2 with a ModRM
 * of 2 to 7 bytes (an indirect call through a register or memory).
 */
static bool mt_unwind_after_call(unsigned long ret)
{
	u8 b[8];
	int len;

	if (!mt_unwind_is_code(ret) ||
	    copy_from_user_nofault(b, (const void __user *)(ret - sizeof(b)), sizeof(b)))
		return false;
	if (b[3] == 0xe8)
		return true;
	for (len = 2; len <= 7; len++) {
		u8 op = b[8 - len], modrm = b[9 - len];

		if (op == 0xff && (modrm & 0x38) == 0x10)
			return true;
	}
	return false;
}

/*
 * At a system call no table covers: the wrapper's return address (see
 * MT_UNWIND_FROM_SYSCALL), *sp moved past it.  The wrapper's words lie
 * below the caller's frame (bp), its return address the highest of them:
 * a wrapper's own locals (mremap's) hold stale return addresses of
 * earlier calls, below it.  Without a frame pointer to bound them, the
 * lowest one is taken.  1 if found, 0 if not, -EFAULT.
 */
static int mt_unwind_leaf_ret(unsigned long *sp, unsigned long bp, unsigned long *ra)
{
	unsigned long words[MT_UNWIND_LEAF_WORDS];
	unsigned int n = MT_UNWIND_LEAF_WORDS, i, found = n;

	if (bp > *sp)
		n = min_t(unsigned long, n, (bp - *sp) / sizeof(long));
	if (!n)
		return 0;
	if (copy_from_user_nofault(words, (const void __user *)*sp, n * sizeof(long)))
		return -EFAULT;
	for (i = 0; i < n; i++) {
		if (!mt_unwind_after_call(words[i]))
			continue;
		found = i;
		if (bp <= *sp)
			break;
	}
	if (found == n)
		return 0;
	*ra = words[found];
	*sp += (found + 1) * sizeof(long);
	return 1;
}

/* Signal frames stepped over in one stack, at most: each may point anywhere. */
#define MT_UNWIND_MAX_SIGNAL	8

unsigned int mt_unwind_user(struct mm_struct *mm, struct pt_regs *regs,
			    enum mt_unwind_from from, unsigned long *ip, unsigned int max,
			    struct memtrace_unwind_stats *st, bool *faulted)
{
	unsigned long pc = instruction_pointer(regs);
	unsigned long sp = user_stack_pointer(regs);
	unsigned long bp = frame_pointer(regs);
	struct mt_unwind_maps maps;	/* not zeroed: a walk by frame pointers never uses it */
	unsigned int nr = 0, signals = 0;
	bool exact = true;	/* pc is not a return address: look it up as is */

	maps.nr = 0;
	maps.last = 0;
	*faulted = false;
	while (nr < max) {
		const struct memtrace_unwind_row *row = NULL;
		enum mt_unwind_where where;
		unsigned long cfa, ra;

		where = mt_unwind_lookup(mm, &maps, exact ? pc : pc - 1, &row);
		if (where == MT_UNW_ROW && row->cfa_reg == MEMTRACE_UNW_CFA_NONE)
			where = MT_UNW_NO_TABLE;
		if (where == MT_UNW_ROW) {
			switch (row->cfa_reg) {
			case MEMTRACE_UNW_CFA_END:
				st->end_outermost++;
				return nr;
			case MEMTRACE_UNW_CFA_BAD:
				st->end_bad_rule++;
				return nr;
			case MEMTRACE_UNW_CFA_SIGNAL:
				/* sp is at the ucontext the kernel pushed for the handler. */
				if (++signals > MT_UNWIND_MAX_SIGNAL) {
					st->end_bad_rule++;
					return nr;
				}
				if (!mt_unwind_read(sp + MT_UC_RIP, &ra) ||
				    !mt_unwind_read(sp + MT_UC_RBP, &bp) ||
				    !mt_unwind_read(sp + MT_UC_RSP, &sp))
					goto fault;
				st->frames_signal++;
				/*
				 * The interrupted PC is exact, not a return
				 * address: it is recorded + 1, so that a
				 * symbolizer, which looks a frame up at its
				 * address - 1, names the instruction itself.
				 */
				exact = true;
				pc = ra;
				ip[nr++] = pc + 1;
				continue;
			}
			cfa = (row->cfa_reg == MEMTRACE_UNW_CFA_RSP ? sp : bp) + row->cfa_off;
			if (cfa <= sp) {
				st->end_not_up++;
				return nr;
			}
			if (!mt_unwind_read(cfa + row->ra_off, &ra))
				goto fault;
			if (row->rbp_rule == MEMTRACE_UNW_RBP_AT_CFA &&
			    !mt_unwind_read(cfa + row->rbp_off, &bp))
				goto fault;
			sp = cfa;
			st->frames_cfi++;
			/* A return address of 0 marks the outermost frame too. */
			if (!mt_unwind_is_code(ra)) {
				st->end_outermost++;
				return nr;
			}
		} else if (from == MT_UNWIND_FROM_ENTRY && !nr) {
			/* A function's first instruction: its return address is at [sp]. */
			if (!mt_unwind_read(sp, &ra))
				goto fault;
			sp += sizeof(long);
			st->frames_fp++;
		} else {
			struct {
				unsigned long next_bp;
				unsigned long ret;
			} frame;
			int leaf;

			if (from == MT_UNWIND_FROM_SYSCALL && !nr) {
				leaf = mt_unwind_leaf_ret(&sp, bp, &ra);
				if (leaf < 0)
					goto fault;
				if (leaf > 0) {
					st->frames_fp++;
					goto found;
				}
			}

			/* The frame pointer's frame must lie at or above the stack pointer. */
			if (bp < sp || !IS_ALIGNED(bp, sizeof(long))) {
				if (where == MT_UNW_UNMAPPED)
					st->end_unmapped++;
				else
					st->end_no_table++;
				return nr;
			}
			if (copy_from_user_nofault(&frame, (const void __user *)bp, sizeof(frame)))
				goto fault;
			/* Code without frame pointers leaves rbp holding data. */
			if (!mt_unwind_is_code(frame.ret)) {
				if (where == MT_UNW_UNMAPPED)
					st->end_unmapped++;
				else
					st->end_no_table++;
				return nr;
			}
			ra = frame.ret;
			sp = bp + sizeof(frame);
			bp = frame.next_bp;
			st->frames_fp++;
		}
found:
		exact = false;
		pc = ra;
		ip[nr++] = pc;
	}
	return nr;
fault:
	st->end_fault++;
	*faulted = true;
	return nr;
}
