/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <string.h>
#include "report/thread_tally.h"
#include "util/hash.h"

void thread_tally_init(struct thread_tally *t)
{
    memset(t, 0, sizeof(*t));
    hashmap_init(&t->index);
    hashmap_init(&t->comm_of);
}

void thread_tally_release(struct thread_tally *t)
{
    vec_free(&t->rows);
    vec_free(&t->names);
    hashmap_release(&t->index);
    hashmap_release(&t->comm_of);
}

static int set_name(struct thread_tally *t, uint32_t tid, const char *name, size_t len)
{
    typeof(*t->names.v) n = { { 0 } };

    memcpy(n.s, name, len < sizeof(n.s) - 1 ? len : sizeof(n.s) - 1);
    if (vec_push(&t->names, n) ||
        hashmap_put(&t->comm_of, tid, (void *)(uintptr_t)t->names.n))
        return -ENOMEM;
    return 0;
}

int thread_tally_record(struct thread_tally *t, const struct perf_event_header *h)
{
    if (h->type == PERF_RECORD_COMM && h->size > sizeof(struct rec_comm)) {
        const struct rec_comm *r = (const void *)h;
        size_t max = h->size - sizeof(*r);
        return set_name(t, r->tid, r->comm, strnlen(r->comm, max));
    }
    if (h->type == PERF_RECORD_FORK && h->size >= sizeof(struct rec_fork)) {
        const struct rec_fork *r = (const void *)h;
        uintptr_t parent = (uintptr_t)hashmap_get(&t->comm_of, r->ptid);
        if (parent && hashmap_put(&t->comm_of, r->tid, (void *)parent))
            return -ENOMEM;
    }
    return 0;
}

const char *thread_tally_comm(const struct thread_tally *t, pid_t tid)
{
    uintptr_t name = (uintptr_t)hashmap_get(&t->comm_of, (uint32_t)tid);
    return name ? t->names.v[name - 1].s : NULL;
}

int thread_tally_sample(struct thread_tally *t, pid_t pid, pid_t tid, uint64_t period)
{
    uintptr_t name = (uintptr_t)hashmap_get(&t->comm_of, (uint32_t)tid), idx;
    const char *comm = name ? t->names.v[name - 1].s : "";
    struct thread_row *r = NULL;
    uint64_t h = hash_u64((uint32_t)tid);

    for (; (idx = (uintptr_t)hashmap_get(&t->index, h)); h++)
        if (t->rows.v[idx - 1].tid == tid) {
            r = &t->rows.v[idx - 1];
            break;
        }
    if (!r) {
        struct thread_row nr = { .pid = pid, .tid = tid };
        if (vec_push(&t->rows, nr) || hashmap_put(&t->index, h, (void *)(uintptr_t)t->rows.n))
            return -ENOMEM;
        r = &t->rows.v[t->rows.n - 1];
    }
    /* One row per thread named as it was last seen (an exec renames it), as perf's. */
    memcpy(r->comm, comm, strlen(comm) + 1);
    r->samples++;
    r->period += period;
    return 0;
}
