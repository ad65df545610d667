/* SPDX-License-Identifier: MIT */
/* One DSO's call frame information (.eh_frame, else .debug_frame, through libdw's
 * dwarf_cfi_addrframe) and the unwind rule of each PC asked, cached: the same few thousand PCs
 * recur in every sample, and building a Dwarf_Frame runs the CIE and FDE programs each time. */
#ifndef PROSPECT_UNWIND_CFI_H
#define PROSPECT_UNWIND_CFI_H
#include <stdbool.h>
#include <stdint.h>
#include "unwind/regs.h"

struct dso;
struct uw_cfi;

/* A DWARF operation as libdw hands it over (atom and its operands). */
struct uw_op {
    uint8_t atom;
    uint64_t n1, n2;
};

enum uw_reg_kind {
    UW_UNDEF,       /* the caller's value cannot be recovered */
    UW_SAME,        /* the caller's value is this frame's */
    UW_AT,          /* the ops give the address where the caller's value is saved */
    UW_VAL,         /* the ops give the caller's value */
};

struct uw_expr {
    uint8_t kind;   /* enum uw_reg_kind (the CFA: UW_VAL, or UW_UNDEF when unknown) */
    uint8_t n;      /* ops */
    uint32_t off;   /* first op in the CFI's pool */
};

/* The unwind rule at one PC: how to find the CFA and each caller register. */
struct uw_rule {
    bool found;                 /* CFI covers the PC */
    uint64_t row_start;         /* where the CFI row holding the PC begins */
    bool signal;                /* a signal trampoline: its caller is an interrupted PC */
    uint8_t ra;                 /* the return address column */
    struct uw_expr cfa;
    struct uw_expr reg[DW_NREGS];
};

/* The CFI of dso, opened on first use (NULL when the DSO has no file or no CFI: -ENOENT in
 * errno, -ENOMEM). Owned by the caller; uw_cfi_free. */
struct uw_cfi *uw_cfi_open(struct dso *dso);
void uw_cfi_free(struct uw_cfi *c);

/* The rule at ELF virtual address vaddr (cached; `found` false when no FDE covers it). NULL
 * only on -ENOMEM. The pointer stays valid until uw_cfi_free. */
const struct uw_rule *uw_cfi_rule(struct uw_cfi *c, uint64_t vaddr);
/* The ops of an expression in c's pool. */
const struct uw_op *uw_cfi_ops(const struct uw_cfi *c, const struct uw_expr *e);

/* Reads n bytes of code at an ELF virtual address of the DSO's file (for the call before a
 * return address). 0 or -ENOENT. */
int uw_cfi_code(struct uw_cfi *c, uint64_t vaddr, uint8_t *out, size_t n);
/* Does a function start exactly at vaddr: a symbol's first byte, or (stripped code) a CFI row
 * beginning there in the state of a function's entry (CFA = rsp + 8)? */
bool uw_cfi_is_func_start(struct uw_cfi *c, uint64_t vaddr);
#endif
