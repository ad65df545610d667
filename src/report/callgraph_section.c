/* SPDX-License-Identifier: MIT */
/* The call-graph parts of the Prospect report: per process, its Children/Self rows and its
 * hottest call paths (run -g), or its off-CPU waits by stack (--off-cpu). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "model/process.h"
#include "report/callgraph_out.h"
#include "util/strutil.h"

enum { COLS = 100 };

struct path {
    size_t stack;             /* a stack with these symbols */
    uint64_t samples, period;
};

struct walk {
    const struct cg_store *cs;
    const struct cg_syms *cy;
};

static double share(uint64_t v, uint64_t total)
{
    return total ? 100.0 * (double)v / (double)total : 0;
}

/* Stacks of one process in the same symbols (different addresses in the same functions) are
 * one path: order stack indices by their symbol sequences. */
static int cmp_syms(const void *a, const void *b, void *arg)
{
    const struct walk *w = arg;
    const struct cg_stack *x = &w->cs->stacks[*(const size_t *)a];
    const struct cg_stack *y = &w->cs->stacks[*(const size_t *)b];
    if (x->n != y->n)
        return x->n < y->n ? -1 : 1;
    return memcmp(w->cy->frame_sym + x->off, w->cy->frame_sym + y->off,
                  x->n * sizeof(*w->cy->frame_sym));
}

static int cmp_path(const void *a, const void *b)
{
    const struct path *x = a, *y = b;
    if (x->period != y->period)
        return x->period > y->period ? -1 : 1;
    return x->stack < y->stack ? -1 : x->stack > y->stack;
}

static bool same_syms(const struct walk *w, size_t a, size_t b)
{
    return !cmp_syms(&a, &b, (void *)w);
}

/* The paths of process p, heaviest first; *total the period of its stacks. -ENOMEM or count. */
static long process_paths(const struct walk *w, const struct process *p, struct path **out,
                          uint64_t *total)
{
    size_t n = 0, np = 0, *idx = NULL;
    struct path *paths;

    *out = NULL;
    *total = 0;
    for (size_t i = 0; i < w->cs->nstacks; i++)
        n += w->cs->stacks[i].proc == p;
    if (!(idx = malloc((n ? n : 1) * sizeof(*idx))) ||
        !(paths = malloc((n ? n : 1) * sizeof(*paths)))) {
        free(idx);
        return -ENOMEM;
    }
    n = 0;
    for (size_t i = 0; i < w->cs->nstacks; i++)
        if (w->cs->stacks[i].proc == p)
            idx[n++] = i;
    qsort_r(idx, n, sizeof(*idx), cmp_syms, (void *)w);
    for (size_t i = 0; i < n; i++) {
        const struct cg_stack *st = &w->cs->stacks[idx[i]];
        *total += st->period;
        if (np && same_syms(w, paths[np - 1].stack, idx[i])) {
            paths[np - 1].samples += st->samples;
            paths[np - 1].period += st->period;
            continue;
        }
        paths[np++] = (struct path){ idx[i], st->samples, st->period };
    }
    free(idx);
    qsort(paths, np, sizeof(*paths), cmp_path);
    *out = paths;
    return (long)np;
}

/* A frame's name as tables show it: "[k]" after kernel functions. */
static const char *frame_name(const struct cg_sym *s, char *buf, size_t len)
{
    char nb[256], pb[512];
    const char *name = str_printable(cg_sym_name(s, nb, sizeof(nb)), pb, sizeof(pb));
    snprintf(buf, len, "%s%s", name, s->kernel ? " [k]" : s->inlined ? " (inlined)" : "");
    return buf;
}

/* Frames fs[n-1] .. fs[0] (outermost first), joined by " > ", into `width` columns: when too
 * long, whole frames go from the middle (the outer and the innermost frames say the most),
 * replaced by "... N ...". */
static void put_frames(FILE *f, const struct walk *w, const uint32_t *fs, uint32_t n,
                       size_t width)
{
    char buf[600];
    size_t total = 0, head = 0, tail = 0, wh = 0, wt = 0, mark = 16;

    for (uint32_t k = 0; k < n; k++)
        total += str_width(frame_name(&w->cy->syms[fs[k]], buf, sizeof(buf))) + (k ? 3 : 0);
    if (total <= width) {
        head = n;
    } else {
        /* Outermost frames (where the program is: user code) up to 3/5 of the room, the
         * innermost ones in the rest. */
        while (head < n) {
            size_t fw = str_width(frame_name(&w->cy->syms[fs[n - 1 - head]], buf, sizeof(buf)));
            if (wh + fw + 3 > (width - mark) * 3 / 5)
                break;
            wh += fw + 3;
            head++;
        }
        while (tail + head < n) {
            size_t fw = str_width(frame_name(&w->cy->syms[fs[tail]], buf, sizeof(buf)));
            if (wh + wt + fw + 3 > width - mark)
                break;
            wt += fw + 3;
            tail++;
        }
    }
    for (uint32_t k = 0; k < head; k++)
        fprintf(f, "%s%s", k ? " > " : "", frame_name(&w->cy->syms[fs[n - 1 - k]], buf,
                                                      sizeof(buf)));
    if (head < n) {
        char eb[600];
        fprintf(f, "%s... %zu ...", head ? " > " : "", (size_t)n - head - tail);
        if (!tail && n) {      /* not even one frame fits after the mark: its tail elided */
            const char *leaf = frame_name(&w->cy->syms[fs[0]], buf, sizeof(buf));
            size_t room = width > wh + mark ? width - wh - mark : 8;
            fprintf(f, " > %s", str_elide(leaf, room < 8 ? 8 : room, eb, sizeof(eb)));
        }
        for (uint32_t k = tail; k-- > 0;)
            fprintf(f, " > %s", frame_name(&w->cy->syms[fs[k]], buf, sizeof(buf)));
    }
}

