/* SPDX-License-Identifier: MIT */
/* ltrace -o logs to a call_trace (what is accepted: ltrace_log.h). One pass over the lines;
 * calls split by `<unfinished ...>` wait in a small table until their `<... resumed>` line. */
#include "calltrace/ltrace_log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/file.h"
#include "util/hashmap.h"

#define MAX_LOG_BYTES (16ull << 30)
#define MAX_LINE 65536u
#define MAX_PENDING 4096u
#define MAX_ARGS 4
#define MAX_FUNCS 4096u

enum ts_kind { TS_NONE, TS_TOD, TS_EPOCH, TS_REL };

struct pending {
    uint32_t tid;
    uint32_t func;
    size_t rec;             /* index in t->recs */
    unsigned nargs;         /* arguments seen so far */
};

struct reader {
    struct call_trace *t;
    struct ltrace_error *err;
    unsigned long line;
    enum ts_kind ts_kind;
    bool have_ts;
    uint64_t ts_first, ts_prev_raw, ts_day;  /* TS_TOD: days added after midnight wraps */
    uint64_t rel_sum;
    uint64_t last_time;
    bool have_time;
    struct pending *pend;
    size_t npend;
    struct hashmap names;   /* FNV-1a of a name -> its index + 1 (call_trace_func scans) */
};

/* A cursor over one line: [p, e). */
struct cur {
    const char *p, *e;
};

__attribute__((format(printf, 2, 3)))
static int bad(struct reader *r, const char *fmt, ...)
{
    if (r->err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(r->err->msg, sizeof(r->err->msg), fmt, ap);
        va_end(ap);
        r->err->line = r->line;
    }
    return -EINVAL;
}

static void skip_sp(struct cur *c)
{
    while (c->p < c->e && (*c->p == ' ' || *c->p == '\t'))
        c->p++;
}

static bool is_digit(char ch) { return ch >= '0' && ch <= '9'; }

static bool starts(const struct cur *c, const char *s)
{
    size_t n = strlen(s);
    return (size_t)(c->e - c->p) >= n && memcmp(c->p, s, n) == 0;
}

/* Decimal digits into *v; false on overflow or none. */
static bool read_dec(struct cur *c, uint64_t *v, unsigned *ndig)
{
    uint64_t x = 0;
    unsigned n = 0;
    while (c->p < c->e && is_digit(*c->p)) {
        unsigned d = (unsigned)(*c->p - '0');
        if (x > (UINT64_MAX - d) / 10)
            return false;
        x = x * 10 + d;
        c->p++;
        n++;
    }
    *v = x;
    if (ndig)
        *ndig = n;
    return n > 0;
}

/* ".ffffff" after seconds: nanoseconds (digits past the ninth ignored). */
static uint64_t read_frac(struct cur *c)
{
    uint64_t ns = 0, scale = 100000000;
    if (c->p >= c->e || *c->p != '.')
        return 0;
    c->p++;
    while (c->p < c->e && is_digit(*c->p)) {
        ns += (uint64_t)(*c->p - '0') * scale;
        scale /= 10;
        c->p++;
    }
    return ns;
}

/* A timestamp at c: 12:34:56[.123456] (-t, -tt), 1700000000.123456 (-ttt) or 0.000123 (-r).
 * Returns 1 with *ns, 0 when there is none, -EINVAL when malformed. */
static int read_timestamp(struct reader *r, struct cur *c, uint64_t *ns, enum ts_kind *kind)
{
    struct cur save = *c;
    uint64_t a, b, s;
    if (c->p >= c->e || !is_digit(*c->p))
        return 0;
    if (!read_dec(c, &a, NULL) || a > 4000000000ull)
        return bad(r, "bad timestamp");
    if (c->p < c->e && *c->p == ':') {
        c->p++;
        if (!read_dec(c, &b, NULL) || c->p >= c->e || *c->p != ':')
            return bad(r, "bad time of day");
        c->p++;
        if (!read_dec(c, &s, NULL) || a > 23 || b > 59 || s > 60)
            return bad(r, "bad time of day");
        *ns = ((a * 60 + b) * 60 + s) * 1000000000ull + read_frac(c);
        *kind = TS_TOD;
    } else if (c->p < c->e && *c->p == '.') {
        *ns = a * 1000000000ull + read_frac(c);
        /* -r's relative stamps are small; -ttt's are seconds since 1970. */
        *kind = a < 1000000 ? TS_REL : TS_EPOCH;
    } else {
        *c = save;
        return 0;
    }
    if (c->p < c->e && *c->p != ' ' && *c->p != '\t')
        return bad(r, "bad timestamp");
    return 1;
}

