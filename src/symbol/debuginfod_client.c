/* SPDX-License-Identifier: MIT */
#define LOG_PREFIX "symbol"
#include <elfutils/debuginfod.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "symbol/debuginfod_client.h"
#include "symbol/dso.h"
#include "util/dlib.h"
#include "util/log.h"

#define DEFAULT_TIMEOUT "10"    /* seconds without progress (libdebuginfod's default is 90) */

/* libdebuginfod (and libcurl with its TLS chain) is loaded only when a server is to be asked:
 * linked, it cost every run ~30 libraries at startup. Its header gives the prototypes. */
static const char *const names[] = {
    "debuginfod_begin", "debuginfod_find_debuginfo", "debuginfod_find_source",
    "debuginfod_set_progressfn",
};
static struct {
    __typeof__(debuginfod_begin) *begin;
    __typeof__(debuginfod_find_debuginfo) *find_debuginfo;
    __typeof__(debuginfod_find_source) *find_source;
    __typeof__(debuginfod_set_progressfn) *set_progressfn;
} fn;
static struct dlib lib = DLIB_INIT("libdebuginfod.so.1", names, &fn);

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static debuginfod_client *client;
static int broken;              /* the first error that means "cannot ask", 0 while fine */
static char broken_note[768];
/* Lookups answered by libdebuginfod's negative cache (an earlier failure, kept cache_miss_s). */
static unsigned ncached;
static char cached_note[1024];
/* The lookup in progress (under lock): its start, whether its wait was said, its end. */
static struct timespec lookup_t0;
static bool wait_said, timed_out;
static long deadline_s;
static char lookup_bid[2 * 64 + 1];
static void (*waiting_fn)(const char *msg);

void symbol_debuginfod_on_wait(void (*say)(const char *msg))
{
    pthread_mutex_lock(&lock);
    waiting_fn = say;
    pthread_mutex_unlock(&lock);
}

static double since_t0(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - lookup_t0.tv_sec) + (now.tv_nsec - lookup_t0.tv_nsec) / 1e9;
}

/* libdebuginfod's progress callback, about once a second while it waits: DEBUGINFOD_TIMEOUT
 * bounds the whole lookup here (libdebuginfod's own is per stall, and retried: 3 x 10 s on a
 * server that accepts and never answers). A wait over a second is said, once. */
static int on_progress(debuginfod_client *c, long a, long b)
{
    double t = since_t0();
    char msg[512];

    (void)c, (void)a, (void)b;
    if (t >= 1 && !wait_said && waiting_fn) {
        wait_said = true;
        snprintf(msg, sizeof(msg), "debuginfod: waiting for %.256s (build-id %.16s..., up to "
                 "%ld s: DEBUGINFOD_TIMEOUT)", getenv(DEBUGINFOD_URLS_ENV_VAR), lookup_bid,
                 deadline_s);
        waiting_fn(msg);
    }
    if (t >= (double)deadline_s) {
        timed_out = true;
        return 1;
    }
    return 0;
}

/* Downloads are kept in a private directory unless the user chose one. */
static void private_cache(void)
{
    const char *home = getenv("HOME"), *xdg = getenv("XDG_CACHE_HOME");
    char dir[4096];
    int n;

    if (getenv(DEBUGINFOD_CACHE_PATH_ENV_VAR))
        return;
    if (xdg && xdg[0] == '/')
        n = snprintf(dir, sizeof(dir), "%s/prospect/debuginfod", xdg);
    else if (home && home[0] == '/')
        n = snprintf(dir, sizeof(dir), "%s/.cache/prospect/debuginfod", home);
    else
        return;
    if (n < 0 || (size_t)n >= sizeof(dir))
        return;
    for (char *p = dir + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        mkdir(dir, 0700);
        *p = '/';
    }
    if (mkdir(dir, 0700) && errno != EEXIST)
        return;
    setenv(DEBUGINFOD_CACHE_PATH_ENV_VAR, dir, 1);
}

