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
#endif
