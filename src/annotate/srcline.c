#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "annotate/srcline.h"
#include "util/vec.h"

/* A line table's relative file name joined with its unit's compilation directory. */
struct joined {
    const char *raw, *dir;
    char *path;
};

struct ann_src {
    int fd;
    Dwarf *dw;
    VEC(struct joined) paths;
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

/* The name of the innermost inlined subroutine whose scope holds addr (via its abstract
 * origin, where the name lives), or NULL. */
static const char *inlined_name(Dwarf_Die *cu, uint64_t addr)
{
    Dwarf_Die *scopes = NULL;
    const char *name = NULL;
    int n = dwarf_getscopes(cu, addr, &scopes);

    for (int i = 0; i < n && !name; i++) {
        Dwarf_Attribute a;
        if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram)
            break;
        if (dwarf_tag(&scopes[i]) == DW_TAG_inlined_subroutine)
            name = dwarf_formstring(dwarf_attr_integrate(&scopes[i], DW_AT_name, &a));
    }
    free(scopes);
    return name;
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
    pos->inlined = inlined_name(&cu, addr);
    return pos->file ? 0 : -ENOENT;
}
