/* SPDX-License-Identifier: MIT */
/* prospect diff --format html: one self-contained page holding the per-symbol table and the
 * differential flame graph SVG inline (its own script drives it: flame/assets/flame.js). */
#ifndef PROSPECT_HTML_DIFFPAGE_H
#define PROSPECT_HTML_DIFFPAGE_H
#include <stddef.h>
#include <stdio.h>

/* table: the diff's text table; svg: the differential flame graph (flame/svg.h), or NULL with
 * why_no_svg said instead. 0 or -EIO. */
int html_diff_page(FILE *f, const char *title, const char *table, const char *svg,
                   const char *why_no_svg);
#endif
