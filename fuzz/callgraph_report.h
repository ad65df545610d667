/* SPDX-License-Identifier: MIT */
/* What `prospect report --children`, `--format folded` and `--format pprof` do with an opened
 * perf.data, for the fuzzers: every sample's call stack stored (FP chains walked, user stacks
 * unwound from their copies by src/unwind/), names resolved, the three reports written to
 * /dev/null. */
#ifndef PROSPECT_FUZZ_CALLGRAPH_REPORT_H
#define PROSPECT_FUZZ_CALLGRAPH_REPORT_H
#include "perf/perfdata.h"

void fuzz_callgraph_report(struct perfdata *pd);
#endif
