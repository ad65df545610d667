/* SPDX-License-Identifier: MIT */
/* `prospect trace`: library calls of a command, ltrace-like, through a preloaded interposer
 * (src/intarget/calltrace_preload.c, drained by src/calltrace/collect.c); the command launched,
 * waited for and stopped by src/probe/target.h. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "calltrace/anyfunc.h"
#include "calltrace/callers.h"
#include "calltrace/callfmt.h"
#include "calltrace/collect.h"
#include "calltrace/exec_watch.h"
#include "calltrace/funcsel.h"
#include "calltrace/inject.h"
#include "calltrace/preload.h"
#include "calltrace/summary.h"
#include "calltrace/nest.h"
#include "calltrace/protoconf.h"
#include "calltrace/tracefile.h"
#include "calltrace/uprobe_attach.h"
#include "cmd/cmd.h"
#include "cmd/options.h"
#include "cmd/target_msg.h"
#include "intarget/calltrace_abi.h"
#include "probe/target.h"
#include "prospect/calibrate.h"
#include "prospect/cycles.h"
#include "report/csv.h"
#include "report/json.h"
#include "util/launch.h"
#include "util/outfile.h"
#include "util/proc_owner.h"
#include "util/vec.h"

enum { OPT_FORMAT = 256 };

static const struct optdecl trace_opts[] = {
    { 'e', "filter", "SPEC",
        "functions to trace: names joined by '+', globs, 'libc:mem*' or\n"
        "ltrace's 'malloc@libc.so.6' (repeatable; default: malloc, free,\n"
        "calloc, realloc, posix_memalign, aligned_alloc, memalign, valloc).\n"
        "Other functions: 'libfoo.so:bar*' (exported functions of a library,\n"
        "or 'prog:f' of the program) are traced by uprobes, 4 integer args\n"
        "shown, ~10-20 us a call (the built-ins of --list: ~20 ns)", 0, NULL, 0 },
    { 'f', "follow-forks", NULL,
        "trace child processes too (fork; exec keeps tracing either way)", 0, NULL, 0 },
    { 'p', "pid", "PID",
        "attach to a running process: the interposer is loaded into it (one\n"
        "ptrace stop of one thread, for a dlopen) and its GOT entries point\n"
        "at it until prospect detaches (Ctrl-C), when they are written back;\n"
        "with -f, uprobes (a forked child's entries could not be restored)", OPTD_COMPLETE_PID, NULL, 0 },
    { 'U', "uprobes", NULL,
        "with -p: tracefs uprobes instead (~10 us per call; also the fallback\n"
        "when the interposer cannot be loaded)", 0, NULL, OPTD_LONG_ONLY },
    { 'o', "output", "FILE",
        "write the lines (or the csv, or the summary) to FILE", OPTD_COMPLETE_FILE, NULL, 0 },
    { OPT_FORMAT, "format", "F",
        "text (default), csv: time_ns,pid,tid,caller,function,args,ret,\n"
        "duration_ns; or json: one object a line with these keys (jq reads it)",
        OPTD_COMPLETE_CHOICE, "text csv json", 0 },
    { 'F', "config", "FILE",
        "prototypes in ltrace's config syntax ('file fopen(string, string);'),\n"
        "over the built-in ones (malloc, strlen, open, ... too), for every\n"
        "function traced: string arguments shown as text (repeatable)", OPTD_COMPLETE_FILE,
        NULL, 0 },
    { 'v', "verbose", NULL, "add the calling function: prog(main+0x1f)->malloc(...)", 0, NULL, 0 },
    { 'n', "indent", "N",
        "indent a call made inside another traced call of its thread (malloc\n"
        "inside fopen or strdup) by N spaces a level, as ltrace -n; csv and json\n"
        "get a depth field", 0, NULL, 0 },
    { 'c', "summary", NULL,
        "no lines: per function calls, total/mean/max time, and the request\n"
        "sizes of allocation calls (histogram and top sizes)", 0, NULL, 0 },
    { 'w', "write", "FILE",
        "also write a binary trace for `prospect replay`", OPTD_COMPLETE_FILE, NULL, 0 },
    { 'L', "list", NULL,
        "print the built-in functions and their prototypes", 0, NULL, OPTD_LONG_ONLY },
    OPTD_HELP,
    { 0 },
};

const struct cmd_decl cmd_trace_decl = {
    .name = "trace",
    .synopsis = "[options] [--] COMMAND [ARGS]",
    .intro =
"       prospect trace [options] -p PID\n"
"\n"
"Traces calls a program makes to library functions, like ltrace, without stopping it: an\n"
"interposer preloaded into the command records every call (arguments, return value, TSC\n"
"times) in per-thread shared-memory rings that prospect drains while the program runs.\n"
"Every call is captured, or the number lost is printed. Lines go to standard error (or -o):\n"
"  15671 prog->malloc(144)                       = 0x7fa9f6e82eb0 <0.000000356>\n"
"PID is the thread's id, 'prog' the object the call came from (ltrace's exe->).\n"
"\n"
"Options:\n",
    .outro =
"\n"
"The exit status is the command's (128+N when a signal N ended it).\n",
    .opts = trace_opts,
    .flags = OPTD_STOP_AT_COMMAND,
};

enum fmt { FMT_TEXT, FMT_CSV, FMT_JSON };

#define MERGE_HOLD_NS 250000000ull

struct pend_call {
    uint64_t time_ns, dur_ns;       /* the interposer's: set at the flush (the fitted rate) */
    uint64_t seq;                   /* arrival order: ties keep it */
    bool up;                        /* from the uprobes: callers in ucallers */
    struct ct_call k;
};

