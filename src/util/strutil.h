/* SPDX-License-Identifier: MIT */
/* String helpers: strict number parsing and bounded copies (no sprintf/strcpy/strtok). */
#ifndef PROSPECT_UTIL_STRUTIL_H
#define PROSPECT_UTIL_STRUTIL_H
#include <stddef.h>
#include <stdint.h>

/* Parses a whole string as an unsigned number (decimal, or hex with 0x). -EINVAL / -ERANGE. */
int parse_u64(const char *s, uint64_t *out);
/* Parses a whole string as a non-negative decimal double ("2.5"). -EINVAL. */
int parse_double(const char *s, double *out);
/* Copies at most size-1 bytes and always terminates; returns strlen(src). */
size_t str_copy(char *dst, size_t size, const char *src);
/* Returns 1 if s starts with prefix. */
int str_starts(const char *s, const char *prefix);
/* Returns 1 if s ends with suffix. */
int str_ends(const char *s, const char *suffix);
/* The last path component (no allocation). */
const char *path_basename(const char *path);
/* For printing untrusted text (symbol names, comms, paths, argv): returns s itself when it is
 * printable and shorter than len, else a copy in buf with control characters and malformed
 * UTF-8 escaped as \xNN and the tail cut to "..." so it fits in len bytes. */
const char *str_printable(const char *s, char *buf, size_t len);
/* The one escaping rule of every report format, for the character at s: returns its length in
 * bytes (1 to 4) and sets esc to "" when it prints as is, or to "\\xNN" (its first byte) for a
 * control character or a byte that does not start well-formed UTF-8 (then 1 is returned). */
size_t str_char_escape(const char *s, char esc[5]);
/* Display width of printable UTF-8 text (one column per character). */
size_t str_width(const char *s);
/* s itself when it is at most width columns wide, else its head and tail joined by "..." in
 * buf (width columns; at most len/4 when buf is smaller). Give it printable text. */
const char *str_elide(const char *s, size_t width, char *buf, size_t len);
#endif
