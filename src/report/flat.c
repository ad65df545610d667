/* SPDX-License-Identifier: MIT */
/* Flat table: symbolize every hit once (merge walk per map), reduce by the sort keys with one
 * sort, order by period. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "report/csv.h"
#include "report/flat.h"
#include "util/strutil.h"
#include "report/json.h"
#include "report/thread_tally.h"
#include "session/symbolize.h"
#include "symbol/dso.h"
#include "symbol/shortname.h"
#include "util/hash.h"
#include "util/hashmap.h"
#include "util/vec.h"

/* Strings as small ids, so rows aggregate by integer keys: a pointer seen before costs one
 * lookup; a new pointer (another process's comm, another DSO's copy of a name) is matched by
 * content once. */
struct intern {
    struct hashmap by_ptr;    /* pointer -> id */
    struct hashmap by_hash;   /* content hash (+ probe) -> id */
    VEC(const char *) strs;   /* id - 1 -> string */
};

struct flat_ent {
    const char *comm;
    pid_t pid, tid;
    const char *dso;          /* display name (module name when dso_module) */
    bool dso_module;
    bool kernel;
    const char *sym;          /* NULL: unresolved, see addr */
    bool demangled, bracket;  /* sym is demangled C++ (shown short: symbol/shortname.h), an
                               * a->b bracket */
    uint64_t addr;
    uint32_t comm_id, dso_id, sym_id;
    uint64_t samples, period;
};

struct flat_ctx {
    const struct flat_opts *o;
    VEC(struct flat_ent) ents;
    struct hashmap index;     /* key hash (+ probe) -> ents index + 1 */
    struct intern names;
    bool want[FLAT_NKEYS];
    /* The row the previous hit went to, and its key as pointers: hits come in address order,
     * so a function's hits follow each other and skip the interning and the row lookup. */
    struct flat_ent last;
    size_t last_row;          /* + 1, 0 none */
};

static void intern_release(struct intern *in)
{
    hashmap_release(&in->by_ptr);
    hashmap_release(&in->by_hash);
    vec_free(&in->strs);
}

/* The id of s (0 for NULL), or 0 with *err = -ENOMEM. */
static uint32_t intern_id(struct intern *in, const char *s, int *err)
{
    uintptr_t id;
    uint64_t h;

    if (!s)
        return 0;
    if ((id = (uintptr_t)hashmap_get(&in->by_ptr, (uintptr_t)s)))
        return (uint32_t)id;
    for (h = hash_bytes(s, strlen(s)); (id = (uintptr_t)hashmap_get(&in->by_hash, h)); h++)
        if (!strcmp(in->strs.v[id - 1], s))
            break;
    if (!id) {
        if (vec_push(&in->strs, s) ||
            hashmap_put(&in->by_hash, h, (void *)(uintptr_t)in->strs.n)) {
            *err = -ENOMEM;
            return 0;
        }
        id = in->strs.n;
    }
    if (hashmap_put(&in->by_ptr, (uintptr_t)s, (void *)id))
        *err = -ENOMEM;
    return (uint32_t)id;
}

static bool same_key(const struct flat_ent *a, const struct flat_ent *b)
{
    return a->comm_id == b->comm_id && a->pid == b->pid && a->dso_id == b->dso_id &&
           a->tid == b->tid &&
           a->dso_module == b->dso_module && a->kernel == b->kernel && a->sym_id == b->sym_id &&
           a->addr == b->addr;
}

static uint64_t key_hash(const struct flat_ent *e)
{
    uint64_t h = hash_u64(((uint64_t)e->comm_id << 32) ^ (uint32_t)e->pid);
    h = hash_u64(h ^ (((uint64_t)e->dso_id << 32) | e->sym_id));
    return hash_u64(h ^ e->addr ^ ((uint64_t)e->dso_module << 62) ^ ((uint64_t)e->kernel << 63));
}

/* Whether e has the previous hit's key, compared as the pointers and values add_hit set. */
static bool same_as_last(const struct flat_ctx *c, const struct flat_ent *e)
{
    const struct flat_ent *l = &c->last;

    return c->last_row && e->comm == l->comm && e->pid == l->pid && e->dso == l->dso &&
           e->dso_module == l->dso_module && e->kernel == l->kernel && e->sym == l->sym &&
           e->addr == l->addr && e->demangled == l->demangled && e->bracket == l->bracket;
}

