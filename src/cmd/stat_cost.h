/* SPDX-License-Identifier: MIT */
/* stat -r: the probe-cost note and the progress line (kept apart from stat.c). */
#ifndef PROSPECT_CMD_STAT_COST_H
#define PROSPECT_CMD_STAT_COST_H
#include <stdbool.h>
#include <stdio.h>
#include "probe/region.h"
#include "probe/region_count.h"

/* Notes on f (with the results), for each region whose probe handling is a large share of
 * its time. */
void stat_cost_notes(FILE *f, const struct region_list *rl, struct region_counter *rc);

/* Progress on stderr while regions are traced: on when stderr is a terminal or `forced`
 * (--progress). stat_progress_tick prints at most once a second; stat_progress_end clears a
 * terminal's line (a forced one on a file or pipe writes whole lines, nothing to clear). */
void stat_progress_start(bool forced);
void stat_progress_tick(struct region_counter *rc);
void stat_progress_end(void);
#endif
