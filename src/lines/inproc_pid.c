/* SPDX-License-Identifier: MIT */
/* The in-process engine on a running process (`lines -p`, inproc.h): with every thread
 * stopped by ptrace (probe/ptrace_stop.h), the copies and the counters are mapped into it by
 * system calls made in one of its threads, the fixes applied here and written through
 * /proc/PID/mem, then the entries redirected, as the preloaded hook does in a command
 * (src/intarget/lines_hook.c). A function a thread is in keeps its uprobes: that thread runs
 * the original on and could step into the middle of a jump written over it; so does one a
 * word of a thread's stack points into (the pc a signal handler interrupted). At the end the
 * file's bytes go back and a thread running in a copy is moved to the same instruction of
 * the original. The copies and counters stay mapped (a few pages, referenced by nothing once
 * the threads are out, unless a frame returns into a copy: it finishes there, counting). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include "lines/inproc.h"
#include "lines/inproc_priv.h"
#include "lines/inproc_pid.h"
#include "probe/ptrace_stop.h"

#define PAGE 4096UL

struct inproc_pid {
    struct pt_world w;
    bool held;                    /* w's threads stopped */
    struct pid_layout lay;
    uint64_t base, csize, nsize;  /* the copies (csize) then the counters, in the process */
    struct stat code_st;          /* the code file: which processes map the copies */
    bool *skip;                   /* per ip->funcs entry: not patched */
};

/* Leaves out function f: its probes stay uprobes, its entries unpatched. */
static void leave_out(struct lines_inproc *ip, const struct lines_plan *p, size_t f,
                      const char *why)
{
    bool any = false;
    char s[400];
    for (size_t k = 0; k < ip->funcs.n; k++)
        if (ip->owner.v[k] == f && !ip->pid->skip[k])
            any = ip->pid->skip[k] = true;
    if (!any)
        return;
    for (size_t i = 0; i < p->probed.n; i++)
        if (p->blocks.v[p->probed.v[i]].func == f)
            ip->counts[i] = false;
    snprintf(s, sizeof(s), "in-process: %s keeps uprobes: %s", p->funcs.v[f].name, why);
    if (ip->note)
        ip->note(ip->note_arg, s);
}

/* A pc (file address) from which fn could not go on once its jumps are written. */
static bool refused_pc(const struct lines_func *fn, uint64_t pc)
{
    return pc >= fn->start && pc < fn->start + fn->size;
}

/* Hazard 1: the functions holding a thread's pc (or the `syscall` it restarts). */
static void leave_out_busy(struct lines_inproc *ip, const struct lines_plan *p)
{
    const struct pt_world *w = &ip->pid->w;
    for (size_t t = 0; t < w->threads.n; t++) {
        uint64_t pc = w->threads.v[t].regs.rip - ip->pid->lay.bias;
        for (size_t f = 0; f < p->funcs.n; f++)
            if (refused_pc(&p->funcs.v[f], pc) || refused_pc(&p->funcs.v[f], pc - 2))
                leave_out(ip, p, f, "a thread was in it at the attach");
    }
}

/* A stack word (file address) bad for function f: a pc hazard 1 refuses, or strictly inside
 * one of f's jumps, but not a jump's first byte (a return site's is where a deeper frame
 * returns by design; an entry's is a function pointer; from there the whole jump runs). */
static bool bad_word(const struct lines_inproc *ip, const struct lines_plan *p, size_t f,
                     uint64_t a)
{
    bool bad = refused_pc(&p->funcs.v[f], a);
    for (size_t k = 0; k < ip->funcs.n; k++) {
        const struct lines_abi_func *j = &ip->funcs.v[k];
        if (ip->owner.v[k] != f)
            continue;
        if (a == j->vaddr)
            return false;
        if (a > j->vaddr && a < j->vaddr + (j->hop ? 2 : 5))
            bad = true;
    }
    return bad;
}

struct stack_scan {
    struct lines_inproc *ip;
    const struct lines_plan *p;
    uint64_t lo, hi;              /* file addresses of all the plan's functions, jumps too */
};

