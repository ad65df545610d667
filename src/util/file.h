/* Reading small untrusted files (/proc entries) whole, with a size cap. */
#ifndef PROSPECT_UTIL_FILE_H
#define PROSPECT_UTIL_FILE_H
#include <stddef.h>

/* Reads up to `max` bytes of `path` into a NUL-terminated malloc'd buffer.
 * Returns 0, -errno, or -EFBIG if the file is larger than max. */
int file_read_all(const char *path, char **buf, size_t *len, size_t max);
/* The same from an open descriptor (left open), read to its end. */
int file_read_fd(int fd, char **buf, size_t *len, size_t max);
#endif
