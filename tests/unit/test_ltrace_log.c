/* SPDX-License-Identifier: MIT */
/* The ltrace log reader: the line forms ltrace 0.7 writes (copied from real logs made here),
 * unfinished/resumed pairs across threads, and hostile logs (an error naming the line, never
 * a crash or a wrong call). tests/e2e/replay.sh reads logs that ltrace writes during the test. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "test.h"
#include "calltrace/ltrace_log.h"

static int parse(const char *log, struct call_trace *t, struct ltrace_error *e)
{
    return ltrace_log_read_buf(log, strlen(log), t, e);
}

static const char *fname(const struct call_trace *t, size_t i)
{
    return t->funcs[t->recs[i].func];
}

/* ltrace -f -o: task ids, unfinished/resumed across three tasks, exits. */
TEST(ltrace_f_threads)
{
    const char *log =
        "17425 t->malloc(40)                              = 0x559331aa92a0\n"
        "17426 t->malloc(144)                             = 0x7f24f8000b70\n"
        "17426 t->free(0x7f24f8000b70 <unfinished ...>\n"
        "17427 t->malloc(144 <unfinished ...>\n"
        "17426 <... free resumed> )                       = <void>\n"
        "17427 <... malloc resumed> )                     = 0x7f24f0000b70\n"
        "17426 +++ exited (status 0) +++\n"
        "17425 t->realloc(0x559331aa92a0, 100)            = 0x559331aa9510\n"
        "17425 t->calloc(5, 8)                            = 0x559331aa9580\n"
        "17425 t->free(nil)                               = <void>\n"
        "17425 --- SIGCHLD (Child exited) ---\n"
        "17425 +++ exited (status 0) +++\n";
    struct call_trace t;
    struct ltrace_error e;
    CHECK(parse(log, &t, &e) == 0);
    CHECK_EQ_U64(t.nrecs, 7);
    CHECK_STR(fname(&t, 0), "malloc");
    CHECK_EQ_U64(t.recs[0].tid, 17425);
    CHECK_EQ_U64(t.recs[0].args[0], 40);
    CHECK_EQ_U64(t.recs[0].ret, 0x559331aa92a0ull);
    /* The free started on line 3 (its record is there), returned on line 5. */
    CHECK_STR(fname(&t, 2), "free");
    CHECK_EQ_U64(t.recs[2].args[0], 0x7f24f8000b70ull);
    CHECK_EQ_U64(t.recs[2].flags, 0);
    CHECK_EQ_U64(t.recs[2].time_ns, 3000);
    CHECK_EQ_U64(t.recs[2].dur_ns, 2000);
    CHECK_STR(fname(&t, 3), "malloc");
    CHECK_EQ_U64(t.recs[3].tid, 17427);
    CHECK_EQ_U64(t.recs[3].ret, 0x7f24f0000b70ull);
    CHECK_EQ_U64(t.recs[3].dur_ns, 2000);
    CHECK_STR(fname(&t, 4), "realloc");
    CHECK_EQ_U64(t.recs[4].args[0], 0x559331aa92a0ull);
    CHECK_EQ_U64(t.recs[4].args[1], 100);
    CHECK_STR(fname(&t, 5), "calloc");
    CHECK_EQ_U64(t.recs[5].args[0], 5);
    CHECK_EQ_U64(t.recs[5].args[1], 8);
    CHECK_EQ_U64(t.recs[6].args[0], 0);     /* nil */
    /* Time follows the lines. */
    for (size_t i = 1; i < t.nrecs; i++)
        CHECK(t.recs[i].time_ns > t.recs[i - 1].time_ns);
    call_trace_release(&t);
}

/* Seed 004's own lines (ltrace -p PID -f -o FILE -e malloc+free, with -T). */
TEST(ltrace_seed_lines)
{
    const char *log =
        "15671 exe->malloc(144)                    = 0x7fa9f6e82eb0 <0.000356>\n"
        "15671 exe->malloc(128)                    = 0x7fa9f1513580 <0.000318>\n"
        "15662 exe->malloc(40)                     = 0x7fa9f2338f90 <0.000365>\n"
        "15662 exe->free(0x7fa9f79e0000)           = <void> <0.000366>\n"
        "15662 exe->free(0x7fa9f6c3d100)           = <void> <0.000363>\n";
    struct call_trace t;
    struct ltrace_error e;
    CHECK(parse(log, &t, &e) == 0);
    CHECK_EQ_U64(t.nrecs, 5);
    CHECK_EQ_U64(t.nfuncs, 2);
    CHECK_EQ_U64(t.recs[1].args[0], 128);
    CHECK_EQ_U64(t.recs[1].ret, 0x7fa9f1513580ull);
    CHECK_EQ_U64(t.recs[1].dur_ns, 318000);
    CHECK_EQ_U64(t.recs[3].tid, 15662);
    CHECK_EQ_U64(t.recs[3].args[0], 0x7fa9f79e0000ull);
    call_trace_release(&t);
}

