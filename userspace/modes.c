// SPDX-License-Identifier: GPL-2.0
/*
 * The mode table; see modes.h.  The rows live with their modes; this is
 * only the list, so that nothing else has to know which modes there are.
 */
#include "modes.h"

#include "driver.h"
#include "growth.h"
#include "leaks.h"
#include "pressure.h"
#include "use.h"
#include "util.h"

static const struct mt_mode_row *const rows[] = {
	&leaks_kernel_row, &leaks_slab_row, &leaks_user_row,
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
	return driver_run(row, o);
}
