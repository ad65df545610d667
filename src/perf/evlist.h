/* SPDX-License-Identifier: MIT */
/* A list of events (attrs with names and kernel ids). Live collection opens them and maps their
 * ring buffers; the perf.data reader fills the same structure from a file's attr section, so
 * sample decoding is the same code for both. */
#ifndef PROSPECT_PERF_EVLIST_H
#define PROSPECT_PERF_EVLIST_H
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct ringbuf;

struct evsel {
    struct perf_event_attr attr;
    char *name;               /* "cpu-clock", "cycles", ... */
    uint64_t *ids;            /* kernel ids of every instance (per cpu/thread) */
    size_t nr_ids;
    int *fds;                 /* live only: [target * ncpus + cpu], -1 when not open */
    size_t nr_fds;
    size_t ncpus;             /* live only: cpus per target */
    int idx;                  /* position in the evlist */
};

struct evlist {
    struct evsel *sel;
    size_t nr;
    struct ringbuf **rbs;     /* live only: one ring buffer per cpu (other fds redirected) */
    size_t nr_rbs;
    int id_pos;               /* u64 index of the id in samples, -1 unknown (see evlist_finalize) */
    int is_pos;               /* u64 index from the end of non-sample records, -1 unknown */
    /* One-entry cache of evlist_find_id: records come in runs of one event. Logically const,
     * so it is updated through const evlists too. */
    uint64_t cache_id;
    const struct evsel *cache_sel;
};

void evlist_init(struct evlist *evl);
void evlist_release(struct evlist *evl);      /* closes fds, unmaps buffers, frees */

/* Appends an event; the attr is copied and its size set. Returns the new evsel or NULL. */
struct evsel *evlist_add(struct evlist *evl, const struct perf_event_attr *attr, const char *name);
/* Records a kernel id for an evsel (the reader does this from the file). 0 or -ENOMEM. */
int evsel_add_id(struct evsel *sel, uint64_t id);

/* Computes where sample ids sit, so records of several events can be told apart. Must be called
 * after all evsels are added; -EINVAL if the events' sample_types make ids unlocatable. */
int evlist_finalize(struct evlist *evl);

/* The evsel a record belongs to: by id where events differ, else the only/first one. NULL when
 * an id is present but unknown. */
const struct evsel *evlist_evsel_for(const struct evlist *evl, const struct perf_event_header *h);
const struct evsel *evlist_find_id(const struct evlist *evl, uint64_t id);

/* Live collection: opens every evsel for each target task (pids[t]; -1: all processes) on
 * each cpu (cpus[c]); fds[t * ncpus + c]. For a task with attr.inherit one event per cpu is
 * needed because inherited per-task events cannot be mmapped. On failure returns -errno and
 * writes advice a person can act on into `advice` (see event_open_advice). */
int evlist_open(struct evlist *evl, const pid_t *pids, size_t npids, const int *cpus,
                size_t ncpus, char *advice, size_t advice_len);
/* Maps one ring buffer of `pages` data pages (power of two) per cpu and redirects every other
 * event on that cpu into it. */
int evlist_mmap(struct evlist *evl, size_t pages);
int evlist_enable(struct evlist *evl);
int evlist_disable(struct evlist *evl);

/* Online cpus from /sys/devices/system/cpu/online (untrusted), as a malloc'd array. */
int cpus_online(int **cpus, size_t *n);
#endif
