/* SPDX-License-Identifier: MIT */
/* Registrations and ring draining for the call-trace interposer (see collect.h). */
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "calltrace/collect.h"
#include "calltrace/protoconf.h"
#include "intarget/calltrace_abi.h"

#define MAX_RING_BYTES (64ull << 20)

struct ring {
    struct ct_ring_hdr *hdr;
    const struct ct_slot *slots;
    size_t size;
    uint32_t nslots, pid, tid;
    uint64_t tail;          /* our own copy: the program cannot move it */
    bool dead;              /* unmapped: drained and closed, or corrupt */
};

struct cursor;

struct ct_collect {
    int fd[2];              /* [0] Prospect's end, [1] the command's */
    char env[160];
    uint8_t extra[CT_NFUNCS];   /* -F's strings beyond the compiled prototypes (protoconf.h) */
    struct ring *rings;
    size_t nrings, cap;
    uint64_t lost;
    size_t nbad;
    struct cursor *cur;
    struct cursor **heap;
    size_t cur_cap;
    bool had_calls;
    ct_ring_fn on_ring;
    ct_batch_fn on_batch;
    void *arg;
    bool eof;
    bool detached;
};

/* The strings -F adds to the built-ins, as the interposer was told (ct_builtin_strings_field). */
static void take_extra(struct ct_collect *c)
{
    for (unsigned f = 0; f < CT_NFUNCS; f++)
        c->extra[f] = (uint8_t)ct_builtin_extra_strings(f);
}

struct ct_collect *ct_collect_new(uint64_t mask, bool follow)
{
    struct ct_collect *c = calloc(1, sizeof(*c));
    struct stat st;
    if (!c)
        return NULL;
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, c->fd)) {
        free(c);
        return NULL;
    }
    /* The command's end stays open across its exec (and its children's with -f). */
    if (fcntl(c->fd[1], F_SETFD, 0) || fstat(c->fd[1], &st) ||
        fcntl(c->fd[0], F_SETFL, O_NONBLOCK)) {
        int e = errno;
        close(c->fd[0]);
        close(c->fd[1]);
        free(c);
        errno = e;
        return NULL;
    }
    char strings[CT_NFUNCS + 1];
    ct_builtin_strings_field(strings);
    take_extra(c);
    snprintf(c->env, sizeof(c->env), "%s=1,%d,%llu,%d,%d,%llx,%s", CT_ENV, c->fd[1],
             (unsigned long long)st.st_ino, (int)getpid(), follow ? 1 : 0,
             (unsigned long long)mask, strings);
    return c;
}

struct ct_collect *ct_collect_from_fd(int fd)
{
    struct ct_collect *c = calloc(1, sizeof(*c));
    if (!c)
        return NULL;
    c->fd[0] = fd;
    c->fd[1] = -1;
    take_extra(c);
    return c;
}

int ct_collect_detach(struct ct_collect *c)
{
    struct ct_wake w = { CT_DETACHED_MAGIC };
    return send(c->fd[0], &w, sizeof(w), MSG_NOSIGNAL) == sizeof(w) ? 0 : -errno;
}

bool ct_collect_detached(const struct ct_collect *c)
{
    return c->detached;
}

void ct_collect_free(struct ct_collect *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->nrings; i++)
        if (!c->rings[i].dead)
            munmap(c->rings[i].hdr, c->rings[i].size);
    if (c->fd[0] >= 0)
        close(c->fd[0]);
    if (c->fd[1] >= 0)
        close(c->fd[1]);
    free(c->rings);
    free(c->cur);
    free(c->heap);
    free(c);
}

const char *ct_collect_env(const struct ct_collect *c)
{
    return c->env;
}

void ct_collect_forked(struct ct_collect *c)
{
    if (c->fd[1] >= 0)
        close(c->fd[1]);
    c->fd[1] = -1;
}

void ct_collect_set_fns(struct ct_collect *c, ct_ring_fn on_ring, ct_batch_fn on_batch,
                        void *arg)
{
    c->on_ring = on_ring;
    c->on_batch = on_batch;
    c->arg = arg;
}

