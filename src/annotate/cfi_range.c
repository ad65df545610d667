/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "annotate/cfi_range.h"
#include "symbol/dso.h"
#include "symbol/symfile.h"

static struct ann_cfi_entry *entry_for(struct ann_cfi_cache *c, struct dso *dso)
{
    struct ann_cfi_entry e = { .dso = dso };
    const char *path;
    Elf *elf = NULL;
    int fd = -1, err = 0;

    for (size_t i = c->v.n; i-- > 0; )
        if (c->v.v[i].dso == dso)
            return &c->v.v[i];
    path = dso_code_path(dso);
    elf_version(EV_CURRENT);
    if (path && (fd = symfile_open(path, false, NULL)) >= 0 &&
        (elf = elf_begin(fd, ELF_C_READ, NULL)))
        err = elf_read_fdes(elf, &e.fdes, &e.nfdes);
    if (elf)
        elf_end(elf);
    if (fd >= 0)
        close(fd);
    if (err || vec_push(&c->v, e)) {
        free(e.fdes);
        return NULL;
    }
    return &c->v.v[c->v.n - 1];
}

int ann_cfi_range(struct ann_cfi_cache *c, struct dso *dso, uint64_t addr, uint64_t *lo,
                  uint64_t *hi)
{
    struct ann_cfi_entry *e = entry_for(c, dso);
    size_t l = 0, r;

    if (!e)
        return -ENOMEM;
    r = e->nfdes;
    while (l < r) {         /* the first FDE starting beyond addr */
        size_t m = l + (r - l) / 2;
        if (e->fdes[m].lo <= addr)
            l = m + 1;
        else
            r = m;
    }
    if (!l || addr >= e->fdes[l - 1].hi)
        return -ENOENT;
    *lo = e->fdes[l - 1].lo;
    *hi = e->fdes[l - 1].hi;
    return 0;
}

void ann_cfi_cache_release(struct ann_cfi_cache *c)
{
    for (size_t i = 0; i < c->v.n; i++)
        free(c->v.v[i].fdes);
    vec_free(&c->v);
}
