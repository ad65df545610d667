/* SPDX-License-Identifier: MIT */
/* Output files (-o of run, stat, record): the one place Prospect opens a file to write results.
 *
 * A symlink at the path is refused (-ELOOP), never followed: a symlink planted in a shared
 * directory must not make a run as root overwrite another file. A regular file is replaced whole
 * or not at all: the output goes to a temporary file beside it, renamed over it at commit, so a
 * failed run leaves the previous file as it was. A character device or FIFO that already exists
 * (-o /dev/null) is written as is; "-" and /dev/stdout (standard output), /dev/stderr and
 * /dev/fd/N (symlinks to our own descriptors) write to that descriptor. Anything else
 * (directory, socket) is refused.
 */
#ifndef PROSPECT_UTIL_OUTFILE_H
#define PROSPECT_UTIL_OUTFILE_H
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

struct outfile {
    char *path;         /* as given */
    char *tmp;          /* the temporary file renamed over path at commit, or NULL */
    FILE *fp;           /* writes to fd; its cookie is this struct, which must not move */
    int fd;
    int err;            /* the stream's first write error (-errno) */
};

/* Opens path for a stream of text (mode: of a created file, before the umask). 0 or -errno. */
int outfile_open(struct outfile *of, const char *path, mode_t mode);
/* Flushes and closes, then renames the temporary file over the path. 0 or the first error
 * (-errno, e.g. -ENOSPC); on error the path keeps its previous content. */
int outfile_commit(struct outfile *of);
/* Closes and removes what was written (the path keeps its previous content). */
void outfile_abort(struct outfile *of);

/* For writers that seek and must leave a readable file if killed (perf.data): creates path
 * itself, exclusively (an existing regular file is -EEXIST: move it away first), or opens an
 * existing character device or FIFO, or dups /dev/stdout & co. *created tells whether a file was
 * created (to remove on failure). A file descriptor (O_CLOEXEC) or -errno. */
int outfile_create_fd(const char *path, mode_t mode, bool *created);

/* Says why an output could not be opened: strerror, or the refusals' own words. */
const char *outfile_strerror(int e);
#endif
