/* SPDX-License-Identifier: MIT */
/* Every thread of a process held still (ptrace_stop.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>
#include "probe/ptrace_stop.h"
#include "util/proc_tasks.h"

static bool held(const struct pt_world *w, pid_t tid)
{
    for (size_t i = 0; i < w->threads.n; i++)
        if (w->threads.v[i].tid == tid)
            return true;
    return false;
}

/* Waits for thread t's first stop after the interrupt. A signal that stopped it first is
 * kept for its resume. 0, -ESRCH (it exited), -EBUSY (a job-control stop). */
static int wait_stop(struct pt_thread *t, bool stopped_ok)
{
    int st;
    for (;;) {
        if (waitpid(t->tid, &st, __WALL) < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        if (WIFEXITED(st) || WIFSIGNALED(st))
            return -ESRCH;
        if (WIFSTOPPED(st))
            break;
    }
    if ((unsigned)st >> 16 == PTRACE_EVENT_STOP) {
        int s = WSTOPSIG(st);
        if (!stopped_ok && (s == SIGSTOP || s == SIGTSTP || s == SIGTTIN || s == SIGTTOU))
            return -EBUSY;
    } else {
        t->sig = WSTOPSIG(st);
    }
    return ptrace(PTRACE_GETREGS, t->tid, NULL, &t->regs) ? -errno : 0;
}

/* Seizes and interrupts the threads not held yet; *added when there was one. */
static int seize_new(struct pt_world *w, bool stopped_ok, bool *added)
{
    pid_t *ids;
    size_t n;
    int e = proc_task_ids(w->pid, &ids, &n);
    *added = false;
    for (size_t i = 0; !e && i < n; i++) {
        struct pt_thread t = { .tid = ids[i] };
        if (held(w, ids[i]))
            continue;
        if (ptrace(PTRACE_SEIZE, ids[i], NULL, NULL)) {
            if (errno != ESRCH)              /* ESRCH: it has just exited */
                e = -errno;
            continue;
        }
        if (vec_push(&w->threads, t)) {
            ptrace(PTRACE_DETACH, ids[i], NULL, NULL);
            e = -ENOMEM;
        } else if (ptrace(PTRACE_INTERRUPT, ids[i], NULL, NULL)) {
            e = -errno;
        } else if ((e = wait_stop(&w->threads.v[w->threads.n - 1], stopped_ok)) == -ESRCH) {
            w->threads.n--;                  /* it exited meanwhile */
            e = 0;
        }
        *added = true;
    }
    free(ids);
    return e;
}

int pt_stop_all(struct pt_world *w, pid_t pid, bool stopped_ok)
{
    char path[64];
    bool added = true;
    int e = 0;

    memset(w, 0, sizeof(*w));
    w->pid = pid;
    snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
    if ((w->mem = open(path, O_RDWR | O_CLOEXEC)) < 0)
        return -errno;
    while (added && !e)
        e = seize_new(w, stopped_ok, &added);
    if (!e && !w->threads.n)
        e = -ESRCH;
    if (e)
        pt_resume_all(w);
    return e;
}

int pt_read(const struct pt_world *w, uint64_t addr, void *buf, size_t n)
{
    ssize_t r = pread(w->mem, buf, n, (off_t)addr);
    return r == (ssize_t)n ? 0 : r < 0 ? -errno : -EIO;
}

int pt_write(const struct pt_world *w, uint64_t addr, const void *buf, size_t n)
{
    ssize_t r = pwrite(w->mem, buf, n, (off_t)addr);
    return r == (ssize_t)n ? 0 : r < 0 ? -errno : -EIO;
}

/* One step of thread t from registers r; a signal that comes first is kept for the resume
 * and the step made again. r = the registers after it. */
static int step_regs(struct pt_thread *t, struct user_regs_struct *r)
{
    uint64_t from = r->rip;
    for (int tries = 0; tries < 8; tries++) {
        int st;
        if (ptrace(PTRACE_SETREGS, t->tid, NULL, r) ||
            ptrace(PTRACE_SINGLESTEP, t->tid, NULL, NULL))
            return -errno;
        while (waitpid(t->tid, &st, __WALL) < 0)
            if (errno != EINTR)
                return -errno;
        if (!WIFSTOPPED(st))
            return -ESRCH;
        if (ptrace(PTRACE_GETREGS, t->tid, NULL, r))
            return -errno;
        if (WSTOPSIG(st) == SIGTRAP && (unsigned)st >> 16 == 0 && r->rip != from)
            return 0;
        if (WSTOPSIG(st) != SIGTRAP && (unsigned)st >> 16 == 0)
            t->sig = WSTOPSIG(st);
        r->rip = from;
    }
    return -EAGAIN;
}

int pt_step(struct pt_world *w, size_t i)
{
    struct pt_thread *t = &w->threads.v[i];
    int e = step_regs(t, &t->regs);
    t->dirty = false;
    return e;
}

int pt_syscall(struct pt_world *w, uint64_t site, long nr, const uint64_t *args, int nargs,
               int64_t *ret)
{
    static const uint8_t insn[2] = { 0x0f, 0x05 };
    struct pt_thread *t = &w->threads.v[0];
    struct user_regs_struct r = t->regs;
    unsigned long long *argr[6] = { &r.rdi, &r.rsi, &r.rdx, &r.r10, &r.r8, &r.r9 };
    uint8_t saved[2];
    int e;

    if ((e = pt_read(w, site, saved, 2)) || (e = pt_write(w, site, insn, 2)))
        return e;
    r.rip = site;
    r.rax = (unsigned long long)nr;
    r.orig_rax = (unsigned long long)-1;     /* no restart of the call it was stopped in */
    for (int i = 0; i < nargs && i < 6; i++)
        *argr[i] = args[i];
    e = step_regs(t, &r);
    if (!e && r.rip != site + 2)
        e = -EIO;
    *ret = (int64_t)r.rax;
    if (pt_write(w, site, saved, 2) && !e)
        e = -EIO;
    t->dirty = true;                          /* its own registers at the resume */
    return e;
}

void pt_resume_all(struct pt_world *w)
{
    for (size_t i = 0; i < w->threads.n; i++) {
        struct pt_thread *t = &w->threads.v[i];
        if (t->dirty)
            ptrace(PTRACE_SETREGS, t->tid, NULL, &t->regs);
        ptrace(PTRACE_DETACH, t->tid, NULL, (void *)(long)t->sig);
    }
    vec_free(&w->threads);
    if (w->mem >= 0)
        close(w->mem);
    w->mem = -1;
}