struct tracer {
    enum fmt fmt;
    bool verbose, summary;
    unsigned indent;                /* -n: spaces a nesting level */
    struct ct_nest *nest;
    FILE *out;
    struct ct_callers *callers;
    struct ct_summary *sum;
    struct tracefile_writer tw;
    bool writing;
    int32_t file_idx[CT_NFUNCS + CT_ANY_MAX];   /* call id -> trace file index, -1 not yet */
    uint32_t nfile_funcs;
    uint64_t tsc0;
    double ns_per_tick;
    uint64_t calls;
    int err;
    /* Interposer and uprobe calls together (functions without a prototype, src/calltrace/
     * anyfunc.h): both sources append here under mu; emitted in time order once older than
     * MERGE_HOLD_NS (each source hands its calls over within a few ms). */
    bool merge;
    bool hold;                      /* calls pass through pend: merge, or -n (start order) */
    bool flush_in_batch;            /* the uprobes alone: their batches flush pend */
    pthread_mutex_t mu;
    VEC(struct pend_call) pend;
    uint64_t mono0;                 /* CLOCK_MONOTONIC read next to tsc0 */
    uint64_t seq;
    struct ct_callers *ucallers;    /* the uprobe side's (its own ring numbers) */
};

static uint64_t ticks_ns(const struct tracer *t, uint64_t ticks)
{
    return (uint64_t)((double)ticks * t->ns_per_tick + 0.5);
}

static void on_ring(void *arg, uint32_t ring, uint32_t pid, uint32_t tid, uint64_t image)
{
    struct tracer *t = arg;
    (void)tid;
    if (ct_callers_ring(t->callers, ring, pid, image) == -ENOMEM)
        t->err = -ENOMEM;
}

static int write_rec(struct tracer *t, const struct ct_call *k, uint64_t time_ns,
                     uint64_t dur_ns)
{
    struct call_rec r = { 0 };
    int e;
    if (t->file_idx[k->func] < 0) {
        if ((e = tracefile_write_func(&t->tw, t->nfile_funcs, ct_func_name(k->func))))
            return e;
        t->file_idx[k->func] = (int32_t)t->nfile_funcs++;
    }
    r.time_ns = time_ns;
    r.dur_ns = dur_ns;
    r.pid = k->pid;
    r.tid = k->tid;
    r.func = (uint32_t)t->file_idx[k->func];
    memcpy(r.args, k->args, sizeof(k->args));
    r.ret = k->ret;
    r.caller = k->caller;
    return tracefile_write_call(&t->tw, &r);
}

static void print_text(struct tracer *t, struct ct_callers *cs, const struct ct_call *k,
                       uint64_t dur_ns, unsigned depth)
{
    char line[1024];
    const char *obj, *sym;
    ct_callers_name(cs, k->ring, k->caller, &obj, &sym);
    size_t n = ct_format_line(k, obj, t->verbose ? sym : NULL, dur_ns, t->indent * depth, line,
                              sizeof(line));
    fwrite_unlocked(line, 1, n, t->out);
}

/* -n: how deep the call is in others of its thread. Nesting needs the calls in the order they
 * began: with -n every call goes through pend. */
static unsigned call_depth(struct tracer *t, const struct ct_call *k, uint64_t time_ns,
                           uint64_t dur_ns)
{
    int depth;
    if (!t->indent || !t->hold)
        return 0;
    if ((depth = ct_nest_depth(t->nest, k->tid, time_ns, time_ns + dur_ns)) < 0) {
        t->err = depth;
        return 0;
    }
    return (unsigned)depth;
}

enum { CALL_ARGS_LEN = 512, CALL_RET_LEN = 64, CALL_CALLER_LEN = 512 };

/* The fields csv and json share: arguments, return value, and the caller as obj(sym). */
static void format_call(struct ct_callers *cs, const struct ct_call *k,
                        char args[CALL_ARGS_LEN], char ret[CALL_RET_LEN],
                        char caller[CALL_CALLER_LEN])
{
    const char *obj, *sym;

    ct_callers_name(cs, k->ring, k->caller, &obj, &sym);
    ct_format_args(k, args, CALL_ARGS_LEN);
    ct_format_ret(k, ret, CALL_RET_LEN);
    if (*sym)
        snprintf(caller, CALL_CALLER_LEN, "%s(%s)", obj, sym);
    else
        snprintf(caller, CALL_CALLER_LEN, "%s", obj);
}

static void print_csv(struct tracer *t, struct ct_callers *cs, const struct ct_call *k,
                      uint64_t time_ns, uint64_t dur_ns, unsigned depth)
{
    char args[CALL_ARGS_LEN], ret[CALL_RET_LEN], caller[CALL_CALLER_LEN];
    format_call(cs, k, args, ret, caller);
    csv_u64(t->out, time_ns, false);
    csv_u64(t->out, k->pid, false);
    csv_u64(t->out, k->tid, false);
    csv_field(t->out, caller, false);
    csv_field(t->out, ct_func_name(k->func), false);
    csv_field(t->out, args, false);
    csv_field(t->out, ret, false);
    csv_u64(t->out, dur_ns, !t->indent);
    if (t->indent)
        csv_u64(t->out, depth, true);
}

/* One JSON object a line (JSON Lines): a stream of any length that jq reads call by call. */
static void print_json(struct tracer *t, struct ct_callers *cs, const struct ct_call *k,
                       uint64_t time_ns, uint64_t dur_ns, unsigned depth)
{
    char args[CALL_ARGS_LEN], ret[CALL_RET_LEN], caller[CALL_CALLER_LEN];
    struct json j;
    format_call(cs, k, args, ret, caller);
    json_init(&j, t->out);
    j.one_line = true;
    json_begin_object(&j, NULL);
    json_u64(&j, "time_ns", time_ns);
    json_u64(&j, "pid", (uint64_t)k->pid);
    json_u64(&j, "tid", (uint64_t)k->tid);
    json_str(&j, "caller", caller);
    json_str(&j, "function", ct_func_name(k->func));
    json_str(&j, "args", args);
    json_str(&j, "ret", ret);
    json_u64(&j, "duration_ns", dur_ns);
    if (t->indent)
        json_u64(&j, "depth", depth);
    json_end_object(&j);
    json_finish(&j);
}

static int emit(struct tracer *t, struct ct_callers *cs, const struct ct_call *k,
                uint64_t time_ns, uint64_t dur_ns)
{
    int e;
    t->calls++;
    if (t->writing && (e = write_rec(t, k, time_ns, dur_ns)))
        return e;
    if (t->summary)
        return ct_summary_add(t->sum, k, dur_ns);
    unsigned depth = call_depth(t, k, time_ns, dur_ns);
    if (t->fmt == FMT_CSV)
        print_csv(t, cs, k, time_ns, dur_ns, depth);
    else if (t->fmt == FMT_JSON)
        print_json(t, cs, k, time_ns, dur_ns, depth);
    else
        print_text(t, cs, k, dur_ns, depth);
    return 0;
}