static void check_word(void *arg, uint64_t word)
{
    struct stack_scan *sc = arg;
    uint64_t a = word - sc->ip->pid->lay.bias;
    if (a < sc->lo || a >= sc->hi)
        return;
    for (size_t f = 0; f < sc->p->funcs.n; f++)
        if (bad_word(sc->ip, sc->p, f, a))
            leave_out(sc->ip, sc->p, f, "a thread's stack points into it (a signal frame?)");
}

/* The signal-frame hazard: a thread in a handler has the pc it interrupted in a signal frame on its
 * stack (the main one or a sigaltstack: the scan starts at rsp); any word of it that a
 * function's jumps would break leaves that function out. 0 or -errno. */
static int leave_out_stacked(struct lines_inproc *ip, const struct lines_plan *p)
{
    struct stack_scan sc = { ip, p, UINT64_MAX, 0 };
    int e = 0;
    for (size_t f = 0; f < p->funcs.n; f++) {
        const struct lines_func *fn = &p->funcs.v[f];
        sc.lo = fn->start < sc.lo ? fn->start : sc.lo;
        sc.hi = fn->start + fn->size > sc.hi ? fn->start + fn->size : sc.hi;
    }
    for (size_t k = 0; k < ip->funcs.n; k++)
        sc.hi = ip->funcs.v[k].vaddr + 5 > sc.hi ? ip->funcs.v[k].vaddr + 5 : sc.hi;
    for (size_t t = 0; t < ip->pid->w.threads.n && !e && sc.lo < sc.hi; t++)
        e = pid_scan_stack(&ip->pid->w, t, check_word, &sc);
    return e;
}

/* The copies with their fixes applied for this process; counters `lock`ed. */
static int fixed_code(const struct lines_inproc *ip, uint8_t **out)
{
    const struct inproc_pid *ps = ip->pid;
    uint64_t counters = ps->base + ps->csize;
    uint8_t *code = malloc(ip->rc.code.n + 1);
    if (!code)
        return -ENOMEM;
    memcpy(code, ip->rc.code.v, ip->rc.code.n);
    for (size_t i = 0; i < ip->rc.fixes.n; i++) {
        const struct reloc_fix *f = &ip->rc.fixes.v[i];
        uint64_t to = f->counter ? counters + 8 * f->target : ps->lay.bias + f->target;
        int64_t d = (int64_t)(to - (ps->base + f->end));
        int32_t d32 = (int32_t)d;
        if (f->abs) {
            memcpy(code + f->at, &to, 8);
            continue;
        }
        if (d != d32 || f->at < 4) {
            free(code);
            return -ERANGE;
        }
        memcpy(code + f->at, &d32, 4);
        if (f->counter)
            code[f->at - 4] = RELOC_LOCKED;
    }
    *out = code;
    return 0;
}

/* The bytes written over funcs entry k: `jmp copy`, or a 2-byte jmp to the one at hop. */
static size_t jump_bytes(const struct lines_inproc *ip, size_t k, uint8_t *jmp)
{
    const struct lines_abi_func *f = &ip->funcs.v[k];
    uint64_t at = ip->pid->lay.bias + f->vaddr;
    int32_t d;
    if (f->hop) {
        jmp[0] = 0xeb;
        jmp[1] = (uint8_t)(int8_t)(int64_t)(f->hop - (f->vaddr + 2));
        return 2;
    }
    d = (int32_t)(int64_t)(ip->pid->base + f->copy - (at + 5));
    jmp[0] = 0xe9;
    memcpy(jmp + 1, &d, 4);
    return 5;
}

/* Redirects the entries not skipped, each checked against the file first; on failure the
 * ones written are put back. */
static int patch_entries(struct lines_inproc *ip)
{
    struct inproc_pid *ps = ip->pid;
    size_t k;
    int e = 0;
    for (k = 0; k < ip->funcs.n && !e; k++) {
        const struct lines_abi_func *f = &ip->funcs.v[k];
        uint8_t now[LINES_ABI_CHECK], jmp[5];
        size_t n = jump_bytes(ip, k, jmp);
        if (ps->skip[k])
            continue;
        if (f->hop && (int64_t)(f->hop - (f->vaddr + 2)) != (int8_t)jmp[1])
            e = -ERANGE;
        else if (!(e = pt_read(&ps->w, ps->lay.bias + f->vaddr, now, f->len)) &&
                 memcmp(now, f->bytes, f->len))
            e = -EEXIST;                   /* not the file's code: someone patched it */
        else if (!e)
            e = pt_write(&ps->w, ps->lay.bias + f->vaddr, jmp, n);
    }
    while (e && k-- > 0)
        if (!ps->skip[k])
            pt_write(&ps->w, ps->lay.bias + ip->funcs.v[k].vaddr, ip->funcs.v[k].bytes,
                     ip->funcs.v[k].hop ? RELOC_HOP_LEN : RELOC_SITE_LEN);
    return e;
}

