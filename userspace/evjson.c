// SPDX-License-Identifier: GPL-2.0
/* The event modes' JSON Lines: the common part; see evjson.h. */
#include "evjson.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int evjson_open(struct evjson_out *out, const struct mt_options *o, struct mt_err *err)
{
	out->f = NULL;
	out->owned = false;
	if (!o->json)
		return 0;
	if (!o->json_file) {
		out->f = stdout;
		return 0;
	}
	/* A stream of records, not one report: the file grows as they come. */
	out->f = fopen(o->json_file, "we");
	if (!out->f)
		return mt_errf(err, errno, "--json=%s: %s", o->json_file, strerror(errno));
	out->owned = true;
	return 0;
}

void evjson_close(struct evjson_out *out)
{
	if (out->owned && out->f)
		fclose(out->f);
	out->f = NULL;
	out->owned = false;
}

int evjson_flush(const struct evjson_out *out, const struct mt_options *o)
{
	if (fflush(stdout) || ferror(stdout))
		return -1;
	if (out->f && (fflush(out->f) || ferror(out->f))) {
		fprintf(stderr, "memtrace-read: --json=%s: %s\n", o->json_file ? o->json_file : "-",
			strerror(errno ? errno : EIO));
		return -1;
	}
	return 0;
}

FILE *evjson_text_stream(const struct mt_options *o)
{
	return cli_text_report(o) ? stdout : NULL;
}

json_t *evjson_record(const char *mode, const char *type, const char *hms)
{
	return json_pack("{s:i, s:s, s:s, s:s}", "memtrace_event", EVJSON_VERSION,
			 "mode", mode, "type", type, "time", hms);
}

int evjson_emit(FILE *out, json_t *rec)
{
	int ret = 0;

	if (!rec)
		return -ENOMEM;
	if (json_dumpf(rec, out, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10)) || fputc('\n', out) == EOF)
		ret = -EIO;
	json_decref(rec);
	return ret;
}

json_t *evjson_u64(uint64_t v)
{
	return json_integer(v > (uint64_t)INT64_MAX ? INT64_MAX : (json_int_t)v);
}

json_t *evjson_comm(const char *comm)
{
	char c[MEMTRACE_COMM_LEN + 1];

	memcpy(c, comm, MEMTRACE_COMM_LEN);
	c[MEMTRACE_COMM_LEN] = '\0';
	json_t *s = json_string(c);
	char hex[2 * MEMTRACE_COMM_LEN + 1];
	size_t n = strlen(c);

	if (s)
		return s;
	/* A task name is bytes; one that is not UTF-8 is given in hex. */
	for (size_t i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", (unsigned char)c[i]);
	hex[2 * n] = '\0';
	return json_string(hex);
}

const char *evjson_mode_name(enum mt_mode mode)
{
	switch (mode) {
	case MT_MODE_OOM:
		return "oom";
	case MT_MODE_RECLAIM:
		return "reclaim";
	case MT_MODE_VMSCAN:
		return "vmscan";
	case MT_MODE_COMPACTION:
		return "compaction";
	case MT_MODE_MIGRATION:
		return "migration";
	case MT_MODE_MMAP:
		return "mmap";
	case MT_MODE_BRK:
		return "brk";
	case MT_MODE_SHM:
		return "shm";
	case MT_MODE_FAULTS:
		return "faults";
	case MT_MODE_FFAULTS:
		return "ffaults";
	case MT_MODE_USE:
		return "use";
	case MT_MODE_USDT:
		return "usdt";
	default:
		return "?";
	}
}