/* -f -tt -T -i: time of day, durations, caller addresses. */
TEST(ltrace_tt_T_i)
{
    const char *log =
        "17430 07:03:01.236094 [0x55e602dd51da] t->malloc(40) = 0x55e63a3a72a0 <0.000341>\n"
        "17431 07:03:01.237230 [0x55e602dd51a8] t->malloc(144 <unfinished ...>\n"
        "17432 07:03:01.237686 [0x55e602dd51a8] t->malloc(144 <unfinished ...>\n"
        "17431 07:03:01.237881 [0x55e602dd51a8] <... malloc resumed> ) = 0x7f3d00000b70 <0.000648>\n"
        "17431 07:03:01.240674 [0xffffffffffffffff] +++ exited (status 0) +++\n"
        "17432 07:03:01.240731 [0xffffffffffffffff] +++ exited (status 0) +++\n";
    struct call_trace t;
    struct ltrace_error e;
    CHECK(parse(log, &t, &e) == 0);
    CHECK_EQ_U64(t.nrecs, 3);
    CHECK_EQ_U64(t.recs[0].time_ns, 0);
    CHECK_EQ_U64(t.recs[0].dur_ns, 341000);
    CHECK_EQ_U64(t.recs[0].caller, 0x55e602dd51daull);
    CHECK_EQ_U64(t.recs[1].time_ns, 1136000);
    CHECK_EQ_U64(t.recs[1].dur_ns, 648000);
    CHECK_EQ_U64(t.recs[1].ret, 0x7f3d00000b70ull);
    /* Task 17432's malloc never resumed: it exited inside the call. */
    CHECK_EQ_U64(t.recs[2].flags, CALL_REC_NO_RETURN);
    CHECK_EQ_U64(t.recs[2].ret, 0);
    CHECK_EQ_U64(e.ltrace_complaints, 0);
    call_trace_release(&t);
}

/* ltrace -f's own complaint, written into the log between calls: skipped and counted. */
TEST(ltrace_complaint_lines)
{
    struct call_trace t;
    struct ltrace_error e;
    CHECK(parse("15490 rthreads->malloc(144 <unfinished ...>\n"
                "15490 <... malloc resumed> )                     = 0x7efe4c001100\n"
                "15488 unexpected breakpoint at 0x564d4fc8b1c3\n"
                "15490 rthreads->free(0x7efe4c001100) = <void>\n"
                "15488 unexpected breakpoint at 0x564d4fc8b1c3\n", &t, &e) == 0);
    CHECK_EQ_U64(t.nrecs, 2);
    CHECK_EQ_U64(e.ltrace_complaints, 2);
    CHECK_EQ_U64(e.first_complaint, 3);
    call_trace_release(&t);
}

/* No -f: no task id; -ttt epoch stamps; -r relative stamps add up. */
TEST(ltrace_no_f_ttt_r)
{
    struct call_trace t;
    struct ltrace_error e;
    CHECK(parse("1795590178.447489 t->malloc(40)            = 0x555ccc3de2a0 <0.000340>\n"
                "1795590178.449422 t->free(0x555ccc3de510)  = <void> <0.000118>\n"
                "1795590178.449702 +++ exited (status 0) +++\n", &t, &e) == 0);
    CHECK_EQ_U64(t.nrecs, 2);
    CHECK_EQ_U64(t.recs[0].tid, 0);
    CHECK_EQ_U64(t.recs[1].time_ns, 1933000);
    call_trace_release(&t);
    CHECK(parse("  0.000000 t->malloc(40) = 0x1000\n"
                "  0.000200 t->malloc(41) = 0x2000\n"
                "  0.000300 free(0x1000) = <void>\n", &t, &e) == 0);
    CHECK_EQ_U64(t.nrecs, 3);
    CHECK_EQ_U64(t.recs[2].time_ns, 500000);
    CHECK_STR(fname(&t, 2), "free");
    call_trace_release(&t);
}

