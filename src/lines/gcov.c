/* SPDX-License-Identifier: MIT */
/* gcov's text format (gcc 12's gcov.cc, output_lines): a `-:0:Source:` header, then every
 * source line as "%9s:%5u:text", the count column being the line's count, `#####` for a
 * line with code that never ran, `-` for a line without code; a count with a `*` has a
 * block that never ran. With -b, a function's `function NAME called...` line comes before
 * its first line, and the line's calls and conditional branches follow it (gcov_arcs.c):
 * "call %2d returned P%", "branch %2d taken P%" (" (fallthrough)" for the way that falls
 * through), or "never executed" when its block never ran; with -c, counts for P%. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lines/gcov.h"
#include "util/outfile.h"
#include "util/strutil.h"

struct gcov_file {
    FILE *f;
    const struct lines_report *r;
    const struct lines_arcs *arcs;
    const struct lines_count *c;    /* this file's lines, sorted */
    size_t n;
    bool branches, counts;
};

/* gcov's figure (gcc 12's format_gcov): a count with -c, else a percentage computed in
 * float, rounded, a small non-zero share shown as 1%. */
static const char *gcov_figure(char *buf, size_t len, uint64_t top, uint64_t bottom,
                               bool counts)
{
    float ratio = bottom ? 100.0f * (float)top / (float)bottom : 0.0f;

    if (counts) {
        snprintf(buf, len, "%llu", (unsigned long long)top);
        return buf;
    }
    if (ratio > 0.0f && ratio < 0.5f)
        ratio = 1.0f;
    snprintf(buf, len, "%.0f%%", (double)ratio);
    return buf;
}

static bool block_on(const struct lines_block *b, const struct lines_count *c)
{
    return b->line == c->line && b->file == c->file;
}

/* Does a block of the line never run? (gcov's `*` after a count) */
static bool unrun_block(const struct lines_plan *p, const struct lines_count *c)
{
    for (size_t b = 0; b < p->blocks.n; b++)
        if (block_on(&p->blocks.v[b], c) && !p->blocks.v[b].count)
            return true;
    return false;
}

static void count_column(struct gcov_file *g, const struct lines_count *c, unsigned line)
{
    char num[32];
    if (!c)
        snprintf(num, sizeof(num), "-");
    else if (!c->count)
        snprintf(num, sizeof(num), "#####");
    else
        snprintf(num, sizeof(num), "%llu%s", (unsigned long long)c->count,
                 unrun_block(g->r->plan, c) ? "*" : "");
    fprintf(g->f, "%9s:%5u:", num, line);
}

/* One of gcov -b's lines under a source line (gcc 12's output_branch_count). */
static void arc_line(void *arg, const struct lines_gcov_arc *a, unsigned ix)
{
    const struct gcov_file *g = arg;
    const char *ft = a->fallthrough ? " (fallthrough)" : "";
    char fig[32];

    if (!a->from)       /* gcc 12's gcov: no "(fallthrough)" here */
        fprintf(g->f, "%s %2u never executed\n", a->call ? "call  " : "branch", ix);
    else if (a->call)
        fprintf(g->f, "call   %2u returned %s\n", ix,
                gcov_figure(fig, sizeof(fig), a->count, a->from, g->counts));
    else
        fprintf(g->f, "branch %2u taken %s%s\n", ix,
                gcov_figure(fig, sizeof(fig), a->count, a->from, g->counts), ft);
}

/* gcov -b's line above a function's first line (here the line of its entry block: the `{`
 * where that is on a line of its own, docs/lines.md): its calls, the share that returned,
 * the share of its blocks that ran (machine-code blocks, not gcov's). gcc's clones and
 * `.cold` parts (a dot in the name) are parts of a function, not one. */
