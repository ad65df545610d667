/* SPDX-License-Identifier: MIT */
/* Which functions `prospect lines` counts, and their blocks: the DWARF line table (libdw) gives
 * each instruction its line, the symbols give the functions. */
#define LOG_PREFIX "lines"
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "lines/lines.h"
#include "probe/region.h"
#include "probe/region_names.h"
#include "symbol/dso.h"
#include "symbol/elf_code.h"
#include "util/log.h"
#include "util/strutil.h"

struct row {
    uint64_t addr;
    unsigned file, line, col;
    size_t seq;                 /* input order, to keep rows at one address in order */
    bool end, own;              /* end of a sequence; from one of the program's own units */
    bool optimized;             /* its unit was compiled with -O1 or more */
    bool per_line;              /* at -O2: lines are marked one by one (optlines.c) */
};

struct rows {
    VEC(struct row) v;
};

/* A system header or library source (inlined into the program, or a library's own unit),
 * not the program's: a program built under /usr/local/src is still the program's. */
static bool system_path(const char *path)
{
    return str_starts(path, "/usr/include/") || str_starts(path, "/usr/lib/") ||
           str_starts(path, "/usr/src/debug/") || str_starts(path, "/usr/share/");
}

bool lines_file_matches(const char *src, const char *want)
{
    size_t ls = strlen(src), lw = strlen(want);
    if (str_starts(want, "./"))
        return lines_file_matches(src, want + 2);
    if (!lw || ls < lw || strcmp(src + ls - lw, want))
        return false;
    return ls == lw || src[ls - lw - 1] == '/';
}

static int intern_file(struct lines_plan *p, const char *src, unsigned *idx)
{
    struct lines_file f;
    for (size_t i = p->files.n; i-- > 0;)
        if (!strcmp(p->files.v[i].path, src)) {
            *idx = (unsigned)i;
            return 0;
        }
    if (!(f.path = strdup(src)) || vec_push(&p->files, f)) {
        free(f.path);
        return -ENOMEM;
    }
    *idx = (unsigned)(p->files.n - 1);
    return 0;
}

static int cmp_row(const void *x, const void *y)
{
    const struct row *a = x, *b = y;
    if (a->addr != b->addr)
        return a->addr < b->addr ? -1 : 1;
    if (a->end != b->end)       /* a sequence ending where the next begins ends first */
        return a->end ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* The unit's optimization level as gcc records its options in DW_AT_producer ("GNU C17 12.2.0
 * -mtune=generic -g -O2"): the last -O's letter ('1' for a bare -O, 's', 'g', 'f'ast, 'z'),
 * or '0' when there is none (gcc's default; a producer that records no options, as clang's,
 * is taken as not optimized). */
static char unit_opt_level(Dwarf_Die *cu)
{
    Dwarf_Attribute at;
    const char *prod = dwarf_formstring(dwarf_attr(cu, DW_AT_producer, &at)), *o;
    char level = '0';

    for (o = prod; o && (o = strstr(o, " -O")); o += 3)
        level = o[3] == ' ' || o[3] == '\0' ? '1' : o[3];
    return level;
}

/* Statement rows and sequence ends of every unit. */
static int read_rows(struct lines_plan *p, Dwarf *dw, struct rows *r)
{
    Dwarf_Off off = 0, next;
    size_t hsize, seq = 0;
    const char *last_src = NULL, *comp_dir;
    unsigned last_idx = 0;
    int e;

    while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
        Dwarf_Die cu;
        Dwarf_Lines *lines;
        size_t nlines;
        const char *name;
        bool own, optimized, per_line;
        char level;

        if (!dwarf_offdie(dw, off + hsize, &cu) || dwarf_getsrclines(&cu, &lines, &nlines)) {
            off = next;
            continue;
        }
        name = dwarf_diename(&cu);
        own = !name || !system_path(name);
        level = unit_opt_level(&cu);
        optimized = level != '0';
        per_line = level == '2';
        {
            Dwarf_Attribute at;
            comp_dir = dwarf_formstring(dwarf_attr(&cu, DW_AT_comp_dir, &at));
        }
        last_src = NULL;
        for (size_t i = 0; i < nlines; i++) {
            Dwarf_Line *l = dwarf_onesrcline(lines, i);
            const char *src = NULL;
            bool stmt = false, end = false;
            Dwarf_Addr a;
            int ln, col = 0;
            struct row w;

            if (!l || dwarf_lineaddr(l, &a) || dwarf_lineno(l, &ln) ||
                dwarf_linebeginstatement(l, &stmt) || dwarf_lineendsequence(l, &end))
                continue;
            if (!end && (!stmt || ln <= 0 || !(src = dwarf_linesrc(l, NULL, NULL))))
                continue;
            dwarf_linecol(l, &col);
            w = (struct row){ .addr = a, .line = end ? 0 : (unsigned)ln, .seq = seq++,
                              .col = col > 0 ? (unsigned)col : 0,
                              .end = end, .own = own, .optimized = optimized,
                              .per_line = per_line };
            if (!end) {
                /* A relative name is relative to the unit's compilation directory. */
                if (src != last_src && src[0] != '/' && comp_dir) {
                    char full[PATH_MAX];
                    snprintf(full, sizeof(full), "%s/%s", comp_dir, src);
                    if ((e = intern_file(p, full, &last_idx)))
                        return e;
                } else if (src != last_src && (e = intern_file(p, src, &last_idx))) {
                    return e;
                }
                last_src = src;
                w.file = last_idx;
            }
            if ((e = vec_push(&r->v, w)))
                return e;
        }
        off = next;
    }
    qsort(r->v.v, r->v.n, sizeof(struct row), cmp_row);
    return 0;
}

