/* SPDX-License-Identifier: MIT */
/* perf.data reader and writer on files built in memory: the round trip, time ordering, and
 * every kind of damage the reader must name (file and byte offset) instead of crashing. */
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "test.h"
#include "perf/perfdata.h"
#include "perf/perfdata_write.h"

#define ST (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD)

/* A file under construction; 8-byte aligned like an mmap. */
struct fb {
    uint64_t words[8192];
    size_t n;
};

static uint8_t *fb_bytes(struct fb *b) { return (uint8_t *)b->words; }

static size_t fb_put(struct fb *b, const void *p, size_t n)
{
    size_t off = b->n;
    if (p)
        memcpy(fb_bytes(b) + b->n, p, n);
    else
        memset(fb_bytes(b) + b->n, 0, n);
    b->n += n;
    return off;
}

static struct perf_event_attr test_attr(void)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof(a));
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_CPU_CLOCK;
    a.size = sizeof(a);
    a.sample_period = 1000;
    a.sample_type = ST;
    a.sample_id_all = 1;
    return a;
}

/* SAMPLE for ST: ip, pid/tid, time, period. */
static size_t put_sample(uint8_t *out, uint64_t ip, uint32_t pid, uint64_t time)
{
    struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .misc = PERF_RECORD_MISC_USER,
                                   .size = 40 };
    uint64_t body[4] = { ip, (uint64_t)pid | ((uint64_t)pid << 32), time, 1000 };
    memcpy(out, &h, 8);
    memcpy(out + 8, body, 32);
    return 40;
}

/* COMM with the sample_id trailer of ST (tid, time). */
static size_t put_comm(uint8_t *out, uint32_t pid, const char *comm, uint64_t time)
{
    uint8_t rec[64];
    struct perf_event_header h = { .type = PERF_RECORD_COMM };
    size_t n = 16;
    uint64_t pidtid = (uint64_t)pid | ((uint64_t)pid << 32);

    memset(rec, 0, sizeof(rec));
    memcpy(rec + 8, &pid, 4);
    memcpy(rec + 12, &pid, 4);
    strncpy((char *)rec + 16, comm, 15);
    n += (strlen(comm) + 1 + 7) / 8 * 8;
    memcpy(rec + n, &pidtid, 8);
    memcpy(rec + n + 8, &time, 8);
    n += 16;
    h.size = (uint16_t)n;
    memcpy(rec, &h, 8);
    memcpy(out, rec, n);
    return n;
}

/* header + 2 ids + one attr entry of attr_disk bytes (tail_byte fills beyond sizeof(attr)) +
 * data. Returns the data offset. */
static size_t build(struct fb *b, const struct perf_event_attr *attr, uint32_t attr_disk,
                    uint8_t tail_byte, const void *data, size_t dlen)
{
    struct perf_file_header h;
    uint64_t ids[2] = { 7, 8 };
    struct perf_file_section ids_sec;
    size_t ids_off, attr_off, data_off;
    uint8_t entry[512];

    memset(b, 0, sizeof(*b));
    fb_put(b, NULL, sizeof(h));
    ids_off = fb_put(b, ids, sizeof(ids));
    memset(entry, tail_byte, sizeof(entry));
    memcpy(entry, attr, attr_disk < sizeof(*attr) ? attr_disk : sizeof(*attr));
    ids_sec.offset = ids_off;
    ids_sec.size = sizeof(ids);
    memcpy(entry + attr_disk, &ids_sec, sizeof(ids_sec));
    attr_off = fb_put(b, entry, attr_disk + sizeof(ids_sec));
    data_off = fb_put(b, data, dlen);
    memset(&h, 0, sizeof(h));
    h.magic = PERFDATA_MAGIC;
    h.size = sizeof(h);
    h.attr_size = attr_disk + sizeof(ids_sec);
    h.attrs.offset = attr_off;
    h.attrs.size = h.attr_size;
    h.data.offset = data_off;
    h.data.size = dlen;
    memcpy(fb_bytes(b), &h, sizeof(h));
    return data_off;
}

