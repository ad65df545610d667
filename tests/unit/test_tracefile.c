/* SPDX-License-Identifier: MIT */
/* The library-call trace file (`trace -w`, read by `replay`): what is written reads back the
 * same, and a truncated or corrupt file is an error naming the offset, never a wrong trace. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "test.h"
#include "calltrace/tracefile.h"

/* A trace of malloc(144) = 0x1000 by tid 7, then free(0x1000), in memory. */
static void sample_trace(struct call_trace *t)
{
    call_trace_init(t);
    int m = call_trace_func(t, "malloc"), f = call_trace_func(t, "free");
    struct call_rec a = {.time_ns = 10, .dur_ns = 3, .pid = 5, .tid = 7, .func = (uint32_t)m,
                         .args = {144}, .ret = 0x1000, .caller = 0x401234};
    struct call_rec b = {.time_ns = 20, .dur_ns = 2, .pid = 5, .tid = 7, .func = (uint32_t)f,
                         .args = {0x1000}, .flags = 0};
    call_trace_add(t, &a);
    call_trace_add(t, &b);
}

/* The trace written to memory: *buf (malloc'd) of *len bytes. */
static int write_mem(const struct call_trace *t, char **buf, size_t *len)
{
    FILE *f = open_memstream(buf, len);
    if (!f)
        return -errno;
    int err = tracefile_write(f, t);
    return fclose(f) == 0 ? err : -EIO;
}

TEST(trace_round_trip)
{
    struct call_trace t, back;
    struct tracefile_error e;
    char *buf;
    size_t len;
    sample_trace(&t);
    CHECK(write_mem(&t, &buf, &len) == 0);
    /* names: tag, u16 index, u16 length, bytes; calls: tag, function, time delta, duration,
     * pid, tid, flags, then the changed fields (malloc: arg 144, ret, caller; free: arg). */
    CHECK_EQ_U64(len, 16 + (5 + 6) + (5 + 4) + (1 + 1 + 1 + 1 + 3 + 2 + 2 + 4) +
                          (1 + 1 + 1 + 1 + 2));
    CHECK(tracefile_read_buf(buf, len, &back, &e) == 0);
    CHECK_EQ_U64(back.nfuncs, 2);
    CHECK_STR(back.funcs[0], "malloc");
    CHECK_STR(back.funcs[1], "free");
    CHECK_EQ_U64(back.nrecs, 2);
    CHECK(memcmp(back.recs, t.recs, 2 * sizeof(*t.recs)) == 0);
    call_trace_release(&back);
    call_trace_release(&t);
    free(buf);
}

TEST(trace_truncated_names_offset)
{
    struct call_trace t, back;
    struct tracefile_error e;
    char *buf;
    size_t len;
    sample_trace(&t);
    CHECK(write_mem(&t, &buf, &len) == 0);
    /* Every cut inside the last call record (free's, 6 bytes) is an error at its offset. */
    for (size_t cut = len - 5; cut < len; cut++) {
        CHECK(tracefile_read_buf(buf, cut, &back, &e) == -EINVAL);
        CHECK_EQ_U64(e.offset, len - 6);
        CHECK(strstr(e.msg, "truncated"));
    }
    call_trace_release(&t);
    free(buf);
}

TEST(trace_corrupt_index_and_kind)
{
    struct call_trace t, back;
    struct tracefile_error e;
    char *buf;
    size_t len;
    sample_trace(&t);
    CHECK(write_mem(&t, &buf, &len) == 0);
    size_t first_call = 16 + 11 + 9;   /* the header, two names */
    buf[first_call + 1] = 9;                         /* function 9 was never named */
    CHECK(tracefile_read_buf(buf, len, &back, &e) == -EINVAL);
    CHECK_EQ_U64(e.offset, first_call);
    CHECK(strstr(e.msg, "no name record"));
    buf[first_call + 1] = 0;
    buf[first_call] = 7;                             /* no such record kind */
    CHECK(tracefile_read_buf(buf, len, &back, &e) == -EINVAL);
    CHECK(strstr(e.msg, "kind"));
    CHECK(tracefile_read_buf("PRSPCTRX", 8, &back, &e) == -EINVAL);
    CHECK_EQ_U64(e.offset, 0);
    call_trace_release(&t);
    free(buf);
}

