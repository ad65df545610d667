/* SPDX-License-Identifier: MIT */
/* Trace -> replay program (see replay_prog.h): pick the allocation calls, number the tasks,
 * merge the threads by time keeping each thread's order, then match pointers in time order. */
#include "replay/replay_prog.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/hashmap.h"

static const char *const kind_names[RP_NKINDS] = {"malloc", "calloc", "realloc", "free"};

const char *replay_kind_name(unsigned kind)
{
    return kind < RP_NKINDS ? kind_names[kind] : "?";
}

void replay_prog_release(struct replay_prog *p)
{
    free(p->ops);
    free(p->op_rec);
    free(p->thread_tid);
    memset(p, 0, sizeof(*p));
}

/* A min-heap of indexes into `key` (ties: the smaller index first). */
struct heap {
    size_t *v, n;
    const uint64_t *key;
};

static int heap_less(const struct heap *h, size_t a, size_t b)
{
    uint64_t ka = h->key[h->v[a]], kb = h->key[h->v[b]];
    return ka < kb || (ka == kb && h->v[a] < h->v[b]);
}

static void heap_swap(struct heap *h, size_t a, size_t b)
{
    size_t t = h->v[a];
    h->v[a] = h->v[b];
    h->v[b] = t;
}

static void heap_push(struct heap *h, size_t x)
{
    size_t i = h->n++;
    h->v[i] = x;
    while (i && heap_less(h, i, (i - 1) / 2)) {
        heap_swap(h, i, (i - 1) / 2);
        i = (i - 1) / 2;
    }
}

static size_t heap_pop(struct heap *h)
{
    size_t top = h->v[0], i = 0;
    h->v[0] = h->v[--h->n];
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < h->n && heap_less(h, l, m))
            m = l;
        if (r < h->n && heap_less(h, r, m))
            m = r;
        if (m == i)
            break;
        heap_swap(h, i, m);
        i = m;
    }
    return top;
}

static int fail(char *msg, size_t len, int err, const char *text)
{
    if (msg)
        snprintf(msg, len, "%s", text);
    return err;
}

/* The pointer map of process pid (created on first use): pointers are matched within a
 * process, since two processes of one trace reuse the same addresses. NULL on ENOMEM. */
static struct hashmap *proc_ptrs(struct hashmap *procs, uint32_t pid)
{
    struct hashmap *m = hashmap_get(procs, pid);
    if (m)
        return m;
    m = malloc(sizeof(*m));
    if (!m)
        return NULL;
    hashmap_init(m);
    if (hashmap_put(procs, pid, m)) {
        free(m);
        return NULL;
    }
    return m;
}

static void procs_release(struct hashmap *procs)
{
    for (size_t i = 0; i < procs->cap; i++)
        if (procs->vals[i]) {
            hashmap_release(procs->vals[i]);
            free(procs->vals[i]);
        }
    hashmap_release(procs);
}

/* Pointer -> slot + 1 in a hashmap (values must be non-NULL). */
static uint32_t ptr_slot(struct hashmap *m, uint64_t ptr)
{
    void *v = hashmap_get(m, ptr);
    return v ? (uint32_t)((uintptr_t)v - 1) : RP_NONE;
}

