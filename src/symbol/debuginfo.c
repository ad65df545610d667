/* SPDX-License-Identifier: MIT */
/* Separate debug info: by build-id under the debug root, else by .gnu_debuglink. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include "symbol/debuginfo.h"
#include "symbol/dso.h"

#define LOG_PREFIX "symbol"
#include "util/log.h"

/* CRC32 (zlib's polynomial is the one .gnu_debuglink uses) of a whole file. */
static int file_crc32(int fd, uint32_t *crc)
{
    unsigned char buf[65536];
    uLong c = crc32(0L, Z_NULL, 0);
    off_t off = 0;

    for (;;) {
        ssize_t r = pread(fd, buf, sizeof(buf), off);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        if (r == 0)
            break;
        c = crc32(c, buf, (uInt)r);
        off += r;
    }
    *crc = (uint32_t)c;
    return 0;
}

/* Opens candidate and checks that it describes the same build as the main file. */
static bool try_candidate(const char *cand, const uint8_t *bid, size_t bid_len, bool check_crc,
                          uint32_t crc, struct elf_file *out)
{
    uint8_t cbid[BUILD_ID_MAX];
    size_t clen = 0;
    uint32_t c;

    if (elf_file_open(cand, out))
        return false;
    if (bid_len && !elf_read_build_id(out->elf, cbid, sizeof(cbid), &clen)) {
        if (clen == bid_len && !memcmp(cbid, bid, bid_len))
            return true;
        pr_debug("%s: build-id differs, ignored", cand);
    } else if (check_crc && !file_crc32(out->fd, &c) && c == crc) {
        return true;
    } else {
        pr_debug("%s: not the debug file for this build, ignored", cand);
    }
    elf_file_close(out);
    return false;
}

/* The directory part of path ("" for "/x", "." for "x"). */
static int dir_of(char *dir, size_t cap, const char *path)
{
    const char *slash = strrchr(path, '/');
    size_t len = slash ? (size_t)(slash - path) : 1;

    if (len >= cap)
        return -ENAMETOOLONG;
    memcpy(dir, slash ? path : ".", len);
    dir[len] = '\0';
    return 0;
}

static bool same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return !stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int debuginfo_find(const char *root, const char *path, Elf *main, const uint8_t *build_id,
                   size_t build_id_len, struct elf_file *out, char **out_path)
{
    char cand[PATH_MAX], dir[PATH_MAX], link[256];
    uint32_t crc;
    int n;

    *out_path = NULL;
    if (build_id_len >= 2) {
        char hex[2 * BUILD_ID_MAX + 1];
        for (size_t i = 0; i < build_id_len; i++)
            snprintf(hex + 2 * i, 3, "%02x", build_id[i]);
        n = snprintf(cand, sizeof(cand), "%s/.build-id/%.2s/%s.debug", root, hex, hex + 2);
        if (n > 0 && (size_t)n < sizeof(cand) &&
            try_candidate(cand, build_id, build_id_len, false, 0, out))
            goto found;
    }
    if (elf_read_debuglink(main, link, sizeof(link), &crc))
        return -ENOENT;
    if (dir_of(dir, sizeof(dir), path))
        return -ENOENT;
    const char *subdirs[] = { "", "/.debug" };
    for (size_t i = 0; i < 2; i++) {
        n = snprintf(cand, sizeof(cand), "%s%s/%s", dir, subdirs[i], link);
        if (n <= 0 || (size_t)n >= sizeof(cand) || same_file(cand, path))
            continue;
        if (try_candidate(cand, build_id, build_id_len, true, crc, out))
            goto found;
    }
    n = snprintf(cand, sizeof(cand), "%s%s/%s", root, dir, link);
    if (n > 0 && (size_t)n < sizeof(cand) &&
        try_candidate(cand, build_id, build_id_len, true, crc, out))
        goto found;
    return -ENOENT;
found:
    *out_path = strdup(cand);
    if (!*out_path) {
        elf_file_close(out);
        return -ENOMEM;
    }
    pr_debug("%s: separate debug info %s", path, cand);
    return 0;
}
