// SPDX-License-Identifier: GPL-2.0
/*
 * Aliases of merged slab caches from SLUB's sysfs; see slabalias.h.
 */
#include "slabalias.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

unsigned int slab_aliases(const char *name, char *buf, size_t len)
{
	const char *root = getenv(SLABALIAS_ROOT_ENV);
	char path[PATH_MAX], target[PATH_MAX], other[PATH_MAX];
	char **names = NULL;
	size_t nr = 0, cap = 0, pos = 0;
	struct dirent *d;
	ssize_t n;
	DIR *dir;

	buf[0] = '\0';
	if (!root || !root[0])
		root = SLABALIAS_DEFAULT_ROOT;
	if (strchr(name, '/'))
		return 0;
	snprintf(path, sizeof(path), "%s/%s", root, name);
	/* An unmerged cache is a directory; a merged one a link to its own. */
	n = readlink(path, target, sizeof(target) - 1);
	if (n <= 0)
		return 0;
	target[n] = '\0';
	dir = opendir(root);
	if (!dir)
		return 0;
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.' || !strcmp(d->d_name, name))
			continue;
		snprintf(path, sizeof(path), "%s/%s", root, d->d_name);
		n = readlink(path, other, sizeof(other) - 1);
		if (n <= 0)
			continue;
		other[n] = '\0';
		if (strcmp(other, target))
			continue;
		if (nr == cap) {
			char **bigger = realloc(names, (cap ? cap * 2 : 8) * sizeof(*names));

			if (!bigger)
				break;
			names = bigger;
			cap = cap ? cap * 2 : 8;
		}
		names[nr] = strdup(d->d_name);
		if (names[nr])
			nr++;
	}
	closedir(dir);
	if (nr)
		qsort(names, nr, sizeof(*names), name_cmp);
	for (size_t i = 0; i < nr; i++) {
		if (pos < len)
			pos += (size_t)snprintf(buf + pos, len - pos, "%s%s", i ? ", " : "",
						names[i]);
		free(names[i]);
	}
	free(names);
	return (unsigned int)nr;
}