static struct perf_file_header *hdr_of(struct fb *b) { return (struct perf_file_header *)b->words; }

struct seen {
    uint64_t times[64];
    uint32_t types[64];
    int n;
    uint64_t samples;
};

static int collect(void *arg, const struct evlist *evl, const struct perf_event_header *h,
                   uint64_t time)
{
    struct seen *s = arg;
    if (s->n < 64) {
        s->times[s->n] = time;
        s->types[s->n++] = h->type;
    }
    if (h->type == PERF_RECORD_SAMPLE) {
        struct sample smp;
        if (sample_parse(evlist_evsel_for(evl, h), h, &smp) == 0)
            s->samples++;
    }
    return 0;
}

/* Opens and processes; returns the open error (0 when it opened). */
static int read_mem(struct fb *b, struct perfdata **pd, struct seen *s, struct perfdata_error *e)
{
    int ret = perfdata_open_mem(b->words, b->n, "t.data", pd, e);
    if (ret)
        return ret;
    memset(s, 0, sizeof(*s));
    return perfdata_process(*pd, collect, s, 0, e);
}

static uint8_t data[16384];

static size_t three_samples(void)
{
    size_t n = 0;
    n += put_comm(data + n, 42, "work", 5);
    n += put_sample(data + n, 0x1000, 42, 10);
    n += put_sample(data + n, 0x2000, 42, 20);
    n += put_sample(data + n, 0x3000, 42, 30);
    return n;
}

TEST(reads_a_minimal_file)
{
    struct fb *b = malloc(sizeof(*b));
    struct perf_event_attr a = test_attr();
    struct perfdata *pd;
    struct perfdata_error e;
    struct seen s;
    size_t n = three_samples();

    build(b, &a, sizeof(a), 0, data, n);
    CHECK(read_mem(b, &pd, &s, &e) == 0);
    CHECK_EQ_U64(perfdata_evlist(pd)->nr, 1);
    CHECK_STR(perfdata_evlist(pd)->sel[0].name, "cpu-clock");
    CHECK_EQ_U64(perfdata_evlist(pd)->sel[0].nr_ids, 2);
    CHECK_EQ_U64(s.samples, 3);
    CHECK_EQ_U64(perfdata_stats(pd)->nr_samples, 3);
    CHECK_EQ_U64(perfdata_stats(pd)->by_type[PERF_RECORD_COMM], 1);
    CHECK(!perfdata_stats(pd)->truncated && perfdata_stats(pd)->bad == 0);
    CHECK(s.types[0] == PERF_RECORD_COMM && s.times[0] == 5);
    perfdata_close(pd);
    free(b);
}

TEST(orders_records_by_time_across_rounds)
{
    struct fb *b = malloc(sizeof(*b));
    struct perf_event_attr a = test_attr();
    struct perf_event_header round = { .type = PERF_RECORD_FINISHED_ROUND_, .size = 8 };
    struct perfdata *pd;
    struct perfdata_error e;
    struct seen s;
    size_t n = 0;

    /* Round 1: cpu0 wrote 10, 30; cpu1 wrote 20. Round 2: a late 25 from cpu1, then 40. */
    n += put_sample(data + n, 1, 1, 10);
    n += put_sample(data + n, 1, 1, 30);
    n += put_sample(data + n, 1, 1, 20);
    memcpy(data + n, &round, 8), n += 8;
    n += put_sample(data + n, 1, 1, 25);
    n += put_sample(data + n, 1, 1, 40);
    memcpy(data + n, &round, 8), n += 8;
    build(b, &a, sizeof(a), 0, data, n);
    CHECK(read_mem(b, &pd, &s, &e) == 0);
    CHECK_EQ_U64(s.n, 5);
    CHECK(s.times[0] == 10 && s.times[1] == 20 && s.times[2] == 25 && s.times[3] == 30 &&
          s.times[4] == 40);
    CHECK_EQ_U64(perfdata_stats(pd)->late, 0);
    perfdata_close(pd);
    /* File order on request. */
    CHECK(perfdata_open_mem(b->words, b->n, "t.data", &pd, &e) == 0);
    memset(&s, 0, sizeof(s));
    CHECK(perfdata_process(pd, collect, &s, PERFDATA_FILE_ORDER, &e) == 0);
    CHECK(s.times[1] == 30 && s.times[2] == 20);
    perfdata_close(pd);
    free(b);
}

