/* SPDX-License-Identifier: MIT */
/* Unwind tables for the relocated copies (inproc_priv.h): each copied instruction gets the
 * call frame rules of its original, as libdw computes them from the program's .eh_frame
 * (dwarf_cfi_addrframe), written out as an .eh_frame of the copies that the hook registers
 * with the program's unwinder. The copy keeps the stack as the original has it at every
 * instruction, except inside a counter that saves the flags (rsp lowered by 128, then the
 * flags pushed) and between a call's push of its return address and its jmp: those rows are
 * adjusted where the CFA is computed from rsp. */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include "lines/inproc_priv.h"

#define NREG 17                   /* rax .. r15 and the return address column (16) */
#define RA 16
#define RSP 7

enum { R_SAME, R_AT, R_UNDEF };   /* a caller's register: unchanged, at CFA + off, lost */

struct row {
    uint64_t cfa_reg;
    int64_t cfa_off;
    uint8_t kind[NREG];
    int64_t off[NREG];
};

/* The CIE's initial state: CFA = rsp + 8, the return address at CFA - 8. */
static struct row entry_row(void)
{
    struct row r = { .cfa_reg = RSP, .cfa_off = 8 };
    r.kind[RA] = R_AT;
    r.off[RA] = -8;
    return r;
}

int inproc_cfi_open(struct inproc_cfi *c, const char *exe)
{
    memset(c, 0, sizeof(*c));
    elf_version(EV_CURRENT);
    if ((c->fd = open(exe, O_RDONLY | O_CLOEXEC)) < 0)
        return -errno;     /* no CFI: the copies go without unwind tables */
    if ((c->elf = elf_begin(c->fd, ELF_C_READ, NULL)))
        c->cfi = dwarf_getcfi_elf(c->elf);
    return inproc_eh_read(c);
}

void inproc_cfi_close(struct inproc_cfi *c)
{
    if (c->cfi)
        dwarf_cfi_end(c->cfi);
    if (c->elf)
        elf_end(c->elf);
    if (c->fd >= 0)
        close(c->fd);
    vec_free(&c->ins);
    vec_free(&c->fdes);
    vec_free(&c->lsda);
    vec_free(&c->lsdas);
    vec_free(&c->lrels);
    memset(c, 0, sizeof(*c));
    c->fd = -1;
}

/* Register reg's rule in fr; -ENOTSUP for rules other than unchanged, lost or CFA + N. */
static int reg_rule(Dwarf_Frame *fr, int reg, struct row *r)
{
    Dwarf_Op mem[3], *ops;
    size_t n;
    if (dwarf_frame_register(fr, reg, mem, &ops, &n))
        return -ENOTSUP;
    if (!n) {
        r->kind[reg] = ops ? R_UNDEF : R_SAME;
        return 0;
    }
    if (ops[0].atom != DW_OP_call_frame_cfa || n > 2 ||
        (n == 2 && ops[1].atom != DW_OP_plus_uconst))
        return -ENOTSUP;
    r->kind[reg] = R_AT;
    r->off[reg] = n == 2 ? (int64_t)ops[1].number : 0;
    return 0;
}

/* The rules at the original's addr. *hi: where the row holding them ends. -ENOENT without
 * CFI there, -ENOTSUP for a rule not carried over (an expression). */
static int row_at(Dwarf_CFI *cfi, uint64_t addr, struct row *r, uint64_t *hi)
{
    Dwarf_Frame *fr = NULL;
    Dwarf_Op *ops;
    Dwarf_Addr lo, end;
    size_t n;
    int e = 0;

    if (dwarf_cfi_addrframe(cfi, addr, &fr) || !fr)
        return -ENOENT;
    memset(r, 0, sizeof(*r));
    if (dwarf_frame_info(fr, &lo, &end, NULL) < 0 || dwarf_frame_cfa(fr, &ops, &n) ||
        n != 1 || ops[0].atom != DW_OP_bregx)
        e = -ENOTSUP;
    else {
        r->cfa_reg = ops[0].number;
        r->cfa_off = (int64_t)ops[0].number2;
        *hi = end;
    }
    for (int reg = 0; reg < NREG && !e; reg++)
        if (reg != RSP)
            e = reg_rule(fr, reg, r);
    free(fr);
    return e;
}

