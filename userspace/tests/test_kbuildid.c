// SPDX-License-Identifier: GPL-2.0
/*
 * kbuildid.c: the build-id among notes as sysfs shows them, against
 * binutils (readelf -n of a program linked here, whose note section
 * objcopy extracts as sysfs would give it), notes laid out as
 * /sys/kernel/notes has them (Linux and Xen notes around the GNU one),
 * and a sysfs tree ($MEMTRACE_SYSFS) where notes are missing, cut short
 * or asked for by a name that is no module's.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../kbuildid.h"
#include "harness.h"

/* Appends one note (4-byte aligned name and descriptor) at buf + *at. */
static void put_note(uint8_t *buf, size_t *at, const char *name, uint32_t type,
		     const void *desc, uint32_t desc_len)
{
	uint32_t hdr[3] = { (uint32_t)strlen(name) + 1, desc_len, type };

	memcpy(buf + *at, hdr, sizeof(hdr));
	*at += sizeof(hdr);
	memcpy(buf + *at, name, hdr[0]);
	*at += (hdr[0] + 3) & ~3U;
	memcpy(buf + *at, desc, desc_len);
	*at += (desc_len + 3) & ~3U;
}

static bool write_bytes(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "w");
	bool ok = f && fwrite(buf, 1, len, f) == len;

	if (f && fclose(f))
		ok = false;
	return ok;
}

/* Notes as vmlinux has them: Linux's, the GNU build-id, then Xen's. */
static size_t kernel_notes(uint8_t *buf, const uint8_t id[20])
{
	static const uint8_t xen[12] = { 1, 0, 0, 0, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0x3f };
	size_t at = 0;

	memset(buf, 0, 512);
	put_note(buf, &at, "Linux", 0x101, "\0\0\0\0", 4);
	put_note(buf, &at, "GNU", 3, id, 20);
	put_note(buf, &at, "Linux", 6, "6.1.0-56-amd64", 15);
	put_note(buf, &at, "Xen", 0x13, xen, sizeof(xen));
	return at;
}

static void test_parse(void)
{
	uint8_t id[20], buf[512];
	char hex[KBUILDID_HEX_LEN], small[8];
	size_t len;

	for (int i = 0; i < 20; i++)
		id[i] = (uint8_t)(0xa0 + i);
	len = kernel_notes(buf, id);
	check(kbuildid_parse(buf, len, hex, sizeof(hex)) &&
	      !strcmp(hex, "a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3"),
	      "kbuildid: the GNU note among /sys/kernel/notes' others (%s)", hex);
	check(!kbuildid_parse(buf, 10, hex, sizeof(hex)) && !hex[0],
	      "kbuildid: notes cut short: no build-id, empty");
	check(!kbuildid_parse(buf, 0, hex, sizeof(hex)) && !hex[0], "kbuildid: no notes");
	len = 0;
	put_note(buf, &len, "Linux", 6, "6.1", 4);
	check(!kbuildid_parse(buf, len, hex, sizeof(hex)) && !hex[0],
	      "kbuildid: notes without a GNU build-id: none");
	len = 0;
	put_note(buf, &len, "GNU", 1, id, 16);	/* NT_GNU_ABI_TAG, not the id */
	put_note(buf, &len, "GNU", 3, id, 8);
	check(kbuildid_parse(buf, len, hex, sizeof(hex)) && !strcmp(hex, "a0a1a2a3a4a5a6a7"),
	      "kbuildid: another GNU note first, then an 8-byte id (%s)", hex);
	check(!kbuildid_parse(buf, len, small, sizeof(small)) && !small[0],
	      "kbuildid: an id too long for the buffer is refused, not cut");
}

