/* SPDX-License-Identifier: MIT */
/* A call trace turned into a replay program: the allocation calls (malloc, calloc, realloc,
 * free) in one global order that keeps each thread's recorded order and otherwise follows the
 * recorded time, one replay thread per recorded task, and each free or realloc matched by
 * pointer to the allocation whose result it was. Matching follows time: an allocation's pointer
 * becomes known when the call returned (time + duration), a free uses it when it starts, so a
 * pointer freed by one thread and returned again to another is matched to the right call.
 * Pointers are matched within a process (call_rec.pid): processes reuse addresses. All the
 * trace's threads, whatever their process, are replayed in one process.
 * Library code: nothing printed. */
#ifndef PROSPECT_REPLAY_PROG_H
#define PROSPECT_REPLAY_PROG_H
#include <stddef.h>
#include <stdint.h>
#include "calltrace/tracefile.h"
#include "intarget/replay_wire.h"

struct replay_prog {
    struct rp_op *ops;
    size_t nops;
    size_t *op_rec;             /* the trace record of each op */
    uint32_t nthreads;
    uint32_t *thread_tid;       /* the recorded task of each replay thread */
    uint32_t nslots;
    size_t calls[RP_NKINDS];    /* ops of each kind */
    size_t unknown_free;        /* free() of a pointer no traced allocation returned: skipped */
    size_t unknown_realloc;     /* realloc() of such a pointer: skipped */
    size_t failed_realloc;      /* realloc() that returned NULL in the trace: skipped */
    size_t no_return;           /* allocations that never returned in the trace (pointer unknown) */
    size_t reused_ptr;          /* a pointer returned again before it was freed (a lost free) */
    size_t other_calls;         /* calls of other functions: not replayed */
};

/* Builds p from t. 0; -EINVAL with msg (no allocation calls, more than RP_MAX_THREADS tasks or
 * RP_MAX_OPS calls); -ENOMEM. */
int replay_prog_build(const struct call_trace *t, struct replay_prog *p, char *msg, size_t len);
void replay_prog_release(struct replay_prog *p);
/* "malloc", "calloc", "realloc", "free". */
const char *replay_kind_name(unsigned kind);
#endif
