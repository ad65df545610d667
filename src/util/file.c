/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/stat.h>
#include "util/file.h"

int file_read_fd(int fd, char **buf, size_t *len, size_t max)
{
    size_t cap = 4096, n = 0;
    char *b, *nb;

    b = malloc(cap + 1);
    if (!b)
        return -ENOMEM;
    for (;;) {
        ssize_t r;
        if (n == cap) {
            if (cap >= max) {
                free(b);
                return -EFBIG;
            }
            cap = cap * 2 > max ? max : cap * 2;
            nb = realloc(b, cap + 1);
            if (!nb) {
                free(b);
                return -ENOMEM;
            }
            b = nb;
        }
        r = read(fd, b + n, cap - n);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            r = -errno;
            free(b);
            return (int)r;
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    b[n] = '\0';
    *buf = b;
    if (len)
        *len = n;
    return 0;
}

int file_read_all(const char *path, char **buf, size_t *len, size_t max)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC), err;

    if (fd < 0)
        return -errno;
    err = file_read_fd(fd, buf, len, max);
    close(fd);
    return err;
}

int file_open_regular(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return -errno;
    struct stat st;
    if (fstat(fd, &st) < 0) {
        int e = -errno;
        close(fd);
        return e;
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    return fd;
}

int file_mkdir_parents(char *path)
{
    for (char *p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(path, 0700) && errno != EEXIST) {
            int e = -errno;
            *p = '/';
            return e;
        }
        *p = '/';
    }
    return 0;
}