/* The statement row covering addr, or NULL (none, or past a sequence's end). */
static const struct row *row_at(const struct rows *r, uint64_t a)
{
    size_t lo = 0, hi = r->v.n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (r->v.v[mid].addr <= a)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (!lo || r->v.v[lo - 1].end)
        return NULL;
    return &r->v.v[lo - 1];
}

/* The first row at address a, or r->v.n. */
static size_t first_row_at(const struct rows *r, uint64_t a)
{
    size_t lo = 0, hi = r->v.n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (r->v.v[mid].addr < a)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Is the block's line repeated inside it (a second statement row of the same line and column
 * past its start: an unrolled loop's copies), or is it one of several lines whose statement
 * rows start at its first address (gcc stacks the rows of statements with no code of their
 * own there: which line the code is was lost)? */
static void rows_of_block(const struct rows *r, struct lines_block *b)
{
    for (size_t i = first_row_at(r, b->start); i < r->v.n && r->v.v[i].addr < b->end; i++) {
        const struct row *w = &r->v.v[i];
        if (w->end && w->addr == b->start)     /* the sequence before ends here */
            continue;
        if (w->end)
            break;
        if (w->addr == b->start && (w->line != b->line || w->file != b->file))
            b->stacked = true;
        if (w->line != b->line || w->file != b->file)
            continue;
        for (size_t k = i + 1; k < r->v.n && r->v.v[k].addr < b->end && !r->v.v[k].end; k++)
            if (r->v.v[k].addr > w->addr && r->v.v[k].line == w->line &&
                r->v.v[k].file == w->file && r->v.v[k].col == w->col)
                b->restarts = true;
    }
}

struct code_ctx {
    const struct rows *rows;
    int fd;                     /* the program, for jump tables */
    struct elf_segs {
        uint64_t vaddr, filesz, off;
    } seg[16];
    size_t nseg;
};

static bool line_of(void *arg, uint64_t a, unsigned *file, unsigned *line)
{
    const struct code_ctx *cx = arg;
    const struct row *w = row_at(cx->rows, a);
    if (!w)
        return false;
    *file = w->file;
    *line = w->line;
    return true;
}

/* Bytes of the program at an ELF address (inside one PT_LOAD's file part). */
static size_t data_at(void *arg, uint64_t a, uint8_t *buf, size_t len)
{
    const struct code_ctx *cx = arg;
    for (size_t i = 0; i < cx->nseg; i++) {
        const struct elf_segs *sg = &cx->seg[i];
        ssize_t got;
        if (a < sg->vaddr || a - sg->vaddr >= sg->filesz)
            continue;
        if (len > sg->filesz - (a - sg->vaddr))
            len = (size_t)(sg->filesz - (a - sg->vaddr));
        got = pread(cx->fd, buf, len, (off_t)(sg->off + (a - sg->vaddr)));
        return got > 0 ? (size_t)got : 0;
    }
    return 0;
}

/* The PT_LOAD segments (libelf), for data_at. */
static void read_segments(struct code_ctx *cx)
{
    Elf *elf = elf_begin(cx->fd, ELF_C_READ_MMAP, NULL);
    size_t n = 0;
    if (!elf)
        return;
    if (!elf_getphdrnum(elf, &n))
        for (size_t i = 0; i < n && cx->nseg < 16; i++) {
            GElf_Phdr ph;
            if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD)
                cx->seg[cx->nseg++] = (struct elf_segs){ ph.p_vaddr, ph.p_filesz, ph.p_offset };
        }
    elf_end(elf);
}

struct fsel {
    struct lines_plan *p;
    const struct rows *rows;
    const struct lines_select *sel;
    VEC(struct symbol_match) pick;
    int err;
};

/* Has [start, start+size) a statement row of a chosen file (--file), or is its entry in one of
 * the program's own units (default)? */
