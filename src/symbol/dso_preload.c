/* SPDX-License-Identifier: MIT */
/* Loading (and resolving in) many DSOs at once, on one thread per CPU we may run on: a report
 * that needs them all (the call-graph resolution, the flat and Prospect tables) waits for the
 * slowest file rather than for their sum. Each DSO is handled by one thread; a DSO's state is
 * only touched by the thread handling it, and what the loaders share is read-only (the cache's
 * settings and recorded build-ids), set up before (elf_version, the debuginfod environment)
 * or locked (the debuginfod client). Debug messages are kept per DSO and printed afterwards
 * in the order of the list, as handling one after the other prints them. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>
#include "symbol/debuginfod_client.h"
#include "symbol/dso_internal.h"
#define LOG_PREFIX "symbol"
#include "util/log.h"

#define MAX_THREADS 8

struct work {
    struct dso_job *jobs;
    size_t n;
    bool drop_names;
    atomic_size_t next;
    struct log_buf *logs;     /* per job, when debug messages are shown */
};

static void lookup(struct dso *d, struct dso_lookup *l)
{
    struct symres r = { 0 };
    uint64_t vaddr;

    if (dso_map_to_vaddr(d, 0, 0, l->addr, &vaddr))
        vaddr = l->addr;
    if (dso_resolve(d, vaddr, &r) == 0 && !r.name)
        dso_resolve(d, vaddr + 1, &r);
    l->name = r.name;
    l->bracket = r.bracket && r.name;
    l->demangled = r.demangled && r.name;
}

static void run(struct work *w, size_t i)
{
    struct dso_job *j = &w->jobs[i];

    if (w->logs)
        log_capture(&w->logs[i]);
    dso_load(j->dso);          /* -ENOMEM leaves it unloaded: retried on use */
    for (size_t k = 0; k < j->n; k++)
        lookup(j->dso, &j->v[k]);
    if (w->drop_names)
        dso_drop_names(j->dso);
    log_capture(NULL);
}

static void *worker(void *arg)
{
    struct work *w = arg;

    for (;;) {
        size_t i = atomic_fetch_add(&w->next, 1);
        if (i >= w->n)
            break;
        run(w, i);
    }
    return NULL;
}

static size_t thread_count(size_t jobs)
{
    cpu_set_t set;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    size_t n = cpus > 0 ? (size_t)cpus : 1;

    /* The CPUs we may run on (taskset, cpusets), when fewer than are online. */
    if (!sched_getaffinity(0, sizeof(set), &set) && CPU_COUNT(&set) > 0 &&
        (size_t)CPU_COUNT(&set) < n)
        n = (size_t)CPU_COUNT(&set);
    if (n > MAX_THREADS)
        n = MAX_THREADS;
    return n < jobs ? n : jobs;
}

int dso_resolve_all(struct dso_job *jobs, size_t n, bool drop_names)
{
    struct work w = { .jobs = jobs, .n = n, .drop_names = drop_names };
    pthread_t tid[MAX_THREADS];
    size_t nthreads = thread_count(n), started = 0;

    pr_debug2("%zu files to load or resolve in, on %zu threads", n,
              nthreads ? nthreads : 1);
    if (nthreads < 2) {
        for (size_t i = 0; i < n; i++)
            run(&w, i);
        return 0;
    }
    symbol_elf_init();
    symbol_debuginfod_prepare();
    if (log_verbosity >= LOG_DEBUG && !(w.logs = calloc(n, sizeof(*w.logs))))
        return -ENOMEM;
    atomic_init(&w.next, 0);
    while (started + 1 < nthreads && !pthread_create(&tid[started], NULL, worker, &w))
        started++;
    worker(&w);                        /* this thread is one of the workers */
    for (size_t i = 0; i < started; i++)
        pthread_join(tid[i], NULL);
    if (w.logs) {
        for (size_t i = 0; i < n; i++)
            log_flush(&w.logs[i]);
        free(w.logs);
    }
    return 0;
}

int dso_load_all(struct dso **v, size_t n)
{
    struct dso_job *jobs = malloc((n ? n : 1) * sizeof(*jobs));
    size_t k = 0;
    int err;

    if (!jobs)
        return -ENOMEM;
    for (size_t i = 0; i < n; i++)     /* only the ones still to load, in order */
        if (!v[i]->loaded && v[i]->kind != DSO_KERNEL)
            jobs[k++] = (struct dso_job){ .dso = v[i] };
    err = dso_resolve_all(jobs, k, false);
    free(jobs);
    return err;
}