static const char *attach_why(int e)
{
    switch (e) {
    case -EPERM: return "ptrace is not allowed (another tracer, or not permitted)";
    case -EBUSY: return "the process is stopped (job control)";
    case -EEXIST: return "its code differs from the file's";
    case -ERANGE: return "no room for the copies within reach of its code";
    case -ESRCH: case -ENOENT: return "it exited";
    case -EACCES: return "a seccomp filter watches its system calls";
    default: return strerror(-e);
    }
}

static int attach_steps(struct lines_inproc *ip, const struct lines_plan *p, pid_t pid)
{
    struct inproc_pid *ps = ip->pid;
    uint8_t *code = NULL;
    char path[300];
    int e;

    snprintf(path, sizeof(path), "%s/code", ip->dir);
    if (stat(path, &ps->code_st))
        return -errno;
    if (pid_filtered(pid))
        return -EACCES;
    if ((e = pt_stop_all(&ps->w, pid, false)))
        return e;
    ps->held = true;
    if ((e = pid_read_layout(pid, &ip->exe_st, &ip->code_seg, &ps->lay)))
        return e;
    leave_out_busy(ip, p);
    if ((e = leave_out_stacked(ip, p)))
        return e;
    ps->csize = (ip->rc.code.n + PAGE - 1) & ~(PAGE - 1);
    ps->nsize = (ip->nprobes * 8 + PAGE - 1) & ~(PAGE - 1);
    if ((e = pid_map_copies(&ps->w, &ps->lay, ip->dir, ps->csize, ps->nsize, &ps->base)))
        return e;
    if ((e = fixed_code(ip, &code)) ||
        (e = pt_write(&ps->w, ps->base, code, ip->rc.code.n)) || (e = patch_entries(ip))) {
        pid_unmap_copies(&ps->w, &ps->lay, ps->base, ps->csize + ps->nsize);
        ps->base = 0;
    }
    free(code);
    return e;
}

int lines_inproc_attach(struct lines_inproc *ip, const struct lines_plan *p, pid_t pid,
                        char *err, size_t errlen)
{
    int e;
    if (!(ip->pid = calloc(1, sizeof(*ip->pid))) ||
        !(ip->pid->skip = calloc(ip->funcs.n + 1, sizeof(bool)))) {
        inproc_pid_free(ip);
        return -ENOMEM;
    }
    ip->pid->w.mem = -1;
    if ((e = attach_steps(ip, p, pid))) {
        snprintf(err, errlen, "in-process counting of process %d: %s", (int)pid, attach_why(e));
        inproc_pid_free(ip);
    }
    return e;
}

void lines_inproc_resume(struct lines_inproc *ip)
{
    if (ip && ip->pid && ip->pid->held) {
        pt_resume_all(&ip->pid->w);
        ip->pid->held = false;
    }
}

void inproc_pid_free(struct lines_inproc *ip)
{
    if (!ip->pid)
        return;
    lines_inproc_resume(ip);
    free(ip->pid->skip);
    free(ip->pid);
    ip->pid = NULL;
}