/* A program's build-id by readelf, its note section's bytes by objcopy. */
static void test_against_binutils(void)
{
	char dir[64], src[128], bin[128], notes[160], cmd[512], want[KBUILDID_HEX_LEN] = "";
	char hex[KBUILDID_HEX_LEN];
	size_t len = 0;
	char *buf = NULL;
	FILE *p;

	if (!make_tmpdir(dir, sizeof(dir), "kbuildid")) {
		check(false, "kbuildid: a temporary directory");
		return;
	}
	snprintf(src, sizeof(src), "%s/prog.c", dir);
	snprintf(bin, sizeof(bin), "%s/prog", dir);
	snprintf(notes, sizeof(notes), "%s/build-id.notes", dir);
	write_bytes(src, "int main(void) { return 0; }\n", 29);
	if (!check(run_quiet("cc -Wl,--build-id=sha1 -o '%s' '%s' && objcopy -O binary "
			     "--only-section=.note.gnu.build-id '%s' '%s'", bin, src, bin, notes),
		   "kbuildid: a program linked with a build-id, its note section extracted")) {
		remove_tree(dir);
		return;
	}
	snprintf(cmd, sizeof(cmd), "readelf -n '%s' | sed -n 's/^ *Build ID: //p'", bin);
	p = popen(cmd, "r");
	if (p) {
		if (!fgets(want, sizeof(want), p))
			want[0] = '\0';
		want[strcspn(want, "\n")] = '\0';
		pclose(p);
	}
	buf = read_file(notes, &len);
	check(buf && strlen(want) == 40 && kbuildid_parse(buf, len, hex, sizeof(hex)) &&
	      !strcmp(hex, want),
	      "kbuildid: a linked program's .note.gnu.build-id as readelf -n reads it (%s)", want);
	free(buf);
	remove_tree(dir);
}

static void test_sysfs(void)
{
	char dir[64], path[256], hex[KBUILDID_HEX_LEN];
	const char *old = getenv(KBUILDID_SYSFS_ENV);
	char *saved = old ? strdup(old) : NULL;
	uint8_t id[20], buf[512];
	size_t len = 0;

	if (!make_tmpdir(dir, sizeof(dir), "kbuildid-sys")) {
		check(false, "kbuildid: a temporary sysfs tree");
		free(saved);
		return;
	}
	for (int i = 0; i < 20; i++)
		id[i] = (uint8_t)(0x10 * (i % 16) + i % 7);
	run_quiet("mkdir -p %s/kernel %s/module/ext4/notes %s/module/cut/notes "
		  "%s/module/nonotes", dir, dir, dir, dir);
	snprintf(path, sizeof(path), "%s/kernel/notes", dir);
	write_bytes(path, buf, kernel_notes(buf, id));
	put_note(buf, &len, "GNU", 3, "\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c"
		 "\x0d\x0e\x0f\x10\x11\x12\x13\x14", 20);
	snprintf(path, sizeof(path), "%s/module/ext4/notes/.note.gnu.build-id", dir);
	write_bytes(path, buf, len);
	snprintf(path, sizeof(path), "%s/module/cut/notes/.note.gnu.build-id", dir);
	write_bytes(path, buf, len - 6);
	setenv(KBUILDID_SYSFS_ENV, dir, 1);
	check(kbuildid_of("kernel", hex, sizeof(hex)) &&
	      !strcmp(hex, "00112233445566708192a3b4c5d6e0f102132435"),
	      "kbuildid: vmlinux's from kernel/notes (%s)", hex);
	check(kbuildid_of("ext4", hex, sizeof(hex)) &&
	      !strcmp(hex, "0102030405060708090a0b0c0d0e0f1011121314"),
	      "kbuildid: a module's from module/NAME/notes/.note.gnu.build-id (%s)", hex);
	check(!kbuildid_of("cut", hex, sizeof(hex)) && !hex[0] &&
	      !kbuildid_of("nonotes", hex, sizeof(hex)) && !hex[0] &&
	      !kbuildid_of("gone", hex, sizeof(hex)) && !hex[0],
	      "kbuildid: a note cut short, no notes, a module unloaded: empty, not an error");
	check(!kbuildid_of("../kernel", hex, sizeof(hex)) && !hex[0] &&
	      !kbuildid_of("libc.so.6", hex, sizeof(hex)) && !kbuildid_of("module init", hex,
									sizeof(hex)) &&
	      !kbuildid_of("", hex, sizeof(hex)) && !kbuildid_of(NULL, hex, sizeof(hex)),
	      "kbuildid: names that are no module's are not looked for");
	if (saved)
		setenv(KBUILDID_SYSFS_ENV, saved, 1);
	else
		unsetenv(KBUILDID_SYSFS_ENV);
	free(saved);
	remove_tree(dir);
}

void kbuildid_tests(void)
{
	test_parse();
	test_against_binutils();
	test_sysfs();
}
