/* SPDX-License-Identifier: MIT */
/* Reading untrusted files whole, with a size cap; opening one only if it is a regular file;
 * making a path's private parent directories. */
#ifndef PROSPECT_UTIL_FILE_H
#define PROSPECT_UTIL_FILE_H
#include <stddef.h>

/* Reads up to `max` bytes of `path` into a NUL-terminated malloc'd buffer.
 * Returns 0, -errno, or -EFBIG if the file is larger than max. */
int file_read_all(const char *path, char **buf, size_t *len, size_t max);
/* The same from an open descriptor (read to its end; the caller closes it). */
int file_read_fd(int fd, char **buf, size_t *len, size_t max);
/* Opens path read-only if it is a regular file, without blocking on a FIFO planted there
 * (O_NONBLOCK, cleared once the file is known to be regular). The descriptor (O_CLOEXEC), or
 * -errno: -EISDIR for a directory, -EINVAL for any other non-regular file. */
int file_open_regular(const char *path);
/* Creates every missing directory above the last '/' of path, mode 0700 (the path itself is
 * left alone). 0 or -errno. */
int file_mkdir_parents(char *path);
#endif
