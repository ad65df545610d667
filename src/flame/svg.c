/* SPDX-License-Identifier: MIT */
/* Flame graph SVG: the layout in C, interaction in a small embedded script. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "flame/assets.h"
#include "flame/escape.h"
#include "flame/svg.h"
#include "util/hash.h"

enum { FRAME_H = 16, FONT = 12, PAD = 10, TOP = 54, BOTTOM = 34 };
#define MIN_PX 0.1            /* narrower frames (and their children) are left out */
#define CHAR_PX (FONT * 0.59) /* the width of a character of the 12px monospace font */

/* The graph wires its own frames and keys once loaded (flame.js: the behaviour the HTML page
 * shares): the document's root, or the first <svg> of the HTML page it is inline in (diff). */
static const char loader[] =
    "window.addEventListener(\"load\", function () {\n"
    "  var r = document.documentElement;\n"
    "  init(r.nodeName === \"svg\" ? r : document.querySelector(\"svg\")); keys();\n"
    "});\n";

/* A colour per name, stable across graphs (hashed), from the kind's palette. */
static void colour(const char *name, enum flame_kind kind, char *out, size_t len)
{
    uint64_t h = hash_bytes(name, strlen(name));
    double a = (double)(h & 0xff) / 255, b = (double)(h >> 8 & 0xff) / 255;

    switch (kind) {
    case FLAME_ROOT:
        snprintf(out, len, "rgb(190,190,190)");
        break;
    case FLAME_KERNEL:        /* orange */
        snprintf(out, len, "rgb(%d,%d,%d)", 200 + (int)(55 * a), 120 + (int)(60 * b), 30);
        break;
    case FLAME_INLINED:       /* aqua */
        snprintf(out, len, "rgb(%d,%d,%d)", 60 + (int)(50 * a), 180 + (int)(50 * b),
                 180 + (int)(50 * b));
        break;
    case FLAME_BRACKET:       /* violet: a stripped DSO's gap between two dynamic symbols */
        snprintf(out, len, "rgb(%d,%d,%d)", 170 + (int)(40 * a), 140 + (int)(30 * b), 220);
        break;
    default:                  /* user code and the command: red to yellow */
        snprintf(out, len, "rgb(%d,%d,%d)", 205 + (int)(50 * b), (int)(230 * a),
                 (int)(55 * b));
        break;
    }
}

/* Differential colour: red for a grown share, blue for a shrunk one, by the size of the
 * change relative to the largest change in the graph. */
static void diff_colour(double delta, double max, char *out, size_t len)
{
    int v = max > 0 ? (int)lround(210 * (1 - fmin(fabs(delta) / max, 1))) : 210;
    if (delta > 0)
        snprintf(out, len, "rgb(255,%d,%d)", v, v);
    else if (delta < 0)
        snprintf(out, len, "rgb(%d,%d,255)", v, v);
    else
        snprintf(out, len, "rgb(245,245,245)");
}

static double share(const struct flame_tree *t, uint32_t i, int which)
{
    uint64_t tot = t->nodes[0].value[which];
    return tot ? (double)t->nodes[i].value[which] / (double)tot : 0;
}

static void frame_text(FILE *f, const char *name, double w)
{
    long n = lround(floor((w - 6) / CHAR_PX));
    size_t len = strlen(name);

    if (n < 3)
        return;
    if (len <= (size_t)n) {
        xml_put(f, name, len);
    } else {
        xml_put(f, name, (size_t)n - 2);
        fputs("..", f);
    }
}

struct walk {
    uint32_t node;
    uint32_t depth;
    uint64_t x;
};

