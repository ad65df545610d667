/* SPDX-License-Identifier: MIT */
/* Trace -> replay program: threads numbered by first appearance, each thread's order kept,
 * frees matched to their allocation by pointer in time order (a pointer freed by one thread and
 * returned again to another), unknown pointers skipped and counted, hostile traces refused. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "test.h"
#include "calltrace/tracefile.h"
#include "replay/replay_prog.h"

struct b {
    struct call_trace t;
    int f[5];
};

static void b_init(struct b *b)
{
    call_trace_init(&b->t);
    b->f[0] = call_trace_func(&b->t, "malloc");
    b->f[1] = call_trace_func(&b->t, "calloc");
    b->f[2] = call_trace_func(&b->t, "realloc");
    b->f[3] = call_trace_func(&b->t, "free");
    b->f[4] = call_trace_func(&b->t, "strlen");
}

static void call(struct b *b, unsigned kind, uint32_t tid, uint64_t time, uint64_t dur,
                 uint64_t a0, uint64_t a1, uint64_t ret)
{
    struct call_rec r = {.time_ns = time, .dur_ns = dur, .pid = 1, .tid = tid,
                         .func = (uint32_t)b->f[kind], .args = {a0, a1}, .ret = ret};
    call_trace_add(&b->t, &r);
}

TEST(prog_basic_match)
{
    struct b b;
    struct replay_prog p;
    char msg[128];
    b_init(&b);
    call(&b, 0, 10, 1, 1, 144, 0, 0x1000);          /* malloc(144) */
    call(&b, 4, 10, 2, 1, 0, 0, 3);                 /* strlen: not replayed */
    call(&b, 1, 10, 3, 1, 5, 8, 0x2000);            /* calloc(5, 8) */
    call(&b, 2, 10, 4, 1, 0x1000, 300, 0x3000);     /* realloc(0x1000, 300) */
    call(&b, 3, 10, 5, 1, 0x2000, 0, 0);            /* free(calloc's) */
    call(&b, 3, 10, 6, 1, 0x9999, 0, 0);            /* free(unknown): skipped */
    call(&b, 3, 10, 7, 1, 0, 0, 0);                 /* free(NULL): replayed */
    call(&b, 3, 10, 8, 1, 0x3000, 0, 0);            /* free(realloc's) */
    CHECK(replay_prog_build(&b.t, &p, msg, sizeof(msg)) == 0);
    CHECK_EQ_U64(p.nops, 6);
    CHECK_EQ_U64(p.nthreads, 1);
    CHECK_EQ_U64(p.other_calls, 1);
    CHECK_EQ_U64(p.unknown_free, 1);
    CHECK_EQ_U64(p.ops[0].kind, RP_MALLOC);
    CHECK_EQ_U64(p.ops[0].a, 144);
    CHECK_EQ_U64(p.ops[1].kind, RP_CALLOC);
    CHECK_EQ_U64(p.ops[1].a, 5);
    CHECK_EQ_U64(p.ops[1].b, 8);
    CHECK_EQ_U64(p.ops[2].kind, RP_REALLOC);
    CHECK_EQ_U64(p.ops[2].src, p.ops[0].slot);
    CHECK_EQ_U64(p.ops[2].a, 300);
    CHECK_EQ_U64(p.ops[3].kind, RP_FREE);
    CHECK_EQ_U64(p.ops[3].src, p.ops[1].slot);
    CHECK_EQ_U64(p.ops[4].src, RP_NONE);
    CHECK_EQ_U64(p.ops[5].src, p.ops[2].slot);
    CHECK_EQ_U64(p.op_rec[5], 7);
    CHECK_EQ_U64(p.calls[RP_FREE], 3);
    replay_prog_release(&p);
    call_trace_release(&b.t);
}

/* Task 20's malloc starts at 10 and returns 0x1000 at 50; meanwhile (at 30) task 30 frees the
 * older 0x1000 that task 10 allocated. The free is matched to task 10's call, and the next
 * free of 0x1000 to task 20's. */
TEST(prog_pointer_reused_across_threads)
{
    struct b b;
    struct replay_prog p;
    char msg[128];
    b_init(&b);
    call(&b, 0, 10, 1, 2, 16, 0, 0x1000);
    call(&b, 0, 20, 10, 40, 32, 0, 0x1000);
    call(&b, 3, 30, 30, 5, 0x1000, 0, 0);
    call(&b, 3, 10, 60, 5, 0x1000, 0, 0);
    CHECK(replay_prog_build(&b.t, &p, msg, sizeof(msg)) == 0);
    CHECK_EQ_U64(p.nops, 4);
    CHECK_EQ_U64(p.nthreads, 3);
    CHECK_EQ_U64(p.thread_tid[0], 10);
    CHECK_EQ_U64(p.thread_tid[1], 20);
    CHECK_EQ_U64(p.thread_tid[2], 30);
    CHECK_EQ_U64(p.ops[2].thread, 2);
    CHECK_EQ_U64(p.ops[2].src, p.ops[0].slot);
    CHECK_EQ_U64(p.ops[3].src, p.ops[1].slot);
    CHECK_EQ_U64(p.reused_ptr, 0);
    replay_prog_release(&p);
    call_trace_release(&b.t);
}

/* Times that go backwards inside a thread (a hostile file) do not reorder the thread, and a
 * free is never matched to an allocation placed after it (that would deadlock the turns). */
