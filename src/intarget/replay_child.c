/* SPDX-License-Identifier: MIT */
/* The replay child: runs a replay program (replay_wire.h) against whatever malloc the dynamic
 * linker gave it (LD_PRELOAD chooses), timing each call, and writes the ticks to a pipe.
 *
 * It is its own small program, built without sanitizers and embedded in prospect: an ASan
 * prospect re-executing itself would measure ASan's allocator, and a preloaded allocator cannot
 * replace ASan's interposed malloc. It links libc and libprospect.a (calibration) only.
 *
 * usage: replay_child PROG_FD RESULT_FD   (the CPU is pinned by the parent before exec)
 *
 * Threads take turns: op i runs only after op i-1 finished, on the replay thread of its
 * recorded task, so every pass makes the same calls in the same order on the same threads.
 * The hand-over is a futex per thread, outside the timed interval. Memory of the program,
 * slots and results comes from mmap, never from the allocator under test. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "prospect/calibrate.h"
#include "prospect/cycles.h"
#include "intarget/replay_wire.h"

struct child {
    const struct rp_prog_hdr *hdr;
    const struct rp_op *ops;
    uint64_t nops;
    uint32_t nthreads;
    uint32_t *thread_ops;           /* op indexes grouped by thread */
    uint64_t *thread_start;         /* thread t's ops: thread_ops[thread_start[t] .. [t+1]) */
    void **slots;
    uint32_t *producer;             /* the op that filled each slot (for the dump) */
    uint64_t *ticks;                /* this pass's results, by op */
    struct rp_dump *dump;
    uint64_t floor;                 /* of the reads in use, subtracted from every call */
    int cpuid;                      /* RP_PROG_CPUID: cpuid barriers */
    _Atomic uint64_t turn;          /* the op that may run now */
    _Atomic uint32_t *wake;         /* futex word per thread */
    _Atomic uint32_t seq;
    pthread_barrier_t start, done;
    int record_dump;
};

static struct child C;