static int put_uleb(struct inproc_cfi *c, uint64_t v)
{
    int e = 0;
    do {
        uint8_t b = v & 0x7f;
        v >>= 7;
        e = vec_push(&c->ins, (uint8_t)(b | (v ? 0x80 : 0)));
    } while (v && !e);
    return e;
}

static int put_sleb(struct inproc_cfi *c, int64_t v)
{
    int e = 0;
    bool more = true;
    while (more && !e) {
        uint8_t b = v & 0x7f;
        v >>= 7;
        more = !((v == 0 && !(b & 0x40)) || (v == -1 && (b & 0x40)));
        e = vec_push(&c->ins, (uint8_t)(b | (more ? 0x80 : 0)));
    }
    return e;
}

static int put_bytes(struct inproc_cfi *c, const void *p, size_t n)
{
    int e = vec_reserve(&c->ins, n);
    if (!e) {
        memcpy(c->ins.v + c->ins.n, p, n);
        c->ins.n += n;
    }
    return e;
}

/* DW_CFA_advance_loc4 from the last row to `at` (code alignment 1). */
static int advance(struct inproc_cfi *c, uint32_t *loc, uint32_t at)
{
    uint8_t op = DW_CFA_advance_loc4;
    uint32_t d = at - *loc;
    *loc = at;
    return d ? put_bytes(c, &op, 1) || put_bytes(c, &d, 4) ? -ENOMEM : 0 : 0;
}

/* The instructions turning row `cur` into `r` (data alignment 1). */
static int change(struct inproc_cfi *c, const struct row *cur, const struct row *r)
{
    int e = 0;
    if (r->cfa_reg != cur->cfa_reg || r->cfa_off != cur->cfa_off)
        e = vec_push(&c->ins, (uint8_t)DW_CFA_def_cfa_sf) || put_uleb(c, r->cfa_reg) ||
            put_sleb(c, r->cfa_off) ? -ENOMEM : 0;
    for (int reg = 0; reg < NREG && !e; reg++) {
        if (r->kind[reg] == cur->kind[reg] && (r->kind[reg] != R_AT ||
                                               r->off[reg] == cur->off[reg]))
            continue;
        if (r->kind[reg] == R_AT)
            e = vec_push(&c->ins, (uint8_t)DW_CFA_offset_extended_sf) || put_uleb(c, reg) ||
                put_sleb(c, r->off[reg]) ? -ENOMEM : 0;
        else
            e = vec_push(&c->ins, (uint8_t)(r->kind[reg] == R_SAME ? DW_CFA_same_value
                                                                    : DW_CFA_undefined)) ||
                put_uleb(c, reg) ? -ENOMEM : 0;
    }
    return e;
}

static int set_row(struct inproc_cfi *c, struct row *cur, uint32_t *loc, uint32_t at,
                   const struct row *r)
{
    int e = 0;
    if (memcmp(cur, r, sizeof(*r))) {
        if (!(e = advance(c, loc, at)) && !(e = change(c, cur, r)))
            *cur = *r;
    }
    return e;
}

/* The FDE's instructions are written: keep it, or on an error forget them too. */
static int fde_close(struct inproc_cfi *c, struct inproc_fde *f, int e)
{
    f->len = c->ins.n - f->ins;
    if (!e)
        e = vec_push(&c->fdes, *f);
    if (e)
        c->ins.n = f->ins;
    return e;
}

/* The rows of a counter that saves the flags, where the CFA is rsp-based: rsp moves. */
static int slow_rows(struct inproc_cfi *c, struct row *cur, uint32_t *loc, uint32_t at,
                     const struct row *r)
{
    struct row low = *r, pushed = *r;
    low.cfa_off += 128;
    pushed.cfa_off += 136;
    return set_row(c, cur, loc, at + 5, &low) ||
           set_row(c, cur, loc, at + RELOC_SLOW_PUSHED, &pushed) ||
           set_row(c, cur, loc, at + RELOC_SLOW_POPPED, &low) ? -ENOMEM : 0;
}

