/* SPDX-License-Identifier: MIT */
/* Every thread of a running process held still by ptrace, so that its code can be changed
 * under it (`lines -p`'s in-process counters: src/lines/inproc_pid.c): PTRACE_SEIZE +
 * PTRACE_INTERRUPT on each thread, again until no new thread appears. A system call runs in
 * one of its threads by a `syscall` instruction written at its pc for one step. Each thread
 * resumes with its own registers and the signal it was stopped with, so a system call it was
 * stopped in restarts as the kernel restarts it (ptrace(2): the registers put back hold
 * orig_rax and the -ERESTART* value; the kernel turns them into the restart when it resumes). */
#ifndef PROSPECT_PROBE_PTRACE_STOP_H
#define PROSPECT_PROBE_PTRACE_STOP_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>
#include "util/vec.h"

struct pt_thread {
    pid_t tid;
    int sig;                          /* a signal it stopped with, passed on at the resume */
    struct user_regs_struct regs;     /* as stopped; what it resumes with */
    bool dirty;                       /* regs changed: set them back before the resume */
};

struct pt_world {
    pid_t pid;
    int mem;                          /* /proc/PID/mem, read-write */
    VEC(struct pt_thread) threads;
};

/* Seizes and stops every thread of pid. 0, or -errno (nothing left held): -EPERM (another
 * tracer, or not allowed), -ESRCH (it exited), -EBUSY (in a job-control stop, unless
 * `stopped_ok`: held as it is, and stopped again after the resume). */
int pt_stop_all(struct pt_world *w, pid_t pid, bool stopped_ok);
/* Runs system call nr with up to 6 arguments in thread 0 by a `syscall` written at `site`
 * (any code: the others are stopped), its registers and the bytes put back after. *ret =
 * the call's return value (-errno on failure). 0 or -errno (ptrace failed). */
int pt_syscall(struct pt_world *w, uint64_t site, long nr, const uint64_t *args, int nargs,
               int64_t *ret);
/* Bytes of the process's memory, through /proc/PID/mem (code pages too). 0 or -errno. */
int pt_read(const struct pt_world *w, uint64_t addr, void *buf, size_t n);
int pt_write(const struct pt_world *w, uint64_t addr, const void *buf, size_t n);
/* Steps thread i one instruction (its pending signal kept for the resume). 0 or -errno. */
int pt_step(struct pt_world *w, size_t i);
/* Puts changed registers back and lets every thread go on with its signal. */
void pt_resume_all(struct pt_world *w);
#endif
