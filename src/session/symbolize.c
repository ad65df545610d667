/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include "session/symbolize.h"
#include "symbol/dso.h"
#include "symbol/ksyms.h"
#include "util/hashmap.h"

static int symbolize_map(struct process *p, struct map *m, sym_hit_fn fn, void *arg)
{
    struct hit *hits;
    uint64_t *vaddrs = NULL;
    struct symres *res = NULL;
    long n = hitstore_sorted(&m->hits, &hits);
    int err = 0;

    if (n <= 0)
        return (int)n;
    vaddrs = malloc((size_t)n * sizeof(*vaddrs));
    res = calloc((size_t)n, sizeof(*res));
    if (!vaddrs || !res) {
        err = -ENOMEM;
        goto out;
    }
    dso_load(m->dso);
    for (long i = 0; i < n; i++) {
        if (dso_map_to_vaddr(m->dso, m->start, m->pgoff, hits[i].addr, &vaddrs[i]))
            vaddrs[i] = hits[i].addr - m->start + m->pgoff;
        /* Segments map in address order, so vaddrs stay ascending; guard anyway. */
        if (i && vaddrs[i] < vaddrs[i - 1])
            vaddrs[i] = vaddrs[i - 1];
    }
    err = dso_resolve_sorted(m->dso, vaddrs, (size_t)n, res);
    if (err)
        goto out;
    for (long i = 0; i < n && !err; i++) {
        struct sym_hit h = {
            .proc = p, .dso = m->dso, .sym = res[i].name, .addr = vaddrs[i],
            .sym_start = res[i].start, .bracket = res[i].bracket,
            .demangled = res[i].demangled,
            .samples = hits[i].samples, .period = hits[i].period,
        };
        err = fn(arg, &h);
    }
out:
    free(hits);
    free(vaddrs);
    free(res);
    return err;
}

static int add_dso(struct dso ***v, size_t *n, size_t *cap, struct hashmap *seen,
                   const struct map *m)
{
    uint64_t key = (uint64_t)(uintptr_t)m->dso;

    if (!hitstore_count(&m->hits) || hashmap_get(seen, key))
        return 0;
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 64;
        struct dso **nv = realloc(*v, nc * sizeof(*nv));
        if (!nv)
            return -ENOMEM;
        *v = nv;
        *cap = nc;
    }
    (*v)[(*n)++] = m->dso;
    return hashmap_put(seen, key, m->dso);
}

int symbolize_load(struct process *const *procs, size_t n)
{
    struct hashmap seen;
    struct dso **v = NULL;
    size_t nv = 0, cap = 0;
    int err = 0;

    hashmap_init(&seen);
    for (size_t i = 0; i < n && !err; i++) {
        const struct process *p = procs[i];
        for (size_t k = 0; k < p->maps.n && !err; k++)
            err = add_dso(&v, &nv, &cap, &seen, p->maps.v[k]);
        for (size_t k = 0; k < p->retired.n && !err; k++)
            err = add_dso(&v, &nv, &cap, &seen, p->retired.v[k]);
    }
    if (!err)
        err = dso_load_all(v, nv);
    hashmap_release(&seen);
    free(v);
    return err;
}

int symbolize_user(struct process *p, sym_hit_fn fn, void *arg)
{
    struct hit *hits;
    long n;
    int err = 0;

    for (size_t i = 0; i < p->maps.n && !err; i++)
        err = symbolize_map(p, p->maps.v[i], fn, arg);
    for (size_t i = 0; i < p->retired.n && !err; i++)
        err = symbolize_map(p, p->retired.v[i], fn, arg);
    if (err)
        return err;
    n = hitstore_sorted(&p->unmapped, &hits);
    if (n < 0)
        return (int)n;
    for (long i = 0; i < n && !err; i++) {
        struct sym_hit h = { .proc = p, .addr = hits[i].addr, .samples = hits[i].samples,
                             .period = hits[i].period };
        err = fn(arg, &h);
    }
    free(hits);
    return err;
}

int symbolize_kernel(const struct hitstore *hs, const struct process *p, const struct ksyms *ks,
                     sym_hit_fn fn, void *arg)
{
    struct hit *hits;
    long n = hitstore_sorted(hs, &hits);
    struct ksym_res r = {0};
    int err = 0;

    if (n < 0)
        return (int)n;
    for (long i = 0; i < n && !err; i++) {
        struct sym_hit h = { .proc = p, .kernel = true, .addr = hits[i].addr,
                             .samples = hits[i].samples, .period = hits[i].period };
        /* Hits come in address order: most fall in the symbol the previous one did. */
        bool same = r.name && hits[i].addr >= r.start && (!r.end || hits[i].addr < r.end);
        if (ks && (same || ksyms_resolve(ks, hits[i].addr, &r) == 0)) {
            h.sym = r.name;
            h.module = r.module;
            h.sym_start = r.start;
        }
        err = fn(arg, &h);
    }
    free(hits);
    return err;
}
