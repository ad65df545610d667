/* SPDX-License-Identifier: MIT */
/* Which functions of the program have exception tables (inproc_priv.h): the FDEs
 * elf_read_fdes finds naming an LSDA (gcc gives those only to functions with landing pads or
 * exception specifications), with the LSDA's address and the CIE's personality routine. */
#include <errno.h>
#include <stdlib.h>
#include "lines/inproc_priv.h"

int inproc_eh_read(struct inproc_cfi *c)
{
    struct elf_fde *f = NULL;
    size_t n = 0;
    int e = c->elf ? elf_read_fdes(c->elf, &f, &n) : 0;
    for (size_t i = 0; i < n && !e; i++)             /* sorted by lo */
        if (f[i].has_lsda)
            e = vec_push(&c->lsda, f[i]);
    free(f);
    return e;
}

const struct elf_fde *inproc_eh_find(const struct inproc_cfi *c, uint64_t lo, uint64_t hi)
{
    size_t l = 0, r = c->lsda.n;
    while (l < r) {                    /* the first range ending after lo */
        size_t m = l + (r - l) / 2;
        if (c->lsda.v[m].hi <= lo)
            l = m + 1;
        else
            r = m;
    }
    return l < c->lsda.n && c->lsda.v[l].lo < hi ? &c->lsda.v[l] : NULL;
}
