/* Multikey quicksort: three-way partition on the character at depth d, then the equal part is
 * sorted from d + 1. The smaller parts are recursed into and the largest looped on, so the
 * stack stays O(log n) deep whatever the input. */
#include <string.h>
#include "util/strsort.h"

static inline int ch(const struct strsort_item *x, size_t d)
{
    return d < x->len ? (unsigned char)x->s[d] : -1;     /* the end sorts first */
}

static inline void swap(struct strsort_item *v, size_t i, size_t j)
{
    struct strsort_item t = v[i];
    v[i] = v[j];
    v[j] = t;
}

static void insertion(struct strsort_item *v, size_t n, size_t d)
{
    for (size_t i = 1; i < n; i++) {
        struct strsort_item t = v[i];
        size_t j = i;
        /* Every string here shares its first d bytes: compare from there. */
        while (j > 0 && strcmp(v[j - 1].s + d, t.s + d) > 0) {
            v[j] = v[j - 1];
            j--;
        }
        v[j] = t;
    }
}

static int median3(const struct strsort_item *v, size_t n, size_t d)
{
    int a = ch(&v[0], d), b = ch(&v[n / 2], d), c = ch(&v[n - 1], d);
    if (a < b)
        return b < c ? b : a < c ? c : a;
    return a < c ? a : b < c ? c : b;
}

static void mkqs(struct strsort_item *v, size_t n, size_t d)
{
    while (n > 1) {
        if (n < 12) {
            insertion(v, n, d);
            return;
        }
        int p = median3(v, n, d);
        size_t lt = 0, i = 0, gt = n;        /* [0,lt) <, [lt,i) ==, [gt,n) > */
        while (i < gt) {
            int c = ch(&v[i], d);
            if (c < p)
                swap(v, lt++, i++);
            else if (c > p)
                swap(v, i, --gt);
            else
                i++;
        }
        size_t nl = lt, ne = gt - lt, ng = n - gt;
        struct strsort_item *eq = v + lt, *g = v + gt;
        /* Equal strings that ended here (p < 0) are all the same: nothing left to sort. */
        if (p < 0)
            ne = 0;
        /* Loop on the largest part, recurse into the others. */
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

void strsort(struct strsort_item *v, size_t n)
{
    mkqs(v, n, 0);
}
