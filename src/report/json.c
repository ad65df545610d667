/* SPDX-License-Identifier: MIT */
#include <inttypes.h>
#include <math.h>
#include "report/json.h"
#include "util/strutil.h"

void json_init(struct json *j, FILE *f)
{
    j->f = f;
    j->depth = 0;
    j->has_items[0] = false;
    j->one_line = false;
}

/* Control characters as \u00XX; bytes that are not well-formed UTF-8 (str_char_escape's rule,
 * the one of every format) as U+FFFD, so any JSON reader parses the document. */
static void put_escaped(FILE *f, const char *s)
{
    char esc[5];

    fputc('"', f);
    for (const char *p = s; *p;) {
        unsigned char c = (unsigned char)*p;
        size_t n = str_char_escape(p, esc);
        switch (c) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\t': fputs("\\t", f); break;
        case '\r': fputs("\\r", f); break;
        default:
            if (esc[0] && c >= 0x80)
                fputs("\\ufffd", f);
            else if (esc[0])
                fprintf(f, "\\u%04x", c);
            else
                fwrite(p, 1, n, f);
        }
        p += n;
    }
    fputc('"', f);
}

/* Comma, newline and indentation before an item, then its key. */
static void item(struct json *j, const char *key)
{
    if (j->has_items[j->depth])
        fputc(',', j->f);
    j->has_items[j->depth] = true;
    if (j->depth > 0 && !j->one_line) {
        fputc('\n', j->f);
        for (int i = 0; i < j->depth; i++)
            fputs("  ", j->f);
    }
    if (key) {
        put_escaped(j->f, key);
        fputs(": ", j->f);
    }
}

static void open_(struct json *j, const char *key, char c)
{
    item(j, key);
    fputc(c, j->f);
    if (j->depth + 1 < JSON_MAX_DEPTH)
        j->depth++;
    j->has_items[j->depth] = false;
}

static void close_(struct json *j, char c)
{
    bool had = j->has_items[j->depth];
    if (j->depth > 0)
        j->depth--;
    if (had && !j->one_line) {
        fputc('\n', j->f);
        for (int i = 0; i < j->depth; i++)
            fputs("  ", j->f);
    }
    fputc(c, j->f);
}

void json_begin_object(struct json *j, const char *key) { open_(j, key, '{'); }
void json_end_object(struct json *j) { close_(j, '}'); }
void json_begin_array(struct json *j, const char *key) { open_(j, key, '['); }
void json_end_array(struct json *j) { close_(j, ']'); }

void json_str(struct json *j, const char *key, const char *v)
{
    item(j, key);
    if (v)
        put_escaped(j->f, v);
    else
        fputs("null", j->f);
}

void json_u64(struct json *j, const char *key, uint64_t v)
{
    item(j, key);
    fprintf(j->f, "%" PRIu64, v);
}

void json_i64(struct json *j, const char *key, int64_t v)
{
    item(j, key);
    fprintf(j->f, "%" PRId64, v);
}

void json_double(struct json *j, const char *key, double v, int decimals)
{
    item(j, key);
    if (isfinite(v))
        fprintf(j->f, "%.*f", decimals, v);
    else
        fputs("null", j->f);
}

void json_bool(struct json *j, const char *key, bool v)
{
    item(j, key);
    fputs(v ? "true" : "false", j->f);
}

void json_finish(struct json *j)
{
    fputc('\n', j->f);
}
