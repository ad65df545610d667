/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model/process.h"
#include "report/profile.h"
#include "symbol/dso.h"
#include "util/hash.h"

void profile_init(struct profile *pr)
{
    memset(pr, 0, sizeof(*pr));
    hashmap_init(&pr->index);
}

void profile_release(struct profile *pr)
{
    vec_free(&pr->rows);
    hashmap_release(&pr->index);
}

static bool same_key(const struct prof_row *r, const struct sym_hit *h)
{
    if (r->kernel != h->kernel || r->sym != h->sym)
        return false;
    if (h->kernel)
        return r->module == h->module && (h->sym || r->addr == h->addr);
    return r->dso == h->dso && (h->sym || r->addr == h->addr);
}

int profile_add(void *arg, const struct sym_hit *h)
{
    struct profile *pr = arg;
    /* Names are interned per DSO/ksyms, so pointers identify them. */
    uint64_t key = hash_u64((uintptr_t)h->sym ^ hash_u64((uintptr_t)h->dso ^
                   hash_u64((uintptr_t)h->module + h->kernel)));
    struct prof_row *r;

    if (!h->sym)
        key = hash_u64(key ^ h->addr);
    for (;; key++) {
        uintptr_t idx = (uintptr_t)hashmap_get(&pr->index, key);
        if (!idx)
            break;
        r = &pr->rows.v[idx - 1];
        if (same_key(r, h)) {
            r->samples += h->samples;
            r->period += h->period;
            pr->samples += h->samples;
            pr->period += h->period;
            return 0;
        }
    }
    struct prof_row nr = {
        .sym = h->sym, .dso = h->dso, .module = h->module, .addr = h->addr,
        .kernel = h->kernel, .bracket = h->bracket, .samples = h->samples, .period = h->period,
    };
    if (vec_push(&pr->rows, nr) || hashmap_put(&pr->index, key, (void *)(uintptr_t)pr->rows.n))
        return -ENOMEM;
    pr->samples += h->samples;
    pr->period += h->period;
    return 0;
}

static int cmp_rows(const void *a, const void *b)
{
    const struct prof_row *x = a, *y = b;
    if (x->period != y->period)
        return x->period > y->period ? -1 : 1;
    if (x->samples != y->samples)
        return x->samples > y->samples ? -1 : 1;
    if (x->sym && y->sym)
        return strcmp(x->sym, y->sym);
    if (x->sym != y->sym)
        return x->sym ? -1 : 1;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

void profile_sort(struct profile *pr)
{
    if (pr->rows.n)
        qsort(pr->rows.v, pr->rows.n, sizeof(*pr->rows.v), cmp_rows);
    /* The index refers to old positions: it is not used after sorting. */
    hashmap_release(&pr->index);
}

const char *prof_row_dso_name(const struct prof_row *r, char *buf, size_t len)
{
    if (r->kernel) {
        if (!r->module)
            return "[kernel.kallsyms]";
        snprintf(buf, len, "[%s]", r->module);
        return buf;
    }
    return r->dso ? dso_short_name(r->dso) : "[unknown]";
}

int profile_process(struct profile *user, struct profile *kern, struct process *p,
                    const struct ksyms *ks)
{
    int err;

    profile_init(user);
    profile_init(kern);
    err = symbolize_user(p, profile_add, user);
    if (!err)
        err = symbolize_kernel(&p->khits, p, ks, profile_add, kern);
    if (!err) {
        profile_sort(user);
        profile_sort(kern);
    }
    return err;
}

int global_kernel_profile(const struct session *s, const struct ksyms *ks, struct profile *kern)
{
    struct hitstore all;
    int err = session_kernel_hits(s, &all);

    if (err)
        return err;
    err = symbolize_kernel(&all, NULL, ks, profile_add, kern);
    hitstore_release(&all);
    return err;
}
