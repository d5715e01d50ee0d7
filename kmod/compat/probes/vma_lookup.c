// SPDX-License-Identifier: GPL-2.0
/* vma_lookup(): the VMA that contains addr (5.14). */
#include <linux/mm.h>

struct vm_area_struct *memtrace_probe(struct mm_struct *mm, unsigned long addr);
struct vm_area_struct *memtrace_probe(struct mm_struct *mm, unsigned long addr)
{
	return vma_lookup(mm, addr);
}