/* Adds e to the row with its key, or makes it a new row. */
static int aggregate(struct flat_ctx *c, const struct flat_ent *e)
{
    uint64_t h = key_hash(e);
    uintptr_t idx;

    for (; (idx = (uintptr_t)hashmap_get(&c->index, h)); h++) {
        struct flat_ent *r = &c->ents.v[idx - 1];
        if (same_key(r, e)) {
            r->samples += e->samples;
            r->period += e->period;
            c->last_row = idx;
            return 0;
        }
    }
    if (vec_push(&c->ents, *e) || hashmap_put(&c->index, h, (void *)(uintptr_t)c->ents.n))
        return -ENOMEM;
    c->last_row = c->ents.n;
    return 0;
}

int flat_parse_sort(const char *s, struct flat_opts *o, char *err, size_t errlen)
{
    bool seen[FLAT_NKEYS] = { false };

    o->nkeys = 0;
    while (*s) {
        const char *comma = strchr(s, ',');
        size_t len = comma ? (size_t)(comma - s) : strlen(s);
        enum flat_key k;

#define IS(word) (len == strlen(word) && !strncmp(s, word, len))
        if (IS("comm"))
            k = FLAT_COMM;
        else if (IS("pid"))
            k = FLAT_PID;
        else if (IS("dso") || IS("shared"))
            k = FLAT_DSO;
        else if (IS("sym") || IS("symbol"))
            k = FLAT_SYM;
        else if (IS("tid"))
            k = FLAT_TID;
        else {
            snprintf(err, errlen, "unknown --sort key '%.*s' (use comm, pid, tid, dso, sym)",
                     (int)len, s);
            return -EINVAL;
        }
#undef IS
        if (seen[k]) {
            snprintf(err, errlen, "--sort key '%.*s' given twice", (int)len, s);
            return -EINVAL;
        }
        seen[k] = true;
        o->keys[o->nkeys++] = k;
        s += len + (comma != NULL);
    }
    if (!o->nkeys) {
        snprintf(err, errlen, "empty --sort list");
        return -EINVAL;
    }
    if (seen[FLAT_TID] && o->nkeys > 1) {
        snprintf(err, errlen, "--sort tid stands alone (it shows tid:comm; symbol hits are kept "
                 "per process: use pid for those)");
        return -EINVAL;
    }
    return 0;
}

static int add_hit(void *arg, const struct sym_hit *h)
{
    struct flat_ctx *c = arg;
    struct flat_ent e = { .samples = h->samples, .period = h->period, .kernel = h->kernel };
    const char *path;
    int err = 0;

    if (c->want[FLAT_COMM])
        e.comm = h->proc->comm;
    if (c->want[FLAT_PID])
        e.pid = h->proc->pid;
    if (h->kernel) {
        e.dso = h->module ? h->module : "[kernel.kallsyms]";
        e.dso_module = h->module != NULL;
        path = e.dso;
    } else {
        e.dso = h->dso ? dso_short_name(h->dso) : "[unknown]";
        path = h->dso ? dso_path(h->dso) : e.dso;
    }
    if (c->o->dso && strcmp(c->o->dso, e.dso) && strcmp(c->o->dso, path))
        return 0;
    if (c->want[FLAT_SYM]) {
        if (h->sym && !(h->bracket && c->o->no_bracket)) {
            e.sym = h->sym;
            e.demangled = h->demangled;
            e.bracket = h->bracket;
        } else {
            e.addr = h->addr;
        }
    }
    if (!c->want[FLAT_DSO] && !(c->want[FLAT_SYM] && !e.sym)) {
        /* The DSO is not a key: unresolved addresses still need it to stay apart. */
        e.dso = NULL;
        e.dso_module = false;
    }
    if (!c->want[FLAT_SYM])
        e.kernel = c->want[FLAT_DSO] ? e.kernel : false;
    if (same_as_last(c, &e)) {
        c->ents.v[c->last_row - 1].samples += e.samples;
        c->ents.v[c->last_row - 1].period += e.period;
        return 0;
    }
    /* A map's hits share the previous hit's comm and DSO: their ids need no lookup. */
    e.comm_id = e.comm == c->last.comm ? c->last.comm_id : intern_id(&c->names, e.comm, &err);
    e.dso_id = e.dso == c->last.dso ? c->last.dso_id : intern_id(&c->names, e.dso, &err);
    e.sym_id = intern_id(&c->names, e.sym, &err);
    c->last = e;
    c->last_row = 0;
    return err ? err : aggregate(c, &e);
}

