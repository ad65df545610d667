/* SPDX-License-Identifier: MIT */
/* --children --format csv|json: the table's rows, and the chains under them as chain ends. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "report/chain_cut.h"
#include "report/children_rows.h"
#include "report/csv.h"
#include "report/json.h"

static double pct(uint64_t v, uint64_t total)
{
    return total ? 100.0 * (double)v / (double)total : 0;
}

static bool wants_chains(const struct children_opts *o)
{
    return o->chains && o->chains->mode != CHAIN_NONE;
}

static int cmp_end(const void *a, const void *b, void *arg)
{
    const struct ct_node *nodes = arg;
    uint64_t x = nodes[*(const uint32_t *)a].hit, y = nodes[*(const uint32_t *)b].hit;
    return x > y ? -1 : x < y;
}

/* The chain ends of a tree worth showing (nodes where chains end, at least the threshold),
 * the heaviest first, as perf's flat and folded modes list them. */
static size_t chain_ends(const struct chaintree *t, uint64_t total,
                         const struct children_opts *o, uint32_t *out)
{
    uint64_t least = (uint64_t)((double)total * (o->chains->min_percent / 100.0));
    size_t n = 0;

    for (uint32_t i = 1; t && i < t->n; i++)
        if (t->nodes[i].hit && t->nodes[i].hit >= least)
            out[n++] = i;
    if (n > 1)
        qsort_r(out, n, sizeof(*out), cmp_end, t->nodes);
    return n;
}

/* The frames from the root to node `at`, joined by ';' into buf. */
static const char *chain_text(const struct chaintree *t, uint32_t at, const struct cg_syms *cy,
                              char *buf, size_t len)
{
    char nbuf[256];
    uint32_t path[512];
    size_t depth = 0, used = 0;

    for (; at && depth < sizeof(path) / sizeof(*path); at = t->nodes[at].parent)
        path[depth++] = at;
    buf[0] = '\0';
    while (depth-- && used < len)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ";" : "",
                                 cg_sym_name(&cy->syms[t->nodes[path[depth]].sym], nbuf,
                                             sizeof(nbuf)));
    return buf;
}

/* --parent: the row's parent symbol, "[other]" where no frame matched. */
static const char *parent_of(const struct row *r, const struct cg_syms *cy, char *buf,
                             size_t len)
{
    return r->parent == CHAIN_NO_PARENT ? "[other]" : cg_sym_name(&cy->syms[r->parent], buf, len);
}

/* by_pid: the command of "PID:comm" (the pid is the row's own field). */
static const char *bare_comm(const struct row *r, const struct children_opts *o)
{
    const char *colon = o->by_pid ? strchr(r->comm, ':') : NULL;
    return colon ? colon + 1 : r->comm;
}

static void csv_row_fields(FILE *f, const struct row *r, uint64_t total,
                           const struct cg_syms *cy, const struct children_opts *o, bool last)
{
    const struct cg_sym *s = &cy->syms[r->sym];
    char dbuf[256], nbuf[256];

    if (!o->no_children)
        csv_double(f, pct(r->children, total), 4, false);
    csv_double(f, pct(r->self, total), 4, false);
    csv_u64(f, o->no_children ? r->self_samples : r->samples, false);
    if (o->by_tid)
        csv_u64(f, (uint64_t)r->tid, false);
    if (o->by_pid)
        csv_u64(f, (uint64_t)r->pid, false);
    if (r->comm)
        csv_field(f, bare_comm(r, o), last && o->no_sym && !o->parent);
    if (o->parent)
        csv_field(f, parent_of(r, cy, nbuf, sizeof(nbuf)), last && o->no_sym);
    if (o->no_sym)
        return;
    if (!o->no_dso)
        csv_field(f, cg_sym_dso(s, dbuf, sizeof(dbuf)), false);
    csv_field(f, cg_sym_name(s, nbuf, sizeof(nbuf)), false);
    csv_field(f, s->kernel ? "kernel" : "user", last);
}