uint64_t ct_collect_lost(const struct ct_collect *c)
{
    uint64_t n = c->lost;
    for (size_t i = 0; i < c->nrings; i++)
        if (!c->rings[i].dead)
            n += __atomic_load_n(&c->rings[i].hdr->lost, __ATOMIC_ACQUIRE);
    return n;
}

size_t ct_collect_nrings(const struct ct_collect *c)
{
    return c->nrings;
}

bool ct_collect_had_calls(const struct ct_collect *c)
{
    return c->had_calls;
}

size_t ct_collect_nbad(const struct ct_collect *c)
{
    return c->nbad;
}

static void ring_drop(struct ct_collect *c, struct ring *r, bool bad)
{
    c->lost += __atomic_load_n(&r->hdr->lost, __ATOMIC_ACQUIRE);
    if (bad) {
        uint64_t head = __atomic_load_n(&r->hdr->head, __ATOMIC_ACQUIRE);
        c->nbad++;
        if (head > r->tail && head - r->tail <= r->nslots)
            c->lost += head - r->tail;
    }
    munmap(r->hdr, r->size);
    r->hdr = NULL;
    r->dead = true;
}

/* Maps one registered ring after checking its size and header. */
static int add_ring(struct ct_collect *c, int fd, const struct ct_hello *h)
{
    struct stat st;
    struct ring r = { 0 };
    if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size < (off_t)CT_HDR_SIZE ||
        (uint64_t)st.st_size > MAX_RING_BYTES)
        return -EINVAL;
    r.nslots = h->nslots;
    if (!r.nslots || (r.nslots & (r.nslots - 1)) ||
        (uint64_t)st.st_size != CT_HDR_SIZE + (uint64_t)r.nslots * CT_SLOT_SIZE)
        return -EINVAL;
    r.size = (size_t)st.st_size;
    void *p = mmap(NULL, r.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED)
        return -errno;
    r.hdr = p;
    r.slots = (const struct ct_slot *)(const void *)((char *)p + CT_HDR_SIZE);
    r.pid = h->pid;
    r.tid = h->tid;
    r.tail = __atomic_load_n(&r.hdr->tail, __ATOMIC_ACQUIRE);
    if (r.hdr->magic != CT_MAGIC || r.hdr->nslots != r.nslots || r.tail != 0) {
        munmap(p, r.size);
        return -EINVAL;
    }
    if (c->nrings == c->cap) {
        size_t ncap = c->cap ? c->cap * 2 : 16;
        struct ring *v = realloc(c->rings, ncap * sizeof(*v));
        if (!v) {
            munmap(p, r.size);
            return -ENOMEM;
        }
        c->rings = v;
        c->cap = ncap;
    }
    c->rings[c->nrings++] = r;
    if (c->on_ring)
        c->on_ring(c->arg, (uint32_t)(c->nrings - 1), r.pid, r.tid, h->image);
    /* The thread waits for this before it goes on (see calltrace_preload.c's new_ring). */
    __atomic_store_n(&r.hdr->acked, 1, __ATOMIC_RELEASE);
    syscall(SYS_futex, &r.hdr->acked, FUTEX_WAKE, 1, NULL, NULL, 0);
    return 0;
}

