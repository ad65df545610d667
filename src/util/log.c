/* SPDX-License-Identifier: MIT */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/log.h"

int log_verbosity = LOG_WARN;

static __thread struct log_buf *capture;

void log_capture(struct log_buf *buf)
{
    capture = buf;
}

void log_flush(struct log_buf *buf)
{
    if (buf->len)
        fwrite(buf->s, 1, buf->len, stderr);
    free(buf->s);
    memset(buf, 0, sizeof(*buf));
}

static int reserve(struct log_buf *b, size_t more)
{
    size_t cap = b->cap ? b->cap : 1024;
    char *s;

    while (cap < b->len + more)
        cap *= 2;
    if (cap == b->cap)
        return 0;
    if (!(s = realloc(b->s, cap)))
        return -1;
    b->s = s;
    b->cap = cap;
    return 0;
}

/* The same bytes log_msg would write: "prospect: PREFIX: message\n". */
static void append(struct log_buf *b, const char *prefix, const char *fmt, va_list ap)
{
    size_t plen = strlen(prefix) + 12;   /* "prospect: " + ": " */
    va_list aq;
    int m;

    va_copy(aq, ap);
    m = vsnprintf(NULL, 0, fmt, aq);
    va_end(aq);
    if (m < 0 || reserve(b, plen + (size_t)m + 2))
        return;
    b->len += (size_t)snprintf(b->s + b->len, plen + 1, "prospect: %s: ", prefix);
    vsnprintf(b->s + b->len, (size_t)m + 1, fmt, ap);
    b->len += (size_t)m;
    b->s[b->len++] = '\n';
}

void log_msg(int level, const char *prefix, const char *fmt, ...)
{
    va_list ap;
    if (level > log_verbosity)
        return;
    if (capture) {
        va_start(ap, fmt);
        append(capture, prefix, fmt, ap);
        va_end(ap);
        return;
    }
    fprintf(stderr, "prospect: %s: ", prefix);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}
