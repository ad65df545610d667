/* SPDX-License-Identifier: MIT */
/* Version 2 call records: LEB128 varints, zigzag deltas (format in tracefile.h). */
#include "calltrace/tracefile_pack.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MASK_THREAD 0x40u

int tf_state_funcs(struct tracefile_state *s, uint32_t n)
{
    if (n <= s->nfuncs)
        return 0;
    uint64_t (*l)[6] = realloc(s->last, (size_t)n * sizeof(*l));
    if (!l)
        return -ENOMEM;
    memset(l + s->nfuncs, 0, (size_t)(n - s->nfuncs) * sizeof(*l));
    s->last = l;
    s->nfuncs = n;
    return 0;
}

void tf_state_release(struct tracefile_state *s)
{
    free(s->last);
    memset(s, 0, sizeof(*s));
}

static size_t put_varint(unsigned char *b, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        b[n++] = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    b[n++] = (unsigned char)v;
    return n;
}

static uint64_t zigzag(uint64_t delta)
{
    return (delta << 1) ^ (uint64_t)-(int64_t)(delta >> 63);
}

static uint64_t unzigzag(uint64_t z)
{
    return (z >> 1) ^ (uint64_t)-(int64_t)(z & 1);
}

static void fields_of(const struct call_rec *r, uint64_t f[6])
{
    memcpy(f, r->args, 4 * sizeof(*f));
    f[4] = r->ret;
    f[5] = r->caller;
}

size_t tf_pack_call(struct tracefile_state *s, const struct call_rec *r, unsigned char *b)
{
    uint64_t f[6], *last = s->last[r->func];
    unsigned mask = 0;
    size_t n = 1;

    fields_of(r, f);
    for (int i = 0; i < 6; i++)
        if (f[i] != last[i])
            mask |= 1u << i;
    if (r->pid != s->pid || r->tid != s->tid || r->flags != s->flags)
        mask |= MASK_THREAD;
    b[0] = (unsigned char)(TF_TAG_CALL | mask);
    n += put_varint(b + n, r->func);
    n += put_varint(b + n, zigzag(r->time_ns - s->time));
    n += put_varint(b + n, r->dur_ns);
    if (mask & MASK_THREAD) {
        n += put_varint(b + n, r->pid);
        n += put_varint(b + n, r->tid);
        n += put_varint(b + n, r->flags);
    }
    for (int i = 0; i < 6; i++)
        if (mask & (1u << i))
            n += put_varint(b + n, zigzag(f[i] - last[i]));
    memcpy(last, f, sizeof(f));
    s->time = r->time_ns;
    s->pid = r->pid;
    s->tid = r->tid;
    s->flags = r->flags;
    return n;
}

/* One varint at p[*off], bounded by len: 0 when truncated or over 10 bytes. */
static int get_varint(const unsigned char *p, size_t len, size_t *off, uint64_t *v)
{
    uint64_t x = 0;
    for (unsigned shift = 0; shift < 70 && *off < len; shift += 7) {
        unsigned char c = p[(*off)++];
        x |= (uint64_t)(c & 0x7f) << shift;
        if (!(c & 0x80)) {
            *v = x;
            return 1;
        }
    }
    return 0;
}

static int get_u32(const unsigned char *p, size_t len, size_t *off, uint32_t *v)
{
    uint64_t x;
    if (!get_varint(p, len, off, &x) || x > UINT32_MAX)
        return 0;
    *v = (uint32_t)x;
    return 1;
}

size_t tf_unpack_call(struct tracefile_state *s, const unsigned char *p, size_t len,
                      struct call_rec *r, const char **why)
{
    unsigned mask = p[0] & 0x7fu;
    uint64_t dt, f[6], z;
    size_t off = 1;

    memset(r, 0, sizeof(*r));
    *why = "truncated call record";
    if (!get_u32(p, len, &off, &r->func) || !get_varint(p, len, &off, &dt) ||
        !get_varint(p, len, &off, &r->dur_ns))
        return 0;
    if (r->func >= s->nfuncs) {
        *why = "call of a function which has no name record";
        return 0;
    }
    r->pid = s->pid, r->tid = s->tid, r->flags = s->flags;
    if ((mask & MASK_THREAD) && (!get_u32(p, len, &off, &r->pid) ||
                                 !get_u32(p, len, &off, &r->tid) ||
                                 !get_u32(p, len, &off, &r->flags)))
        return 0;
    memcpy(f, s->last[r->func], sizeof(f));
    for (int i = 0; i < 6; i++) {
        if (!(mask & (1u << i)))
            continue;
        if (!get_varint(p, len, &off, &z))
            return 0;
        f[i] += unzigzag(z);
    }
    memcpy(s->last[r->func], f, sizeof(f));
    memcpy(r->args, f, 4 * sizeof(*f));
    r->ret = f[4];
    r->caller = f[5];
    r->time_ns = s->time + unzigzag(dt);
    s->time = r->time_ns;
    s->pid = r->pid, s->tid = r->tid, s->flags = r->flags;
    return off;
}
