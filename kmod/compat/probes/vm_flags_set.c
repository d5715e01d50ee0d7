// SPDX-License-Identifier: GPL-2.0
/* 6.3: vm_flags became read-only; vm_flags_set()/vm_flags_clear() write it. */
#include <linux/mm.h>

void memtrace_probe(struct vm_area_struct *vma);
void memtrace_probe(struct vm_area_struct *vma)
{
	vm_flags_set(vma, VM_DONTEXPAND);
}
