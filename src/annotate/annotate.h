/* SPDX-License-Identifier: MIT */
/* `prospect annotate`: a profile's hits per instruction of the functions that got them.
 * ann_collect gathers the session's user-space hits per (DSO, function) at ELF virtual
 * addresses; ann_listing_build disassembles one function and puts its hits and source
 * positions on the instructions. Rendering is in annotate/render.c. */
#ifndef PROSPECT_ANNOTATE_ANNOTATE_H
#define PROSPECT_ANNOTATE_ANNOTATE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "annotate/cfi_range.h"
#include "annotate/disasm.h"
#include "annotate/srcline.h"
#include "util/hashmap.h"
#include "util/vec.h"

struct session;
struct dso;
struct ksyms;

struct ann_hit {
    uint64_t addr;              /* ELF virtual address */
    uint64_t samples, period;
};

struct ann_func {
    struct dso *dso;            /* NULL for kernel code */
    const char *module;         /* kernel code: its module, NULL for the core kernel */
    bool kernel;
    bool bracket;               /* a stripped file's gap between two symbols (name "lo->hi"),
                                   disassembled from the gap's start, padding included; or
                                   code of a file without symbols, over its CFI range */
    const char *name;           /* owned by the DSO (or the kernel symbols) */
    const char *report_name;    /* the report's name for this code when another ("(start)->a",
                                   "a->(end)": such a bracket is listed by its CFI range), or
                                   NULL; a SYMBOL asked for matches it too */
    uint64_t start, size;       /* ELF virtual addresses; size 0 if unknown */
    uint64_t samples, period;
    VEC(struct ann_hit) hits;   /* ascending addresses once collected */
};

struct ann_set {
    VEC(struct ann_func *) funcs;  /* hottest (period) first, ties by name */
    struct hashmap index;          /* (dso, start) hash -> func, for collecting */
    uint64_t samples, period;      /* every sample of the session (user, kernel, other) */
    uint64_t unannotated;          /* samples of kernel code, unmapped or unnamed addresses */
    uint64_t unnamed;              /* of those: in a mapped file without a name for them */
    struct dso *unnamed_dso;       /* the first such file (its dso_status says why) */
    struct ann_src_cache dwarf;    /* each file's DWARF, opened once */
    struct ann_cfi_cache cfi;      /* each symbol-less file's unwind tables, opened once */
    VEC(char *) names;             /* names made here ("gzip:0x4300-0x4a12") */
    const struct ksyms *ks;        /* kernel symbols (for kernel functions), or NULL */
    const char *vmlinux;           /* kernel code from this image (else /proc/kcore), or NULL */
};

/* Collects the session's hits that resolve to a named function: user code (a stripped
 * file's a->b brackets too) and, with ks, kernel code. 0 or -ENOMEM. */
int ann_collect(struct session *s, const struct ksyms *ks, struct ann_set *set);
void ann_set_release(struct ann_set *set);

struct ann_line {
    struct ann_insn insn;
    uint64_t samples, period;
    const char *file;           /* source position (NULL, 0 without DWARF) */
    unsigned line;
    const char *inlined;        /* function inlined here, or NULL */
    bool jump_target;           /* a jump inside the function lands here */
};

struct ann_listing {
    const struct ann_func *func;
    const struct ann_set *set;
    struct ann_line *lines;
    size_t n;
    uint64_t off_insn_samples;  /* hits that fell on no instruction start (bad decode) */
    bool has_source;            /* DWARF line information was found */
    const char *code_path;      /* the file the bytes were read from */
    struct ann_src *src;        /* the file names' owner (the set's DWARF cache), or NULL */
};

/* Disassembles f from its DSO's file and attaches hits and source lines. 0, or -errno with a
 * one-line reason in err: -ENOENT (file not readable, kernel or JIT code without bytes),
 * -ESTALE (the file on disk is not the one profiled), -EFBIG (function over 1 MiB), -ENOMEM,
 * -ENOEXEC (the code could not be disassembled: no instructions, but the source lines of the
 * hits are there for the per-line view). */
int ann_listing_build(struct ann_set *set, const struct ann_func *f, enum ann_syntax syntax,
                      struct ann_listing *out, char *err, size_t errlen);
void ann_listing_release(struct ann_listing *l);
/* The listing's line of the instruction starting at addr (lines are in address order), or NULL. */
struct ann_line *ann_line_at(const struct ann_listing *l, uint64_t addr);

/* Where f's code is, for display: its DSO's path, "[kernel.kallsyms]" or "[MODULE]". */
const char *ann_func_dso(const struct ann_func *f);

/* The function of f's DSO that contains vaddr, as "name" or "name+0x1a" (for branch targets
 * leaving the function); false if none. */
bool ann_name_addr(const struct ann_set *set, const struct ann_func *f, uint64_t vaddr,
                   char *buf, size_t len);
#endif
