/* SPDX-License-Identifier: MIT */
/* Samples and period per thread, named by its latest command name, for `report --sort tid`
 * (shown "tid:comm", as perf's own `pid` key, which is per thread). The session keeps hits per
 * process, so threads are tallied beside it from the same records: COMM and FORK give each
 * thread's name (a new thread inherits its creator's), and the command feeds the samples the
 * session accepted. */
#ifndef PROSPECT_REPORT_THREAD_TALLY_H
#define PROSPECT_REPORT_THREAD_TALLY_H
#include <stdint.h>
#include <sys/types.h>
#include "perf/record.h"
#include "util/hashmap.h"
#include "util/vec.h"

struct thread_row {
    pid_t pid, tid;
    char comm[16];
    uint64_t samples, period;
};

struct thread_tally {
    VEC(struct thread_row) rows;
    struct hashmap index;     /* tid hash + probe -> rows index + 1 */
    struct hashmap comm_of;   /* tid -> names index + 1 */
    VEC(struct { char s[16]; }) names;
};

void thread_tally_init(struct thread_tally *t);
void thread_tally_release(struct thread_tally *t);
/* Names from COMM and FORK records; other records are ignored. 0 or -ENOMEM. */
int thread_tally_record(struct thread_tally *t, const struct perf_event_header *h);
/* One sample of thread tid (of process pid) standing for `period` events. 0 or -ENOMEM. */
int thread_tally_sample(struct thread_tally *t, pid_t pid, pid_t tid, uint64_t period);
/* Thread tid's latest command name, or NULL when no record named it. */
const char *thread_tally_comm(const struct thread_tally *t, pid_t tid);
#endif