int flame_svg_write(FILE *f, const struct flame_tree *t, const struct flame_svg_opts *o)
{
    unsigned width = o->width ? o->width : 1200;
    uint64_t total = t->nodes[0].value[0];
    double scale = total ? (double)(width - 2 * PAD) / (double)total : 0, maxdelta = 0;
    unsigned height = TOP + BOTTOM + (t->depth + 1) * FRAME_H;
    const char *title = o->title ? o->title : o->diff ? "Differential Flame Graph" :
                        o->inverted ? "Icicle Graph" : "Flame Graph";
    const char *unit = o->unit ? o->unit : "samples";
    struct walk *stack = malloc((t->n ? t->n : 1) * sizeof(*stack));
    size_t sp = 0;
    char fill[64];

    if (!stack)
        return -ENOMEM;
    if (o->diff)
        for (size_t i = 0; i < t->n; i++)
            maxdelta = fmax(maxdelta, fabs(share(t, (uint32_t)i, 0) - share(t, (uint32_t)i, 1)));
    fprintf(f, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
            "<svg version=\"1.1\" width=\"%u\" height=\"%u\" viewBox=\"0 0 %u %u\" "
            "xmlns=\"http://www.w3.org/2000/svg\" data-total=\"%" PRIu64 "\"%s>\n",
            width, height, width, height, total, o->inverted ? " data-inverted=\"1\"" : "");
    fprintf(f, "<style type=\"text/css\">\n"
            "text { font-family: monospace; font-size: %dpx; fill: rgb(0,0,0); }\n"
            "g.f text { pointer-events: none; }\n"
            "g.f:hover rect { stroke: rgb(0,0,0); stroke-width: 0.5; cursor: pointer; }\n"
            ".hide { display: none; }\n"
            ".parent { opacity: 0.5; }\n"
            "#title { font-size: 17px; text-anchor: middle; }\n"
            ".button { cursor: pointer; fill: rgb(60,60,160); }\n"
            "</style>\n<script type=\"text/ecmascript\"><![CDATA[\n%s%s]]></script>\n",
            FONT, prospect_flame_js, loader);
    fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%u\" fill=\"rgb(250,250,245)\"/>\n",
            width, height);
    fprintf(f, "<text id=\"title\" x=\"%u\" y=\"22\">", width / 2);
    xml_put(f, title, 200);
    fputs("</text>\n", f);
    if (o->subtitle) {
        fprintf(f, "<text x=\"%u\" y=\"40\" style=\"text-anchor: middle\">", width / 2);
        xml_put(f, o->subtitle, 200);
        fputs("</text>\n", f);
    }
    fprintf(f, "<text id=\"unzoom\" class=\"button hide\" x=\"%d\" y=\"22\">Reset Zoom</text>\n"
            "<text id=\"search\" class=\"button\" x=\"%u\" y=\"22\" "
            "style=\"text-anchor: end\">Search</text>\n"
            "<text id=\"matched\" x=\"%u\" y=\"%u\" style=\"text-anchor: end\"></text>\n"
            "<text id=\"details\" x=\"%d\" y=\"%u\"> </text>\n",
            PAD, width - PAD, width - PAD, height - 12, PAD, height - 12);
    if (total)
        stack[sp++] = (struct walk){ 0, 0, 0 };
    while (sp) {
        struct walk w = stack[--sp];
        const struct flame_node *n = &t->nodes[w.node];
        const char *name = strtab_get(&t->names, n->name);
        double x = PAD + (double)w.x * scale, wd = (double)n->value[0] * scale;
        unsigned y = o->inverted ? TOP + w.depth * FRAME_H
                                 : TOP + (t->depth - w.depth) * FRAME_H;
        uint64_t cx = w.x;
        size_t first = sp;

        if (o->diff)
            diff_colour(share(t, w.node, 0) - share(t, w.node, 1), maxdelta, fill, sizeof(fill));
        else
            colour(name, n->kind, fill, sizeof(fill));
        fprintf(f, "<g class=\"f\" data-x=\"%" PRIu64 "\" data-v=\"%" PRIu64 "\" data-d=\"%u\">"
                "<title>", w.x, n->value[0], w.depth);
        xml_put(f, name, SIZE_MAX);
        if (o->diff)
            fprintf(f, " (%" PRIu64 " %s, %.2f%%; baseline %.2f%%; %+.2f)", n->value[0], unit,
                    100 * share(t, w.node, 0), 100 * share(t, w.node, 1),
                    100 * (share(t, w.node, 0) - share(t, w.node, 1)));
        else
            fprintf(f, " (%" PRIu64 " %s, %.2f%%)", n->value[0], unit, 100 * share(t, w.node, 0));
        fprintf(f, "</title><rect x=\"%.2f\" y=\"%u\" width=\"%.2f\" height=\"%d\" fill=\"%s\" "
                "rx=\"2\" ry=\"2\"/><text x=\"%.2f\" y=\"%u\">", x, y, wd, FRAME_H - 1, fill,
                x + 3, y + FRAME_H - 5);
        frame_text(f, name, wd);
        fputs("</text></g>\n", f);
        /* Children left to right: pushed in reverse so the first is drawn first. */
        for (uint32_t c = n->child; c; c = t->nodes[c].next) {
            if ((double)t->nodes[c].value[0] * scale >= MIN_PX)
                stack[sp++] = (struct walk){ c, w.depth + 1, cx };
            cx += t->nodes[c].value[0];
        }
        for (size_t a = first, b = sp; b > a + 1; a++, b--) {
            struct walk tmp = stack[a];
            stack[a] = stack[b - 1];
            stack[b - 1] = tmp;
        }
    }
    fputs("</svg>\n", f);
    free(stack);
    return fflush(f) || ferror(f) ? -EIO : 0;
}
