/* SPDX-License-Identifier: MIT */
/* Library-call traces: the in-memory form and the binary file (format in tracefile.h). */
#include "calltrace/tracefile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "calltrace/tracefile_pack.h"
#include "util/file.h"

static const char trace_magic[8] = {'P', 'R', 'S', 'P', 'C', 'T', 'R', 'C'};
#define TRACE_VERSION 2u
#define TRACE_HEADER 16u
#define KIND_FUNC 1u
#define KIND_CALL 2u
#define CALL_SIZE 80u
#define MAX_FUNCS 65536u
#define MAX_TRACE_BYTES (64ull << 30)

void call_trace_init(struct call_trace *t)
{
    memset(t, 0, sizeof(*t));
}

void call_trace_release(struct call_trace *t)
{
    for (uint32_t i = 0; i < t->nfuncs; i++)
        free(t->funcs[i]);
    free(t->funcs);
    free(t->recs);
    call_trace_init(t);
}

static int add_func(struct call_trace *t, const char *name, size_t len)
{
    if (t->nfuncs >= MAX_FUNCS)
        return -E2BIG;
    char **nf = realloc(t->funcs, (t->nfuncs + 1) * sizeof(*nf));
    if (!nf)
        return -ENOMEM;
    t->funcs = nf;
    char *s = strndup(name, len);
    if (!s)
        return -ENOMEM;
    t->funcs[t->nfuncs] = s;
    return (int)t->nfuncs++;
}

int call_trace_func(struct call_trace *t, const char *name)
{
    for (uint32_t i = 0; i < t->nfuncs; i++)
        if (strcmp(t->funcs[i], name) == 0)
            return (int)i;
    size_t len = strlen(name);
    if (len == 0 || len > 255)
        return -EINVAL;
    return add_func(t, name, len);
}

int call_trace_add(struct call_trace *t, const struct call_rec *r)
{
    if (t->nrecs == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 1024;
        struct call_rec *n = realloc(t->recs, cap * sizeof(*n));
        if (!n)
            return -ENOMEM;
        t->recs = n;
        t->cap = cap;
    }
    t->recs[t->nrecs++] = *r;
    return 0;
}

/* Little-endian stores and loads (the format's byte order whatever the host's). */
static void put16(unsigned char *p, uint16_t v) { p[0] = (unsigned char)v; p[1] = (unsigned char)(v >> 8); }
static void put32(unsigned char *p, uint32_t v) { put16(p, (uint16_t)v); put16(p + 2, (uint16_t)(v >> 16)); }
static uint16_t get16(const unsigned char *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t get32(const unsigned char *p) { return get16(p) | (uint32_t)get16(p + 2) << 16; }
static uint64_t get64(const unsigned char *p) { return get32(p) | (uint64_t)get32(p + 4) << 32; }

static int put_bytes(struct tracefile_writer *w, const void *b, size_t n)
{
    return fwrite_unlocked(b, 1, n, w->fp) == n ? 0 : -EIO;
}

int tracefile_write_header(struct tracefile_writer *w, FILE *fp)
{
    unsigned char h[TRACE_HEADER];
    memcpy(h, trace_magic, 8);
    put32(h + 8, TRACE_VERSION);
    put32(h + 12, 0);
    memset(w, 0, sizeof(*w));
    w->fp = fp;
    return put_bytes(w, h, sizeof(h));
}

void tracefile_writer_release(struct tracefile_writer *w)
{
    tf_state_release(&w->st);
}

int tracefile_write_func(struct tracefile_writer *w, uint32_t idx, const char *name)
{
    size_t len = strlen(name);
    if (idx != w->nfuncs_written || idx >= MAX_FUNCS || len == 0 || len > 255)
        return -EINVAL;
    unsigned char h[5];
    h[0] = TF_TAG_FUNC;
    put16(h + 1, (uint16_t)idx);
    put16(h + 3, (uint16_t)len);
    int err = tf_state_funcs(&w->st, idx + 1);
    if (!err)
        err = put_bytes(w, h, sizeof(h));
    if (!err)
        err = put_bytes(w, name, len);
    if (!err)
        w->nfuncs_written++;
    return err;
}

int tracefile_write_call(struct tracefile_writer *w, const struct call_rec *r)
{
    if (r->func >= w->nfuncs_written)
        return -EINVAL;
    unsigned char b[TF_PACK_MAX];
    return put_bytes(w, b, tf_pack_call(&w->st, r, b));
}

int tracefile_write(FILE *fp, const struct call_trace *t)
{
    struct tracefile_writer w;
    int err = tracefile_write_header(&w, fp);
    for (uint32_t i = 0; !err && i < t->nfuncs; i++)
        err = tracefile_write_func(&w, i, t->funcs[i]);
    for (size_t i = 0; !err && i < t->nrecs; i++)
        err = tracefile_write_call(&w, &t->recs[i]);
    tracefile_writer_release(&w);
    return err;
}

int tracefile_is_trace(const void *buf, size_t len)
{
    return len >= sizeof(trace_magic) && memcmp(buf, trace_magic, sizeof(trace_magic)) == 0;
}

__attribute__((format(printf, 3, 4)))
static int bad(struct tracefile_error *err, uint64_t off, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
        va_end(ap);
        err->offset = off;
    }
    return -EINVAL;
}

