/* SPDX-License-Identifier: MIT */
/* Which functions of the program have exception tables (inproc_priv.h): the FDEs of its
 * .eh_frame whose CIE names an LSDA ('L' in its augmentation: gcc gives those CIEs only to
 * functions with landing pads or exception specifications), with their LSDA's address and
 * their CIE's personality routine. dwarf_next_cfi parses each entry; only the FDE's
 * initial_location, address_range and LSDA pointer, and the CIE's personality pointer, encoded
 * as the CIE's augmentation says, are decoded here. */
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

/* What a CIE says of its FDEs: their address encoding ('R'), whether they name an LSDA ('L',
 * and its pointer's encoding) and the personality routine ('P': its address, or with
 * DW_EH_PE_indirect its pointer's). */
struct cie_info {
    int enc;                      /* -1: unreadable */
    bool lsda;
    uint8_t lsda_enc, pers_ind;
    uint64_t pers;
};

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

/* The personality pointer at d (file address vaddr) in format enc; false: not one of x86_64's. */
static bool read_pers(uint8_t enc, const uint8_t *d, const uint8_t *end, uint64_t vaddr,
                      struct cie_info *ci)
{
    int64_t v;
    if ((enc & 0x70) > 0x10 || !read_enc(enc, d, end, &v))
        return false;
    ci->pers = (uint64_t)v + ((enc & 0x70) == 0x10 ? vaddr : 0);
    ci->pers_ind = enc & 0x80;
    return true;
}

static struct cie_info cie_encoding(const Dwarf_CIE *cie, uint64_t data_vaddr,
                                    const uint8_t *data)
{
    const char *a = cie->augmentation;
    const uint8_t *d = cie->augmentation_data, *end = d + cie->augmentation_data_size;
    struct cie_info ci = { .enc = 0x00 };
    int s;

    if (a[0] != 'z')
        return (struct cie_info){ .enc = a[0] ? -1 : 0x00 };
    for (a++; *a; a++) {
        if (d > end || (*a != 'S' && *a != 'B' && d == end))
            return (struct cie_info){ .enc = -1 };
        switch (*a) {
        case 'R':
            ci.enc = *d++;
            break;
        case 'L':
            ci.lsda = true;
            ci.lsda_enc = *d++;
            break;
        case 'P':
            if ((s = enc_size(*d)) < 0 ||
                !read_pers(*d, d + 1, end, data_vaddr + (uint64_t)(d + 1 - data), &ci))
                return (struct cie_info){ .enc = -1 };
            d += 1 + s;
            break;
        case 'S': case 'B':
            break;
        default:
            return (struct cie_info){ .enc = -1 };
        }
    }
    return ci;
}

static uint64_t uleb(const uint8_t **p, const uint8_t *end)
{
    uint64_t v = 0;
    for (int sh = 0; *p < end && sh < 64; sh += 7) {
        uint8_t b = *(*p)++;
        v |= (uint64_t)(b & 0x7f) << sh;
        if (!(b & 0x80))
            break;
    }
    return v;
}

/* The LSDA pointer in an FDE's augmentation data at p (after its range): *lsda, 0 when the
 * FDE names none (a null pointer); false when unreadable. */
static bool fde_lsda(const struct cie_info *ci, const uint8_t *p, const uint8_t *end,
                     uint64_t vaddr_of_p, uint64_t *lsda)
{
    const uint8_t *d = p;
    uint64_t n = uleb(&d, end);
    int64_t v;
    *lsda = 0;
    if (n > (uint64_t)(end - d) || (ci->lsda_enc & 0x70) > 0x10 ||
        !read_enc(ci->lsda_enc, d, d + n, &v))
        return false;
    if (v)
        *lsda = (uint64_t)v + ((ci->lsda_enc & 0x70) == 0x10 ? vaddr_of_p + (uint64_t)(d - p)
                                                                : 0);
    return true;
}

/* The FDEs of one .eh_frame section whose CIE names an LSDA. 0 or -ENOMEM. */
static int scan(struct inproc_cfi *c, const unsigned char *ident, Elf_Data *data,
                uint64_t sh_addr)
{
    Dwarf_Off off = 0, next, cie_off = (Dwarf_Off)-1;
    Dwarf_CFI_Entry ent;
    struct cie_info ci = { .enc = -1 };
    const uint8_t *base = data->d_buf;

    while (dwarf_next_cfi(ident, data, true, off, &next, &ent) == 0) {
        int64_t loc, len;
        const uint8_t *p = ent.fde.start, *end = ent.fde.end;
        struct inproc_eh eh;
        int es;
        off = next;
        if (dwarf_cfi_cie_p(&ent))
            continue;
        if (ent.fde.CIE_pointer != cie_off) {
            Dwarf_CFI_Entry ce;
            Dwarf_Off cn;
            cie_off = ent.fde.CIE_pointer;
            ci = dwarf_next_cfi(ident, data, true, cie_off, &cn, &ce) == 0 &&
                 dwarf_cfi_cie_p(&ce) ? cie_encoding(&ce.cie, sh_addr, base)
                                      : (struct cie_info){ .enc = -1 };
        }
        es = enc_size((uint8_t)ci.enc);
        if (!ci.lsda || ci.enc < 0 || (ci.enc & 0x70) > 0x10 ||
            !read_enc((uint8_t)ci.enc, p, end, &loc) ||
            !read_enc(ci.enc & 0x0f, p + es, end, &len) || len <= 0)
            continue;
        if (ci.enc & 0x10)                                       /* pcrel */
            loc += (int64_t)(sh_addr + (uint64_t)(p - base));
        eh = (struct inproc_eh){ (uint64_t)loc, (uint64_t)loc + (uint64_t)len, 0, ci.pers,
                                 ci.pers_ind };
        /* Unreadable: kept with lsda 0 (refused); a null pointer: no exception table. */
        if (fde_lsda(&ci, p + 2 * es, end, sh_addr + (uint64_t)(p + 2 * es - base), &eh.lsda) &&
            !eh.lsda)
            continue;
        if (vec_push(&c->lsda, eh))
            return -ENOMEM;
    }
    return 0;
}

static int by_lo(const void *a, const void *b)
{
    const struct inproc_eh *x = a, *y = b;
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

const struct inproc_eh *inproc_eh_find(const struct inproc_cfi *c, uint64_t lo, uint64_t hi)
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
