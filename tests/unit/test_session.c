/* SPDX-License-Identifier: MIT */
/* The process model: synthetic records in, attribution out. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "model/process.h"
#include "perf/evlist.h"
#include "session/session.h"
#include "symbol/dso.h"
#include "test.h"

static struct evlist evl;

static void setup_evlist(void)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof(a));
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_PAGE_FAULTS;      /* not a clock: periods are taken as given */
    a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                    PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
    a.sample_id_all = 1;
    evlist_init(&evl);
    evsel_add_id(evlist_add(&evl, &a, "cpu-clock"), 42);
    evlist_finalize(&evl);
}

static void feed(struct session *s, const void *rec)
{
    session_record(s, &evl, rec, 0);
}

static void comm(struct session *s, uint32_t pid, uint32_t tid, const char *name, int exec)
{
    uint64_t buf[16] = {0};
    struct rec_comm *r = (void *)buf;
    r->h.type = PERF_RECORD_COMM;
    r->h.misc = exec ? PERF_RECORD_MISC_COMM_EXEC : 0;
    r->h.size = sizeof(*r) + 16;
    r->pid = pid;
    r->tid = tid;
    strncpy(r->comm, name, 15);
    feed(s, r);
}

static void mmap2(struct session *s, uint32_t pid, uint64_t start, uint64_t len, const char *path)
{
    uint64_t buf[64] = {0};
    struct rec_mmap2 *r = (void *)buf;
    r->h.type = PERF_RECORD_MMAP2;
    r->h.misc = PERF_RECORD_MISC_USER;
    r->h.size = (uint16_t)((sizeof(*r) + strlen(path) + 1 + 7) & ~7u);
    r->pid = r->tid = pid;
    r->start = start;
    r->len = len;
    r->prot = PROT_READ | PROT_EXEC;
    memcpy(r->filename, path, strlen(path) + 1);
    feed(s, r);
}

static void fork_rec(struct session *s, uint32_t type, uint32_t pid, uint32_t ppid, uint32_t tid)
{
    struct rec_fork r = { .h = { .type = type, .size = sizeof(r) }, .pid = pid, .ppid = ppid,
                          .tid = tid, .ptid = ppid, .time = 1 };
    feed(s, &r);
}

static void sample(struct session *s, uint32_t pid, uint32_t tid, uint64_t ip, int kernel)
{
    uint64_t buf[8];
    struct perf_event_header *h = (void *)buf;
    h->type = PERF_RECORD_SAMPLE;
    h->misc = kernel ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER;
    h->size = sizeof(*h) + 6 * 8;
    buf[1] = 42;                          /* identifier */
    buf[2] = ip;
    buf[3] = pid | ((uint64_t)tid << 32);
    buf[4] = 100;                         /* time */
    buf[5] = 0;                           /* cpu */
    buf[6] = 1000;                        /* period */
    feed(s, h);
}

TEST(samples_land_in_their_map)
{
    struct session s;
    struct process *p;
    struct map *m;
    setup_evlist();
    CHECK(session_init(&s) == 0);
    comm(&s, 10, 10, "prog", 1);
    mmap2(&s, 10, 0x400000, 0x1000, "/bin/prog");
    mmap2(&s, 10, 0x7f0000000000, 0x20000, "/lib/libc.so.6");
    sample(&s, 10, 10, 0x400010, 0);
    sample(&s, 10, 10, 0x7f0000000100, 0);
    sample(&s, 10, 10, 0xffffffff81000000ULL, 1);
    sample(&s, 10, 10, 0x500000, 0);          /* outside every map */
    p = session_find_process(&s, 10);
    CHECK(p && !strcmp(p->comm, "prog"));
    CHECK_EQ_U64(p->user_samples, 3);
    CHECK_EQ_U64(p->kernel_samples, 1);
    CHECK_EQ_U64(p->user_period, 3000);
    m = process_find_map(p, 0x400010);
    CHECK(m && hitstore_count(&m->hits) == 1);
    CHECK_STR(dso_path(m->dso), "/bin/prog");
    CHECK_EQ_U64(hitstore_count(&p->unmapped), 1);
    struct hitstore all;
    CHECK(session_kernel_hits(&s, &all) == 0);
    CHECK_EQ_U64(hitstore_count(&all), 1);      /* the global kernel profile's */
    hitstore_release(&all);
    CHECK_EQ_U64(s.stats.samples, 4);
    session_release(&s);
    evlist_release(&evl);
}

