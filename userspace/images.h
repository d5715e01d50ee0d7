/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The program images a user-mode session traces, one per slot of the
 * module (memtrace_target_state.procs): the target, each image a traced
 * process exec'd (a wrapper such as env or a shell script, then the real
 * program), and each child followed.  Each image has its own symbols
 * (usyms), read while its process still maps them; a forked child shares
 * the image it was forked from.  So every stack is symbolized with the
 * mappings of the image that made it, and a report can say whose it is.
 *
 * The reader learns of an image when its process is held after the exec
 * (-c: spawn.h) or when it attaches (-p); the module numbers slots in the
 * order it takes address spaces in.  images_sync() pairs them: a process's
 * images, in the order they were seen, with its target and exec slots, in
 * slot order.
 */
#ifndef MEMTRACE_READ_IMAGES_H
#define MEMTRACE_READ_IMAGES_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <linux/memtrace.h>

#include "usyms.h"
#include "util.h"

struct images;

struct images *images_new(void);
void images_free(struct images *im);

/*
 * A new image of process pid, whose libraries are mapped: reads its
 * executable's path and opens its symbols now.  0 or -errno with a message.
 */
int images_add(struct images *im, pid_t pid, struct mt_err *err);

/*
 * Re-reads the mappings of pid's latest image (a library loaded since),
 * while it still maps them: before an exit, before a report.
 */
void images_refresh(struct images *im, pid_t pid);

/*
 * Pairs the images seen with the slots the module reports.  With
 * late (-p, which does not see execs happen), an exec slot no image was
 * seen for gets one now, if it is its process's current image.
 */
void images_sync(struct images *im, const struct memtrace_target_state *t, bool late);

/* The symbols of slot's image (a forked child's: its parent's); NULL if none. */
struct usyms *images_usyms(const struct images *im, unsigned int slot);

/*
 * The same, or before slot was paired (-t prints records as they come),
 * the symbols of the latest image of process pid.
 */
struct usyms *images_usyms_of(const struct images *im, unsigned int slot, pid_t pid);

/* How many images (slots with an image of their own) are known. */
size_t images_count(const struct images *im);

/*
 * "pid 12 /usr/bin/env" for a slot ("pid 12" if its executable is not
 * known), in buf.
 */
const char *images_name(const struct images *im, unsigned int slot, char *buf, size_t len);

#endif
