/* SPDX-License-Identifier: MIT */
/* A launched trace's execs (`prospect trace -- cmd`): which processes exec'd a program that did
 * not load the interposer (LD_PRELOAD dropped from the environment, replaced, or ignored: a
 * static or set-user-ID program). Their calls are not traced; trace says so. A dummy perf event
 * on the command (inherited by its children with -f) reports each exec (PERF_RECORD_COMM) and
 * each executable mapping (PERF_RECORD_MMAP): an exec'd image is interposed when the
 * interposer's library is mapped after it. */
#ifndef PROSPECT_CALLTRACE_EXEC_WATCH_H
#define PROSPECT_CALLTRACE_EXEC_WATCH_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct ct_exec_watch;

/* Watches pid (held before its exec); with follow, its future children too. 0 or -errno. */
int ct_exec_watch_new(struct ct_exec_watch **out, pid_t pid, bool follow);
/* Reads the records so far (keeps the rings from filling). 0 or -ENOMEM. */
int ct_exec_watch_drain(struct ct_exec_watch *w);
/* Once the traced processes are done: the last records, matched in time order. 0 or -ENOMEM. */
int ct_exec_watch_finish(struct ct_exec_watch *w);
/* After finish, the i-th image run without the interposer: its pid and comm. false past the
 * last. */
bool ct_exec_watch_missed(const struct ct_exec_watch *w, size_t i, uint32_t *pid,
                          const char **comm);
/* Records the kernel dropped (its buffer was full): execs may have gone unseen. */
uint64_t ct_exec_watch_lost(const struct ct_exec_watch *w);
void ct_exec_watch_free(struct ct_exec_watch *w);
#endif
