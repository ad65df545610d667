/* SPDX-License-Identifier: MIT */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "annotate/srcline.h"
#include "symbol/debug_plain.h"
#include "symbol/dso.h"
#include "symbol/dwarf_func.h"
#include "util/vec.h"

/* A line table's relative file name joined with its unit's compilation directory. */
struct joined {
    const char *raw, *dir;
    char *path;
};

/* One address range of an inlined subroutine of the current function. */
struct inl {
    uint64_t lo, hi;
    unsigned depth;         /* nesting: the deepest range holding an address is innermost */
    const char *name;
};

struct ann_src {
    int fd;
    Dwarf *dw;
    VEC(struct joined) paths;
    VEC(struct inl) inl;    /* of the function ann_src_function prepared */
};

int ann_src_open(const char *elf_path, struct ann_src **out)
{
    struct ann_src *s = calloc(1, sizeof(*s));

    if (!s)
        return -ENOMEM;
    s->fd = open(elf_path, O_RDONLY | O_CLOEXEC);
    if (s->fd < 0) {
        int e = errno;
        free(s);
        return -e;
    }
    s->dw = dwarf_begin(s->fd, DWARF_C_READ);
    if (!s->dw) {
        close(s->fd);
        free(s);
        return -ENODATA;
    }
    *out = s;
    return 0;
}

void ann_src_close(struct ann_src *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->paths.n; i++)
        free(s->paths.v[i].path);
    vec_free(&s->paths);
    vec_free(&s->inl);
    dwarf_end(s->dw);
    close(s->fd);
    free(s);
}

/* Relative names (gcc's DWARF 5 tables hold "tests/x.c" with the directory apart) become
 * absolute through DW_AT_comp_dir, as objdump -l and perf show them. Few distinct files are
 * in one listing, so a list is enough. */
static const char *absolute(struct ann_src *s, Dwarf_Die *cu, const char *raw)
{
    Dwarf_Attribute a;
    const char *dir;
    struct joined j;

    if (raw[0] == '/' || !(dir = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &a))))
        return raw;
    for (size_t i = 0; i < s->paths.n; i++)
        if (s->paths.v[i].raw == raw && s->paths.v[i].dir == dir)
            return s->paths.v[i].path;
    j.raw = raw;
    j.dir = dir;
    if (asprintf(&j.path, "%s/%s", dir, raw) < 0)
        return raw;
    if (vec_push(&s->paths, j)) {
        free(j.path);
        return raw;
    }
    return j.path;
}

/* The inlined subroutines below die (at depth), each range apart. */
static int collect_inlines(struct ann_src *s, Dwarf_Die *die, unsigned depth)
{
    Dwarf_Die child;

    if (depth > 64 || dwarf_child(die, &child) != 0)
        return 0;
    do {
        int tag = dwarf_tag(&child);
        if (tag == DW_TAG_inlined_subroutine) {
            Dwarf_Attribute a;
            const char *name = dwarf_formstring(dwarf_attr_integrate(&child, DW_AT_name, &a));
            Dwarf_Addr base, lo, hi;
            ptrdiff_t off = 0;
            while (name && (off = dwarf_ranges(&child, off, &base, &lo, &hi)) > 0) {
                struct inl in = { lo, hi, depth, name };
                if (vec_push(&s->inl, in))
                    return -ENOMEM;
            }
        }
        if ((tag == DW_TAG_inlined_subroutine || tag == DW_TAG_lexical_block) &&
            collect_inlines(s, &child, depth + 1))
            return -ENOMEM;
    } while (dwarf_siblingof(&child, &child) == 0);
    return 0;
}

int ann_src_function(struct ann_src *s, uint64_t lo)
{
    Dwarf_Die fn;

    s->inl.n = 0;
    /* Looked up once per function rather than per instruction. */
    if (dwarf_function_at(s->dw, lo, &fn))
        return -ENOENT;
    return collect_inlines(s, &fn, 1);
}

/* The innermost inlined subroutine covering addr, of the current function, or NULL. */
static const char *inlined_name(const struct ann_src *s, uint64_t addr)
{
    const struct inl *best = NULL;

    for (size_t i = 0; i < s->inl.n; i++) {
        const struct inl *in = &s->inl.v[i];
        if (addr >= in->lo && addr < in->hi && (!best || in->depth > best->depth))
            best = in;
    }
    return best ? best->name : NULL;
}

size_t ann_src_inline_chain(const struct ann_src *s, uint64_t addr, const char **names,
                            size_t max)
{
    const struct inl *hit[16];
    size_t n = 0;

    /* The ranges holding addr (one per nesting level), deepest first. */
    for (size_t i = 0; i < s->inl.n; i++) {
        const struct inl *in = &s->inl.v[i];
        size_t k;
        if (addr < in->lo || addr >= in->hi)
            continue;
        for (k = n < 16 ? n++ : 15; k > 0 && hit[k - 1]->depth < in->depth; k--)
            hit[k] = hit[k - 1];
        if (k < 16)
            hit[k] = in;
    }
    for (size_t k = 0; k < n && k < max; k++)
        names[k] = hit[k]->name;
    return n < max ? n : max;
}

bool ann_src_covers(struct ann_src *s, uint64_t addr)
{
    Dwarf_Die cu;
    return dwarf_addrdie(s->dw, addr, &cu) != NULL;
}

int ann_src_lookup(struct ann_src *s, uint64_t addr, struct ann_srcpos *pos)
{
    Dwarf_Die cu;
    Dwarf_Line *l;
    int ln = 0;

    pos->file = NULL;
    pos->line = 0;
    pos->inlined = NULL;
    if (!dwarf_addrdie(s->dw, addr, &cu))
        return -ENOENT;
    l = dwarf_getsrc_die(&cu, addr);
    if (l && (pos->file = dwarf_linesrc(l, NULL, NULL)) && !dwarf_lineno(l, &ln) && ln > 0)
        pos->line = (unsigned)ln;
    if (pos->file)
        pos->file = absolute(s, &cu, pos->file);
    pos->inlined = inlined_name(s, addr);
    return pos->file ? 0 : -ENOENT;
}

struct ann_src *ann_src_cache_get(struct ann_src_cache *c, struct dso *dso)
{
    struct ann_src_entry e = { dso, NULL };
    const char *dbg;

    /* Hits come map by map: the last file asked for is the likely one. */
    for (size_t i = c->v.n; i-- > 0; )
        if (c->v.v[i].dso == dso)
            return c->v.v[i].src;
    dbg = dso_debug_path(dso);
    if (dbg) {
        /* A decompressed copy of a compressed debug file opens 300x faster. */
        char *plain = debug_plain_path(dbg);
        if (!plain || ann_src_open(plain, &e.src))
            if (ann_src_open(dbg, &e.src))
                e.src = NULL;
        free(plain);
    }
    if (vec_push(&c->v, e)) {
        ann_src_close(e.src);
        return NULL;
    }
    return e.src;
}

void ann_src_cache_release(struct ann_src_cache *c)
{
    for (size_t i = 0; i < c->v.n; i++)
        ann_src_close(c->v.v[i].src);
    vec_free(&c->v);
}