/* The copied instruction whose copy (after its counter) starts at code offset off. */
static const struct reloc_place *place_at(const struct lines_inproc *ip, uint64_t off)
{
    size_t lo = 0, hi = ip->rc.places.n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        const struct reloc_place *pl = &ip->rc.places.v[mid];
        uint64_t at = (uint64_t)pl->copy + pl->pre;
        if (at == off)
            return pl;
        if (at < off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* Stopped in a system call the kernel restarts at the resume (its pc goes back 2 bytes). */
static bool restarting(const struct user_regs_struct *r)
{
    int64_t ax = (int64_t)r->rax;
    return (int64_t)r->orig_rax >= 0 && (ax == -512 || ax == -513 || ax == -514 || ax == -516);
}

/* Hazard 3: thread t running in a copy goes to the same instruction of the original,
 * stepped out of a counter's sequence first (its stack is moved there). 0, -EAGAIN (left
 * in the copy), -errno. */
static int move_out(const struct lines_inproc *ip, struct pt_world *w, size_t t)
{
    const struct inproc_pid *ps = ip->pid;
    for (int steps = 0; steps < 32; steps++) {
        struct user_regs_struct *r = &w->threads.v[t].regs;
        uint64_t off = r->rip - ps->base;
        const struct reloc_place *pl;
        int e;
        if (r->rip < ps->base || off >= ip->rc.code.n)
            return 0;
        if (restarting(r)) {            /* a `syscall` of the copy: never stepped again */
            if (!(pl = place_at(ip, off - 2)))
                return -EAGAIN;
            r->rip = ps->lay.bias + pl->addr + 2;
            w->threads.v[t].dirty = true;
            return 0;
        }
        if ((pl = place_at(ip, off))) {
            r->rip = ps->lay.bias + pl->addr;
            w->threads.v[t].dirty = true;
            return 0;
        }
        if ((e = pt_step(w, t)))
            return e;
    }
    return -EAGAIN;
}

/* Puts the file's bytes back in process pid and its threads out of the copies. *stuck =
 * threads left in a copy. 0 or -errno. */
static int unpatch(const struct lines_inproc *ip, pid_t pid, size_t *stuck)
{
    struct pt_world w;
    int e = pt_stop_all(&w, pid, true);
    for (size_t k = 0; !e && k < ip->funcs.n; k++) {
        const struct lines_abi_func *f = &ip->funcs.v[k];
        uint8_t jmp[5], now[5];
        size_t n = jump_bytes(ip, k, jmp);
        if (ip->pid->skip[k])
            continue;
        if (!(e = pt_read(&w, ip->pid->lay.bias + f->vaddr, now, n)) && !memcmp(now, jmp, n))
            e = pt_write(&w, ip->pid->lay.bias + f->vaddr, f->bytes, n);
    }
    for (size_t t = 0; !e && t < w.threads.n; t++)
        if (move_out(ip, &w, t))
            ++*stuck;
    if (!e || w.threads.n)
        pt_resume_all(&w);
    return e;
}

static bool seen(const pid_t *v, size_t n, pid_t pid)
{
    for (size_t i = 0; i < n; i++)
        if (v[i] == pid)
            return true;
    return false;
}

int lines_inproc_detach(struct lines_inproc *ip, void (*fn)(void *, const char *), void *arg)
{
    VEC(pid_t) done = { 0 };
    size_t stuck = 0;
    bool more = true;
    char msg[300];
    int e = 0;

    if (!ip || !ip->pid || !ip->pid->base)
        return 0;
    lines_inproc_resume(ip);
    /* Rounds until no process is new: a child may fork while its parent is put back. */
    for (int round = 0; round < 16 && more && !e; round++) {
        pid_t *pids;
        size_t n;
        more = false;
        if ((e = pid_find_mappers(&ip->pid->code_st, &pids, &n)))
            break;
        for (size_t i = 0; i < n && !e; i++) {
            int u;
            if (seen(done.v, done.n, pids[i]))
                continue;
            more = true;
            if ((e = vec_push(&done, pids[i])))
                break;
            if ((u = unpatch(ip, pids[i], &stuck)) && u != -ESRCH && u != -ENOENT) {
                snprintf(msg, sizeof(msg), "process %d: the program's code could not be put "
                         "back (%s): it runs on with the in-process counters", (int)pids[i],
                         strerror(-u));
                fn(arg, msg);
            }
        }
        free(pids);
    }
    ip->pid->base = 0;                   /* done: the next call does nothing */
    if (stuck) {
        snprintf(msg, sizeof(msg), "%zu thread(s) could not be moved out of the counted copies: "
                 "they finish their functions there", stuck);
        fn(arg, msg);
    }
    vec_free(&done);
    return e;
}