/* Opens b expecting failure; checks the message names the file and the offset. */
static int expect_open_error(struct fb *b, uint64_t off, const char *needle, char *line,
                             size_t len)
{
    struct perfdata *pd = NULL;
    struct perfdata_error e;
    int ret = perfdata_open_mem(b->words, b->n, "t.data", &pd, &e);

    perfdata_error_str(&e, line, len);
    if (ret == 0) {
        perfdata_close(pd);
        return 0;
    }
    if (!e.has_offset || e.offset != off || !strstr(line, needle) || strncmp(line, "t.data: ", 8))
        return 0;
    return ret;
}

#define CHECK_OPEN_FAILS(b, off, needle) do { char l_[512]; \
        if (!expect_open_error(b, off, needle, l_, sizeof(l_))) { \
            printf("FAIL %s: %s:%d: expected error at %#llx containing '%s', got '%s'\n", \
                   test_name_, __FILE__, __LINE__, (unsigned long long)(off), needle, l_); \
            test_failed_ = 1; return; } } while (0)

TEST(bad_headers_are_named_with_offsets)
{
    struct fb *b = malloc(sizeof(*b));
    struct perf_event_attr a = test_attr();
    size_t n = three_samples();
    struct perfdata *pd;
    struct perfdata_error e;
    char line[512];

    build(b, &a, sizeof(a), 0, data, n);
    b->n = 0;
    CHECK(perfdata_open_mem(b->words, 0, "t.data", &pd, &e) == -EINVAL);
    perfdata_error_str(&e, line, sizeof(line));
    CHECK_STR(line, "t.data: file is empty");

    build(b, &a, sizeof(a), 0, data, n);
    b->n = 12;
    CHECK_OPEN_FAILS(b, 12, "too short");
    b->n = 60;
    CHECK_OPEN_FAILS(b, 60, "truncated inside the header");

    build(b, &a, sizeof(a), 0, data, n);
    memcpy(fb_bytes(b), "NOTPERF!", 8);
    CHECK_OPEN_FAILS(b, 0, "not a perf.data file");
    hdr_of(b)->magic = PERFDATA_MAGIC_SWAP;
    CHECK_OPEN_FAILS(b, 0, "other byte order");
    hdr_of(b)->magic = 0;
    CHECK_OPEN_FAILS(b, 0, "did not finish");
    hdr_of(b)->magic = PERFDATA_MAGIC;
    hdr_of(b)->size = 16;
    CHECK_OPEN_FAILS(b, 16, "pipe-mode perf.data without a HEADER_ATTR record");
    hdr_of(b)->size = 200;
    CHECK_OPEN_FAILS(b, 8, "header size 200");
    hdr_of(b)->size = 104;

    hdr_of(b)->attr_size = 0;
    CHECK_OPEN_FAILS(b, 16, "attr_size is 0");
    hdr_of(b)->attr_size = 13;
    CHECK_OPEN_FAILS(b, 16, "attr_size 13");
    hdr_of(b)->attr_size = sizeof(a) + 16;
    hdr_of(b)->attrs.size = 1 << 30;
    CHECK_OPEN_FAILS(b, 24, "attr section");
    hdr_of(b)->attrs.size = 0;
    CHECK_OPEN_FAILS(b, 24, "no events");
    hdr_of(b)->attrs.size = sizeof(a) + 16;
    hdr_of(b)->data.offset = 1 << 20;
    CHECK_OPEN_FAILS(b, 40, "data section offset");
    free(b);
}

