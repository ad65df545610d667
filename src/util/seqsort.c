/* SPDX-License-Identifier: MIT */
/* Multikey quicksort: three-way partition on the element at depth d, then the equal part is
 * sorted from d + 1. The smaller parts are recursed into and the largest looped on, so the
 * stack stays O(log n) deep whatever the input. */
#include "util/seqsort.h"

static inline uint32_t at(const struct seqsort_item *x, uint32_t d)
{
    return d < x->n ? x->seq[d] : 0;     /* the end sorts first */
}

static inline void swap(struct seqsort_item *v, size_t i, size_t j)
{
    struct seqsort_item t = v[i];
    v[i] = v[j];
    v[j] = t;
}

static int cmp_from(const struct seqsort_item *x, const struct seqsort_item *y, uint32_t d)
{
    for (;; d++) {
        uint32_t a = at(x, d), b = at(y, d);
        if (a != b)
            return a < b ? -1 : 1;
        if (!a)
            return 0;
    }
}

static void insertion(struct seqsort_item *v, size_t n, uint32_t d)
{
    for (size_t i = 1; i < n; i++) {
        struct seqsort_item t = v[i];
        size_t j = i;
        while (j > 0 && cmp_from(&v[j - 1], &t, d) > 0) {   /* all share their first d */
            v[j] = v[j - 1];
            j--;
        }
        v[j] = t;
    }
}

static uint32_t median3(const struct seqsort_item *v, size_t n, uint32_t d)
{
    uint32_t a = at(&v[0], d), b = at(&v[n / 2], d), c = at(&v[n - 1], d);
    if (a < b)
        return b < c ? b : a < c ? c : a;
    return a < c ? a : b < c ? c : b;
}

static void mkqs(struct seqsort_item *v, size_t n, uint32_t d)
{
    while (n > 1) {
        if (n < 12) {
            insertion(v, n, d);
            return;
        }
        uint32_t p = median3(v, n, d);
        size_t lt = 0, i = 0, gt = n;        /* [0,lt) <, [lt,i) ==, [gt,n) > */
        while (i < gt) {
            uint32_t c = at(&v[i], d);
            if (c < p)
                swap(v, lt++, i++);
            else if (c > p)
                swap(v, i, --gt);
            else
                i++;
        }
        size_t nl = lt, ne = gt - lt, ng = n - gt;
        struct seqsort_item *eq = v + lt, *g = v + gt;
        if (!p)                              /* all ended here: equal, nothing to sort */
            ne = 0;
        /* Loop on the largest part, recurse into the others (each at most half). */
        if (nl >= ne && nl >= ng) {
            mkqs(eq, ne, d + 1);
            mkqs(g, ng, d);
            n = nl;
        } else if (ne >= ng) {
            mkqs(v, nl, d);
            mkqs(g, ng, d);
            v = eq;
            n = ne;
            d++;
        } else {
            mkqs(v, nl, d);
            mkqs(eq, ne, d + 1);
            v = g;
            n = ng;
        }
    }
}

void seqsort(struct seqsort_item *v, size_t n)
{
    mkqs(v, n, 0);
}
