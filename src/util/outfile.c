/* SPDX-License-Identifier: MIT */
/* Output files that never follow a symlink and replace a regular file whole (outfile.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>
#include "util/outfile.h"

/* "-" (standard output, as perf's -o - means), /dev/stdout, /dev/stderr, /dev/fd/N and
 * /proc/self/fd/N name our own descriptors (the last ones through symlinks that nobody can
 * plant): N, or -1. */
static int own_fd(const char *path)
{
    static const char *const dirs[] = { "/dev/fd/", "/proc/self/fd/" };
    char *end;
    long n;

    if (!strcmp(path, "-") || !strcmp(path, "/dev/stdout"))
        return 1;
    if (!strcmp(path, "/dev/stderr"))
        return 2;
    for (size_t i = 0; i < sizeof(dirs) / sizeof(*dirs); i++)
        if (!strncmp(path, dirs[i], strlen(dirs[i]))) {
            const char *num = path + strlen(dirs[i]);
            if (*num < '0' || *num > '9')
                return -1;
            n = strtol(num, &end, 10);
            return *end || n > 65535 ? -1 : (int)n;
        }
    return -1;
}

/* An existing character device or FIFO, opened as is: not created, not truncated, not
 * through a symlink swapped in since lstat. A FIFO without a reader is -ENXIO, not a hang. */
static int open_special(const char *path)
{
    struct stat st;
    int fd = open(path, O_WRONLY | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK | O_CLOEXEC), fl;

    if (fd < 0)
        return -errno;
    if (fstat(fd, &st) || !(S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) ||
        (fl = fcntl(fd, F_GETFL)) < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
        close(fd);
        return -EINVAL;
    }
    return fd;
}

/* What is at path: 0 nothing, 1 a regular file, or a descriptor opened on our own descriptor
 * or an existing device/FIFO (>= 3, through *fd), or -errno. */
static int classify(const char *path, int *fd)
{
    struct stat st;
    int n;

    *fd = -1;
    if (!path[0])
        return -ENOENT;
    if ((n = own_fd(path)) >= 0) {
        *fd = fcntl(n, F_DUPFD_CLOEXEC, 3);
        return *fd < 0 ? -errno : 2;
    }
    if (lstat(path, &st))
        return errno == ENOENT ? 0 : -errno;
    if (S_ISLNK(st.st_mode))
        return -ELOOP;
    if (S_ISREG(st.st_mode))
        return 1;
    if (S_ISDIR(st.st_mode))
        return -EISDIR;
    if (!S_ISCHR(st.st_mode) && !S_ISFIFO(st.st_mode))
        return -EINVAL;
    *fd = open_special(path);
    return *fd < 0 ? *fd : 2;
}

/* A new file ".NAME.XXXXXX" beside path, created exclusively (O_EXCL never follows). */
static int open_temp(const char *path, mode_t mode, char **tmp)
{
    const char *slash = strrchr(path, '/');
    int dlen = slash ? (int)(slash - path + 1) : 0;
    static const char digits[] = "abcdefghijklmnopqrstuvwxyz0123456789";

    *tmp = malloc(strlen(path) + 10);
    if (!*tmp)
        return -ENOMEM;
    for (int tries = 0; tries < 100; tries++) {
        unsigned char r[6];
        char *p;
        int fd;
        if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
            memset(r, tries, sizeof(r));
        p = *tmp + sprintf(*tmp, "%.*s.%s.", dlen, path, path + dlen);
        for (size_t i = 0; i < sizeof(r); i++)
            *p++ = digits[r[i] % (sizeof(digits) - 1)];
        *p = '\0';
        fd = open(*tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
        if (fd >= 0)
            return fd;
        if (errno != EEXIST)
            break;
    }
    free(*tmp);
    *tmp = NULL;
    return -errno;
}

static ssize_t stream_write(void *cookie, const char *buf, size_t n)
{
    struct outfile *of = cookie;
    size_t done = 0;

    while (done < n) {
        ssize_t w = write(of->fd, buf + done, n - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (!of->err)
                of->err = w < 0 ? -errno : -EIO;
            return done ? (ssize_t)done : -1;
        }
        done += (size_t)w;
    }
    return (ssize_t)done;
}

static int stream_close(void *cookie)
{
    struct outfile *of = cookie;
    int e = close(of->fd);

    if (e && !of->err)
        of->err = -errno;
    of->fd = -1;
    return e;
}

int outfile_open(struct outfile *of, const char *path, mode_t mode)
{
    cookie_io_functions_t io = { .write = stream_write, .close = stream_close };
    int kind, e;

    memset(of, 0, sizeof(*of));
    of->fd = -1;
    kind = classify(path, &of->fd);
    if (kind < 0)
        return kind;
    if (kind < 2 && (of->fd = open_temp(path, mode, &of->tmp)) < 0)
        return of->fd;
    if (!(of->path = strdup(path)) || !(of->fp = fopencookie(of, "w", io))) {
        e = -ENOMEM;
        close(of->fd);
        of->fd = -1;
        outfile_abort(of);
        return e;
    }
    return 0;
}

static void release(struct outfile *of)
{
    if (of->tmp)
        unlink(of->tmp);
    free(of->tmp);
    free(of->path);
    of->tmp = of->path = NULL;
    of->fp = NULL;
}

int outfile_commit(struct outfile *of)
{
    int e;

    if (!of->fp)
        return -EBADF;
    if (fflush(of->fp) && !of->err)
        of->err = -EIO;
    if (fclose(of->fp) && !of->err)
        of->err = -EIO;
    e = of->err;
    if (!e && of->tmp) {
        if (rename(of->tmp, of->path))
            e = -errno;
        else {
            free(of->tmp);
            of->tmp = NULL;
        }
    }
    release(of);
    return e;
}

void outfile_abort(struct outfile *of)
{
    if (of->fp)
        fclose(of->fp);
    release(of);
}

int outfile_create_fd(const char *path, mode_t mode, bool *created)
{
    int fd, kind = classify(path, &fd);

    *created = false;
    if (kind < 0)
        return kind;
    if (kind == 2)
        return fd;
    if (kind == 1)
        return -EEXIST;
    fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    if (fd < 0)
        return errno == EEXIST ? -EEXIST : -errno;
    *created = true;
    return fd;
}

const char *outfile_strerror(int e)
{
    switch (e) {
    case -ELOOP:
        return "it is a symbolic link (outputs never follow one: give the real path)";
    case -EINVAL:
        return "not a regular file, character device or FIFO";
    case -ENXIO:
        return "a FIFO with no reader";
    default:
        return strerror(-e);
    }
}
