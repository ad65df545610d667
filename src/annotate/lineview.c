#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "annotate/lineview.h"

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

int ann_lineview_build(const struct ann_listing *l, struct ann_srcrow **out, size_t *n)
{
    struct keyed *k = calloc(l->n ? l->n : 1, sizeof(*k));
    const char **files = calloc(l->n ? l->n : 1, sizeof(*files));
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
        k[i].r.samples = ln->samples;
        k[i].r.period = ln->period;
        k[i].r.insns = 1;
        k[i].file_rank = ln->file ? rank_of(files, &nf, ln->file) : SIZE_MAX;
    }
    qsort(k, l->n, sizeof(*k), keyed_cmp);
    for (size_t i = 0; i < l->n; i++) {
        if (w && k[w - 1].file_rank == k[i].file_rank && k[w - 1].r.line == k[i].r.line) {
            k[w - 1].r.samples += k[i].r.samples;
            k[w - 1].r.period += k[i].r.period;
            k[w - 1].r.insns++;
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