static int cmp_str(const char *a, const char *b)
{
    if (a == b)
        return 0;
    if (!a || !b)
        return a ? 1 : -1;
    return strcmp(a, b);
}

/* Orders by every field that can differ: fields not in the keys were left zero. */
static int cmp_key(const void *pa, const void *pb)
{
    const struct flat_ent *a = pa, *b = pb;
    int r;

    if ((r = cmp_str(a->comm, b->comm)))
        return r;
    if (a->pid != b->pid)
        return a->pid < b->pid ? -1 : 1;
    if (a->tid != b->tid)
        return a->tid < b->tid ? -1 : 1;
    if (a->dso_module != b->dso_module)
        return a->dso_module ? 1 : -1;
    if ((r = cmp_str(a->dso, b->dso)))
        return r;
    if (a->kernel != b->kernel)
        return a->kernel ? -1 : 1;
    if ((r = cmp_str(a->sym, b->sym)))
        return r;
    if (a->addr != b->addr)
        return a->addr < b->addr ? -1 : 1;
    return 0;
}

static int cmp_period(const void *pa, const void *pb)
{
    const struct flat_ent *a = pa, *b = pb;
    if (a->period != b->period)
        return a->period > b->period ? -1 : 1;
    if (a->samples != b->samples)
        return a->samples > b->samples ? -1 : 1;
    return cmp_key(pa, pb);
}

/* A growing buffer for one cell: names are never cut short in CSV and JSON. */
struct cellbuf {
    char *p;
    size_t cap;
};

static char *cellbuf_get(struct cellbuf *b, size_t need)
{
    if (need > b->cap) {
        char *p = realloc(b->p, need);
        if (!p)
            return NULL;
        b->p = p;
        b->cap = need;
    }
    return b->p;
}

/* One cell as text (no padding, not escaped). */
static const char *cell(const struct flat_ent *e, enum flat_key k, bool prefix,
                        struct cellbuf *cb)
{
    const char *mode = prefix ? (e->kernel ? "[k] " : "[.] ") : "";
    size_t len;
    char *buf;

    /* Names shown as they are need no buffer (nor their lengths). */
    if (k == FLAT_COMM)
        return e->comm ? e->comm : "";
    if (k == FLAT_DSO && !e->dso_module)
        return e->dso ? e->dso : "[unknown]";
    len = 64 + (k == FLAT_SYM && e->sym ? 2 * strlen(e->sym) : 0) +
          (k == FLAT_DSO ? strlen(e->dso) : 0);
    if (!(buf = cellbuf_get(cb, len)))
        return "?";
    switch (k) {
    case FLAT_PID: snprintf(buf, len, "%d", (int)e->pid); return buf;
    case FLAT_TID:
        snprintf(buf, len, "%d:%s", (int)e->tid, e->comm && *e->comm ? e->comm : "[unknown]");
        return buf;
    case FLAT_DSO:
        snprintf(buf, len, "[%s]", e->dso);
        return buf;
    case FLAT_SYM:
        if (e->sym) {
            size_t m = strlen(mode);
            memcpy(buf, mode, m);
            if (e->demangled)
                symbol_short_name(e->sym, e->bracket, buf + m);
            else
                snprintf(buf + m, len - m, "%s", e->sym);
        } else {
            snprintf(buf, len, "%s0x%016" PRIx64, mode, e->addr);
        }
        return buf;
    default: return "";
    }
}

static const char *const key_title[FLAT_NKEYS] = { "Command", "Pid", "Shared Object", "Symbol",
                                                   "Pid:Command" };
static const char *const key_column[FLAT_NKEYS] = { "comm", "pid", "dso", "symbol", "tid" };

#define FLAT_COLUMNS 100

/* The text of a cell as printed, whole: escaped (control characters, bad UTF-8). */
static const char *text_cell(const struct flat_ent *e, enum flat_key k, struct cellbuf cb[2])
{
    const char *raw = cell(e, k, true, &cb[0]);
    size_t len = 4 * strlen(raw) + 8;
    char *pbuf = cellbuf_get(&cb[1], len);

    return pbuf ? str_printable(raw, pbuf, len) : "?";
}