int replay_prog_build(const struct call_trace *t, struct replay_prog *p, char *msg, size_t len)
{
    int kind_of_func[4] = {-1, -1, -1, -1};
    memset(p, 0, sizeof(*p));
    for (uint32_t f = 0; f < t->nfuncs; f++)
        for (unsigned k = 0; k < RP_NKINDS; k++)
            if (!strcmp(t->funcs[f], kind_names[k]))
                kind_of_func[k] = (int)f;

    /* The allocation calls, in file order, and their tasks in order of first appearance. */
    size_t n = 0, *recs = malloc((t->nrecs ? t->nrecs : 1) * sizeof(*recs));
    uint8_t *kinds = malloc(t->nrecs ? t->nrecs : 1);
    uint32_t *thr = malloc((t->nrecs ? t->nrecs : 1) * sizeof(*thr));
    struct hashmap tids, procs;
    hashmap_init(&tids);
    hashmap_init(&procs);
    int err = 0;
    size_t *heapv = NULL, *next = NULL, *head = NULL;
    uint64_t *key = NULL;
    if (!recs || !kinds || !thr) {
        err = -ENOMEM;
        goto out;
    }
    for (size_t i = 0; i < t->nrecs; i++) {
        const struct call_rec *r = &t->recs[i];
        int k = -1;
        for (unsigned j = 0; j < RP_NKINDS; j++)
            if (kind_of_func[j] >= 0 && r->func == (uint32_t)kind_of_func[j])
                k = (int)j;
        if (k < 0) {
            p->other_calls++;
            continue;
        }
        void *v = hashmap_get(&tids, r->tid);
        if (!v) {
            if (p->nthreads >= RP_MAX_THREADS) {
                err = fail(msg, len, -EINVAL, "the trace has more tasks than replay supports "
                                              "(1024)");
                goto out;
            }
            uint32_t *nt = realloc(p->thread_tid, (p->nthreads + 1) * sizeof(*nt));
            if (!nt || hashmap_put(&tids, r->tid, (void *)(uintptr_t)(p->nthreads + 1))) {
                if (nt)
                    p->thread_tid = nt;
                err = -ENOMEM;
                goto out;
            }
            p->thread_tid = nt;
            p->thread_tid[p->nthreads++] = r->tid;
            v = (void *)(uintptr_t)p->nthreads;
        }
        thr[n] = (uint32_t)((uintptr_t)v - 1);
        kinds[n] = (uint8_t)k;
        recs[n++] = i;
    }
    if (n == 0) {
        err = fail(msg, len, -EINVAL, "no malloc, calloc, realloc or free calls in the trace");
        goto out;
    }
    if (n > RP_MAX_OPS) {
        err = fail(msg, len, -EINVAL, "more calls than replay supports (2^30)");
        goto out;
    }

    /* Merge the threads: each thread's calls stay in file order; across threads the smallest
     * start time goes first. next[] chains a thread's calls; head[] is each thread's next. */
    next = malloc(n * sizeof(*next));
    head = malloc(p->nthreads * sizeof(*head));
    key = malloc(n * sizeof(*key));
    heapv = malloc((n > p->nthreads ? n : p->nthreads) * sizeof(*heapv));
    p->ops = calloc(n, sizeof(*p->ops));
    p->op_rec = malloc(n * sizeof(*p->op_rec));
    if (!next || !head || !key || !heapv || !p->ops || !p->op_rec) {
        err = -ENOMEM;
        goto out;
    }
    {
        size_t *tail = calloc(p->nthreads, sizeof(*tail));
        if (!tail) {
            err = -ENOMEM;
            goto out;
        }
        for (uint32_t th = 0; th < p->nthreads; th++)
            head[th] = SIZE_MAX;
        for (size_t i = 0; i < n; i++) {
            next[i] = SIZE_MAX;
            key[i] = t->recs[recs[i]].time_ns;
            if (head[thr[i]] == SIZE_MAX)
                head[thr[i]] = i;
            else
                next[tail[thr[i]]] = i;
            tail[thr[i]] = i;
        }
        free(tail);
    }
    struct heap h = {heapv, 0, key};
    for (uint32_t th = 0; th < p->nthreads; th++)
        heap_push(&h, head[th]);
    size_t *order = recs;   /* reuse: order[j] = call index (into recs) at global position j */
    size_t *pos = malloc(n * sizeof(*pos));
    if (!pos) {
        err = -ENOMEM;
        goto out;
    }
    for (size_t j = 0; j < n; j++) {
        size_t i = heap_pop(&h);
        pos[j] = i;
        if (next[i] != SIZE_MAX)
            heap_push(&h, next[i]);
    }

    /* Match pointers in time order: pending allocations publish their pointer once the clock
     * passes their return time (end[]), and only allocations already placed earlier in the
     * global order are ever matched, so a free never waits for a later call. */
    uint64_t *end = key;    /* reuse key[] for end times, indexed by global position */
    uint32_t *pslot = malloc(n * sizeof(*pslot));
    size_t *rec_at = malloc(n * sizeof(*rec_at));
    uint8_t *kind_at = malloc(n);
    uint32_t *thr_at = malloc(n * sizeof(*thr_at));
    if (!pslot || !rec_at || !kind_at || !thr_at) {
        free(pos); free(pslot); free(rec_at); free(kind_at); free(thr_at);
        err = -ENOMEM;
        goto out;
    }
    for (size_t j = 0; j < n; j++) {
        rec_at[j] = order[pos[j]];
        kind_at[j] = kinds[pos[j]];
        thr_at[j] = thr[pos[j]];
    }
    free(pos);
    for (size_t j = 0; j < n; j++) {
        const struct call_rec *r = &t->recs[rec_at[j]];
        end[j] = r->time_ns + r->dur_ns < r->time_ns ? UINT64_MAX : r->time_ns + r->dur_ns;
    }
    struct heap pend = {heapv, 0, end};
    size_t nout = 0;
    for (size_t j = 0; j < n && !err; j++) {
        const struct call_rec *r = &t->recs[rec_at[j]];
        /* Publish the allocations that returned before this call started. */
        while (pend.n && end[pend.v[0]] <= r->time_ns) {
            size_t a = heap_pop(&pend);
            uint64_t ret = t->recs[rec_at[a]].ret;
            if (!ret || pslot[a] == RP_NONE)
                continue;
            struct hashmap *ptrs = proc_ptrs(&procs, t->recs[rec_at[a]].pid);
            if (!ptrs) {
                err = -ENOMEM;
                break;
            }
            if (hashmap_get(ptrs, ret))
                p->reused_ptr++;
            if (hashmap_put(ptrs, ret, (void *)(uintptr_t)(pslot[a] + 1)))
                err = -ENOMEM;
        }
        struct rp_op op = {.kind = kind_at[j], .thread = thr_at[j], .slot = RP_NONE,
                           .src = RP_NONE};
        pslot[j] = RP_NONE;
        uint64_t ptr = r->args[0];
        if (op.kind == RP_FREE || op.kind == RP_REALLOC) {
            struct hashmap *ptrs = ptr ? proc_ptrs(&procs, r->pid) : NULL;
            if (ptr && !ptrs) {
                err = -ENOMEM;
                break;
            }
            if (ptr) {
                op.src = ptr_slot(ptrs, ptr);
                if (op.src == RP_NONE) {
                    if (op.kind == RP_FREE)
                        p->unknown_free++;
                    else
                        p->unknown_realloc++;
                    continue;
                }
                if (op.kind == RP_REALLOC && !r->ret && r->args[1] &&
                    !(r->flags & CALL_REC_NO_RETURN)) {
                    p->failed_realloc++;
                    continue;
                }
                hashmap_del(ptrs, ptr);
            }
        }
        if (op.kind == RP_MALLOC) {
            op.a = r->args[0];
        } else if (op.kind == RP_CALLOC) {
            op.a = r->args[0];
            op.b = r->args[1];
        } else if (op.kind == RP_REALLOC) {
            op.a = r->args[1];
        }
        if (op.kind != RP_FREE) {
            op.slot = p->nslots++;
            pslot[j] = op.slot;
            if (r->flags & CALL_REC_NO_RETURN)
                p->no_return++;
            else
                heap_push(&pend, j);
        }
        p->calls[op.kind]++;
        p->op_rec[nout] = rec_at[j];
        p->ops[nout++] = op;
    }
    p->nops = nout;
    free(pslot);
    free(rec_at);
    free(kind_at);
    free(thr_at);
    if (!err && nout == 0)
        err = fail(msg, len, -EINVAL, "every allocation call in the trace was skipped");
out:
    free(recs);
    free(kinds);
    free(thr);
    free(next);
    free(head);
    free(key);
    free(heapv);
    hashmap_release(&tids);
    procs_release(&procs);
    if (err)
        replay_prog_release(p);
    return err;
}