/* ltrace marks realloc "<no return ...>" and then resumes it. */
TEST(ltrace_no_return_resumed)
{
    struct call_trace t;
    struct ltrace_error e;
    CHECK(parse("15883 rt->realloc(0x7fe4f4000c10, 207 <no return ...>\n"
                "15884 rt->malloc(1) = 0x10\n"
                "15883 <... realloc resumed> )                    = 0x7fe4f4001890\n", &t,
                &e) == 0);
    CHECK_EQ_U64(t.nrecs, 2);
    CHECK_EQ_U64(t.recs[0].flags, 0);
    CHECK_EQ_U64(t.recs[0].args[1], 207);
    CHECK_EQ_U64(t.recs[0].ret, 0x7fe4f4001890ull);
    call_trace_release(&t);
}

/* ltrace -x logs the PLT call and the library symbol it enters, nested, and resumes the
 * symbol without its "@library" (a real log): the innermost unfinished call resumes first. */
TEST(ltrace_x_nested)
{
    struct call_trace t;
    struct ltrace_error e;
    CHECK(parse("17252 malloc(144 <unfinished ...>\n"
                "17252 malloc@libc.so.6(144 <unfinished ...>\n"
                "17253 malloc@libc.so.6(144)                      = 0x7f493c000b70\n"
                "17252 <... malloc resumed> )                     = 0x7f4944000b70\n"
                "17252 <... malloc resumed> )                     = 0x7f4944000b70\n", &t,
                &e) == 0);
    CHECK_EQ_U64(t.nrecs, 3);
    CHECK_STR(fname(&t, 0), "malloc");
    CHECK_STR(fname(&t, 1), "malloc@libc.so.6");
    CHECK_EQ_U64(t.recs[0].flags, 0);
    CHECK_EQ_U64(t.recs[1].flags, 0);
    CHECK_EQ_U64(t.recs[1].time_ns, 2000);
    CHECK_EQ_U64(t.recs[1].dur_ns, 2000);      /* resumed on line 4, the outer one on 5 */
    CHECK_EQ_U64(t.recs[0].dur_ns, 4000);
    call_trace_release(&t);
}

/* Other functions: strings with commas and parentheses, structs, negative numbers. */
TEST(ltrace_other_values)
{
    struct call_trace t;
    struct ltrace_error e;
    CHECK(parse("1 p->strlen(\"a, b) \\\"c\\\"\") = 11\n"
                "1 p->write(1, \"x\"..., 4096) = -1\n"
                "1 p->stat(\"/\", {1, [2, 3]}) = 0\n"
                "1 p->getpid() = 7\n", &t, &e) == 0);
    CHECK_EQ_U64(t.nrecs, 4);
    CHECK_EQ_U64(t.recs[0].args[0], 0);
    CHECK_EQ_U64(t.recs[0].ret, 11);
    CHECK_EQ_U64(t.recs[1].args[0], 1);
    CHECK_EQ_U64(t.recs[1].args[2], 4096);
    CHECK_EQ_U64(t.recs[1].ret, UINT64_MAX);
    CHECK_STR(fname(&t, 3), "getpid");
    call_trace_release(&t);
}

/* Hostile logs: each is an error naming its line. */
TEST(ltrace_hostile_lines)
{
    static const struct {
        const char *log;
        unsigned long line;
    } cases[] = {
        {"1 t->malloc(40) = 0x10\n1 t->malloc(40\n", 2},
        {"1 t->malloc(40) = 0x10\n1 <... free resumed> ) = <void>\n", 2},
        {"garbage\n", 1},
        {"\x7f" "ELF\x02\x01\x01", 1},
        {"1 t->malloc(40) = 0x10 trailing\n", 1},
        {"1 t->malloc(40,, 3) = 0x10\n", 1},
        {"1 t->malloc(40 41) = 0x10\n", 1},
        {"1 99:00:00.1 t->malloc(40) = 1\n", 1},
        {"1 t->malloc(0x11112222333344445) = 1\n", 1},
        {"1 t->malloc(99999999999999999999999) = 1\n", 1},
        {"1 t->f(\"unterminated) = 1\n", 1},
        {"1 t->f({{{) = 1\n", 1},
        {"1 t->malloc(40) = 1 <0.1\n", 1},
        {"0 t->malloc(40) = 1\n", 1},
        {"1 07:00:00 t->malloc(4) = 1\n1 1795590178.1 t->malloc(4) = 1\n", 2},
        {"1 t->malloc(40) = 1\n\n\n1 t->malloc(\n", 4},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct call_trace t;
        struct ltrace_error e;
        int err = parse(cases[i].log, &t, &e);
        if (err != -EINVAL || e.line != cases[i].line) {
            printf("  case %zu: err %d line %lu (%s)\n", i, err, e.line, e.msg);
            CHECK(0);
        }
        CHECK(e.msg[0]);
        CHECK_EQ_U64(t.nrecs, 0);
    }
    /* A NUL byte inside a line. */
    struct call_trace t;
    struct ltrace_error e;
    CHECK(ltrace_log_read_buf("1 t->malloc(4\0) = 1\n", 20, &t, &e) == -EINVAL);
    CHECK_EQ_U64(e.line, 1);
}

