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
 * entry, and only its initial_location, address_range and LSDA pointer, encoded as the CIE's
 * augmentation says (.debug_frame: plain addresses of the file's class), and the CIE's
 * personality pointer are decoded here. */

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

/* The value of format enc at p, applied: pcrel from p's address (vaddr). */
static bool read_addr(uint8_t enc, const uint8_t *p, const uint8_t *end, uint64_t vaddr,
                      uint64_t *v)
{
    int64_t x;
    if ((enc & 0x70) > 0x10 || !read_enc(enc, p, end, &x))
        return false;                /* datarel/textrel/funcrel: not in x86_64 .eh_frame */
    *v = (uint64_t)x + ((enc & 0x70) == 0x10 ? vaddr : 0);
    return true;
}

/* What a CIE says of its FDEs: their address encoding ('R'), whether they name an LSDA ('L',
 * and its pointer's encoding), the personality routine ('P'). */
struct cie_info {
    int enc;                      /* -1: unreadable */
    bool lsda;
    uint8_t lsda_enc, pers_ind;
    uint64_t pers;
};

/* An .eh_frame CIE's augmentation; data_vaddr: the address of its section's bytes `data`. */
static struct cie_info eh_cie(const Dwarf_CIE *cie, const uint8_t *data, uint64_t data_vaddr)
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
            if ((s = enc_size(*d)) < 0 || !read_addr(*d, d + 1, end, data_vaddr +
                                                     (uint64_t)(d + 1 - data), &ci.pers))
                return (struct cie_info){ .enc = -1 };
            ci.pers_ind = *d & 0x80;
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

/* The CIE at off (cached in *cie_off / *ci). */
static const struct cie_info *cie_at(const unsigned char *ident, Elf_Data *data, bool eh,
                                     uint64_t sh_addr, Dwarf_Off off, Dwarf_Off *cie_off,
                                     struct cie_info *ci)
{
    Dwarf_CFI_Entry c;
    Dwarf_Off next;

    if (off != *cie_off) {
        *cie_off = off;
        if (dwarf_next_cfi(ident, data, eh, off, &next, &c) || !dwarf_cfi_cie_p(&c))
            *ci = (struct cie_info){ .enc = -1 };
        else if (eh)
            *ci = eh_cie(&c.cie, data->d_buf, sh_addr);
        else
            *ci = (struct cie_info){ .enc = ident[EI_CLASS] == ELFCLASS64 ? 0x00 : 0x03 };
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

/* The LSDA pointer in an FDE's augmentation data at p (file address vaddr): f->lsda, and
 * whether the FDE names one (a null pointer does not; an unreadable one does, lsda 0). */
static void fde_lsda(const struct cie_info *ci, const uint8_t *p, const uint8_t *end,
                     uint64_t vaddr, struct elf_fde *f)
{
    const uint8_t *d = p;
    uint64_t n = uleb(&d, end);
    int64_t raw;
    f->has_lsda = true;
    f->pers = ci->pers;
    f->pers_ind = ci->pers_ind;
    if (n > (uint64_t)(end - d) || !read_enc(ci->lsda_enc, d, d + n, &raw))
        return;
    if (!raw)
        f->has_lsda = false;
    else if (!read_addr(ci->lsda_enc, d, d + n, vaddr + (uint64_t)(d - p), &f->lsda))
        f->lsda = 0;
}

/* The FDEs of one .eh_frame (eh) or .debug_frame section at vaddr sh_addr. 0 or -ENOMEM. */
static int read_section(Elf *e, Elf_Data *data, const GElf_Shdr *sh, bool eh, fde_vec *v)
{
    const unsigned char *ident = (const unsigned char *)elf_getident(e, NULL);
    Dwarf_Off off = 0, next, cie_off = (Dwarf_Off)-1;
    Dwarf_CFI_Entry ent;
    struct cie_info cie = { .enc = -1 };

    while (dwarf_next_cfi(ident, data, eh, off, &next, &ent) == 0) {
        const uint8_t *p = ent.fde.start, *end = ent.fde.end, *base = data->d_buf;
        const struct cie_info *ci;
        struct elf_fde f = { 0 };
        uint64_t len;
        off = next;
        if (dwarf_cfi_cie_p(&ent))
            continue;
        ci = cie_at(ident, data, eh, sh->sh_addr, ent.fde.CIE_pointer, &cie_off, &cie);
        if (ci->enc < 0 ||
            !read_addr((uint8_t)ci->enc, p, end, sh->sh_addr + (uint64_t)(p - base), &f.lo) ||
            !read_addr(ci->enc & 0x0f, p + enc_size((uint8_t)ci->enc), end, 0, &len) ||
            (int64_t)len <= 0)
            continue;
        f.hi = f.lo + len;
        p += 2 * enc_size((uint8_t)ci->enc);
        if (ci->lsda)
            fde_lsda(ci, p, end, sh->sh_addr + (uint64_t)(p - base), &f);
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
 * both describing a function), keeping one that names an LSDA. */
static void sort_unique(fde_vec *v)
{
    size_t k = 0;

    if (!v->n)
        return;
    qsort(v->v, v->n, sizeof(*v->v), fde_cmp);
    for (size_t i = 0; i < v->n; i++)
        if (!k || v->v[i].lo != v->v[k - 1].lo)
            v->v[k++] = v->v[i];
        else if (v->v[i].has_lsda && !v->v[k - 1].has_lsda)
            v->v[k - 1] = v->v[i];
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
