/* SPDX-License-Identifier: MIT */
/* Symbols of a cg_store's frames: each distinct (map, address) resolved once (user frames
 * through their DSO, kernel frames through kallsyms), every frame given the index of its
 * symbol. A symbol is one (DSO, name); unresolved addresses of a DSO share one symbol named
 * after the DSO, as "[libfoo.so]". */
#ifndef PROSPECT_CALLGRAPH_RESOLVE_H
#define PROSPECT_CALLGRAPH_RESOLVE_H
#include <stdbool.h>
#include <stdint.h>
#include "callgraph/stacks.h"

struct dso;
struct ksyms;

struct cg_sym {
    const char *name;         /* the symbol, a->b bracket, or NULL (unresolved) */
    struct dso *dso;          /* NULL for kernel frames and frames outside every map */
    const char *module;       /* kernel: the module, NULL for the core kernel */
    bool kernel;
    bool bracket;             /* name is an a->b bracket (a stripped DSO's gap) */
    bool inlined;             /* a function inlined at this frame (callgraph/inline.h) */
    bool marker;              /* a wall-clock view's marker: [off-cpu], [runnable] (DSO "[wall]") */
    bool demangled;           /* name was a demangled C++ name, now made short (shortname.h) */
    uint64_t at;              /* an address inside it (kernel: its start): symbols of one DSO
                                 order as their code does (perf's order of equal chains) */
};

struct cg_syms {
    struct cg_sym *syms;
    size_t nsyms;
    uint32_t *frame_sym;      /* parallel to cg_store.ids */
    char **owned;             /* names this table owns (inlined functions), freed with it */
    size_t nowned;
    char *short_names;        /* the demangled names made short, back to back */
};

/* ks may be NULL (kernel frames then resolve to "[kernel.kallsyms]"). The DSOs are loaded
 * and their frames resolved on one thread per CPU (dso_resolve_all). 0 or -ENOMEM. */
int cg_resolve(const struct cg_store *cs, const struct ksyms *ks, struct cg_syms *out);
/* The same, for a caller that needs no more symbol names of these DSOs afterwards (the
 * call-graph reports): each DSO's unused names are dropped as soon as its frames are
 * resolved, so the string tables of all DSOs are never in memory at once. no_bracket
 * (--no-bracket): each address in a stripped DSO's gap is its own symbol, "0x" and its ELF
 * address, instead of the a->b bracket. */
int cg_resolve_lean(const struct cg_store *cs, const struct ksyms *ks, bool no_bracket,
                    struct cg_syms *out);
void cg_syms_release(struct cg_syms *cy);

/* The name a symbol shows: its own, else "[dso]", "[kernel.kallsyms]" or "[unknown]". */
const char *cg_sym_name(const struct cg_sym *s, char *buf, size_t len);
/* The shared object column: the DSO's short name, "[kernel.kallsyms]", "[module]", "[unknown]". */
const char *cg_sym_dso(const struct cg_sym *s, char *buf, size_t len);
#endif
