/* SPDX-License-Identifier: MIT */
/* prospect diff --format html: one self-contained page holding the per-symbol table and the
 * differential flame graph SVG inline (its own script drives it: flame/assets/flame.js); the
 * table sortable and filtered by a search box (assets/diff.js). */
#ifndef PROSPECT_HTML_DIFFPAGE_H
#define PROSPECT_HTML_DIFFPAGE_H
#include <stddef.h>
#include <stdio.h>

/* table: the diff's text table; csv: its rows as `diff --format csv` (the page's sortable,
 * filtered table); svg: the differential flame graph (flame/svg.h), or NULL with why_no_svg
 * said instead. 0, -ENOMEM or -EIO. */
int html_diff_page(FILE *f, const char *title, const char *table, const char *csv,
                   const char *svg, const char *why_no_svg);
#endif
