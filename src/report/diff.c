/* SPDX-License-Identifier: MIT */
/* Per-symbol self shares of two profiles and their change. Symbols of the two files are
 * matched by (shared object name, symbol name), as perf diff matches them. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "flame/strtab.h"
#include "report/csv.h"
#include "report/diff.h"
#include "util/strutil.h"

struct row {
    uint32_t key;             /* "dso\nsym" in the key table */
    uint64_t period[2];       /* old, new */
    double share[2], delta;
    bool kernel;
};

struct rows {
    struct strtab keys;
    struct row *v;
    size_t n, cap;
};

static int add(struct rows *r, const struct cg_sym *s, int side, uint64_t period)
{
    char nbuf[256], dbuf[256], key[1024];
    uint32_t k;
    int err;

    snprintf(key, sizeof(key), "%s\n%s", cg_sym_dso(s, dbuf, sizeof(dbuf)),
             cg_sym_name(s, nbuf, sizeof(nbuf)));
    if ((err = strtab_intern(&r->keys, key, &k)))
        return err;
    if (k == r->n) {
        if (r->n == r->cap) {
            size_t cap = r->cap ? r->cap * 2 : 256;
            struct row *v = realloc(r->v, cap * sizeof(*v));
            if (!v)
                return -ENOMEM;
            r->v = v;
            r->cap = cap;
        }
        r->v[r->n++] = (struct row){ .key = k, .kernel = s->kernel };
    }
    r->v[k].period[side] += period;
    return 0;
}

static int add_side(struct rows *r, const struct diff_side *d, int side, uint64_t *total)
{
    int err = 0;

    *total = 0;
    for (size_t i = 0; i < d->cs->nstacks && !err; i++) {
        const struct cg_stack *st = &d->cs->stacks[i];
        if (!st->n)
            continue;
        *total += st->period;
        err = add(r, &d->cy->syms[d->cy->frame_sym[st->off]], side, st->period);
    }
    return err;
}

static int cmp_row(const void *a, const void *b, void *arg)
{
    const struct row *x = a, *y = b;
    const struct strtab *keys = arg;

    if (fabs(x->delta) != fabs(y->delta))
        return fabs(x->delta) < fabs(y->delta) ? 1 : -1;
    if (x->share[1] != y->share[1])
        return x->share[1] < y->share[1] ? 1 : -1;
    return strcmp(strtab_get(keys, x->key), strtab_get(keys, y->key));
}

/* Splits "dso\nsym" (a copy in buf). */
static void split_key(const char *key, char *buf, size_t len, const char **dso, const char **sym)
{
    char *nl;

    str_copy(buf, len, key);
    nl = strchr(buf, '\n');
    *dso = buf;
    *sym = nl ? nl + 1 : "";
    if (nl)
        *nl = '\0';
}

static void print_text(FILE *f, const struct rows *r, const struct diff_side *old,
                       const struct diff_side *nw, const struct diff_opts *o)
{
    char kb[1024], pd[512], ps[512], ed[256], es[512];
    size_t dw = strlen("Shared Object");

    for (size_t i = 0; i < r->n; i++) {
        const char *dso, *sym;
        split_key(strtab_get(&r->keys, r->v[i].key), kb, sizeof(kb), &dso, &sym);
        size_t w = str_width(str_printable(dso, pd, sizeof(pd)));
        if (w > dw)
            dw = w;
    }
    if (!o->wide && dw > 24)
        dw = 24;
    fprintf(f, "# Event '%s'\n", o->event ? o->event : "samples");
    fprintf(f, "# Old: %s (%" PRIu64 " samples)\n", str_printable(old->path, pd, sizeof(pd)),
            old->cs->samples);
    fprintf(f, "# New: %s (%" PRIu64 " samples)\n", str_printable(nw->path, pd, sizeof(pd)),
            nw->cs->samples);
    fprintf(f, "# Self shares of each profile's period; Delta = New - Old, sorted by |Delta|\n"
               "#\n");
    fprintf(f, "#     Old      New    Delta  %-*s  Symbol\n", (int)dw, "Shared Object");
    for (size_t i = 0; i < r->n; i++) {
        const struct row *w = &r->v[i];
        const char *dso, *sym;
        split_key(strtab_get(&r->keys, w->key), kb, sizeof(kb), &dso, &sym);
        dso = str_printable(dso, pd, sizeof(pd));
        sym = str_printable(sym, ps, sizeof(ps));
        if (!o->wide) {
            dso = str_elide(dso, dw, ed, sizeof(ed));
            sym = str_elide(sym, 100 - 35 - dw, es, sizeof(es));
        }
        /* Padding by display width: names may hold multi-byte characters. */
        fprintf(f, "  %6.2f%%  %6.2f%%  %+6.2f%%  %s%*s  [%c] %s\n", 100 * w->share[0],
                100 * w->share[1], 100 * w->delta, dso, (int)(dw - str_width(dso)), "",
                w->kernel ? 'k' : '.', sym);
    }
}

static void print_csv(FILE *f, const struct rows *r)
{
    char kb[1024];
    static const char *const head[] = { "old_percent", "new_percent", "delta", "shared_object",
                                        "symbol" };

    csv_row(f, head, 5);
    for (size_t i = 0; i < r->n; i++) {
        const struct row *w = &r->v[i];
        const char *dso, *sym;
        split_key(strtab_get(&r->keys, w->key), kb, sizeof(kb), &dso, &sym);
        csv_double(f, 100 * w->share[0], 4, false);
        csv_double(f, 100 * w->share[1], 4, false);
        csv_double(f, 100 * w->delta, 4, false);
        csv_field(f, dso, false);
        csv_field(f, sym, true);
    }
}

int report_diff(FILE *f, const struct diff_side *old, const struct diff_side *nw,
                const struct diff_opts *o)
{
    struct rows r = { 0 };
    uint64_t tot[2];
    int err;

    strtab_init(&r.keys);
    if (!(err = add_side(&r, old, 0, &tot[0])))
        err = add_side(&r, nw, 1, &tot[1]);
    if (!err) {
        for (size_t i = 0; i < r.n; i++) {
            struct row *w = &r.v[i];
            for (int s = 0; s < 2; s++)
                w->share[s] = tot[s] ? (double)w->period[s] / (double)tot[s] : 0;
            w->delta = w->share[1] - w->share[0];
        }
        qsort_r(r.v, r.n, sizeof(*r.v), cmp_row, &r.keys);
        if (o->csv)
            print_csv(f, &r);
        else
            print_text(f, &r, old, nw, o);
        err = fflush(f) || ferror(f) ? -EIO : 0;
    }
    free(r.v);
    strtab_release(&r.keys);
    return err;
}