/* A version 1 file (80-byte calls, as Prospect wrote before) still reads. */
TEST(trace_reads_version_1)
{
    static const unsigned char v1[] = {
        'P', 'R', 'S', 'P', 'C', 'T', 'R', 'C', 1, 0, 0, 0, 0, 0, 0, 0,
        1, 0, 0, 0, 4, 0, 'f', 'r', 'e', 'e',
        2, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 7, 0, 0, 0,
        20, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0,
        0, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 0, 0, 0, 0, 0x34, 0x12, 0x40, 0, 0, 0, 0, 0,
    };
    struct call_trace back;
    struct tracefile_error e;
    CHECK(tracefile_read_buf(v1, sizeof(v1), &back, &e) == 0);
    CHECK_EQ_U64(back.nrecs, 1);
    CHECK_STR(back.funcs[0], "free");
    CHECK_EQ_U64(back.recs[0].tid, 7);
    CHECK_EQ_U64(back.recs[0].time_ns, 20);
    CHECK_EQ_U64(back.recs[0].args[0], 0x1000);
    CHECK_EQ_U64(back.recs[0].caller, 0x401234);
    call_trace_release(&back);
    CHECK(tracefile_read_buf(v1, sizeof(v1) - 1, &back, &e) == -EINVAL);
    CHECK_EQ_U64(e.offset, 16 + 10);
}

/* A loop's repeated call costs a few bytes, and values far apart (times going back across
 * threads, pointers of every width, all-ones) read back exact. */
TEST(trace_compact_and_exact)
{
    struct call_trace t, back;
    struct tracefile_error e;
    char *buf;
    size_t len;
    call_trace_init(&t);
    int m = call_trace_func(&t, "malloc");
    for (uint64_t i = 0; i < 1000; i++) {
        struct call_rec r = {.time_ns = 1000 + 40 * i, .dur_ns = 20, .pid = 5, .tid = 7,
                             .func = (uint32_t)m, .args = {144}, .ret = 0x55d0c4e4c2c0,
                             .caller = 0x401234};
        CHECK(call_trace_add(&t, &r) == 0);
    }
    struct call_rec odd = {.time_ns = 5, .dur_ns = UINT64_MAX, .pid = UINT32_MAX, .tid = 1,
                           .func = (uint32_t)m, .flags = 1, .args = {UINT64_MAX, 1, 0, 1ull << 63},
                           .ret = 0, .caller = UINT64_MAX};
    CHECK(call_trace_add(&t, &odd) == 0);
    CHECK(call_trace_add(&t, &t.recs[0]) == 0);
    CHECK(write_mem(&t, &buf, &len) == 0);
    CHECK(len < 16 + 11 + 1000 * 5 + 200);
    CHECK(tracefile_read_buf(buf, len, &back, &e) == 0);
    CHECK_EQ_U64(back.nrecs, t.nrecs);
    CHECK(memcmp(back.recs, t.recs, t.nrecs * sizeof(*t.recs)) == 0);
    call_trace_release(&back);
    call_trace_release(&t);
    free(buf);
}

TEST(trace_writer_refuses_unnamed_function)
{
    struct tracefile_writer w;
    char *buf;
    size_t len;
    FILE *f = open_memstream(&buf, &len);
    CHECK(f);
    CHECK(tracefile_write_header(&w, f) == 0);
    struct call_rec r = {.func = 0};
    CHECK(tracefile_write_call(&w, &r) == -EINVAL);
    CHECK(tracefile_write_func(&w, 1, "free") == -EINVAL);
    CHECK(tracefile_write_func(&w, 0, "malloc") == 0);
    CHECK(tracefile_write_call(&w, &r) == 0);
    tracefile_writer_release(&w);
    fclose(f);
    free(buf);
}

TEST(trace_read_refuses_fifo)
{
    char dir[] = "/tmp/prospect-tracefile.XXXXXX", path[64];
    struct call_trace back;
    struct tracefile_error e;
    CHECK(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/fifo", dir);
    CHECK(mkfifo(path, 0600) == 0);
    CHECK(tracefile_read(path, &back, &e) == -EINVAL);  /* returns, does not block */
    CHECK(strstr(e.msg, "regular"));
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    RUN(trace_round_trip);
    RUN(trace_truncated_names_offset);
    RUN(trace_corrupt_index_and_kind);
    RUN(trace_reads_version_1);
    RUN(trace_compact_and_exact);
    RUN(trace_writer_refuses_unnamed_function);
    RUN(trace_read_refuses_fifo);
    return 0;
}
