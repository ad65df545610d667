/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "annotate/annotate.h"
#include "annotate/srcline.h"
#include "session/session.h"
#include "session/symbolize.h"
#include "symbol/dso.h"
#include "symbol/elf_code.h"
#include "annotate/kcode.h"
#include "symbol/ksyms.h"

#define MAX_FUNC_BYTES (1u << 20)

static uint64_t func_key(const struct dso *dso, uint64_t start)
{
    return (start ^ ((uint64_t)(uintptr_t)dso * 0x9e3779b97f4a7c15ull)) + 1;
}

static struct ann_func *find_func(struct ann_set *set, struct dso *dso, uint64_t start,
                                  uint64_t key)
{
    struct ann_func *f = hashmap_get(&set->index, key);

    if (f && f->dso == dso && f->start == start)
        return f;
    /* A hash collision (two keys mixing to one): rare, so a linear search is enough. */
    for (size_t i = 0; i < set->funcs.n; i++)
        if (set->funcs.v[i]->dso == dso && set->funcs.v[i]->start == start)
            return set->funcs.v[i];
    return NULL;
}

/* The function entry for (dso, start), created on first use. NULL on -ENOMEM. */
static struct ann_func *func_get(struct ann_set *set, struct dso *dso, uint64_t start,
                                 const char *name)
{
    uint64_t key = func_key(dso, start);
    struct ann_func *f = find_func(set, dso, start, key);

    if (f)
        return f;
    f = calloc(1, sizeof(*f));
    if (!f || vec_push(&set->funcs, f)) {
        free(f);
        return NULL;
    }
    f->dso = dso;
    f->name = name;
    f->start = start;
    if (!hashmap_get(&set->index, key) && hashmap_put(&set->index, key, f))
        return NULL;
    return f;
}

static int add_hit(struct ann_func *f, const struct sym_hit *h)
{
    struct ann_hit hit = { h->addr, h->samples, h->period };

    f->samples += h->samples;
    f->period += h->period;
    return vec_push(&f->hits, hit);
}

/* Code no symbol covers, in a file: its unwind tables' function range, named after the file
 * and the range. 1 when collected, 0 when the file has no CFI there, -ENOMEM. */
static int collect_by_cfi(struct ann_set *set, const struct sym_hit *h)
{
    uint64_t lo, hi;
    struct ann_func *f;
    char *name;
    int err = ann_cfi_range(&set->cfi, h->dso, h->addr, &lo, &hi);

    if (err)
        return err == -ENOMEM ? err : 0;
    if (!(f = find_func(set, h->dso, lo, func_key(h->dso, lo)))) {
        if (asprintf(&name, "%s:%#llx-%#llx", dso_short_name(h->dso), (unsigned long long)lo,
                     (unsigned long long)hi) < 0)
            return -ENOMEM;
        if (vec_push(&set->names, name)) {
            free(name);
            return -ENOMEM;
        }
        if (!(f = func_get(set, h->dso, lo, name)))
            return -ENOMEM;
        f->size = hi - lo;
        f->bracket = true;
    }
    if (h->bracket && !f->report_name)
        f->report_name = h->sym;
    return add_hit(f, h) ? -ENOMEM : 1;
}

static int collect_hit(void *arg, const struct sym_hit *h)
{
    struct ann_set *set = arg;
    struct ann_func *f;
    struct symres r = { 0 };
    int err;

    if (h->dso && !h->sym && dso_kind(h->dso) == DSO_FILE) {
        if ((err = collect_by_cfi(set, h)))
            return err < 0 ? err : 0;
        set->unnamed += h->samples;
        if (!set->unnamed_dso)
            set->unnamed_dso = h->dso;
    }
    if (!h->dso || !h->sym)
        return 0;
    if (h->bracket) {
        /* A stripped file's gap between two dynamic symbols: annotated over the gap. */
        if (dso_kind(h->dso) != DSO_FILE || dso_resolve(h->dso, h->addr, &r) || !r.bracket ||
            !r.gap_start || r.gap_end <= r.gap_start) {
            if (dso_kind(h->dso) == DSO_FILE && (err = collect_by_cfi(set, h)))
                return err < 0 ? err : 0;
            if (dso_kind(h->dso) == DSO_FILE) {
                set->unnamed += h->samples;
                if (!set->unnamed_dso)
                    set->unnamed_dso = h->dso;
            }
            return 0;
        }
        if (!(f = func_get(set, h->dso, r.gap_start, h->sym)))
            return -ENOMEM;
        f->size = r.gap_end - r.gap_start;
        f->bracket = true;
        return add_hit(f, h);
    }
    if (!(f = func_get(set, h->dso, h->sym_start, h->sym)))
        return -ENOMEM;
    if (!f->size && dso_resolve(h->dso, h->sym_start, &r) == 0 && r.start == h->sym_start)
        f->size = r.size;
    return add_hit(f, h);
}

