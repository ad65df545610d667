#define LOG_PREFIX "ksyms"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "symbol/buildid_cache.h"
#include "symbol/ksyms.h"
#include "symbol/ksyms_cache.h"
#include "util/log.h"

static void hex(const uint8_t *b, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++)
        snprintf(out + 2 * i, 3, "%02x", b[i]);
    out[2 * n] = '\0';
}

int ksyms_cache_path(int which, const uint8_t *bid, size_t bid_len, char *buf, size_t len)
{
    const char *home = getenv("HOME"), *xdg = getenv("XDG_CACHE_HOME");
    char h[2 * 20 + 1], dir[4096];
    int n;

    if (!bid_len || bid_len > 20)
        return -EINVAL;
    hex(bid, bid_len, h);
    if (which == 0 && xdg && xdg[0] == '/')
        n = snprintf(buf, len, "%s/prospect/kallsyms/%s", xdg, h);
    else if (which == 0 && home && home[0] == '/')
        n = snprintf(buf, len, "%s/.cache/prospect/kallsyms/%s", home, h);
    else if (which == 0 || buildid_cache_dir(dir, sizeof(dir)))
        return -ENOENT;
    else
        n = snprintf(buf, len, "%s/[kernel.kallsyms]/%s/kallsyms", dir, h);
    return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int ksyms_cache_load(const uint8_t *bid, size_t bid_len, uint64_t text, struct ksyms **out,
                     char *used, size_t used_len)
{
    char path[4096];

    *out = NULL;
    for (int which = 0; which < 2; which++) {
        struct ksyms *ks;
        if (ksyms_cache_path(which, bid, bid_len, path, sizeof(path)) || access(path, R_OK))
            continue;
        if (ksyms_load(path, &ks))
            continue;
        /* The same build-id after a reboot can sit elsewhere (KASLR): only a copy made for
         * this placement of the kernel describes the profile. */
        if (!text || ksyms_lookup(ks, "_text") == text) {
            snprintf(used, used_len, "%s", path);
            *out = ks;
            return 0;
        }
        pr_debug("%s: kernel placed elsewhere (another boot): not used", path);
        ksyms_free(ks);
    }
    return -ENOENT;
}

static int mkdirs(char *path)
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

int ksyms_cache_save(const uint8_t *bid, size_t bid_len, const char *text, size_t text_len)
{
    char path[4096], tmp[4200];
    int fd, err;
    size_t off = 0;

    err = ksyms_cache_path(0, bid, bid_len, path, sizeof(path));
    if (err)
        return err;
    err = mkdirs(path);
    if (err)
        return err;
    snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path, (int)getpid());
    fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return -errno;
    while (off < text_len) {
        ssize_t w = write(fd, text + off, text_len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            err = w < 0 ? -errno : -EIO;
            close(fd);
            unlink(tmp);
            return err;
        }
        off += (size_t)w;
    }
    if (close(fd) || rename(tmp, path)) {
        err = -errno;
        unlink(tmp);
        return err;
    }
    return 0;
}
