// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel build-ids from sysfs; see kbuildid.h.  A notes file is a run of
 * ELF notes, not an ELF file, and gelf_getnote() reads only the data of a
 * section: the notes are wrapped in the smallest ELF image that has them
 * as its one SHT_NOTE section (header, data, section headers), which
 * elf_memory() then opens.  Nothing here walks the notes by hand.
 */
#include "kbuildid.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef NT_GNU_BUILD_ID
#define NT_GNU_BUILD_ID 3
#endif

/* A notes file is small (vmlinux's: a few hundred bytes); more is not notes. */
#define NOTES_MAX	(64 * 1024)

/* The image: [ELF header][notes][section headers: none, the notes]. */
struct image_layout {
	size_t notes_at, shdrs_at, size;
};

static struct image_layout layout_of(size_t len)
{
	struct image_layout l;

	l.notes_at = sizeof(Elf64_Ehdr);
	l.shdrs_at = (l.notes_at + len + 7) & ~(size_t)7;
	l.size = l.shdrs_at + 2 * sizeof(Elf64_Shdr);
	return l;
}

/* The notes as an ELF image in the machine's own byte order (the kernel's). */
static char *wrap_notes(const void *notes, size_t len, size_t *size)
{
	struct image_layout l = layout_of(len);
	const uint16_t one = 1;
	Elf64_Shdr sh[2];
	Elf64_Ehdr eh;
	char *img = calloc(1, l.size);

	if (!img)
		return NULL;
	memset(&eh, 0, sizeof(eh));
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = *(const uint8_t *)&one ? ELFDATA2LSB : ELFDATA2MSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_NONE;
	eh.e_version = EV_CURRENT;
	eh.e_ehsize = sizeof(eh);
	eh.e_shoff = l.shdrs_at;
	eh.e_shentsize = sizeof(Elf64_Shdr);
	eh.e_shnum = 2;
	eh.e_shstrndx = SHN_UNDEF;
	memset(sh, 0, sizeof(sh));
	sh[1].sh_type = SHT_NOTE;
	sh[1].sh_offset = l.notes_at;
	sh[1].sh_size = len;
	/* The kernel's notes are 4-byte aligned (ELF_T_NHDR, not NHDR8). */
	sh[1].sh_addralign = 4;
	memcpy(img, &eh, sizeof(eh));
	memcpy(img + l.notes_at, notes, len);
	memcpy(img + l.shdrs_at, sh, sizeof(sh));
	*size = l.size;
	return img;
}

bool kbuildid_parse(const void *notes, size_t len, char *hex, size_t hex_len)
{
	size_t size, off = 0, name_off, desc_off;
	Elf_Data *data = NULL;
	Elf_Scn *scn;
	bool found = false;
	Elf *elf = NULL;
	GElf_Nhdr nh;
	char *img;

	if (hex_len)
		hex[0] = '\0';
	if (!len || elf_version(EV_CURRENT) == EV_NONE)
		return false;
	img = wrap_notes(notes, len, &size);
	if (!img)
		return false;
	elf = elf_memory(img, size);
	scn = elf ? elf_getscn(elf, 1) : NULL;
	if (scn)
		data = elf_getdata(scn, NULL);
	while (data && !found && (off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		const uint8_t *desc = (const uint8_t *)data->d_buf + desc_off;

		if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != sizeof(ELF_NOTE_GNU) ||
		    memcmp((const char *)data->d_buf + name_off, ELF_NOTE_GNU,
			   sizeof(ELF_NOTE_GNU)))
			continue;
		if (!nh.n_descsz || 2 * (size_t)nh.n_descsz + 1 > hex_len)
			break;
		for (size_t i = 0; i < nh.n_descsz; i++)
			snprintf(hex + 2 * i, 3, "%02x", desc[i]);
		found = true;
	}
	if (elf)
		elf_end(elf);
	free(img);
	return found;
}

/* The whole of a small file, or NULL. */
static void *read_small(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char *buf;
	ssize_t n;

	*len = 0;
	if (fd < 0)
		return NULL;
	buf = malloc(NOTES_MAX);
	while (buf && *len < NOTES_MAX) {
		n = read(fd, buf + *len, NOTES_MAX - *len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n < 0) {
				free(buf);
				buf = NULL;
			}
			break;
		}
		*len += (size_t)n;
	}
	close(fd);
	return buf;
}

/* A module's name as the kernel has it: nothing that would leave /sys/module. */
static bool module_name(const char *s)
{
	size_t n = 0;

	for (; s[n]; n++)
		if (!isalnum((unsigned char)s[n]) && s[n] != '_' && s[n] != '-')
			return false;
	return n > 0 && n < 64;
}

bool kbuildid_of(const char *module, char *hex, size_t hex_len)
{
	const char *root = getenv(KBUILDID_SYSFS_ENV);
	char path[512];
	bool found = false;
	size_t len;
	void *notes;

	if (hex_len)
		hex[0] = '\0';
	if (!module || !module_name(module))
		return false;
	if (!root || !*root)
		root = "/sys";
	if (!strcmp(module, "kernel"))
		snprintf(path, sizeof(path), "%s/kernel/notes", root);
	else
		snprintf(path, sizeof(path), "%s/module/%s/notes/.note.gnu.build-id", root,
			 module);
	notes = read_small(path, &len);
	if (notes)
		found = kbuildid_parse(notes, len, hex, hex_len);
	free(notes);
	return found;
}