/* Takes every queued registration. */
static int take_registrations(struct ct_collect *c)
{
    for (;;) {
        struct ct_hello h;
        char cbuf[CMSG_SPACE(sizeof(int) * 4)] __attribute__((aligned(8)));
        struct iovec iov = { &h, sizeof(h) };
        struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
                              .msg_controllen = sizeof(cbuf) };
        ssize_t n = recvmsg(c->fd[0], &msg, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
        int fd = -1;
        if (n < 0)
            return errno == EAGAIN || errno == EINTR ? 0 : -errno;
        if (n == 0) {
            c->eof = true;
            return 0;
        }
        for (struct cmsghdr *m = CMSG_FIRSTHDR(&msg); m; m = CMSG_NXTHDR(&msg, m))
            if (m->cmsg_level == SOL_SOCKET && m->cmsg_type == SCM_RIGHTS) {
                size_t k = (m->cmsg_len - CMSG_LEN(0)) / sizeof(int);
                int *fds = (int *)(void *)CMSG_DATA(m);
                for (size_t i = 0; i < k; i++) {
                    if (fd < 0)
                        fd = fds[i];
                    else
                        close(fds[i]);
                }
            }
        if (fd < 0) {
            uint32_t magic;
            /* A wake-up (ct_wake: the drain follows), or the answer to a detach request. */
            memcpy(&magic, &h, sizeof(magic));
            if (n >= (ssize_t)sizeof(magic) && magic == CT_DETACHED_MAGIC)
                c->detached = true;
            continue;
        }
        int e = 0;
        if (n != (ssize_t)sizeof(h) || h.magic != CT_MAGIC || (msg.msg_flags & MSG_CTRUNC))
            e = -EINVAL;
        else
            e = add_ring(c, fd, &h);
        close(fd);
        if (e == -ENOMEM)
            return e;
        if (e)
            c->nbad++;
    }
}

/* The arguments whose strings the interposer keeps: its compiled prototype's strings. */
static uint8_t ct_builtin_string_args(unsigned f)
{
#define S_(t, i) ((t) == CT_T_STR || (t) == CT_T_STRN ? 1u << (i) : 0u)
#define B_(n, r, na, a0, a1, a2) (uint8_t)(S_(a0, 0) | S_(a1, 1) | S_(a2, 2)),
    static const uint8_t bits[CT_NFUNCS] = { CT_PROTOS(B_) };
#undef B_
#undef S_
    return bits[f];
}

/* The lowest n set bits of bits: the arguments the interposer kept strings of, in order. */
static uint8_t first_bits(unsigned bits, unsigned n)
{
    uint8_t out = 0;
    for (unsigned i = 0; i < 8 && n; i++)
        if (bits & (1u << i)) {
            out |= (uint8_t)(1u << i);
            n--;
        }
    return out;
}

/* A ring's next call, read at its cursor: 0 when one was read, 1 when the published range is
 * used up, -1 when the ring broke the protocol. */
static int read_call(struct ct_collect *c, uint32_t idx, uint64_t *t, uint64_t head,
                     struct ct_call *k)
{
    struct ring *r = &c->rings[idx];
    for (;;) {
        if (*t >= head)
            return 1;
        const struct ct_slot *s = &r->slots[*t & (r->nslots - 1)];
        unsigned nstr = CT_SF_NSTR(s->flags);
        bool rstr = s->flags & CT_SF_RETSTR;
        if (nstr - rstr > 2 || (rstr && !nstr) || head - *t < 1 + nstr)
            return -1;              /* string slots are published with their call */
        k->pid = r->pid;
        k->tid = r->tid;
        k->ring = idx;
        k->func = s->func;
        k->t0 = s->t0;
        k->t1 = s->t1;
        memcpy(k->args, s->args, sizeof(s->args));
        k->args[3] = 0;
        k->ret = s->ret;
        k->caller = s->caller;
        ++*t;
        k->nstr = nstr - rstr;
        for (unsigned i = 0; i < k->nstr; i++, ++*t)
            memcpy(k->str[i], &r->slots[*t & (r->nslots - 1)], sizeof(k->str[i]));
        if ((k->has_rstr = rstr))
            memcpy(k->rstr, &r->slots[(*t)++ & (r->nslots - 1)], sizeof(k->rstr));
        if (k->func < CT_NFUNCS) {
            k->strarg = first_bits(ct_builtin_string_args(k->func) | (c->extra[k->func] & 7u),
                                   k->nstr);
            return 0;
        }
        c->lost++;
    }
}

