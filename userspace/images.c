// SPDX-License-Identifier: GPL-2.0
/*
 * The images of a user-mode session; see images.h.
 */
#include "images.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "procfs.h"

struct image {
	pid_t pid;
	char *path;		/* its executable, as its process names it */
	struct usyms *usyms;
	bool paired;
};

struct images {
	struct image *v;
	size_t nr, cap;
	/* Per slot, once paired: its image (a forked child's: its parent's). */
	bool synced[MEMTRACE_MAX_PROCS];
	int image_of[MEMTRACE_MAX_PROCS];
	pid_t pid_of[MEMTRACE_MAX_PROCS];
};

struct images *images_new(void)
{
	return calloc(1, sizeof(struct images));
}

void images_free(struct images *im)
{
	if (!im)
		return;
	for (size_t i = 0; i < im->nr; i++) {
		usyms_free(im->v[i].usyms);
		free(im->v[i].path);
	}
	free(im->v);
	free(im);
}

int images_add(struct images *im, pid_t pid, struct mt_err *err)
{
	char link[64], path[PATH_MAX];
	struct image *img;
	ssize_t n;
	int ret;

	if (im->nr == im->cap) {
		size_t cap = im->cap ? im->cap * 2 : 8;
		struct image *v = realloc(im->v, cap * sizeof(*v));

		if (!v)
			return mt_errf(err, ENOMEM, "out of memory");
		im->v = v;
		im->cap = cap;
	}
	img = &im->v[im->nr];
	memset(img, 0, sizeof(*img));
	img->pid = pid;
	n = readlink(procfs_path(pid, "exe", link, sizeof(link)), path, sizeof(path) - 1);
	if (n > 0) {
		path[n] = '\0';
		img->path = strdup(path);
	}
	ret = usyms_new(pid, &img->usyms, err);
	if (ret) {
		free(img->path);
		return ret;
	}
	im->nr++;
	return 0;
}

static struct image *latest(const struct images *im, pid_t pid)
{
	for (size_t i = im->nr; i-- > 0;)
		if (im->v[i].pid == pid)
			return &im->v[i];
	return NULL;
}

void images_refresh(struct images *im, pid_t pid)
{
	struct image *img = latest(im, pid);
	struct mt_err ignored;

	if (img)
		usyms_refresh(img->usyms, &ignored);
}

/* The first image of pid not paired with a slot yet. */
static int next_unpaired(const struct images *im, pid_t pid)
{
	for (size_t i = 0; i < im->nr; i++)
		if (im->v[i].pid == pid && !im->v[i].paired)
			return (int)i;
	return -1;
}

/* No later slot holds another image of the same process. */
static bool is_current(const struct memtrace_target_state *t, unsigned int slot)
{
	for (unsigned int i = slot + 1; i < t->nr_processes; i++)
		if (t->procs[i].pid == t->procs[slot].pid)
			return false;
	return true;
}

void images_sync(struct images *im, const struct memtrace_target_state *t, bool late)
{
	unsigned int n = t->nr_processes < MEMTRACE_MAX_PROCS ? t->nr_processes : MEMTRACE_MAX_PROCS;

	for (unsigned int i = 0; i < n; i++) {
		const struct memtrace_proc *p = &t->procs[i];
		int img;

		if (im->synced[i])
			continue;
		im->pid_of[i] = p->pid;
		/* Not traced from its exec: /proc shows an image it has no allocations of. */
		if (p->flags & MEMTRACE_PROCF_EXEC_REFUSED)
			continue;
		if (p->how == MEMTRACE_PROC_FORK) {
			if (p->from >= i || !im->synced[p->from])
				continue;
			im->image_of[i] = im->image_of[p->from];
			im->synced[i] = true;
			continue;
		}
		img = next_unpaired(im, p->pid);
		if (img < 0 && late && is_current(t, i) && procfs_alive(p->pid)) {
			struct mt_err ignored;

			if (images_add(im, p->pid, &ignored) == 0)
				img = (int)im->nr - 1;
		}
		if (img < 0)
			continue;
		im->v[img].paired = true;
		im->image_of[i] = img;
		im->synced[i] = true;
	}
}

struct usyms *images_usyms(const struct images *im, unsigned int slot)
{
	if (slot >= MEMTRACE_MAX_PROCS || !im->synced[slot])
		return NULL;
	return im->v[im->image_of[slot]].usyms;
}

struct usyms *images_usyms_of(const struct images *im, unsigned int slot, pid_t pid)
{
	struct usyms *u = images_usyms(im, slot);
	const struct image *img;

	if (u)
		return u;
	img = latest(im, pid);
	return img ? img->usyms : NULL;
}

size_t images_count(const struct images *im)
{
	return im->nr;
}

const char *images_name(const struct images *im, unsigned int slot, char *buf, size_t len)
{
	const char *path = NULL;

	if (slot < MEMTRACE_MAX_PROCS && im->synced[slot])
		path = im->v[im->image_of[slot]].path;
	if (slot >= MEMTRACE_MAX_PROCS || !im->pid_of[slot])
		snprintf(buf, len, "slot %u", slot);
	else if (path)
		snprintf(buf, len, "pid %d %s", (int)im->pid_of[slot], path);
	else
		snprintf(buf, len, "pid %d", (int)im->pid_of[slot]);
	return buf;
}
