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
    CHECK_EQ_U64(len, 16 + (6 + 6) + (6 + 4) + 2 * 80);
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
    /* Every cut inside the last call record is an error at that record's offset. */
    for (size_t cut = len - 79; cut < len; cut++) {
        CHECK(tracefile_read_buf(buf, cut, &back, &e) == -EINVAL);
        CHECK_EQ_U64(e.offset, len - 80);
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
    size_t first_call = 16 + 12 + 10;
    buf[first_call + 4] = 9;                         /* function 9 was never named */
    CHECK(tracefile_read_buf(buf, len, &back, &e) == -EINVAL);
    CHECK_EQ_U64(e.offset, first_call);
    buf[first_call + 4] = 0;
    buf[first_call] = 7;                             /* no such record kind */
    CHECK(tracefile_read_buf(buf, len, &back, &e) == -EINVAL);
    CHECK(strstr(e.msg, "kind"));
    CHECK(tracefile_read_buf("PRSPCTRX", 8, &back, &e) == -EINVAL);
    CHECK_EQ_U64(e.offset, 0);
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
    RUN(trace_writer_refuses_unnamed_function);
    RUN(trace_read_refuses_fifo);
    return 0;
}
