/* Frames -> symbols, each distinct (map, address) once. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "callgraph/resolve.h"
#include "session/session.h"
#include "symbol/dso.h"
#include "symbol/ksyms.h"
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

/* Distinct frame keys -> symbol index, by the first frame with each key: 8 bytes a slot
 * rather than the key itself (a large profile has ~100k distinct frames). */
struct fslot {
    uint32_t frame;           /* index + 1 of the frame that brought the key, 0 empty */
    uint32_t val;             /* symbol index + 1 */
};

struct ftable {
    struct fslot *s;
    size_t cap, n;
};

/* What a frame's symbol depends on: for a file (or the vDSO) the DSO and the offset in it, so
 * one library's frames in every process are resolved once; else the map and the address
 * (JIT maps name absolute addresses, kernel frames resolve through kallsyms). */
static void frame_key(const struct cg_frame *f, uint64_t *a, uint64_t *b)
{
    const struct map *m = f->map;

    if (m && m != &cg_kernel_map &&
        (dso_kind(m->dso) == DSO_FILE || dso_kind(m->dso) == DSO_VDSO)) {
        *a = f->addr - m->start + m->pgoff;
        *b = (uint64_t)(uintptr_t)m->dso | 1;     /* never a map's (aligned) address */
        return;
    }
    *a = f->addr;
    *b = (uint64_t)(uintptr_t)m;
}

static int ftable_grow(struct ftable *t, const struct cg_frame *frames)
{
    size_t cap = t->cap ? t->cap * 2 : 1024;
    struct fslot *s = calloc(cap, sizeof(*s));

    if (!s)
        return -ENOMEM;
    for (size_t i = 0; i < t->cap; i++) {
        uint64_t a, b;
        size_t j;
        if (!t->s[i].frame)
            continue;
        frame_key(&frames[t->s[i].frame - 1], &a, &b);
        for (j = key_hash(a, b) & (cap - 1); s[j].frame; j = (j + 1) & (cap - 1))
            ;
        s[j] = t->s[i];
    }
    free(t->s);
    t->s = s;
    t->cap = cap;
    return 0;
}

/* The slot of frame i's key: found (val != 0) or the empty one to fill. NULL: -ENOMEM. */
static struct fslot *ftable_slot(struct ftable *t, const struct cg_frame *frames, uint64_t a,
                                 uint64_t b)
{
    size_t j;

    if ((t->n + 1) * 2 > t->cap && ftable_grow(t, frames))
        return NULL;
    for (j = key_hash(a, b) & (t->cap - 1); t->s[j].frame; j = (j + 1) & (t->cap - 1)) {
        uint64_t sa, sb;
        frame_key(&frames[t->s[j].frame - 1], &sa, &sb);
        if (sa == a && sb == b)
            break;
    }
    return &t->s[j];
}

struct ctx {
    struct cg_syms *out;
    size_t cap_syms;
    struct table syms;
    struct ftable frames;
    const struct ksyms *ks;
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

static void resolve_frame(const struct ctx *c, const struct cg_frame *f, struct cg_sym *sym)
{
    memset(sym, 0, sizeof(*sym));
    if (f->map == &cg_kernel_map) {
        struct ksym_res r = {0};
        sym->kernel = true;
        if (c->ks && ksyms_resolve(c->ks, f->addr, &r) == 0) {
            sym->name = r.name;
            sym->module = r.module;
        }
        return;
    }
    if (f->map) {
        struct dso *d = f->map->dso;
        struct symres r = {0};
        uint64_t vaddr;
        sym->dso = d;
        dso_load(d);
        if (dso_map_to_vaddr(d, f->map->start, f->map->pgoff, f->addr, &vaddr))
            vaddr = f->addr - f->map->start + f->map->pgoff;
        /* A return address right after a symbol's end (a frame the frame-pointer walk got
         * wrong, e.g. through code without frame pointers) is named as perf names it. */
        if (dso_resolve(d, vaddr, &r) == 0 && !r.name)
            dso_resolve(d, vaddr + 1, &r);
        sym->name = r.name;
        sym->bracket = r.bracket && r.name;
    }
}

/* Loads the symbols of every DSO the frames are in, all at once (dso_load_all), in the order
 * the walk below would load them one by one. 0 or -ENOMEM. */
static int load_dsos(const struct cg_store *cs, struct cg_syms *out)
{
    struct table seen = { 0 };
    struct dso **v = NULL, *last = NULL;
    size_t n = 0, cap = 0;
    int err = 0;

    for (size_t i = 0; i < cs->nframes && !err; i++) {
        const struct map *m = cs->frames[i].map;
        struct slot *sl;

        if (!m || m == &cg_kernel_map || m->dso == last)
            continue;
        last = m->dso;
        if (!(sl = table_slot(&seen, (uint64_t)(uintptr_t)last, 0))) {
            err = -ENOMEM;
            break;
        }
        if (sl->val)
            continue;
        if (n == cap) {
            size_t nc = cap ? cap * 2 : 64;
            struct dso **nv = realloc(v, nc * sizeof(*nv));
            if (!nv) {
                err = -ENOMEM;
                break;
            }
            v = nv;
            cap = nc;
        }
        v[n++] = last;
        sl->a = (uint64_t)(uintptr_t)last;
        sl->val = 1;
        seen.n++;
    }
    free(seen.s);
    if (err) {
        free(v);
        return err;
    }
    out->dsos = v;
    out->ndsos = n;
    return dso_load_all(v, n);
}

void cg_drop_names(const struct cg_syms *cy)
{
    for (size_t i = 0; i < cy->ndsos; i++)
        dso_drop_names(cy->dsos[i]);
}

int cg_resolve(const struct cg_store *cs, const struct ksyms *ks, struct cg_syms *out)
{
    struct ctx c = { .out = out, .ks = ks };
    int err;

    memset(out, 0, sizeof(*out));
    if (cs->nframes >= UINT32_MAX)
        return -ENOMEM;
    if ((err = load_dsos(cs, out)))
        goto fail;
    out->frame_sym = malloc((cs->nframes ? cs->nframes : 1) * sizeof(*out->frame_sym));
    if (!out->frame_sym)
        return -ENOMEM;
    for (size_t i = 0; i < cs->nframes && !err; i++) {
        const struct cg_frame *f = &cs->frames[i];
        uint64_t ka, kb;
        struct fslot *sl;
        struct cg_sym sym;
        uint32_t idx;

        frame_key(f, &ka, &kb);
        if (!(sl = ftable_slot(&c.frames, cs->frames, ka, kb))) {
            err = -ENOMEM;
            break;
        }
        if (sl->val) {
            out->frame_sym[i] = sl->val - 1;
            continue;
        }
        resolve_frame(&c, f, &sym);
        err = sym_index(&c, &sym, &idx);
        if (err)
            break;
        /* sym_index may have grown c.syms, never c.frames: sl still points into it. */
        sl->frame = (uint32_t)i + 1;
        sl->val = idx + 1;
        c.frames.n++;
        out->frame_sym[i] = idx;
    }
    free(c.frames.s);
    free(c.syms.s);
fail:
    if (err)
        cg_syms_release(out);
    return err;
}

void cg_syms_release(struct cg_syms *cy)
{
    for (size_t i = 0; i < cy->nowned; i++)
        free(cy->owned[i]);
    free(cy->owned);
    free(cy->dsos);
    free(cy->syms);
    free(cy->frame_sym);
    memset(cy, 0, sizeof(*cy));
}

const char *cg_sym_dso(const struct cg_sym *s, char *buf, size_t len)
{
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
