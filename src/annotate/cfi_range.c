/* SPDX-License-Identifier: MIT */
#include <elfutils/libdw.h>
#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "annotate/cfi_range.h"
#include "symbol/dso.h"
#include "symbol/symfile.h"

/* libdw's rows (dwarf_cfi_addrframe + dwarf_frame_info) cover only the part of a function
 * where one CFA rule holds, so the FDEs themselves are read: dwarf_next_cfi parses each
 * entry, and only its initial_location and address_range, encoded as the CIE's 'R'
 * augmentation says, are decoded here. */

/* Bytes of a DW_EH_PE_* value format; -1: one not used for FDE addresses on x86_64. */
static int enc_size(uint8_t enc)
{
    switch (enc & 0x0f) {
    case 0x00: case 0x04: case 0x0c: return 8;     /* absptr, udata8, sdata8 */
    case 0x03: case 0x0b: return 4;                /* udata4, sdata4 */
    case 0x02: case 0x0a: return 2;                /* udata2, sdata2 */
    default: return -1;                            /* (s|u)leb128 */
    }
}

/* The encoding of the CIE's FDE addresses (its 'R' augmentation); -1 when unreadable. */
static int fde_encoding(const Dwarf_CIE *cie)
{
    const char *a = cie->augmentation;
    const uint8_t *d = cie->augmentation_data, *end = d + cie->augmentation_data_size;

    if (a[0] != 'z')
        return a[0] ? -1 : 0x00;
    for (a++; *a; a++) {
        int s;
        switch (*a) {
        case 'R':
            return d < end ? *d : -1;
        case 'L':
            d++;
            break;
        case 'P':
            if (d >= end || (s = enc_size(*d)) < 0)
                return -1;
            d += 1 + s;
            break;
        case 'S': case 'B':
            break;
        default:
            return -1;
        }
        if (d > end)
            return -1;
    }
    return 0x00;
}

/* The value of format enc at p (within [.., end)); false when out of bounds or unsupported. */
static bool read_enc(uint8_t enc, const uint8_t *p, const uint8_t *end, int64_t *v)
{
    int s = enc_size(enc);
    uint64_t u = 0;

    if (s < 0 || p + s > end)
        return false;
    for (int i = s; i-- > 0; )
        u = u << 8 | p[i];
    if ((enc & 0x08) && s < 8 && (u >> (8 * s - 1) & 1))     /* signed: extend */
        u |= ~0ULL << (8 * s);
    *v = (int64_t)u;
    return true;
}

static int range_cmp(const void *a, const void *b)
{
    const struct ann_fde *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Every FDE of the file's .eh_frame, sorted; 0 or -ENOMEM. */
static int read_fdes(struct ann_cfi_entry *e, Elf *elf)
{
    size_t shstrndx;
    Elf_Scn *scn = NULL;
    const char *ident = elf_getident(elf, NULL);

    if (!ident || elf_getshdrstrndx(elf, &shstrndx))
        return 0;
    while ((scn = elf_nextscn(elf, scn))) {
        GElf_Shdr sh;
        const char *name;
        Elf_Data *data;
        Dwarf_Off off = 0, next;
        Dwarf_CFI_Entry ent;
        struct { Dwarf_Off off; int enc; } cie = { (Dwarf_Off)-1, -1 };

        if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||   /* lld: X86_64_UNWIND */
            !(name = elf_strptr(elf, shstrndx, sh.sh_name)) || strcmp(name, ".eh_frame") ||
            !(data = elf_getdata(scn, NULL)) || !data->d_buf)
            continue;
        while (dwarf_next_cfi((const unsigned char *)ident, data, true, off, &next, &ent) == 0) {
            off = next;
            if (dwarf_cfi_cie_p(&ent))
                continue;
            if (ent.fde.CIE_pointer != cie.off) {
                Dwarf_CFI_Entry c;
                Dwarf_Off cn;
                cie.off = ent.fde.CIE_pointer;
                cie.enc = dwarf_next_cfi((const unsigned char *)ident, data, true, cie.off, &cn,
                                         &c) == 0 && dwarf_cfi_cie_p(&c) ?
                          fde_encoding(&c.cie) : -1;
            }
            int64_t loc, len;
            const uint8_t *p = ent.fde.start, *end = ent.fde.end;
            if (cie.enc < 0 || (cie.enc & 0x70) > 0x10 || !read_enc(cie.enc, p, end, &loc) ||
                !read_enc(cie.enc & 0x0f, p + enc_size(cie.enc), end, &len) || len <= 0)
                continue;       /* datarel/textrel/funcrel: not in x86_64 .eh_frame */
            if (cie.enc & 0x10)                                     /* pcrel */
                loc += (int64_t)(sh.sh_addr + (p - (const uint8_t *)data->d_buf));
            struct ann_fde f = { (uint64_t)loc, (uint64_t)loc + (uint64_t)len };
            if (vec_push(&e->fdes, f))
                return -ENOMEM;
        }
    }
    if (e->fdes.n)
        qsort(e->fdes.v, e->fdes.n, sizeof(*e->fdes.v), range_cmp);
    return 0;
}

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
        err = read_fdes(&e, elf);
    if (elf)
        elf_end(elf);
    if (fd >= 0)
        close(fd);
    if (err || vec_push(&c->v, e)) {
        vec_free(&e.fdes);
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
    r = e->fdes.n;
    while (l < r) {         /* the first FDE starting beyond addr */
        size_t m = l + (r - l) / 2;
        if (e->fdes.v[m].lo <= addr)
            l = m + 1;
        else
            r = m;
    }
    if (!l || addr >= e->fdes.v[l - 1].hi)
        return -ENOENT;
    *lo = e->fdes.v[l - 1].lo;
    *hi = e->fdes.v[l - 1].hi;
    return 0;
}

void ann_cfi_cache_release(struct ann_cfi_cache *c)
{
    for (size_t i = 0; i < c->v.n; i++)
        vec_free(&c->v.v[i].fdes);
    vec_free(&c->v);
}