static bool wanted(const struct fsel *f, const struct symbol_match *m)
{
    const struct row *w = row_at(f->rows, m->start);
    size_t k;

    if (!f->sel->nfiles)
        return w && w->own;
    /* From the row covering the entry to the function's end. */
    if (!w)
        return false;
    k = (size_t)(w - f->rows->v.v);
    for (; k < f->rows->v.n && f->rows->v.v[k].addr < m->start + m->size; k++) {
        const struct row *x = &f->rows->v.v[k];
        if (x->end || (x->addr < m->start && x != w))
            continue;
        for (size_t i = 0; i < f->p->report_files.n; i++)
            if (x->file == f->p->report_files.v[i])
                return true;
    }
    return false;
}

static void pick_cb(void *arg, const struct symbol_match *m)
{
    struct fsel *f = arg;
    if (!f->err && m->size && wanted(f, m) && vec_push(&f->pick, *m))
        f->err = -ENOMEM;
}

static int add_func(struct lines_plan *p, const struct symbol_match *m)
{
    struct lines_func fn = { .start = m->start, .size = m->size };
    for (size_t i = 0; i < p->funcs.n; i++)
        if (p->funcs.v[i].start == m->start)
            return 0;
    if (!(fn.name = strdup(m->name)) || vec_push(&p->funcs, fn)) {
        free(fn.name);
        return -ENOMEM;
    }
    return 0;
}

static int by_name(struct lines_plan *p, struct dso *dso, const char *exe, const char *want,
                   char *err, size_t errlen)
{
    struct symbol_match m[REGION_NAME_MAX_MATCHES], cold;
    char note[256];
    long n = region_names_find(dso, exe, want, m, note, sizeof(note), err, errlen);
    int e;

    if (n < 0)
        return (int)n;
    if (n == 0)
        return -ENOENT;
    for (long i = 0; i < n; i++) {
        if ((e = add_func(p, &m[i])))
            return e;
        if (symbol_cold_part(dso, m[i].name, &cold) && (e = add_func(p, &cold)))
            return e;
    }
    return 0;
}

static int cmp_block(const void *x, const void *y)
{
    const struct lines_block *a = x, *b = y;
    return a->start < b->start ? -1 : a->start > b->start;
}

/* The calls gcov -b lists no line for, by their callee's name (a PLT entry's: its target). */
static void mark_unlisted_calls(struct lines_plan *p, struct dso *dso)
{
    char name[256];

    for (size_t b = 0; p->split_calls && b < p->blocks.n; b++) {
        struct lines_block *bl = &p->blocks.v[b];
        struct symres r;
        size_t n;
        if (!bl->call_to || dso_resolve(dso, bl->call_to, &r) || !r.name || r.bracket)
            continue;
        snprintf(name, sizeof(name), "%s", r.name);
        n = strlen(name);
        if (n > 4 && !strcmp(name + n - 4, "@plt"))
            name[n - 4] = '\0';
        bl->call_unlisted = lines_gcov_unlisted_callee(name);
    }
}

