// SPDX-License-Identifier: GPL-2.0
/*
 * The loader's debugger interface; see loader.h.
 */
#include "loader.h"

#include <errno.h>
#include <link.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "elfsyms.h"
#include "linkmap.h"
#include "procmaps.h"

int loader_find(int pid, struct loader_hook *hook, struct mt_err *err)
{
	struct mapped_object *maps = NULL;
	char exe[64];
	struct stat st;
	size_t nr = 0;
	int rc;

	rc = procmaps_read(pid, &maps, &nr, err);
	if (rc)
		return rc;
	snprintf(exe, sizeof(exe), "/proc/%d/exe", pid);
	if (stat(exe, &st))
		memset(&st, 0, sizeof(st));
	rc = -ENOENT;
	/*
	 * Right after an exec: the executable and its loader, if any.  A
	 * static program defines _dl_debug_state too (for its dlopen()), but
	 * has no loader to call it at its start: only another object counts,
	 * or the executable when it is no program but ld.so run as a command
	 * ("ld.so ./prog"), which loads the program and its libraries next.
	 */
	for (size_t i = 0; i < nr && rc == -ENOENT; i++) {
		uint64_t brk, r_debug, load;
		struct mt_err ignored;

		if (!maps[i].executable || (maps[i].inode == st.st_ino &&
					    maps[i].major == major(st.st_dev) &&
					    maps[i].minor == minor(st.st_dev) &&
					    linkmap_is_program(maps[i].open_path)) ||
		    elfsyms_lookup(maps[i].open_path, "_dl_debug_state", &brk, &load, &ignored))
			continue;
		/* maps[i].start is where its first byte (PT_LOAD at offset 0) is mapped. */
		hook->brk = maps[i].start - load + brk;
		hook->r_state = 0;
		if (!elfsyms_lookup(maps[i].open_path, "_r_debug", &r_debug, &load, &ignored))
			hook->r_state = maps[i].start - load + r_debug +
					offsetof(struct r_debug, r_state);
		rc = 0;
	}
	if (rc == -ENOENT)
		mt_errf(err, ENOENT, "pid %d maps no dynamic loader (_dl_debug_state): "
			"statically linked", pid);
	free(maps);
	return rc;
}
