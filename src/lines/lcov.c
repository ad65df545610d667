/* SPDX-License-Identifier: MIT */
/* lcov's tracefile (geninfo(1)'s format, what `lcov --capture` makes of gcov's data): per
 * source file an SF: record with FN/FNDA (functions: the line of their entry, calls), BRDA
 * (each way of a conditional branch whose arcs are known: line, block, way, times taken, `-`
 * when its block never ran), DA (line, count) and the LF/LH, BRF/BRH, FNF/FNH totals, so
 * that genhtml and `lcov --summary` read Prospect's counts. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "lines/render.h"
#include "util/strutil.h"

struct lcov_totals {
    size_t found, hit;
};

static bool in_file(const struct lines_block *b, unsigned file)
{
    return b->line && b->file == file;
}

/* The path with `.`, `..` and doubled slashes taken out as text (DWARF joins a unit's
 * directory and "../x.c"; genhtml would write its page for "dir/../x.c" outside its own
 * output directory). */
void lines_plain_path(const char *in, char *out, size_t len)
{
    size_t n = 0;
    while (*in && n + 1 < len) {
        const char *seg = in + (*in == '/'), *end = strchrnul(seg, '/');
        size_t sl = (size_t)(end - seg);
        if (*in != '/' && n == 0) {
            /* a relative path: kept as it is */
            str_copy(out, len, in);
            return;
        }
        bool here = sl == 0 || (sl == 1 && seg[0] == '.');
        bool up = sl == 2 && seg[0] == '.' && seg[1] == '.';
        if (up) {
            while (n && out[--n] != '/')
                ;
        } else if (!here && n + 1 + sl < len) {
            out[n++] = '/';
            memcpy(out + n, seg, sl);
            n += sl;
        }
        in = end;
    }
    if (!n)
        out[n++] = '/';
    out[n] = '\0';
}

/* A function's calls: its entry block's count less the jumps back to it from within. */
static uint64_t calls(const struct lines_plan *p, const struct lines_arcs *a, size_t b)
{
    uint64_t n = p->blocks.v[b].count, back = 0;
    for (size_t i = a->in_first[b]; i < a->in_first[b + 1]; i++)
        back += a->v[a->in_list[i]].count;
    return n > back ? n - back : 0;
}

static void functions(FILE *f, const struct lines_plan *p, const struct lines_arcs *a,
                      unsigned file)
{
    struct lcov_totals t = { 0 };
    for (size_t i = 0; i < p->funcs.n; i++) {
        size_t b = lines_block_at(p, p->funcs.v[i].start);
        if (b >= p->blocks.n || !in_file(&p->blocks.v[b], file))
            continue;
        uint64_t n = calls(p, a, b);
        fprintf(f, "FN:%u,%s\nFNDA:%llu,%s\n", p->blocks.v[b].line, p->funcs.v[i].name,
                (unsigned long long)n, p->funcs.v[i].name);
        t.found++;
        t.hit += n > 0;
    }
    fprintf(f, "FNF:%zu\nFNH:%zu\n", t.found, t.hit);
}

static void branches(FILE *f, const struct lines_plan *p, const struct lines_arcs *a,
                     unsigned file)
{
    struct lcov_totals t = { 0 };
    for (size_t b = 0; b < p->blocks.n; b++) {
        const struct lines_block *bl = &p->blocks.v[b];
        const struct lines_arc *o = &a->v[a->out_first[b]];
        if (!in_file(bl, file) || !bl->cond || bl->nsucc != 2 || !o[0].known ||
            !o[1].known)
            continue;
        for (unsigned s = 0; s < 2; s++) {
            if (bl->count)
                fprintf(f, "BRDA:%u,%zu,%u,%llu\n", bl->line, b, s,
                        (unsigned long long)o[s].count);
            else
                fprintf(f, "BRDA:%u,%zu,%u,-\n", bl->line, b, s);
            t.found++;
            t.hit += o[s].count > 0;
        }
    }
    fprintf(f, "BRF:%zu\nBRH:%zu\n", t.found, t.hit);
}

int lines_render_lcov(FILE *f, const struct lines_report *r)
{
    struct lines_arcs a;
    int e = lines_arcs_solve(r->plan, &a);
    if (e)
        return e;
    fputs("TN:\n", f);
    for (size_t i = 0, j; i < r->n; i = j) {
        struct lcov_totals t = { 0 };
        unsigned file = r->counts[i].file;
        for (j = i; j < r->n && r->counts[j].file == file; j++)
            ;
        char path[PATH_MAX], shown[PATH_MAX];
        lines_plain_path(r->plan->files.v[file].path, path, sizeof(path));
        /* The path comes from the program's DWARF: one line, whatever it holds. */
        fprintf(f, "SF:%s\n", str_printable(path, shown, sizeof(shown)));
        functions(f, r->plan, &a, file);
        branches(f, r->plan, &a, file);
        for (size_t k = i; k < j; k++) {
            fprintf(f, "DA:%u,%llu\n", r->counts[k].line,
                    (unsigned long long)r->counts[k].count);
            t.found++;
            t.hit += r->counts[k].count > 0;
        }
        fprintf(f, "LF:%zu\nLH:%zu\nend_of_record\n", t.found, t.hit);
    }
    lines_arcs_release(&a);
    return 0;
}