int lines_plan_build(struct lines_plan *p, const char *exe, const struct lines_select *sel,
                     char *err, size_t errlen)
{
    struct rows rows = { 0 };
    struct dso_cache *cache = NULL;
    struct dso *dso;
    struct fsel f = { .p = p, .rows = &rows, .sel = sel };
    struct code_ctx cx = { .rows = &rows, .fd = -1 };
    Dwarf *dw = NULL;
    int fd, dw_fd = -1, e = 0;

    memset(p, 0, sizeof(*p));
    p->split_calls = sel->calls;
    err[0] = '\0';
    if (!(p->exe = strdup(exe)))
        return -ENOMEM;
    if ((fd = open(exe, O_RDONLY | O_CLOEXEC)) < 0) {
        e = -errno;
        snprintf(err, errlen, "%s: %s", exe, strerror(-e));
        return e;
    }
    cx.fd = fd;
    elf_version(EV_CURRENT);
    read_segments(&cx);
    if (!(cache = dso_cache_new()) ||
        !(dso = dso_cache_get(cache, DSO_FILE, exe, NULL, 0, 0))) {
        e = -ENOMEM;
        goto out;
    }
    /* The line table is the program's own, or its separate debug file's (build-id, debuglink,
     * perf's ~/.debug: symbol/debuginfo.c); the code is read from the program. */
    {
        const char *dbg = dso_debug_path(dso);
        int dfd = dbg && strcmp(dbg, exe) ? open(dbg, O_RDONLY | O_CLOEXEC) : -1;
        dw = dwarf_begin(dfd >= 0 ? dfd : fd, DWARF_C_READ);
        if (dw)
            e = read_rows(p, dw, &rows);
        if (dfd >= 0 && (!dw || !rows.v.n)) {   /* no lines there: the program's own? */
            if (dw)
                dwarf_end(dw);
            if ((dw = dwarf_begin(fd, DWARF_C_READ)))
                e = read_rows(p, dw, &rows);
        }
        dw_fd = dfd;
    }
    if (!dw || (!e && !rows.v.n)) {
        snprintf(err, errlen, "%s has no DWARF line table: lines are counted from it; rebuild "
                 "with -g (or install its debug info)", exe);
        e = -ENODATA;
        goto out;
    }
    if (e)
        goto out;
    for (size_t i = 0; i < sel->nfiles; i++) {
        bool any = false;
        for (size_t k = 0; k < p->files.n; k++)
            if (lines_file_matches(p->files.v[k].path, sel->files[i])) {
                any = true;
                if ((e = vec_push(&p->report_files, (unsigned)k)))
                    goto out;
            }
        if (!any) {
            char shown[256];
            size_t w = (size_t)snprintf(err, errlen, "no source file '%s' in the DWARF line "
                                        "table of %s", str_printable(sel->files[i], shown,
                                                                     sizeof(shown)), exe);
            for (size_t k = 0, nshown = 0; k < p->files.n && nshown < 5 && w < errlen; k++) {
                const char *b = strrchr(p->files.v[k].path, '/');
                b = b ? b + 1 : p->files.v[k].path;
                if (system_path(p->files.v[k].path))
                    continue;
                w += (size_t)snprintf(err + w, errlen - w, "%s%s", nshown++ ? ", " : "; it has: ",
                                      str_printable(b, shown, sizeof(shown)));
            }
            e = -ENOENT;
            goto out;
        }
    }
    /* By default the program's own files are shown, not system headers inlined into them. */
    for (size_t k = 0; !sel->nfiles && k < p->files.n; k++)
        if (!system_path(p->files.v[k].path) &&
            (e = vec_push(&p->report_files, (unsigned)k)))
            goto out;
    for (size_t i = 0; i < sel->nfuncs; i++)
        if ((e = by_name(p, dso, exe, sel->funcs[i], err, errlen)))
            goto out;
    if (!sel->nfuncs) {
        dso_foreach_symbol(dso, pick_cb, &f);
        if ((e = f.err))
            goto out;
        for (size_t i = 0; i < f.pick.n; i++)
            if ((e = add_func(p, &f.pick.v[i])))
                goto out;
        if (!p->funcs.n) {
            snprintf(err, errlen, "%s: no function symbol covers the code of %s", exe,
                     sel->nfiles ? "the chosen files" : "its own compilation units");
            e = -ENOENT;
            goto out;
        }
    }
    for (size_t i = 0; i < p->funcs.n; i++) {
        const struct lines_func *fn = &p->funcs.v[i];
        uint8_t *code = elf_read_code(exe, fn->start, fn->size);
        char *note;
        if (!code) {
            if (asprintf(&note, "%s: its code cannot be read (no size, too large, or not in "
                         "the file): not counted", fn->name) < 0 || vec_push(&p->notes, note)) {
                e = -ENOMEM;
                goto out;
            }
            continue;
        }
        e = lines_blocks_cut(p, i, code, fn->size, fn->start, line_of, data_at, &cx);
        free(code);
        if (e)
            goto out;
    }
    qsort(p->blocks.v, p->blocks.n, sizeof(struct lines_block), cmp_block);
    mark_unlisted_calls(p, dso);
    for (size_t b = 0; b < p->blocks.n; b++) {
        const struct row *w = row_at(&rows, p->blocks.v[b].start);
        p->blocks.v[b].optimized = w && w->optimized;
        p->blocks.v[b].per_line = w && w->per_line;
        rows_of_block(&rows, &p->blocks.v[b]);
    }
    if ((e = lines_derive(p)))
        goto out;
    pr_debug("%zu functions, %zu blocks (%zu probed), %zu source files", p->funcs.n,
             p->blocks.n, p->probed.n, p->files.n);
    e = 0;
out:
    vec_free(&f.pick);
    vec_free(&rows.v);
    if (dw)
        dwarf_end(dw);
    if (dw_fd >= 0)
        close(dw_fd);
    close(fd);
    dso_cache_free(cache);
    return e;
}

void lines_plan_release(struct lines_plan *p)
{
    free(p->exe);
    for (size_t i = 0; i < p->files.n; i++)
        free(p->files.v[i].path);
    for (size_t i = 0; i < p->funcs.n; i++)
        free(p->funcs.v[i].name);
    for (size_t i = 0; i < p->notes.n; i++)
        free(p->notes.v[i]);
    vec_free(&p->files);
    vec_free(&p->funcs);
    vec_free(&p->blocks);
    vec_free(&p->report_files);
    vec_free(&p->notes);
    vec_free(&p->probed);
    vec_free(&p->derive_order);
    memset(p, 0, sizeof(*p));
}
