/* SPDX-License-Identifier: MIT */
/* Internal to the in-process engine (src/lines/inproc*.c). */
#ifndef PROSPECT_LINES_INPROC_PRIV_H
#define PROSPECT_LINES_INPROC_PRIV_H
#include <stdbool.h>
#include <stdint.h>
#include <libelf.h>
#include <sys/stat.h>
#include "intarget/lines_abi.h"
#include "lines/lines.h"
#include "probe/reloc_func.h"
#include "symbol/elf_program.h"
#include "util/vec.h"

struct inproc_pid;

/* The program's executable segments as in its file. */
struct inproc_code {
    struct elf_program prog;
    uint8_t **bytes;              /* per prog.code segment */
};

int inproc_read_code(struct inproc_code *c, const char *exe);
void inproc_code_release(struct inproc_code *c);
/* The file's bytes at [vaddr, vaddr + n), or NULL when they are not all in one segment. */
const uint8_t *inproc_code_at(const struct inproc_code *c, uint64_t vaddr, uint64_t n);
/* Sets entered[f] for each function of p that code outside it branches into, or takes the
 * address of, elsewhere than at its entry (a .cold part's jump back, a label's address).
 * 0 or -errno. */
int inproc_entered(const struct lines_plan *p, const struct inproc_code *c, bool *entered);

/* The unwind rules of the copies (inproc_cfi.c), from the program's .eh_frame. */
struct inproc_fde {
    uint32_t copy, end;           /* the copy's code offsets */
    size_t ins, len;              /* its CFA instructions in ins */
};
struct inproc_range {
    uint64_t lo, hi;
};
struct inproc_cfi {
    int fd;
    Elf *elf;
    struct Dwarf_CFI_s *cfi;      /* NULL: no .eh_frame */
    VEC(uint8_t) ins;
    VEC(struct inproc_fde) fdes;
    VEC(struct inproc_range) lsda;    /* functions with exception tables, sorted */
};
/* 0 (cfi NULL when the program has none) or -errno; inproc_cfi_close in any case. */
int inproc_cfi_open(struct inproc_cfi *c, const char *exe);
void inproc_cfi_close(struct inproc_cfi *c);
/* The FDE of the copy whose instructions are rc->places from `first` on, ending at code
 * offset copy_end: each gets its original's rules. 0, -ENOENT (no CFI there), -ENOTSUP (a
 * rule other than a register saved at CFA + N: an expression), -ENOMEM. */
int inproc_cfi_add(struct inproc_cfi *c, const struct reloc_code *rc, size_t first,
                   uint32_t copy_end);
/* Appends the .eh_frame of every FDE added (a CIE, the FDEs, a zero terminator) to rc's
 * code, 8-aligned; *at = its offset there, 0 when there is none. 0 or -ENOMEM. */
int inproc_cfi_table(const struct inproc_cfi *c, struct reloc_code *rc, uint32_t *at);
/* Reads which functions have exception tables (inproc_eh.c). 0 or -ENOMEM. */
int inproc_eh_read(struct inproc_cfi *c);
/* Does an FDE with an LSDA (landing pads: the unwinder would resume in the original's code)
 * cover part of [lo, hi)? */
bool inproc_eh_has_lsda(const struct inproc_cfi *c, uint64_t lo, uint64_t hi);
/* The function the program imports that starts a thread the hook's wrappers do not see
 * (clone, POSIX AIO, ...: inproc_threads.c), or NULL. */
const char *inproc_hidden_threads(Elf *elf);

/* The engine's state (inproc.c; -p's part in inproc_pid.c). */
struct lines_inproc {
    char dir[256];
    bool *counts;                 /* per probe */
    size_t nprobes;
    struct reloc_code rc;
    VEC(struct lines_abi_func) funcs;
    void (*note)(void *, const char *);   /* -v notes, may be NULL */
    void *note_arg;
    char *env[3];
    struct stat exe_st;
    struct inproc_cfi cfi;        /* the copies' unwind rules */
    uint32_t eh_frame;            /* their .eh_frame in rc.code, 0: none */
    size_t nrelocated, nsites;    /* functions relocated; return sites among funcs */
    bool need_unwind;             /* a C++ copy with calls: no patch without its unwind table */
    bool lock_always;             /* threads the hook does not see: `lock incq` throughout */
    VEC(uint32_t) owner;          /* per funcs entry: its function in the plan */
    bool running;                 /* for -p: no hook; inproc_pid.c puts the copies in */
    struct code_seg code_seg;     /* the program's first code segment (-p: its bias) */
    struct inproc_pid *pid;       /* -p: the process held and its copies, else NULL */
};
/* -p's part: releases what lines_inproc_attach left (inproc_pid.c). */
void inproc_pid_free(struct lines_inproc *ip);
#endif
