/* SPDX-License-Identifier: MIT */
/* perf's Children/Self table from distinct call stacks. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "callgraph/chaintree.h"
#include "callgraph/symstacks.h"
#include "report/chain_cut.h"
#include "model/process.h"
#include "report/callgraph_out.h"
#include "report/children_rows.h"
#include "report/thread_tally.h"
#include "util/hashmap.h"
#include "util/obuf.h"
#include "util/strutil.h"


struct rows {
    VEC(struct row) v;
    struct hashmap index;     /* (comm id << 32 | sym) -> row index + 1 */
    VEC(const char *) comms;  /* distinct command names (by_pid: "PID:comm"); ids: indices */
    VEC(int32_t) pids, tids;  /* by_pid: each id's process and thread, for csv and json */
    struct hashmap comm_of;   /* process -> comm id + 1 */
    bool own_comms;           /* by_pid: the names were made here */
    struct chain_cut cut;     /* --ignore-callees */
    struct chain_cut parents; /* --parent */
    struct hashmap group_of;  /* --parent: (comm id << 32 | parent) -> row key id + 1 */
    bool no_sym;              /* rows per key without a symbol: every frame is symbol 0 */
};

/* Which rows a stack's frames go to: a row per (id, symbol). */
struct rowkey {
    long id;                  /* the comm id; with --parent, of the (comm, parent) pair */
    const char *comm;
    uint32_t parent;
    int32_t pid, tid;         /* by_pid: the process and thread of the id */
};

/* --no-children: by Self. */
static int cmp_self(const void *a, const void *b)
{
    const struct row *x = a, *y = b;
    int c;
    if (x->self != y->self)
        return x->self > y->self ? -1 : 1;
    if (x->comm && (c = strcmp(x->comm, y->comm)))
        return c;
    if (x->sym != y->sym)
        return x->sym < y->sym ? -1 : 1;
    return x->parent < y->parent ? -1 : x->parent > y->parent;
}

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
    if (x->sym != y->sym)
        return x->sym < y->sym ? -1 : 1;
    return x->parent < y->parent ? -1 : x->parent > y->parent;
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

/* by_pid: each process id is its own row key (its images before and after an exec one row),
 * shown as perf's pid key shows it ("%7d:comm", the latest name); by_tid: each thread, by its
 * latest name (perf's pid key is per thread). */
static long pid_id(struct rows *r, const struct cg_stack *st, const struct children_opts *o)
{
    const struct process *p = st->proc;
    pid_t id = o->by_tid ? st->tid : p->pid;
    uint64_t key = (uint64_t)(uint32_t)id;
    uintptr_t v = (uintptr_t)hashmap_get(&r->comm_of, key);
    const char *comm = o->threads ? thread_tally_comm(o->threads, id) : NULL;
    size_t len;
    char *name;

    if (v)
        return (long)v - 1;
    comm = comm ? comm : p->comm;
    len = strlen(comm) + 24;
    if (!(name = malloc(len)))
        return -ENOMEM;
    snprintf(name, len, "%7d:%s", (int)id, comm);
    if (vec_push(&r->comms, name)) {
        free(name);
        return -ENOMEM;
    }
    if (vec_push(&r->pids, (int32_t)p->pid) ||
        vec_push(&r->tids, o->by_tid ? (int32_t)st->tid : (int32_t)p->pid) ||
        hashmap_put(&r->comm_of, key, (void *)(uintptr_t)r->comms.n))
        return -ENOMEM;
    return (long)r->comms.n - 1;
}

/* --parent: the key id of (comm, parent), -ENOMEM. */
static long group_id(struct rows *r, long comm, uint32_t parent)
{
    uint64_t key = (uint64_t)comm << 32 | parent;
    uintptr_t v = (uintptr_t)hashmap_get(&r->group_of, key);

    if (v)
        return (long)v - 1;
    v = r->group_of.n + 1;
    return hashmap_put(&r->group_of, key, (void *)v) ? -ENOMEM : (long)v - 1;
}

static struct row *row_of(struct rows *r, const struct rowkey *rk, uint32_t sym)
{
    uintptr_t v;
    uint64_t key;

    if (r->no_sym)
        sym = 0;
    key = (uint64_t)rk->id << 32 | sym;
    v = (uintptr_t)hashmap_get(&r->index, key);