/* A function name record at off whose index and length are at p + off + at (v1: 2, v2: 1).
 * Bytes used, 0 with err set. */
static size_t read_name(const unsigned char *p, size_t len, size_t off, size_t at,
                        struct call_trace *t, struct tracefile_error *err, int *ret)
{
    if (len - off < at + 4) {
        *ret = bad(err, off, "truncated function name record");
        return 0;
    }
    uint16_t idx = get16(p + off + at), n = get16(p + off + at + 2);
    const unsigned char *name = p + off + at + 4;
    if (idx != t->nfuncs)
        *ret = bad(err, off, "function index %u out of order (expected %u)", idx, t->nfuncs);
    else if (n == 0 || n > 255)
        *ret = bad(err, off, "function name length %u (1..255)", n);
    else if (len - off - at - 4 < n)
        *ret = bad(err, off, "truncated function name");
    else if (memchr(name, 0, n))
        *ret = bad(err, off, "NUL byte in a function name");
    else if ((*ret = add_func(t, (const char *)name, n)) >= 0)
        *ret = 0;
    return *ret ? 0 : at + 4 + n;
}

/* A version 1 call record at off: 0 or -errno (err set). */
static int read_call_v1(const unsigned char *p, size_t len, size_t off, struct call_trace *t,
                        struct tracefile_error *err)
{
    if (len - off < CALL_SIZE)
        return bad(err, off, "truncated call record (%zu of %u bytes)", len - off, CALL_SIZE);
    const unsigned char *b = p + off;
    struct call_rec r = {
        .flags = get16(b + 2), .func = get32(b + 4), .pid = get32(b + 8),
        .tid = get32(b + 12), .time_ns = get64(b + 16), .dur_ns = get64(b + 24),
        .ret = get64(b + 64), .caller = get64(b + 72),
    };
    for (int i = 0; i < 4; i++)
        r.args[i] = get64(b + 32 + 8 * i);
    if (r.func >= t->nfuncs)
        return bad(err, off, "call of function %u, which has no name record", r.func);
    return call_trace_add(t, &r);
}

static int read_v1(const unsigned char *p, size_t len, struct call_trace *t,
                   struct tracefile_error *err)
{
    size_t off = TRACE_HEADER, n;
    int ret = 0;
    while (off < len && !ret) {
        if (len - off < 2)
            return bad(err, off, "truncated record");
        uint16_t kind = get16(p + off);
        if (kind == KIND_FUNC) {
            if ((n = read_name(p, len, off, 2, t, err, &ret)))
                off += n;
        } else if (kind == KIND_CALL) {
            ret = read_call_v1(p, len, off, t, err);
            off += CALL_SIZE;
        } else {
            ret = bad(err, off, "unknown record kind %u", kind);
        }
    }
    return ret;
}

static int read_v2(const unsigned char *p, size_t len, struct call_trace *t,
                   struct tracefile_error *err)
{
    struct tracefile_state st = {0};
    size_t off = TRACE_HEADER, n;
    int ret = 0;
    while (off < len && !ret) {
        unsigned tag = p[off];
        const char *why;
        struct call_rec r;
        if (tag == TF_TAG_FUNC) {
            if ((n = read_name(p, len, off, 1, t, err, &ret)))
                off += n;
        } else if (tag & TF_TAG_CALL) {
            if ((ret = tf_state_funcs(&st, t->nfuncs)))
                break;
            if (!(n = tf_unpack_call(&st, p + off, len - off, &r, &why)))
                ret = bad(err, off, "%s", why);
            else
                ret = call_trace_add(t, &r);
            off += n;
        } else {
            ret = bad(err, off, "unknown record kind %u", tag);
        }
    }
    tf_state_release(&st);
    return ret;
}

int tracefile_read_buf(const void *buf, size_t len, struct call_trace *t,
                       struct tracefile_error *err)
{
    const unsigned char *p = buf;
    int ret;
    call_trace_init(t);
    if (len < TRACE_HEADER || !tracefile_is_trace(buf, len))
        return bad(err, 0, "not a Prospect trace (no PRSPCTRC header)");
    uint32_t version = get32(p + 8);
    if (version == 1)
        ret = read_v1(p, len, t, err);
    else if (version == TRACE_VERSION)
        ret = read_v2(p, len, t, err);
    else
        return bad(err, 8, "trace version %u, this Prospect reads versions 1 and %u", version,
                   TRACE_VERSION);
    if (ret)
        call_trace_release(t);
    return ret;
}

int tracefile_read(const char *path, struct call_trace *t, struct tracefile_error *err)
{
    call_trace_init(t);
    int fd = file_open_regular(path);
    if (fd == -EINVAL)
        return bad(err, 0, "not a regular file");
    if (fd < 0)
        return fd;
    char *buf;
    size_t len;
    int r = file_read_fd(fd, &buf, &len, MAX_TRACE_BYTES);
    close(fd);
    if (r < 0)
        return r;
    r = tracefile_read_buf(buf, len, t, err);
    free(buf);
    return r;
}