static int export_csv(FILE *f, const struct row *const *rows, size_t n, uint64_t total,
                      const struct cg_syms *cy, const struct children_opts *o, uint32_t *ends,
                      char *buf, size_t len)
{
    bool chains = wants_chains(o);

    fprintf(f, "%s%s,samples%s%s%s%s%s%s\n", o->no_children ? "" : "children,",
            o->no_children ? "overhead" : "self", o->by_tid ? ",tid" : "",
            o->by_pid ? ",pid,comm" : o->by_comm ? ",comm" : "",
            o->parent ? ",parent" : "", o->no_dso || o->no_sym ? "" : ",dso",
            o->no_sym ? "" : ",symbol,mode", chains ? ",chain_percent,chain" : "");
    for (size_t i = 0; i < n; i++) {
        size_t m = chains ? chain_ends(rows[i]->tree, total, o, ends) : 0;
        if (!m) {
            csv_row_fields(f, rows[i], total, cy, o, !chains);
            if (chains)   /* empty chain_percent and chain: the row's fields end in ',' */
                fputs(",\n", f);
        }
        for (size_t k = 0; k < m; k++) {
            csv_row_fields(f, rows[i], total, cy, o, false);
            csv_double(f, pct(rows[i]->tree->nodes[ends[k]].hit, total), 4, false);
            csv_field(f, chain_text(rows[i]->tree, ends[k], cy, buf, len), true);
        }
    }
    return 0;
}

static void json_chains(struct json *j, const struct row *r, uint64_t total,
                        const struct cg_syms *cy, const struct children_opts *o, uint32_t *ends)
{
    size_t m = chain_ends(r->tree, total, o, ends);
    char nbuf[256];

    json_begin_array(j, "chains");
    for (size_t k = 0; k < m; k++) {
        json_begin_object(j, NULL);
        json_double(j, "percent", pct(r->tree->nodes[ends[k]].hit, total), 4);
        json_u64(j, "period", r->tree->nodes[ends[k]].hit);
        json_begin_array(j, "frames");
        uint32_t path[512];
        size_t depth = 0;
        for (uint32_t at = ends[k]; at && depth < 512; at = r->tree->nodes[at].parent)
            path[depth++] = at;
        while (depth--)
            json_str(j, NULL, cg_sym_name(&cy->syms[r->tree->nodes[path[depth]].sym], nbuf,
                                          sizeof(nbuf)));
        json_end_array(j);
        json_end_object(j);
    }
    json_end_array(j);
}

static int export_json(FILE *f, const struct row *const *rows, size_t n, uint64_t total,
                       const struct cg_syms *cy, const struct children_opts *o, uint32_t *ends)
{
    struct json j;
    char dbuf[256], nbuf[256];

    json_init(&j, f);
    json_begin_object(&j, NULL);
    json_str(&j, "event", o->event);
    json_u64(&j, "period", total);
    json_str(&j, "table", o->no_children ? "no-children" : "children");
    if (wants_chains(o))
        json_str(&j, "chain_order", o->chains->callee ? "callee" : "caller");
    json_begin_array(&j, "rows");
    for (size_t i = 0; i < n; i++) {
        const struct row *r = rows[i];
        const struct cg_sym *s = &cy->syms[r->sym];
        json_begin_object(&j, NULL);
        if (!o->no_children)
            json_double(&j, "children", pct(r->children, total), 4);
        json_double(&j, o->no_children ? "overhead" : "self", pct(r->self, total), 4);
        json_u64(&j, "samples", o->no_children ? r->self_samples : r->samples);
        if (o->by_tid)
            json_i64(&j, "tid", r->tid);
        if (o->by_pid)
            json_i64(&j, "pid", r->pid);
        if (r->comm)
            json_str(&j, "comm", bare_comm(r, o));
        if (o->parent)
            json_str(&j, "parent", parent_of(r, cy, nbuf, sizeof(nbuf)));
        if (!o->no_dso && !o->no_sym)
            json_str(&j, "dso", cg_sym_dso(s, dbuf, sizeof(dbuf)));
        if (!o->no_sym) {
            json_str(&j, "symbol", cg_sym_name(s, nbuf, sizeof(nbuf)));
            json_str(&j, "mode", s->kernel ? "kernel" : "user");
        }
        if (wants_chains(o))
            json_chains(&j, r, total, cy, o, ends);
        json_end_object(&j);
    }
    json_end_array(&j);
    json_end_object(&j);
    json_finish(&j);
    return 0;
}

int children_export(FILE *f, const struct row *const *rows, size_t n, uint64_t total,
                    const struct cg_syms *cy, const struct children_opts *o)
{
    size_t most = 1, len = 65536;
    uint32_t *ends;
    char *buf;
    int err;

    for (size_t i = 0; i < n; i++)
        if (rows[i]->tree && rows[i]->tree->n > most)
            most = rows[i]->tree->n;
    ends = malloc(most * sizeof(*ends));
    buf = malloc(len);
    if (!ends || !buf) {
        free(ends);
        free(buf);
        return -ENOMEM;
    }
    err = o->fmt == REPORT_CSV ? export_csv(f, rows, n, total, cy, o, ends, buf, len)
                               : export_json(f, rows, n, total, cy, o, ends);
    free(ends);
    free(buf);
    return err || fflush(f) || ferror(f) ? -EIO : 0;
}
