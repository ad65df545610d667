/* SPDX-License-Identifier: MIT */
/* perf's --hierarchy: the Overhead rows of the call-chain table as an indented tree, one level
 * per sort key (comm -> dso -> sym by default), each level's share the sum of its rows', the
 * rows' call chains below the last level. The layout is perf 6.1's report --stdio. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "report/children_rows.h"
#include "util/strutil.h"

#define INDENT 3              /* perf's HIERARCHY_INDENT: columns per level */

struct hrow {
    const struct row *r;
    char *key[3];             /* the row's cell at each level, printable */
};

struct hier {
    struct hrow *rows;
    size_t n, nlevels;
    size_t sort_level;        /* the level cmp_group orders */
    size_t width[3];          /* each level's column: its widest cell (or its title) */
    uint64_t total;
    const struct cg_syms *cy;
    const struct children_opts *o;
    struct obuf *ob;
    int err;
};

struct group {
    size_t from, to;          /* rows[from, to) share the key at this level */
    uint64_t period, samples;
};

static const char *const titles[] = { "Command", "Shared Object", "Symbol" };

static double pct(uint64_t v, uint64_t total)
{
    return total ? 100.0 * (double)v / (double)total : 0;
}

/* Row r's cell at a level, as perf prints it: the command (or "PID:comm"), the DSO, or
 * "[.] name". Allocated; NULL on -ENOMEM. */
static char *cell_of(const struct row *r, enum cg_level level, const struct cg_syms *cy)
{
    const struct cg_sym *s = &cy->syms[r->sym];
    char nbuf[256], pbuf[1024], text[1100];

    if (level == CG_LEVEL_COMM) {
        const char *c = r->comm ? r->comm : "";
        return strdup(str_printable(c + strspn(c, " "), pbuf, sizeof(pbuf)));
    }
    if (level == CG_LEVEL_DSO)
        return strdup(str_printable(cg_sym_dso(s, nbuf, sizeof(nbuf)), pbuf, sizeof(pbuf)));
    snprintf(text, sizeof(text), "[%c] %s%s", s->kernel ? 'k' : '.',
             str_printable(cg_sym_name(s, nbuf, sizeof(nbuf)), pbuf, sizeof(pbuf)),
             s->inlined ? " (inlined)" : "");
    return strdup(text);
}

static int cmp_keys(const void *a, const void *b, void *arg)
{
    const struct hrow *x = a, *y = b;
    size_t nlevels = *(const size_t *)arg;
    int c = 0;

    for (size_t k = 0; k < nlevels && !c; k++)
        c = strcmp(x->key[k], y->key[k]);
    return c;
}

/* Heaviest first; equal shares by name, as perf's sort keys order them. */
static int cmp_group(const void *a, const void *b, void *arg)
{
    const struct group *x = a, *y = b;
    const struct hier *h = arg;

    if (x->period != y->period)
        return x->period > y->period ? -1 : 1;
    return strcmp(h->rows[x->from].key[h->sort_level], h->rows[y->from].key[h->sort_level]);
}

static void put_spaces(struct obuf *ob, size_t n)
{
    while (n--)
        obuf_char(ob, ' ');
}

static void put_dots(FILE *f, size_t n)
{
    while (n--)
        fputc('.', f);
}

/* The columns before the cell of a level-`depth` line, as wide as perf's. */
static size_t prefix_width(const struct hier *h, size_t depth)
{
    return depth * INDENT + 10 + (h->o->show_nr_samples ? 14 : 0) +
           (h->nlevels - 1) * INDENT + 2;
}

static void print_line(struct hier *h, const struct group *g, size_t depth)
{
    const char *cell = h->rows[g->from].key[depth];
    enum cg_level level = h->o->levels[depth];
    size_t room = prefix_width(h, depth) < 100 ? 100 - prefix_width(h, depth) : 8;
    char num[64], ebuf[1100];
    int len;

    put_spaces(h->ob, depth * INDENT);
    len = snprintf(num, sizeof(num), "  %7.2f%%", pct(g->period, h->total));
    obuf_put(h->ob, num, (size_t)len);
    if (h->o->show_nr_samples) {
        len = snprintf(num, sizeof(num), "  %12" PRIu64, g->samples);
        obuf_put(h->ob, num, (size_t)len);
    }
    put_spaces(h->ob, (h->nlevels - 1) * INDENT + 2);
    if (!h->o->wide && str_width(cell) > room)
        cell = str_elide(cell, room, ebuf, sizeof(ebuf));
    obuf_put(h->ob, cell, strlen(cell));
    if (level != CG_LEVEL_SYM) {   /* perf pads the command and DSO cells to their column */
        size_t w = h->width[depth] < room || h->o->wide ? h->width[depth] : room;
        const char *c = h->rows[g->from].r->comm;
        size_t lead = level == CG_LEVEL_COMM && c ? strspn(c, " ") : 0;
        for (size_t at = str_width(cell) + lead; at < w; at++)
            obuf_char(h->ob, ' ');
    }
    obuf_char(h->ob, '\n');
}

static void print_level(struct hier *h, size_t from, size_t to, size_t depth);

