/* SPDX-License-Identifier: MIT */
/* Tracepoint format descriptions (tracefs' events/SYSTEM/EVENT/format, also carried in
 * perf.data's HEADER_TRACING_DATA): where a named field sits in a sample's raw data. */
#ifndef PROSPECT_PERF_TP_FORMAT_H
#define PROSPECT_PERF_TP_FORMAT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tp_field {
    uint32_t offset, size;   /* in the raw record, bytes */
    bool is_signed;
};

/* Finds field `name` in a format text of len bytes (not necessarily NUL-terminated):
 * 0, -ENOENT (no such field) or -EINVAL (its line is malformed). */
int tp_format_field(const char *text, size_t len, const char *name, struct tp_field *out);

/* Whether the format text describes event `name` (its "name: " line). */
bool tp_format_is(const char *text, size_t len, const char *name);

/* Reads an unsigned field of size 1, 2, 4 or 8 from raw data of raw_size bytes (host order,
 * sign-extended when the field is signed): 0, or -ERANGE when it lies outside the data or has
 * another size. */
int tp_field_read(const struct tp_field *f, const void *raw, size_t raw_size, int64_t *out);
/* This kernel's format text of system:event from tracefs (mounted on need): 0 with a
 * NUL-terminated *out (free it) of *len bytes, or -errno. */
int tp_format_load(const char *system, const char *event, char **out, size_t *len);
#endif
