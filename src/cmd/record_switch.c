/* SPDX-License-Identifier: MIT */
#include "cmd/record_switch.h"
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t usr2_count;
static sig_atomic_t usr2_seen;

static void on_usr2(int sig)
{
    (void)sig;
    usr2_count++;
}

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* perf's parse_tag_value: digits, then exactly one of the tags; 0 when it does not fit. */
static uint64_t tagged_value(const char *s, const char *tags, const uint64_t *mult)
{
    char *end;
    unsigned long long v;
    const char *t;

    if (*s < '0' || *s > '9')
        return 0;
    errno = 0;
    v = strtoull(s, &end, 10);
    if (errno || end[0] == '\0' || end[1] != '\0' || !(t = strchr(tags, end[0])))
        return 0;
    if (v > UINT64_MAX / mult[t - tags])
        return 0;
    return v * mult[t - tags];
}

int switch_output_parse(struct switch_output *so, const char *arg)
{
    static const uint64_t size_mult[] = { 1, 1u << 10, 1u << 20, 1u << 30 };
    static const uint64_t time_mult[] = { 1, 60, 3600, 86400 };
    uint64_t v;

    so->enabled = true;
    so->signal = false;
    so->size = so->time_ns = 0;
    if (!arg || !strcmp(arg, "signal")) {
        so->signal = true;
        return 0;
    }
    if ((v = tagged_value(arg, "BKMG", size_mult))) {
        so->size = v;
        return 0;
    }
    if ((v = tagged_value(arg, "smhd", time_mult)) && v <= UINT64_MAX / 1000000000u) {
        so->time_ns = v * 1000000000u;
        return 0;
    }
    so->enabled = false;
    return -EINVAL;
}

void switch_output_start(struct switch_output *so)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_usr2;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR2, &sa, NULL);
    so->part_start_ns = mono_ns();
}

bool switch_output_due(struct switch_output *so, uint64_t bytes)
{
    sig_atomic_t n = usr2_count;
    bool due = false;

    /* A signal seen after a drain may have come during it: the part ends after the next
     * drain, which began after the signal, so what was recorded before it is all in. */
    if (so->signal_pending) {
        so->signal_pending = false;
        due = true;
    }
    if (n != usr2_seen) {
        usr2_seen = n;
        so->signal_pending = so->signal;
    }
    if (so->size && bytes >= so->size)
        due = true;
    if (so->time_ns && mono_ns() - so->part_start_ns >= so->time_ns)
        due = true;
    if (due)
        so->part_start_ns = mono_ns();
    return due;
}

/* perf's fetch_current_timestamp: %Y%m%d%H%M%S and the hundredths of a second. */
static int timestamp(char *buf, size_t len)
{
    struct timeval tv;
    struct tm tm;
    char dt[32];

    if (gettimeofday(&tv, NULL) || !localtime_r(&tv.tv_sec, &tm) ||
        !strftime(dt, sizeof(dt), "%Y%m%d%H%M%S", &tm))
        return -EINVAL;
    snprintf(buf, len, "%s%02u", dt, (unsigned)tv.tv_usec / 10000);
    return 0;
}

int switch_output_rename(const char *path, char *out, size_t len)
{
    char ts[48];
    int err = timestamp(ts, sizeof(ts));

    if (err)
        return err;
    /* Two parts within one hundredth of a second: the next free hundredth keeps the names in
     * time order (link refuses an existing name, where rename would replace it). */
    for (int tries = 0; tries < 100; tries++) {
        if ((size_t)snprintf(out, len, "%s.%s", path, ts) >= len)
            return -ENAMETOOLONG;
        if (!link(path, out))
            return unlink(path) ? -errno : 0;
        if (errno != EEXIST)
            return -errno;
        snprintf(ts, sizeof(ts), "%llu", strtoull(ts, NULL, 10) + 1);
    }
    return -EEXIST;
}

int switch_output_keep(struct switch_output *so, const char *part, char *removed, size_t len)
{
    char *copy = strdup(part), **n;
    int err = 0;

    removed[0] = '\0';
    if (!copy)
        return -ENOMEM;
    if (!so->max_files) {
        free(copy);
        return 0;
    }
    if (so->nr_parts == so->max_files) {
        snprintf(removed, len, "%s", so->parts[0]);
        if (unlink(so->parts[0]) && errno != ENOENT)
            err = -errno;
        free(so->parts[0]);
        memmove(so->parts, so->parts + 1, --so->nr_parts * sizeof(*so->parts));
    }
    if (!(n = realloc(so->parts, (so->nr_parts + 1) * sizeof(*n)))) {
        free(copy);
        return -ENOMEM;
    }
    so->parts = n;
    so->parts[so->nr_parts++] = copy;
    return err;
}

void switch_output_release(struct switch_output *so)
{
    for (size_t i = 0; i < so->nr_parts; i++)
        free(so->parts[i]);
    free(so->parts);
    so->parts = NULL;
    so->nr_parts = 0;
}
