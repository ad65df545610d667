/* SPDX-License-Identifier: MIT */
/* An interactive flame graph as one self-contained SVG (no network, no Perl): frames drawn by
 * Prospect, so it is readable without scripts; the embedded script adds click to zoom, search
 * (matches highlighted, their share shown) and the details line on hover. */
#ifndef PROSPECT_FLAME_SVG_H
#define PROSPECT_FLAME_SVG_H
#include <stdbool.h>
#include <stdio.h>
#include "flame/flametree.h"

struct flame_svg_opts {
    const char *title;        /* NULL: "Flame Graph" (or "Icicle Graph", "Differential ...") */
    const char *subtitle;     /* may be NULL: e.g. the file and the event */
    bool inverted;            /* the tree was built inverted: draw it top-down (icicle) */
    bool diff;                /* value[0] the new profile, value[1] the baseline: colour by the
                                 change of each frame's share, red grown, blue shrunk */
    unsigned width;           /* pixels, 0: 1200 */
    const char *unit;         /* of the values in the hover text; NULL: "samples" */
};

/* Writes the graph of t (sorted with flame_tree_sort). 0 or -EIO. */
int flame_svg_write(FILE *f, const struct flame_tree *t, const struct flame_svg_opts *o);
#endif
