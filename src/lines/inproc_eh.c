/* SPDX-License-Identifier: MIT */
/* Which functions of the program have exception tables (inproc_priv.h): the FDEs of its
 * .eh_frame whose CIE names an LSDA ('L' in its augmentation: gcc gives those CIEs only to
 * functions with landing pads or exception specifications). dwarf_next_cfi parses each entry;
 * only an FDE's initial_location and address_range, encoded as its CIE's 'R' augmentation
 * says, are decoded here. */
#include <elfutils/libdw.h>
#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include "lines/inproc_priv.h"

/* Bytes of a DW_EH_PE_* value format; -1: a format not used for FDE addresses on x86_64. */
static int enc_size(uint8_t enc)
{
    switch (enc & 0x0f) {
    case 0x00: case 0x04: case 0x0c: return 8;     /* absptr, udata8, sdata8 */
    case 0x03: case 0x0b: return 4;                /* udata4, sdata4 */
    case 0x02: case 0x0a: return 2;                /* udata2, sdata2 */
    default: return -1;                            /* (s|u)leb128 */
    }
}

/* The CIE's FDE address encoding ('R'), and whether it names an LSDA ('L'). -1: unreadable. */
static int cie_encoding(const Dwarf_CIE *cie, bool *lsda)
{
    const char *a = cie->augmentation;
    const uint8_t *d = cie->augmentation_data, *end = d + cie->augmentation_data_size;
    int enc = 0x00, s;

    *lsda = false;
    if (a[0] != 'z')
        return a[0] ? -1 : 0x00;
    for (a++; *a; a++) {
        if (d > end || (*a != 'S' && *a != 'B' && d == end))
            return -1;
        switch (*a) {
        case 'R':
            enc = *d++;
            break;
        case 'L':
            *lsda = true;
            d++;
            break;
        case 'P':
            if ((s = enc_size(*d)) < 0)
                return -1;
            d += 1 + s;
            break;
        case 'S': case 'B':
            break;
        default:
            return -1;
        }
    }
    return enc;
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

/* The FDEs of one .eh_frame section whose CIE names an LSDA. 0 or -ENOMEM. */
static int scan(struct inproc_cfi *c, const unsigned char *ident, Elf_Data *data,
                uint64_t sh_addr)
{
    Dwarf_Off off = 0, next, cie_off = (Dwarf_Off)-1;
    Dwarf_CFI_Entry ent;
    int enc = -1;
    bool lsda = false;

    while (dwarf_next_cfi(ident, data, true, off, &next, &ent) == 0) {
        int64_t loc, len;
        const uint8_t *p = ent.fde.start, *end = ent.fde.end;
        off = next;
        if (dwarf_cfi_cie_p(&ent))
            continue;
        if (ent.fde.CIE_pointer != cie_off) {
            Dwarf_CFI_Entry ce;
            Dwarf_Off cn;
            cie_off = ent.fde.CIE_pointer;
            enc = dwarf_next_cfi(ident, data, true, cie_off, &cn, &ce) == 0 &&
                  dwarf_cfi_cie_p(&ce) ? cie_encoding(&ce.cie, &lsda) : -1;
        }
        if (!lsda || enc < 0 || (enc & 0x70) > 0x10 || !read_enc((uint8_t)enc, p, end, &loc) ||
            !read_enc(enc & 0x0f, p + enc_size((uint8_t)enc), end, &len) || len <= 0)
            continue;
        if (enc & 0x10)                                          /* pcrel */
            loc += (int64_t)(sh_addr + (uint64_t)(p - (const uint8_t *)data->d_buf));
        if (vec_push(&c->lsda, ((struct inproc_range){ (uint64_t)loc,
                                                       (uint64_t)loc + (uint64_t)len })))
            return -ENOMEM;
    }
    return 0;
}

static int by_lo(const void *a, const void *b)
{
    const struct inproc_range *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

int inproc_eh_read(struct inproc_cfi *c)
{
    const unsigned char *ident;
    size_t shstrndx;
    Elf_Scn *scn = NULL;
    int e = 0;

    if (!c->elf || !(ident = (const unsigned char *)elf_getident(c->elf, NULL)) ||
        elf_getshdrstrndx(c->elf, &shstrndx))
        return 0;
    while (!e && (scn = elf_nextscn(c->elf, scn))) {
        GElf_Shdr sh;
        const char *name;
        Elf_Data *data;
        if (gelf_getshdr(scn, &sh) && sh.sh_type != SHT_NOBITS &&
            (name = elf_strptr(c->elf, shstrndx, sh.sh_name)) && !strcmp(name, ".eh_frame") &&
            (data = elf_getdata(scn, NULL)) && data->d_buf)
            e = scan(c, ident, data, sh.sh_addr);
    }
    if (!e && c->lsda.n)
        qsort(c->lsda.v, c->lsda.n, sizeof(*c->lsda.v), by_lo);
    return e;
}

bool inproc_eh_has_lsda(const struct inproc_cfi *c, uint64_t lo, uint64_t hi)
{
    size_t l = 0, r = c->lsda.n;
    while (l < r) {                    /* the first range ending after lo */
        size_t m = l + (r - l) / 2;
        if (c->lsda.v[m].hi <= lo)
            l = m + 1;
        else
            r = m;
    }
    return l < c->lsda.n && c->lsda.v[l].lo < hi;
}