/* The groups of rows[from, to) at a level, heaviest first, each printed with what is below. */
static void print_groups(struct hier *h, struct group *gs, size_t ng, size_t depth)
{
    h->sort_level = depth;
    qsort_r(gs, ng, sizeof(*gs), cmp_group, h);
    for (size_t i = 0; i < ng && !h->err; i++) {
        if (pct(gs[i].period, h->total) < h->o->percent_limit)
            continue;
        print_line(h, &gs[i], depth);
        if (depth + 1 < h->nlevels)
            print_level(h, gs[i].from, gs[i].to, depth + 1);
        else if (h->o->chains && h->o->chains->mode != CHAIN_NONE)
            h->err = children_print_tree(h->ob, h->rows[gs[i].from].r, h->total, h->cy, h->o);
    }
}

static void print_level(struct hier *h, size_t from, size_t to, size_t depth)
{
    struct group *gs = malloc((to - from) * sizeof(*gs));
    size_t ng = 0;

    if (!gs) {
        h->err = -ENOMEM;
        return;
    }
    for (size_t i = from; i < to; i++) {
        if (!ng || strcmp(h->rows[i].key[depth], h->rows[gs[ng - 1].from].key[depth]))
            gs[ng++] = (struct group){ .from = i, .to = i };
        gs[ng - 1].to = i + 1;
        gs[ng - 1].period += h->rows[i].r->self;
        gs[ng - 1].samples += h->rows[i].r->self_samples;
    }
    print_groups(h, gs, ng, depth);
    free(gs);
}

/* "# Overhead  Command / Shared Object / Symbol" and perf's line of dots below it. */
static void print_header(FILE *f, const struct hier *h, uint64_t samples)
{
    const struct children_opts *o = h->o;
    size_t indent = (h->nlevels - 1) * INDENT, title = 0, dots = 0;

    fprintf(f, "# Samples: %" PRIu64 "%s%s%s\n#\n", samples, o->event ? " of event '" : "",
            o->event ? o->event : "", o->event ? "'" : "");
    fprintf(f, "# %*sOverhead%s  ", (int)indent, "", o->show_nr_samples ? "       Samples" : "");
    for (size_t k = 0; k < h->nlevels; k++) {
        const char *t = o->levels[k] == CG_LEVEL_COMM && o->by_pid ? "Pid:Command"
                                                                   : titles[o->levels[k]];
        title += (size_t)fprintf(f, "%s%s", k ? " / " : "", t);
        if (k * INDENT + h->width[k] > dots)
            dots = k * INDENT + h->width[k];
    }
    dots = dots > title ? dots : title;
    if (!o->wide && dots > 100 - 4 - indent - 8 - (o->show_nr_samples ? 14 : 0))
        dots = 100 - 4 - indent - 8 - (o->show_nr_samples ? 14 : 0);
    fputs("\n# ", f);
    put_dots(f, indent + 8 + (o->show_nr_samples ? 14 : 0));
    fputs("  ", f);
    put_dots(f, dots);
    fputs("\n#\n", f);
}

static int collect(struct hier *h, const struct row *rows, size_t n)
{
    if (!(h->rows = calloc(n ? n : 1, sizeof(*h->rows))))
        return -ENOMEM;
    for (size_t i = 0; i < n; i++) {
        struct hrow *w = &h->rows[h->n];
        if (!rows[i].self)   /* perf's Overhead rows: the sampled functions */
            continue;
        w->r = &rows[i];
        h->n++;
        for (size_t k = 0; k < h->nlevels; k++) {
            if (!(w->key[k] = cell_of(&rows[i], h->o->levels[k], h->cy)))
                return -ENOMEM;
            size_t width = str_width(w->key[k]);
            if (h->o->levels[k] == CG_LEVEL_COMM && rows[i].comm)
                width += strspn(rows[i].comm, " ");
            if (width > h->width[k])
                h->width[k] = width;
        }
    }
    return 0;
}

int children_hierarchy(FILE *f, const struct row *rows, size_t n, uint64_t samples,
                       uint64_t total, const struct cg_syms *cy, const struct children_opts *o)
{
    struct hier h = { .nlevels = o->nlevels, .total = total, .cy = cy, .o = o };
    int err;

    for (size_t k = 0; k < h.nlevels; k++)
        h.width[k] = o->levels[k] == CG_LEVEL_COMM && o->by_pid ? strlen("Pid:Command")
                                                                  : strlen(titles[o->levels[k]]);
    err = h.nlevels ? collect(&h, rows, n) : -EINVAL;
    if (!err) {
        print_header(f, &h, samples);
        if (h.n)
            qsort_r(h.rows, h.n, sizeof(*h.rows), cmp_keys, &h.nlevels);
        if (!(h.ob = obuf_new(f)))
            err = -ENOMEM;
    }
    if (!err) {
        if (h.n)
            print_level(&h, 0, h.n, 0);
        err = h.err;
        if (!obuf_close(h.ob) && !err)
            err = -EIO;
    }
    for (size_t i = 0; h.rows && i < h.n; i++)
        for (size_t k = 0; k < h.nlevels; k++)
            free(h.rows[i].key[k]);
    free(h.rows);
    return err;
}