TEST(exec_starts_a_new_image_and_fork_copies_maps)
{
    struct session s;
    struct process *parent, *child;
    setup_evlist();
    CHECK(session_init(&s) == 0);
    comm(&s, 20, 20, "sh", 1);
    mmap2(&s, 20, 0x400000, 0x1000, "/bin/sh");
    sample(&s, 20, 20, 0x400100, 0);
    fork_rec(&s, PERF_RECORD_FORK, 21, 20, 21);
    child = session_find_process(&s, 21);
    CHECK(child && !strcmp(child->comm, "sh"));
    CHECK(process_find_map(child, 0x400100) != NULL);   /* inherited from the parent */
    comm(&s, 21, 21, "prog", 1);                        /* exec */
    mmap2(&s, 21, 0x400000, 0x2000, "/bin/prog");
    sample(&s, 21, 21, 0x400100, 0);
    child = session_find_process(&s, 21);
    CHECK(!strcmp(child->comm, "prog"));
    CHECK(child->incarnation == 1);          /* fork made 0, exec made 1 */
    CHECK_STR(dso_path(process_find_map(child, 0x400100)->dso), "/bin/prog");
    parent = session_find_process(&s, 20);
    CHECK_EQ_U64(parent->user_samples, 1);
    CHECK_EQ_U64(child->user_samples, 1);
    /* A thread of the child maps to it. */
    fork_rec(&s, PERF_RECORD_FORK, 21, 21, 22);
    sample(&s, 21, 22, 0x400200, 0);
    CHECK_EQ_U64(child->user_samples, 2);
    session_release(&s);
    evlist_release(&evl);
}

TEST(overlapping_mmap_replaces_and_keeps_old_hits)
{
    struct session s;
    struct process *p;
    setup_evlist();
    CHECK(session_init(&s) == 0);
    comm(&s, 30, 30, "jit", 1);
    mmap2(&s, 30, 0x10000, 0x3000, "/a");
    sample(&s, 30, 30, 0x10100, 0);
    mmap2(&s, 30, 0x11000, 0x1000, "/b");             /* punches a hole in the middle of /a */
    p = session_find_process(&s, 30);
    CHECK_EQ_U64(p->maps.n, 3);
    CHECK_STR(dso_path(process_find_map(p, 0x10000)->dso), "/a");
    CHECK_STR(dso_path(process_find_map(p, 0x11800)->dso), "/b");
    CHECK_STR(dso_path(process_find_map(p, 0x12000)->dso), "/a");
    CHECK_EQ_U64(process_find_map(p, 0x12000)->pgoff, 0x2000);
    CHECK_EQ_U64(p->retired.n, 1);                      /* the original /a kept its hit */
    CHECK_EQ_U64(hitstore_count(&p->retired.v[0]->hits), 1);
    session_release(&s);
    evlist_release(&evl);
}

TEST(malformed_records_are_counted_not_fatal)
{
    struct session s;
    uint64_t buf[4] = {0};
    struct perf_event_header *h = (void *)buf;
    setup_evlist();
    CHECK(session_init(&s) == 0);
    h->type = PERF_RECORD_SAMPLE;
    h->size = 16;                                       /* far too short for the sample_type */
    CHECK(session_record(&s, &evl, h, 0) == 0);
    CHECK_EQ_U64(s.stats.bad_samples, 1);
    h->type = PERF_RECORD_COMM;                         /* no terminating NUL inside */
    memset(&buf[1], 'x', 24);
    h->size = 32;
    CHECK(session_record(&s, &evl, h, 0) == 0);
    CHECK_EQ_U64(s.procs.n, 0);
    session_release(&s);
    evlist_release(&evl);
}

TEST(lost_and_throttle_records_are_counted)
{
    struct session s;
    struct rec_lost lost = { .h = { .type = PERF_RECORD_LOST, .size = sizeof(lost) }, .lost = 17 };
    struct rec_lost_samples ls = { .h = { .type = PERF_RECORD_LOST_SAMPLES, .size = sizeof(ls) },
                                   .lost = 3 };
    struct rec_throttle th = { .h = { .type = PERF_RECORD_THROTTLE, .size = sizeof(th) } };
    setup_evlist();
    CHECK(session_init(&s) == 0);
    feed(&s, &lost);
    feed(&s, &lost);
    feed(&s, &ls);
    feed(&s, &th);
    CHECK_EQ_U64(s.stats.lost, 34);
    CHECK_EQ_U64(s.stats.lost_records, 2);
    CHECK_EQ_U64(s.stats.lost_samples, 3);
    CHECK_EQ_U64(s.stats.throttle, 1);
    session_release(&s);
    evlist_release(&evl);
}

TEST(launched_command_owns_its_exec_samples)
{
    struct session s;
    struct process *p;
    setup_evlist();
    CHECK(session_init(&s) == 0);
    CHECK(session_add_launcher(&s, 50, "/usr/bin/myprog") == 0);
    sample(&s, 50, 50, 0xffffffff81001000ULL, 1);      /* in the kernel, during exec */
    comm(&s, 50, 50, "myprog", 1);
    sample(&s, 50, 50, 0xffffffff81001000ULL, 1);
    p = session_find_process(&s, 50);
    CHECK(p && !strcmp(p->comm, "myprog"));
    CHECK_EQ_U64(p->kernel_samples, 2);                  /* one process, not ":50" + myprog */
    CHECK_EQ_U64(s.procs.n, 1);
    comm(&s, 50, 50, "other", 1);                        /* a later exec is a new image */
    CHECK_EQ_U64(s.procs.n, 2);
    session_release(&s);
    evlist_release(&evl);
}