/* Every shown cell's text, escaped and whole, with its display width: the pass that sizes the
 * columns makes them once and the printing pass reuses them. */
struct cell_cache {
    char *text;               /* the cells' strings, each ended by a NUL */
    size_t len, cap;
    struct { size_t off, width; } *cells;     /* row * nkeys + key */
};

static int cache_cell(struct cell_cache *cc, size_t at, const char *t)
{
    size_t l = strlen(t) + 1;

    if (cc->len + l > cc->cap) {
        size_t ncap = (cc->len + l) * 2;
        char *nt = realloc(cc->text, ncap);
        if (!nt)
            return -ENOMEM;
        cc->text = nt;
        cc->cap = ncap;
    }
    memcpy(cc->text + cc->len, t, l);
    cc->cells[at].off = cc->len;
    cc->cells[at].width = str_width(t);
    cc->len += l;
    return 0;
}

static int cache_cells(struct cell_cache *cc, const struct flat_opts *o,
                       const struct flat_ent *rows, size_t shown, struct cellbuf cb[3])
{
    int err = 0;

    if (!(cc->cells = calloc(shown * o->nkeys + 1, sizeof(*cc->cells))))
        return -ENOMEM;
    for (size_t i = 0; i < shown && !err; i++)
        for (size_t k = 0; k < o->nkeys && !err; k++)
            err = cache_cell(cc, i * o->nkeys + k, text_cell(&rows[i], o->keys[k], cb));
    return err;
}

/* A cached cell as printed in a column of width columns (elided in the middle to it). */
static const char *fit_cell(const struct cell_cache *cc, size_t at, size_t width,
                            struct cellbuf *eb, size_t *shown_width)
{
    const char *t = cc->text + cc->cells[at].off;
    char *ebuf;

    *shown_width = cc->cells[at].width;
    if (*shown_width <= width || !(ebuf = cellbuf_get(eb, 4 * width + 8)))
        return t;
    t = str_elide(t, width, ebuf, 4 * width + 8);
    *shown_width = str_width(t);
    return t;
}

/* Column widths that fit FLAT_COLUMNS: symbols give up columns first (down to 40), then
 * shared objects (to 20), commands (to 16), and symbols again. 0 for the last column: it is
 * not padded. */
static void fit_widths(const struct flat_opts *o, size_t *width, size_t fixed)
{
    static const struct { enum flat_key k; size_t min; } order[] = {
        { FLAT_SYM, 40 }, { FLAT_DSO, 20 }, { FLAT_COMM, 16 }, { FLAT_SYM, 12 }, { FLAT_DSO, 12 },
    };
    size_t total = fixed;

    for (size_t k = 0; k < o->nkeys; k++)
        total += 2 + width[k];
    for (size_t i = 0; i < sizeof(order) / sizeof(*order) && total > FLAT_COLUMNS; i++)
        for (size_t k = 0; k < o->nkeys; k++) {
            size_t cut;
            if (o->keys[k] != order[i].k || width[k] <= order[i].min)
                continue;
            cut = width[k] - order[i].min;
            if (cut > total - FLAT_COLUMNS)
                cut = total - FLAT_COLUMNS;
            width[k] -= cut;
            total -= cut;
        }
}

struct flat_totals {
    uint64_t samples, period;     /* the 100% */
};

static double share(const struct flat_ent *e, const struct flat_totals *t)
{
    return t->period ? 100.0 * (double)e->period / (double)t->period : 0;
}

