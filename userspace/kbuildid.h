/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The GNU build-ids of the running kernel and of its modules, as sysfs
 * shows their ELF notes: /sys/kernel/notes (every note vmlinux was linked
 * with) and /sys/module/NAME/notes/.note.gnu.build-id.  They name the
 * exact vmlinux and .ko files a profile's kernel frames came from, so a
 * profiler (go tool pprof, Pyroscope, Parca) can find their debug files.
 */
#ifndef MEMTRACE_READ_KBUILDID_H
#define MEMTRACE_READ_KBUILDID_H

#include <stdbool.h>
#include <stddef.h>

/* Overrides /sys, for tests against a fixture tree. */
#define KBUILDID_SYSFS_ENV "MEMTRACE_SYSFS"

/* A build-id in hex, and its NUL: notes give at most 64 bytes (sha1 is 20). */
#define KBUILDID_HEX_LEN (2 * 64 + 1)

/*
 * The GNU build-id (owner "GNU", type NT_GNU_BUILD_ID) among the ELF notes
 * notes[0..len), as a notes file holds them, into hex (len >= 2 * size +
 * 1).  libelf takes the notes apart (gelf_getnote()).  False if there is
 * none or the notes are malformed: hex is then "".
 */
bool kbuildid_parse(const void *notes, size_t len, char *hex, size_t hex_len);

/*
 * The build-id of module ("kernel": vmlinux) of the running kernel, into
 * hex (KBUILDID_HEX_LEN).  False, hex "", if it cannot be known: no such
 * module (unloaded since), no note, a file that cannot be read, a name
 * that is no module's (a user object's, "module init").
 */
bool kbuildid_of(const char *module, char *hex, size_t hex_len);

#endif