/* The trace time of this line (see ltrace_log.h), strictly after the previous line's. */
static uint64_t line_time(struct reader *r, bool has_ts, uint64_t ts, enum ts_kind kind)
{
    uint64_t t;
    if (has_ts) {
        if (kind == TS_REL) {
            r->rel_sum += ts;
            ts = r->rel_sum;
        } else if (kind == TS_TOD) {
            /* A time of day that goes back by more than 12 h passed midnight. */
            if (r->have_ts && ts + 43200000000000ull < r->ts_prev_raw)
                r->ts_day += 86400000000000ull;
            r->ts_prev_raw = ts;
            ts += r->ts_day;
        }
        if (!r->have_ts) {
            r->have_ts = true;
            r->ts_first = ts;
        }
        t = ts >= r->ts_first ? ts - r->ts_first : 0;
    } else {
        t = (uint64_t)r->line * 1000;
    }
    if (r->have_time && t <= r->last_time)
        t = r->last_time + 1;
    r->have_time = true;
    r->last_time = t;
    return t;
}

/* Skips a quoted string, with backslash escapes; c at the opening quote. */
static int skip_string(struct reader *r, struct cur *c)
{
    char q = *c->p++;
    while (c->p < c->e && *c->p != q) {
        if (*c->p == '\\' && c->p + 1 < c->e)
            c->p++;
        c->p++;
    }
    if (c->p >= c->e)
        return bad(r, "unterminated string argument");
    c->p++;
    if (starts(c, "..."))       /* ltrace's mark of a cut string */
        c->p += 3;
    return 0;
}

/* Skips a {struct} or [array], nested, with strings inside; c at the opening bracket. */
static int skip_nested(struct reader *r, struct cur *c)
{
    unsigned depth = 0;
    while (c->p < c->e) {
        char ch = *c->p;
        if (ch == '"' || ch == '\'') {
            int e = skip_string(r, c);
            if (e)
                return e;
            continue;
        }
        if (ch == '{' || ch == '[') {
            if (++depth > 64)
                return bad(r, "argument nested too deeply");
        } else if (ch == '}' || ch == ']') {
            if (depth == 0)
                return bad(r, "unbalanced '%c' in an argument", ch);
            if (--depth == 0) {
                c->p++;
                return 0;
            }
        }
        c->p++;
    }
    return bad(r, "unterminated argument");
}

/* One value (argument or return): an integer (decimal, negative, 0x hex), nil, <void>; strings,
 * structs, arrays and words count as 0. Stops before ',', ')', whitespace or end. */
static int read_value(struct reader *r, struct cur *c, uint64_t *v)
{
    *v = 0;
    if (c->p >= c->e)
        return bad(r, "missing value");
    char ch = *c->p;
    if (ch == '"' || ch == '\'')
        return skip_string(r, c);
    if (ch == '{' || ch == '[')
        return skip_nested(r, c);
    const char *s = c->p;
    while (c->p < c->e && *c->p != ',' && *c->p != ')' && *c->p != ' ' && *c->p != '\t')
        c->p++;
    size_t n = (size_t)(c->p - s);
    if (n == 0)
        return bad(r, "missing value");
    bool neg = s[0] == '-';
    size_t i = neg ? 1 : 0;
    uint64_t x = 0;
    if (n > i + 2 && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
        if (n - i - 2 > 16)
            return bad(r, "hex value too long");
        for (i += 2; i < n; i++) {
            char h = s[i];
            unsigned d = is_digit(h) ? (unsigned)(h - '0')
                       : (h >= 'a' && h <= 'f') ? (unsigned)(h - 'a' + 10)
                       : (h >= 'A' && h <= 'F') ? (unsigned)(h - 'A' + 10) : 16u;
            if (d > 15)
                return 0;       /* not a number: a word */
            x = x << 4 | d;
        }
    } else if (n > i && is_digit(s[i])) {
        for (; i < n; i++) {
            if (!is_digit(s[i]))
                return 0;       /* 1.5, 12abc: not an integer */
            unsigned d = (unsigned)(s[i] - '0');
            if (x > (UINT64_MAX - d) / 10)
                return bad(r, "number out of range");
            x = x * 10 + d;
        }
    } else {
        return 0;               /* nil, <void>, enum names, ... */
    }
    *v = neg ? (uint64_t)0 - x : x;
    return 0;
}

