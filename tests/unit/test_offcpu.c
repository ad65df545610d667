/* SPDX-License-Identifier: MIT */
/* Off-CPU waits (offcpu/offcpu.c): a switch-out opens a wait on its stack, the thread's
 * switch-in weighs it in ns; preemptions are no waits; waits that never end are counted. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "model/process.h"
#include "offcpu/offcpu.h"
#include "perf/record.h"
#include "test.h"

/* A sched_switch raw record (tracefs' layout): prev_state and next_pid set. */
static void raw_switch(unsigned char raw[64], long prev_state, int next_pid)
{
    memset(raw, 0, 64);
    memcpy(raw + 32, &prev_state, sizeof(prev_state));
    memcpy(raw + 56, &next_pid, sizeof(next_pid));
}

static struct sample switch_out(uint32_t tid, uint64_t time, const uint64_t *chain, uint64_t n,
                                const unsigned char *raw)
{
    return (struct sample){ .cpumode = PERF_RECORD_MISC_KERNEL, .ip = chain[1], .tid = tid,
                            .pid = tid, .time = time, .nr_callchain = n, .callchain = chain,
                            .raw = raw, .raw_size = raw ? 64 : 0 };
}

TEST(a_wait_weighs_its_time_on_the_stack_it_blocked_in)
{
    struct process *p = process_new(7, "napper");
    const uint64_t nap[] = { PERF_CONTEXT_KERNEL, 0xffffffff81000010ull, PERF_CONTEXT_USER,
                             0x401000, 0x402000 };
    const uint64_t io[] = { PERF_CONTEXT_KERNEL, 0xffffffff81000010ull, PERF_CONTEXT_USER,
                            0x403000, 0x402000 };
    unsigned char raw[64];
    struct offcpu oc;
    struct sample s;

    CHECK(p);
    offcpu_init(&oc, NULL);
    raw_switch(raw, 1, 0);                      /* S: a sleep */
    s = switch_out(7, 1000, nap, 5, raw);
    CHECK(offcpu_sample(&oc, p, &s) == 0);
    CHECK(offcpu_switch_in(&oc, 8, 1500) == 0);    /* another thread: nothing */
    CHECK_EQ_U64(oc.waits, 0);
    CHECK(offcpu_switch_in(&oc, 7, 201000) == 0);
    CHECK(offcpu_switch_in(&oc, 7, 300000) == 0);  /* no open wait: nothing */
    s = switch_out(7, 400000, nap, 5, raw);
    CHECK(offcpu_sample(&oc, p, &s) == 0);
    CHECK(offcpu_switch_in(&oc, 7, 500000) == 0);
    raw_switch(raw, 2, 0);                      /* D: disk */
    s = switch_out(7, 600000, io, 5, raw);
    CHECK(offcpu_sample(&oc, p, &s) == 0);
    CHECK(offcpu_switch_in(&oc, 7, 600050) == 0);
    CHECK_EQ_U64(oc.waits, 3);
    CHECK_EQ_U64(oc.ns, 200000 + 100000 + 50);
    CHECK_EQ_U64(oc.stacks.nstacks, 2);         /* the same stack twice is one */
    CHECK_EQ_U64(oc.stacks.stacks[0].samples, 2);
    CHECK_EQ_U64(oc.stacks.stacks[0].period, 300000);
    CHECK_EQ_U64(oc.stacks.stacks[1].period, 50);
    CHECK_EQ_U64(oc.stacks.stacks[0].n, 3);
    offcpu_release(&oc);
    process_free(p);
}

TEST(preemptions_are_no_waits_and_raw_next_pid_ends_one)
{
    struct process *p = process_new(7, "t");
    const uint64_t chain[] = { PERF_CONTEXT_KERNEL, 0xffffffff81000010ull, PERF_CONTEXT_USER,
                               0x401000 };
    unsigned char raw[64];
    struct offcpu oc;
    struct sample s;

    CHECK(p);
    offcpu_init(&oc, NULL);
    raw_switch(raw, 0, 0);                      /* R: preempted */
    s = switch_out(7, 100, chain, 4, raw);
    CHECK(offcpu_sample(&oc, p, &s) == 0);
    raw_switch(raw, 0x100, 0);                  /* R+ (TASK_REPORT_MAX): preempted too */
    s = switch_out(7, 150, chain, 4, raw);
    CHECK(offcpu_sample(&oc, p, &s) == 0);
    CHECK_EQ_U64(oc.preempted, 2);
    raw_switch(raw, 1, 0);
    s = switch_out(7, 200, chain, 4, raw);
    CHECK(offcpu_sample(&oc, p, &s) == 0);
    /* Another thread's switch-out naming 7 as next (a -a file): 7 runs again at its time. */
    raw_switch(raw, 0, 7);
    s = switch_out(9, 900, chain, 4, raw);
    CHECK(offcpu_sample(&oc, p, &s) == 0);
    CHECK_EQ_U64(oc.waits, 1);
    CHECK_EQ_U64(oc.ns, 700);
    offcpu_release(&oc);
    process_free(p);
}