void symbol_debuginfod_prepare(void)
{
    const char *urls = getenv(DEBUGINFOD_URLS_ENV_VAR);

    if (!urls || !urls[strspn(urls, " \t")])
        return;
    pthread_mutex_lock(&lock);
    private_cache();
    setenv(DEBUGINFOD_TIMEOUT_ENV_VAR, DEFAULT_TIMEOUT, 0);
    pthread_mutex_unlock(&lock);
}

/* libdebuginfod's negative-cache entry of a build's debug info: an empty file (of mode 000
 * before elfutils 0.187), $DEBUGINFOD_CACHE_PATH/BUILDID/debuginfo, that answers "not found"
 * for cache_miss_s. */
static int negative_path(char *buf, size_t len)
{
    const char *cache = getenv(DEBUGINFOD_CACHE_PATH_ENV_VAR);
    int n;

    if (!cache || !cache[0])
        return -ENOENT;
    n = snprintf(buf, len, "%s/%s/debuginfo", cache, lookup_bid);
    return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* How long libdebuginfod keeps a failure: the cache's cache_miss_s file, else its 600 s. */
static long cache_miss_s(void);

/* An entry still in force (an expired one is removed and the servers asked again). */
static bool negative_cached(const char *path)
{
    struct stat st;
    return !stat(path, &st) && S_ISREG(st.st_mode) && !st.st_size &&
           time(NULL) - st.st_mtime <= cache_miss_s();
}

static long cache_miss_s(void)
{
    const char *cache = getenv(DEBUGINFOD_CACHE_PATH_ENV_VAR);
    char path[4096];
    long v = 600;
    FILE *f;

    snprintf(path, sizeof(path), "%s/cache_miss_s", cache ? cache : "");
    if ((f = fopen(path, "re"))) {
        if (fscanf(f, "%ld", &v) != 1 || v < 0)
            v = 600;
        fclose(f);
    }
    return v;
}

/* A timed-out lookup is remembered as libdebuginfod remembers a 404 (0.188 does so itself,
 * not every version), so the next runs do not wait for the same server again (each says so:
 * note_cached). */
static void remember_failure(const char *path)
{
    char dir[4096];
    char *slash;
    int fd;

    snprintf(dir, sizeof(dir), "%s", path);
    if (!(slash = strrchr(dir, '/')))
        return;
    *slash = '\0';
    if (mkdir(dir, 0700) && errno != EEXIST)
        return;
    if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0)) >= 0)
        close(fd);
}

static void note_cached(const char *path)
{
    if (ncached++)
        snprintf(cached_note, sizeof(cached_note), "debuginfod: no debug info for %u builds: "
                 "earlier lookups failed and the failures are kept for %ld s (cache_miss_s), "
                 "e.g. %.512s; delete those files to ask the servers again", ncached,
                 cache_miss_s(), path);
    else
        snprintf(cached_note, sizeof(cached_note), "debuginfod: no debug info for build-id "
                 "%.16s...: an earlier lookup failed and the failure is kept for %ld s "
                 "(cache_miss_s) in %.512s; delete it to ask the servers again", lookup_bid,
                 cache_miss_s(), path);
}

/* DEBUGINFOD_TIMEOUT, whole seconds (at least 1): the bound of one lookup. */
static long lookup_timeout(void)
{
    const char *s = getenv(DEBUGINFOD_TIMEOUT_ENV_VAR);
    long v = s ? strtol(s, NULL, 10) : 0;
    return v >= 1 ? v : strtol(DEFAULT_TIMEOUT, NULL, 10);
}

/* Asks the servers for one file of a build (its debug info, or a source file when src is set);
 * remembers a failure that means the servers cannot be asked. */