/* Kernel hits: one entry per kernel symbol, sized up to the next symbol. */
static int collect_khit(void *arg, const struct sym_hit *h)
{
    struct ann_set *set = arg;
    struct ann_func *f;
    struct ksym_res r;

    if (!h->sym)
        return 0;
    if (!(f = func_get(set, NULL, h->sym_start, h->sym)))
        return -ENOMEM;
    if (!f->kernel) {
        f->kernel = true;
        f->module = h->module;
        if (set->ks && ksyms_resolve(set->ks, h->sym_start, &r) == 0 && r.end > r.start)
            f->size = r.end - r.start;
    }
    return add_hit(f, h);
}

static int hit_cmp(const void *a, const void *b)
{
    const struct ann_hit *x = a, *y = b;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int func_cmp(const void *a, const void *b)
{
    const struct ann_func *x = *(struct ann_func *const *)a, *y = *(struct ann_func *const *)b;
    if (x->period != y->period)
        return x->period > y->period ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* Several processes and maps of one DSO hit the same addresses: one entry per address. */
static void merge_hits(struct ann_func *f)
{
    size_t w = 0;

    if (f->hits.n > 1)
        qsort(f->hits.v, f->hits.n, sizeof(*f->hits.v), hit_cmp);
    for (size_t i = 0; i < f->hits.n; i++) {
        if (w && f->hits.v[w - 1].addr == f->hits.v[i].addr) {
            f->hits.v[w - 1].samples += f->hits.v[i].samples;
            f->hits.v[w - 1].period += f->hits.v[i].period;
        } else {
            f->hits.v[w++] = f->hits.v[i];
        }
    }
    f->hits.n = w;
}

int ann_collect(struct session *s, const struct ksyms *ks, struct ann_set *set)
{
    uint64_t annotated = 0;
    int err = 0;

    memset(set, 0, sizeof(*set));
    hashmap_init(&set->index);
    set->ks = ks;
    for (size_t i = 0; i < s->procs.n && !err; i++) {
        err = symbolize_user(s->procs.v[i], collect_hit, set);
        if (!err && ks)
            err = symbolize_kernel(&s->procs.v[i]->khits, s->procs.v[i], ks, collect_khit, set);
    }
    if (err)
        return err;
    for (size_t i = 0; i < set->funcs.n; i++) {
        merge_hits(set->funcs.v[i]);
        annotated += set->funcs.v[i]->samples;
    }
    if (set->funcs.n > 1)
        qsort(set->funcs.v, set->funcs.n, sizeof(*set->funcs.v), func_cmp);
    set->samples = s->stats.samples;
    set->period = s->stats.period_total;
    set->unannotated = set->samples > annotated ? set->samples - annotated : 0;
    return 0;
}

void ann_set_release(struct ann_set *set)
{
    for (size_t i = 0; i < set->funcs.n; i++) {
        vec_free(&set->funcs.v[i]->hits);
        free(set->funcs.v[i]);
    }
    vec_free(&set->funcs);
    hashmap_release(&set->index);
    ann_src_cache_release(&set->dwarf);
    ann_cfi_cache_release(&set->cfi);
    for (size_t i = 0; i < set->names.n; i++)
        free(set->names.v[i]);
    vec_free(&set->names);
}

/* Hits onto instructions (both ascending): a hit between instruction starts is counted apart. */
static void place_hits(const struct ann_func *f, struct ann_listing *l)
{
    size_t j = 0;

    for (size_t i = 0; i < f->hits.n; i++) {
        const struct ann_hit *h = &f->hits.v[i];
        while (j < l->n && l->lines[j].insn.addr < h->addr)
            j++;
        if (j < l->n && l->lines[j].insn.addr == h->addr) {
            l->lines[j].samples += h->samples;
            l->lines[j].period += h->period;
        } else {
            l->off_insn_samples += h->samples;
        }
    }
}

/* The line whose instruction starts at addr, or NULL (binary search). */
struct ann_line *ann_line_at(const struct ann_listing *l, uint64_t addr)
{
    size_t lo = 0, hi = l->n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (l->lines[mid].insn.addr < addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < l->n && l->lines[lo].insn.addr == addr ? &l->lines[lo] : NULL;
}

static void add_source(struct ann_set *set, struct ann_listing *l, struct dso *dso)
{
    struct ann_srcpos p;

    if (!(l->src = ann_src_cache_get(&set->dwarf, dso)))
        return;
    ann_src_function(l->src, l->func->start);
    for (size_t i = 0; i < l->n; i++) {
        if (ann_src_lookup(l->src, l->lines[i].insn.addr, &p) == 0) {
            l->lines[i].file = p.file;
            l->lines[i].line = p.line;
            l->lines[i].inlined = p.inlined;
            l->has_source = true;
        }
    }
    /* Without instructions (code that did not decode) the hits still have lines. */
    for (size_t i = 0; i < l->func->hits.n && !l->has_source; i++)
        l->has_source = ann_src_lookup(l->src, l->func->hits.v[i].addr, &p) == 0;
}

/* The function's bytes: from its file, or kernel memory. NULL with the reason in err. */
static uint8_t *read_code(struct ann_set *set, const struct ann_func *f, struct ann_listing *out,
                          int *ret, char *err, size_t errlen)
{
    const char *path;
    uint8_t *code;

    *ret = -ENOENT;
    if (f->kernel) {
        if (f->module) {
            snprintf(err, errlen, "kernel module code ([%s]) is not disassembled", f->module);
            return NULL;
        }
        if (!f->size || f->size > MAX_FUNC_BYTES) {
            snprintf(err, errlen, "%s: %s", f->name, f->size ? "over 1 MiB of code, not "
                     "disassembled" : "size unknown (the last kernel symbol)");
            *ret = -EFBIG;
            return NULL;
        }
        *ret = ann_kernel_code(set->vmlinux, set->ks, f->start, f->size, &code,
                               &out->code_path, err, errlen);
        return *ret ? NULL : code;
    }
    path = dso_code_path(f->dso);
    out->code_path = path;
    if (dso_kind(f->dso) == DSO_ANON) {
        snprintf(err, errlen, "JIT code (%s): its bytes were in the process's memory, in no "
                 "file: not disassembled", dso_short_name(f->dso));
        return NULL;
    }
    if (dso_kind(f->dso) != DSO_FILE) {
        snprintf(err, errlen, "%s: only code from files is disassembled", dso_short_name(f->dso));
        return NULL;
    }
    if (dso_status(f->dso) == DSO_BUILD_ID_MISMATCH) {
        snprintf(err, errlen, "%s is not the file that was profiled (rebuilt or replaced)",
                 dso_path(f->dso));
        *ret = -ESTALE;
        return NULL;
    }
    if (!path) {
        snprintf(err, errlen, "%s: %s", dso_path(f->dso), dso_status_str(dso_status(f->dso)));
        return NULL;
    }
    if (!f->size || f->size > MAX_FUNC_BYTES) {
        snprintf(err, errlen, "%s in %s: %s", f->name, path,
                 f->size ? "over 1 MiB of code, not disassembled" : "size unknown");
        *ret = -EFBIG;
        return NULL;
    }
    code = elf_read_code(path, f->start, f->size);
    if (!code)
        snprintf(err, errlen, "cannot read %s at %#llx (unreadable, or not in a loaded segment)",
                 path, (unsigned long long)f->start);
    return code;
}

int ann_listing_build(struct ann_set *set, const struct ann_func *f, enum ann_syntax syntax,
                      struct ann_listing *out, char *err, size_t errlen)
{
    struct ann_insn *insns;
    uint8_t *code;
    long n;
    int ret;

    memset(out, 0, sizeof(*out));
    out->func = f;
    out->set = set;
    if (!(code = read_code(set, f, out, &ret, err, errlen)))
        return ret;
    n = ann_disasm(code, f->size, f->start, syntax, &insns);
    free(code);
    if (n == -ENOMEM) {
        snprintf(err, errlen, "%s", strerror(ENOMEM));
        return -ENOMEM;
    }
    if (n < 0) {                /* hits per line need no instructions: their addresses do */
        snprintf(err, errlen, "cannot disassemble %s: %s", f->name, strerror((int)-n));
        if (!f->kernel)
            add_source(set, out, f->dso);
        return -ENOEXEC;
    }
    out->lines = calloc((size_t)n ? (size_t)n : 1, sizeof(*out->lines));
    if (!out->lines) {
        free(insns);
        snprintf(err, errlen, "%s", strerror(ENOMEM));
        return -ENOMEM;
    }
    out->n = (size_t)n;
    for (size_t i = 0; i < out->n; i++)
        out->lines[i].insn = insns[i];
    free(insns);
    for (size_t i = 0; i < out->n; i++) {
        const struct ann_insn *in = &out->lines[i].insn;
        struct ann_line *t;
        if (in->jump && in->has_target && (t = ann_line_at(out, in->target)))
            t->jump_target = true;
    }
    place_hits(f, out);
    if (!f->kernel)
        add_source(set, out, f->dso);
    return 0;
}

void ann_listing_release(struct ann_listing *l)
{
    free(l->lines);
    memset(l, 0, sizeof(*l));
}

bool ann_name_addr(const struct ann_set *set, const struct ann_func *f, uint64_t vaddr,
                   char *buf, size_t len)
{
    struct symres r = { 0 };

    if (f->bracket && vaddr >= f->start && vaddr - f->start < f->size) {
        /* Inside a stripped file's gap: named after the gap, as the listing is. */
        r.name = f->name;
        r.start = f->start;
    } else if (f->kernel) {
        struct ksym_res k;
        if (!set->ks || ksyms_resolve(set->ks, vaddr, &k) || !k.name || (k.end && vaddr >= k.end))
            return false;
        r.name = k.name;
        r.start = k.start;
    } else if (dso_resolve(f->dso, vaddr, &r) || !r.name || r.bracket) {
        return false;
    }
    if (vaddr == r.start)
        snprintf(buf, len, "%s", r.name);
    else
        snprintf(buf, len, "%s+%#llx", r.name, (unsigned long long)(vaddr - r.start));
    return true;
}

const char *ann_func_dso(const struct ann_func *f)
{
    if (!f->kernel)
        return dso_path(f->dso);
    return f->module ? f->module : "[kernel.kallsyms]";
}
