// SPDX-License-Identifier: GPL-2.0
/* An object's separate debug file; see debugfile.h. */
#include "debugfile.h"

#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

/*
 * path, opened, if it is the debug file of an object with build-id id
 * (len bytes; 0: the object has none, any file will do).
 */
static int open_debug_file(const char *path, const unsigned char *id, int len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	const void *found;
	Elf *elf;
	bool same;

	if (fd < 0 || len <= 0)
		return fd;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	same = elf && dwelf_elf_gnu_build_id(elf, &found) == len && !memcmp(found, id, (size_t)len);
	elf_end(elf);
	if (!same) {
		close(fd);
		return -1;
	}
	return fd;
}

static int found_debug_file(int fd, const char *path, char **found)
{
	*found = strdup(path);
	if (!*found) {
		close(fd);
		return -1;
	}
	return fd;
}

int debugfile_find(const char *root, const char *file_name, const unsigned char *id, int len,
		   const char *debuglink, char **found)
{
	char path[PATH_MAX], hex[2 * 64 + 1];
	int fd;

	if (len > 1 && len <= 64) {
		for (int i = 0; i < len; i++)
			snprintf(hex + 2 * i, 3, "%02x", id[i]);
		for (int ours = 0; ours < 2; ours++) {
			snprintf(path, sizeof(path), "%s/usr/lib/debug/.build-id/%.2s/%s.debug",
				 ours ? "" : root, hex, hex + 2);
			fd = open_debug_file(path, id, len);
			if (fd >= 0)
				return found_debug_file(fd, path, found);
		}
	}
	/*
	 * The object's path is as /proc/PID/maps shows it to us: in our tree
	 * if we can reach its file (a chroot's), else in its process's (a
	 * mount namespace of its own).  Look in both; in ours, a file must
	 * have the object's build-id to be taken.
	 */
	if (debuglink && file_name && file_name[0] == '/' && !strchr(debuglink, '/')) {
		static const char *const where[] = { "%s%.*s/%s", "%s%.*s/.debug/%s",
						     "%s/usr/lib/debug%.*s/%s" };
		int dir = (int)(strrchr(file_name, '/') - file_name);

		for (int ours = 0; ours < 2 && (!ours || len > 0); ours++) {
			for (size_t i = 0; i < MT_ARRAY_SIZE(where); i++) {
				const char *base = ours ? "" : root;

				snprintf(path, sizeof(path), where[i], base, dir, file_name,
					 debuglink);
				/* The object's own file, if it keeps its debug info. */
				if (!strcmp(path + strlen(base), file_name))
					continue;
				fd = open_debug_file(path, id, len);
				if (fd >= 0)
					return found_debug_file(fd, path, found);
			}
		}
	}
	return -1;
}
