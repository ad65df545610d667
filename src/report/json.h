/* SPDX-License-Identifier: MIT */
/* A small streaming JSON writer for the machine-readable report formats. Keys and values are
 * escaped; nesting is tracked so commas come out right. Output goes to the FILE the command
 * chose. */
#ifndef PROSPECT_REPORT_JSON_H
#define PROSPECT_REPORT_JSON_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 32

struct json {
    FILE *f;
    int depth;
    bool has_items[JSON_MAX_DEPTH];
    bool one_line;          /* no newlines or indentation: a JSON Lines record (set after init) */
};

void json_init(struct json *j, FILE *f);
/* key is NULL inside arrays and at the top level. */
void json_begin_object(struct json *j, const char *key);
void json_end_object(struct json *j);
void json_begin_array(struct json *j, const char *key);
void json_end_array(struct json *j);
void json_str(struct json *j, const char *key, const char *v);   /* NULL prints null */
void json_u64(struct json *j, const char *key, uint64_t v);
void json_i64(struct json *j, const char *key, int64_t v);
void json_double(struct json *j, const char *key, double v, int decimals);
void json_bool(struct json *j, const char *key, bool v);
/* Ends the document with a newline. */
void json_finish(struct json *j);
#endif