/* Arguments up to ')' (consumed), or up to " <unfinished ...>" / " <no return ...>"
 * (*stop = 1 / 2). Values beyond MAX_ARGS are parsed and dropped. */
static int read_args(struct reader *r, struct cur *c, struct call_rec *rec, unsigned *nargs,
                     int *stop, bool resuming)
{
    bool first = true;
    *stop = 0;
    for (;; first = false) {
        skip_sp(c);
        if (starts(c, "<unfinished ...>")) {
            c->p += 16;
            *stop = 1;
            return 0;
        }
        if (starts(c, "<no return ...>")) {
            c->p += 15;
            *stop = 2;
            return 0;
        }
        if (c->p >= c->e)
            return bad(r, "line ends inside the argument list");
        if (*c->p == ')') {
            c->p++;
            return 0;
        }
        if (*c->p == ',') {
            if (*nargs == 0)
                return bad(r, "empty argument");
            c->p++;
            skip_sp(c);
        } else if (!first || (*nargs > 0 && !resuming)) {
            return bad(r, "expected ',' or ')' between arguments");
        }
        uint64_t v;
        int e = read_value(r, c, &v);
        if (e)
            return e;
        if (*nargs < MAX_ARGS)
            rec->args[*nargs] = v;
        if (*nargs < 1000000)
            (*nargs)++;
    }
}

/* " = VALUE [<0.000123>]" to the end of the line. */
static int read_return(struct reader *r, struct cur *c, struct call_rec *rec)
{
    skip_sp(c);
    if (c->p >= c->e || *c->p != '=')
        return bad(r, "expected ' = ' and a return value after the arguments");
    c->p++;
    skip_sp(c);
    if (starts(c, "<void>")) {
        c->p += 6;
        rec->ret = 0;
    } else {
        int e = read_value(r, c, &rec->ret);
        if (e)
            return e;
    }
    skip_sp(c);
    if (c->p < c->e && *c->p == '<') {
        struct cur d = {c->p + 1, c->e};
        uint64_t sec;
        if (!read_dec(&d, &sec, NULL) || sec > 1000000000ull)
            return bad(r, "bad duration");
        uint64_t ns = sec * 1000000000ull + read_frac(&d);
        if (d.p >= d.e || *d.p != '>')
            return bad(r, "bad duration");
        rec->dur_ns = ns ? ns : 1;
        c->p = d.p + 1;
        skip_sp(c);
    }
    if (c->p < c->e)
        return bad(r, "unexpected text after the return value");
    return 0;
}

/* The function name before '(' in "[lib->]name(", at most 255 printable bytes. */
static int read_name(struct reader *r, struct cur *c, char *name, size_t cap)
{
    const char *s = c->p;
    while (c->p < c->e && *c->p != '(') {
        unsigned char ch = (unsigned char)*c->p;
        if (ch <= ' ' || ch == 0x7f)
            return bad(r, "expected a call 'name(args) = value'");
        c->p++;
    }
    if (c->p >= c->e)
        return bad(r, "expected a call 'name(args) = value'");
    const char *n = s;
    for (const char *q = s; q + 1 < c->p; q++)
        if (q[0] == '-' && q[1] == '>')
            n = q + 2;
    size_t len = (size_t)(c->p - n);
    if (len == 0 || len >= cap)
        return bad(r, "function name of %zu bytes", len);
    memcpy(name, n, len);
    name[len] = 0;
    c->p++;     /* '(' */
    return 0;
}

