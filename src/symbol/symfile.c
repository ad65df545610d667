/* SPDX-License-Identifier: MIT */
/* Opening symbol sources: never block on a FIFO, never read a device. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "symbol/symfile.h"
#include "util/file.h"

int symfile_open(const char *path, bool nofollow, struct stat *st)
{
    struct stat tmp;
    int fd, flags;

    if (!st)
        st = &tmp;
    fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | (nofollow ? O_NOFOLLOW : 0));
    if (fd < 0)
        return -errno;
    if (fstat(fd, st) || !S_ISREG(st->st_mode)) {
        int err = S_ISDIR(st->st_mode) ? -EISDIR : -EINVAL;
        close(fd);
        return err;
    }
    flags = fcntl(fd, F_GETFL);
    if (flags >= 0)
        fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    return fd;
}

int symfile_read_all(const char *path, bool nofollow, char **buf, size_t *len, size_t max,
                     struct stat *st)
{
    int fd = symfile_open(path, nofollow, st), err;

    if (fd < 0)
        return fd;
    err = file_read_fd(fd, buf, len, max);
    close(fd);
    return err;
}

const char *symfile_strerror(int err)
{
    return err == -EINVAL ? "not a regular file" : strerror(-err);
}
