/* SPDX-License-Identifier: MIT */
/* CSV output (RFC 4180): fields with commas or quotes are quoted, quotes doubled; control
 * characters (newlines too) and malformed UTF-8 are written as \xNN, as the text reports do. */
#ifndef PROSPECT_REPORT_CSV_H
#define PROSPECT_REPORT_CSV_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Writes one field; `last` ends the row. */
void csv_field(FILE *f, const char *s, bool last);
/* The same with another separator (`perf stat -x SEP`, not NUL); a field holding it is quoted. */
void csv_field_sep(FILE *f, const char *s, char sep, bool last);
void csv_u64(FILE *f, uint64_t v, bool last);
void csv_double(FILE *f, double v, int decimals, bool last);
/* A whole row of string fields. */
void csv_row(FILE *f, const char *const *fields, size_t n);
#endif
