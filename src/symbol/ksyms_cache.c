/* SPDX-License-Identifier: MIT */
#define LOG_PREFIX "ksyms"
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "symbol/buildid_cache.h"
#include "symbol/ksyms.h"
#include "symbol/ksyms_bin.h"
#include "symbol/ksyms_cache.h"
#include "util/file.h"
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

/* Writes a cache file: a private temporary file (never through a symlink) renamed into
 * place, so a reader sees the old file or the whole new one. 0 or -errno. */
static int write_atomic(char *path, const char *data, size_t len)
{
    char tmp[4200];
    int fd, err;
    size_t off = 0;

    err = file_mkdir_parents(path);
    if (err)
        return err;
    snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path, (int)getpid());
    fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return -errno;
    while (off < len) {
        ssize_t w = write(fd, data + off, len - off);
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

/* The binary form's path: beside Prospect's text copy. One per build-id; its header names the
 * text (Prospect's or perf's) it was made from. */
static int bin_path(const uint8_t *bid, size_t bid_len, char *buf, size_t len)
{
    int err = ksyms_cache_path(0, bid, bid_len, buf, len - 4);
    if (!err)
        strcat(buf, ".bin");
    return err;
}

static void src_of(const struct stat *st, struct ksyms_src *src)
{
    src->size = (uint64_t)st->st_size;
    src->ino = (uint64_t)st->st_ino;
    src->dev = (uint64_t)st->st_dev;
    src->mtime_sec = (int64_t)st->st_mtim.tv_sec;
    src->mtime_nsec = (int64_t)st->st_mtim.tv_nsec;
}

/* Loads the binary form made from the text `src` describes: one read. 0 or -errno (any
 * failure: the caller parses the text). */
static int bin_load(const char *path, const struct ksyms_src *src, struct ksyms **out)
{
    struct stat st;
    void *map;
    int err, fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

    if (fd < 0)
        return -errno;
    if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
        (uint64_t)st.st_size > (256u << 20)) {
        close(fd);
        return -EINVAL;
    }
    /* Populated up front: the check reads every page anyway, and mapping page-cache pages
     * costs far less than copying them into fresh memory. */
    map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED)
        return -errno;
    err = ksyms_bin_decode(map, (size_t)st.st_size, src, out);
    if (err)
        return err;
    /* Checked: its pages leave our resident set; the few a report looks up come back from
     * the page cache (5 MB of RSS otherwise, on a profile with a handful of kernel samples). */
    madvise(map, (size_t)st.st_size, MADV_DONTNEED);
    return 0;
}

static void bin_save(const char *path, const struct ksyms *ks, const struct ksyms_src *src)
{
    char *buf, p[4096];
    size_t len;
    int err = ksyms_bin_encode(ks, src, &buf, &len);

    snprintf(p, sizeof(p), "%s", path);
    if (!err) {
        err = write_atomic(p, buf, len);
        free(buf);
    }
    if (err)
        pr_debug("%s: not saved: %s", path, strerror(-err));
}

int ksyms_cache_load(const uint8_t *bid, size_t bid_len, uint64_t text, struct ksyms **out,
                     char *used, size_t used_len)
{
    char path[4096], bin[4096];
    bool have_bin = bin_path(bid, bid_len, bin, sizeof(bin)) == 0;

    *out = NULL;
    for (int which = 0; which < 2; which++) {
        struct ksyms *ks;
        struct ksyms_src src;
        struct stat st;
        bool from_bin = false;
        if (ksyms_cache_path(which, bid, bid_len, path, sizeof(path)) || access(path, R_OK) ||
            stat(path, &st))
            continue;
        src_of(&st, &src);
        if (have_bin) {
            int e = bin_load(bin, &src, &ks);
            from_bin = e == 0;
            if (e && e != -ENOENT)
                pr_debug("%s: not used (%s): parsing %s", bin,
                         e == -EINVAL   ? "corrupt or another format"
                         : e == -ESTALE ? "made from another copy"
                                        : strerror(-e), path);
        }
        if (!from_bin && ksyms_load(path, &ks))
            continue;
        if (from_bin)
            pr_debug("%s: %zu kernel text symbols (its binary form)", path, ksyms_count(ks));
        /* The same build-id after a reboot can sit elsewhere (KASLR): only a copy made for
         * this placement of the kernel describes the profile. */
        if (!text || ksyms_lookup(ks, "_text") == text) {
            snprintf(used, used_len, "%s", path);
            if (!from_bin && have_bin)
                bin_save(bin, ks, &src);
            *out = ks;
            return 0;
        }
        pr_debug("%s: kernel placed elsewhere (another boot): not used", path);
        ksyms_free(ks);
    }
    return -ENOENT;
}

/* Whether the file at path is our own regular file holding exactly data (any failure: no). */
static bool holds(const char *path, const char *data, size_t len)
{
    struct stat st;
    char buf[65536];
    size_t off = 0;
    bool same;
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

    if (fd < 0)
        return false;
    same = !fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
           !(st.st_mode & 022) && (uint64_t)st.st_size == len;
    while (same && off < len) {
        size_t want = len - off < sizeof(buf) ? len - off : sizeof(buf);
        ssize_t r = read(fd, buf, want);
        if (r < 0 && errno == EINTR)
            continue;
        same = r > 0 && !memcmp(buf, data + off, (size_t)r);
        off += r > 0 ? (size_t)r : 0;
    }
    close(fd);
    return same;
}

int ksyms_cache_save(const uint8_t *bid, size_t bid_len, const char *text, size_t text_len)
{
    char path[4096];
    int err = ksyms_cache_path(0, bid, bid_len, path, sizeof(path));

    if (err)
        return err;
    /* Every record saves the text; an unchanged copy keeps its identity (inode, mtime), so the
     * binary form made from it stays valid instead of being parsed and written again. */
    return holds(path, text, text_len) ? 0 : write_atomic(path, text, text_len);
}
