/* bench_lines.sh's pointer-chasing, branchy program: a binary search tree of N pseudo-random
 * keys (its nodes scattered in memory), then M lookups, half of them misses. Prints how many
 * were found. Usage: lines_chase [N [M]]. */
#include <stdio.h>
#include <stdlib.h>

struct node {
    unsigned long key;
    struct node *left, *right;
};

static unsigned long state = 88172645463325252UL;

static unsigned long next_random(void)
{
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
}

static struct node *insert(struct node *root, struct node *n)
{
    struct node **at = &root;
    while (*at) {
        if (n->key < (*at)->key)
            at = &(*at)->left;
        else
            at = &(*at)->right;
    }
    *at = n;
    return root;
}

static int find(const struct node *t, unsigned long key)
{
    while (t) {
        if (key == t->key)
            return 1;
        if (key < t->key)
            t = t->left;
        else
            t = t->right;
    }
    return 0;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 100000, m = argc > 2 ? atol(argv[2]) : 500000;
    struct node *pool = calloc((size_t)n, sizeof(*pool)), *root = NULL;
    long *order = malloc((size_t)n * sizeof(*order)), found = 0;

    if (!pool || !order)
        return 1;
    for (long i = 0; i < n; i++)
        order[i] = i;
    for (long i = n - 1; i > 0; i--) {
        long j = (long)(next_random() % (unsigned long)(i + 1)), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (long i = 0; i < n; i++) {
        struct node *x = &pool[order[i]];
        x->key = (next_random() % 1000000) * 2;
        root = insert(root, x);
    }
    for (long i = 0; i < m; i++)
        found += find(root, next_random() % 2000000);
    printf("found %ld of %ld\n", found, m);
    free(order);
    free(pool);
    return 0;
}
/* SPDX-License-Identifier: MIT */
