/* SPDX-License-Identifier: MIT */
/* Internal to libprospect's histogram module: sorted views shared by the output writers. */
#ifndef PROSPECT_TIMING_HIST_PRIV_H
#define PROSPECT_TIMING_HIST_PRIV_H
#include "prospect/histogram.h"

/* The `keep` samples in ascending order (valid until the next add). 0 or -ENOMEM. */
int hist_sorted(struct prospect_hist *h, enum prospect_keep keep, const uint64_t **v, size_t *n);
/* Nearest-rank percentile of a sorted, non-empty array. */
uint64_t hist_rank(const uint64_t *v, size_t n, double pct);
#endif
