/* Loading the symbols of many DSOs at once, on one thread per CPU we may run on: a report that
 * needs them all (the call-graph resolution walk, the flat and Prospect tables) waits for the
 * slowest file rather than for their sum. Each DSO is loaded by one thread; a DSO's state is
 * only touched by the thread loading it, and what the loaders share is read-only (the cache's
 * settings and recorded build-ids), set up before (elf_version, the debuginfod environment)
 * or locked (debuginfod client). Debug messages are kept per DSO and printed afterwards in
 * the order of the list, as loading one after the other prints them. */
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

struct job {
    struct dso **v;
    size_t n;
    atomic_size_t next;
    struct log_buf *logs;     /* per DSO, when debug messages are shown */
};

static void *worker(void *arg)
{
    struct job *j = arg;

    for (;;) {
        size_t i = atomic_fetch_add(&j->next, 1);
        if (i >= j->n)
            break;
        if (j->logs)
            log_capture(&j->logs[i]);
        dso_load(j->v[i]);    /* -ENOMEM leaves it unloaded: retried on use */
        log_capture(NULL);
    }
    return NULL;
}

static size_t thread_count(size_t pending)
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
    return n < pending ? n : pending;
}

int dso_load_all(struct dso **v, size_t n)
{
    struct job j = { 0 };
    pthread_t tid[MAX_THREADS];
    size_t nthreads, started = 0;

    if (!(j.v = malloc((n ? n : 1) * sizeof(*j.v))))
        return -ENOMEM;
    for (size_t i = 0; i < n; i++)     /* only the ones still to load, in order */
        if (!v[i]->loaded && v[i]->kind != DSO_KERNEL)
            j.v[j.n++] = v[i];
    nthreads = thread_count(j.n);
    pr_debug2("symbols of %zu files to load, %zu already loaded, on %zu threads", j.n, n - j.n,
              nthreads ? nthreads : 1);
    if (nthreads < 2) {
        for (size_t i = 0; i < j.n; i++)
            dso_load(j.v[i]);
        free(j.v);
        return 0;
    }
    symbol_elf_init();
    symbol_debuginfod_prepare();
    if (log_verbosity >= LOG_DEBUG && !(j.logs = calloc(j.n, sizeof(*j.logs)))) {
        free(j.v);
        return -ENOMEM;
    }
    atomic_init(&j.next, 0);
    while (started + 1 < nthreads && !pthread_create(&tid[started], NULL, worker, &j))
        started++;
    worker(&j);                        /* this thread is one of the workers */
    for (size_t i = 0; i < started; i++)
        pthread_join(tid[i], NULL);
    if (j.logs) {
        for (size_t i = 0; i < j.n; i++)
            log_flush(&j.logs[i]);
        free(j.logs);
    }
    free(j.v);
    return 0;
}