static int print_text(FILE *f, const struct flat_opts *o, const struct flat_ent *rows,
                      size_t n, size_t shown, const struct flat_totals *t)
{
    size_t width[FLAT_NKEYS], nw = 7, fixed = 10;
    struct cellbuf cb[3] = { { 0 } };
    struct cell_cache cc = { 0 };
    const char *sep = o->separator;
    char ev[128], nbuf[32];
    int err = cache_cells(&cc, o, rows, shown, cb);

    for (size_t k = 0; k < o->nkeys; k++)
        width[k] = strlen(key_title[o->keys[k]]);
    for (size_t i = 0; i < shown && !err; i++) {
        for (size_t k = 0; k < o->nkeys; k++) {
            size_t l = cc.cells[i * o->nkeys + k].width;
            if (l > width[k])
                width[k] = l;
        }
        size_t l = (size_t)snprintf(nbuf, sizeof(nbuf), "%" PRIu64, rows[i].samples);
        if (l > nw)
            nw = l;
    }
    if (err)
        goto out;
    if (o->show_nr_samples)
        fixed += 2 + nw;
    if (!o->wide)
        fit_widths(o, width, fixed);
    fprintf(f, "# Samples: %" PRIu64 "  of event '%s'\n", t->samples,
            str_printable(o->event ? o->event : "?", ev, sizeof(ev)));
    fprintf(f, "# Event count (approx.): %" PRIu64 "\n#\n# Overhead", t->period);
    if (o->show_nr_samples)
        fprintf(f, "  %*s", (int)nw, "Samples");
    for (size_t k = 0; k < o->nkeys; k++)
        fprintf(f, "  %-*s", k + 1 < o->nkeys ? (int)width[k] : 0, key_title[o->keys[k]]);
    fprintf(f, "\n# ........");
    for (size_t k = 0; k < o->nkeys + o->show_nr_samples; k++) {
        size_t w = k < o->show_nr_samples ? nw : width[k - o->show_nr_samples];
        fputs("  ", f);
        for (size_t j = 0; j < w; j++)
            fputc('.', f);
    }
    fprintf(f, "\n#\n");
    for (size_t i = 0; i < shown; i++) {
        if (sep) {
            fprintf(f, "%.2f%%", share(&rows[i], t));
            if (o->show_nr_samples)
                fprintf(f, "%s%" PRIu64, sep, rows[i].samples);
        } else {
            fprintf(f, "%9.2f%%", share(&rows[i], t));
            if (o->show_nr_samples)
                fprintf(f, "  %*" PRIu64, (int)nw, rows[i].samples);
        }
        for (size_t k = 0; k < o->nkeys; k++) {
            size_t at = i * o->nkeys + k, w;
            if (sep) {
                fprintf(f, "%s%s", sep, cc.text + cc.cells[at].off);
                continue;
            }
            /* Pad by display width: printf counts bytes, UTF-8 names have more. */
            const char *txt = fit_cell(&cc, at, width[k], &cb[2], &w);
            if (k + 1 == o->nkeys)
                w = width[k];
            fprintf(f, "  %s%*s", txt, w < width[k] ? (int)(width[k] - w) : 0, "");
        }
        fputc('\n', f);
    }
    if (shown < n)
        fprintf(f, "#\n# %zu rows below %.2f%% not shown\n", n - shown, o->percent_limit);
out:
    for (size_t i = 0; i < 3; i++)
        free(cb[i].p);
    free(cc.text);
    free(cc.cells);
    return err;
}

static void print_csv(FILE *f, const struct flat_opts *o, const struct flat_ent *rows,
                      size_t shown, const struct flat_totals *t)
{
    struct cellbuf cb = { 0 };
    bool sym = false;

    fputs("overhead,samples,period", f);
    for (size_t k = 0; k < o->nkeys; k++) {
        fprintf(f, ",%s", key_column[o->keys[k]]);
        sym |= o->keys[k] == FLAT_SYM;
    }
    fputs(sym ? ",mode\n" : "\n", f);
    for (size_t i = 0; i < shown; i++) {
        csv_double(f, share(&rows[i], t), 4, false);
        csv_u64(f, rows[i].samples, false);
        csv_u64(f, rows[i].period, false);
        for (size_t k = 0; k < o->nkeys; k++)
            csv_field(f, cell(&rows[i], o->keys[k], false, &cb), k + 1 == o->nkeys && !sym);
        if (sym)
            csv_field(f, rows[i].kernel ? "kernel" : "user", true);
    }
    free(cb.p);
}