TEST(prog_thread_order_kept)
{
    struct b b;
    struct replay_prog p;
    char msg[128];
    b_init(&b);
    call(&b, 0, 1, 100, 0, 1, 0, 0x10);
    call(&b, 0, 1, 5, 0, 2, 0, 0x20);       /* earlier time, later in thread 1 */
    call(&b, 0, 2, 50, 0, 3, 0, 0x30);
    call(&b, 3, 2, 60, 0, 0x20, 0, 0);      /* frees thread 1's second call */
    CHECK(replay_prog_build(&b.t, &p, msg, sizeof(msg)) == 0);
    /* Thread 1's calls keep their order: sizes 1 then 2. */
    size_t i1 = SIZE_MAX, i2 = SIZE_MAX;
    for (size_t i = 0; i < p.nops; i++) {
        if (p.ops[i].kind == RP_MALLOC && p.ops[i].a == 1)
            i1 = i;
        if (p.ops[i].kind == RP_MALLOC && p.ops[i].a == 2)
            i2 = i;
    }
    CHECK(i1 < i2);
    for (size_t i = 0; i < p.nops; i++)
        if (p.ops[i].src != RP_NONE)
            for (size_t j = i; j < p.nops; j++)
                CHECK(p.ops[j].slot != p.ops[i].src);
    replay_prog_release(&p);
    call_trace_release(&b.t);
}

TEST(prog_realloc_cases)
{
    struct b b;
    struct replay_prog p;
    char msg[128];
    b_init(&b);
    call(&b, 2, 1, 1, 1, 0, 64, 0x100);         /* realloc(NULL, 64): replayed */
    call(&b, 2, 1, 2, 1, 0x100, 1 << 30, 0);    /* failed in the trace: skipped */
    call(&b, 2, 1, 3, 1, 0x555, 8, 0x600);      /* unknown pointer: skipped */
    call(&b, 3, 1, 4, 1, 0x100, 0, 0);          /* still the first block */
    CHECK(replay_prog_build(&b.t, &p, msg, sizeof(msg)) == 0);
    CHECK_EQ_U64(p.nops, 2);
    CHECK_EQ_U64(p.ops[0].src, RP_NONE);
    CHECK_EQ_U64(p.failed_realloc, 1);
    CHECK_EQ_U64(p.unknown_realloc, 1);
    CHECK_EQ_U64(p.ops[1].src, p.ops[0].slot);
    replay_prog_release(&p);
    call_trace_release(&b.t);
}

/* Two processes (a fork) hand out the same address: a free matches within its process. */
TEST(prog_pointers_per_process)
{
    struct b b;
    struct replay_prog p;
    char msg[128];
    b_init(&b);
    call(&b, 0, 1, 1, 1, 16, 0, 0x1000);                        /* pid 1 */
    struct call_rec r = {.time_ns = 2, .dur_ns = 1, .pid = 2, .tid = 2,
                         .func = (uint32_t)b.f[0], .args = {32}, .ret = 0x1000};
    call_trace_add(&b.t, &r);                                   /* pid 2: malloc -> 0x1000 */
    r = (struct call_rec){.time_ns = 3, .pid = 2, .tid = 2, .func = (uint32_t)b.f[3],
                          .args = {0x1000}};
    call_trace_add(&b.t, &r);                                   /* pid 2 frees its own */
    call(&b, 3, 1, 4, 1, 0x1000, 0, 0);                         /* pid 1 frees its own */
    CHECK(replay_prog_build(&b.t, &p, msg, sizeof(msg)) == 0);
    CHECK_EQ_U64(p.nops, 4);
    CHECK_EQ_U64(p.ops[2].src, p.ops[1].slot);
    CHECK_EQ_U64(p.ops[3].src, p.ops[0].slot);
    CHECK_EQ_U64(p.reused_ptr, 0);
    replay_prog_release(&p);
    call_trace_release(&b.t);
}

TEST(prog_refusals)
{
    struct b b;
    struct replay_prog p;
    char msg[128];
    b_init(&b);
    call(&b, 4, 1, 1, 1, 0, 0, 0);
    CHECK(replay_prog_build(&b.t, &p, msg, sizeof(msg)) == -EINVAL);
    CHECK(strstr(msg, "no malloc"));
    call_trace_release(&b.t);
    b_init(&b);
    for (uint32_t tid = 1; tid <= RP_MAX_THREADS + 1; tid++)
        call(&b, 0, tid, tid, 1, 8, 0, 0x1000 + tid);
    CHECK(replay_prog_build(&b.t, &p, msg, sizeof(msg)) == -EINVAL);
    CHECK(strstr(msg, "tasks"));
    call_trace_release(&b.t);
    b_init(&b);
    call(&b, 3, 1, 1, 1, 0x77, 0, 0);
    CHECK(replay_prog_build(&b.t, &p, msg, sizeof(msg)) == -EINVAL);
    CHECK(strstr(msg, "skipped"));
    call_trace_release(&b.t);
}

int main(void)
{
    RUN(prog_basic_match);
    RUN(prog_pointer_reused_across_threads);
    RUN(prog_thread_order_kept);
    RUN(prog_realloc_cases);
    RUN(prog_pointers_per_process);
    RUN(prog_refusals);
    return 0;
}