TEST(attr_sizes_older_newer_and_unknown)
{
    struct fb *b = malloc(sizeof(*b));
    struct perf_event_attr a = test_attr();
    size_t n = three_samples();
    struct perfdata *pd;
    struct perfdata_error e;
    struct seen s;

    /* perf 2.6.x wrote 64-byte attrs (size 0 meant that): zero-filled beyond. */
    a.size = 0;
    build(b, &a, 64, 0, data, n);
    CHECK(read_mem(b, &pd, &s, &e) == 0);
    CHECK_EQ_U64(s.samples, 3);
    perfdata_close(pd);

    /* A newer perf's larger attr is fine while its new fields are zero... */
    a.size = 160;
    build(b, &a, 160, 0, data, n);
    CHECK(read_mem(b, &pd, &s, &e) == 0);
    CHECK_EQ_U64(s.samples, 3);
    CHECK_EQ_U64(perfdata_evlist(pd)->sel[0].attr.size, sizeof(struct perf_event_attr));
    perfdata_close(pd);

    /* ...and refused, naming the first byte it cannot interpret, when they are used. */
    build(b, &a, 160, 0xff, data, n);
    CHECK_OPEN_FAILS(b, 104 + 16 + sizeof(a), "fields this reader does not know");

    /* An attr claiming more than the entry holds. */
    a.size = 400;
    build(b, &a, sizeof(a), 0, data, n);
    CHECK_OPEN_FAILS(b, 104 + 16 + 4, "does not fit");
    free(b);
}

TEST(damaged_records_stop_or_skip_with_offsets)
{
    struct fb *b = malloc(sizeof(*b));
    struct perf_event_attr a = test_attr();
    struct perfdata *pd;
    struct perfdata_error e;
    struct seen s;
    size_t n, doff, bad_at;
    struct perf_event_header zero = { .type = PERF_RECORD_SAMPLE, .size = 0 };
    struct perf_event_header past = { .type = PERF_RECORD_SAMPLE, .size = 4000 };
    struct perf_event_header shorts = { .type = PERF_RECORD_SAMPLE, .size = 24 };
    struct perf_event_header unk1 = { .type = 60, .size = 16 }, unk2 = { .type = 200, .size = 8 };
    char line[512];

    /* A zero-sized record: the walk stops there; what came before is delivered. */
    n = put_sample(data, 1, 1, 10);
    bad_at = n;
    memcpy(data + n, &zero, 8), n += 8;
    n += put_sample(data + n, 2, 1, 20);
    doff = build(b, &a, sizeof(a), 0, data, n);
    CHECK(read_mem(b, &pd, &s, &e) == 0);
    CHECK_EQ_U64(s.samples, 1);
    CHECK(perfdata_stats(pd)->truncated);
    CHECK_EQ_U64(perfdata_stats(pd)->damage.offset, doff + bad_at);
    CHECK_EQ_U64(perfdata_stats(pd)->bytes_unread, n - bad_at);
    perfdata_error_str(&perfdata_stats(pd)->damage, line, sizeof(line));
    CHECK(strstr(line, "t.data: offset 0x") && strstr(line, "record size 0"));
    perfdata_close(pd);

    /* A record whose size runs past the end of the data. */
    n = put_sample(data, 1, 1, 10);
    bad_at = n;
    memcpy(data + n, &past, 8), n += 8;
    n += put_sample(data + n, 2, 1, 20);
    doff = build(b, &a, sizeof(a), 0, data, n);
    CHECK(read_mem(b, &pd, &s, &e) == 0);
    CHECK_EQ_U64(s.samples, 1);
    CHECK_EQ_U64(perfdata_stats(pd)->damage.offset, doff + bad_at);
    CHECK(strstr(perfdata_stats(pd)->damage.msg, "runs past the end"));
    perfdata_close(pd);

    /* A sample shorter than its sample_type says, and unknown types: skipped and counted. */
    n = put_sample(data, 1, 1, 10);
    bad_at = n;
    memcpy(data + n, &shorts, 8), memset(data + n + 8, 0, 16), n += 24;
    memcpy(data + n, &unk1, 8), memset(data + n + 8, 0, 8), n += 16;
    memcpy(data + n, &unk2, 8), n += 8;
    n += put_sample(data + n, 2, 1, 20);
    doff = build(b, &a, sizeof(a), 0, data, n);
    CHECK(read_mem(b, &pd, &s, &e) == 0);
    CHECK_EQ_U64(s.samples, 2);
    CHECK(!perfdata_stats(pd)->truncated);
    CHECK_EQ_U64(perfdata_stats(pd)->bad, 1);
    CHECK_EQ_U64(perfdata_stats(pd)->first_bad.offset, doff + bad_at);
    CHECK(strstr(perfdata_stats(pd)->first_bad.msg, "sample format"));
    CHECK_EQ_U64(perfdata_stats(pd)->unknown, 2);
    perfdata_close(pd);

    /* The file cut short in the middle of the data section. */
    n = three_samples();
    build(b, &a, sizeof(a), 0, data, n);
    b->n -= 20;
    CHECK(read_mem(b, &pd, &s, &e) == 0);
    CHECK_EQ_U64(s.samples, 2);
    CHECK(perfdata_stats(pd)->truncated);
    CHECK_EQ_U64(perfdata_stats(pd)->bytes_unread, 40);
    perfdata_close(pd);

    /* perf killed before it wrote the data size: records up to the end of the file. */
    build(b, &a, sizeof(a), 0, data, n);
    hdr_of(b)->data.size = 0;
    CHECK(read_mem(b, &pd, &s, &e) == 0);
    CHECK_EQ_U64(s.samples, 3);
    CHECK(perfdata_stats(pd)->data_size_missing);
    perfdata_close(pd);
    free(b);
}