static void *map_anon(size_t bytes)
{
    void *p = mmap(NULL, bytes ? bytes : 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                   -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

static long futex(_Atomic uint32_t *w, int op, uint32_t v)
{
    return syscall(SYS_futex, (uint32_t *)w, op | FUTEX_PRIVATE_FLAG, v, NULL, NULL, 0);
}

static void wait_turn(uint32_t t, uint64_t i)
{
    while (atomic_load(&C.turn) != i) {
        uint32_t w = atomic_load(&C.wake[t]);
        if (atomic_load(&C.turn) == i)
            break;
        futex(&C.wake[t], FUTEX_WAIT, w);
    }
}

/* Op i is done: op i + 1 may run. Its thread is woken only when it is another one, so a
 * thread's consecutive calls run with no system call between them (a syscall between two timed
 * calls would disturb the caches the next call finds). */
static void pass_turn(uint64_t i)
{
    atomic_store(&C.turn, i + 1);
    if (i + 1 < C.nops && C.ops[i + 1].thread != C.ops[i].thread) {
        uint32_t next = C.ops[i + 1].thread;
        atomic_fetch_add(&C.wake[next], 1);
        futex(&C.wake[next], FUTEX_WAKE, 1);
    }
}

/* `call` between the two reads of the chosen barrier. With cpuid (Paoloni's, seed 004's) the
 * CPU at the start is read (prospect_tsc_cpu()) before the serializing start read. */
#define TIMED(call) do {                                                    \
        if (C.cpuid) {                                                      \
            a0 = prospect_tsc_cpu();                                        \
            t0 = prospect_tsc_start_cpuid();                                \
            call;                                                           \
            t1 = prospect_tsc_end_cpuid(&a1);                               \
        } else {                                                            \
            t0 = prospect_tsc_start_aux(&a0);                               \
            call;                                                           \
            t1 = prospect_tsc_end(&a1);                                     \
        }                                                                   \
    } while (0)

/* One call, timed. The result is stored before the end read's lfence retires, which the
 * compiler cannot drop (slots is memory it does not know). */
static uint64_t run_op(const struct rp_op *op)
{
    uint32_t a0, a1;
    uint64_t t0, t1;
    void *src = op->src == RP_NONE ? NULL : C.slots[op->src];
    void *p = NULL;

    switch (op->kind) {
    case RP_MALLOC:
        TIMED(p = malloc(op->a));
        break;
    case RP_CALLOC:
        TIMED(p = calloc(op->a, op->b));
        break;
    case RP_REALLOC:
        TIMED(p = realloc(src, op->a));
        break;
    default:
        TIMED(free(src));
        break;
    }
    /* A realloc that failed here leaves its block where it was (freed after the pass). */
    if (op->src != RP_NONE && !(op->kind == RP_REALLOC && !p && op->a))
        C.slots[op->src] = NULL;
    if (op->slot != RP_NONE)
        C.slots[op->slot] = p;
    uint64_t d = t1 - t0, net = d > C.floor ? d - C.floor : 0;
    if (net >= RP_CYCLES_MIGRATED)
        net = RP_CYCLES_MIGRATED - 1;
    return net | (prospect_tsc_migrated(a0, a1) ? RP_CYCLES_MIGRATED : 0);
}

static void run_thread_pass(uint32_t t)
{
    for (uint64_t k = C.thread_start[t]; k < C.thread_start[t + 1]; k++) {
        uint32_t i = C.thread_ops[k];
        const struct rp_op *op = &C.ops[i];
        wait_turn(t, i);
        uint32_t from = op->src == RP_NONE ? RP_NONE : C.producer[op->src];
        C.ticks[i] = run_op(op);
        if (op->slot != RP_NONE)
            C.producer[op->slot] = i;
        if (C.record_dump)
            C.dump[i] = (struct rp_dump){atomic_fetch_add(&C.seq, 1),
                                         (uint32_t)syscall(SYS_gettid), from,
                                         op->slot != RP_NONE && !C.slots[op->slot]};
        pass_turn(i);
    }
}

static void *thread_main(void *arg)
{
    uint32_t t = (uint32_t)(uintptr_t)arg;
    for (;;) {
        pthread_barrier_wait(&C.start);
        if (atomic_load(&C.turn) == UINT64_MAX)
            return NULL;
        run_thread_pass(t);
        pthread_barrier_wait(&C.done);
    }
}

static int write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* VmHWM of /proc/self/status in KiB (this image's peak RSS), 0 if unreadable. No stdio: it
 * would allocate with the allocator under test. */
static uint64_t vm_hwm_kb(void)
{
    char buf[4096];
    int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = 0;
    const char *p = strstr(buf, "\nVmHWM:");
    if (!p)
        return 0;
    return strtoull(p + 8, NULL, 10);
}

static int fail(int fd, struct rp_res_hdr *h, int err, const char *msg)
{
    h->status = -err;
    snprintf(h->msg, sizeof(h->msg), "%s", msg);
    write_all(fd, h, sizeof(*h));
    return 1;
}

static int parse_fd(const char *s)
{
    char *end;
    long v = strtol(s, &end, 10);
    return *s && !*end && v >= 0 && v < 65536 ? (int)v : -1;
}

/* Validates the mapped program; NULL or what is wrong. */
static const char *check_prog(const void *map, size_t size)
{
    const struct rp_prog_hdr *h = map;
    if (size < sizeof(*h) || memcmp(h->magic, RP_PROG_MAGIC, 8) || h->version != RP_VERSION)
        return "not a replay program";
    if (h->nthreads == 0 || h->nthreads > RP_MAX_THREADS || h->nops > RP_MAX_OPS ||
        h->repeat == 0 || (size - sizeof(*h)) / sizeof(struct rp_op) != h->nops ||
        (size - sizeof(*h)) % sizeof(struct rp_op))
        return "replay program header out of range";
    const struct rp_op *ops = (const void *)(h + 1);
    for (uint64_t i = 0; i < h->nops; i++) {
        const struct rp_op *o = &ops[i];
        if (o->kind >= RP_NKINDS || o->thread >= h->nthreads ||
            (o->slot != RP_NONE && o->slot >= h->nslots) ||
            (o->src != RP_NONE && o->src >= h->nslots))
            return "replay program op out of range";
    }
    return NULL;
}

int main(int argc, char **argv)
{
    struct rp_res_hdr h;
    memset(&h, 0, sizeof(h));
    memcpy(h.magic, RP_RES_MAGIC, 8);
    h.version = RP_VERSION;
    int pfd = argc == 3 ? parse_fd(argv[1]) : -1, rfd = argc == 3 ? parse_fd(argv[2]) : -1;
    if (pfd < 0 || rfd < 0) {
        fprintf(stderr, "usage: replay_child PROG_FD RESULT_FD (run by prospect replay)\n");
        return 2;
    }
    struct stat st;
    if (fstat(pfd, &st) || st.st_size < (off_t)sizeof(struct rp_prog_hdr))
        return fail(rfd, &h, EINVAL, "cannot read the replay program");
    void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, pfd, 0);
    if (map == MAP_FAILED)
        return fail(rfd, &h, errno, "cannot map the replay program");
    const char *why = check_prog(map, (size_t)st.st_size);
    if (why)
        return fail(rfd, &h, EINVAL, why);
    C.hdr = map;
    C.ops = (const void *)(C.hdr + 1);
    C.nops = C.hdr->nops;
    C.nthreads = C.hdr->nthreads;
    C.record_dump = !!(C.hdr->flags & RP_PROG_DUMP);

    /* Which object's malloc the dynamic linker bound: proves the preload took effect. */
    Dl_info di;
    void *m = dlsym(RTLD_DEFAULT, "malloc");
    snprintf(h.malloc_from, sizeof(h.malloc_from), "%s",
             m && dladdr(m, &di) && di.dli_fname ? di.dli_fname : "?");

    struct prospect_calib cal;
    C.cpuid = !!(C.hdr->flags & RP_PROG_CPUID);
    int err = prospect_calibrate(&cal, C.cpuid ? PROSPECT_BARRIER_CPUID : PROSPECT_BARRIER_LFENCE,
                                 NULL);
    if (err)
        return fail(rfd, &h, -err, prospect_calib_strerror(err));
    C.floor = C.cpuid ? cal.floor : cal.floor_aux;
    h.floor = C.floor;
    h.cpuid = (uint32_t)C.cpuid;
    h.hz = cal.hz;

    C.thread_start = map_anon((C.nthreads + 1) * sizeof(uint64_t));
    C.thread_ops = map_anon(C.nops * sizeof(uint32_t));
    C.slots = map_anon(C.hdr->nslots * sizeof(void *));
    C.producer = map_anon(C.hdr->nslots * sizeof(uint32_t));
    C.ticks = map_anon(C.nops * sizeof(uint64_t));
    C.dump = C.record_dump ? map_anon(C.nops * sizeof(struct rp_dump)) : NULL;
    C.wake = map_anon(C.nthreads * sizeof(*C.wake));
    if (!C.thread_start || !C.thread_ops || !C.slots || !C.producer || !C.ticks || !C.wake ||
        (C.record_dump && !C.dump))
        return fail(rfd, &h, ENOMEM, "no memory for the replay");
    for (uint64_t i = 0; i < C.nops; i++)
        C.thread_start[C.ops[i].thread + 1]++;
    for (uint32_t t = 0; t < C.nthreads; t++)
        C.thread_start[t + 1] += C.thread_start[t];
    uint64_t *fill = map_anon(C.nthreads * sizeof(uint64_t));
    if (!fill)
        return fail(rfd, &h, ENOMEM, "no memory for the replay");
    for (uint64_t i = 0; i < C.nops; i++) {
        uint32_t t = C.ops[i].thread;
        C.thread_ops[C.thread_start[t] + fill[t]++] = (uint32_t)i;
    }

    /* Thread 0 is this one (the recorded main thread is usually the first seen). */
    pthread_barrier_init(&C.start, NULL, C.nthreads);
    pthread_barrier_init(&C.done, NULL, C.nthreads);
    for (uint32_t t = 1; t < C.nthreads; t++) {
        pthread_t th;
        pthread_attr_t at;
        pthread_attr_init(&at);
        pthread_attr_setstacksize(&at, 256 * 1024);
        err = pthread_create(&th, &at, thread_main, (void *)(uintptr_t)t);
        pthread_attr_destroy(&at);
        if (err)
            return fail(rfd, &h, err, "cannot create the replay threads");
        pthread_detach(th);
    }
    h.base_rss_kb = vm_hwm_kb();
    h.nthreads = C.nthreads;
    h.repeat = C.hdr->repeat;
    h.nops = C.nops;
    if (write_all(rfd, &h, sizeof(h)))
        return 1;

    uint32_t passes = C.hdr->warmup + C.hdr->repeat;
    for (uint32_t pass = 0; pass < passes; pass++) {
        memset(C.slots, 0, C.hdr->nslots * sizeof(void *));
        atomic_store(&C.turn, 0);
        atomic_store(&C.seq, 0);
        pthread_barrier_wait(&C.start);
        run_thread_pass(0);
        pthread_barrier_wait(&C.done);
        /* What the trace never freed is freed now, untimed, so passes start alike. */
        for (uint32_t s = 0; s < C.hdr->nslots; s++)
            free(C.slots[s]);
        if (pass >= C.hdr->warmup && write_all(rfd, C.ticks, C.nops * sizeof(uint64_t)))
            return 1;
    }
    atomic_store(&C.turn, UINT64_MAX);
    pthread_barrier_wait(&C.start);
    struct rp_res_tail tail = {.peak_rss_kb = vm_hwm_kb()};
    memcpy(tail.magic, RP_RES_MAGIC, 8);
    if (write_all(rfd, &tail, sizeof(tail)))
        return 1;
    if (C.record_dump && write_all(rfd, C.dump, C.nops * sizeof(struct rp_dump)))
        return 1;
    return 0;
}
