/* SPDX-License-Identifier: MIT */
#include <ctype.h>
#include <stdbool.h>
#include <string.h>
#include "util/editdist.h"

static bool same(char x, char y, bool fold)
{
    return fold ? toupper((unsigned char)x) == toupper((unsigned char)y) : x == y;
}

/* One row of the table at a time; stops once a whole row reaches cap. */
static size_t distance(const char *a, const char *b, size_t cap, bool fold)
{
    size_t la = strlen(a), lb = strlen(b), row[257];

    if (la > 256 || lb > 256)
        return cap;
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0], best;
        row[0] = i;
        best = row[0];
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j], v = diag + !same(a[i - 1], b[j - 1], fold);
            if (up + 1 < v)
                v = up + 1;
            if (row[j - 1] + 1 < v)
                v = row[j - 1] + 1;
            diag = up;
            row[j] = v;
            if (v < best)
                best = v;
        }
        if (best >= cap)
            return cap;
    }
    return row[lb] < cap ? row[lb] : cap;
}

size_t edit_distance(const char *a, const char *b, size_t cap)
{
    return distance(a, b, cap, false);
}

size_t edit_distance_nocase(const char *a, const char *b, size_t cap)
{
    return distance(a, b, cap, true);
}

void nearest_name_init(struct nearest_name *n, const char *name, size_t cap, size_t min_prefix)
{
    n->name = name;
    n->len = strlen(name);
    n->cap = cap;
    n->min_prefix = min_prefix;
    n->best_dist = cap + 1;
    n->best = NULL;
}

void nearest_name_offer(struct nearest_name *n, const char *cand)
{
    size_t d = edit_distance(n->name, cand, n->cap + 1);

    if (n->len >= n->min_prefix && !strncmp(cand, n->name, n->len))
        d = 0;
    if (d < n->best_dist) {
        n->best = cand;
        n->best_dist = d;
    }
}
