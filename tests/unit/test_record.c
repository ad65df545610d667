/* SPDX-License-Identifier: MIT */
#include <errno.h>
/* Sample decoding and the /proc maps parser: bounds are the point. */
#include <string.h>
#include <sys/mman.h>
#include "test.h"
#include "perf/evlist.h"
#include "perf/proc_synth.h"
#include "perf/record.h"

static struct evsel sel_with(uint64_t st)
{
    struct evsel s;
    memset(&s, 0, sizeof(s));
    s.attr.sample_type = st;
    s.attr.sample_id_all = 1;
    return s;
}

TEST(sample_fields_in_kernel_order)
{
    struct evsel s = sel_with(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
                              PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
                              PERF_SAMPLE_CALLCHAIN);
    uint64_t buf[16] = {0};
    struct perf_event_header *h = (void *)buf;
    struct sample smp;
    h->type = PERF_RECORD_SAMPLE;
    h->misc = PERF_RECORD_MISC_USER;
    buf[1] = 7; buf[2] = 0x401000; buf[3] = 5 | (6ULL << 32); buf[4] = 999; buf[5] = 1;
    buf[6] = 250000; buf[7] = 2; buf[8] = 0x401000; buf[9] = 0x402000;
    h->size = 10 * 8;
    CHECK(sample_parse(&s, h, &smp) == 0);
    CHECK_EQ_U64(smp.id, 7);
    CHECK_EQ_U64(smp.ip, 0x401000);
    CHECK(smp.pid == 5 && smp.tid == 6);
    CHECK_EQ_U64(smp.time, 999);
    CHECK_EQ_U64(smp.cpu, 1);
    CHECK_EQ_U64(smp.period, 250000);
    CHECK_EQ_U64(smp.nr_callchain, 2);
    CHECK_EQ_U64(smp.callchain[1], 0x402000);
    CHECK(smp.cpumode == PERF_RECORD_MISC_USER);
}

TEST(truncated_and_lying_samples_are_rejected)
{
    struct evsel s = sel_with(PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW);
    uint64_t buf[8] = {0};
    struct perf_event_header *h = (void *)buf;
    struct sample smp;
    h->type = PERF_RECORD_SAMPLE;
    h->size = 2 * 8;                          /* ip only: callchain missing */
    CHECK(sample_parse(&s, h, &smp) == -EINVAL);
    buf[2] = 1000000;                         /* callchain claims 10^6 entries */
    h->size = 4 * 8;
    CHECK(sample_parse(&s, h, &smp) == -EINVAL);
    buf[2] = 0;
    buf[3] = 0xffff;                          /* raw size past the end */
    CHECK(sample_parse(&s, h, &smp) == -EINVAL);
    h->size = 4;                              /* shorter than its own header */
    CHECK(sample_parse(&s, h, &smp) == -EINVAL);
}

/* A user stack size within 7 of 2^64 once rounded up to 0 words: the sample was accepted with
 * a stack copy claimed far past its record, and the unwinder read there (SIGSEGV in report). */
TEST(user_stack_size_near_2_64_is_rejected)
{
    struct evsel s = sel_with(PERF_SAMPLE_IP | PERF_SAMPLE_STACK_USER);
    uint64_t buf[8] = {0};
    struct perf_event_header *h = (void *)buf;
    struct sample smp;
    h->type = PERF_RECORD_SAMPLE;
    h->size = 7 * 8;                          /* ip, size, 3 words of stack, dyn_size */
    buf[1] = 0x401000;
    buf[2] = 24;
    buf[6] = 16;
    CHECK(sample_parse(&s, h, &smp) == 0);
    CHECK(smp.stack_size == 24 && smp.stack_dyn_size == 16);
    for (uint64_t v = UINT64_MAX - 6; v != 0; v++) {
        buf[2] = v;
        CHECK(sample_parse(&s, h, &smp) == -EINVAL);
    }
    buf[2] = 25;                              /* one byte past the words there */
    CHECK(sample_parse(&s, h, &smp) == -EINVAL);
}

