// SPDX-License-Identifier: GPL-2.0
#include "util.h"

#include <stdarg.h>
#include <stdio.h>

int mt_errf(struct mt_err *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return -code;
}