static void function_lines(struct gcov_file *g, const struct lines_count *c)
{
    const struct lines_plan *p = g->r->plan;
    char ret[32], run[32];

    for (size_t fi = 0; fi < p->funcs.n; fi++) {
        struct lines_func_sum s;
        if (strchr(p->funcs.v[fi].name, '.'))
            continue;
        lines_func_summary(p, g->arcs, fi, &s);
        if (s.entry >= p->blocks.n || !block_on(&p->blocks.v[s.entry], c))
            continue;
        fprintf(g->f, "function %s called %llu returned %s blocks executed %s\n",
                p->funcs.v[fi].name, (unsigned long long)s.calls,
                gcov_figure(ret, sizeof(ret), s.returns < s.calls ? s.returns : s.calls,
                            s.calls, false),
                gcov_figure(run, sizeof(run), s.run, s.blocks, false));
    }
}

static const struct lines_count *count_of(const struct gcov_file *g, unsigned line)
{
    size_t lo = 0, hi = g->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (g->c[mid].line < line)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < g->n && g->c[lo].line == line ? &g->c[lo] : NULL;
}

/* One source line: count column, text (control characters shown as gcov leaves them: as
 * they are, but never a line break), branches. */
static void one_line(struct gcov_file *g, unsigned line, const char *text, size_t len)
{
    const struct lines_count *c = count_of(g, line);
    if (c && g->branches)
        function_lines(g, c);
    count_column(g, c, line);
    fwrite(text, 1, len, g->f);
    fputc('\n', g->f);
    if (c && g->branches)
        lines_gcov_arcs(g->r->plan, g->arcs, c->file, c->line, arc_line, g);
}

static void write_body(struct gcov_file *g, const char *src, size_t len)
{
    unsigned line = 1;
    size_t i = 0;
    while (src && i < len) {
        const char *nl = memchr(src + i, '\n', len - i);
        size_t end = nl ? (size_t)(nl - src) : len;
        one_line(g, line++, src + i, end - i);
        i = end + 1;
    }
    /* Lines past the text's end (or no text found): gcov's /\*EOF*\/ placeholder. */
    for (size_t k = 0; k < g->n; k++)
        while (g->c[k].line >= line)
            one_line(g, line++, "/*EOF*/", 7);
}

static int write_one(struct gcov_file *g, const char *dir, char *err, size_t errlen)
{
    const char *path = g->r->plan->files.v[g->c[0].file].path, *base = strrchr(path, '/');
    char out[PATH_MAX];
    struct outfile of = { 0 };
    size_t len = 0;
    char *src;
    int e;

    base = base ? base + 1 : path;
    if ((size_t)snprintf(out, sizeof(out), "%s/%s.gcov", dir, base) >= sizeof(out))
        return snprintf(err, errlen, "%s/%s.gcov: name too long", dir, base), -ENAMETOOLONG;
    if ((e = outfile_open(&of, out, 0644))) {
        snprintf(err, errlen, "cannot write %s: %s", out, outfile_strerror(e));
        return e;
    }
    g->f = of.fp;
    fprintf(g->f, "%9s:%5u:Source:%s\n", "-", 0, path);
    src = lines_source_read(path, g->r->source_dir, &len);
    write_body(g, src, len);
    free(src);
    if ((e = outfile_commit(&of)))
        snprintf(err, errlen, "writing %s failed: %s", out, strerror(-e));
    return e;
}

int lines_write_gcov(const struct lines_report *r, const char *dir, unsigned flags, char *err,
                     size_t errlen)
{
    struct lines_arcs arcs;
    int e = lines_arcs_solve(r->plan, &arcs);

    if (e) {
        snprintf(err, errlen, "%s", strerror(-e));
        return e;
    }
    for (size_t i = 0, j; !e && i < r->n; i = j) {
        for (j = i + 1; j < r->n && r->counts[j].file == r->counts[i].file; j++)
            ;
        struct gcov_file g = { .r = r, .arcs = &arcs, .c = r->counts + i, .n = j - i,
                               .branches = flags & LINES_GCOV_BRANCHES,
                               .counts = flags & LINES_GCOV_COUNTS };
        e = write_one(&g, dir, err, errlen);
    }
    lines_arcs_release(&arcs);
    return e;
}
