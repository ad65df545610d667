/* SPDX-License-Identifier: MIT */
/* Frames -> symbols: each distinct frame of the store once, each (file, offset) resolved once. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "callgraph/resolve.h"
#include "model/process.h"
#include "symbol/dso.h"
#include "symbol/ksyms.h"
#include "symbol/shortname.h"
#include "util/hash.h"

/* Open-addressing table from a 2-word key to a symbol index. */
struct slot {
    uint64_t a, b;
    uint32_t val;             /* index + 1, 0 empty */
};

struct table {
    struct slot *s;
    size_t cap, n;
};

static uint64_t key_hash(uint64_t a, uint64_t b)
{
    return hash_u64(a ^ hash_u64(b));
}

static int table_grow(struct table *t)
{
    size_t cap = t->cap ? t->cap * 2 : 1024;
    struct slot *s = calloc(cap, sizeof(*s));

    if (!s)
        return -ENOMEM;
    for (size_t i = 0; i < t->cap; i++) {
        if (!t->s[i].val)
            continue;
        size_t j = key_hash(t->s[i].a, t->s[i].b) & (cap - 1);
        while (s[j].val)
            j = (j + 1) & (cap - 1);
        s[j] = t->s[i];
    }
    free(t->s);
    t->s = s;
    t->cap = cap;
    return 0;
}

/* The slot of (a, b): found (val != 0) or the empty one to fill. NULL: -ENOMEM. */
static struct slot *table_slot(struct table *t, uint64_t a, uint64_t b)
{
    size_t j;

    if ((t->n + 1) * 2 > t->cap && table_grow(t))
        return NULL;
    for (j = key_hash(a, b) & (t->cap - 1); t->s[j].val; j = (j + 1) & (t->cap - 1))
        if (t->s[j].a == a && t->s[j].b == b)
            break;
    return &t->s[j];
}

/* Distinct frame keys -> key index, 16 bytes a slot: the key's second half (a DSO or map
 * pointer, a few hundred distinct ones) numbered. Comparing against the first frame's key
 * instead took a second random memory access per frame. */
struct fslot {
    uint64_t a;               /* the key's offset or address */
    uint32_t base;            /* and its DSO or map, numbered (struct bases) */
    uint32_t val;             /* key index + 1, 0 empty */
};

struct ftable {
    struct fslot *s;
    size_t cap, n;
};

/* What a frame's symbol depends on: for a file (or the vDSO) the DSO and the offset in it, so
 * one library's frames in every process are resolved once; else the map and the address
 * (JIT maps name absolute addresses, kernel frames resolve through kallsyms). */
static void frame_key(const struct frame *f, uint64_t *a, uint64_t *b)
{
    const struct map *m = f->map;

    if (m && m != &kernel_map &&
        (dso_kind(m->dso) == DSO_FILE || dso_kind(m->dso) == DSO_VDSO)) {
        *a = f->addr - m->start + m->pgoff;
        *b = (uint64_t)(uintptr_t)m->dso | 1;     /* never a map's (aligned) address */
        return;
    }
    *a = f->addr;
    *b = (uint64_t)(uintptr_t)m;
}

/* The table's slots come from mmap, not malloc: freeing a block of several MB through malloc
 * raises its mmap threshold to that size, and the report's later large arrays then come from
 * the heap, where what is freed stays resident (measured: 6 MB more peak RSS on big48.data). */
