// SPDX-License-Identifier: GPL-2.0
/*
 * 6.12: uprobe_register() returns the struct uprobe, which unregistering
 * takes (uprobe_unregister_nosync() + uprobe_unregister_sync()); before,
 * it returned an int and uprobe_unregister() took (inode, offset).
 */
#include <linux/uprobes.h>

void memtrace_probe(struct inode *inode, struct uprobe_consumer *uc);
void memtrace_probe(struct inode *inode, struct uprobe_consumer *uc)
{
	struct uprobe *u = uprobe_register(inode, 0, 0, uc);

	if (!IS_ERR(u))
		uprobe_unregister_nosync(u, uc);
	uprobe_unregister_sync();
}
