/* SPDX-License-Identifier: MIT */
/* perf's build-id cache (~/.debug): reading copies by path and build-id, adding copies. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "symbol/buildid_cache.h"
#include "symbol/dso.h"

#define LOG_PREFIX "symbol"
#include "util/log.h"

int buildid_cache_dir(char *buf, size_t len)
{
    const char *dir = getenv("PERF_BUILDID_DIR"), *home = getenv("HOME");
    int n;

    if (dir && dir[0] == '/')
        n = snprintf(buf, len, "%s", dir);
    else if (home && home[0] == '/')
        n = snprintf(buf, len, "%s/.debug", home);
    else
        return -ENOENT;
    return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static void hex_of(const uint8_t *bid, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++)
        snprintf(out + 2 * i, 3, "%02x", bid[i]);
}

/* Opens cand if it is an ELF file with exactly this build-id. */
static bool try_copy(const char *cand, const uint8_t *bid, size_t bid_len, struct elf_file *out)
{
    uint8_t fbid[BUILD_ID_MAX];
    size_t flen = 0;

    if (elf_file_open(cand, out))
        return false;
    if (!elf_read_build_id(out->elf, fbid, sizeof(fbid), &flen) && flen == bid_len &&
        !memcmp(fbid, bid, bid_len))
        return true;
    pr_debug("%s: build-id differs from its name, ignored", cand);
    elf_file_close(out);
    return false;
}

int buildid_cache_open(const char *path, const uint8_t *bid, size_t bid_len,
                       struct elf_file *out, char **used)
{
    char dir[PATH_MAX], hex[2 * BUILD_ID_MAX + 1], cand[PATH_MAX];

    *used = NULL;
    if (bid_len < 2 || bid_len > BUILD_ID_MAX || buildid_cache_dir(dir, sizeof(dir)))
        return -ENOENT;
    hex_of(bid, bid_len, hex);
    for (int i = 0; i < 3; i++) {
        int n;
        if (i == 0 && (!path || path[0] != '/'))
            continue;
        if (i == 0)
            n = snprintf(cand, sizeof(cand), "%s%s/%s/elf", dir, path, hex);
        else    /* the symlink names the copy's directory (perf >= 4.x) or the copy itself */
            n = snprintf(cand, sizeof(cand), "%s/.build-id/%.2s/%s%s", dir, hex, hex + 2,
                         i == 1 ? "/elf" : "");
        if (n < 0 || (size_t)n >= sizeof(cand) || !try_copy(cand, bid, bid_len, out))
            continue;
        *used = strdup(cand);
        if (!*used) {
            elf_file_close(out);
            return -ENOMEM;
        }
        pr_debug("%s: symbols from the build-id cache, %s", path ? path : hex, cand);
        return 0;
    }
    return -ENOENT;
}

/* Opens (making it when missing) the directory `rel` below the directory fd `at`, one
 * component at a time, never through a symlink. Returns the directory's fd or -errno. */
static int open_dirs(int at, const char *rel)
{
    char comp[NAME_MAX + 1];
    int fd = dup(at);

    if (fd < 0)
        return -errno;
    while (*rel) {
        size_t n = strcspn(rel, "/");
        int next;
        if (n > NAME_MAX || (n == 2 && !strncmp(rel, "..", 2))) {
            close(fd);
            return -EINVAL;
        }
        if (n && !(n == 1 && rel[0] == '.')) {
            memcpy(comp, rel, n);
            comp[n] = '\0';
            if (mkdirat(fd, comp, 0700) && errno != EEXIST) {
                int err = -errno;
                close(fd);
                return err;
            }
            next = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            close(fd);
            if (next < 0)
                return -errno;
            fd = next;
        }
        rel += n;
        rel += *rel == '/';
    }
    return fd;
}

/* Copies the open file into a new private file `name` in directory dfd (atomically). */
static int copy_into(int src, int dfd, const char *name)
{
    char tmp[64], buf[65536];
    off_t off = 0;
    int fd, err = 0;

    snprintf(tmp, sizeof(tmp), ".%s.%d.tmp", name, (int)getpid());
    fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return -errno;
    for (;;) {
        ssize_t r = pread(src, buf, sizeof(buf), off), w = 0;
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            err = r < 0 ? -errno : 0;
            break;
        }
        while (w < r) {
            ssize_t k = write(fd, buf + w, (size_t)(r - w));
            if (k < 0 && errno == EINTR)
                continue;
            if (k <= 0) {
                err = k < 0 ? -errno : -EIO;
                break;
            }
            w += k;
        }
        if (err)
            break;
        off += r;
    }
    if (close(fd) && !err)
        err = -errno;
    if (!err && renameat(dfd, tmp, dfd, name))
        err = -errno;
    if (err)
        unlinkat(dfd, tmp, 0);
    return err;
}

int buildid_cache_add(const char *path, const uint8_t *bid, size_t bid_len)
{
    char dir[PATH_MAX], hex[2 * BUILD_ID_MAX + 1], rel[PATH_MAX], link[PATH_MAX + 8];
    uint8_t fbid[BUILD_ID_MAX];
    size_t flen = 0;
    struct elf_file ef;
    struct stat st;
    int top, dfd, err;

    if (path[0] != '/' || bid_len < 2 || bid_len > BUILD_ID_MAX)
        return -EINVAL;
    err = buildid_cache_dir(dir, sizeof(dir));
    if (err)
        return err;
    hex_of(bid, bid_len, hex);
    if ((size_t)snprintf(rel, sizeof(rel), "%s/%s", path + 1, hex) >= sizeof(rel))
        return -ENAMETOOLONG;
    if (mkdir(dir, 0700) && errno != EEXIST)
        return -errno;
    top = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (top < 0)
        return -errno;
    dfd = open_dirs(top, rel);
    if (dfd < 0) {
        close(top);
        return dfd;
    }
    if (fstatat(dfd, "elf", &st, AT_SYMLINK_NOFOLLOW)) {
        /* The copy must be the mapped file: its build-id is read from the descriptor that
         * is then copied. */
        err = elf_file_open(path, &ef);
        if (!err) {
            if (elf_read_build_id(ef.elf, fbid, sizeof(fbid), &flen) || flen != bid_len ||
                memcmp(fbid, bid, bid_len))
                err = -ESTALE;
            else
                err = copy_into(ef.fd, dfd, "elf");
            elf_file_close(&ef);
        }
    }
    close(dfd);
    if (!err) {
        /* .build-id/xx/rest -> ../../<path>/<hex>, perf's index by build-id alone. */
        char sub[16];
        snprintf(sub, sizeof(sub), ".build-id/%.2s", hex);
        snprintf(link, sizeof(link), "../../%s", rel);
        dfd = open_dirs(top, sub);
        if (dfd >= 0) {
            if (symlinkat(link, dfd, hex + 2) && errno != EEXIST)
                pr_debug("%s/%s/%s: %s", dir, sub, hex + 2, strerror(errno));
            close(dfd);
        }
    }
    close(top);
    if (!err)
        pr_debug("%s: in the build-id cache %s/%s", path, dir, rel);
    return err;
}
