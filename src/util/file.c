#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#include "util/file.h"

int file_read_all(const char *path, char **buf, size_t *len, size_t max)
{
    size_t cap = 4096, n = 0;
    char *b, *nb;
    int fd = open(path, O_RDONLY | O_CLOEXEC);

    if (fd < 0)
        return -errno;
    b = malloc(cap + 1);
    if (!b) {
        close(fd);
        return -ENOMEM;
    }
    for (;;) {
        ssize_t r;
        if (n == cap) {
            if (cap >= max) {
                free(b);
                close(fd);
                return -EFBIG;
            }
            cap = cap * 2 > max ? max : cap * 2;
            nb = realloc(b, cap + 1);
            if (!nb) {
                free(b);
                close(fd);
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
            close(fd);
            return (int)r;
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    close(fd);
    b[n] = '\0';
    *buf = b;
    if (len)
        *len = n;
    return 0;
}
