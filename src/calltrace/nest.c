/* SPDX-License-Identifier: MIT */
/* Nesting of calls per thread (see nest.h): a stack of the ends of the calls under way. */
#include "calltrace/nest.h"

#include <errno.h>
#include <stdlib.h>

struct nest_thread {
    uint32_t tid, n;                /* tid 0: an empty slot */
    uint64_t end[CT_NEST_MAX];
};

struct ct_nest {
    struct nest_thread *v;          /* open addressing, a power of two, at most half full */
    size_t cap, used;
};

struct ct_nest *ct_nest_new(void)
{
    return calloc(1, sizeof(struct ct_nest));
}

void ct_nest_free(struct ct_nest *n)
{
    if (n) {
        free(n->v);
        free(n);
    }
}

static struct nest_thread *slot_of(struct nest_thread *v, size_t cap, uint32_t tid)
{
    size_t i = (tid * 0x9e3779b1u) & (cap - 1);
    while (v[i].tid && v[i].tid != tid)
        i = (i + 1) & (cap - 1);
    return &v[i];
}

static int grow(struct ct_nest *n)
{
    size_t cap = n->cap ? n->cap * 2 : 16;
    struct nest_thread *v = calloc(cap, sizeof(*v));
    if (!v)
        return -ENOMEM;
    for (size_t i = 0; i < n->cap; i++)
        if (n->v[i].tid)
            *slot_of(v, cap, n->v[i].tid) = n->v[i];
    free(n->v);
    n->v = v;
    n->cap = cap;
    return 0;
}

/* tid 0 (no thread id known) shares the slot of ~0u: 0 marks an empty slot. */
static struct nest_thread *thread_of(struct ct_nest *n, uint32_t tid)
{
    tid = tid ? tid : ~0u;
    if (2 * (n->used + 1) > n->cap && grow(n))
        return NULL;
    struct nest_thread *t = slot_of(n->v, n->cap, tid);
    if (!t->tid) {
        t->tid = tid;
        n->used++;
    }
    return t;
}

int ct_nest_depth(struct ct_nest *n, uint32_t tid, uint64_t t0, uint64_t t1)
{
    struct nest_thread *t = thread_of(n, tid);
    if (!t)
        return -ENOMEM;
    while (t->n && t->end[t->n - 1] <= t0)
        t->n--;
    unsigned depth = t->n;
    if (t->n < CT_NEST_MAX)
        t->end[t->n++] = t1;
    return (int)depth;
}
