/* SPDX-License-Identifier: MIT */
/* The perf.data reader against a file that changes under it: truncated between open and the
 * walk (what `report` meets when the file is cut while it reads) must end with an error naming
 * the file and offset, never SIGBUS. */
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>
#include "test.h"
#include "perf/perfdata.h"
#include "perf/perfdata_write.h"

#define NSAMPLES 60000          /* 2.4 MB of samples: many pages past the cut */

static int count(void *arg, const struct evlist *evl, const struct perf_event_header *h,
                 uint64_t time)
{
    (void)evl; (void)time;
    if (h->type == PERF_RECORD_SAMPLE)
        ++*(uint64_t *)arg;
    return 0;
}

/* A finished file of NSAMPLES samples written by the writer, in rounds of 1000. */
static int write_file(const char *path)
{
    struct evlist evl;
    struct perf_event_attr a;
    struct evsel *sel;
    struct perfdata_writer *w;
    struct perfdata_error e;
    int ret;

    memset(&a, 0, sizeof(a));
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_CPU_CLOCK;
    a.size = sizeof(a);
    a.sample_period = 1000;
    a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD;
    a.sample_id_all = 1;
    unlink(path);       /* the writer creates its file exclusively */
    evlist_init(&evl);
    if (!(sel = evlist_add(&evl, &a, "cpu-clock")) || evsel_add_id(sel, 7) ||
        evlist_finalize(&evl) || perfdata_writer_open(path, &evl, &w, &e)) {
        evlist_release(&evl);
        return -1;
    }
    for (uint64_t i = 0; i < NSAMPLES; i++) {
        uint64_t rec[5] = { 0, 0x401000 + i % 64, 42 | 42ULL << 32, 1000 + i, 1000 };
        struct perf_event_header h = { .type = PERF_RECORD_SAMPLE,
                                       .misc = PERF_RECORD_MISC_USER, .size = sizeof(rec) };
        memcpy(rec, &h, sizeof(h));
        perfdata_writer_write(w, (const struct perf_event_header *)rec);
        if (i % 1000 == 999)
            perfdata_writer_round(w);
    }
    ret = perfdata_writer_close(w, NULL, &e);
    evlist_release(&evl);
    return ret;
}

TEST(file_truncated_between_open_and_walk)
{
    const char *dir = getenv("TEST_TMP");
    struct perfdata *pd;
    struct perfdata_error e;
    const struct perfdata_stats *st;
    char path[512], line[1024];
    uint64_t samples = 0;

    snprintf(path, sizeof(path), "%s/shrinking.data", dir ? dir : "/tmp");
    CHECK(write_file(path) == 0);
    CHECK(perfdata_open(path, &pd, &e) == 0);
    CHECK(truncate(path, 98304) == 0);         /* a page boundary, inside a record */
    CHECK(perfdata_process(pd, count, &samples, 0, &e) == 0);
    st = perfdata_stats(pd);
    CHECK(st->truncated);
    CHECK(samples > 1000 && samples < NSAMPLES);
    perfdata_error_str(&st->damage, line, sizeof(line));
    CHECK(strstr(line, "shrinking.data: offset 0x"));
    CHECK(strstr(line, "the file shrank to 98304 bytes while being read"));
    CHECK(st->bytes_unread > 2000000);
    perfdata_close(pd);
    unlink(path);
}

/* The file cut while the walk is in it: pages already read in vanish from under the reader
 * (the file is mapped): no SIGBUS, no record of zeros handed on, and the damage says the file
 * shrank, at an offset. */
struct cutter {
    const char *path;
    uint64_t samples, bad;
};

static int count_then_cut(void *arg, const struct evlist *evl, const struct perf_event_header *h,
                          uint64_t time)
{
    struct cutter *c = arg;
    (void)evl; (void)time;
    if (h->size < sizeof(*h) || h->type == 0)
        c->bad++;
    if (h->type == PERF_RECORD_SAMPLE && ++c->samples == 5000 && truncate(c->path, 98304))
        return -EIO;
    return 0;
}

TEST(file_truncated_during_the_walk)
{
    const char *dir = getenv("TEST_TMP");
    struct perfdata *pd;
    struct perfdata_error e;
    const struct perfdata_stats *st;
    struct cutter c = { 0 };
    char path[512], line[1024];

    snprintf(path, sizeof(path), "%s/cut-during.data", dir ? dir : "/tmp");
    c.path = path;
    CHECK(write_file(path) == 0);
    CHECK(perfdata_open(path, &pd, &e) == 0);
    CHECK(perfdata_process(pd, count_then_cut, &c, 0, &e) == 0);
    st = perfdata_stats(pd);
    CHECK(st->truncated);
    CHECK(c.bad == 0);
    CHECK(c.samples >= 5000 && c.samples < NSAMPLES);
    perfdata_error_str(&st->damage, line, sizeof(line));
    CHECK(strstr(line, "cut-during.data: offset 0x"));
    CHECK(strstr(line, "the file shrank to 98304 bytes while being read"));
    perfdata_close(pd);
    unlink(path);
}

