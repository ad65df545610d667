/* SPDX-License-Identifier: MIT */
/* Tracepoint format texts: one field per line,
 *   "\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;"
 * The field's name is the declaration's last identifier (before any "[N]"). Untrusted text:
 * every number is bounded, every scan stays inside len. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "perf/event.h"
#include "perf/tp_format.h"
#include "util/file.h"

#define FIELD_MAX 65536u     /* raw records are at most 64 KiB */

static bool is_ident(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_';
}

/* The value of "key:N;" in [p, end): 0, or -EINVAL when absent or out of bounds. */
static int number_after(const char *p, const char *end, const char *key, uint32_t *out)
{
    size_t klen = strlen(key);
    uint64_t v = 0;
    const char *q;

    for (q = p; q + klen <= end && memcmp(q, key, klen); q++)
        ;
    if (q + klen > end)
        return -EINVAL;
    q += klen;
    if (q == end || *q < '0' || *q > '9')
        return -EINVAL;
    for (; q < end && *q >= '0' && *q <= '9'; q++)
        if ((v = v * 10 + (uint64_t)(*q - '0')) > FIELD_MAX)
            return -EINVAL;
    if (q == end || *q != ';')
        return -EINVAL;
    *out = (uint32_t)v;
    return 0;
}

/* Whether the declaration [decl, semi) names `name`: "type name" or "type name[N]". */
static bool declares(const char *decl, const char *semi, const char *name)
{
    const char *e = semi, *b;
    size_t n = strlen(name);

    while (e > decl && e[-1] == ' ')
        e--;
    if (e > decl && e[-1] == ']') {             /* an array: the name is before '[' */
        while (e > decl && e[-1] != '[')
            e--;
        if (e == decl)
            return false;
        e--;
    }
    for (b = e; b > decl && is_ident(b[-1]); b--)
        ;
    return (size_t)(e - b) == n && !memcmp(b, name, n) && b > decl && !is_ident(b[-1]);
}

int tp_format_field(const char *text, size_t len, const char *name, struct tp_field *out)
{
    const char *p = text, *end = text + len;

    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p)), *eol = nl ? nl : end, *f, *semi;
        for (f = p; f < eol && (*f == ' ' || *f == '\t'); f++)
            ;
        if (eol - f > 6 && !memcmp(f, "field:", 6) &&
            (semi = memchr(f, ';', (size_t)(eol - f))) && declares(f + 6, semi, name)) {
            uint32_t off, size, sign = 0;
            if (number_after(semi, eol, "offset:", &off) ||
                number_after(semi, eol, "size:", &size) || !size ||
                off + (uint64_t)size > FIELD_MAX)
                return -EINVAL;
            if (number_after(semi, eol, "signed:", &sign))
                sign = 0;                       /* old kernels did not say */
            *out = (struct tp_field){ .offset = off, .size = size, .is_signed = sign == 1 };
            return 0;
        }
        p = eol + 1;
    }
    return -ENOENT;
}

bool tp_format_is(const char *text, size_t len, const char *name)
{
    size_t n = strlen(name);
    return len >= 6 + n + 1 && !memcmp(text, "name: ", 6) && !memcmp(text + 6, name, n) &&
           (text[6 + n] == '\n' || text[6 + n] == '\r');
}

int tp_field_read(const struct tp_field *f, const void *raw, size_t raw_size, int64_t *out)
{
    const unsigned char *p = raw;

    if (!raw || f->offset > raw_size || f->size > raw_size - f->offset)
        return -ERANGE;
    p += f->offset;
    switch (f->size) {
    case 1: { uint8_t v = *p; *out = f->is_signed ? (int8_t)v : (int64_t)v; return 0; }
    case 2: { uint16_t v; memcpy(&v, p, 2); *out = f->is_signed ? (int16_t)v : (int64_t)v;
              return 0; }
    case 4: { uint32_t v; memcpy(&v, p, 4); *out = f->is_signed ? (int32_t)v : (int64_t)v;
              return 0; }
    case 8: { uint64_t v; memcpy(&v, p, 8); *out = (int64_t)v; return 0; }
    default: return -ERANGE;
    }
}

int tp_format_load(const char *system, const char *event, char **out, size_t *len)
{
    const char *dir = event_tracefs_dir();
    char path[600];

    *out = NULL;
    if (!dir)
        return -ENOENT;
    snprintf(path, sizeof(path), "%s/%s/%s/format", dir, system, event);
    return file_read_all(path, out, len, FIELD_MAX * 4);
}