static struct fslot *slots_new(size_t cap)
{
    void *p = mmap(NULL, cap * sizeof(struct fslot), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

static void slots_free(struct fslot *s, size_t cap)
{
    if (s)
        munmap(s, cap * sizeof(*s));
}

static int ftable_grow(struct ftable *t)
{
    size_t cap = t->cap ? t->cap * 2 : 1024;
    struct fslot *s = slots_new(cap);

    if (!s)
        return -ENOMEM;
    for (size_t i = 0; i < t->cap; i++) {
        size_t j;
        if (!t->s[i].val)
            continue;
        for (j = key_hash(t->s[i].a, t->s[i].base) & (cap - 1); s[j].val; j = (j + 1) & (cap - 1))
            ;
        s[j] = t->s[i];
    }
    slots_free(t->s, t->cap);
    t->s = s;
    t->cap = cap;
    return 0;
}

/* The slot of key (a, base): found (val != 0) or the empty one to fill (its key set).
 * NULL: -ENOMEM. */
static struct fslot *ftable_slot(struct ftable *t, uint64_t a, uint32_t base)
{
    size_t j;

    if ((t->n + 1) * 2 > t->cap && ftable_grow(t))
        return NULL;
    for (j = key_hash(a, base) & (t->cap - 1); t->s[j].val; j = (j + 1) & (t->cap - 1))
        if (t->s[j].a == a && t->s[j].base == base)
            break;
    t->s[j].a = a;
    t->s[j].base = base;
    return &t->s[j];
}

/* The number of each frame key's second half, with the last map's answer kept: a stack runs
 * through a few maps. */
struct bases {
    struct table t;           /* b -> number + 1 */
    const struct map *map;
    bool by_offset;
    uint32_t base;
};

/* Frame f's key as (a, base). 0 or -ENOMEM. */
static int frame_key_numbered(struct bases *bs, const struct frame *f, uint64_t *a,
                              uint32_t *base)
{
    const struct map *m = f->map;

    if (m != bs->map || !bs->base) {
        uint64_t ka, kb;
        struct slot *sl;
        frame_key(f, &ka, &kb);
        if (!(sl = table_slot(&bs->t, kb, 0)))
            return -ENOMEM;
        if (!sl->val) {
            sl->a = kb;
            sl->val = (uint32_t)++bs->t.n;
        }
        bs->map = m;
        bs->by_offset = kb & 1;   /* frame_key marks a DSO so */
        bs->base = sl->val;
    }
    *a = bs->by_offset ? f->addr - m->start + m->pgoff : f->addr;
    *base = bs->base;
    return 0;
}

struct ctx {
    struct cg_syms *out;
    size_t cap_syms, cap_owned;
    struct table syms;
    const struct ksyms *ks;
    bool no_bracket;          /* a bracket's frames are named by their own addresses */
};

static int sym_index(struct ctx *c, const struct cg_sym *sym, uint32_t *idx)
{
    uint64_t a = (uint64_t)(uintptr_t)sym->dso ^ (sym->kernel ? 1 : 0);
    uint64_t b = (uint64_t)(uintptr_t)(sym->name ? sym->name : sym->module);
    struct slot *sl = table_slot(&c->syms, a, b);

    if (!sl)
        return -ENOMEM;
    if (!sl->val) {
        struct cg_syms *o = c->out;
        if (o->nsyms == c->cap_syms) {
            size_t cap = c->cap_syms ? c->cap_syms * 2 : 256;
            struct cg_sym *v = realloc(o->syms, cap * sizeof(*v));
            if (!v)
                return -ENOMEM;
            o->syms = v;
            c->cap_syms = cap;
        }
        o->syms[o->nsyms++] = *sym;
        sl->a = a;
        sl->b = b;
        sl->val = (uint32_t)o->nsyms;
        c->syms.n++;
    }
    *idx = sl->val - 1;
    return 0;
}

/* A kernel frame's symbol, or a frame outside every map. */
static void resolve_other(const struct ctx *c, const struct frame *f, struct cg_sym *sym)
{
    memset(sym, 0, sizeof(*sym));
    if (!f->map && (f->addr == FRAME_MARK_OFFCPU || f->addr == FRAME_MARK_RUNNABLE)) {
        sym->name = f->addr == FRAME_MARK_OFFCPU ? "[off-cpu]" : "[runnable]";
        sym->marker = true;
        return;
    }
    if (f->map == &kernel_map) {
        struct ksym_res r = {0};
        sym->kernel = true;
        if (c->ks && ksyms_resolve(c->ks, f->addr, &r) == 0) {
            sym->name = r.name;
            sym->module = r.module;
            sym->at = r.start;
        }
    }
}

/* --no-bracket: a frame in a stripped DSO's gap is its own symbol, named by its ELF address
 * as perf's Self rows name it ("0x%016lx"; the flat table's form too). */
static int raw_address_name(struct ctx *c, const struct frame *f, struct cg_sym *sym)
{
    struct cg_syms *cy = c->out;
    uint64_t vaddr;
    char *name;

    if (dso_map_to_vaddr(f->map->dso, f->map->start, f->map->pgoff, f->addr, &vaddr))
        vaddr = f->addr - f->map->start + f->map->pgoff;
    if (cy->nowned == c->cap_owned) {
        size_t cap = c->cap_owned * 2 + 16;
        char **v = realloc(cy->owned, cap * sizeof(*v));
        if (!v)
            return -ENOMEM;
        cy->owned = v;
        c->cap_owned = cap;
    }
    if (!(name = malloc(19)))
        return -ENOMEM;
    snprintf(name, 19, "0x%016" PRIx64, vaddr);
    cy->owned[cy->nowned++] = name;
    sym->name = name;
    sym->bracket = sym->demangled = false;
    sym->at = vaddr;
    return 0;
}

/* The address a user frame is looked up by in its DSO: the file offset for files and the
 * vDSO (what dso_map_to_vaddr computes from the map), the address itself for JIT maps. */
static uint64_t lookup_addr(const struct frame *f)
{
    enum dso_kind k = dso_kind(f->map->dso);

    if (k == DSO_FILE || k == DSO_VDSO)
        return f->addr - f->map->start + f->map->pgoff;
    return f->addr;
}

/* The distinct frame keys and, for those in a DSO, the lookups grouped by DSO (in the order
 * the DSOs first appear, as one walk would load them). */
struct keys {
    uint32_t *first;          /* key -> its first frame */
    uint32_t *pos;            /* key -> its lookup, UINT32_MAX for kernel and unmapped frames */
    size_t n;
    struct dso_job *jobs;
    size_t njobs;
    struct dso_lookup *lookups;
};

static void keys_release(struct keys *k)
{
    free(k->first);
    free(k->pos);
    free(k->jobs);
    free(k->lookups);
}

/* Pass 1: uniq_key[u] = the key of the store's distinct frame u (cg_store.uniq); the keys'
 * lookups, grouped by DSO. The distinct frames are in the order their first stack added
 * them, so keys are numbered as a walk over every frame would number them. */
static int collect_keys(const struct cg_store *cs, uint32_t *uniq_key, struct keys *k)
{
    struct ftable ft = { 0 };
    struct bases bs = { 0 };
    struct table jobs = { 0 };   /* dso -> job index + 1 */
    size_t cap = 0, njobs = 0, capjobs = 0, *count = NULL;
    int err = 0;

    for (size_t i = 0; i < cs->nuniq && !err; i++) {
        const struct frame *f = &cs->uniq[i];
        uint64_t ka;
        uint32_t base;
        struct fslot *sl;

        if ((err = frame_key_numbered(&bs, f, &ka, &base)))
            break;
        if (!(sl = ftable_slot(&ft, ka, base))) {
            err = -ENOMEM;
            break;
        }
        if (sl->val) {
            uniq_key[i] = sl->val - 1;
            continue;
        }
        if (k->n == cap) {
            size_t nc = cap ? cap * 2 : 1024;
            uint32_t *a = realloc(k->first, nc * sizeof(*a)), *b;
            if (a)
                k->first = a;
            b = a ? realloc(k->pos, nc * sizeof(*b)) : NULL;
            if (!b) {
                err = -ENOMEM;
                break;
            }
            k->pos = b;
            cap = nc;
        }
        k->first[k->n] = (uint32_t)i;
        k->pos[k->n] = UINT32_MAX;
        if (f->map && f->map != &kernel_map) {
            struct slot *js = table_slot(&jobs, (uint64_t)(uintptr_t)f->map->dso, 0);
            if (!js) {
                err = -ENOMEM;
                break;
            }
            if (!js->val) {
                if (njobs == capjobs) {
                    size_t nc = capjobs ? capjobs * 2 : 64;
                    struct dso_job *v = realloc(k->jobs, nc * sizeof(*v));
                    size_t *c2 = v ? realloc(count, nc * sizeof(*c2)) : NULL;
                    if (v)
                        k->jobs = v;
                    if (!c2) {
                        err = -ENOMEM;
                        break;
                    }
                    count = c2;
                    capjobs = nc;
                }
                k->jobs[njobs] = (struct dso_job){ .dso = f->map->dso };
                count[njobs] = 0;
                js->a = (uint64_t)(uintptr_t)f->map->dso;
                js->val = (uint32_t)++njobs;
                jobs.n++;
            }
            k->pos[k->n] = js->val - 1;   /* the job for now; its lookup below */
            count[js->val - 1]++;
        }
        sl->val = (uint32_t)k->n + 1;
        ft.n++;
        uniq_key[i] = (uint32_t)k->n++;
    }
    slots_free(ft.s, ft.cap);
    free(bs.t.s);
    free(jobs.s);
    k->njobs = njobs;
    if (!err && !(k->lookups = malloc((k->n ? k->n : 1) * sizeof(*k->lookups))))
        err = -ENOMEM;
    if (!err) {
        /* Each job's lookups in one run, keys in order within it. */
        size_t at = 0;
        for (size_t j = 0; j < njobs; j++) {
            k->jobs[j].v = k->lookups + at;
            at += count[j];
        }
        for (size_t key = 0; key < k->n; key++) {
            struct dso_job *jb;
            if (k->pos[key] == UINT32_MAX)
                continue;
            jb = &k->jobs[k->pos[key]];
            k->pos[key] = (uint32_t)(jb->v + jb->n - k->lookups);
            jb->v[jb->n++].addr = lookup_addr(&cs->uniq[k->first[key]]);
        }
    }
    free(count);
    return err;
}

/* Every output shows a demangled name as perf does: the symbols' names made short, in one
 * buffer (the names they replace belong to the symbol tables). */
static int shorten_names(struct cg_syms *cy)
{
    size_t total = 0, pos = 0;

    for (size_t i = 0; i < cy->nsyms; i++)
        if (cy->syms[i].demangled && cy->syms[i].name)
            total += strlen(cy->syms[i].name) + 1;
    if (!total)
        return 0;
    if (!(cy->short_names = malloc(total)))
        return -ENOMEM;
    for (size_t i = 0; i < cy->nsyms; i++) {
        struct cg_sym *s = &cy->syms[i];
        if (!s->demangled || !s->name)
            continue;
        symbol_short_name(s->name, s->bracket, cy->short_names + pos);
        s->name = cy->short_names + pos;
        pos += strlen(s->name) + 1;
    }
    return 0;
}

static int resolve(const struct cg_store *cs, const struct ksyms *ks, struct cg_syms *out,
                   bool drop_names, bool no_bracket)
{
    struct ctx c = { .out = out, .ks = ks, .no_bracket = no_bracket };
    struct keys k = { 0 };
    uint32_t *key_sym = NULL, *uniq_key;
    int err = 0;

    memset(out, 0, sizeof(*out));
    if (cs->nframes >= UINT32_MAX)
        return -ENOMEM;
    if (!(uniq_key = malloc((cs->nuniq ? cs->nuniq : 1) * sizeof(*uniq_key))))
        return -ENOMEM;
    /* Pass 1: distinct keys. Then every DSO's lookups at once, each DSO loaded, resolved
     * and (drop_names) rid of its unused names by one thread. */
    err = collect_keys(cs, uniq_key, &k);
    if (!err)
        err = dso_resolve_all(k.jobs, k.njobs, drop_names);
    if (!err && !(key_sym = malloc((k.n ? k.n : 1) * sizeof(*key_sym))))
        err = -ENOMEM;
    /* Pass 2: symbols numbered in the order their keys first appear. */
    for (size_t key = 0; !err && key < k.n; key++) {
        const struct frame *f = &cs->uniq[k.first[key]];
        struct cg_sym sym;

        if (k.pos[key] == UINT32_MAX) {
            resolve_other(&c, f, &sym);
        } else {
            const struct dso_lookup *l = &k.lookups[k.pos[key]];
            memset(&sym, 0, sizeof(sym));
            sym.dso = f->map->dso;
            sym.name = l->name;
            sym.bracket = l->bracket;
            sym.demangled = l->demangled;
            sym.at = l->addr;
            if (sym.bracket && c.no_bracket)
                err = raw_address_name(&c, f, &sym);
        }
        if (!err)
            err = sym_index(&c, &sym, &key_sym[key]);
    }
    if (!err)
        err = shorten_names(out);
    /* Made last: the tables above are gone by then (the report's peak). */
    if (!err && !(out->frame_sym = malloc((cs->nframes ? cs->nframes : 1) *
                                          sizeof(*out->frame_sym))))
        err = -ENOMEM;
    for (size_t i = 0; !err && i < cs->nframes; i++)
        out->frame_sym[i] = key_sym[uniq_key[cs->ids[i]]];
    free(uniq_key);
    free(key_sym);
    keys_release(&k);
    free(c.syms.s);
    if (err)
        cg_syms_release(out);
    return err;
}

int cg_resolve(const struct cg_store *cs, const struct ksyms *ks, struct cg_syms *out)
{
    return resolve(cs, ks, out, false, false);
}

int cg_resolve_lean(const struct cg_store *cs, const struct ksyms *ks, bool no_bracket,
                    struct cg_syms *out)
{
    return resolve(cs, ks, out, true, no_bracket);
}

void cg_syms_release(struct cg_syms *cy)
{
    for (size_t i = 0; i < cy->nowned; i++)
        free(cy->owned[i]);
    free(cy->owned);
    free(cy->short_names);
    free(cy->syms);
    free(cy->frame_sym);
    memset(cy, 0, sizeof(*cy));
}

const char *cg_sym_dso(const struct cg_sym *s, char *buf, size_t len)
{
    if (s->marker)
        return "[wall]";
    if (s->kernel) {
        if (!s->module)
            return "[kernel.kallsyms]";
        snprintf(buf, len, "[%s]", s->module);
        return buf;
    }
    return s->dso ? dso_short_name(s->dso) : "[unknown]";
}

const char *cg_sym_name(const struct cg_sym *s, char *buf, size_t len)
{
    if (s->name)
        return s->name;
    if (s->kernel && !s->module)
        return "[kernel.kallsyms]";
    if (s->kernel || s->dso) {
        snprintf(buf, len, "[%s]", s->kernel ? s->module : dso_short_name(s->dso));
        return buf;
    }
    return "[unknown]";
}
