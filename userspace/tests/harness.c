// SPDX-License-Identifier: GPL-2.0
#include "harness.h"

#include <errno.h>
#include <ftw.h>
#include <link.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "procmaps.h"

const char *fixture_dir = "tests/fixtures";
static unsigned int passed, failed;

bool check(bool cond, const char *fmt, ...)
{
	va_list ap;

	printf("%s - ", cond ? "ok" : "not ok");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (cond)
		passed++;
	else
		failed++;
	return cond;
}

void check_counts(unsigned int *p, unsigned int *f)
{
	*p = passed;
	*f = failed;
}

void check_add(unsigned int p, unsigned int f)
{
	passed += p;
	failed += f;
}

void diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

const char *fixture_path(const char *name)
{
	static char path[4096];

	snprintf(path, sizeof(path), "%s/%s", fixture_dir, name);
	return path;
}

char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t cap = 0, n = 0;

	if (!f)
		return NULL;
	for (;;) {
		if (n + 4096 + 1 > cap) {
			char *nb = realloc(buf, cap = (cap ? cap * 2 : 8192));

			if (!nb) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
		}
		size_t got = fread(buf + n, 1, 4096, f);

		n += got;
		if (got < 4096)
			break;
	}
	fclose(f);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

bool run_quiet(const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(cmd, sizeof(cmd) - 32, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(cmd) - 32)
		return false;
	strcat(cmd, " >/dev/null 2>&1");
	fflush(stdout);
	return system(cmd) == 0;
}

bool make_tmpdir(char *buf, size_t len, const char *tag)
{
	snprintf(buf, len, "/tmp/memtrace-%s-XXXXXX", tag);
	return mkdtemp(buf) != NULL;
}

void remove_tree(const char *dir)
{
	if (dir[0])
		nftw(dir, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
}

static void diag_text(const char *label, const char *text)
{
	const char *p = text;

	diag("%s:", label);
	while (*p) {
		const char *nl = strchr(p, '\n');
		int n = nl ? (int)(nl - p) : (int)strlen(p);

		diag("| %.*s", n, p);
		p += n + (nl ? 1 : 0);
	}
}

/*
 * MEMTRACE_UPDATE_GOLDEN=1 rewrites the golden files from the output,
 * for an intended format change: review the diff before committing it.
 */
bool same_as_golden(const char *text, const char *golden_name)
{
	char *golden;
	bool same;

	if (getenv("MEMTRACE_UPDATE_GOLDEN")) {
		FILE *f = fopen(fixture_path(golden_name), "w");

		if (f) {
			fputs(text, f);
			fclose(f);
		}
	}
	golden = read_file(fixture_path(golden_name), NULL);
	same = golden && !strcmp(golden, text);

	if (!golden)
		diag("cannot read golden file %s", fixture_path(golden_name));
	else if (!same) {
		diag_text("expected", golden);
		diag_text("got", text);
	}
	free(golden);
	return same;
}

/*
 * MEMTRACE_TEST_SUITES="spawn growth": only those suites (their names as
 * below), e.g. to run one many times over while hunting a flake.
 */
static bool suite_wanted(const char *name)
{
	const char *list = getenv("MEMTRACE_TEST_SUITES");
	size_t n = strlen(name);

	if (!list || !*list)
		return true;
	for (const char *p = list; (p = strstr(p, name)); p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return true;
	return false;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		void (*run)(void);
	} suites[] = {
		{ "cli", cli_tests },
		{ "ksyms", ksyms_tests },
		{ "snapshot", snapshot_tests },
		{ "trend", trend_tests },
		{ "report", report_tests },
		{ "slabview", slabview_tests },
		{ "usyms", usyms_tests },
		{ "elfsyms", elfsyms_tests },
		{ "linkmap", linkmap_tests },
		{ "growthhint", growthhint_tests },
		{ "procmaps", procmaps_tests },
		{ "procfs", procfs_tests },
		{ "spawn", spawn_tests },
		{ "pressure", pressure_tests },
		{ "formats", formats_tests },
		{ "vmscan", vmscan_tests },
		{ "compaction", compaction_tests },
		{ "migration", migration_tests },
		{ "unwtab", unwtab_tests },
		{ "growth", growth_tests },
		{ "evjson", evjson_tests },
		{ "evprom", evprom_tests },
		{ "use", use_tests },
		{ "usdt", usdt_tests },
		{ "retsites", retsites_tests },
		{ "kbuildid", kbuildid_tests },
		{ "device", device_tests },
	};

	if (argc > 1)
		fixture_dir = argv[1];
	/* Reports print local time; tests pass their own timestamps, but
	 * keep the environment from mattering anyway. */
	setenv("TZ", "UTC", 1);

	for (size_t i = 0; i < sizeof(suites) / sizeof(suites[0]); i++)
		if (suite_wanted(suites[i].name))
			suites[i].run();

	printf("# %u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}

struct self_libc_ctx {
	const char *name;
};

static int self_libc_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	struct self_libc_ctx *s = data;

	(void)size;
	if (info->dlpi_name && info->dlpi_name[0] == '/' && procmaps_is_libc(info->dlpi_name)) {
		s->name = info->dlpi_name;
		return 1;
	}
	return 0;
}

int self_libc(char *path, size_t len)
{
	struct self_libc_ctx s = { NULL };
	char *real;
	int rc = 0;

	dl_iterate_phdr(self_libc_cb, &s);
	if (!s.name)
		return -ENOENT;
	real = realpath(s.name, NULL);
	if (strlen(real ? real : s.name) >= len)
		rc = -ENAMETOOLONG;
	else
		strcpy(path, real ? real : s.name);
	free(real);
	return rc;
}

int cli_parse_words(struct mt_options *o, struct mt_err *err, int argc, ...)
{
	char *argv[8] = { "memtrace-read" };
	va_list ap;

	if (argc > 7)
		abort();	/* argv keeps its terminating NULL */
	va_start(ap, argc);
	for (int i = 1; i < argc; i++)
		argv[i] = va_arg(ap, char *);
	va_end(ap);
	cli_defaults(o);
	return cli_parse(argc, argv, o, err);
}