/* Appends one COMPRESSED record holding what the stream gives for in[0..n) (flushed). */
static size_t put_compressed(uint8_t *out, ZSTD_CStream *cs, const uint8_t *in, size_t n)
{
    ZSTD_inBuffer ib = { in, n, 0 };
    ZSTD_outBuffer ob = { out + 8, 60000, 0 };
    struct perf_event_header h = { .type = PERF_RECORD_COMPRESSED_ };

    while (ib.pos < ib.size)
        ZSTD_compressStream2(cs, &ob, &ib, ZSTD_e_continue);
    while (ZSTD_compressStream2(cs, &ob, &ib, ZSTD_e_flush))
        ;
    h.size = (uint16_t)((8 + ob.pos + 7) / 8 * 8);     /* perf pads nothing; padding is ok */
    memcpy(out, &h, sizeof(h));
    memset(out + 8 + ob.pos, 0, h.size - 8 - ob.pos);
    return h.size;
}

TEST(compressed_records_continue_one_stream)
{
    static uint64_t file[32768];
    uint8_t *f = (uint8_t *)file, raw[4000];
    struct perf_file_header hdr;
    struct perf_file_attr fa;
    uint64_t id = 7, samples = 0;
    size_t n = 0, off;
    ZSTD_CStream *cs = ZSTD_createCStream();
    struct perfdata *pd;
    struct perfdata_error e;

    /* 100 samples of 40 bytes, compressed as two records cut inside the 51st sample. */
    for (uint64_t i = 0; i < 100; i++) {
        uint64_t rec[5] = { 0, 0x401000 + i, 42 | 42ULL << 32, 1000 + i, 1000 };
        struct perf_event_header h = { .type = PERF_RECORD_SAMPLE,
                                       .misc = PERF_RECORD_MISC_USER, .size = sizeof(rec) };
        memcpy(rec, &h, sizeof(h));
        memcpy(raw + n, rec, sizeof(rec));
        n += sizeof(rec);
    }
    memset(&fa, 0, sizeof(fa));
    fa.attr.type = PERF_TYPE_SOFTWARE;
    fa.attr.size = sizeof(fa.attr);
    fa.attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                          PERF_SAMPLE_PERIOD;
    fa.attr.sample_id_all = 1;
    fa.ids.offset = sizeof(hdr);
    fa.ids.size = 8;
    off = sizeof(hdr);
    memcpy(f + off, &id, 8);
    off += 8;
    memcpy(f + off, &fa, sizeof(fa));
    off += sizeof(fa);
    memset(&hdr, 0, sizeof(hdr));
    hdr.magic = PERFDATA_MAGIC;
    hdr.size = sizeof(hdr);
    hdr.attr_size = sizeof(fa);
    hdr.attrs.offset = sizeof(hdr) + 8;
    hdr.attrs.size = sizeof(fa);
    hdr.data.offset = off;
    CHECK(cs != NULL);
    ZSTD_initCStream(cs, 1);
    off += put_compressed(f + off, cs, raw, 50 * 40 + 20);
    off += put_compressed(f + off, cs, raw + 50 * 40 + 20, n - (50 * 40 + 20));
    ZSTD_freeCStream(cs);
    hdr.data.size = off - hdr.data.offset;
    memcpy(f, &hdr, sizeof(hdr));

    CHECK(perfdata_open_mem(file, off, "z.data", &pd, &e) == 0);
    CHECK(perfdata_process(pd, count, &samples, 0, &e) == 0);
    CHECK_EQ_U64(samples, 100);
    CHECK_EQ_U64(perfdata_stats(pd)->compressed, 2);
    CHECK_EQ_U64(perfdata_stats(pd)->bad, 0);
    perfdata_close(pd);

    /* Without the second record the stream ends inside a sample: said, 50 delivered. */
    off = hdr.data.offset + ((struct perf_event_header *)(f + hdr.data.offset))->size;
    hdr.data.size = off - hdr.data.offset;
    memcpy(f, &hdr, sizeof(hdr));
    samples = 0;
    CHECK(perfdata_open_mem(file, off, "z.data", &pd, &e) == 0);
    CHECK(perfdata_process(pd, count, &samples, 0, &e) == 0);
    CHECK_EQ_U64(samples, 50);
    CHECK(strstr(perfdata_stats(pd)->first_bad.msg, "end inside a record (20 bytes"));
    perfdata_close(pd);
}

int main(void)
{
    RUN(file_truncated_between_open_and_walk);
    RUN(file_truncated_during_the_walk);
    RUN(compressed_records_continue_one_stream);
    return 0;
}
