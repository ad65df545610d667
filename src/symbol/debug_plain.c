/* SPDX-License-Identifier: MIT */
#define LOG_PREFIX "symbol"
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "symbol/debug_plain.h"
#include "symbol/dso.h"
#include "symbol/elf_file.h"
#include "symbol/symfile.h"
#include "util/file.h"
#include "util/log.h"

#define MAX_PLAIN_BYTES (256ull << 20) /* compressed bytes above this are not copied (~1 GiB) */

int debug_plain_dir(char *buf, size_t len)
{
    const char *home = getenv("HOME"), *xdg = getenv("XDG_CACHE_HOME");
    int n;

    if (xdg && xdg[0] == '/')
        n = snprintf(buf, len, "%s/prospect/debug", xdg);
    else if (home && home[0] == '/')
        n = snprintf(buf, len, "%s/.cache/prospect/debug", home);
    else
        return -ENOENT;
    return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* The sum of the on-disk sizes of e's compressed sections; 0 when there is none. From the
 * section headers only: their compression headers would read (and cache) every section. */
static uint64_t compressed_total(Elf *e)
{
    Elf_Scn *scn = NULL;
    uint64_t total = 0;

    while ((scn = elf_nextscn(e, scn))) {
        GElf_Shdr sh;
        if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_COMPRESSED) &&
            sh.sh_type != SHT_NOBITS)
            total += sh.sh_size;
    }
    return total;
}

static bool has_build_id(const char *path, const uint8_t *bid, size_t len)
{
    struct elf_file ef;
    uint8_t got[BUILD_ID_MAX];
    size_t glen = 0;
    bool same;

    if (elf_file_open(path, &ef))
        return false;
    same = !elf_read_build_id(ef.elf, got, sizeof(got), &glen) && glen == len &&
           !memcmp(got, bid, len);
    elf_file_close(&ef);
    return same;
}

/* Writes e with every compressed section inflated (sections in the same order, so links and
 * indexes hold; no program headers: a debug file's describe no loadable bytes) to fd. */
static int write_plain(Elf *e, int fd)
{
    Elf *out = elf_begin(fd, ELF_C_WRITE, NULL);
    Elf_Scn *scn = NULL;
    GElf_Ehdr eh;
    int err = -ENOEXEC;

    if (!out)
        return -ENOMEM;
    if (!gelf_getehdr(e, &eh) || !gelf_newehdr(out, gelf_getclass(e)))
        goto out;
    eh.e_phoff = 0;
    eh.e_phnum = 0;
    if (!gelf_update_ehdr(out, &eh))
        goto out;
    while ((scn = elf_nextscn(e, scn))) {
        Elf_Scn *os = elf_newscn(out);
        Elf_Data *d, *od;
        GElf_Shdr sh;
        if (!os || !gelf_getshdr(scn, &sh))
            goto out;
        if ((sh.sh_flags & SHF_COMPRESSED) &&
            (elf_compress(scn, 0, 0) < 0 || !gelf_getshdr(scn, &sh)))
            goto out;
        if (!(od = elf_newdata(os)))
            goto out;
        if (sh.sh_type != SHT_NOBITS && (d = elf_getdata(scn, NULL))) {
            od->d_buf = d->d_buf;
            od->d_type = d->d_type;
            od->d_size = d->d_size;
            od->d_align = d->d_align;
            od->d_version = d->d_version;
        } else {
            od->d_type = ELF_T_BYTE;
            od->d_size = sh.sh_type == SHT_NOBITS ? sh.sh_size : 0;
            od->d_align = sh.sh_addralign ? sh.sh_addralign : 1;
            od->d_version = EV_CURRENT;
        }
        if (!gelf_update_shdr(os, &sh))
            goto out;
    }
    err = elf_update(out, ELF_C_WRITE) < 0 ? -EIO : 0;
out:
    elf_end(out);
    return err;
}

/* Makes the copy at dst (a temporary file renamed into place). 0 or -errno. */
static int make_plain(Elf *e, char *dst)
{
    char tmp[4300];
    int fd, err, n;

    if ((err = file_mkdir_parents(dst)))
        return err;
    n = snprintf(tmp, sizeof(tmp), "%s.%d.tmp", dst, (int)getpid());
    if (n < 0 || (size_t)n >= sizeof(tmp))
        return -ENAMETOOLONG;
    fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return -errno;
    err = write_plain(e, fd);
    if (close(fd) && !err)
        err = -EIO;
    if (!err && rename(tmp, dst))
        err = -errno;
    if (err)
        unlink(tmp);
    return err;
}

char *debug_plain_path(const char *path)
{
    const char *off = getenv("PROSPECT_DEBUG_CACHE");
    struct elf_file ef;
    uint8_t bid[BUILD_ID_MAX];
    size_t blen = 0;
    char dir[4096], dst[4200], *ret = NULL;
    uint64_t total;
    int n, err;

    if ((off && !strcmp(off, "0")) || debug_plain_dir(dir, sizeof(dir)))
        return NULL;
    if (elf_file_open(path, &ef))
        return NULL;
    total = compressed_total(ef.elf);
    if (!total || total > MAX_PLAIN_BYTES ||
        elf_read_build_id(ef.elf, bid, sizeof(bid), &blen) || blen < 2)
        goto out;
    n = snprintf(dst, sizeof(dst), "%s/", dir);
    for (size_t i = 0; i < blen && n > 0 && (size_t)n + 3 < sizeof(dst); i++)
        n += snprintf(dst + n, sizeof(dst) - (size_t)n, "%02x", bid[i]);
    if (n <= 0 || (size_t)n + 7 > sizeof(dst))
        goto out;
    snprintf(dst + n, sizeof(dst) - (size_t)n, ".debug");
    if (!has_build_id(dst, bid, blen)) {
        /* Inflating for a copy that cannot be written would double libdw's own work. */
        if ((err = file_mkdir_parents(dst)) || access(dir, W_OK)) {
            pr_debug("%s: cache %s not writable", path, dir);
            goto out;
        }
        err = make_plain(ef.elf, dst);
        if (err) {
            pr_debug("%s: no decompressed copy at %s: %s", path, dst, strerror(-err));
            goto out;
        }
        pr_debug("%s: decompressed copy made at %s", path, dst);
        if (!has_build_id(dst, bid, blen))
            goto out;
    }
    ret = strdup(dst);
out:
    elf_file_close(&ef);
    return ret;
}
