#define LOG_PREFIX "symbol"
#include <elfutils/debuginfod.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
};
static struct {
    __typeof__(debuginfod_begin) *begin;
    __typeof__(debuginfod_find_debuginfo) *find_debuginfo;
    __typeof__(debuginfod_find_source) *find_source;
} fn;
static struct dlib lib = DLIB_INIT("libdebuginfod.so.1", names, &fn);

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static debuginfod_client *client;
static int broken;              /* the first error that means "cannot ask", 0 while fine */
static char broken_note[768];

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

/* Asks the servers for one file of a build (its debug info, or a source file when src is set);
 * remembers a failure that means the servers cannot be asked. */
static int fetch(const uint8_t *bid, size_t len, const char *src, char **path)
{
    const char *urls = getenv(DEBUGINFOD_URLS_ENV_VAR);
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
    }
    fd = src ? fn.find_source(client, bid, (int)len, src, path)
             : fn.find_debuginfo(client, bid, (int)len, path);
    if (fd >= 0) {
        close(fd);
        ret = *path ? 0 : -ENOMEM;
        pr_debug("debuginfod: %s from %s", src ? src : "debug info", *path ? *path : "?");
        goto out;
    }
    ret = fd;
    /* 404 from every server: this file only. Anything else: the servers, for every file. */
    if (ret != -ENOENT && ret != -ENOMEM) {
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
    pthread_mutex_unlock(&lock);
    return b;
}