static int add_pending(struct reader *r, uint32_t tid, uint32_t func, size_t rec, unsigned nargs)
{
    if (r->npend >= MAX_PENDING)
        return bad(r, "more than %u calls unfinished at once", MAX_PENDING);
    struct pending *n = realloc(r->pend, (r->npend + 1) * sizeof(*n));
    if (!n)
        return -ENOMEM;
    r->pend = n;
    r->pend[r->npend++] = (struct pending){tid, func, rec, nargs};
    return 0;
}

static void drop_pending(struct reader *r, size_t i)
{
    r->pend[i] = r->pend[--r->npend];
}

/* "<... name resumed> [more args]) = value [<dur>]" */
static int resumed(struct reader *r, struct cur *c, uint32_t tid, uint64_t now)
{
    c->p += 5;  /* "<... " */
    const char *s = c->p;
    while (c->p < c->e && *c->p != ' ')
        c->p++;
    size_t len = (size_t)(c->p - s);
    if (!starts(c, " resumed>") || len == 0 || len > 255)
        return bad(r, "expected '<... NAME resumed>'");
    c->p += 9;
    size_t i = r->npend;
    while (i-- > 0) {
        const struct pending *p = &r->pend[i];
        const char *fn = r->t->funcs[p->func];
        /* ltrace -x names the call "malloc@libc.so.6" but resumes it as "malloc". */
        if (p->tid == tid && strncmp(fn, s, len) == 0 && (fn[len] == 0 || fn[len] == '@'))
            break;
    }
    if (i == (size_t)-1)
        return bad(r, "'%.*s' resumed, but no call of it is unfinished in task %u",
                   (int)(len > 60 ? 60 : len), s, tid);
    struct pending p = r->pend[i];
    drop_pending(r, i);
    struct call_rec *rec = &r->t->recs[p.rec];
    int stop, e = read_args(r, c, rec, &p.nargs, &stop, true);
    if (e)
        return e;
    if (stop)           /* unfinished again: wait for the next resume */
        return add_pending(r, tid, p.func, p.rec, p.nargs);
    e = read_return(r, c, rec);
    if (e)
        return e;
    rec->flags &= ~CALL_REC_NO_RETURN;
    if (!rec->dur_ns)
        rec->dur_ns = now > rec->time_ns ? now - rec->time_ns : 1;
    return 0;
}

/* The index of function `name` in the trace, added if new: a hash lookup per line, since
 * call_trace_func scans every name. */