TEST(a_preemption_counts_its_runnable_time_until_the_switch_in)
{
    struct process *p = process_new(7, "t");
    const uint64_t chain[] = { PERF_CONTEXT_KERNEL, 0xffffffff81000010ull, PERF_CONTEXT_USER,
                               0x401000 };
    unsigned char raw[64];
    struct offcpu oc;
    struct sample s;

    CHECK(p);
    offcpu_init(&oc, NULL);
    raw_switch(raw, 0, 0);                      /* R: preempted at 100, runs again at 350 */
    s = switch_out(7, 100, chain, 4, raw);
    CHECK(offcpu_sample(&oc, p, &s) == 0);
    CHECK(offcpu_switch_in(&oc, 7, 350) == 0);
    CHECK_EQ_U64(oc.preempted_ns, 250);
    CHECK_EQ_U64(oc.waits, 0);
    CHECK_EQ_U64(oc.ns, 0);
    /* A hidden thread's preemption (the filters) is not counted; a preemption never
     * followed by a switch-in is no unended wait. */
    s = switch_out(8, 400, chain, 4, raw);
    CHECK(offcpu_sample_hidden(&oc, &s) == 0);
    CHECK(offcpu_switch_in(&oc, 8, 900) == 0);
    s = switch_out(7, 1000, chain, 4, raw);
    CHECK(offcpu_sample(&oc, p, &s) == 0);
    offcpu_finish(&oc);
    CHECK_EQ_U64(oc.preempted_ns, 250);
    CHECK_EQ_U64(oc.unended, 0);
    CHECK_EQ_U64(oc.preempted, 2);
    offcpu_release(&oc);
    process_free(p);
}

TEST(waits_that_never_end_are_counted_not_weighed)
{
    struct process *p = process_new(7, "t");
    const uint64_t chain[] = { PERF_CONTEXT_USER, 0x401000 };
    struct offcpu oc;
    struct sample s;

    CHECK(p);
    offcpu_init(&oc, NULL);
    s = switch_out(7, 100, chain, 2, NULL);     /* no raw data: taken as a wait */
    CHECK(offcpu_sample(&oc, p, &s) == 0);
    s = switch_out(7, 200, chain, 2, NULL);     /* out again: the switch-in was not seen */
    CHECK(offcpu_sample(&oc, p, &s) == 0);
    CHECK(offcpu_switch_in(&oc, 7, 150) == 0);  /* before the open wait began: ignored */
    s = switch_out(8, 300, chain, 2, NULL);
    CHECK(offcpu_sample(&oc, p, &s) == 0);
    offcpu_finish(&oc);
    CHECK_EQ_U64(oc.unended, 3);
    CHECK_EQ_U64(oc.waits, 0);
    CHECK_EQ_U64(oc.stacks.nstacks, 0);
    offcpu_release(&oc);
    process_free(p);
}

TEST(an_exiting_thread_opens_no_wait)
{
    struct process *p = process_new(7, "t");
    const uint64_t chain[] = { PERF_CONTEXT_KERNEL, 0xffffffff81000010ull };
    unsigned char raw[64];
    struct offcpu oc;
    struct sample s;

    CHECK(p);
    offcpu_init(&oc, NULL);
    raw_switch(raw, 0x20, 9);                   /* Z: the last switch of an exiting thread */
    s = switch_out(7, 100, chain, 2, raw);
    CHECK(offcpu_sample(&oc, p, &s) == 0);
    raw_switch(raw, 0x10, 9);                   /* X: dead */
    s = switch_out(8, 200, chain, 2, raw);
    CHECK(offcpu_sample(&oc, p, &s) == 0);
    offcpu_finish(&oc);
    CHECK_EQ_U64(oc.unended, 0);                /* not 'had not ended when recording stopped' */
    CHECK_EQ_U64(oc.waits, 0);
    CHECK_EQ_U64(oc.exited, 2);
    offcpu_release(&oc);
    process_free(p);
}

