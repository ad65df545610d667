/* SPDX-License-Identifier: MIT */
/* Exited processes released during a long run (session_release_exited): the model stays the
 * size of the live and detailed processes, and the Prospect report reads exactly as without. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "test.h"
#include "perf/evlist.h"
#include "report/prospect_report.h"
#include "session/session.h"
#include "symbol/dso.h"

#define MS 1000000ull
#define STEPS 3000
#define SHELL_PID 100
#define DAEMON_PID 500

static struct evlist evl;

static void setup_evlist(void)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof(a));
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_CPU_CLOCK;
    a.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                    PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
    a.sample_id_all = 1;
    evlist_init(&evl);
    evsel_add_id(evlist_add(&evl, &a, "cpu-clock"), 42);
    evlist_finalize(&evl);
}

/* The same records go to both sessions: [0] keeps everything, [1] releases. */
static struct session ss[2];

static void feed(const void *rec, uint64_t time)
{
    for (int i = 0; i < 2; i++)
        session_record(&ss[i], &evl, rec, time);
}

static void comm_exec(uint32_t pid, const char *name, uint64_t t)
{
    uint64_t buf[16] = {0};
    struct rec_comm *r = (void *)buf;
    r->h.type = PERF_RECORD_COMM;
    r->h.misc = PERF_RECORD_MISC_COMM_EXEC;
    r->h.size = sizeof(*r) + 16;
    r->pid = r->tid = pid;
    strncpy(r->comm, name, 15);
    feed(r, t);
}

static void mmap2(uint32_t pid, uint64_t start, const char *path, uint64_t t)
{
    uint64_t buf[64] = {0};
    struct rec_mmap2 *r = (void *)buf;
    r->h.type = PERF_RECORD_MMAP2;
    r->h.misc = PERF_RECORD_MISC_USER;
    r->h.size = (uint16_t)((sizeof(*r) + strlen(path) + 1 + 7) & ~7u);
    r->pid = r->tid = pid;
    r->start = start;
    r->len = 0x10000;
    r->prot = PROT_READ | PROT_EXEC;
    memcpy(r->filename, path, strlen(path) + 1);
    feed(r, t);
}

static void task(uint32_t type, uint32_t pid, uint32_t ppid, uint32_t tid, uint64_t t)
{
    struct rec_fork r = { .h = { .type = type, .size = sizeof(r) }, .pid = pid, .ppid = ppid,
                          .tid = tid, .ptid = ppid, .time = t };
    feed(&r, t);
}

static void sample(uint32_t pid, uint32_t tid, uint64_t ip, int kernel, uint64_t t)
{
    uint64_t buf[8];
    struct perf_event_header *h = (void *)buf;
    h->type = PERF_RECORD_SAMPLE;
    h->misc = kernel ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER;
    h->size = sizeof(*h) + 6 * 8;
    buf[1] = 42;
    buf[2] = ip;
    buf[3] = pid | ((uint64_t)tid << 32);
    buf[4] = t;
    buf[5] = 0;
    buf[6] = 1000000;                     /* 1 ms of cpu-clock */
    feed(h, t);
}

/* One short-lived command of the shell: fork, exec, a thread, samples, exit. Pids and tids
 * come back every 500 steps (reuse). Every 500th is heavy enough to be detailed. */
static void short_command(unsigned k, uint64_t t)
{
    static const char *const names[] = { "cc1", "as", "ld", "make" };
    uint32_t pid = 1000 + k % 500, tid = 20000 + k % 500;
    unsigned heavy = k % 500 == 7 ? 3000 : 1;
    char prog[64];

    task(PERF_RECORD_FORK, pid, SHELL_PID, pid, t);
    comm_exec(pid, names[k % 4], t + 1 * MS);
    /* A program rebuilt every time (a new file each step, as a make loop's). */
    snprintf(prog, sizeof(prog), "/nonexistent/prog%u", k);
    mmap2(pid, 0x400000, prog, t + 2 * MS);
    mmap2(pid, 0x7f0000000000, "/nonexistent/libc.so.6", t + 2 * MS);
    task(PERF_RECORD_FORK, pid, pid, tid, t + 3 * MS);
    for (unsigned i = 0; i < heavy; i++)
        sample(pid, i % 2 ? tid : pid, 0x400100 + (i % 64) * 16, 0, t + 4 * MS);
    sample(pid, tid, 0x7f0000000200, 0, t + 4 * MS);
    sample(pid, pid, 0xffffffff81000100ull + k % 8, 1, t + 4 * MS);
    task(PERF_RECORD_EXIT, pid, pid, tid, t + 5 * MS);
    task(PERF_RECORD_EXIT, pid, SHELL_PID, pid, t + 6 * MS);
}