/* A call path, outermost frame first, within `width` columns. user_first (off-CPU waits, whose
 * innermost frames are always the scheduler's): when too long, the kernel frames at the leaf
 * end go first, as "... N [k]", so the user frames that blocked stay in view. */
static void put_path(FILE *f, const struct walk *w, const struct cg_stack *st, size_t width,
                     bool user_first)
{
    const uint32_t *fs = w->cy->frame_sym + st->off;
    uint32_t n = st->n, nk = 0;
    size_t total = 0;
    char buf[600];

    for (uint32_t k = 0; k < n; k++)
        total += str_width(frame_name(&w->cy->syms[fs[k]], buf, sizeof(buf))) + (k ? 3 : 0);
    while (user_first && nk < n && w->cy->syms[fs[nk]].kernel)
        nk++;
    if (total > width && nk && nk < n && width > 24) {
        put_frames(f, w, fs + nk, n - nk, width - 16);
        fprintf(f, " > ... %u [k]", nk);
    } else {
        put_frames(f, w, fs, n, width);
    }
    fputc('\n', f);
}

struct row {
    uint32_t sym;
    uint64_t children, self;
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

/* Children/Self rows of the paths (each path once per sample, a recursive symbol once). */
static int children_rows(const struct walk *w, const struct path *paths, size_t np,
                         struct row **out, size_t *nrows)
{
    size_t nsyms = w->cy->nsyms ? w->cy->nsyms : 1, n = 0;
    uint32_t *slot = calloc(nsyms, sizeof(*slot));       /* sym -> row + 1 */
    size_t *seen = calloc(nsyms, sizeof(*seen));         /* sym -> path + 1 */
    struct row *rows = NULL;
    size_t cap = 0;
    int err = 0;

