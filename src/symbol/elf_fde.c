/* SPDX-License-Identifier: MIT */
#include <elfutils/libdw.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "symbol/elf_fde.h"
#include "util/vec.h"

/* libdw's rows (dwarf_cfi_addrframe + dwarf_frame_info) cover only the part of a function
 * where one CFA rule holds, so the FDEs themselves are read: dwarf_next_cfi parses each
 * entry, and only its initial_location and address_range, encoded as the CIE's 'R'
 * augmentation says (.debug_frame: plain addresses of the file's class), are decoded here. */

typedef VEC(struct elf_fde) fde_vec;

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

/* The FDE address encoding of the CIE at off (cached in *cie_off / *cie_enc). */
static int cie_encoding(const unsigned char *ident, Elf_Data *data, bool eh, Dwarf_Off off,
                        Dwarf_Off *cie_off, int *cie_enc)
{
    Dwarf_CFI_Entry c;
    Dwarf_Off next;

    if (off != *cie_off) {
        *cie_off = off;
        *cie_enc = dwarf_next_cfi(ident, data, eh, off, &next, &c) == 0 && dwarf_cfi_cie_p(&c) ?
                   (eh ? fde_encoding(&c.cie) : ident[EI_CLASS] == ELFCLASS64 ? 0x00 : 0x03) :
                   -1;
    }
    return *cie_enc;
}

/* The FDEs of one .eh_frame (eh) or .debug_frame section at vaddr sh_addr. 0 or -ENOMEM. */
static int read_section(Elf *e, Elf_Data *data, const GElf_Shdr *sh, bool eh, fde_vec *v)
{
    const unsigned char *ident = (const unsigned char *)elf_getident(e, NULL);
    Dwarf_Off off = 0, next, cie_off = (Dwarf_Off)-1;
    Dwarf_CFI_Entry ent;
    int cie_enc = -1;

    while (dwarf_next_cfi(ident, data, eh, off, &next, &ent) == 0) {
        off = next;
        if (dwarf_cfi_cie_p(&ent))
            continue;
        int enc = cie_encoding(ident, data, eh, ent.fde.CIE_pointer, &cie_off, &cie_enc);
        int64_t loc, len;
        const uint8_t *p = ent.fde.start, *end = ent.fde.end;
        if (enc < 0 || (enc & 0x70) > 0x10 || !read_enc((uint8_t)enc, p, end, &loc) ||
            !read_enc(enc & 0x0f, p + enc_size((uint8_t)enc), end, &len) || len <= 0)
            continue;       /* datarel/textrel/funcrel: not in x86_64 .eh_frame */
        if (enc & 0x10)                                         /* pcrel */
            loc += (int64_t)(sh->sh_addr + (uint64_t)(p - (const uint8_t *)data->d_buf));
        struct elf_fde f = { (uint64_t)loc, (uint64_t)loc + (uint64_t)len };
        if (f.hi > f.lo && vec_push(v, f))
            return -ENOMEM;
    }
    return 0;
}

static int fde_cmp(const void *a, const void *b)
{
    const struct elf_fde *x = a, *y = b;
    if (x->lo != y->lo)
        return x->lo < y->lo ? -1 : 1;
    return x->hi < y->hi ? -1 : x->hi > y->hi;
}

/* Sorts v and drops entries starting where the one before does (.eh_frame and .debug_frame
 * both describing a function). */
static void sort_unique(fde_vec *v)
{
    size_t k = 0;

    if (!v->n)
        return;
    qsort(v->v, v->n, sizeof(*v->v), fde_cmp);
    for (size_t i = 0; i < v->n; i++)
        if (!k || v->v[i].lo != v->v[k - 1].lo)
            v->v[k++] = v->v[i];
    v->n = k;
}

int elf_read_fdes(Elf *e, struct elf_fde **out, size_t *n)
{
    fde_vec v = {0};
    size_t shstrndx;
    Elf_Scn *scn = NULL;
    int err = 0;

    *out = NULL;
    *n = 0;
    if (!elf_getident(e, NULL) || elf_getshdrstrndx(e, &shstrndx))
        return 0;
    while (!err && (scn = elf_nextscn(e, scn))) {
        GElf_Shdr sh;
        const char *name;
        Elf_Data *data;
        bool eh;

        if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||   /* lld: X86_64_UNWIND */
            !(name = elf_strptr(e, shstrndx, sh.sh_name)))
            continue;
        eh = !strcmp(name, ".eh_frame");
        if ((!eh && strcmp(name, ".debug_frame")) || (sh.sh_flags & SHF_COMPRESSED) ||
            !(data = elf_getdata(scn, NULL)) || !data->d_buf)
            continue;
        err = read_section(e, data, &sh, eh, &v);
    }
    if (err) {
        vec_free(&v);
        return err;
    }
    sort_unique(&v);
    *out = v.v;
    *n = v.n;
    return 0;
}