static uint64_t mono_ns(void);

static int pend_push(struct tracer *t, const struct ct_call *k, uint64_t time_ns,
                     uint64_t dur_ns, bool up)
{
    struct pend_call p = { time_ns, dur_ns, t->seq++, up, *k };
    return vec_push(&t->pend, p) ? -ENOMEM : 0;
}

static int cmp_pend(const void *x, const void *y)
{
    const struct pend_call *a = x, *b = y;
    if (a->time_ns != b->time_ns)
        return a->time_ns < b->time_ns ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Merged traces compare TSC times with the uprobes' CLOCK_MONOTONIC: the TSC's rate is fitted
 * on the clock over the whole trace so far (a 10 ms calibration is off by ~1e-4, microseconds
 * after a while: enough to put a call before the one made ahead of it). A read pair taken
 * across a preemption is not used. */
static void merge_refit(struct tracer *t)
{
    uint64_t a = prospect_tsc_start(), m = mono_ns(), b = prospect_tsc_start();
    if (b - a < 4000 && m > t->mono0 + 1000000 && a > t->tsc0)
        t->ns_per_tick = (double)(m - t->mono0) / (double)(a + (b - a) / 2 - t->tsc0);
}

/* Emits the merged calls older than the hold (all of them with all). */
static int merge_flush(struct tracer *t, bool all)
{
    int e = 0;
    size_t n = 0;
    pthread_mutex_lock(&t->mu);
    uint64_t now = mono_ns() - t->mono0;
    uint64_t upto = all ? UINT64_MAX : now > MERGE_HOLD_NS ? now - MERGE_HOLD_NS : 0;
    if (t->merge)
        merge_refit(t);
    /* One rate for every pending interposer call: a rate changed between two of a thread's
     * calls must not put the second before the first. */
    for (size_t i = 0; i < t->pend.n; i++) {
        struct pend_call *p = &t->pend.v[i];
        if (!p->up) {
            p->time_ns = p->k.t0 > t->tsc0 ? ticks_ns(t, p->k.t0 - t->tsc0) : 0;
            p->dur_ns = p->k.t1 > p->k.t0 ? ticks_ns(t, p->k.t1 - p->k.t0) : 0;
        }
    }
    if (t->pend.n > 1)
        qsort(t->pend.v, t->pend.n, sizeof(*t->pend.v), cmp_pend);   /* stable per source */
    for (; n < t->pend.n && t->pend.v[n].time_ns < upto && !e; n++) {
        const struct pend_call *p = &t->pend.v[n];
        e = emit(t, p->up ? t->ucallers : t->callers, &p->k, p->time_ns, p->dur_ns);
    }
    if (n && n < t->pend.n)
        memmove(t->pend.v, t->pend.v + n, (t->pend.n - n) * sizeof(*t->pend.v));
    t->pend.n -= n;
    pthread_mutex_unlock(&t->mu);
    return e;
}

/* -n: every call goes through pend, to be emitted in the order the calls began (a ring, or
 * the uprobes' pairing, has them in the order they ended). */
static bool nest_held(const struct tracer *t)
{
    return t->indent && !t->summary;
}

static int on_batch(void *arg, const struct ct_call *calls, size_t n)
{
    struct tracer *t = arg;
    int e = 0;
    if (t->hold)
        pthread_mutex_lock(&t->mu);
    for (size_t i = 0; i < n && !e; i++) {
        const struct ct_call *k = &calls[i];
        uint64_t time_ns = k->t0 > t->tsc0 ? ticks_ns(t, k->t0 - t->tsc0) : 0;
        uint64_t dur_ns = k->t1 > k->t0 ? ticks_ns(t, k->t1 - k->t0) : 0;
        e = t->hold ? pend_push(t, k, time_ns, dur_ns, false) : emit(t, t->callers, k, time_ns,
                                                                        dur_ns);
    }
    if (t->hold)
        pthread_mutex_unlock(&t->mu);
    if (!e && t->flush_in_batch)
        e = merge_flush(t, false);
    return e ? e : t->err;
}

/* A call the interposer made itself (its dlsym and dlopen while it looks up the real
 * functions, when -e uprobes those): not the program's. */
static bool interposer_call(struct tracer *t, const struct ct_call *k)
{
    const char *obj, *sym;
    ct_callers_name(t->ucallers, k->ring, k->caller, &obj, &sym);
    return !strcmp(obj, "calltrace_preload.so");
}

/* The uprobe side of a merged trace: times are CLOCK_MONOTONIC ns (another thread). */
static int on_batch_up(void *arg, const struct ct_call *calls, size_t n)
{
    struct tracer *t = arg;
    int e = 0;
    pthread_mutex_lock(&t->mu);
    for (size_t i = 0; i < n && !e; i++) {
        const struct ct_call *k = &calls[i];
        if (interposer_call(t, k))
            continue;
        e = pend_push(t, k, k->t0 > t->mono0 ? k->t0 - t->mono0 : 0,
                      k->t1 > k->t0 ? k->t1 - k->t0 : 0, true);
    }
    pthread_mutex_unlock(&t->mu);
    return e;
}

/* The uprobes of a launched command's functions without a prototype, in a thread of their
 * own (src/calltrace/uprobe_attach.c's loop) while the main thread drains the interposer. */
struct up_thread {
    struct ct_attach_opts ao;
    volatile sig_atomic_t stop;
    char err[256];
    int e;
    pthread_mutex_t m;
    pthread_cond_t c;
    int state;                      /* 0 starting, 1 probes live, 2 returned */
};

static void up_set_state(struct up_thread *u, int state)
{
    pthread_mutex_lock(&u->m);
    u->state = state;
    pthread_cond_signal(&u->c);
    pthread_mutex_unlock(&u->m);
}

/* Stops the uprobe thread (the command has ended) and takes its result. */
static int up_finish(struct up_thread *u, pthread_t tid)
{
    u->stop = 1;
    pthread_join(tid, NULL);
    return u->e;
}

static struct up_thread *up_live;   /* the attached callback's arg is the tracer */

static void up_attached(void *arg)
{
    (void)arg;
    up_set_state(up_live, 1);
}

static void *up_main(void *arg)
{
    struct up_thread *u = arg;
    u->e = ct_attach_uprobes(&u->ao, u->err, sizeof(u->err));
    up_set_state(u, 2);
    return NULL;
}

struct tick_state {
    struct ct_collect *c;
    struct tracer *t;
    struct ct_exec_watch *execs;    /* NULL: not watched (said) */
    int busy;       /* polls in a row that found calls */
    int err;
};

static int tick(void *arg, int timeout_ms, int wake_fd)
{
    struct tick_state *s = arg;
    bool eof;
    /* Busy rings are drained every millisecond (a full ring makes its thread wait). */
    int ms = s->busy ? 1 : (timeout_ms < 20 ? timeout_ms : 20);
    int e = ct_collect_poll(s->c, ms, wake_fd, &eof);
    if (e) {
        s->err = e;
        return e;
    }
    s->busy = ct_collect_had_calls(s->c);
    if (s->t->hold && (e = merge_flush(s->t, false)))
        s->err = e;
    if (!e && s->execs && (e = ct_exec_watch_drain(s->execs)))
        s->err = e;
    return e;
}

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Said once every probe is live, so that a script can start the work it wants traced. */
static void on_attached(void *arg)
{
    (void)arg;
    fprintf(stderr, "prospect trace: attached\n");
    fflush(stderr);
}

/* The uprobes alone (a static command, -p --uprobes): times are CLOCK_MONOTONIC ns, "ticks" of
 * 1 ns; with -n their batches flush pend (no other loop does). */
static void uprobes_clock(struct tracer *t)
{
    t->ns_per_tick = 1.0;
    t->tsc0 = t->mono0 = mono_ns();
    t->hold = nest_held(t);
    t->flush_in_batch = t->hold;
}

/* Emits every call still held (-n). 0 or -errno. */
static int flush_held(struct tracer *t)
{
    return t->hold ? merge_flush(t, true) : 0;
}

/* -p through the GOT: 0 when traced (status set), 1 when the interposer could not be loaded
 * (the caller falls back to uprobes), -1 on an error already said. */
static int attach_inject(struct tracer *t, pid_t pid, bool follow, uint64_t mask, double hz,
                         int *status)
{
    struct ct_inject in = { .listen_fd = -1 };
    char err[256] = "";
    int e, fd;
    if ((e = ct_inject_prepare(&in, mask, follow))) {
        fprintf(stderr, "prospect trace: cannot prepare the interposer (%s); using uprobes\n",
                strerror(-e));
        return 1;
    }
    t->ns_per_tick = 1e9 / hz;
    t->tsc0 = prospect_tsc_start();
    t->mono0 = mono_ns();
    t->hold = nest_held(t);
    if ((e = ct_inject_load(&in, pid, err, sizeof(err)))) {
        fprintf(stderr, "prospect trace: %s; using uprobes\n", err[0] ? err : strerror(-e));
        ct_inject_remove(&in);
        return 1;
    }
    if ((fd = ct_inject_accept(&in)) < 0) {
        /* Loaded, but it could not connect (it then traces nothing): uprobes instead. */
        fprintf(stderr, "prospect trace: the interposer loaded into %d did not connect; "
                "using uprobes\n", (int)pid);
        ct_inject_remove(&in);
        return 1;
    }
    struct ct_collect *col = ct_collect_from_fd(fd);
    if (!col) {
        close(fd);
        ct_inject_remove(&in);
        cmd_error("trace", "out of memory");
        return -1;
    }
    ct_collect_set_fns(col, on_ring, on_batch, t);
    on_attached(t);
    bool eof = false, busy = false;
    e = 0;
    while (!e && !eof && !probe_stop_signal) {
        e = ct_collect_poll(col, busy ? 1 : 20, -1, &eof);
        busy = ct_collect_had_calls(col);
        if (!e && t->hold)
            e = merge_flush(t, false);
        if (kill(pid, 0) && errno == ESRCH)
            break;
    }
    /* Detach: the interposer writes back every GOT entry and answers (2 s at most). */
    if (!e && !eof && !ct_collect_detach(col)) {
        uint64_t t0 = mono_ns();
        while (!e && !eof && !ct_collect_detached(col) && mono_ns() - t0 < 2000000000ull)
            e = ct_collect_poll(col, 10, -1, &eof);
        if (!e && !eof && !ct_collect_detached(col))
            fprintf(stderr, "prospect trace: process %d did not confirm the detach\n",
                    (int)pid);
    }
    if (!e)
        e = ct_collect_poll(col, 0, -1, &eof);
    if (!e)
        e = flush_held(t);
    ct_inject_remove(&in);
    if (e) {
        cmd_error("trace", "collecting the calls failed: %s", strerror(-e));
        *status = 1;
    } else {
        fprintf(stderr, "prospect trace: detached from %d: %llu calls\n", (int)pid,
                (unsigned long long)t->calls);
    }
    uint64_t lost = ct_collect_lost(col);
    if (lost || ct_collect_nbad(col))
        fprintf(stderr, "prospect trace: %llu calls lost (%zu damaged rings)\n",
                (unsigned long long)lost, ct_collect_nbad(col));
    ct_collect_free(col);
    return 0;
}

/* Whether -p's process can be traced at all: another user's process can be neither ptraced nor
 * read for its libraries, which is said once, at once, rather than what each way then fails on. */
static int attach_denied(pid_t pid)
{
    char p[64];
    uid_t uid;
    int fd, e;

    snprintf(p, sizeof(p), "/proc/%d/maps", (int)pid);
    if ((fd = open(p, O_RDONLY | O_CLOEXEC)) >= 0) {
        close(fd);
        return 0;
    }
    e = errno;
    if (e == ENOENT)
        cmd_error("trace", "no process %d", (int)pid);
    else if ((e == EACCES || e == EPERM) && proc_other_user(pid, &uid) == 1)
        cmd_error("trace", "cannot trace process %d: it is another user's process (uid %u); "
                  "only its owner or root can trace it (lowering perf_event_paranoid will not "
                  "help)", (int)pid, (unsigned)uid);
    else
        cmd_error("trace", "cannot read %s: %s", p, strerror(e));
    return 1;
}

/* The images the command's processes exec'd without the interposer: not traced, said. */
static int exec_notes(struct ct_exec_watch *w)
{
    uint32_t pid;
    const char *comm;
    int e = ct_exec_watch_finish(w);
    for (size_t i = 0; !e && ct_exec_watch_missed(w, i, &pid, &comm); i++)
        fprintf(stderr, "prospect trace: process %u (%s) exec'd without LD_PRELOAD's "
                "interposer: not traced\n", pid, comm);
    if (!e && ct_exec_watch_lost(w))
        fprintf(stderr, "prospect trace: %llu exec or mapping records lost: an exec without "
                "the interposer may be unsaid\n", (unsigned long long)ct_exec_watch_lost(w));
    return e;
}

/* trace_static's end: its error, the calls lost, a command left running, its signal. The exit
 * status. */
static int static_status(const struct ct_attach_opts *ao, struct probe_target *pt, int e,
                         const char *err, const char *prog)
{
    if (e) {
        cmd_error("trace", "%s", err);
        if (pt->l.go_fd >= 0)
            probe_target_abort(pt);
        return e == -ENOENT || e == -EACCES ? cmd_exec_error("trace", prog, e) : 1;
    }
    if (ao->lost)
        fprintf(stderr, "prospect trace: %llu calls lost (the kernel's ring buffers "
                "overflowed)\n", (unsigned long long)ao->lost);
    if (ao->abandoned) {
        fprintf(stderr, "prospect trace: stopped on the second signal; the command still "
                "runs (pid %d)\n", (int)pt->l.pid);
        return 130;
    }
    cmd_note_signaled("trace", ao->wstatus);
    return launch_exit_code(ao->wstatus);
}

/* A statically linked command: nothing can be preloaded; uprobes on its own copy of the
 * functions, set while it is held before exec. */
static int trace_static(struct tracer *t, char **argv, bool follow, uint64_t mask)
{
    struct probe_target pt;
    enum probe_prepare_step step;
    char err[256] = "";
    int e, status;
    t->merge = false;               /* one source: the uprobes, in this thread */
    probe_target_init(&pt, 0, argv);
    if ((e = probe_target_resolve(&pt)))
        return cmd_exec_error("trace", argv[0], e);
    fprintf(stderr, "prospect trace: %s is statically linked: nothing can be preloaded into it; "
            "tracing with uprobes (~10 us per call)\n", argv[0]);
    if ((e = probe_target_prepare(&pt, NULL, &step))) {
        cmd_prepare_error("trace", argv[0], step, e);
        probe_target_release(&pt);
        return 1;
    }
    struct ct_attach_opts ao = { .pid = pt.l.pid, .follow = follow, .mask = mask,
                                 .stop = &probe_stop_signal, .on_batch = on_batch, .arg = t,
                                 .callers = t->callers, .elf = pt.exe, .launch = &pt.l,
                                 .stops = &probe_stop_count };
    uprobes_clock(t);
    e = ct_attach_uprobes(&ao, err, sizeof(err));
    if (!e && (e = flush_held(t)))
        snprintf(err, sizeof(err), "writing the calls failed: %s", strerror(-e));
    status = static_status(&ao, &pt, e, err, argv[0]);
    probe_target_release(&pt);
    return status;
}

static void list_builtins(void)
{
    printf("Built-in functions (libc), traced with their arguments:\n");
    for (unsigned i = 0; i < ct_func_count(); i++)
        printf("  %s\n", ct_func_proto(i));
}

/* What the command line asks. */
struct trace_opts {
    const char *out_path, *trace_path;
    uint64_t mask;
    struct ct_any_list anyl;
    bool follow, use_uprobes;
    long attach;
    char **argv;                    /* the command (none with -p) */
};

/* The options into t and o. false: go on; true: end with *status (usage error, --list, -h). */
static bool parse_args(int argc, char **argv, struct tracer *t, struct trace_opts *o,
                       int *status)
{
    char err[256];
    int c, e;

    opterr = 0;
    optind = 1;
    ct_protoconf_reset();
    if ((e = ct_protoconf_builtin(err, sizeof(err)))) {
        cmd_error("trace", "%s", err);
        *status = 1;
        return true;
    }
    while ((c = cmd_getopt(&cmd_trace_decl, argc, argv)) != -1) {
        switch (c) {
        case 'e':
            if ((e = ct_funcsel_parse_any(optarg, &o->mask, &o->anyl, err, sizeof(err)))) {
                *status = e == -ENOMEM ? 1 : cmd_usage_error("trace", "%s", err);
                return true;
            }
            break;
        case 'f': o->follow = true; break;
        case 'p': {
            char *end;
            errno = 0;
            o->attach = strtol(optarg, &end, 10);
            if (errno || *end || o->attach <= 0 || o->attach > 0x3fffffff) {
                *status = cmd_usage_error("trace", "-p needs a process id, not '%s'", optarg);
                return true;
            }
            break;
        }
        case 'o': o->out_path = optarg; break;
        case 'F':
            if ((e = ct_protoconf_file(optarg, err, sizeof(err)))) {
                *status = e == -EINVAL ? cmd_usage_error("trace", "%s", err)
                                       : (cmd_error("trace", "%s", err), 1);
                return true;
            }
            break;
        case OPT_FORMAT:
            if (!strcmp(optarg, "text"))
                t->fmt = FMT_TEXT;
            else if (!strcmp(optarg, "csv"))
                t->fmt = FMT_CSV;
            else if (!strcmp(optarg, "json"))
                t->fmt = FMT_JSON;
            else {
                *status = cmd_usage_error("trace", "--format is text, csv or json, not '%s'",
                                          optarg);
                return true;
            }
            break;
        case 'v': t->verbose = true; break;
        case 'n': {
            char *end;
            errno = 0;
            long n = strtol(optarg, &end, 10);
            if (errno || *end || end == optarg || n < 0 || n > 16) {
                *status = cmd_usage_error("trace", "-n needs a number of spaces 0-16, not '%s'",
                                          optarg);
                return true;
            }
            t->indent = (unsigned)n;
            break;
        }
        case 'c': t->summary = true; break;
        case 'w': o->trace_path = optarg; break;
        case 'L': list_builtins(); *status = 0; return true;
        case 'U': o->use_uprobes = true; break;
        case 'h': *status = cmd_help("trace"); return true;
        default: *status = cmd_bad_option("trace", argv, optind, optopt, c); return true;
        }
    }
    o->argv = argv + optind;
    return false;
}

/* The options' combinations, and -p's process: 0 or the exit status. */
static int check_args(const struct tracer *t, struct trace_opts *o)
{
    if (!o->mask && !o->anyl.n)
        o->mask = ct_default_mask();
    if (o->attach && o->argv[0])
        return cmd_usage_error("trace", "-p and a command exclude each other");
    if (!o->attach && !o->argv[0])
        return cmd_usage_error("trace", "no command to trace (or -p PID)");
    if (t->summary && t->fmt != FMT_TEXT)
        return cmd_usage_error("trace", "--summary and --format %s exclude each other",
                               t->fmt == FMT_CSV ? "csv" : "json");
    if (o->attach && attach_denied((pid_t)o->attach))
        return 1;
    return 0;
}

/* -o and -w, open before anything is traced. */
struct trace_files {
    struct outfile of, tf;
    bool of_open, tf_open;
};

static int open_files(struct tracer *t, const struct trace_opts *o, struct trace_files *f)
{
    int e;

    if (o->out_path) {
        if ((e = outfile_open(&f->of, o->out_path, 0644))) {
            cmd_error("trace", "cannot write %s: %s", o->out_path, outfile_strerror(e));
            return 1;
        }
        f->of_open = true;
        t->out = f->of.fp;
    }
    if (o->trace_path) {
        if ((e = outfile_open(&f->tf, o->trace_path, 0644)) ||
            (e = tracefile_write_header(&t->tw, f->tf.fp))) {
            cmd_error("trace", "cannot write %s: %s", o->trace_path, outfile_strerror(e));
            if (f->of_open)
                outfile_abort(&f->of);
            f->of_open = false;
            return 1;
        }
        f->tf_open = true;
        t->writing = true;
    }
    if (t->fmt == FMT_CSV && !t->summary)
        fprintf(t->out, "time_ns,pid,tid,caller,function,args,ret,duration_ns%s\n",
                t->indent ? ",depth" : "");
    return 0;
}

/* The program whose .dynsym -e's other functions are looked up in. 0 or the exit status. */
static int anyfunc_program(struct trace_opts *o, char *exe, size_t len)
{
    if (o->attach) {
        char p[64];
        ssize_t n;
        snprintf(p, sizeof(p), "/proc/%ld/exe", o->attach);
        if ((n = readlink(p, exe, len - 1)) < 0) {
            cmd_error("trace", "cannot read %s: %s", p, strerror(errno));
            return 1;
        }
        exe[n] = 0;
        if (!o->use_uprobes)
            fprintf(stderr, "prospect trace: -e %s has no built-in prototype: attaching "
                    "with --uprobes\n", o->anyl.v[0].item);
        o->use_uprobes = true;
        return 0;
    }
    int e = launch_resolve(o->argv[0], exe, len);
    return e ? cmd_exec_error("trace", o->argv[0], e) : 0;
}

/* Functions without a prototype: uprobes (the interposer has no wrapper for them). 0 or the
 * exit status. */
static int resolve_anyfuncs(struct tracer *t, struct trace_opts *o)
{
    char exe[4096], err[256];
    unsigned skipped = 0, nany;
    int e;

    if (!o->anyl.n)
        return 0;
    if ((e = anyfunc_program(o, exe, sizeof(exe))))
        return e;
    if ((e = ct_any_resolve(o->anyl.v, o->anyl.n, exe, o->mask, &skipped, err, sizeof(err)))) {
        if (e == -ENOMEM || e == -EIO) {
            cmd_error("trace", "%s", err);
            return 1;
        }
        return cmd_usage_error("trace", "%s", err);
    }
    ct_any_fns(&nany);
    unsigned nproto = 0;
    for (unsigned i = 0; i < nany; i++)
        nproto += ct_any_proto(CT_NFUNCS + i) != NULL;
    if (nany && !nproto)
        fprintf(stderr, "prospect trace: %s%s (%u, no prototype): uprobes, 4 integer args, "
                "~10-20 us a call\n", ct_any_name(CT_NFUNCS), nany > 1 ? ", ..." : "", nany);
    else if (nany)
        fprintf(stderr, "prospect trace: %s%s (%u, %u with a prototype): uprobes, ~10-20 us a "
                "call\n", ct_any_name(CT_NFUNCS), nany > 1 ? ", ..." : "", nany, nproto);
    if (skipped)
        fprintf(stderr, "prospect trace: %u IFUNC%s matched by -e left out (the "
                "implementation is chosen per CPU)\n", skipped, skipped > 1 ? "s" : "");
    if (!nany && !o->mask)
        return cmd_usage_error("trace", "-e matches no function that can be traced");
    t->merge = nany > 0 && !o->attach;
    return 0;
}

/* -p with uprobes: traced until the process exits or Ctrl-C. The exit status. */
static int trace_attached_uprobes(struct tracer *t, const struct trace_opts *o)
{
    struct ct_attach_opts ao = { .pid = (pid_t)o->attach, .follow = o->follow, .mask = o->mask,
                                 .stop = &probe_stop_signal, .on_batch = on_batch, .arg = t,
                                 .callers = t->callers, .attached = on_attached };
    char err[256];
    int status = 0, e;

    uprobes_clock(t);
    if (ct_attach_uprobes(&ao, err, sizeof(err))) {
        cmd_error("trace", "%s", err);
        status = 1;
    } else if ((e = flush_held(t))) {
        cmd_error("trace", "writing the calls failed: %s", strerror(-e));
        status = 1;
    } else {
        fprintf(stderr, "prospect trace: detached from %ld: %llu calls\n", o->attach,
                (unsigned long long)ao.calls);
    }
    if (ao.lost)
        fprintf(stderr, "prospect trace: %llu calls lost (the kernel's ring buffers "
                "overflowed, or a return without its entry)\n", (unsigned long long)ao.lost);
    return status;
}

/* -p: through the GOT (the interposer loaded into the process), else uprobes. */
static int trace_attached(struct tracer *t, struct trace_opts *o, double hz)
{
    int status = 0;

    if (o->follow && !o->use_uprobes) {
        /* A child forked while the interposer is in would keep its GOT entries pointed at it
         * after the detach (only the parent's are written back): with -f, uprobes, which
         * leave nothing behind in any process. */
        fprintf(stderr, "prospect trace: -p with -f attaches with uprobes (~10 us a call): "
                "children forked meanwhile are then left as they were\n");
        o->use_uprobes = true;
    }
    if (!o->use_uprobes) {
        int r = attach_inject(t, (pid_t)o->attach, o->follow, o->mask, hz, &status);
        if (r <= 0)
            return r < 0 ? 1 : status;
    }
    return trace_attached_uprobes(t, o);
}

/* A launched command: the interposer's socket and file, the held command, the uprobe thread
 * (-e functions without a prototype), the exec watch. */
struct launched {
    struct ct_collect *col;
    struct ct_preload pre;
    struct probe_target pt;
    struct up_thread up;
    pthread_t up_tid;
    struct ct_exec_watch *execs;
};

static void launched_free(struct launched *L)
{
    ct_exec_watch_free(L->execs);
    ct_preload_remove(&L->pre);
    ct_collect_free(L->col);
    probe_target_release(&L->pt);
}

/* The probes of the uprobe thread go live while the command is held before its exec. 0 or
 * -1 (the error printed). */
static int up_start(struct tracer *t, struct launched *L, bool follow)
{
    struct up_thread *up = &L->up;
    int e;

    *up = (struct up_thread){ .ao = { .pid = L->pt.l.pid, .follow = follow,
                                      .stop = &up->stop, .on_batch = on_batch_up, .arg = t,
                                      .callers = t->ucallers, .callers_lock = &t->mu,
                                      .attached = up_attached, .ring0_named = true } };
    pthread_mutex_init(&up->m, NULL);
    pthread_cond_init(&up->c, NULL);
    up_live = up;
    if ((e = pthread_create(&L->up_tid, NULL, up_main, up))) {
        up->e = -e;
        snprintf(up->err, sizeof(up->err), "cannot start a thread: %s", strerror(e));
        t->merge = false;
    } else {
        pthread_mutex_lock(&up->m);
        while (!up->state)
            pthread_cond_wait(&up->c, &up->m);
        pthread_mutex_unlock(&up->m);
        if (up->state == 2)
            pthread_join(L->up_tid, NULL);
    }
    if (up->e || up->state == 2) {
        cmd_error("trace", "%s", up->err[0] ? up->err : "the uprobes ended early");
        return -1;
    }
    return 0;
}

/* The interposer's socket and file, then the command held with them in its environment. 0;
 * 1 on an error said; 2: a static program (*status from trace_static). */
static int launch_setup(struct tracer *t, const struct trace_opts *o, struct launched *L,
                        int *status)
{
    enum probe_prepare_step step;
    int e;

    if (!(L->col = ct_collect_new(o->mask, o->follow))) {
        cmd_error("trace", "cannot create the collection socket: %s", strerror(errno));
        return 1;
    }
    if ((e = ct_preload_setup(&L->pre))) {
        cmd_error("trace", "no temporary directory the command could load the interposer "
                  "from ($TMPDIR, /tmp, /var/tmp, /dev/shm: %s)", strerror(-e));
        return 1;
    }
    ct_collect_set_fns(L->col, on_ring, on_batch, t);
    char *env[] = { L->pre.env, (char *)ct_collect_env(L->col), NULL };
    if (ct_static_note(o->argv[0]) > 0) {
        ct_preload_remove(&L->pre);
        ct_collect_free(L->col);
        L->col = NULL;
        *status = trace_static(t, o->argv, o->follow, o->mask);
        return 2;
    }
    t->tsc0 = prospect_tsc_start();
    t->mono0 = mono_ns();
    t->hold = t->merge || nest_held(t);
    if ((e = probe_target_prepare(&L->pt, env, &step))) {
        cmd_prepare_error("trace", o->argv[0], step, e);
        return 1;
    }
    ct_collect_forked(L->col);
    if (t->merge && up_start(t, L, o->follow)) {
        probe_target_abort(&L->pt);
        return 1;
    }
    return 0;
}

/* Releases the held command. 0, or the exec's exit status (said). */
static int launch_release(struct tracer *t, const struct trace_opts *o, struct launched *L)
{
    int e;

    if ((e = ct_exec_watch_new(&L->execs, L->pt.l.pid, o->follow)))
        fprintf(stderr, "prospect trace: cannot watch the command's execs (%s): one that drops "
                "LD_PRELOAD would go unsaid\n", strerror(-e));
    if ((e = probe_target_go(&L->pt))) {
        int status = cmd_exec_error("trace", o->argv[0], e);
        if (t->merge)
            up_finish(&L->up, L->up_tid);
        return status;
    }
    if (t->merge) {
        /* The command's maps once it has exec'd, for the callers of its uprobe'd calls. */
        pthread_mutex_lock(&t->mu);
        if (ct_callers_ring(t->ucallers, 0, (uint32_t)L->pt.l.pid, 0) == -ENOMEM)
            t->err = -ENOMEM;
        pthread_mutex_unlock(&t->mu);
    }
    return 0;
}

/* After the command: children (-f) may outlive it, so go on until every traced process closed
 * its end of the socket, or a signal asks to stop. Without -f, what is there now. */
static int drain_rest(struct ct_collect *col, bool follow)
{
    bool eof = false;
    int e;

    do
        e = ct_collect_poll(col, follow ? 20 : 0, -1, &eof);
    while (!e && follow && !eof && !probe_stop_signal);
    if (!e)
        e = ct_collect_poll(col, 0, -1, &eof);
    return e;
}

/* Stops the uprobe thread and emits what is pending. e is the error so far. */
static int up_end(struct tracer *t, struct launched *L, int e)
{
    int ue = up_finish(&L->up, L->up_tid), fe;
    if (!e && ue) {
        cmd_error("trace", "%s", L->up.err);
        e = ue == -ECANCELED ? -EIO : ue;
    }
    fe = merge_flush(t, true);
    if (!e)
        e = fe;
    if (L->up.ao.lost)
        fprintf(stderr, "prospect trace: %llu calls of the uprobe'd functions lost (the "
                "kernel's ring buffers overflowed)\n", (unsigned long long)L->up.ao.lost);
    return e;
}

/* The exit status after the wait and the drain (e: their error), with the losses said. */
static int launched_status(struct launched *L, int e, int wstatus)
{
    int status;
    uint64_t lost = ct_collect_lost(L->col);

    if (e == -ECANCELED) {
        fprintf(stderr, "prospect trace: stopped on the second signal; the command still "
                "runs (pid %d)\n", (int)L->pt.l.pid);
        status = 130;
    } else if (e) {
        cmd_error("trace", "collecting the calls failed: %s", strerror(-e));
        status = 1;
    } else {
        status = launch_exit_code(wstatus);
    }
    if (lost || ct_collect_nbad(L->col))
        fprintf(stderr, "prospect trace: %llu calls lost (%zu damaged rings)\n",
                (unsigned long long)lost, ct_collect_nbad(L->col));
    return status;
}

/* How cmd_trace ends after a run: with the summary, without it, or as an early failure. */
enum trace_end { END_SUMMARY, END_FILES, END_FAIL };

/* A launched command traced to its end: the exit status in *status. */
static enum trace_end trace_launched(struct tracer *t, const struct trace_opts *o, int *wstatus,
                                     int *status)
{
    struct launched L = { 0 };
    struct tick_state ts = { .t = t };
    struct probe_wait pw = { .tick = tick, .tick_arg = &ts };
    bool running;
    int e, fe;

    probe_target_init(&L.pt, 0, o->argv);
    if ((e = launch_setup(t, o, &L, status))) {
        launched_free(&L);
        return e == 2 ? END_SUMMARY : END_FAIL;
    }
    if ((*status = launch_release(t, o, &L))) {
        launched_free(&L);
        return END_FILES;
    }
    ts.c = L.col;
    ts.execs = L.execs;
    e = probe_target_wait(&L.pt, &pw, probe_now_s(), wstatus, &running);
    if (!e)
        e = drain_rest(L.col, o->follow);
    if (t->merge)
        e = up_end(t, &L, e);
    else if (t->hold && (fe = merge_flush(t, true)) && !e)
        e = fe;
    ct_preload_remove(&L.pre);
    if (L.execs && !e)
        e = exec_notes(L.execs);
    *status = launched_status(&L, e, *wstatus);
    launched_free(&L);
    return END_SUMMARY;
}

/* The tracer's callers and summary. 0 or 1 (said). */
static int tracer_init(struct tracer *t)
{
    pthread_mutex_init(&t->mu, NULL);
    t->callers = ct_callers_new(t->verbose);
    t->sum = ct_summary_new();
    t->nest = ct_nest_new();
    t->ucallers = ct_callers_new(t->verbose);
    if (!t->callers || !t->sum || !t->ucallers || !t->nest) {
        cmd_error("trace", "out of memory");
        return 1;
    }
    return 0;
}

static void tracer_free(struct tracer *t)
{
    ct_callers_free(t->callers);
    ct_callers_free(t->ucallers);
    vec_free(&t->pend);
    ct_summary_free(t->sum);
    ct_nest_free(t->nest);
    tracefile_writer_release(&t->tw);
    ct_protoconf_reset();
}

/* The summary (-c), the files committed, the command's signal said. The exit status. */
static int finish(struct tracer *t, const struct trace_opts *o, struct trace_files *f,
                  enum trace_end end, int status, int wstatus)
{
    int e;

    if (end == END_SUMMARY && t->summary)
        ct_summary_print(t->sum, t->out, 10);
    if (f->tf_open && (e = outfile_commit(&f->tf))) {
        cmd_error("trace", "writing %s failed: %s", o->trace_path, outfile_strerror(e));
        if (!status)
            status = 1;
    }
    if (f->of_open && (e = outfile_commit(&f->of))) {
        cmd_error("trace", "writing %s failed: %s", o->out_path, outfile_strerror(e));
        if (!status)
            status = 1;
    } else if (!f->of_open) {
        fflush(stderr);
    }
    tracer_free(t);
    cmd_note_signaled("trace", wstatus);
    cmd_exit_by_sigint(probe_stop_signal, status);
    return status;
}

/* An error before anything was traced: the files are not written. */
static int fail(struct tracer *t, struct trace_files *f, int status)
{
    tracer_free(t);
    if (f->tf_open)
        outfile_abort(&f->tf);
    if (f->of_open)
        outfile_abort(&f->of);
    return status;
}

/* The TSC's rate, the tracer and the stop signals, then the trace by -p or of a command. */
static int trace_run(struct tracer *t, struct trace_opts *o, struct trace_files *f)
{
    double hz = 0;
    int e, status = 0, wstatus = 0;
    enum trace_end end = END_SUMMARY;

    if ((e = prospect_tsc_measure_hz(10, &hz)) || hz <= 0) {
        cmd_error("trace", "cannot measure the TSC frequency: %s", strerror(e ? -e : EINVAL));
        return fail(t, f, 1);
    }
    t->ns_per_tick = 1e9 / hz;
    if ((status = resolve_anyfuncs(t, o)) || (status = tracer_init(t)))
        return fail(t, f, status);
    probe_stop_handlers_install();
    if (o->attach)
        status = trace_attached(t, o, hz);
    else if ((end = trace_launched(t, o, &wstatus, &status)) == END_FAIL)
        return fail(t, f, 1);
    return finish(t, o, f, end, status, wstatus);
}

int cmd_trace(int argc, char **argv)
{
    struct tracer t = { .out = stderr };
    struct trace_opts o = { .mask = 0 };
    struct trace_files f = { .of_open = false };
    int status = 0;

    for (unsigned i = 0; i < sizeof(t.file_idx) / sizeof(t.file_idx[0]); i++)
        t.file_idx[i] = -1;
    if (parse_args(argc, argv, &t, &o, &status) || (status = check_args(&t, &o)) ||
        (status = open_files(&t, &o, &f)))
        return status;
    return trace_run(&t, &o, &f);
}
