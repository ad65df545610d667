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
#include "symbol/elf_fde.h"
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
    uint32_t copy, end;           /* the copy's code offsets (orig: 0 and the length) */
    size_t ins, len;              /* its CFA instructions in ins */
    uint64_t orig;                /* not 0: the FDE covers the original function from here */
    long lsda;                    /* -1, or its LSDA's offset in lsdas */
    uint64_t pers;                /* with an LSDA: the personality routine, as elf_fde's */
    uint8_t pers_ind;
};
/* A 4-byte pcrel value at `at` in lsdas, to the program's address `target`, or (copy) to the
 * copies' code offset `target`. */
struct inproc_lrel {
    uint32_t at;
    bool copy;
    uint64_t target;
};
struct inproc_cfi {
    int fd;
    Elf *elf;
    struct Dwarf_CFI_s *cfi;      /* NULL: no .eh_frame */
    VEC(uint8_t) ins;
    VEC(struct inproc_fde) fdes;
    VEC(struct elf_fde) lsda;         /* functions with exception tables (has_lsda), sorted */
    VEC(uint8_t) lsdas;               /* the copies' LSDAs (inproc_lsda.c) */
    VEC(struct inproc_lrel) lrels;    /* their pointers */
};
struct inproc_cfi_mark {
    size_t ins, fdes, lsdas, lrels;
};
/* 0 (cfi NULL when the program has none) or -errno; inproc_cfi_close in any case. */
int inproc_cfi_open(struct inproc_cfi *c, const char *exe);
void inproc_cfi_close(struct inproc_cfi *c);
/* The FDE of the copy whose instructions are rc->places from `first` on, ending at code
 * offset copy_end: each gets its original's rules. 0, -ENOENT (no CFI there), -ENOTSUP (a
 * rule other than a register saved at CFA + N: an expression), -ENOMEM. */
int inproc_cfi_add(struct inproc_cfi *c, const struct reloc_code *rc, size_t first,
                   uint32_t copy_end);
/* An FDE over the original function [lo, hi) (its instructions rc->places from `first` on),
 * with the original's rules at each. 0, -ENOENT, -ENOTSUP, -ENOMEM as inproc_cfi_add. */
int inproc_cfi_add_orig(struct inproc_cfi *c, const struct reloc_code *rc, size_t first,
                        uint64_t lo, uint64_t hi);
struct inproc_cfi_mark inproc_cfi_mark(const struct inproc_cfi *c);
void inproc_cfi_truncate(struct inproc_cfi *c, struct inproc_cfi_mark m);
/* Appends the LSDAs, then the .eh_frame of every FDE added (a CIE, the FDEs, each with an
 * LSDA after a CIE naming its personality, a zero terminator) to rc's code, 8-aligned; *at =
 * the .eh_frame's offset there, 0 when there is none. 0 or -ENOMEM. */
int inproc_cfi_table(const struct inproc_cfi *c, struct reloc_code *rc, uint32_t *at);
/* Reads which functions have exception tables (inproc_eh.c). 0 or -ENOMEM. */
int inproc_eh_read(struct inproc_cfi *c);
/* The FDE with an LSDA (landing pads) covering part of [lo, hi), or NULL. */
const struct elf_fde *inproc_eh_find(const struct inproc_cfi *c, uint64_t lo, uint64_t hi);
/* For the copy just given its FDE (the last added; its instructions are rc->places from
 * `first` on, ending at code offset copy_end) of the function whose exception table eh names
 * (inproc_lsda.c): LSDAs whose landing pads are the copy's, one for the copy's FDE, one for an
 * FDE added over the original (where the copy's calls return: the unwinder finds registered
 * FDEs first), each the original's call sites, actions and types. 0, -ENOTSUP (a table or a
 * rule not carried over: *why says which), -ENOMEM; on failure c is as before. */
int inproc_lsda_add(struct inproc_cfi *c, const struct elf_fde *eh,
                    const struct reloc_code *rc, size_t first, uint32_t copy_end,
                    const char **why);
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
