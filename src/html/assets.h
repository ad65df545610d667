/* SPDX-License-Identifier: MIT */
/* The HTML page's script and style (src/html/assets/), embedded at build time (the Makefile's
 * build/gen/assets.c), NUL-terminated. */
#ifndef PROSPECT_HTML_ASSETS_H
#define PROSPECT_HTML_ASSETS_H
extern const char prospect_html_js[];
extern const char prospect_html_css[];
extern const char prospect_source_js[];
extern const char prospect_diff_js[];
extern const char prospect_timeline_js[];
#endif