TEST(perf_user_records_are_skipped_by_their_real_size)
{
    struct fb *b = malloc(sizeof(*b));
    struct perf_event_attr a = test_attr();
    struct perfdata *pd;
    struct perfdata_error e;
    struct seen s;
    size_t n = 0;
    struct perfdata_auxtrace aux = { .header = { .type = PERF_RECORD_AUXTRACE_,
                                                 .size = sizeof(aux) }, .size = 24 };
    struct perfdata_tracing_data td = { .header = { .type = PERF_RECORD_HEADER_TRACING_DATA_,
                                                    .size = 12 }, .size = 4 };
    struct perf_event_header fin = { .type = PERF_RECORD_FINISHED_INIT_, .size = 8 };

    n += put_sample(data + n, 1, 1, 10);
    memcpy(data + n, &aux, sizeof(aux)), n += sizeof(aux);
    memset(data + n, 0xee, 24), n += 24;          /* AUX payload, outside header.size */
    memcpy(data + n, &td, 12), n += 12;
    memset(data + n, 0xdd, 4), n += 4;            /* 16 so far: aligned again */
    memcpy(data + n, &fin, 8), n += 8;
    memcpy(data + n, &td, 12), n += 12;           /* 12 + 0: leaves the stream misaligned */
    memset(data + n - 4, 0, 4);
    n += put_sample(data + n, 2, 1, 20);
    n += put_sample(data + n, 3, 1, 30);
    build(b, &a, sizeof(a), 0, data, n);
    CHECK(read_mem(b, &pd, &s, &e) == 0);
    CHECK_EQ_U64(s.samples, 3);
    CHECK_EQ_U64(perfdata_stats(pd)->unknown, 0);
    CHECK_EQ_U64(perfdata_stats(pd)->bad, 0);
    CHECK_EQ_U64(perfdata_stats(pd)->by_type[PERF_RECORD_AUXTRACE_], 1);
    CHECK_EQ_U64(perfdata_stats(pd)->by_type[PERF_RECORD_HEADER_TRACING_DATA_], 2);
    perfdata_close(pd);
    free(b);
}

TEST(events_that_cannot_be_told_apart_are_refused)
{
    struct fb *b = malloc(sizeof(*b));
    struct perf_event_attr a = test_attr();
    size_t n = three_samples();

    build(b, &a, sizeof(a), 0, data, n);
    /* Declare two attr entries without PERF_SAMPLE_ID: the second is the first repeated. */
    memcpy(fb_bytes(b) + b->n, fb_bytes(b) + hdr_of(b)->attrs.offset, hdr_of(b)->attr_size);
    hdr_of(b)->attrs.offset = b->n;
    b->n += hdr_of(b)->attr_size;
    memcpy(fb_bytes(b) + b->n, fb_bytes(b) + hdr_of(b)->attrs.offset, hdr_of(b)->attr_size);
    b->n += hdr_of(b)->attr_size;
    hdr_of(b)->attrs.size = 2 * hdr_of(b)->attr_size;
    CHECK_OPEN_FAILS(b, hdr_of(b)->attrs.offset, "cannot be told apart");
    free(b);
}