    if (v)
        return &r->v.v[v - 1];
    if (vec_push(&r->v, ((struct row){ .comm = rk->comm, .sym = sym, .parent = rk->parent,
                                       .pid = rk->pid, .tid = rk->tid })) ||
        hashmap_put(&r->index, key, (void *)(uintptr_t)r->v.n))
        return NULL;
    return &r->v.v[r->v.n - 1];
}

static int add_chain(struct row *w, const uint32_t *fs, long from, long step, size_t n,
                     uint64_t period)
{
    if (!w->tree) {
        if (!(w->tree = malloc(sizeof(*w->tree))))
            return -ENOMEM;
        if (chaintree_init(w->tree)) {
            free(w->tree);
            w->tree = NULL;
            return -ENOMEM;
        }
    }
    return chaintree_add(w->tree, fs, from, step, n, period);
}

/* perf's chains of a stack (fs: leaf first): the sampled function's row (self: the leaf, or
 * the --ignore-callees match) has the whole chain; with
 * children, every other row of the stack (once, at its first frame in the chain's order) the
 * chain from its frame to the chain's end: towards the leaf (caller order) or the outermost
 * frame (callee order). */
static int add_chains(struct rows *r, const struct rowkey *rk, const uint32_t *fs, long n,
                      uint32_t self, uint64_t period, uint32_t mark,
                      const struct children_opts *o)
{
    bool callee = o->chains->callee;
    struct row *w = row_of(r, rk, self);
    int err;

    if (!w)
        return -ENOMEM;
    err = add_chain(w, fs, callee ? 0 : n - 1, callee ? 1 : -1, (size_t)n, period);
    w->chain_seen = mark;
    for (long j = 0; j < n && !err && !o->no_children; j++) {
        long k = callee ? j : n - 1 - j;
        if (!(w = row_of(r, rk, fs[k])))
            return -ENOMEM;
        if (w->chain_seen == mark)
            continue;
        w->chain_seen = mark;
        err = callee ? add_chain(w, fs, k, 1, (size_t)(n - k), period)
                     : add_chain(w, fs, k, -1, (size_t)(k + 1), period);
    }
    return err;
}

static bool wants_chains(const struct children_opts *o)
{
    return o->chains && o->chains->mode != CHAIN_NONE;
}

static int add_stack(struct rows *r, const struct cg_stack *st, const uint32_t *stack,
                     const struct cg_symstack *weight, size_t i, const struct children_opts *o)
{
    long comm = o->by_pid ? pid_id(r, st, o) : o->by_comm ? comm_id(r, st->proc) : 0;
    const char *name = (o->by_comm || o->by_pid) && comm >= 0 ? r->comms.v[comm] : NULL;
    bool callee = o->chains && o->chains->callee;
    struct rowkey rk = { comm, name, CHAIN_NO_PARENT, 0, 0 };
    const uint32_t *fs;
    struct row *w;
    uint32_t self;
    long from, n;

    if (comm < 0)
        return -ENOMEM;
    if (o->by_pid) {
        rk.pid = r->pids.v[comm];
        rk.tid = r->tids.v[comm];
    }
    if (o->parent) {
        rk.parent = chain_cut_parent(&r->parents, stack, st->n, callee);
        if ((rk.id = group_id(r, comm, rk.parent)) < 0)
            return -ENOMEM;
    }
    chain_cut_apply(&r->cut, stack, st->n, callee, &from, &n, &self);
    fs = stack + from;
    if (n) {
        if (!(w = row_of(r, &rk, self)))
            return -ENOMEM;
        w->self += weight->period;
        w->self_samples += weight->samples;
    }
    for (long k = 0; k < n; k++) {
        if (!(w = row_of(r, &rk, fs[k])))
            return -ENOMEM;
        if (w->seen == (uint32_t)(i + 1))   /* a symbol once per stack, however it recurses */
            continue;
        w->seen = (uint32_t)(i + 1);
        w->children += weight->period;
        w->samples += weight->samples;
    }
    if (wants_chains(o) && n)
        return add_chains(r, &rk, fs, n, self, weight->period, (uint32_t)(i + 1), o);
    return 0;
}