int inproc_cfi_add(struct inproc_cfi *c, const struct reloc_code *rc, size_t first,
                   uint32_t copy_end)
{
    struct inproc_fde f = { rc->places.v[first].copy, copy_end, c->ins.n, 0, 0, -1, 0, 0 };
    struct row cur = entry_row(), r;
    uint32_t loc = f.copy;
    uint64_t hi = 0, at = 0;
    int e = 0;

    if (!c->cfi)
        return -ENOENT;
    for (size_t i = first; i < rc->places.n && !e; i++) {
        const struct reloc_place *pl = &rc->places.v[i];
        if ((pl->addr < at || pl->addr >= hi) && (e = row_at(c->cfi, pl->addr, &r, &hi)))
            break;
        at = pl->addr;
        if (!(e = set_row(c, &cur, &loc, pl->copy, &r)) && pl->pre == RELOC_SLOW_LEN &&
            r.cfa_reg == RSP && !(e = slow_rows(c, &cur, &loc, pl->copy, &r)))
            e = set_row(c, &cur, &loc, pl->copy + pl->pre, &r);
        if (!e && pl->pushed && r.cfa_reg == RSP) {     /* push; jmp: one word more */
            struct row pushed = r;
            pushed.cfa_off += 8;
            e = set_row(c, &cur, &loc, pl->copy + pl->pre + RELOC_PUSH_LEN, &pushed);
        }
    }
    return fde_close(c, &f, e);
}

int inproc_cfi_add_orig(struct inproc_cfi *c, const struct reloc_code *rc, size_t first,
                        uint64_t lo, uint64_t hi)
{
    struct inproc_fde f = { 0, (uint32_t)(hi - lo), c->ins.n, 0, lo, -1, 0, 0 };
    struct row cur = entry_row(), r;
    uint32_t loc = 0;
    int e = 0;

    if (!c->cfi)
        return -ENOENT;
    for (size_t i = first; i < rc->places.n && !e; i++) {
        uint64_t end;
        if (!(e = row_at(c->cfi, rc->places.v[i].addr, &r, &end)))
            e = set_row(c, &cur, &loc, (uint32_t)(rc->places.v[i].addr - lo), &r);
    }
    return fde_close(c, &f, e);
}

struct inproc_cfi_mark inproc_cfi_mark(const struct inproc_cfi *c)
{
    return (struct inproc_cfi_mark){ c->ins.n, c->fdes.n, c->lsdas.n, c->lrels.n };
}

void inproc_cfi_truncate(struct inproc_cfi *c, struct inproc_cfi_mark m)
{
    c->ins.n = m.ins;
    c->fdes.n = m.fdes;
    c->lsdas.n = m.lsdas;
    c->lrels.n = m.lrels;
}

/* Appends n bytes to rc's code. */
static int out_bytes(struct reloc_code *rc, const void *p, size_t n)
{
    int e = vec_reserve(&rc->code, n);
    if (!e) {
        memcpy(rc->code.v + rc->code.n, p, n);
        rc->code.n += n;
    }
    return e;
}

/* Pads an entry begun at `start` (its length word) to 8 bytes with DW_CFA_nop and sets its
 * length. */
static int close_entry(struct reloc_code *rc, size_t start)
{
    static const uint8_t nops[8];
    uint32_t len;
    int e = out_bytes(rc, nops, (8 - (rc->code.n - start) % 8) % 8);
    len = (uint32_t)(rc->code.n - start - 4);
    if (!e)
        memcpy(rc->code.v + start, &len, 4);
    return e;
}

/* A 4-byte pcrel value at code offset `at` to the program's `target`: a fix whose
 * "instruction" ends 4 bytes after it, the target moved as far. */
static int pcrel_fix(struct reloc_code *rc, size_t at, uint64_t target)
{
    return vec_push(&rc->fixes, ((struct reloc_fix){ (uint32_t)at, (uint32_t)at + 4, false,
                                                     false, target + 4 }));
}

/* The LSDAs, 4-aligned; *at = their offset. */
static int out_lsdas(const struct inproc_cfi *c, struct reloc_code *rc, size_t *at)
{
    static const uint8_t zero[4];
    int e = out_bytes(rc, zero, (4 - rc->code.n % 4) % 4);
    *at = rc->code.n;
    if (e || (e = out_bytes(rc, c->lsdas.v, c->lsdas.n)))
        return e;
    for (size_t i = 0; i < c->lrels.n && !e; i++) {
        const struct inproc_lrel *l = &c->lrels.v[i];
        int32_t d = (int32_t)((int64_t)l->target - (int64_t)(*at + l->at));
        if (l->copy)
            memcpy(rc->code.v + *at + l->at, &d, 4);
        else
            e = pcrel_fix(rc, *at + l->at, l->target);
    }
    return e;
}

