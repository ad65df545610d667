/* SPDX-License-Identifier: MIT */
/* check --move-irqs: writes the target CPU list into each IRQ's smp_affinity_list. The kernel
 * is the judge of what may move; its refusals are returned per IRQ. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "system/syscheck_priv.h"

const char *syscheck_irq_refusal(int err)
{
    switch (err) {
    case -EIO:
        return "the kernel keeps it: a per-CPU, driver-managed or no-balancing IRQ";
    case -EINVAL:
        return "the kernel refuses that CPU list for this IRQ";
    case -ENOSPC:
        return "no free interrupt vector on the target CPUs";
    case -EACCES:
    case -EPERM:
        return "permission denied: run as root";
    case -ENOENT:
        return "the IRQ is gone";
    default:
        return NULL;
    }
}

static int write_affinity(const char *path, const char *list)
{
    char line[300];
    struct stat st;
    int fd, n, err = 0;

    /* A planted symlink or FIFO under --root is refused, never followed or waited on. */
    fd = open(path, O_WRONLY | O_TRUNC | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
        close(fd);
        return -EINVAL;
    }
    n = snprintf(line, sizeof(line), "%s\n", list);
    if (write(fd, line, (size_t)n) != n)
        err = errno ? -errno : -EIO;
    if (close(fd) && !err)
        err = -errno;
    return err;
}

int syscheck_move_irqs(const struct syscheck *sc, const char *root, int *err)
{
    char prefix[4096];

    if (!sc->irq_target[0])
        return -EINVAL;
    if (!sc_root_prefix(root, prefix, sizeof(prefix)))
        return -ENAMETOOLONG;
    for (size_t i = 0; i < sc->nirqs; i++) {
        char path[4200];
        if (sc->irqs[i].fixed) {
            err[i] = -EPERM;
            continue;
        }
        snprintf(path, sizeof(path), "%s/proc/irq/%u/smp_affinity_list", prefix,
                 sc->irqs[i].irq);
        errno = 0;
        err[i] = write_affinity(path, sc->irq_target);
    }
    return 0;
}
