/* SPDX-License-Identifier: MIT */
/* libprospect's region markers: finding Prospect's private channel at load time, and writing
 * results into it. libc only: this runs inside the user's program. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "prospect/region.h"
#include "intarget/markers_internal.h"

PROSPECT_API int prospect_markers_on;
HIDDEN struct markers_config markers_cfg = { .fd = -1 };

static int parse_config(char *buf)
{
    char *p = buf + strlen(MARKERS_MAGIC), *end;
    unsigned long n;

    if (strncmp(p, "events ", 7))
        return -1;
    n = strtoul(p + 7, &end, 10);
    if (*end != '\n' || n == 0 || n > MARKERS_MAX_EVENTS)
        return -1;
    p = end + 1;
    for (size_t i = 0; i < n; i++) {
        struct perf_event_attr *a = &markers_cfg.ev[i];
        unsigned long long v[6];
        if (strncmp(p, "event ", 6))
            return -1;
        p += 6;
        for (size_t k = 0; k < 6; k++) {
            v[k] = strtoull(p, &end, 0);
            if (end == p || (*end != ' ' && *end != '\n'))
                return -1;
            p = end + (*end == ' ');
        }
        if (*p++ != '\n' || v[0] > 0xffffffffull)
            return -1;
        memset(a, 0, sizeof(*a));
        a->size = sizeof(*a);
        a->type = (uint32_t)v[0];
        a->config = v[1];
        a->config1 = v[2];
        a->config2 = v[3];
        a->exclude_user = v[4] != 0;
        a->exclude_kernel = v[5] != 0;
    }
    if (strncmp(p, "end\n", 4))
        return -1;
    markers_cfg.nev = n;
    return 0;
}

/* The channel is Prospect's only if it is an anonymous sealed file (memfd: no path another
 * user could open) of this user that starts with the magic line; anything else (a stale
 * variable, a descriptor that is something else now) leaves the markers off. */
static int check_channel(int fd)
{
    struct stat st;
    char buf[2048];
    ssize_t n;
    int seals;

    if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid())
        return -1;
    seals = fcntl(fd, F_GET_SEALS);
    if (seals < 0 || !(seals & F_SEAL_SHRINK))
        return -1;
    n = pread(fd, buf, sizeof(buf) - 1, 0);
    if (n < (ssize_t)strlen(MARKERS_MAGIC) || memcmp(buf, MARKERS_MAGIC, strlen(MARKERS_MAGIC)))
        return -1;
    buf[n] = '\0';
    return parse_config(buf);
}

static void at_exit(void)
{
    markers_flush_all();
}

__attribute__((constructor)) static void markers_init(void)
{
    const char *s = getenv(MARKERS_ENV);
    char *end;
    long fd;

    if (!s || !*s)
        return;
    fd = strtol(s, &end, 10);
    if (*end || fd < 3 || fd > 1 << 20 || check_channel((int)fd))
        return;
    markers_cfg.fd = (int)fd;
    if (pthread_atfork(NULL, NULL, markers_forget_threads) || atexit(at_exit)) {
        markers_cfg.fd = -1;
        return;
    }
    prospect_markers_on = 1;
}

HIDDEN void markers_write(const char *buf, size_t len)
{
    while (len) {
        ssize_t n = write(markers_cfg.fd, buf, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return;
        buf += n;
        len -= (size_t)n;
    }
}