static const char *tmp_path(const char *name, char *buf, size_t len)
{
    const char *dir = getenv("TEST_TMP");
    snprintf(buf, len, "%s/%s", dir ? dir : "/tmp", name);
    return buf;
}

TEST(writer_round_trip_with_features)
{
    struct evlist evl;
    struct perf_event_attr a = test_attr();
    struct evsel *sel;
    struct perfdata_writer *w;
    struct perfdata *pd;
    struct perfdata_error e;
    struct seen s;
    struct stat st;
    char path[512];
    const char *argv[] = { "prospect", "record", "--", "./work" };
    struct perfdata_write_meta meta = { .argv = argv, .argc = 4, .hostname = "testhost",
                                        .osrelease = "9.9.9", .version = "prospect test" };
    uint8_t bid[20];
    size_t n;
    const struct perfdata_info *in;

    tmp_path("written.data", path, sizeof(path));
    unlink(path);
    evlist_init(&evl);
    CHECK((sel = evlist_add(&evl, &a, "cpu-clock")) != NULL);
    CHECK(evsel_add_id(sel, 7) == 0 && evsel_add_id(sel, 8) == 0);
    CHECK(evlist_finalize(&evl) == 0);
    CHECK(perfdata_writer_open(path, &evl, &w, &e) == 0);
    CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600);
    n = three_samples();
    for (size_t off = 0; off < n; off += ((struct perf_event_header *)(data + off))->size)
        CHECK(perfdata_writer_write(w, (struct perf_event_header *)(data + off)) == 0);
    CHECK(perfdata_writer_round(w) == 0);
    for (size_t i = 0; i < sizeof(bid); i++)
        bid[i] = (uint8_t)i;
    CHECK(perfdata_writer_add_build_id(w, -1, PERF_RECORD_MISC_USER, "/bin/work", bid, 20) == 0);
    CHECK(perfdata_writer_add_build_id(w, -1, PERF_RECORD_MISC_USER, "/bin/work", bid, 20) == 0);
    CHECK_EQ_U64(perfdata_writer_samples(w), 3);
    CHECK(perfdata_writer_close(w, &meta, &e) == 0);

    CHECK(perfdata_open(path, &pd, &e) == 0);
    memset(&s, 0, sizeof(s));
    CHECK(perfdata_process(pd, collect, &s, 0, &e) == 0);
    CHECK_EQ_U64(s.samples, 3);
    CHECK_EQ_U64(perfdata_stats(pd)->by_type[PERF_RECORD_FINISHED_ROUND_], 1);
    in = perfdata_info(pd);
    CHECK_STR(in->hostname, "testhost");
    CHECK_STR(in->osrelease, "9.9.9");
    CHECK_STR(in->version, "prospect test");
    CHECK(in->has_nrcpus && in->nr_cpus_online >= 1);
    CHECK_EQ_U64(in->nr_cmdline, 4);
    CHECK_STR(in->cmdline[3], "./work");
    CHECK_EQ_U64(in->nr_events, 1);
    CHECK_STR(in->events[0].name, "cpu-clock");
    CHECK_EQ_U64(in->events[0].nr_ids, 2);
    CHECK_EQ_U64(in->nr_build_ids, 1);
    CHECK_STR(in->build_ids[0].path, "/bin/work");
    CHECK(in->build_ids[0].size == 20 && in->build_ids[0].id[19] == 19);
    CHECK(in->has_sample_time && in->first_sample_time == 10 && in->last_sample_time == 30);
    CHECK_EQ_U64(in->nr_bad_feats, 0);
    perfdata_close(pd);
    evlist_release(&evl);
}

