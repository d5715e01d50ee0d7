// SPDX-License-Identifier: GPL-2.0
/* Writing a report format to a file atomically; see fmt.h. */
#include "fmt.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int fmt_write_any(const char *path, const void *ctx,
		  int (*render)(FILE *out, const void *ctx, struct mt_err *err),
		  struct mt_err *err)
{
	size_t len = strlen(path) + sizeof(".tmp");
	char *tmp = malloc(len);
	FILE *f;
	int ret;

	if (!tmp)
		return mt_errf(err, ENOMEM, "out of memory");
	snprintf(tmp, len, "%s.tmp", path);
	f = fopen(tmp, "we");
	if (!f) {
		ret = mt_errf(err, errno, "%s: %s", tmp, strerror(errno));
		free(tmp);
		return ret;
	}
	ret = render(f, ctx, err);
	/* What is renamed into place must be all there: flushed and synced. */
	if (!ret && (fflush(f) || ferror(f) || fsync(fileno(f))))
		ret = mt_errf(err, errno ? errno : EIO, "%s: %s", tmp,
			      strerror(errno ? errno : EIO));
	if (fclose(f) && !ret)
		ret = mt_errf(err, errno, "%s: %s", tmp, strerror(errno));
	if (!ret && rename(tmp, path))
		ret = mt_errf(err, errno, "cannot rename %s to %s: %s", tmp, path,
			      strerror(errno));
	if (ret)
		unlink(tmp);
	free(tmp);
	return ret;
}

struct model_render {
	const struct report_model *m;
	int (*render)(FILE *out, const struct report_model *m, struct mt_err *err);
};

static int render_model(FILE *out, const void *ctx, struct mt_err *err)
{
	const struct model_render *r = ctx;

	return r->render(out, r->m, err);
}

int fmt_write_file(const char *path, const struct report_model *m,
		   int (*render)(FILE *out, const struct report_model *m, struct mt_err *err),
		   struct mt_err *err)
{
	struct model_render r = { .m = m, .render = render };

	return fmt_write_any(path, &r, render_model, err);
}

int fmt_write_files(const char *pprof_file, const char *prometheus_file, const char *svg_file,
		    const struct report_model *m, struct mt_err *err)
{
	int ret = 0;

	if (pprof_file)
		ret = fmt_write_file(pprof_file, m, fmt_pprof, err);
	if (!ret && prometheus_file)
		ret = fmt_write_file(prometheus_file, m, fmt_prometheus, err);
	if (!ret && svg_file)
		ret = fmt_write_file(svg_file, m, fmt_svg, err);
	return ret;
}
