// SPDX-License-Identifier: GPL-2.0
#include "util.h"

#include <inttypes.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include <linux/memtrace.h>

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

void mt_group_thousands(uint64_t v, char *buf, size_t len)
{
	char digits[32];
	size_t n, out = 0;

	n = (size_t)snprintf(digits, sizeof(digits), "%" PRIu64, v);
	for (size_t i = 0; i < n && out + 2 < len; i++) {
		if (i && (n - i) % 3 == 0)
			buf[out++] = ',';
		buf[out++] = digits[i];
	}
	buf[out] = '\0';
}

/* The mask before stop_signals_fd() blocked SIGINT and SIGTERM (valid once it did). */
static sigset_t start_mask;
static bool stop_signals_blocked;

int stop_signals_fd(void)
{
	sigset_t signals, old;

	sigemptyset(&signals);
	sigaddset(&signals, SIGINT);
	sigaddset(&signals, SIGTERM);
	if (sigprocmask(SIG_BLOCK, &signals, &old))
		return -1;
	if (!stop_signals_blocked)
		start_mask = old;
	stop_signals_blocked = true;
	return signalfd(-1, &signals, SFD_CLOEXEC);
}

void stop_signals_unblocked(sigset_t *mask)
{
	if (!stop_signals_blocked)
		return;
	if (!sigismember(&start_mask, SIGINT))
		sigdelset(mask, SIGINT);
	if (!sigismember(&start_mask, SIGTERM))
		sigdelset(mask, SIGTERM);
}

int64_t mt_realtime_offset_ns(void)
{
	struct timespec m, r;

	clock_gettime(CLOCK_MONOTONIC, &m);
	clock_gettime(CLOCK_REALTIME, &r);
	return (r.tv_sec - m.tv_sec) * 1000000000LL + (r.tv_nsec - m.tv_nsec);
}

void mt_comm(char *dst, const char *src)
{
	memcpy(dst, src, MEMTRACE_COMM_LEN);
	dst[MEMTRACE_COMM_LEN] = '\0';
}

void mt_hms(time_t when, char *buf, size_t len)
{
	struct tm tm;

	if (!localtime_r(&when, &tm) || !strftime(buf, len, "%H:%M:%S", &tm))
		snprintf(buf, len, "??:??:??");
}

void mt_outbuf_flush(struct mt_outbuf *ob)
{
	if (ob->n)
		fwrite(ob->b, 1, ob->n, ob->out);
	ob->n = 0;
}

void mt_outbuf_put_full(struct mt_outbuf *ob, const char *s, size_t len)
{
	mt_outbuf_flush(ob);
	if (len > sizeof(ob->b)) {
		fwrite(s, 1, len, ob->out);
		return;
	}
	memcpy(ob->b, s, len);
	ob->n = len;
}