TEST(a_hidden_thread_ends_waits_and_counts_in_the_total_only)
{
    struct process *p = process_new(7, "shown");
    const uint64_t chain[] = { PERF_CONTEXT_KERNEL, 0xffffffff81000010ull };
    unsigned char raw[64];
    struct offcpu oc;
    struct sample s;

    CHECK(p);
    offcpu_init(&oc, NULL);
    raw_switch(raw, 1, 0);                      /* the shown thread 7 sleeps at 100 */
    s = switch_out(7, 100, chain, 2, raw);
    CHECK(offcpu_sample(&oc, p, &s) == 0);
    raw_switch(raw, 1, 0);                      /* hidden thread 9 sleeps at 150 */
    s = switch_out(9, 150, chain, 2, raw);
    CHECK(offcpu_sample_hidden(&oc, &s) == 0);
    raw_switch(raw, 1, 7);                      /* hidden 8 switches to 7 at 400: 7 ran */
    s = switch_out(8, 400, chain, 2, raw);
    CHECK(offcpu_sample_hidden(&oc, &s) == 0);
    CHECK(offcpu_switch_in(&oc, 9, 1150) == 0); /* 9 ran again: 1000 ns, hidden */
    offcpu_finish(&oc);
    CHECK_EQ_U64(oc.waits, 1);
    CHECK_EQ_U64(oc.ns, 300);
    CHECK_EQ_U64(oc.ns_hidden, 1000);
    CHECK_EQ_U64(oc.stacks.nstacks, 1);
    CHECK_EQ_U64(oc.unended, 0);                /* 8's wait is hidden, not 'not ended' */
    offcpu_release(&oc);
    process_free(p);
}

/* A kernel whose sched_switch puts its fields elsewhere (here 8 bytes further on, as when the
 * common header grows; PREEMPT_RT kernels have had a longer one): read where its format says,
 * not where 64-bit Linux usually puts them. */
static const char SHIFTED[] =
    "name: sched_switch\nID: 9\nformat:\n"
    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
    "\tfield:unsigned long common_extra;\toffset:8;\tsize:8;\tsigned:0;\n\n"
    "\tfield:char prev_comm[16];\toffset:16;\tsize:16;\tsigned:0;\n"
    "\tfield:pid_t prev_pid;\toffset:32;\tsize:4;\tsigned:1;\n"
    "\tfield:long prev_state;\toffset:40;\tsize:8;\tsigned:1;\n"
    "\tfield:char next_comm[16];\toffset:48;\tsize:16;\tsigned:0;\n"
    "\tfield:pid_t next_pid;\toffset:64;\tsize:4;\tsigned:1;\n";

static void raw_shifted(unsigned char raw[72], long prev_state, int next_pid)
{
    long junk = 1;                               /* 'S' where the usual prev_state is */
    int junk_pid = 7;                            /* thread 7 where the usual next_pid is */
    memset(raw, 0, 72);
    memcpy(raw + 32, &junk, sizeof(junk));
    memcpy(raw + 56, &junk_pid, sizeof(junk_pid));
    memcpy(raw + 40, &prev_state, sizeof(prev_state));
    memcpy(raw + 64, &next_pid, sizeof(next_pid));
}

TEST(raw_fields_are_read_where_the_format_puts_them)
{
    struct process *p = process_new(7, "t");
    const uint64_t chain[] = { PERF_CONTEXT_KERNEL, 0xffffffff81000010ull };
    unsigned char raw[72];
    struct offcpu oc;
    struct sample s;

    CHECK(p);
    offcpu_init(&oc, NULL);
    CHECK(offcpu_use_format(&oc, SHIFTED, strlen(SHIFTED)) == 0);
    CHECK(!offcpu_format_gap(&oc));
    raw_shifted(raw, 0, 0);                     /* R at its place: preempted, no wait */
    s = switch_out(7, 100, chain, 2, raw);
    s.raw_size = 72;
    CHECK(offcpu_sample(&oc, p, &s) == 0);
    CHECK_EQ_U64(oc.preempted, 1);
    raw_shifted(raw, 2, 0);                     /* D: a wait from 200 */
    s = switch_out(7, 200, chain, 2, raw);
    s.raw_size = 72;
    CHECK(offcpu_sample(&oc, p, &s) == 0);
    raw_shifted(raw, 1, 0);                     /* 8 sleeps, 7 is at the usual next_pid */
    s = switch_out(8, 250, chain, 2, raw);
    s.raw_size = 72;
    CHECK(offcpu_sample(&oc, p, &s) == 0);
    CHECK_EQ_U64(oc.waits, 0);                  /* the usual place's 7 ended nothing */
    raw_shifted(raw, 1, 7);                     /* 9 switches to 7 at 900 */
    s = switch_out(9, 900, chain, 2, raw);
    s.raw_size = 72;
    CHECK(offcpu_sample(&oc, p, &s) == 0);
    CHECK_EQ_U64(oc.waits, 1);
    CHECK_EQ_U64(oc.ns, 700);
    offcpu_release(&oc);
    process_free(p);
}

