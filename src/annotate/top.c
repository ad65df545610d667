/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include "annotate/annotate.h"
#include "annotate/render.h"
#include "annotate/source.h"
#include "annotate/top.h"

int ann_write_top(FILE *f, struct session *s, const struct ann_top_opts *o)
{
    struct ann_out out = { .f = f, .fmt = REPORT_TEXT, .wide = o->wide };
    struct ann_set set;
    unsigned shown = 0;
    int err;

    if ((err = ann_collect(s, o->ks, &set)))
        return err;
    if (!(out.text = ann_sources_new(NULL))) {
        ann_set_release(&set);
        return -ENOMEM;
    }
    fprintf(f, "\n%s\n ASSEMBLY-LEVEL PROFILE: the %u hottest routine%s, hits per instruction\n%s\n",
            "=================================================================================="
            "==================", o->top, o->top == 1 ? "" : "s",
            "=================================================================================="
            "==================");
    ann_render_begin(&out, &set, o->title ? o->title : "system-wide", o->event);
    for (size_t k = 0; k < set.funcs.n && shown < o->top && !err; k++) {
        const struct ann_func *fn = set.funcs.v[k];
        struct ann_listing l;
        char why[512];

        shown++;
        err = ann_listing_build(&set, fn, ANN_ATT, &l, why, sizeof(why));
        if (err == -ENOMEM)
            break;
        if (err)
            ann_render_skipped(&out, &set, fn, why);
        else
            ann_render_listing(&out, &set, &l);
        ann_listing_release(&l);
        err = 0;
    }
    if (!set.funcs.n)
        fprintf(f, "\nno samples in a named routine: nothing to disassemble\n");
    if (!err)
        err = ann_render_end(&out);
    ann_sources_free(out.text);
    ann_set_release(&set);
    return err;
}
