/* SPDX-License-Identifier: MIT */
/* perf's Children/Self table from distinct call stacks. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "callgraph/symstacks.h"
#include "model/process.h"
#include "report/callgraph_out.h"
#include "util/hashmap.h"
#include "util/obuf.h"
#include "util/strutil.h"

struct row {
    const char *comm;         /* by_comm: the command, else NULL */
    uint32_t sym;
    uint32_t seen;            /* the last stack (+1) that counted it: once per sample */
    uint64_t children, self, samples;
};

struct rows {
    VEC(struct row) v;
    struct hashmap index;     /* (comm id << 32 | sym) -> row index + 1 */
    VEC(const char *) comms;  /* distinct command names; ids are indices */
    struct hashmap comm_of;   /* process -> comm id + 1 */
};

static int cmp_row(const void *a, const void *b)
{
    const struct row *x = a, *y = b;
    int c;
    if (x->children != y->children)
        return x->children > y->children ? -1 : 1;
    if (x->self != y->self)
        return x->self > y->self ? -1 : 1;
    if (x->comm && (c = strcmp(x->comm, y->comm)))
        return c;
    return x->sym < y->sym ? -1 : x->sym > y->sym;
}

static double pct(uint64_t v, uint64_t total)
{
    return total ? 100.0 * (double)v / (double)total : 0;
}

/* The command id of a process: processes of one name share a row. -ENOMEM or the id. */
static long comm_id(struct rows *r, const struct process *p)
{
    uintptr_t v = (uintptr_t)hashmap_get(&r->comm_of, (uint64_t)(uintptr_t)p);
    size_t i;

    if (v)
        return (long)v - 1;
    for (i = 0; i < r->comms.n && strcmp(r->comms.v[i], p->comm); i++)
        ;
    if ((i == r->comms.n && vec_push(&r->comms, p->comm)) ||
        hashmap_put(&r->comm_of, (uint64_t)(uintptr_t)p, (void *)(uintptr_t)(i + 1)))
        return -ENOMEM;
    return (long)i;
}

static struct row *row_of(struct rows *r, long comm, const char *name, uint32_t sym)
{
    uint64_t key = (uint64_t)comm << 32 | sym;
    uintptr_t v = (uintptr_t)hashmap_get(&r->index, key);

    if (v)
        return &r->v.v[v - 1];
    if (vec_push(&r->v, ((struct row){ .comm = name, .sym = sym })) ||
        hashmap_put(&r->index, key, (void *)(uintptr_t)r->v.n))
        return NULL;
    return &r->v.v[r->v.n - 1];
}

static int add_stack(struct rows *r, const struct cg_stack *st, const uint32_t *fs,
                     const struct cg_symstack *weight, size_t i, bool by_comm)
{
    long comm = by_comm ? comm_id(r, st->proc) : 0;
    const char *name = by_comm && comm >= 0 ? r->comms.v[comm] : NULL;

    if (comm < 0)
        return -ENOMEM;
    for (uint32_t k = 0; k < st->n; k++) {
        struct row *w = row_of(r, comm, name, fs[k]);
        if (!w)
            return -ENOMEM;
        if (!k)
            w->self += weight->period;
        if (w->seen == (uint32_t)(i + 1))   /* a symbol once per stack, however it recurses */
            continue;
        w->seen = (uint32_t)(i + 1);
        w->children += weight->period;
        w->samples += weight->samples;
    }
    return 0;
}

static int add_stacks(struct rows *r, const struct cg_store *cs, const struct cg_syms *cy,
                      bool by_comm)
{
    struct cg_symstack *ss;
    size_t nss;
    int err = cg_symstacks(cs, cy, by_comm, &ss, &nss);

    if (err)
        return err;
    /* Per stack in symbols: every frame is one row update, on far fewer stacks. */
    for (size_t i = 0; i < nss && !err; i++) {
        const struct cg_stack *st = &cs->stacks[ss[i].stack];
        err = add_stack(r, st, cy->frame_sym + st->off, &ss[i], i, by_comm);
    }
    free(ss);
    return err;
}

/* "  " and s, padded with spaces to width bytes (printf's "  %-*s"). */
static void put_padded(struct obuf *ob, const char *s, size_t width)
{
    static const char spaces[] = "                                                                ";
    size_t len = strlen(s);

    obuf_put(ob, "  ", 2);
    obuf_put(ob, s, len);
    for (size_t pad = len < width ? width - len : 0; pad; ) {
        size_t k = pad < sizeof(spaces) - 1 ? pad : sizeof(spaces) - 1;
        obuf_put(ob, spaces, k);
        pad -= k;
    }
}