static int fetch(const uint8_t *bid, size_t len, const char *src, char **path)
{
    const char *urls = getenv(DEBUGINFOD_URLS_ENV_VAR);
    char neg[4096];
    bool has_neg, cached;
    int fd, ret;

    *path = NULL;
    if (!urls || !urls[strspn(urls, " \t")])
        return -ENOSYS;
    if (!len)
        return -ENOENT;
    pthread_mutex_lock(&lock);
    if (broken) {
        ret = broken;
        goto out;
    }
    if (!client) {
        if ((ret = dlib_open(&lib))) {
            broken = ret;
            snprintf(broken_note, sizeof(broken_note), "debuginfod: DEBUGINFOD_URLS is set but "
                     "%s cannot be loaded (%s): no debug info fetched", lib.soname, lib.why);
            pr_debug("%s", broken_note);
            goto out;
        }
        private_cache();
        setenv(DEBUGINFOD_TIMEOUT_ENV_VAR, DEFAULT_TIMEOUT, 0);
        if (!(client = fn.begin())) {
            ret = broken = -ENOMEM;
            snprintf(broken_note, sizeof(broken_note), "debuginfod: %s unreachable (%s): no "
                     "debug info fetched", urls, strerror(ENOMEM));
            goto out;
        }
        fn.set_progressfn(client, on_progress);
    }
    for (size_t i = 0; i < len && i < sizeof(lookup_bid) / 2; i++)
        snprintf(lookup_bid + 2 * i, 3, "%02x", bid[i]);
    lookup_bid[2 * (len < sizeof(lookup_bid) / 2 ? len : sizeof(lookup_bid) / 2)] = '\0';
    has_neg = !src && !negative_path(neg, sizeof(neg));
    cached = has_neg && negative_cached(neg);
    deadline_s = lookup_timeout();
    wait_said = timed_out = false;
    clock_gettime(CLOCK_MONOTONIC, &lookup_t0);
    fd = src ? fn.find_source(client, bid, (int)len, src, path)
             : fn.find_debuginfo(client, bid, (int)len, path);
    if (fd >= 0) {
        close(fd);
        ret = *path ? 0 : -ENOMEM;
        pr_debug("debuginfod: %s from %s", src ? src : "debug info", *path ? *path : "?");
        goto out;
    }
    ret = timed_out ? -ETIME : fd;
    if (ret == -ENOENT && cached)
        note_cached(neg);
    /* 404 from every server: this file only. Anything else: the servers, for every file. */
    if (timed_out) {
        broken = ret;
        if (has_neg)
            remember_failure(neg);
        int n = snprintf(broken_note, sizeof(broken_note), "debuginfod: %.400s did not answer "
                         "within %ld s (DEBUGINFOD_TIMEOUT): no debug info fetched", urls,
                         deadline_s);
        if (has_neg && n > 0 && (size_t)n < sizeof(broken_note))
            snprintf(broken_note + n, sizeof(broken_note) - (size_t)n, "; the failure is kept "
                     "for %ld s in %.300s (delete it to ask again)", cache_miss_s(), neg);
    } else if (ret != -ENOENT && ret != -ENOMEM) {
        broken = ret;
        snprintf(broken_note, sizeof(broken_note), "debuginfod: %.512s unreachable (%s): no "
                 "debug info fetched", urls, strerror(-ret));
    }
    pr_debug("debuginfod: %s", strerror(-ret));
out:
    pthread_mutex_unlock(&lock);
    return ret;
}

int symbol_debuginfod_fetch(const uint8_t *bid, size_t len, char **path)
{
    return fetch(bid, len, NULL, path);
}

int symbol_debuginfod_source(const uint8_t *bid, size_t len, const char *src, char **path)
{
    return src && src[0] == '/' ? fetch(bid, len, src, path) : -ENOENT;
}

int symbol_debuginfod_problem(char *buf, size_t len)
{
    int b;

    pthread_mutex_lock(&lock);
    b = broken;
    if (b)
        snprintf(buf, len, "%s", broken_note);
    else if (ncached && (b = -ENOENT))
        snprintf(buf, len, "%s", cached_note);
    pthread_mutex_unlock(&lock);
    return b;
}