/* Pipe mode (record -o -): a stream, never sought, read back whole (events, features, samples
 * in order). Written into a pipe whose reader is this test: a seek would fail (ESPIPE). */
TEST(pipe_writer_round_trip)
{
    struct evlist evl;
    struct perf_event_attr a = test_attr();
    struct evsel *sel;
    struct perfdata_writer *w;
    struct perfdata *pd;
    struct perfdata_error e;
    struct seen s;
    const char *argv[] = { "prospect", "record", "-o", "-", "--", "./work" };
    struct perfdata_write_meta meta = { .argv = argv, .argc = 6, .hostname = "pipehost",
                                        .version = "prospect test" };
    uint8_t *buf = malloc(1 << 20);
    size_t n, got = 0;
    ssize_t r;
    int fds[2];
    const struct perfdata_info *in;

    CHECK(buf && pipe(fds) == 0);
    evlist_init(&evl);
    CHECK((sel = evlist_add(&evl, &a, "cpu-clock")) != NULL);
    CHECK(evsel_add_id(sel, 7) == 0 && evsel_add_id(sel, 8) == 0);
    CHECK(evlist_finalize(&evl) == 0);
    CHECK(perfdata_writer_open_pipe(fds[1], "-", &evl, &meta, &w, &e) == 0);
    n = three_samples();
    for (size_t off = 0; off < n; off += ((struct perf_event_header *)(data + off))->size)
        CHECK(perfdata_writer_write(w, (struct perf_event_header *)(data + off)) == 0);
    CHECK(perfdata_writer_round(w) == 0);
    CHECK(perfdata_writer_close(w, &meta, &e) == 0);   /* closes the write end */
    while ((r = read(fds[0], buf + got, (1 << 20) - got)) > 0)
        got += (size_t)r;
    close(fds[0]);
    CHECK(got > 16 && !memcmp(buf, "PERFILE2", 8));
    CHECK(perfdata_open_mem(buf, got, "pipe", &pd, &e) == 0);
    memset(&s, 0, sizeof(s));
    CHECK(perfdata_process(pd, collect, &s, 0, &e) == 0);
    CHECK_EQ_U64(s.samples, 3);
    in = perfdata_info(pd);
    CHECK_STR(in->hostname, "pipehost");
    CHECK_STR(in->version, "prospect test");
    CHECK_EQ_U64(in->nr_cmdline, 6);
    CHECK_STR(in->cmdline[3], "-");
    CHECK_EQ_U64(in->nr_events, 1);
    CHECK_STR(in->events[0].name, "cpu-clock");
    CHECK_EQ_U64(perfdata_evlist(pd)->nr, 1);
    CHECK_EQ_U64(perfdata_evlist(pd)->sel[0].nr_ids, 2);
    CHECK_EQ_U64(in->nr_bad_feats, 0);
    CHECK_EQ_U64(in->nr_unknown_feats, 0);
    perfdata_close(pd);
    evlist_release(&evl);
    free(buf);
}