/* A daemon whose main thread exits early while its other thread samples on: it must stay
 * (and keep those samples) until that thread exits too. Below the thresholds throughout. */
static void daemon_step(unsigned k, uint64_t t)
{
    if (k == 0) {
        comm_exec(DAEMON_PID, "daemon", t);
        task(PERF_RECORD_FORK, DAEMON_PID, DAEMON_PID, DAEMON_PID + 1, t);
    } else if (k == 10) {
        task(PERF_RECORD_EXIT, DAEMON_PID, 1, DAEMON_PID, t);
    } else if (k == 2000) {
        task(PERF_RECORD_EXIT, DAEMON_PID, 1, DAEMON_PID + 1, t);
    } else if (k < 2000 && k % 30 == 0) {       /* 3 s apart: more than the grace */
        sample(DAEMON_PID, DAEMON_PID + 1, 0xffffffff81000200ull, 1, t);
    }
}

static char *report_of(struct session *s, size_t *len)
{
    struct report_opts ro = { .top = 25, .min_percent = 0.5, .time_event = true,
                              .system_wide = true, .event = "cpu-clock", .freq_mode = true,
                              .freq = 4000 };
    char *text = NULL;
    FILE *f = open_memstream(&text, len);
    if (!f)
        return NULL;
    if (report_prospect(f, s, NULL, &ro)) {
        fclose(f);
        free(text);
        return NULL;
    }
    fclose(f);
    return text;
}

TEST(short_processes_are_released_and_the_report_is_unchanged)
{
    size_t most_live = 0, most_tids = 0, most_dsos = 0, la, lb;
    char *a, *b;

    setup_evlist();
    CHECK(session_init(&ss[0]) == 0 && session_init(&ss[1]) == 0);
    ss[1].release_exited = true;
    ss[1].limits = (struct show_limits){ .min_percent = 0.5, .time_event = true };
    comm_exec(SHELL_PID, "sh", 0);
    mmap2(SHELL_PID, 0x400000, "/nonexistent/sh", 0);
    for (unsigned k = 0; k < STEPS; k++) {
        uint64_t t = (uint64_t)(k + 1) * 100 * MS;
        for (unsigned i = 0; i < 20; i++)
            sample(SHELL_PID, SHELL_PID, 0x400400 + i * 8, 0, t);
        daemon_step(k, t + 5 * MS);
        short_command(k, t + 10 * MS);
        if (ss[1].procs.n > most_live)
            most_live = ss[1].procs.n;
        if (ss[1].by_tid.n > most_tids)
            most_tids = ss[1].by_tid.n;
        if (dso_cache_size(ss[1].dsos) > most_dsos)
            most_dsos = dso_cache_size(ss[1].dsos);
    }
    /* Kept: 2 incarnations a step for the grace second (10 steps), the 6 detailed, the shell,
     * the daemon. */
    CHECK(most_live <= 40);
    CHECK(most_tids <= 40);
    CHECK(ss[1].dead_threads.n <= 20);
    CHECK(most_dsos <= 40);                            /* the live and detailed ones' files */
    CHECK(dso_cache_size(ss[0].dsos) >= STEPS);
    CHECK_EQ_U64(ss[0].procs.n, 2 + 2 * STEPS);
    CHECK_EQ_U64(ss[0].stats.unknown_thread, 0);
    CHECK_EQ_U64(ss[1].stats.unknown_thread, 0);       /* the daemon's thread found it */
    CHECK_EQ_U64(ss[1].procs.n + ss[1].released.seen, ss[0].procs.n);
    a = report_of(&ss[0], &la);
    b = report_of(&ss[1], &lb);
    CHECK(a && b);
    CHECK(strstr(a, "Process 1007 make") && strstr(a, "more processes below the thresholds"));
    CHECK(la == lb && !memcmp(a, b, la));
    free(a);
    free(b);
    session_release(&ss[0]);
    session_release(&ss[1]);
    evlist_release(&evl);
}

int main(void)
{
    RUN(short_processes_are_released_and_the_report_is_unchanged);
    return 0;
}
