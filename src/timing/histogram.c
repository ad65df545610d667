/* SPDX-License-Identifier: MIT */
/* Execution-time histograms: samples, nearest-rank percentiles, MAD and MAD outliers.
 * Part of libprospect: depends on libc only. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "timing/hist_priv.h"

#define DEFAULT_CUTOFF 3.5
#define MAD_SCALE      0.6745       /* MAD / 0.6745 estimates sigma for normal data */
#define MEANAD_SCALE   1.253314     /* mean |x - median| * 1.2533 estimates sigma too */

struct prospect_hist {
    char *name;
    uint64_t *val;
    unsigned char *flags;
    size_t n, cap;
    double cutoff;
    /* Derived on demand, dropped on add. clean is a prefix of unflagged (both sorted). */
    int fresh;
    uint64_t *all, *unflagged;
    size_t n_unflagged, n_clean, migrated, switched;
    double threshold;
};

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

uint64_t hist_rank(const uint64_t *v, size_t n, double pct)
{
    double r;
    size_t k;

    if (pct <= 0)
        return v[0];
    /* The epsilon absorbs decimal fractions such as 99.9 that binary doubles round up. */
    r = ceil(pct * (double)n / 100.0 - 1e-9);
    k = r < 1 ? 1 : (size_t)r;
    return v[(k > n ? n : k) - 1];
}

struct prospect_hist *prospect_hist_new(const char *name)
{
    struct prospect_hist *h = calloc(1, sizeof(*h));

    if (!h)
        return NULL;
    h->name = strdup(name ? name : "");
    if (!h->name) {
        free(h);
        return NULL;
    }
    h->cutoff = DEFAULT_CUTOFF;
    return h;
}

static void drop_derived(struct prospect_hist *h)
{
    free(h->all);
    free(h->unflagged);
    h->all = h->unflagged = NULL;
    h->fresh = 0;
}

void prospect_hist_free(struct prospect_hist *h)
{
    if (!h)
        return;
    drop_derived(h);
    free(h->val);
    free(h->flags);
    free(h->name);
    free(h);
}

const char *prospect_hist_name(const struct prospect_hist *h)
{
    return h->name;
}

size_t prospect_hist_count(const struct prospect_hist *h)
{
    return h->n;
}

int prospect_hist_set_cutoff(struct prospect_hist *h, double cutoff)
{
    if (!(cutoff > 0) || !isfinite(cutoff))
        return -EINVAL;
    h->cutoff = cutoff;
    drop_derived(h);
    return 0;
}

int prospect_hist_add(struct prospect_hist *h, uint64_t value, unsigned flags)
{
    if (h->n == h->cap) {
        size_t cap = h->cap ? h->cap * 2 : 1024;
        uint64_t *v = realloc(h->val, cap * sizeof(*v));
        if (!v)
            return -ENOMEM;
        h->val = v;
        unsigned char *f = realloc(h->flags, cap);
        if (!f)
            return -ENOMEM;
        h->flags = f;
        h->cap = cap;
    }
    h->val[h->n] = value;
    h->flags[h->n] = (unsigned char)(flags & (PROSPECT_SAMPLE_MIGRATED | PROSPECT_SAMPLE_SWITCHED));
    h->n++;
    if (h->fresh)
        drop_derived(h);
    return 0;
}

/* MAD of sorted v around its nearest-rank median; *meanad gets the mean absolute deviation. */
static int mad_of(const uint64_t *v, size_t n, double *mad, double *meanad)
{
    uint64_t med = hist_rank(v, n, 50), *d = malloc(n * sizeof(*d));
    double sum = 0;

    if (!d)
        return -ENOMEM;
    for (size_t i = 0; i < n; i++) {
        d[i] = v[i] > med ? v[i] - med : med - v[i];
        sum += (double)d[i];
    }
    qsort(d, n, sizeof(*d), cmp_u64);
    *mad = (double)hist_rank(d, n, 50);
    if (meanad)
        *meanad = sum / (double)n;
    free(d);
    return 0;
}