    if (!slot || !seen)
        err = -ENOMEM;
    for (size_t i = 0; i < np && !err; i++) {
        const struct cg_stack *st = &w->cs->stacks[paths[i].stack];
        const uint32_t *fs = w->cy->frame_sym + st->off;
        for (uint32_t k = 0; k < st->n; k++) {
            uint32_t s = fs[k];
            if (!slot[s]) {
                if (n == cap) {
                    struct row *v = realloc(rows, (cap = cap ? cap * 2 : 64) * sizeof(*v));
                    if (!v) {
                        err = -ENOMEM;
                        break;
                    }
                    rows = v;
                }
                rows[n] = (struct row){ .sym = s };
                slot[s] = (uint32_t)++n;
            }
            if (!k)
                rows[slot[s] - 1].self += paths[i].period;
            if (seen[s] != i + 1) {
                seen[s] = i + 1;
                rows[slot[s] - 1].children += paths[i].period;
            }
        }
    }
    free(slot);
    free(seen);
    if (err) {
        free(rows);
        return err;
    }
    qsort(rows, n, sizeof(*rows), cmp_row);
    *out = rows;
    *nrows = n;
    return 0;
}

int report_cg_process(FILE *f, const struct cg_store *cs, const struct cg_syms *cy,
                      const struct process *p, const struct cg_section_opts *o)
{
    struct walk w = { cs, cy };
    struct path *paths;
    struct row *rows = NULL;
    size_t nrows = 0, top;
    uint64_t total;
    long np = process_paths(&w, p, &paths, &total);
    char nb[256], pb[512], eb[512], db[256];
    int err;

    if (np < 0)
        return (int)np;
    if (!np || !total) {
        free(paths);
        return 0;
    }
    if ((err = children_rows(&w, paths, (size_t)np, &rows, &nrows))) {
        free(paths);
        return err;
    }
    top = o->top && o->top < nrows ? o->top : nrows;
    fprintf(f, "\n  Call graph: Children = share of the samples whose stack holds the function "
            "(once per\n  sample), Self = where it is the leaf\n");
    fprintf(f, "    Children      Self  %-24s  Symbol\n", "Shared Object");
    for (size_t i = 0; i < top; i++) {
        const struct cg_sym *s = &cy->syms[rows[i].sym];
        const char *d = str_printable(cg_sym_dso(s, db, sizeof(db)), pb, sizeof(pb));
        char d2[256], e2[512];
        fprintf(f, "    %7.2f%%  %7.2f%%  ", share(rows[i].children, total),
                share(rows[i].self, total));
        snprintf(d2, sizeof(d2), "%s", o->wide ? d : str_elide(d, 24, e2, sizeof(e2)));
        fprintf(f, "%-24s  ", d2);
        d = frame_name(s, nb, sizeof(nb));      /* after the 50 columns of the line's start */
        fprintf(f, "%s\n", o->wide ? d : str_elide(d, COLS - 50, eb, sizeof(eb)));
    }
    if (top < nrows)
        fprintf(f, "    ... %zu more functions\n", nrows - top);
    top = o->paths && o->paths < (size_t)np ? o->paths : (size_t)np;
    fprintf(f, "\n  Hottest call paths, outermost frame first:\n");
    for (size_t i = 0; i < top; i++) {
        fprintf(f, "    %7.2f%%  ", share(paths[i].period, total));
        put_path(f, &w, &cs->stacks[paths[i].stack], o->wide ? SIZE_MAX / 2 : COLS - 14, false);
    }
    if (top < (size_t)np)
        fprintf(f, "    ... %zu more paths\n", (size_t)np - top);
    free(rows);
    free(paths);
    return ferror(f) ? -EIO : 0;
}

static int cmp_proc(const void *a, const void *b)
{
    const struct path *x = a, *y = b;       /* .stack: process index, .period: ns */
    if (x->period != y->period)
        return x->period > y->period ? -1 : 1;
    return x->stack < y->stack ? -1 : x->stack > y->stack;
}

int report_offcpu_section(FILE *f, const struct cg_store *cs, const struct cg_syms *cy,
                          const struct offcpu_totals *t, const struct cg_section_opts *o)
{
    struct walk w = { cs, cy };
    struct path *procs = calloc(cs->nstacks ? cs->nstacks : 1, sizeof(*procs));
    const struct process **pv = calloc(cs->nstacks ? cs->nstacks : 1, sizeof(*pv));
    size_t nprocs = 0;
    int err = 0;

    if (!procs || !pv) {
        free(procs);
        free(pv);
        return -ENOMEM;
    }
    /* Processes by their time off CPU. */
    for (size_t i = 0; i < cs->nstacks; i++) {
        const struct cg_stack *st = &cs->stacks[i];
        size_t j;
        for (j = 0; j < nprocs && pv[j] != st->proc; j++)
            ;
        if (j == nprocs) {
            pv[j] = st->proc;
            procs[nprocs++] = (struct path){ .stack = j };
        }
        procs[j].samples += st->samples;
        procs[j].period += st->period;
    }
    qsort(procs, nprocs, sizeof(*procs), cmp_proc);
    fprintf(f, "\nOff-CPU Time\n------------\n");
    fprintf(f, "  Time threads waited (switched out, not runnable, until they ran again), by the "
            "stack they\n  blocked in: %.4f s in %" PRIu64 " waits", (double)t->ns / 1e9,
            t->waits);
    fprintf(f, "\n");
    if (t->preempted)
        fprintf(f, "  %" PRIu64 " preemptions are not waits (the thread was still runnable); "
                "runnable, not running: %.4f s\n", t->preempted, (double)t->preempted_ns / 1e9);
    if (t->unended)
        fprintf(f, "  %" PRIu64 " waits had not ended when recording stopped (not counted)\n",
                t->unended);
    for (size_t i = 0; i < nprocs && !err; i++) {
        const struct process *p = pv[procs[i].stack];
        struct path *paths;
        uint64_t total;
        long np;
        size_t top;
        char cb[64];

        if (o->top && i >= o->top) {
            fprintf(f, "\n  ... %zu more processes\n", nprocs - i);
            break;
        }
        if ((np = process_paths(&w, p, &paths, &total)) < 0) {
            err = (int)np;
            break;
        }
        fprintf(f, "\n  Process %d %s: %.4f s off CPU in %" PRIu64 " waits\n", (int)p->pid,
                str_printable(p->comm, cb, sizeof(cb)), (double)total / 1e9,
                procs[i].samples);
        fprintf(f, "          ms    share  waits  call path, outermost frame first\n");
        top = o->paths && o->paths < (size_t)np ? o->paths : (size_t)np;
        for (size_t k = 0; k < top; k++) {
            fprintf(f, "    %8.1f  %6.2f%%  %5" PRIu64 "  ", (double)paths[k].period / 1e6,
                    share(paths[k].period, total), paths[k].samples);
            put_path(f, &w, &cs->stacks[paths[k].stack], o->wide ? SIZE_MAX / 2 : COLS - 30,
                     true);
        }
        if (top < (size_t)np)
            fprintf(f, "    ... %zu more paths\n", (size_t)np - top);
        free(paths);
    }
    free(procs);
    free(pv);
    return err ? err : ferror(f) ? -EIO : 0;
}