static int add_stacks(struct rows *r, const struct cg_store *cs, const struct cg_syms *cy,
                      const struct children_opts *o)
{
    struct cg_symstack *ss;
    size_t nss;
    int err = 0;

    /* Per process: its own stacks, unmerged (merging in symbols joins processes). */
    for (size_t i = 0; o->by_pid && i < cs->nstacks && !err; i++) {
        const struct cg_stack *st = &cs->stacks[i];
        struct cg_symstack one = { .stack = i, .samples = st->samples, .period = st->period };
        err = add_stack(r, st, cy->frame_sym + st->off, &one, i, o);
    }
    if (o->by_pid)
        return err;
    if ((err = cg_symstacks(cs, cy, o->by_comm, &ss, &nss)))
        return err;
    /* Per stack in symbols: every frame is one row update, on far fewer stacks. */
    for (size_t i = 0; i < nss && !err; i++) {
        const struct cg_stack *st = &cs->stacks[ss[i].stack];
        err = add_stack(r, st, cy->frame_sym + st->off, &ss[i], i, o);
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

/* A row's share as the table shows it: Children, or Self with --no-children. */
static uint64_t row_value(const struct row *r, const struct children_opts *o)
{
    return o->no_children ? r->self : r->children;
}

/* Whether name is one of the comma-separated list's. */
static bool in_list(const char *list, const char *name)
{
    size_t len = strlen(name);

    for (const char *at = list; *at; at += *at == ',') {
        size_t n = strcspn(at, ",");
        if (n == len && !memcmp(at, name, len))
            return true;
        at += n;
    }
    return false;
}

static bool row_shown(const struct row *r, uint64_t total, const struct cg_syms *cy,
                      const struct children_opts *o)
{
    char nbuf[256];

    if (pct(row_value(r, o), total) < o->percent_limit || (o->no_children && !r->self))
        return false;
    return !o->symbols || o->no_sym ||
           in_list(o->symbols, cg_sym_name(&cy->syms[r->sym], nbuf, sizeof(nbuf)));
}

struct widths {
    size_t dso, comm, fixed;  /* the columns' widths; fixed: all but the symbol's */
    size_t sym, parent;       /* --parent: the Symbol column is padded, Parent symbol last */
};

/* A row's name as its Symbol column shows it (" (inlined)" added), printable. */
static const char *shown_name(const struct cg_sym *s, char *buf, size_t len)
{
    char nbuf[256], pbuf[1024];
    const char *name = str_printable(cg_sym_name(s, nbuf, sizeof(nbuf)), pbuf, sizeof(pbuf));

    snprintf(buf, len, "%s%s", name, s->inlined ? " (inlined)" : "");
    return buf;
}

static const char *parent_name(const struct row *r, const struct cg_syms *cy, char *buf,
                               size_t len)
{
    return r->parent == CHAIN_NO_PARENT ? "[other]" : shown_name(&cy->syms[r->parent], buf, len);
}

/* --parent: the Symbol column as wide as its widest shown name, Parent symbol's after it;
 * within 100 columns unless wide. */
static void parent_widths(struct widths *w, const struct row *rows, size_t n, uint64_t total,
                          const struct cg_syms *cy, const struct children_opts *o)
{
    char buf[1200];

    w->sym = strlen("Symbol") > 4 ? strlen("Symbol") - 4 : 0;
    w->parent = strlen("Parent symbol");
    for (size_t i = 0; i < n; i++) {
        if (!row_shown(&rows[i], total, cy, o))
            continue;
        if (str_width(shown_name(&cy->syms[rows[i].sym], buf, sizeof(buf))) > w->sym)
            w->sym = str_width(buf);
        if (str_width(parent_name(&rows[i], cy, buf, sizeof(buf))) > w->parent)
            w->parent = str_width(buf);
    }
    if (!o->wide && w->parent > 24)
        w->parent = 24;
    if (o->parent_first || o->no_sym) {   /* the symbol, if any, last and unpadded */
        w->fixed += 2 + w->parent - (o->no_sym ? 6 : 0);
        return;
    }
    if (o->wide)
        return;
    if (w->fixed + w->sym + 2 + w->parent > 100)
        w->sym = w->fixed + 2 + w->parent < 100 - 8 ? 100 - w->fixed - 2 - w->parent : 8;
}

static struct widths column_widths(const struct row *rows, size_t n, uint64_t total,
                                   const struct cg_syms *cy, const struct children_opts *o)
{
    struct widths w = { .dso = strlen("Shared Object"), .comm = strlen("Command") };
    char dbuf[256], pbuf[1024];

    for (size_t i = 0; i < n; i++) {
        const char *d = str_printable(cg_sym_dso(&cy->syms[rows[i].sym], dbuf, sizeof(dbuf)),
                                      pbuf, sizeof(pbuf));
        if (!row_shown(&rows[i], total, cy, o))
            continue;
        if (str_width(d) > w.dso)
            w.dso = str_width(d);
        d = rows[i].comm ? str_printable(rows[i].comm, pbuf, sizeof(pbuf)) : "";
        if (str_width(d) > w.comm)
            w.comm = str_width(d);
    }
    if (w.dso > 24 && !o->wide)
        w.dso = 24;
    if (w.comm > (o->by_pid ? 24u : 16u) && !o->wide)   /* "%7d:" and a 15-byte comm */
        w.comm = o->by_pid ? 24 : 16;
    w.fixed = (o->no_children ? 10 : 20) + (o->show_nr_samples ? 9 : 0) +
              (o->by_comm || o->by_pid ? 2 + w.comm : 0) + (o->no_dso ? 0 : 2 + w.dso) + 2 + 4;
    if (o->parent)
        parent_widths(&w, rows, n, total, cy, o);
    return w;
}

static void print_header(FILE *f, const struct cg_store *cs, const struct widths *w,
                         const struct children_opts *o)
{
    fprintf(f, "# Samples: %" PRIu64 "%s%s%s\n#\n", cs->samples, o->event ? " of event '" : "",
            o->event ? o->event : "", o->event ? "'" : "");
    fprintf(f, "# %s%s", o->no_children ? "Overhead" : "Children      Self",
            o->show_nr_samples ? "  Samples" : "");
    if (o->parent_first)
        fprintf(f, "  %-*s", (int)w->parent, "Parent symbol");
    if (o->by_comm || o->by_pid)
        fprintf(f, "  %-*s", (int)w->comm, o->by_pid ? "Pid:Command" : "Command");
    if (!o->no_dso && !o->no_sym)
        fprintf(f, "  %-*s", (int)w->dso, "Shared Object");
    if (o->no_sym && o->parent && !o->parent_first)
        fprintf(f, "  Parent symbol\n");
    else if (o->no_sym)
        fprintf(f, "\n");
    else if (o->parent && !o->parent_first)
        fprintf(f, "  %-*s  Parent symbol\n", (int)w->sym + 4, "Symbol");
    else
        fprintf(f, "  Symbol\n");
}

static void print_row(struct obuf *ob, const struct row *r, uint64_t total,
                      const struct widths *w, const struct cg_syms *cy,
                      const struct children_opts *o)
{
    char dbuf[256], nbuf[256], pbuf[1024], ebuf[1024], ibuf[1100], num[64];
    const struct cg_sym *s = &cy->syms[r->sym];
    const char *d, *name;
    int len;

    if (o->no_children)
        len = snprintf(num, sizeof(num), "%9.2f%%", pct(r->self, total));
    else
        len = snprintf(num, sizeof(num), "%9.2f%%%9.2f%%", pct(r->children, total),
                       pct(r->self, total));
    obuf_put(ob, num, (size_t)len);
    if (o->show_nr_samples) {
        len = snprintf(num, sizeof(num), "  %7" PRIu64,
                       o->no_children ? r->self_samples : r->samples);
        obuf_put(ob, num, (size_t)len);
    }
    if (o->parent_first || (o->no_sym && o->parent)) {
        name = parent_name(r, cy, ibuf, sizeof(ibuf));
        if (o->parent_first)
            put_padded(ob, o->wide ? name : str_elide(name, w->parent, ebuf, sizeof(ebuf)),
                       w->parent);
    }
    if (r->comm) {
        name = str_printable(r->comm, pbuf, sizeof(pbuf));
        put_padded(ob, o->wide ? name : str_elide(name, w->comm, ebuf, sizeof(ebuf)), w->comm);
    }
    if (o->no_sym) {   /* rows per parent and/or command only */
        if (o->parent && !o->parent_first) {
            name = parent_name(r, cy, ibuf, sizeof(ibuf));
            put_padded(ob, o->wide ? name : str_elide(name, w->parent, ebuf, sizeof(ebuf)),
                       w->parent);
        }
        obuf_char(ob, '\n');
        return;
    }
    if (!o->no_dso) {
        d = str_printable(cg_sym_dso(s, dbuf, sizeof(dbuf)), pbuf, sizeof(pbuf));
        put_padded(ob, o->wide ? d : str_elide(d, w->dso, ebuf, sizeof(ebuf)), w->dso);
    }
    obuf_put(ob, s->kernel ? "  [k] " : "  [.] ", 6);
    name = str_printable(cg_sym_name(s, nbuf, sizeof(nbuf)), pbuf, sizeof(pbuf));
    if (s->inlined) {
        snprintf(ibuf, sizeof(ibuf), "%s (inlined)", name);
        name = ibuf;
    }
    if (o->parent && !o->parent_first) {   /* both columns padded, as perf's */
        name = o->wide ? name : str_elide(name, w->sym, ebuf, sizeof(ebuf));
        obuf_put(ob, name, strlen(name));
        for (size_t pad = str_width(name); pad < w->sym; pad++)
            obuf_char(ob, ' ');
        name = parent_name(r, cy, ibuf, sizeof(ibuf));
        put_padded(ob, o->wide ? name : str_elide(name, w->parent, ebuf, sizeof(ebuf)),
                   w->parent);
    } else {
        if (!o->wide && w->fixed < 100)
            name = str_elide(name, 100 - w->fixed, ebuf, sizeof(ebuf));
        obuf_put(ob, name, strlen(name));
    }
    obuf_char(ob, '\n');
}

/* csv and json: the shown rows (children_export.c). */
static int export_rows(FILE *f, const struct row *rows, size_t n, uint64_t total,
                       const struct cg_syms *cy, const struct children_opts *o)
{
    const struct row **shown = malloc((n ? n : 1) * sizeof(*shown));
    size_t k = 0;
    int err;

    if (!shown)
        return -ENOMEM;
    for (size_t i = 0; i < n; i++)
        if (row_shown(&rows[i], total, cy, o))
            shown[k++] = &rows[i];
    err = children_export(f, shown, k, total, cy, o);
    free(shown);
    return err;
}

static int print_rows(FILE *f, const struct row *rows, size_t n, const struct cg_store *cs,
                       const struct cg_syms *cy, const struct children_opts *o)
{
    uint64_t total = o->total_period ? o->total_period : cs->period;
    struct widths w;
    int err = 0;

    if (o->fmt != REPORT_TEXT)
        return export_rows(f, rows, n, total, cy, o);
    if (o->hierarchy)
        return children_hierarchy(f, rows, n, cs->samples, total, cy, o);
    w = column_widths(rows, n, total, cy, o);
    print_header(f, cs, &w, o);
    /* The rows (most of the output) through one buffer: an fprintf per field was a tenth of
     * the report's time. Padding as printf's %-*s pads: in bytes. */
    struct obuf *ob = obuf_new(f);
    if (!ob)
        return -ENOMEM;
    for (size_t i = 0; i < n && !err; i++) {
        if (!row_shown(&rows[i], total, cy, o))
            continue;
        print_row(ob, &rows[i], total, &w, cy, o);
        if (wants_chains(o))
            err = children_print_tree(ob, &rows[i], total, cy, o);
    }
    if (!obuf_close(ob) && !err)
        err = -EIO;
    return err;
}

int report_children(FILE *f, const struct cg_store *cs, const struct cg_syms *cy,
                    const struct children_opts *o)
{
    struct rows r = { 0 };
    int err;

    hashmap_init(&r.index);
    hashmap_init(&r.comm_of);
    r.own_comms = o->by_pid;
    r.no_sym = o->no_sym;
    hashmap_init(&r.group_of);
    err = chain_cut_init(&r.cut, cy, o->ignore_callees);
    if (!err)
        err = chain_cut_init(&r.parents, cy, o->parent);
    if (!err)
        err = add_stacks(&r, cs, cy, o);
    if (!err) {
        if (r.v.n)   /* a file without samples has no rows, and qsort(NULL, 0) is undefined */
            qsort(r.v.v, r.v.n, sizeof(*r.v.v), o->no_children ? cmp_self : cmp_row);
        err = print_rows(f, r.v.v, r.v.n, cs, cy, o);
        if (!err && (fflush(f) || ferror(f)))
            err = -EIO;
    }
    for (size_t i = 0; i < r.v.n; i++)
        if (r.v.v[i].tree) {
            chaintree_release(r.v.v[i].tree);
            free(r.v.v[i].tree);
        }
    vec_free(&r.v);
    for (size_t i = 0; r.own_comms && i < r.comms.n; i++)
        free((char *)r.comms.v[i]);
    vec_free(&r.comms);
    vec_free(&r.pids);
    vec_free(&r.tids);
    hashmap_release(&r.index);
    hashmap_release(&r.comm_of);
    chain_cut_release(&r.cut);
    chain_cut_release(&r.parents);
    hashmap_release(&r.group_of);
    return err;
}