static int derive(struct prospect_hist *h)
{
    size_t m = 0;
    int err;

    if (h->fresh)
        return 0;
    drop_derived(h);
    h->all = malloc((h->n ? h->n : 1) * sizeof(uint64_t));
    h->unflagged = malloc((h->n ? h->n : 1) * sizeof(uint64_t));
    if (!h->all || !h->unflagged) {
        drop_derived(h);
        return -ENOMEM;
    }
    h->migrated = h->switched = 0;
    for (size_t i = 0; i < h->n; i++) {
        h->all[i] = h->val[i];
        h->migrated += !!(h->flags[i] & PROSPECT_SAMPLE_MIGRATED);
        h->switched += !!(h->flags[i] & PROSPECT_SAMPLE_SWITCHED);
        if (!h->flags[i])
            h->unflagged[m++] = h->val[i];
    }
    qsort(h->all, h->n, sizeof(uint64_t), cmp_u64);
    qsort(h->unflagged, m, sizeof(uint64_t), cmp_u64);
    h->n_unflagged = h->n_clean = m;
    h->threshold = INFINITY;
    if (m) {
        double mad, meanad, med = (double)hist_rank(h->unflagged, m, 50);
        err = mad_of(h->unflagged, m, &mad, &meanad);
        if (err) {
            drop_derived(h);
            return err;
        }
        if (mad > 0)
            h->threshold = med + h->cutoff * mad / MAD_SCALE;
        else if (meanad > 0)
            h->threshold = med + h->cutoff * MEANAD_SCALE * meanad;
        while (h->n_clean && (double)h->unflagged[h->n_clean - 1] > h->threshold)
            h->n_clean--;
    }
    h->fresh = 1;
    return 0;
}

int hist_sorted(struct prospect_hist *h, enum prospect_keep keep, const uint64_t **v, size_t *n)
{
    int err = derive(h);

    if (err)
        return err;
    switch (keep) {
    case PROSPECT_KEEP_ALL:
        *v = h->all;
        *n = h->n;
        return 0;
    case PROSPECT_KEEP_UNFLAGGED:
        *v = h->unflagged;
        *n = h->n_unflagged;
        return 0;
    case PROSPECT_KEEP_CLEAN:
        *v = h->unflagged;
        *n = h->n_clean;
        return 0;
    }
    return -EINVAL;
}

int prospect_hist_percentile(struct prospect_hist *h, enum prospect_keep keep, double pct,
                             uint64_t *out)
{
    const uint64_t *v;
    size_t n;
    int err;

    if (!(pct >= 0 && pct <= 100))
        return -EINVAL;
    err = hist_sorted(h, keep, &v, &n);
    if (err)
        return err;
    if (!n)
        return -ENODATA;
    *out = hist_rank(v, n, pct);
    return 0;
}

int prospect_hist_stats(struct prospect_hist *h, enum prospect_keep keep,
                        struct prospect_hist_stats *st)
{
    const uint64_t *v;
    size_t n;
    double sum = 0;
    int err = hist_sorted(h, keep, &v, &n);

    if (err)
        return err;
    memset(st, 0, sizeof(*st));
    st->total = h->n;
    st->count = n;
    st->migrated = h->migrated;
    st->switched = h->switched;
    st->outliers = h->n_unflagged - h->n_clean;
    st->outlier_threshold = h->threshold;
    if (!n)
        return -ENODATA;
    st->min = v[0];
    st->max = v[n - 1];
    st->p50 = hist_rank(v, n, 50);
    st->p90 = hist_rank(v, n, 90);
    st->p99 = hist_rank(v, n, 99);
    st->p999 = hist_rank(v, n, 99.9);
    for (size_t i = 0; i < n; i++)
        sum += (double)v[i];
    st->mean = sum / (double)n;
    return mad_of(v, n, &st->mad, NULL);
}
