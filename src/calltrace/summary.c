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

struct run { uint64_t size, count; };

/* Request sizes counted in a hash table (open addressing, a power of two, at most half full):
 * memory by distinct sizes, not by calls, and nothing to sort while the program runs. */
struct ct_summary {
    struct fstat_ f[CT_NFUNCS + CT_ANY_MAX];   /* built-ins, then anyfunc.h's */
    struct run *runs;               /* count 0: empty */
    size_t nruns, cap;
    uint64_t nsizes;                /* allocation calls */
    size_t last;                    /* the slot of the last size (loops repeat it) */
};

struct ct_summary *ct_summary_new(void)
{
    return calloc(1, sizeof(struct ct_summary));
}

void ct_summary_free(struct ct_summary *s)
{
    if (s) {
        free(s->runs);
        free(s);
    }
}

static size_t size_slot(const struct ct_summary *s, uint64_t size)
{
    size_t i = (size_t)((size * 0x9e3779b97f4a7c15ull) >> 20) & (s->cap - 1);
    while (s->runs[i].count && s->runs[i].size != size)
        i = (i + 1) & (s->cap - 1);
    return i;
}

static int sizes_grow(struct ct_summary *s)
{
    struct ct_summary old = *s;
    s->cap = old.cap ? old.cap * 2 : 256;
    s->runs = calloc(s->cap, sizeof(*s->runs));
    if (!s->runs) {
        *s = old;
        return -ENOMEM;
    }
    for (size_t i = 0; i < old.cap; i++)
        if (old.runs[i].count)
            s->runs[size_slot(s, old.runs[i].size)] = old.runs[i];
    free(old.runs);
    s->last = 0;
    return 0;
}

static int size_add(struct ct_summary *s, uint64_t size)
{
    size_t i;
    if (s->cap && s->runs[s->last].count && s->runs[s->last].size == size) {
        i = s->last;
    } else {
        if (2 * (s->nruns + 1) > s->cap && sizes_grow(s))
            return -ENOMEM;
        i = size_slot(s, size);
        if (!s->runs[i].count) {
            s->runs[i].size = size;
            s->nruns++;
        }
    }
    s->runs[i].count++;
    s->last = i;
    s->nsizes++;
    return 0;
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
    return ct_alloc_size(k, &size) ? size_add(s, size) : 0;
}

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

    /* Power-of-two buckets: [0], [1], [2,3], [4,7], ... */
    uint64_t bucket[65] = { 0 }, bmax = 0;
    size_t nruns = 0;
    struct run *runs = malloc(s->nruns * sizeof(*runs));
    if (!runs)
        return;
    for (size_t i = 0; i < s->cap; i++) {
        uint64_t v = s->runs[i].size;
        if (!s->runs[i].count)
            continue;
        bucket[v ? 64 - (unsigned)__builtin_clzll(v) : 0] += s->runs[i].count;
        runs[nruns++] = s->runs[i];
    }
    for (unsigned b = 0; b < 65; b++)
        if (bucket[b] > bmax)
            bmax = bucket[b];
    fprintf(f, "\nrequest sizes of %llu allocation calls (%zu distinct):\n",
            (unsigned long long)s->nsizes, nruns);
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
    qsort(runs, nruns, sizeof(*runs), cmp_run);
    fprintf(f, "\ntop sizes:\n%22s %12s %7s\n", "bytes", "calls", "share");
    for (size_t i = 0; i < nruns && i < top; i++)
        fprintf(f, "%22llu %12llu %6.2f%%\n", (unsigned long long)runs[i].size,
                (unsigned long long)runs[i].count,
                100.0 * (double)runs[i].count / (double)s->nsizes);
    free(runs);
}