static void print_json(FILE *f, const struct flat_opts *o, const struct flat_ent *rows,
                       size_t n, size_t shown, const struct flat_totals *t)
{
    struct cellbuf cb = { 0 };
    struct json j;
    bool sym = false;

    json_init(&j, f);
    json_begin_object(&j, NULL);
    json_str(&j, "event", o->event);
    json_u64(&j, "samples", t->samples);
    json_u64(&j, "period", t->period);
    json_str(&j, "percentage", o->relative ? "relative" : "absolute");
    json_begin_array(&j, "sort");
    for (size_t k = 0; k < o->nkeys; k++) {
        json_str(&j, NULL, key_column[o->keys[k]]);
        sym |= o->keys[k] == FLAT_SYM;
    }
    json_end_array(&j);
    json_begin_array(&j, "rows");
    for (size_t i = 0; i < shown; i++) {
        json_begin_object(&j, NULL);
        json_double(&j, "overhead", share(&rows[i], t), 4);
        json_u64(&j, "samples", rows[i].samples);
        json_u64(&j, "period", rows[i].period);
        for (size_t k = 0; k < o->nkeys; k++) {
            if (o->keys[k] == FLAT_PID)
                json_i64(&j, "pid", rows[i].pid);
            else if (o->keys[k] == FLAT_TID) {
                json_i64(&j, "tid", rows[i].tid);
                json_i64(&j, "pid", rows[i].pid);
                json_str(&j, "comm", rows[i].comm);
            }
            else
                json_str(&j, key_column[o->keys[k]], cell(&rows[i], o->keys[k], false, &cb));
        }
        if (sym)
            json_str(&j, "mode", rows[i].kernel ? "kernel" : "user");
        json_end_object(&j);
    }
    json_end_array(&j);
    json_u64(&j, "hidden_rows", n - shown);
    json_end_object(&j);
    json_finish(&j);
    free(cb.p);
}

int report_flat(FILE *f, struct session *s, const struct ksyms *ks, const struct flat_opts *o)
{
    struct flat_ctx c = { .o = o };
    struct flat_totals t = { 0 };
    size_t n, shown;
    int err = 0;

    hashmap_init(&c.index);
    hashmap_init(&c.names.by_ptr);
    hashmap_init(&c.names.by_hash);
    for (size_t k = 0; k < o->nkeys; k++)
        c.want[o->keys[k]] = true;
    /* Rows aggregate as hits come (integer keys); only the rows are sorted, by period. */
    if (c.want[FLAT_TID] && !o->threads)
        err = -EINVAL;
    for (size_t i = 0; c.want[FLAT_TID] && !err && i < o->threads->rows.n; i++) {
        const struct thread_row *r = &o->threads->rows.v[i];
        struct flat_ent e = { .comm = r->comm, .pid = r->pid, .tid = r->tid,
                              .samples = r->samples, .period = r->period };
        err = vec_push(&c.ents, e);
    }
    if (!err && !c.want[FLAT_TID])
        err = symbolize_load(s->procs.v, s->procs.n);
    for (size_t i = 0; i < s->procs.n && !err && !c.want[FLAT_TID]; i++) {
        struct process *p = s->procs.v[i];
        err = symbolize_user(p, add_hit, &c);
        if (!err)
            err = symbolize_kernel(&p->khits, p, ks, add_hit, &c);
    }
    hashmap_release(&c.index);
    intern_release(&c.names);
    if (err) {
        vec_free(&c.ents);
        return err;
    }
    n = c.ents.n;
    for (size_t i = 0; i < n; i++) {
        t.period += c.ents.v[i].period;
        t.samples += c.ents.v[i].samples;
    }
    /* perf's --percentage absolute (the default): shares of every sample, filters hide rows
     * without rescaling them; relative: shares of what the filters left. */
    if (o->relative)
        ;
    else if (o->total_period) {
        t.period = o->total_period;
        t.samples = o->total_samples;
    } else if (o->dso || s->stats.period_total > t.period) {
        t.period = s->stats.period_total;
        t.samples = s->stats.samples;
    }
    if (n > 1)
        qsort(c.ents.v, n, sizeof(*c.ents.v), cmp_period);
    for (shown = 0; shown < n; shown++)
        if (share(&c.ents.v[shown], &t) < o->percent_limit)
            break;
    if (o->fmt == REPORT_CSV)
        print_csv(f, o, c.ents.v, shown, &t);
    else if (o->fmt == REPORT_JSON)
        print_json(f, o, c.ents.v, n, shown, &t);
    else
        err = print_text(f, o, c.ents.v, n, shown, &t);
    vec_free(&c.ents);
    return err ? err : ferror(f) ? -EIO : 0;
}