static int func_index(struct reader *r, const char *name)
{
    uint64_t h = 1469598103934665603ull;
    for (const char *p = name; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ull;
    void *v = hashmap_get(&r->names, h);
    if (v && !strcmp(r->t->funcs[(uintptr_t)v - 1], name))
        return (int)((uintptr_t)v - 1);
    if (r->t->nfuncs >= MAX_FUNCS) {
        uint32_t i;
        for (i = 0; i < r->t->nfuncs && strcmp(r->t->funcs[i], name); i++)
            ;
        if (i == r->t->nfuncs)
            return bad(r, "more than %u distinct functions", MAX_FUNCS);
    }
    int fi = call_trace_func(r->t, name);
    if (fi >= 0 && !v && hashmap_put(&r->names, h, (void *)(uintptr_t)(fi + 1)))
        return -ENOMEM;
    return fi;
}

static int parse_line(struct reader *r, const char *s, const char *e)
{
    struct cur c = {s, e};
    uint64_t pid = 0, ts = 0, caller = 0;
    enum ts_kind kind = TS_NONE;

    if (memchr(s, 0, (size_t)(e - s)))
        return bad(r, "NUL byte in the line");
    skip_sp(&c);
    if (c.p >= c.e)
        return 0;
    /* -f's task id: digits then a blank (a timestamp has ':' or '.'). */
    struct cur save = c;
    if (read_dec(&c, &pid, NULL) && c.p < c.e && (*c.p == ' ' || *c.p == '\t')) {
        if (pid == 0 || pid > 0x7fffffffu)
            return bad(r, "task id %llu out of range", (unsigned long long)pid);
        skip_sp(&c);
    } else {
        c = save;
        pid = 0;
    }
    int has_ts = read_timestamp(r, &c, &ts, &kind);
    if (has_ts < 0)
        return has_ts;
    if (has_ts) {
        if (r->ts_kind != TS_NONE && r->ts_kind != kind)
            return bad(r, "timestamp format differs from the earlier lines'");
        r->ts_kind = kind;
    }
    skip_sp(&c);
    /* -i: [caller address] */
    if (c.p < c.e && *c.p == '[') {
        c.p++;
        struct cur v = c;
        while (c.p < c.e && *c.p != ']')
            c.p++;
        if (c.p >= c.e)
            return bad(r, "unterminated '[address]'");
        v.e = c.p;
        if (read_value(r, &v, &caller) || v.p != v.e)
            return bad(r, "bad '[address]'");
        c.p++;
        skip_sp(&c);
    }
    uint64_t now = line_time(r, has_ts, ts, kind);
    uint32_t tid = (uint32_t)pid;
    if (starts(&c, "+++ ")) {
        /* The task ended: its unfinished calls never return (they keep NO_RETURN). */
        for (size_t i = r->npend; i-- > 0;)
            if (r->pend[i].tid == tid)
                drop_pending(r, i);
        return 0;
    }
    if (starts(&c, "--- "))
        return 0;       /* signal delivered, exec */
    if (starts(&c, "unexpected breakpoint at ")) {
        if (r->err && !r->err->ltrace_complaints++)
            r->err->first_complaint = r->line;
        return 0;
    }
    if (starts(&c, "<... "))
        return resumed(r, &c, tid, now);

    char name[256];
    int err = read_name(r, &c, name, sizeof(name));
    if (err)
        return err;
    int fi = func_index(r, name);
    if (fi < 0)
        return fi;
    struct call_rec rec = {.time_ns = now, .pid = 0, .tid = tid, .func = (uint32_t)fi,
                           .caller = caller};
    unsigned nargs = 0;
    int stop;
    err = read_args(r, &c, &rec, &nargs, &stop, false);
    if (err)
        return err;
    if (stop) {
        skip_sp(&c);
        if (c.p < c.e)
            return bad(r, "unexpected text after '<unfinished ...>'");
        rec.flags = CALL_REC_NO_RETURN;
        err = call_trace_add(r->t, &rec);
        /* "<no return ...>" is ltrace's guess (exit, longjmp); realloc gets it too, and its
         * "<... realloc resumed>" follows: both wait for a resume. */
        if (!err)
            err = add_pending(r, tid, (uint32_t)fi, r->t->nrecs - 1, nargs);
        return err;
    }
    err = read_return(r, &c, &rec);
    return err ? err : call_trace_add(r->t, &rec);
}

int ltrace_log_read_buf(const char *buf, size_t len, struct call_trace *t,
                        struct ltrace_error *err)
{
    struct reader r = {.t = t, .err = err};
    size_t off = 0;
    int ret = 0;

    call_trace_init(t);
    hashmap_init(&r.names);
    if (err)
        memset(err, 0, sizeof(*err));
    while (off < len && !ret) {
        const char *s = buf + off, *nl = memchr(s, '\n', len - off);
        const char *e = nl ? nl : buf + len;
        r.line++;
        if ((size_t)(e - s) > MAX_LINE) {
            ret = bad(&r, "line longer than %u bytes", MAX_LINE);
            break;
        }
        off = (size_t)(e - buf) + (nl ? 1 : 0);
        if (e > s && e[-1] == '\r')
            e--;
        ret = parse_line(&r, s, e);
    }
    free(r.pend);
    hashmap_release(&r.names);
    if (ret)
        call_trace_release(t);
    return ret;
}

int ltrace_log_read(const char *path, struct call_trace *t, struct ltrace_error *err)
{
    call_trace_init(t);
    if (err)
        memset(err, 0, sizeof(*err));
    int fd = file_open_regular(path);
    if (fd == -EINVAL && err)
        snprintf(err->msg, sizeof(err->msg), "not a regular file");
    if (fd < 0)
        return fd;
    char *buf;
    size_t len;
    int ret = file_read_fd(fd, &buf, &len, MAX_LOG_BYTES);
    close(fd);
    if (ret < 0)
        return ret;
    ret = ltrace_log_read_buf(buf, len, t, err);
    free(buf);
    return ret;
}
