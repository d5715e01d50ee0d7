// SPDX-License-Identifier: GPL-2.0
/*
 * The mode table; see modes.h.  The rows live with their modes; this is
 * only the list, so that nothing else has to know which modes there are.
 */
#include "modes.h"

#include "driver.h"
#include "growth.h"
#include "pressure.h"
#include "session.h"
#include "use.h"
#include "util.h"

/* Modes still running a session of their own: to move onto the driver. */
static const struct mt_mode_row mode_kernel_leaks = {
	.mode = MT_MODE_KERNEL_LEAKS, .option = "--kernel-leaks", .run = session_run,
};
static const struct mt_mode_row mode_slab = {
	.mode = MT_MODE_SLAB, .option = "--slab", .run = session_run,
};
static const struct mt_mode_row mode_user = {
	.mode = MT_MODE_USER, .option = "-p", .run = session_run,
};
static const struct mt_mode_row mode_mmap = {
	.mode = MT_MODE_MMAP, .option = "--mmap", .run = growth_run,
};
static const struct mt_mode_row mode_brk = {
	.mode = MT_MODE_BRK, .option = "--brk", .run = growth_run,
};
static const struct mt_mode_row mode_shm = {
	.mode = MT_MODE_SHM, .option = "--shm", .run = growth_run,
};
static const struct mt_mode_row mode_faults = {
	.mode = MT_MODE_FAULTS, .option = "--faults", .run = growth_run,
};
static const struct mt_mode_row mode_ffaults = {
	.mode = MT_MODE_FFAULTS, .option = "--ffaults", .run = growth_run,
};
static const struct mt_mode_row mode_usdt = {
	.mode = MT_MODE_USDT, .option = "--usdt", .run = growth_run,
};

static const struct mt_mode_row *const rows[] = {
	&mode_kernel_leaks, &mode_slab, &mode_user,
	&pressure_oom_row, &pressure_reclaim_row, &pressure_vmscan_row,
	&pressure_compaction_row, &pressure_migration_row,
	&mode_mmap, &mode_brk, &mode_shm, &mode_faults, &mode_ffaults, &mode_usdt,
	&use_row,
};

const struct mt_mode_row *mode_row(enum mt_mode m)
{
	for (size_t i = 0; i < MT_ARRAY_SIZE(rows); i++)
		if (rows[i]->mode == m)
			return rows[i];
	return NULL;
}

int mode_run(const struct mt_options *o)
{
	const struct mt_mode_row *row = mode_row(o->mode);

	if (!row)
		return 1;
	return row->run ? row->run(o) : driver_run(row, o);
}
