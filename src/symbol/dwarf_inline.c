/* SPDX-License-Identifier: MIT */
#define LOG_PREFIX "dwarf"
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "symbol/dwarf_inline.h"
#include "util/log.h"
#include "util/vec.h"

/* DIE trees are untrusted: nesting deeper than this is not followed. */
#define MAX_DIE_DEPTH 256

struct walk {
    const char *name;
    VEC(struct inline_site) sites;
    Dwarf_Files *files;
    size_t nfiles;
    int err;
};

static bool die_is_named(Dwarf_Die *die, const char *name)
{
    Dwarf_Attribute a;
    const char *n = dwarf_diename(die), *ln;
    if (n && !strcmp(n, name))
        return true;
    ln = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &a));
    return ln && !strcmp(ln, name);
}

static void site_release(struct inline_site *s)
{
    free(s->ranges);
    free(s->call_file);
    free(s->caller);
}

static int add_site(struct walk *w, Dwarf_Die *die, const char *caller)
{
    struct inline_site s = { 0 };
    VEC(struct addr_range) rs = { 0 };
    Dwarf_Addr base, start, end, entry;
    Dwarf_Attribute a;
    Dwarf_Word file = 0, line = 0;
    ptrdiff_t off = 0;

    /* dwarf_ranges covers DW_AT_low_pc/high_pc and every fragment of DW_AT_ranges. */
    while ((off = dwarf_ranges(die, off, &base, &start, &end)) > 0) {
        if (end > start && vec_push(&rs, ((struct addr_range){ start, end }))) {
            vec_free(&rs);
            return -ENOMEM;
        }
        if (rs.n > 4096)
            break;
    }
    if (!rs.n)
        return 0;   /* an instance with no code left (fully optimized away) */
    s.ranges = rs.v;
    s.nr_ranges = rs.n;
    /* Without DW_AT_entry_pc the entry is not defined for DW_AT_ranges (DWARF 5, 3.3.3);
     * compilers list the main fragment first, cold parts after it. libdw would answer with
     * the lowest address, which may be a cold fragment. */
    if (dwarf_hasattr(die, DW_AT_entry_pc) && dwarf_entrypc(die, &entry) == 0)
        s.entry = entry;
    else
        s.entry = rs.v[0].lo;
    if (dwarf_formudata(dwarf_attr(die, DW_AT_call_file, &a), &file) == 0 && w->files &&
        file < w->nfiles) {
        const char *f = dwarf_filesrc(w->files, file, NULL, NULL);
        s.call_file = f ? strdup(f) : NULL;
    }
    if (dwarf_formudata(dwarf_attr(die, DW_AT_call_line, &a), &line) == 0)
        s.call_line = (unsigned)line;
    s.caller = caller ? strdup(caller) : NULL;
    if (vec_push(&w->sites, s)) {
        site_release(&s);
        return -ENOMEM;
    }
    return 0;
}

static void walk_children(struct walk *w, Dwarf_Die *parent, const char *caller, int depth)
{
    Dwarf_Die child;

    if (depth > MAX_DIE_DEPTH || w->err || dwarf_child(parent, &child) != 0)
        return;
    do {
        int tag = dwarf_tag(&child);
        const char *inner = caller;
        if (tag == DW_TAG_subprogram)
            inner = dwarf_diename(&child);
        if (tag == DW_TAG_inlined_subroutine && die_is_named(&child, w->name)) {
            int e = add_site(w, &child, caller);
            if (e) {
                w->err = e;
                return;
            }
        }
        if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine ||
            tag == DW_TAG_lexical_block || tag == DW_TAG_namespace ||
            tag == DW_TAG_class_type || tag == DW_TAG_structure_type)
            walk_children(w, &child, inner, depth + 1);
    } while (!w->err && dwarf_siblingof(&child, &child) == 0);
}

long dwarf_inline_sites(const char *elf_path, const char *name, struct inline_site **out)
{
    struct walk w = { .name = name };
    Dwarf_Off off = 0, next;
    size_t hsize;
    Dwarf *dw;
    int fd;

    *out = NULL;
    fd = open(elf_path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    dw = dwarf_begin(fd, DWARF_C_READ);
    if (!dw) {
        close(fd);
        return -ENODATA;
    }
    while (!w.err && dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
        Dwarf_Die cudie;
        if (dwarf_offdie(dw, off + hsize, &cudie)) {
            w.files = NULL;
            w.nfiles = 0;
            if (dwarf_getsrcfiles(&cudie, &w.files, &w.nfiles) != 0)
                w.files = NULL;
            walk_children(&w, &cudie, NULL, 0);
        }
        off = next;
    }
    dwarf_end(dw);
    close(fd);
    if (w.err) {
        inline_sites_free(w.sites.v, w.sites.n);
        return w.err;
    }
    pr_debug("%s: %zu inlined instance(s) of %s", elf_path, w.sites.n, name);
    *out = w.sites.v;
    return (long)w.sites.n;
}

void inline_sites_free(struct inline_site *sites, size_t n)
{
    for (size_t i = 0; i < n; i++)
        site_release(&sites[i]);
    free(sites);
}