/* A CIE "zPLR" naming f's personality routine (pcrel sdata4, indirect as the original's),
 * LSDA and FDE addresses pcrel sdata4; the rest as the plain CIE. */
static int out_pers_cie(struct reloc_code *rc, const struct inproc_fde *f)
{
    uint8_t cie[] = { 0, 0, 0, 0, 0, 0, 0, 0, 1, 'z', 'P', 'L', 'R', 0, 1, 1, RA, 7,
                      (uint8_t)(DW_EH_PE_pcrel | DW_EH_PE_sdata4 | f->pers_ind), 0, 0, 0, 0,
                      DW_EH_PE_pcrel | DW_EH_PE_sdata4, DW_EH_PE_pcrel | DW_EH_PE_sdata4,
                      DW_CFA_def_cfa, RSP, 8, DW_CFA_offset_extended_sf, RA, 0x78 };
    size_t start = rc->code.n;
    int e = out_bytes(rc, cie, sizeof(cie));
    return e || (e = pcrel_fix(rc, start + 19, f->pers)) ? e : close_entry(rc, start);
}

/* One FDE under the CIE at cie: over the copy's code, or (orig) the original's, with a
 * pointer to its LSDA at lsdas + f->lsda. */
static int out_fde(const struct inproc_cfi *c, struct reloc_code *rc, const struct inproc_fde *f,
                   size_t cie, size_t lsdas)
{
    size_t start = rc->code.n;
    int32_t head[4] = { 0, (int32_t)(start + 4 - cie), f->orig ? 0 : (int32_t)f->copy -
                        (int32_t)(start + 8), (int32_t)(f->end - f->copy) };
    uint8_t aug = f->lsda >= 0 ? 4 : 0;
    int32_t lsda = (int32_t)(lsdas + (size_t)f->lsda) - (int32_t)(start + 17);
    int e;
    if ((e = out_bytes(rc, head, sizeof(head))) || (e = out_bytes(rc, &aug, 1)) ||
        (aug && (e = out_bytes(rc, &lsda, 4))) ||
        (f->orig && (e = pcrel_fix(rc, start + 8, f->orig))) ||
        (e = out_bytes(rc, c->ins.v + f->ins, f->len)))
        return e;
    return close_entry(rc, start);
}

int inproc_cfi_table(const struct inproc_cfi *c, struct reloc_code *rc, uint32_t *at)
{
    /* CIE: id 0, version 1, "zR", code align 1, data align 1, return address column 16,
     * FDE addresses pcrel sdata4; CFA = rsp + 8, the return address at CFA - 8. */
    static const uint8_t cie[] = { 0, 0, 0, 0, 0, 0, 0, 0, 1, 'z', 'R', 0, 1, 1, RA, 1,
                                   DW_EH_PE_pcrel | DW_EH_PE_sdata4, DW_CFA_def_cfa, RSP, 8,
                                   DW_CFA_offset_extended_sf, RA, 0x78 };
    static const uint8_t zero[8];
    size_t base, lsdas = 0;
    int e;

    *at = 0;
    if (!c->fdes.n)
        return 0;
    if (c->lsdas.n && (e = out_lsdas(c, rc, &lsdas)))
        return e;
    if ((e = out_bytes(rc, zero, (8 - rc->code.n % 8) % 8)))
        return e;
    base = rc->code.n;
    if ((e = out_bytes(rc, cie, sizeof(cie))) || (e = close_entry(rc, base)))
        return e;
    for (size_t i = 0; i < c->fdes.n && !e; i++) {
        const struct inproc_fde *f = &c->fdes.v[i];
        size_t cie_at = f->lsda >= 0 ? rc->code.n : base;
        if (f->lsda < 0 || !(e = out_pers_cie(rc, f)))
            e = out_fde(c, rc, f, cie_at, lsdas);
    }
    if (!e && !(e = out_bytes(rc, zero, 4)))
        *at = (uint32_t)base;
    return e;
}