TEST(a_format_without_prev_state_counts_every_switch_out)
{
    static const char NO_STATE[] = "name: sched_switch\nformat:\n"
                                   "\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n";
    static const char BAD[] = "name: sched_switch\nformat:\n"
                              "\tfield:long prev_state;\toffset:x;\tsize:8;\tsigned:1;\n";
    struct process *p = process_new(7, "t");
    const uint64_t chain[] = { PERF_CONTEXT_KERNEL, 0xffffffff81000010ull };
    unsigned char raw[64];
    struct offcpu oc;
    struct sample s;

    CHECK(p);
    offcpu_init(&oc, NULL);
    CHECK(offcpu_use_format(&oc, BAD, strlen(BAD)) == -EINVAL);
    CHECK(!offcpu_format_gap(&oc));             /* a malformed format keeps the usual layout */
    CHECK(offcpu_use_format(&oc, NO_STATE, strlen(NO_STATE)) == -ENOENT);
    CHECK(offcpu_format_gap(&oc) && strstr(offcpu_format_gap(&oc), "preemptions"));
    raw_switch(raw, 0, 0);                      /* R, but nothing says so */
    s = switch_out(7, 100, chain, 2, raw);
    CHECK(offcpu_sample(&oc, p, &s) == 0);
    CHECK(offcpu_switch_in(&oc, 7, 300) == 0);
    CHECK_EQ_U64(oc.preempted, 0);
    CHECK_EQ_U64(oc.waits, 1);
    offcpu_release(&oc);
    process_free(p);
}

TEST(waits_only_logs_each_wait_with_its_thread_and_times)
{
    struct process *p = process_new(7, "napper");
    const uint64_t nap[] = { PERF_CONTEXT_KERNEL, 0xffffffff81000010ull, PERF_CONTEXT_USER,
                             0x401000 };
    unsigned char raw[64];
    struct offcpu oc;
    struct sample s;

    CHECK(p);
    offcpu_init(&oc, NULL);
    oc.waits_only = true;
    raw_switch(raw, 1, 0);                      /* S: a sleep */
    s = switch_out(7, 1000, nap, 4, raw);
    CHECK(offcpu_sample(&oc, p, &s) == 0);
    raw_switch(raw, 0, 0);                      /* R: a preemption, no wait */
    s = switch_out(9, 1200, nap, 4, raw);
    CHECK(offcpu_sample(&oc, p, &s) == 0);
    CHECK(offcpu_switch_in(&oc, 9, 1300) == 0);
    CHECK(offcpu_switch_in(&oc, 7, 5000) == 0);
    CHECK_EQ_U64(oc.waits, 1);
    CHECK_EQ_U64(oc.ns, 4000);
    CHECK_EQ_U64(oc.wait_log.n, 1);
    CHECK_EQ_U64(oc.wait_log.v[0].tid, 7);
    CHECK_EQ_U64(oc.wait_log.v[0].start, 1000);
    CHECK_EQ_U64(oc.wait_log.v[0].end, 5000);
    CHECK_EQ_U64(oc.stacks.nstacks, 0);         /* no stack captured or stored */
    CHECK_EQ_U64(oc.opened.nstacks, 0);
    offcpu_release(&oc);
    process_free(p);
}

int main(void)
{
    RUN(a_wait_weighs_its_time_on_the_stack_it_blocked_in);
    RUN(preemptions_are_no_waits_and_raw_next_pid_ends_one);
    RUN(a_preemption_counts_its_runnable_time_until_the_switch_in);
    RUN(waits_that_never_end_are_counted_not_weighed);
    RUN(an_exiting_thread_opens_no_wait);
    RUN(a_hidden_thread_ends_waits_and_counts_in_the_total_only);
    RUN(raw_fields_are_read_where_the_format_puts_them);
    RUN(a_format_without_prev_state_counts_every_switch_out);
    RUN(waits_only_logs_each_wait_with_its_thread_and_times);
    return 0;
}
