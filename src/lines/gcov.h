/* SPDX-License-Identifier: MIT */
/* `prospect lines --format gcov`: gcov's own text format, one FILE.gcov per source file, so
 * that gcov's readers (gcovr) take Prospect's counts as they take gcov's (docs/lines.md). */
#ifndef PROSPECT_LINES_GCOV_H
#define PROSPECT_LINES_GCOV_H
#include <stdbool.h>
#include <stddef.h>
#include "lines/render.h"

enum {
    LINES_GCOV_BRANCHES = 1,    /* gcov -b: function, call and branch lines */
    LINES_GCOV_COUNTS = 2,      /* gcov -c: counts for the percentages of calls and branches */
};
/* Writes BASENAME.gcov for each reported source file into dir (as gcov names them: a second
 * file of the same name replaces the first, as with gcov without -p). With
 * LINES_GCOV_BRANCHES, gcov -b's `function NAME called N returned P% blocks executed P%`
 * above each function's first line, and `call N returned P%` (with the plan's split_calls)
 * and `branch N taken P%` lines under each line, those whose counts are known. 0, or -errno
 * with the file named in err. */
int lines_write_gcov(const struct lines_report *r, const char *dir, unsigned flags, char *err,
                     size_t errlen);
/* Writes gcov's JSON intermediate format (gcc 12's `gcov --json-format`, gzip'd) as
 * dir/PROGRAM.gcov.json.gz: per source file its functions (start line, calls, blocks run)
 * and lines (count, unexecuted_block, the branches whose arcs are known). 0, or -errno
 * with the file named in err. */
int lines_write_gcov_json(const struct lines_report *r, const char *dir, char *err,
                          size_t errlen);
#endif
