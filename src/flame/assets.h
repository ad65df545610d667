/* SPDX-License-Identifier: MIT */
/* The flame graph's script (src/flame/assets/flame.js), embedded at build time (the Makefile's
 * build/gen/assets.c): one behaviour for the SVG and the HTML page. */
#ifndef PROSPECT_FLAME_ASSETS_H
#define PROSPECT_FLAME_ASSETS_H
extern const char prospect_flame_js[];
#endif