static int print_rows(FILE *f, const struct row *rows, size_t n, const struct cg_store *cs,
                       const struct cg_syms *cy, const struct children_opts *o)
{
    char dbuf[256], nbuf[256], pbuf[1024], ebuf[1024], ibuf[1100];
    size_t dw = strlen("Shared Object"), cw = strlen("Command"), fixed;
    uint64_t total = o->total_period ? o->total_period : cs->period;

    for (size_t i = 0; i < n; i++) {
        const char *d = str_printable(cg_sym_dso(&cy->syms[rows[i].sym], dbuf, sizeof(dbuf)),
                                      pbuf, sizeof(pbuf));
        if (pct(rows[i].children, total) < o->percent_limit)
            continue;
        if (str_width(d) > dw)
            dw = str_width(d);
        d = rows[i].comm ? str_printable(rows[i].comm, pbuf, sizeof(pbuf)) : "";
        if (str_width(d) > cw)
            cw = str_width(d);
    }
    if (dw > 24 && !o->wide)
        dw = 24;
    if (cw > 16 && !o->wide)
        cw = 16;
    fprintf(f, "# Samples: %" PRIu64 "%s%s%s\n#\n", cs->samples, o->event ? " of event '" : "",
            o->event ? o->event : "", o->event ? "'" : "");
    fprintf(f, "# Children      Self%s", o->show_nr_samples ? "  Samples" : "");
    if (o->by_comm)
        fprintf(f, "  %-*s", (int)cw, "Command");
    fprintf(f, "  %-*s  Symbol\n", (int)dw, "Shared Object");
    fixed = 20 + (o->show_nr_samples ? 9 : 0) + (o->by_comm ? 2 + cw : 0) + 2 + dw + 2 + 4;
    /* The rows (most of the output) through one buffer: an fprintf per field was a tenth of
     * the report's time. Padding as printf's %-*s pads: in bytes. */
    struct obuf *ob = obuf_new(f);
    if (!ob)
        return -ENOMEM;
    for (size_t i = 0; i < n; i++) {
        const struct row *r = &rows[i];
        const struct cg_sym *s = &cy->syms[r->sym];
        const char *d, *name;
        char num[64];
        int len;

        if (pct(r->children, total) < o->percent_limit)
            continue;
        len = snprintf(num, sizeof(num), "%9.2f%%%9.2f%%", pct(r->children, total),
                       pct(r->self, total));
        obuf_put(ob, num, (size_t)len);
        if (o->show_nr_samples) {
            len = snprintf(num, sizeof(num), "  %7" PRIu64, r->samples);
            obuf_put(ob, num, (size_t)len);
        }
        if (r->comm) {
            name = str_printable(r->comm, pbuf, sizeof(pbuf));
            put_padded(ob, o->wide ? name : str_elide(name, cw, ebuf, sizeof(ebuf)), cw);
        }
        d = str_printable(cg_sym_dso(s, dbuf, sizeof(dbuf)), pbuf, sizeof(pbuf));
        put_padded(ob, o->wide ? d : str_elide(d, dw, ebuf, sizeof(ebuf)), dw);
        obuf_put(ob, s->kernel ? "  [k] " : "  [.] ", 6);
        name = str_printable(cg_sym_name(s, nbuf, sizeof(nbuf)), pbuf, sizeof(pbuf));
        if (s->inlined) {
            snprintf(ibuf, sizeof(ibuf), "%s (inlined)", name);
            name = ibuf;
        }
        if (!o->wide && fixed < 100)
            name = str_elide(name, 100 - fixed, ebuf, sizeof(ebuf));
        obuf_put(ob, name, strlen(name));
        obuf_char(ob, '\n');
    }
    return obuf_close(ob) ? 0 : -EIO;
}

int report_children(FILE *f, const struct cg_store *cs, const struct cg_syms *cy,
                    const struct children_opts *o)
{
    struct rows r = { 0 };
    int err;

    hashmap_init(&r.index);
    hashmap_init(&r.comm_of);
    err = add_stacks(&r, cs, cy, o->by_comm);
    if (!err) {
        if (r.v.n)   /* a file without samples has no rows, and qsort(NULL, 0) is undefined */
            qsort(r.v.v, r.v.n, sizeof(*r.v.v), cmp_row);
        err = print_rows(f, r.v.v, r.v.n, cs, cy, o);
        if (!err && (fflush(f) || ferror(f)))
            err = -EIO;
    }
    vec_free(&r.v);
    vec_free(&r.comms);
    hashmap_release(&r.index);
    hashmap_release(&r.comm_of);
    return err;
}
