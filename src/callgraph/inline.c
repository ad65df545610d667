/* SPDX-License-Identifier: MIT */
/* Inline chains of frames from DWARF (libdw): the concrete function holding the address, then
 * down through the inlined subroutines (and lexical blocks) whose ranges hold it. Each distinct
 * (DSO, address) is looked up once; each DSO's DWARF opened once. */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "callgraph/inline.h"
#include "model/process.h"
#include "symbol/dso.h"
#include "symbol/dwarf_func.h"
#include "util/hash.h"
#include "util/vec.h"

enum { MAX_INLINE = 32 };     /* deeper nesting is cut (hostile DWARF) */

struct dw_file {
    struct dso *dso;
    int fd;
    Dwarf *dw;                /* NULL: no DWARF */
};

/* (dso, vaddr) -> the chain: syms[at .. at + n), innermost first. */
struct chain_slot {
    const struct dso *dso;
    uint64_t vaddr;
    uint32_t at, n;
    bool used;
};

struct ctx {
    VEC(struct dw_file) files;
    struct chain_slot *chains;
    size_t cap_chains, nchains;
    VEC(uint32_t) links;      /* the chains' symbol indices, back to back */
    struct cg_syms *cy;
    size_t cap_syms, cap_owned;
};

static Dwarf *dwarf_of(struct ctx *c, struct dso *d)
{
    struct dw_file f = { d, -1, NULL };
    const char *path;

    for (size_t i = 0; i < c->files.n; i++)
        if (c->files.v[i].dso == d)
            return c->files.v[i].dw;
    if ((path = dso_debug_path(d)) && (f.fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0 &&
        !(f.dw = dwarf_begin(f.fd, DWARF_C_READ))) {
        close(f.fd);
        f.fd = -1;
    }
    if (vec_push(&c->files, f)) {
        dwarf_end(f.dw);
        if (f.fd >= 0)
            close(f.fd);
        return NULL;
    }
    return f.dw;
}

/* The names of the inlined subroutines holding pc, outermost first, into names[]. */
static size_t inline_names(Dwarf *dw, uint64_t pc, const char **names)
{
    Dwarf_Die die, child;
    size_t n = 0;
    bool deeper = true;

    if (dwarf_function_at(dw, pc, &die))
        return 0;
    while (deeper && n < MAX_INLINE) {
        deeper = false;
        if (dwarf_child(&die, &child) != 0)
            break;
        do {
            int tag = dwarf_tag(&child);
            if ((tag == DW_TAG_inlined_subroutine || tag == DW_TAG_lexical_block) &&
                dwarf_haspc(&child, pc) == 1) {
                if (tag == DW_TAG_inlined_subroutine) {
                    Dwarf_Attribute a;
                    const char *name = dwarf_formstring(dwarf_attr_integrate(&child, DW_AT_name,
                                                                             &a));
                    if (name)
                        names[n++] = name;
                }
                die = child;
                deeper = true;
                break;
            }
        } while (dwarf_siblingof(&child, &child) == 0);
    }
    return n;
}

/* The symbol of the function `name` inlined in DSO d, added once. -1 on -ENOMEM. */
static long inline_sym(struct ctx *c, struct dso *d, const char *name)
{
    struct cg_syms *cy = c->cy;
    char *copy;

    /* Few distinct inlined functions appear in stacks: a scan of the added ones is enough. */
    for (size_t i = cy->nsyms; i-- > 0 && cy->syms[i].inlined;)
        if (cy->syms[i].dso == d && !strcmp(cy->syms[i].name, name))
            return (long)i;
    if (cy->nsyms == c->cap_syms) {
        size_t cap = c->cap_syms * 2 + 16;
        struct cg_sym *v = realloc(cy->syms, cap * sizeof(*v));
        if (!v)
            return -1;
        cy->syms = v;
        c->cap_syms = cap;
    }
    if (cy->nowned == c->cap_owned) {
        size_t cap = c->cap_owned * 2 + 16;
        char **v = realloc(cy->owned, cap * sizeof(*v));
        if (!v)
            return -1;
        cy->owned = v;
        c->cap_owned = cap;
    }
    if (!(copy = strdup(name)))
        return -1;
    cy->owned[cy->nowned++] = copy;
    cy->syms[cy->nsyms] = (struct cg_sym){ .name = copy, .dso = d, .inlined = true };
    return (long)cy->nsyms++;
}

static int grow_chains(struct ctx *c)
{
    size_t cap = c->cap_chains ? c->cap_chains * 2 : 1024;
    struct chain_slot *t = calloc(cap, sizeof(*t));

    if (!t)
        return -ENOMEM;
    for (size_t i = 0; i < c->cap_chains; i++) {
        const struct chain_slot *s = &c->chains[i];
        size_t j;
        if (!s->used)
            continue;
        j = hash_u64(s->vaddr ^ (uintptr_t)s->dso) & (cap - 1);
        while (t[j].used)
            j = (j + 1) & (cap - 1);
        t[j] = *s;
    }
    free(c->chains);
    c->chains = t;
    c->cap_chains = cap;
    return 0;
}

/* The inline chain of a user frame (innermost first), looked up once per (DSO, address). */
static int chain_of(struct ctx *c, const struct frame *f, const struct chain_slot **out)
{
    static const struct chain_slot none;
    const struct map *m = f->map;
    struct chain_slot *s;
    const char *names[MAX_INLINE];
    uint64_t vaddr;
    size_t j, n;
    Dwarf *dw;

    *out = &none;
    if (!m || m == &kernel_map || dso_kind(m->dso) != DSO_FILE ||
        dso_map_to_vaddr(m->dso, m->start, m->pgoff, f->addr, &vaddr))
        return 0;
    if ((c->nchains + 1) * 2 > c->cap_chains && grow_chains(c))
        return -ENOMEM;
    for (j = hash_u64(vaddr ^ (uintptr_t)m->dso) & (c->cap_chains - 1); c->chains[j].used;
         j = (j + 1) & (c->cap_chains - 1))
        if (c->chains[j].vaddr == vaddr && c->chains[j].dso == m->dso) {
            *out = &c->chains[j];
            return 0;
        }
    s = &c->chains[j];
    *s = (struct chain_slot){ .dso = m->dso, .vaddr = vaddr, .at = (uint32_t)c->links.n,
                              .used = true };
    c->nchains++;
    dw = dwarf_of(c, m->dso);
    n = dw ? inline_names(dw, vaddr, names) : 0;
    for (size_t k = n; k-- > 0;) {            /* innermost first */
        long sym = inline_sym(c, m->dso, names[k]);
        if (sym < 0 || vec_push(&c->links, (uint32_t)sym))
            return -ENOMEM;
        s->n++;
    }
    *out = s;
    return 0;
}

static void ctx_release(struct ctx *c)
{
    for (size_t i = 0; i < c->files.n; i++) {
        dwarf_end(c->files.v[i].dw);
        if (c->files.v[i].fd >= 0)
            close(c->files.v[i].fd);
    }
    vec_free(&c->files);
    vec_free(&c->links);
    free(c->chains);
}

int cg_expand_inline(const struct cg_store *in, const struct cg_syms *cy, struct cg_store *out,
                     struct cg_syms *cy_out)
{
    struct ctx c = { .cy = cy_out };
    VEC(struct frame) fr = { 0 };
    VEC(uint32_t) fs = { 0 };
    size_t cap_fsym = 0;
    int err = 0;

    cg_store_init(out);
    memset(cy_out, 0, sizeof(*cy_out));
    if (!(cy_out->syms = malloc((cy->nsyms + 16) * sizeof(*cy_out->syms))))
        return -ENOMEM;
    if (cy->nsyms)                /* no samples: no symbols, cy->syms may be NULL */
        memcpy(cy_out->syms, cy->syms, cy->nsyms * sizeof(*cy->syms));
    cy_out->nsyms = cy->nsyms;
    c.cap_syms = cy->nsyms + 16;
    for (size_t i = 0; i < in->nstacks && !err; i++) {
        const struct cg_stack *st = &in->stacks[i];
        size_t before = out->nframes;

        fr.n = fs.n = 0;
        for (uint32_t k = 0; k < st->n && !err; k++) {
            const struct chain_slot *ch;
            const struct frame *fk = cg_frame_at(in, st->off + k);
            if ((err = chain_of(&c, fk, &ch)))
                break;
            for (uint32_t q = 0; q < ch->n && !err; q++)
                err = vec_push(&fr, *fk) || vec_push(&fs, c.links.v[ch->at + q]) ? -ENOMEM : 0;
            if (!err)
                err = vec_push(&fr, *fk) || vec_push(&fs, cy->frame_sym[st->off + k]) ?
                      -ENOMEM : 0;
        }
        out->tid = st->tid;   /* a per-thread store's stacks stay per thread */
        if (err || fr.n > UINT32_MAX ||
            (err = cg_store_add_frames(out, st->proc, fr.v, (uint32_t)fr.n, 0)))
            break;
        out->stacks[out->last].samples += st->samples - 1;
        out->stacks[out->last].period += st->period;
        out->samples += st->samples - 1;
        out->period += st->period;
        if (out->nframes == before)
            continue;                 /* an expansion seen before: its symbols are set */
        if (out->nframes > cap_fsym) {
            size_t cap = cap_fsym ? cap_fsym : 1024;
            uint32_t *v;
            while (cap < out->nframes)
                cap *= 2;
            if (!(v = realloc(cy_out->frame_sym, cap * sizeof(*v)))) {
                err = -ENOMEM;
                break;
            }
            cy_out->frame_sym = v;
            cap_fsym = cap;
        }
        memcpy(cy_out->frame_sym + before, fs.v, fs.n * sizeof(*fs.v));
    }
    vec_free(&fr);
    vec_free(&fs);
    ctx_release(&c);
    if (!err && !cy_out->frame_sym && !(cy_out->frame_sym = malloc(sizeof(uint32_t))))
        err = -ENOMEM;
    if (err) {
        cg_store_release(out);
        cg_syms_release(cy_out);
    }
    return err;
}
