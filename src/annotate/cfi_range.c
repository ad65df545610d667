#include <elfutils/libdw.h>
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include "annotate/cfi_range.h"
#include "symbol/dso.h"
#include "symbol/symfile.h"

static struct ann_cfi_entry *entry_for(struct ann_cfi_cache *c, struct dso *dso)
{
    struct ann_cfi_entry e = { dso, -1, NULL, NULL };
    const char *path;

    for (size_t i = c->v.n; i-- > 0; )
        if (c->v.v[i].dso == dso)
            return &c->v.v[i];
    path = dso_code_path(dso);
    elf_version(EV_CURRENT);
    if (path && (e.fd = symfile_open(path, false, NULL)) >= 0 &&
        (e.elf = elf_begin(e.fd, ELF_C_READ, NULL)))
        e.cfi = dwarf_getcfi_elf(e.elf);
    if (vec_push(&c->v, e)) {
        if (e.cfi)
            dwarf_cfi_end(e.cfi);
        if (e.elf)
            elf_end(e.elf);
        if (e.fd >= 0)
            close(e.fd);
        return NULL;
    }
    return &c->v.v[c->v.n - 1];
}

int ann_cfi_range(struct ann_cfi_cache *c, struct dso *dso, uint64_t addr, uint64_t *lo,
                  uint64_t *hi)
{
    struct ann_cfi_entry *e = entry_for(c, dso);
    Dwarf_Frame *frame = NULL;
    Dwarf_Addr start, end;

    if (!e)
        return -ENOMEM;
    if (!e->cfi || dwarf_cfi_addrframe(e->cfi, addr, &frame) || !frame)
        return -ENOENT;
    if (dwarf_frame_info(frame, &start, &end, NULL) < 0 || end <= start) {
        free(frame);
        return -ENOENT;
    }
    free(frame);
    *lo = start;
    *hi = end;
    return 0;
}

void ann_cfi_cache_release(struct ann_cfi_cache *c)
{
    for (size_t i = 0; i < c->v.n; i++) {
        if (c->v.v[i].cfi)
            dwarf_cfi_end(c->v.v[i].cfi);
        if (c->v.v[i].elf)
            elf_end(c->v.v[i].elf);
        if (c->v.v[i].fd >= 0)
            close(c->v.v[i].fd);
    }
    vec_free(&c->v);
}
