/* SPDX-License-Identifier: MIT */
/* The --summary tables (see summary.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "calltrace/anyfunc.h"
#include "calltrace/callfmt.h"
#include "calltrace/summary.h"
#include "intarget/calltrace_abi.h"

struct fstat_ {
    uint64_t calls, total_ns, max_ns;
};

struct ct_summary {
    struct fstat_ f[CT_NFUNCS + CT_ANY_MAX];   /* built-ins, then anyfunc.h's */
    uint64_t *sizes;
    size_t nsizes, cap;
};

struct ct_summary *ct_summary_new(void)
{
    return calloc(1, sizeof(struct ct_summary));
}

void ct_summary_free(struct ct_summary *s)
{
    if (s) {
        free(s->sizes);
        free(s);
    }
}

int ct_summary_add(struct ct_summary *s, const struct ct_call *k, uint64_t dur_ns)
{
    uint64_t size;
    if (k->func >= CT_NFUNCS + CT_ANY_MAX)
        return 0;
    s->f[k->func].calls++;
    s->f[k->func].total_ns += dur_ns;
    if (dur_ns > s->f[k->func].max_ns)
        s->f[k->func].max_ns = dur_ns;
    if (ct_alloc_size(k, &size)) {
        if (s->nsizes == s->cap) {
            size_t nc = s->cap ? s->cap * 2 : 4096;
            uint64_t *v = realloc(s->sizes, nc * sizeof(*v));
            if (!v)
                return -ENOMEM;
            s->sizes = v;
            s->cap = nc;
        }
        s->sizes[s->nsizes++] = size;
    }
    return 0;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

struct run { uint64_t size, count; };

static int cmp_run(const void *a, const void *b)
{
    const struct run *x = a, *y = b;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return x->size < y->size ? -1 : x->size > y->size;
}

static void bar(FILE *f, uint64_t n, uint64_t max)
{
    unsigned w = max ? (unsigned)((n * 30 + max - 1) / max) : 0;
    for (unsigned i = 0; i < w; i++)
        fputc('#', f);
}

void ct_summary_print(struct ct_summary *s, FILE *f, unsigned top)
{
    uint64_t all = 0;
    fprintf(f, "%-24s %12s %14s %12s %12s\n", "function", "calls", "total us", "mean ns",
            "max ns");
    for (unsigned i = 0; i < CT_NFUNCS + CT_ANY_MAX; i++) {
        const struct fstat_ *x = &s->f[i];
        if (!x->calls)
            continue;
        all += x->calls;
        fprintf(f, "%-24s %12llu %14.3f %12.1f %12llu\n", ct_func_name(i),
                (unsigned long long)x->calls, (double)x->total_ns / 1e3,
                (double)x->total_ns / (double)x->calls, (unsigned long long)x->max_ns);
    }
    fprintf(f, "%-24s %12llu\n", "total", (unsigned long long)all);
    if (!s->nsizes)
        return;

    qsort(s->sizes, s->nsizes, sizeof(*s->sizes), cmp_u64);
    /* Power-of-two buckets: [0], [1], [2,3], [4,7], ... */
    uint64_t bucket[65] = { 0 }, bmax = 0;
    size_t nruns = 0;
    for (size_t i = 0; i < s->nsizes; i++) {
        uint64_t v = s->sizes[i];
        unsigned b = v ? 64 - (unsigned)__builtin_clzll(v) : 0;
        bucket[b]++;
        if (!i || v != s->sizes[i - 1])
            nruns++;
    }
    for (unsigned b = 0; b < 65; b++)
        if (bucket[b] > bmax)
            bmax = bucket[b];
    fprintf(f, "\nrequest sizes of %zu allocation calls (%zu distinct):\n", s->nsizes, nruns);
    fprintf(f, "%22s %12s %7s\n", "bytes", "calls", "share");
    for (unsigned b = 0; b < 65; b++) {
        char range[48];
        if (!bucket[b])
            continue;
        if (b == 0)
            snprintf(range, sizeof(range), "0");
        else if (b == 1)
            snprintf(range, sizeof(range), "1");
        else
            snprintf(range, sizeof(range), "%llu-%llu", 1ull << (b - 1),
                     b == 64 ? ~0ull : (1ull << b) - 1);
        fprintf(f, "%22s %12llu %6.2f%% ", range, (unsigned long long)bucket[b],
                100.0 * (double)bucket[b] / (double)s->nsizes);
        bar(f, bucket[b], bmax);
        fputc('\n', f);
    }
    struct run *runs = malloc(nruns * sizeof(*runs));
    if (!runs)
        return;
    size_t r = 0;
    for (size_t i = 0; i < s->nsizes; i++) {
        if (!i || s->sizes[i] != s->sizes[i - 1])
            runs[r++] = (struct run){ s->sizes[i], 0 };
        runs[r - 1].count++;
    }
    qsort(runs, nruns, sizeof(*runs), cmp_run);
    fprintf(f, "\ntop sizes:\n%22s %12s %7s\n", "bytes", "calls", "share");
    for (size_t i = 0; i < nruns && i < top; i++)
        fprintf(f, "%22llu %12llu %6.2f%%\n", (unsigned long long)runs[i].size,
                (unsigned long long)runs[i].count,
                100.0 * (double)runs[i].count / (double)s->nsizes);
    free(runs);
}