TEST(sample_id_trailer_of_other_records)
{
    struct evsel s = sel_with(PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_IDENTIFIER);
    uint64_t buf[8] = {0};
    struct rec_comm *r = (void *)buf;
    struct sample smp;
    r->h.type = PERF_RECORD_COMM;
    r->h.size = 8 + 8 + 8 + 3 * 8;
    memcpy(r->comm, "ls", 3);
    buf[3] = 9 | (9ULL << 32); buf[4] = 12345; buf[5] = 77;
    CHECK(sample_id_parse(&s, &r->h, &smp) == 0);
    CHECK(smp.pid == 9 && smp.time == 12345 && smp.id == 77);
    CHECK_STR(record_string(&r->h), "ls");
    memset(r->comm, 'x', 8);                  /* no NUL inside the string field */
    r->h.size = 24;
    CHECK(record_string(&r->h) == NULL);
}

TEST(evlist_tells_events_apart_by_id)
{
    struct evlist evl;
    struct perf_event_attr a;
    uint64_t buf[4] = {0};
    struct perf_event_header *h = (void *)buf;
    memset(&a, 0, sizeof(a));
    a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP;
    a.sample_id_all = 1;
    evlist_init(&evl);
    evsel_add_id(evlist_add(&evl, &a, "one"), 100);
    evsel_add_id(evlist_add(&evl, &a, "two"), 200);
    CHECK(evlist_finalize(&evl) == 0);
    h->type = PERF_RECORD_SAMPLE;
    h->size = 24;
    buf[1] = 200;
    CHECK_STR(evlist_evsel_for(&evl, h)->name, "two");
    buf[1] = 300;
    CHECK(evlist_evsel_for(&evl, h) == NULL);
    evlist_release(&evl);
}

TEST(proc_maps_lines)
{
    uint64_t s, e, off, ino;
    uint32_t prot, maj, min;
    const char *path;
    CHECK(proc_parse_maps_line("55d0c0a00000-55d0c0a21000 r-xp 00002000 08:01 1234   "
                               "/usr/bin/my prog", &s, &e, &prot, &off, &maj, &min, &ino,
                               &path) == 0);
    CHECK_EQ_U64(s, 0x55d0c0a00000);
    CHECK_EQ_U64(e, 0x55d0c0a21000);
    CHECK_EQ_U64(off, 0x2000);
    CHECK(prot == (PROT_READ | PROT_EXEC));
    CHECK(maj == 8 && min == 1 && ino == 1234);
    CHECK_STR(path, "/usr/bin/my prog");
    CHECK(proc_parse_maps_line("7ffd-7ffc r-xp 0 0:0 0 [vdso]", &s, &e, &prot, &off, &maj, &min,
                               &ino, &path) == -EINVAL);             /* end before start */
    CHECK(proc_parse_maps_line("garbage", &s, &e, &prot, &off, &maj, &min, &ino, &path) ==
          -EINVAL);
    CHECK(proc_parse_maps_line("1000-2000 rw-p 0 00:00 0", &s, &e, &prot, &off, &maj, &min,
                               &ino, &path) == 0 && *path == '\0');  /* anonymous */
}

TEST(fixed_decoder_agrees_and_checks_length)
{
    struct evsel s = sel_with(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
                              PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
                              PERF_SAMPLE_CALLCHAIN);
    uint64_t buf[16] = {0};
    struct perf_event_header *h = (void *)buf;
    struct sample full, fixed;
    h->type = PERF_RECORD_SAMPLE;
    h->misc = PERF_RECORD_MISC_KERNEL;
    buf[1] = 7; buf[2] = 0x401000; buf[3] = 5 | (6ULL << 32); buf[4] = 999; buf[5] = 1;
    buf[6] = 250000; buf[7] = 1; buf[8] = 0x401000;
    h->size = 9 * 8;
    CHECK(sample_parse(&s, h, &full) == 0);
    CHECK(sample_parse_fixed(&s, h, &fixed) == 0);
    CHECK(full.id == fixed.id && full.ip == fixed.ip && full.pid == fixed.pid &&
          full.tid == fixed.tid && full.time == fixed.time && full.cpu == fixed.cpu &&
          full.period == fixed.period && full.cpumode == fixed.cpumode);
    h->size = 6 * 8;                          /* cut inside the fixed fields */
    CHECK(sample_parse_fixed(&s, h, &fixed) == -EINVAL);
}

int main(void)
{
    RUN(fixed_decoder_agrees_and_checks_length);
    RUN(sample_fields_in_kernel_order);
    RUN(truncated_and_lying_samples_are_rejected);
    RUN(user_stack_size_near_2_64_is_rejected);
    RUN(sample_id_trailer_of_other_records);
    RUN(evlist_tells_events_apart_by_id);
    RUN(proc_maps_lines);
    return 0;
}
