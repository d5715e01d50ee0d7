// SPDX-License-Identifier: GPL-2.0
/*
 * Tracepoints found by name; see tp.h.
 */
#define pr_fmt(fmt) "memtrace: " fmt

#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/memtrace.h>

#include "sources/tp.h"

struct mt_tp_lookup_ctx {
	struct mt_tp *tps;
	size_t n;
};

static void mt_tp_match(struct tracepoint *tp, void *priv)
{
	struct mt_tp_lookup_ctx *ctx = priv;
	size_t i;

	for (i = 0; i < ctx->n; i++)
		if (!strcmp(tp->name, ctx->tps[i].name))
			ctx->tps[i].tp = tp;
}

u32 mt_tp_lookup(struct mt_tp *tps, size_t n)
{
	struct mt_tp_lookup_ctx ctx = { .tps = tps, .n = n };
	u32 events = 0, missing = 0;
	size_t i;

	for_each_kernel_tracepoint(mt_tp_match, &ctx);
	for (i = 0; i < n; i++) {
		events |= tps[i].event;
		if (!tps[i].tp) {
			if (!tps[i].optional)
				missing |= tps[i].event;
			pr_info("tracepoint %s not in this kernel\n", tps[i].name);
		}
	}
	return events & ~missing;
}

int mt_tp_register(struct mt_tp *tps, size_t n, u32 events, bool frees)
{
	size_t i;
	int ret;

	for (i = 0; i < n; i++) {
		if (!(tps[i].event & events) || tps[i].frees != frees)
			continue;
		if (!tps[i].tp && tps[i].optional)
			continue;
		if (!tps[i].tp) {
			ret = -ENOENT;
			goto fail;
		}
		ret = tracepoint_probe_register(tps[i].tp, tps[i].probe, NULL);
		if (ret)
			goto fail;
		tps[i].registered = true;
	}
	return 0;
fail:
	pr_warn("cannot attach to tracepoint %s: %d\n", tps[i].name, ret);
	mt_tp_unregister(tps, n, frees, true);
	return ret;
}

void mt_tp_unregister(struct mt_tp *tps, size_t n, bool frees, bool sync)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (!tps[i].registered || tps[i].frees != frees)
			continue;
		WARN_ON_ONCE(tracepoint_probe_unregister(tps[i].tp, tps[i].probe, NULL));
		tps[i].registered = false;
	}
	if (sync)
		tracepoint_synchronize_unregister();
}
