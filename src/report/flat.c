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
#include "session/symbolize.h"
#include "symbol/dso.h"
#include "util/vec.h"

struct flat_ent {
    const char *comm;
    pid_t pid;
    const char *dso;          /* display name (module name when dso_module) */
    const char *dso_path;     /* for --dso matching on the full path */
    bool dso_module;
    bool kernel;
    const char *sym;          /* NULL: unresolved, see addr */
    uint64_t addr;
    uint64_t samples, period;
};

struct flat_ctx {
    const struct flat_opts *o;
    VEC(struct flat_ent) ents;
    bool want[FLAT_NKEYS];
};

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
        else {
            snprintf(err, errlen, "unknown --sort key '%.*s' (use comm, pid, dso, sym)",
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
    return 0;
}

static int add_hit(void *arg, const struct sym_hit *h)
{
    struct flat_ctx *c = arg;
    struct flat_ent e = { .samples = h->samples, .period = h->period, .kernel = h->kernel };

    if (c->want[FLAT_COMM])
        e.comm = h->proc->comm;
    if (c->want[FLAT_PID])
        e.pid = h->proc->pid;
    if (h->kernel) {
        e.dso = h->module ? h->module : "[kernel.kallsyms]";
        e.dso_module = h->module != NULL;
        e.dso_path = e.dso;
    } else {
        e.dso = h->dso ? dso_short_name(h->dso) : "[unknown]";
        e.dso_path = h->dso ? dso_path(h->dso) : e.dso;
    }
    if (c->o->dso && strcmp(c->o->dso, e.dso) && strcmp(c->o->dso, e.dso_path))
        return 0;
    if (c->want[FLAT_SYM]) {
        if (h->sym && !(h->bracket && c->o->no_bracket))
            e.sym = h->sym;
        else
            e.addr = h->addr;
    }
    if (!c->want[FLAT_DSO] && !(c->want[FLAT_SYM] && !e.sym)) {
        /* The DSO is not a key: unresolved addresses still need it to stay apart. */
        e.dso = NULL;
        e.dso_path = NULL;
        e.dso_module = false;
    }
    if (!c->want[FLAT_SYM])
        e.kernel = c->want[FLAT_DSO] ? e.kernel : false;
    return vec_push(&c->ents, e);
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

/* perf shows demangled C++ names without the parameter list: "ns::f(int) const" -> "ns::f".
 * The trailing balanced (...) group and qualifiers after it are cut. */
static void strip_params(const char *name, char *buf, size_t len)
{
    size_t n = strlen(name), end = n;
    int depth = 0;

    snprintf(buf, len, "%s", name);
    /* A bracket after the last symbol ends in "(end)": that is not a parameter list. */
    if (n >= len || str_ends(name, "->(end)"))
        return;
    while (end > 0 && name[end - 1] != ')') {
        /* qualifiers: " const", " volatile", " &", " &&" */
        if (end >= 6 && !strncmp(name + end - 6, " const", 6))
            end -= 6;
        else if (end >= 9 && !strncmp(name + end - 9, " volatile", 9))
            end -= 9;
        else if (end >= 2 && name[end - 1] == '&' && name[end - 2] == ' ')
            end -= 2;
        else if (end >= 3 && !strncmp(name + end - 3, " &&", 3))
            end -= 3;
        else
            return;
    }
    for (size_t i = end; i-- > 0;) {
        if (name[i] == ')')
            depth++;
        else if (name[i] == '(' && --depth == 0) {
            if (i > 0)
                buf[i] = '\0';
            return;
        }
    }
}

/* One cell as text (no padding). */
static const char *cell(const struct flat_ent *e, enum flat_key k, bool prefix, char *buf,
                        size_t len)
{
    switch (k) {
    case FLAT_COMM: return e->comm ? e->comm : "";
    case FLAT_PID: snprintf(buf, len, "%d", (int)e->pid); return buf;
    case FLAT_DSO:
        if (e->dso_module) {
            snprintf(buf, len, "[%s]", e->dso);
            return buf;
        }
        return e->dso ? e->dso : "[unknown]";
    case FLAT_SYM:
        if (e->sym) {
            char name[512];
            strip_params(e->sym, name, sizeof(name));
            snprintf(buf, len, "%s%s", prefix ? (e->kernel ? "[k] " : "[.] ") : "", name);
        }
        else
            snprintf(buf, len, "%s0x%016" PRIx64, prefix ? (e->kernel ? "[k] " : "[.] ") : "",
                     e->addr);
        return buf;
    default: return "";
    }
}

static const char *const key_title[FLAT_NKEYS] = { "Command", "Pid", "Shared Object", "Symbol" };
static const char *const key_column[FLAT_NKEYS] = { "comm", "pid", "dso", "symbol" };

static void print_text(FILE *f, const struct flat_opts *o, const struct flat_ent *rows,
                       size_t n, size_t shown, uint64_t samples, uint64_t total)
{
    size_t width[FLAT_NKEYS];
    char buf[1024];
    const char *sep = o->separator;

    for (size_t k = 0; k < o->nkeys; k++)
        width[k] = strlen(key_title[o->keys[k]]);
    for (size_t i = 0; i < shown; i++)
        for (size_t k = 0; k < o->nkeys; k++) {
            size_t l = strlen(cell(&rows[i], o->keys[k], true, buf, sizeof(buf)));
            if (l > width[k])
                width[k] = l;
        }
    fprintf(f, "# Samples: %" PRIu64 "  of event '%s'\n", samples, o->event ? o->event : "?");
    fprintf(f, "# Event count (approx.): %" PRIu64 "\n#\n# Overhead", total);
    for (size_t k = 0; k < o->nkeys; k++)
        fprintf(f, "  %-*s", k + 1 < o->nkeys ? (int)width[k] : 0, key_title[o->keys[k]]);
    fprintf(f, "\n# ........");
    for (size_t k = 0; k < o->nkeys; k++) {
        fputs("  ", f);
        for (size_t j = 0; j < width[k]; j++)
            fputc('.', f);
    }
    fprintf(f, "\n#\n");
    for (size_t i = 0; i < shown && sep; i++) {
        fprintf(f, "%.2f%%", total ? 100.0 * (double)rows[i].period / (double)total : 0);
        for (size_t k = 0; k < o->nkeys; k++)
            fprintf(f, "%s%s", sep, cell(&rows[i], o->keys[k], true, buf, sizeof(buf)));
        fputc('\n', f);
    }
    for (size_t i = 0; i < shown && !sep; i++) {
        double pct = total ? 100.0 * (double)rows[i].period / (double)total : 0;
        fprintf(f, "%9.2f%%", pct);
        for (size_t k = 0; k < o->nkeys; k++)
            fprintf(f, "  %-*s", k + 1 < o->nkeys ? (int)width[k] : 0,
                    cell(&rows[i], o->keys[k], true, buf, sizeof(buf)));
        fputc('\n', f);
    }
    if (shown < n)
        fprintf(f, "#\n# %zu rows below %.2f%% not shown\n", n - shown, o->percent_limit);
}

static void print_csv(FILE *f, const struct flat_opts *o, const struct flat_ent *rows,
                      size_t shown, uint64_t total)
{
    char buf[1024];
    bool sym = false;

    fputs("overhead,samples,period", f);
    for (size_t k = 0; k < o->nkeys; k++) {
        fprintf(f, ",%s", key_column[o->keys[k]]);
        sym |= o->keys[k] == FLAT_SYM;
    }
    fputs(sym ? ",mode\n" : "\n", f);
    for (size_t i = 0; i < shown; i++) {
        csv_double(f, total ? 100.0 * (double)rows[i].period / (double)total : 0, 4, false);
        csv_u64(f, rows[i].samples, false);
        csv_u64(f, rows[i].period, false);
        for (size_t k = 0; k < o->nkeys; k++)
            csv_field(f, cell(&rows[i], o->keys[k], false, buf, sizeof(buf)),
                      k + 1 == o->nkeys && !sym);
        if (sym)
            csv_field(f, rows[i].kernel ? "kernel" : "user", true);
    }
}

static void print_json(FILE *f, const struct flat_opts *o, const struct flat_ent *rows,
                       size_t n, size_t shown, uint64_t samples, uint64_t total)
{
    struct json j;
    char buf[1024];
    bool sym = false;

    json_init(&j, f);
    json_begin_object(&j, NULL);
    json_str(&j, "event", o->event);
    json_u64(&j, "samples", samples);
    json_u64(&j, "period", total);
    json_begin_array(&j, "sort");
    for (size_t k = 0; k < o->nkeys; k++) {
        json_str(&j, NULL, key_column[o->keys[k]]);
        sym |= o->keys[k] == FLAT_SYM;
    }
    json_end_array(&j);
    json_begin_array(&j, "rows");
    for (size_t i = 0; i < shown; i++) {
        json_begin_object(&j, NULL);
        json_double(&j, "overhead", total ? 100.0 * (double)rows[i].period / (double)total : 0,
                    4);
        json_u64(&j, "samples", rows[i].samples);
        json_u64(&j, "period", rows[i].period);
        for (size_t k = 0; k < o->nkeys; k++) {
            if (o->keys[k] == FLAT_PID)
                json_i64(&j, "pid", rows[i].pid);
            else
                json_str(&j, key_column[o->keys[k]],
                         cell(&rows[i], o->keys[k], false, buf, sizeof(buf)));
        }
        if (sym)
            json_str(&j, "mode", rows[i].kernel ? "kernel" : "user");
        json_end_object(&j);
    }
    json_end_array(&j);
    json_u64(&j, "hidden_rows", n - shown);
    json_end_object(&j);
    json_finish(&j);
}

int report_flat(FILE *f, struct session *s, const struct ksyms *ks, const struct flat_opts *o)
{
    struct flat_ctx c = { .o = o };
    uint64_t total = 0, samples = 0;
    size_t n = 0, shown;
    int err = 0;

    for (size_t k = 0; k < o->nkeys; k++)
        c.want[o->keys[k]] = true;
    for (size_t i = 0; i < s->procs.n && !err; i++) {
        struct process *p = s->procs.v[i];
        err = symbolize_user(p, add_hit, &c);
        if (!err)
            err = symbolize_kernel(&p->khits, p, ks, add_hit, &c);
    }
    if (err) {
        vec_free(&c.ents);
        return err;
    }
    /* Reduce: one sort by key, adjacent equal keys merge. */
    if (c.ents.n > 1)
        qsort(c.ents.v, c.ents.n, sizeof(*c.ents.v), cmp_key);
    for (size_t i = 0; i < c.ents.n; i++) {
        total += c.ents.v[i].period;
        samples += c.ents.v[i].samples;
        if (n && cmp_key(&c.ents.v[n - 1], &c.ents.v[i]) == 0) {
            c.ents.v[n - 1].samples += c.ents.v[i].samples;
            c.ents.v[n - 1].period += c.ents.v[i].period;
        } else {
            c.ents.v[n++] = c.ents.v[i];
        }
    }
    /* Shares of every sample, not of the rows left after a filter (perf's absolute). */
    if (o->total_period) {
        total = o->total_period;
        samples = o->total_samples;
    } else if (o->dso || s->stats.period_total > total) {
        total = s->stats.period_total;
        samples = s->stats.samples;
    }
    if (n > 1)
        qsort(c.ents.v, n, sizeof(*c.ents.v), cmp_period);
    for (shown = 0; shown < n; shown++) {
        double pct = total ? 100.0 * (double)c.ents.v[shown].period / (double)total : 0;
        if (pct < o->percent_limit)
            break;
    }
    if (o->fmt == REPORT_CSV)
        print_csv(f, o, c.ents.v, shown, total);
    else if (o->fmt == REPORT_JSON)
        print_json(f, o, c.ents.v, n, shown, samples, total);
    else
        print_text(f, o, c.ents.v, n, shown, samples, total);
    vec_free(&c.ents);
    return ferror(f) ? -EIO : 0;
}
