/* perf's Children/Self table from distinct call stacks. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "report/callgraph_out.h"
#include "util/strutil.h"

struct row {
    uint32_t sym;
    uint64_t children, self, samples;
};

static int cmp_row(const void *a, const void *b)
{
    const struct row *x = a, *y = b;
    if (x->children != y->children)
        return x->children > y->children ? -1 : 1;
    if (x->self != y->self)
        return x->self > y->self ? -1 : 1;
    return x->sym < y->sym ? -1 : x->sym > y->sym;
}

static double pct(uint64_t v, uint64_t total)
{
    return total ? 100.0 * (double)v / (double)total : 0;
}

static void print_rows(FILE *f, const struct row *rows, size_t n, const struct cg_store *cs,
                       const struct cg_syms *cy, const struct children_opts *o)
{
    char dbuf[256], nbuf[256], pbuf[1024], ebuf[1024];
    size_t dw = strlen("Shared Object"), fixed;
    uint64_t total = o->total_period ? o->total_period : cs->period;

    for (size_t i = 0; i < n; i++) {
        const char *d = str_printable(cg_sym_dso(&cy->syms[rows[i].sym], dbuf, sizeof(dbuf)),
                                      pbuf, sizeof(pbuf));
        if (pct(rows[i].children, total) >= o->percent_limit && str_width(d) > dw)
            dw = str_width(d);
    }
    if (dw > 24 && !o->wide)
        dw = 24;
    fprintf(f, "# Samples: %" PRIu64 "%s%s%s\n#\n", cs->samples, o->event ? " of event '" : "",
            o->event ? o->event : "", o->event ? "'" : "");
    fprintf(f, "# Children      Self%s  %-*s  Symbol\n", o->show_nr_samples ? "  Samples" : "",
            (int)dw, "Shared Object");
    fixed = 20 + (o->show_nr_samples ? 9 : 0) + 2 + dw + 2 + 4;
    for (size_t i = 0; i < n; i++) {
        const struct row *r = &rows[i];
        const struct cg_sym *s = &cy->syms[r->sym];
        const char *d, *name;

        if (pct(r->children, total) < o->percent_limit)
            continue;
        d = str_printable(cg_sym_dso(s, dbuf, sizeof(dbuf)), pbuf, sizeof(pbuf));
        if (!o->wide)
            d = str_elide(d, dw, ebuf, sizeof(ebuf));
        fprintf(f, "%9.2f%%%9.2f%%", pct(r->children, total), pct(r->self, total));
        if (o->show_nr_samples)
            fprintf(f, "  %7" PRIu64, r->samples);
        fprintf(f, "  %-*s  [%c] ", (int)dw, d, s->kernel ? 'k' : '.');
        name = str_printable(cg_sym_name(s, nbuf, sizeof(nbuf)), pbuf, sizeof(pbuf));
        if (!o->wide && fixed < 100)
            name = str_elide(name, 100 - fixed, ebuf, sizeof(ebuf));
        fprintf(f, "%s\n", name);
    }
}

int report_children(FILE *f, const struct cg_store *cs, const struct cg_syms *cy,
                    const struct children_opts *o)
{
    size_t n = cy->nsyms;
    struct row *rows = calloc(n ? n : 1, sizeof(*rows));
    size_t *seen = calloc(n ? n : 1, sizeof(*seen));   /* last stack (+1) that counted it */
    size_t kept = 0;
    int err = 0;

    if (!rows || !seen) {
        err = -ENOMEM;
        goto out;
    }
    for (size_t i = 0; i < n; i++)
        rows[i].sym = (uint32_t)i;
    for (size_t i = 0; i < cs->nstacks; i++) {
        const struct cg_stack *st = &cs->stacks[i];
        const uint32_t *fs = cy->frame_sym + st->off;
        if (!st->n)
            continue;
        rows[fs[0]].self += st->period;
        /* A symbol once per stack, however often it recurses in it. */
        for (uint32_t k = 0; k < st->n; k++) {
            if (seen[fs[k]] == i + 1)
                continue;
            seen[fs[k]] = i + 1;
            rows[fs[k]].children += st->period;
            rows[fs[k]].samples += st->samples;
        }
    }
    for (size_t i = 0; i < n; i++)
        if (rows[i].children)
            rows[kept++] = rows[i];
    qsort(rows, kept, sizeof(*rows), cmp_row);
    print_rows(f, rows, kept, cs, cy, o);
    if (fflush(f) || ferror(f))
        err = -EIO;
out:
    free(rows);
    free(seen);
    return err;
}
