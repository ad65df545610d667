/* SPDX-License-Identifier: MIT */
/* Internal to src/symbol/: opening the files symbols come from (ELF files, debug files, perf
 * maps, kallsyms copies). Any of them can be something else planted at the path: a FIFO, whose
 * open() blocks until a writer appears (forever), or a device. */
#ifndef PROSPECT_SYMBOL_SYMFILE_H
#define PROSPECT_SYMBOL_SYMFILE_H
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

/* Opens path read-only without blocking (O_NONBLOCK, cleared once the file is known to be
 * regular) and without following a final symlink when nofollow. Only regular files: a
 * directory gives -EISDIR, a FIFO, socket or device -EINVAL (symfile_strerror says "not a
 * regular file"). Returns the descriptor (fills *st when not NULL) or -errno. */
int symfile_open(const char *path, bool nofollow, struct stat *st);

/* Reads a whole regular file (as symfile_open) into a NUL-terminated malloc'd buffer of at most
 * max bytes: 0, -errno, -EFBIG when larger. */
int symfile_read_all(const char *path, bool nofollow, char **buf, size_t *len, size_t max,
                     struct stat *st);

/* strerror, but "not a regular file" for the -EINVAL of symfile_open. */
const char *symfile_strerror(int err);
#endif