/* Gives a ring's drained room back, waking its thread if it waits. */
static void release(struct ct_collect *c, struct ring *r, uint64_t t, uint64_t head,
                    uint32_t closed)
{
    r->tail = t;
    __atomic_store_n(&r->hdr->tail, t, __ATOMIC_RELEASE);
    if (__atomic_exchange_n(&r->hdr->waiting, 0, __ATOMIC_ACQ_REL))
        syscall(SYS_futex, &r->hdr->tail, FUTEX_WAKE, 1 << 30, NULL, NULL, 0);
    if (closed && t == head)
        ring_drop(c, r, false);
}

/* One cursor per ring with calls, in a binary heap keyed by the entry time of its next call:
 * the rings' calls come out merged in time order (each ring is in its thread's order). */
struct cursor {
    uint32_t ring;
    uint32_t closed;
    uint64_t t, head;
    struct ct_call k;
};

static bool before(const struct cursor *a, const struct cursor *b)
{
    return a->k.t0 < b->k.t0 || (a->k.t0 == b->k.t0 && a->ring < b->ring);
}

static void sift_down(struct cursor **h, size_t n, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        if (l < n && before(h[l], h[m]))
            m = l;
        if (l + 1 < n && before(h[l + 1], h[m]))
            m = l + 1;
        if (m == i)
            return;
        struct cursor *x = h[i];
        h[i] = h[m];
        h[m] = x;
        i = m;
    }
}

static int drain_all(struct ct_collect *c)
{
    size_t n = 0, live = 0;
    int e = 0;
    for (size_t i = 0; i < c->nrings; i++)
        live += !c->rings[i].dead;
    if (!live)
        return 0;
    if (live > c->cur_cap) {
        struct cursor *v = realloc(c->cur, live * sizeof(*v));
        struct cursor **h = realloc(c->heap, live * sizeof(*h));
        if (v)
            c->cur = v;
        if (h)
            c->heap = h;
        if (!v || !h)
            return -ENOMEM;
        c->cur_cap = live;
    }
    for (size_t i = 0; i < c->nrings; i++) {
        struct ring *r = &c->rings[i];
        if (r->dead)
            continue;
        struct cursor *u = &c->cur[n];
        u->ring = (uint32_t)i;
        u->closed = __atomic_load_n(&r->hdr->closed, __ATOMIC_ACQUIRE);
        u->head = __atomic_load_n(&r->hdr->head, __ATOMIC_ACQUIRE);
        u->t = r->tail;
        if (u->head < u->t || u->head - u->t > r->nslots) {
            ring_drop(c, r, true);
            continue;
        }
        int k = read_call(c, u->ring, &u->t, u->head, &u->k);
        if (k < 0) {
            ring_drop(c, r, true);
            continue;
        }
        if (k > 0) {
            release(c, r, u->t, u->head, u->closed);
            continue;
        }
        c->heap[n++] = u;
    }
    c->had_calls = n > 0;
    for (size_t i = n / 2; i-- > 0;)
        sift_down(c->heap, n, i);
    while (n) {
        struct cursor *u = c->heap[0];
        if (!e && c->on_batch)
            e = c->on_batch(c->arg, &u->k, 1);
        int k = read_call(c, u->ring, &u->t, u->head, &u->k);
        if (k) {
            struct ring *r = &c->rings[u->ring];
            if (k < 0)
                ring_drop(c, r, true);
            else
                release(c, r, u->t, u->head, u->closed);
            c->heap[0] = c->heap[--n];
        }
        sift_down(c->heap, n, 0);
    }
    return e;
}

int ct_collect_poll(struct ct_collect *c, int timeout_ms, int wake_fd, bool *eof)
{
    struct pollfd p[2] = { { c->fd[0], POLLIN, 0 }, { wake_fd, POLLIN, 0 } };
    int e;
    if (!c->eof && timeout_ms > 0 &&
        poll(p, wake_fd >= 0 ? 2 : 1, timeout_ms) < 0 && errno != EINTR)
        return -errno;
    if (!c->eof && (e = take_registrations(c)))
        return e;
    if ((e = drain_all(c)))
        return e;
    if (eof)
        *eof = c->eof;
    return 0;
}
