/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "annotate/annotate.h"
#include "annotate/lineview.h"
#include "annotate/srcline.h"

struct keyed {
    struct ann_srcrow r;
    size_t file_rank;       /* order of the file's first appearance (the own file: 0) */
};

static int keyed_cmp(const void *a, const void *b)
{
    const struct keyed *x = a, *y = b;
    if (x->file_rank != y->file_rank)
        return x->file_rank < y->file_rank ? -1 : 1;
    return x->r.line < y->r.line ? -1 : x->r.line > y->r.line;
}

/* Files are few per function: their rank by a list of distinct names (pointer first, as the
 * DWARF handle interns them, then by text). */
static size_t rank_of(const char **files, size_t *nf, const char *file)
{
    for (size_t i = 0; i < *nf; i++)
        if (files[i] == file || !strcmp(files[i], file))
            return i;
    files[*nf] = file;
    return (*nf)++;
}

/* The instruction starting at addr, or NULL (lines ascend by address). */
/* Each hit's line: its instruction's, else looked up from its address (samples between
 * instruction starts, code that did not decode, count on their line too). */
static void add_hits(const struct ann_listing *l, struct keyed *k, const char **files,
                     size_t *nf)
{
    const struct ann_func *f = l->func;

    for (size_t i = 0; i < f->hits.n; i++) {
        const struct ann_line *in = ann_line_at(l, f->hits.v[i].addr);
        struct ann_srcpos p = { 0 };
        struct keyed *e = &k[l->n + i];
        if (in)
            p.file = in->file, p.line = in->line;
        else if (!l->src || ann_src_lookup(l->src, f->hits.v[i].addr, &p))
            p.file = NULL;
        e->r.file = p.file;
        e->r.line = p.file ? p.line : 0;
        e->r.samples = f->hits.v[i].samples;
        e->r.period = f->hits.v[i].period;
        e->file_rank = p.file ? rank_of(files, nf, p.file) : SIZE_MAX;
    }
}

int ann_lineview_build(const struct ann_listing *l, struct ann_srcrow **out, size_t *n)
{
    size_t total = l->n + l->func->hits.n;
    struct keyed *k = calloc(total ? total : 1, sizeof(*k));
    const char **files = calloc(total ? total : 1, sizeof(*files));
    size_t nf = 0, w = 0;

    *out = NULL;
    *n = 0;
    if (!k || !files) {
        free(k);
        free(files);
        return -ENOMEM;
    }
    for (size_t i = 0; i < l->n; i++) {
        const struct ann_line *ln = &l->lines[i];
        k[i].r.file = ln->file;
        k[i].r.line = ln->file ? ln->line : 0;
        k[i].r.insns = 1;
        k[i].file_rank = ln->file ? rank_of(files, &nf, ln->file) : SIZE_MAX;
    }
    add_hits(l, k, files, &nf);
    qsort(k, total, sizeof(*k), keyed_cmp);
    for (size_t i = 0; i < total; i++) {
        if (w && k[w - 1].file_rank == k[i].file_rank && k[w - 1].r.line == k[i].r.line) {
            k[w - 1].r.samples += k[i].r.samples;
            k[w - 1].r.period += k[i].r.period;
            k[w - 1].r.insns += k[i].r.insns;
        } else {
            k[w++] = k[i];
        }
    }
    free(files);
    *out = malloc((w ? w : 1) * sizeof(**out));
    if (!*out) {
        free(k);
        return -ENOMEM;
    }
    for (size_t i = 0; i < w; i++)
        (*out)[i] = k[i].r;
    *n = w;
    free(k);
    return 0;
}