/* Too many calls unfinished at once, and too many names: bounded, not slow. */
TEST(ltrace_hostile_limits)
{
    size_t cap = 5000 * 40 + 1;
    char *log = malloc(cap), *p = log;
    CHECK(log);
    for (int i = 1; i <= 5000; i++)
        p += sprintf(p, "%d t->malloc(8 <unfinished ...>\n", i);
    struct call_trace t;
    struct ltrace_error e;
    CHECK(ltrace_log_read_buf(log, (size_t)(p - log), &t, &e) == -EINVAL);
    CHECK_EQ_U64(e.line, 4097);
    p = log;
    for (int i = 1; i <= 5000; i++)
        p += sprintf(p, "1 t->f%d() = 0\n", i);
    CHECK(ltrace_log_read_buf(log, (size_t)(p - log), &t, &e) == -EINVAL);
    CHECK_EQ_U64(e.line, 4097);
    free(log);
}

/* Every truncation and many byte flips of a real log: an error or a trace, never a crash
 * (ASan watches), and a truncated line is never a call with a made-up value. */
TEST(ltrace_mutations)
{
    const char *log =
        "17430 07:03:01.236094 [0x55e602dd51da] t->malloc(40) = 0x55e63a3a72a0 <0.000341>\n"
        "17431 07:03:01.237230 [0x55e602dd51a8] t->malloc(144 <unfinished ...>\n"
        "17432 07:03:01.237686 [0x55e602dd51a8] t->calloc(5, 8 <unfinished ...>\n"
        "17431 07:03:01.237881 [0x55e602dd51a8] <... malloc resumed> ) = 0x7f3d00000b70 <0.000648>\n"
        "17432 07:03:01.238492 [0x55e602dd51a8] <... calloc resumed> ) = 0x7f3cf8000b70 <0.000808>\n"
        "17430 07:03:01.240744 [0x55e602dd5256] t->realloc(0x55e63a3a72a0, 100) = 0x55e63a3a7510 <0.000144>\n"
        "17430 07:03:01.241087 [0x55e602dd5279] t->free(0x55e63a3a7510) = <void> <0.000107>\n";
    size_t len = strlen(log);
    char *buf = malloc(len);
    CHECK(buf);
    for (size_t cut = 0; cut <= len; cut++) {
        struct call_trace t;
        struct ltrace_error e;
        memcpy(buf, log, cut);
        int err = ltrace_log_read_buf(buf, cut, &t, &e);
        if (!err)
            call_trace_release(&t);
    }
    srand(12);
    for (int i = 0; i < 3000; i++) {
        struct call_trace t;
        struct ltrace_error e;
        memcpy(buf, log, len);
        for (int k = 0; k < 1 + i % 3; k++)
            buf[(size_t)rand() % len] = (char)(rand() % 256);
        int err = ltrace_log_read_buf(buf, len, &t, &e);
        if (!err)
            call_trace_release(&t);
        else
            CHECK(e.line >= 1 && e.line <= 11);
    }
    free(buf);
}

int main(void)
{
    RUN(ltrace_f_threads);
    RUN(ltrace_seed_lines);
    RUN(ltrace_tt_T_i);
    RUN(ltrace_complaint_lines);
    RUN(ltrace_no_f_ttt_r);
    RUN(ltrace_no_return_resumed);
    RUN(ltrace_x_nested);
    RUN(ltrace_other_values);
    RUN(ltrace_hostile_lines);
    RUN(ltrace_hostile_limits);
    RUN(ltrace_mutations);
    return 0;
}
