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
static const struct mt_mode_row *const rows[] = {
	&mode_kernel_leaks, &mode_slab, &mode_user,
	&pressure_oom_row, &pressure_reclaim_row, &pressure_vmscan_row,
	&pressure_compaction_row, &pressure_migration_row,
	&growth_mmap_row, &growth_brk_row, &growth_shm_row, &growth_faults_row,
	&growth_ffaults_row, &growth_usdt_row,
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