/* What a sink was handed: the commands' stores rely on every kept sample and every claimed one
 * arriving once, with the session's counting left to the session. */
struct sink_log {
    bool claim;
    unsigned samples, claimed, hidden, switch_ins;
    uint64_t last_ip, last_period;
    uint32_t last_tid;
};

static bool log_claims(void *arg, const struct evsel *sel)
{
    return sel && ((struct sink_log *)arg)->claim;
}

static int log_claimed(void *arg, struct process *p, const struct sample *smp)
{
    struct sink_log *l = arg;
    l->claimed += p != NULL;
    l->last_ip = smp->ip;
    return 0;
}

static int log_hidden(void *arg, const struct sample *smp)
{
    struct sink_log *l = arg;
    l->hidden++;
    l->last_ip = smp->ip;
    return 0;
}

static int log_sample(void *arg, struct process *p, const struct sample *smp, uint64_t period)
{
    struct sink_log *l = arg;
    l->samples += p != NULL;
    l->last_ip = smp->ip;
    l->last_period = period;
    return 0;
}

static int log_switch_in(void *arg, uint32_t tid, uint64_t time)
{
    struct sink_log *l = arg;
    l->switch_ins++;
    l->last_tid = tid;
    (void)time;
    return 0;
}

static struct sample_sink log_sink(struct sink_log *l)
{
    return (struct sample_sink){ .claims = log_claims, .claimed = log_claimed,
                                 .claimed_hidden = log_hidden, .sample = log_sample,
                                 .switch_in = log_switch_in, .arg = l };
}

/* A PERF_RECORD_SWITCH (in, or out) of pid/tid, its sample_id as the evlist says. */
static void switch_rec(struct session *s, uint32_t pid, uint32_t tid, int out)
{
    uint64_t buf[5];
    struct perf_event_header *h = (void *)buf;
    h->type = PERF_RECORD_SWITCH;
    h->misc = out ? PERF_RECORD_MISC_SWITCH_OUT : 0;
    h->size = sizeof(buf);
    buf[1] = pid | ((uint64_t)tid << 32);
    buf[2] = 200;                         /* time */
    buf[3] = 0;                           /* cpu */
    buf[4] = 42;                          /* identifier */
    feed(s, h);
}

TEST(sinks_get_kept_samples_claimed_ones_and_switch_ins)
{
    struct session s;
    struct sink_log keep = { 0 }, take = { .claim = true };
    struct process *p;
    setup_evlist();
    CHECK(session_init(&s) == 0);
    CHECK(session_add_sink(&s, log_sink(&keep)) == 0);
    comm(&s, 10, 10, "prog", 1);
    sample(&s, 10, 10, 0x400010, 0);
    CHECK_EQ_U64(keep.samples, 1);
    CHECK_EQ_U64(keep.last_ip, 0x400010);
    CHECK_EQ_U64(keep.last_period, 1000);
    switch_rec(&s, 10, 11, 0);
    switch_rec(&s, 10, 12, 1);            /* a switch-out ends no wait: not handed on */
    CHECK_EQ_U64(keep.switch_ins, 1);
    CHECK_EQ_U64(keep.last_tid, 11);

    /* A sink that claims the event: its samples are no hits, and no other sink sees them. */
    session_release(&s);
    keep = (struct sink_log){ 0 };
    CHECK(session_init(&s) == 0);
    CHECK(session_add_sink(&s, log_sink(&keep)) == 0);
    CHECK(session_add_sink(&s, log_sink(&take)) == 0);
    comm(&s, 10, 10, "prog", 1);
    sample(&s, 10, 10, 0x400020, 0);
    CHECK_EQ_U64(keep.claimed + keep.samples, 0);
    CHECK_EQ_U64(take.claimed, 1);
    CHECK_EQ_U64(take.last_ip, 0x400020);
    p = session_find_process(&s, 10);
    CHECK(p && process_samples(p) == 0);
    CHECK_EQ_U64(s.stats.samples, 0);
    s.filter.pid = 99;                    /* hidden by the filters: claimed all the same */
    sample(&s, 10, 10, 0x400030, 0);
    CHECK_EQ_U64(take.hidden, 1);
    CHECK_EQ_U64(take.last_ip, 0x400030);
    CHECK_EQ_U64(s.stats.filtered, 1);
    while (s.nsinks < SESSION_MAX_SINKS)
        CHECK(session_add_sink(&s, log_sink(&keep)) == 0);
    CHECK(session_add_sink(&s, log_sink(&keep)) == -ENOSPC);
    session_release(&s);
    evlist_release(&evl);
}

int main(void)
{
    RUN(launched_command_owns_its_exec_samples);
    RUN(sinks_get_kept_samples_claimed_ones_and_switch_ins);
    RUN(lost_and_throttle_records_are_counted);
    RUN(samples_land_in_their_map);
    RUN(exec_starts_a_new_image_and_fork_copies_maps);
    RUN(overlapping_mmap_replaces_and_keeps_old_hits);
    RUN(malformed_records_are_counted_not_fatal);
    return 0;
}
