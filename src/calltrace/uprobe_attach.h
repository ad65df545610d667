/* SPDX-License-Identifier: MIT */
/* `trace -p PID`: library calls of a running process through tracefs uprobes. An entry probe
 * (arguments and return address fetched by the kernel) and a return probe (return value) per
 * function in the process's libc, perf tracepoint events on every thread (inherited: new
 * threads, and child processes with follow), drained from per-cpu ring buffers and paired per
 * thread in time order. Nothing is stopped; on detach every event is closed and every probe
 * deleted, so the process is as it was. Each hit costs a trap (~7.5 us here). */
#ifndef PROSPECT_CALLTRACE_UPROBE_ATTACH_H
#define PROSPECT_CALLTRACE_UPROBE_ATTACH_H
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "calltrace/callers.h"
#include "calltrace/collect.h"

struct ct_attach_opts {
    pid_t pid;
    bool follow;                        /* child processes too (threads always) */
    uint64_t mask;                      /* built-in functions (enum ct_func_id bits) */
    /* and every function of src/calltrace/anyfunc.h's table (ct_any_resolve) */
    volatile sig_atomic_t *stop;        /* non-zero: detach */
    ct_batch_fn on_batch;               /* calls in time order; t0/t1 are CLOCK_MONOTONIC ns */
    void *arg;
    struct ct_callers *callers;         /* named per process: ring index = process index */
    pthread_mutex_t *callers_lock;      /* held around changes to callers (NULL: none) */
    bool ring0_named;                   /* the caller names ring 0 (pid) in callers itself */
    void (*attached)(void *arg);        /* every probe is live: calls from now on are seen */
    /* A launched static program: probe this ELF (not the process's libc), release the child
     * (held before its exec) once the probes are live, and wait for it. */
    const char *elf;
    struct launch *launch;
    int wstatus;                        /* result: the child's wait status */
    /* Signals received (NULL: not counted): a second one stops without waiting for a launched
     * program that outlives the first (it goes on running, without probes). */
    volatile sig_atomic_t *stops;
    bool abandoned;                     /* result: stopped so, the program still runs */
    /* results */
    uint64_t calls, lost;               /* lost: samples the kernel dropped, unpaired returns */
    uint64_t start_ns;                  /* CLOCK_MONOTONIC at attach */
};

/* Attaches, traces until the process exits or *stop, detaches. 0 or -errno with a one-line
 * reason in err. */
int ct_attach_uprobes(struct ct_attach_opts *o, char *err, size_t errlen);
#endif