TEST(interrupted_writer_leaves_a_readable_file)
{
    struct evlist evl;
    struct perf_event_attr a = test_attr();
    struct evsel *sel;
    struct perfdata_writer *w;
    struct perfdata *pd;
    struct perfdata_error e;
    struct seen s;
    char path[512], line[1024];
    size_t n;

    tmp_path("interrupted.data", path, sizeof(path));
    unlink(path);       /* the writer creates its file exclusively */
    evlist_init(&evl);
    CHECK((sel = evlist_add(&evl, &a, "cpu-clock")) != NULL);
    CHECK(evsel_add_id(sel, 7) == 0);
    CHECK(evlist_finalize(&evl) == 0);
    /* Killed before the first record: no header at all, said plainly. */
    CHECK(perfdata_writer_open(path, &evl, &w, &e) == 0);
    perfdata_writer_abort(w);
    CHECK(perfdata_open(path, &pd, &e) == -EINVAL);
    perfdata_error_str(&e, line, sizeof(line));
    CHECK(strstr(line, "offset 0x0: header was never written"));
    /* Killed (SIGKILL: abort flushes nothing) after a finished round and a record of the next:
     * the header says how much the round wrote; the file is read to its end, warned. */
    unlink(path);
    CHECK(perfdata_writer_open(path, &evl, &w, &e) == 0);
    n = three_samples();
    for (size_t off = 0; off < n; off += ((struct perf_event_header *)(data + off))->size)
        CHECK(perfdata_writer_write(w, (struct perf_event_header *)(data + off)) == 0);
    CHECK(perfdata_writer_round(w) == 0);
    CHECK(perfdata_writer_write(w, (struct perf_event_header *)data) == 0);
    perfdata_writer_abort(w);
    CHECK(perfdata_open(path, &pd, &e) == 0);
    memset(&s, 0, sizeof(s));
    CHECK(perfdata_process(pd, collect, &s, 0, &e) == 0);
    CHECK_EQ_U64(s.samples, 3);
    CHECK(perfdata_stats(pd)->data_size_missing);
    CHECK_EQ_U64(perfdata_header(pd)->data.size, n + 8);       /* the records and the round */
    CHECK(!perfdata_stats(pd)->truncated);
    CHECK_EQ_U64(perfdata_evlist(pd)->nr, 1);
    CHECK_EQ_U64(perfdata_evlist(pd)->sel[0].nr_ids, 1);
    perfdata_close(pd);
    evlist_release(&evl);
}

TEST(unknown_and_damaged_features_are_not_fatal)
{
    struct fb *b = malloc(sizeof(*b));
    struct perf_event_attr a = test_attr();
    struct perfdata *pd;
    struct perfdata_error e;
    struct seen s;
    struct perf_file_section sec[3];
    size_t n = three_samples(), table;
    uint8_t host[] = { 8, 0, 0, 0, 'h', 'o', 's', 't', 0, 0, 0, 0 };

    build(b, &a, sizeof(a), 0, data, n);
    /* Features after the data: hostname (ok), bit 40 (unknown), cmdline (damaged). */
    table = fb_put(b, NULL, sizeof(sec));
    sec[0].offset = fb_put(b, host, sizeof(host));
    sec[0].size = sizeof(host);
    sec[1].offset = fb_put(b, "future!!", 8);
    sec[1].size = 8;
    sec[2].offset = fb_put(b, "\xff\xff\xff\x7f", 4);     /* 2^31 strings in 0 bytes */
    sec[2].size = 4;
    memcpy(fb_bytes(b) + table, sec, sizeof(sec));
    hdr_of(b)->features[0] = 1ULL << FEAT_HOSTNAME | 1ULL << FEAT_CMDLINE;
    hdr_of(b)->features[0] |= 1ULL << 40;
    /* Bit order: hostname (3), cmdline (11), 40. */
    memcpy(fb_bytes(b) + table + 16, &sec[2], 16);
    memcpy(fb_bytes(b) + table + 32, &sec[1], 16);
    CHECK(read_mem(b, &pd, &s, &e) == 0);
    CHECK_EQ_U64(s.samples, 3);
    CHECK_STR(perfdata_info(pd)->hostname, "host");
    CHECK_EQ_U64(perfdata_info(pd)->nr_unknown_feats, 1);
    CHECK_EQ_U64(perfdata_info(pd)->unknown_feats[0], 40);
    CHECK_EQ_U64(perfdata_info(pd)->nr_bad_feats, 1);
    CHECK(strstr(perfdata_info(pd)->bad_feat.msg, "cmdline"));
    perfdata_close(pd);
    free(b);
}

int main(void)
{
    RUN(reads_a_minimal_file);
    RUN(orders_records_by_time_across_rounds);
    RUN(bad_headers_are_named_with_offsets);
    RUN(attr_sizes_older_newer_and_unknown);
    RUN(damaged_records_stop_or_skip_with_offsets);
    RUN(perf_user_records_are_skipped_by_their_real_size);
    RUN(events_that_cannot_be_told_apart_are_refused);
    RUN(writer_round_trip_with_features);
    RUN(pipe_writer_round_trip);
    RUN(interrupted_writer_leaves_a_readable_file);
    RUN(unknown_and_damaged_features_are_not_fatal);
    return 0;
}
