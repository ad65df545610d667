/* SPDX-License-Identifier: MIT */
/* Symbol sources under hostile paths, and perf's build-id cache (issue 9): a FIFO is refused
 * at once (open() would block until a writer came), copies are checked by build-id, and the
 * cache's directories are made without following symlinks. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "test.h"
#include "symbol/buildid_cache.h"
#include "symbol/dso.h"
#include "symbol/elf_file.h"
#include "symbol/ksyms.h"
#include "symbol/symfile.h"

static char dir[] = "/tmp/prospect-bidcache.XXXXXX";

static void rm_dir(void)
{
    char cmd[PATH_MAX];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    if (system(cmd))
        fprintf(stderr, "cannot remove %s\n", dir);
}

/* This test program's own path and build-id. */
static int self(char *path, uint8_t *bid, size_t *len)
{
    struct elf_file ef;
    ssize_t n = readlink("/proc/self/exe", path, PATH_MAX - 1);
    int err;

    if (n <= 0)
        return -1;
    path[n] = '\0';
    if (elf_file_open(path, &ef))
        return -1;
    err = elf_read_build_id(ef.elf, bid, BUILD_ID_MAX, len);
    elf_file_close(&ef);
    return err;
}

TEST(fifo_is_refused_without_blocking)
{
    char fifo[PATH_MAX];
    struct elf_file ef;
    struct ksyms *ks;
    char *buf;

    snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
    CHECK(mkfifo(fifo, 0600) == 0);
    CHECK(symfile_open(fifo, false, NULL) == -EINVAL);
    CHECK_STR(symfile_strerror(-EINVAL), "not a regular file");
    CHECK(symfile_read_all(fifo, true, &buf, NULL, 4096, NULL) == -EINVAL);
    CHECK(elf_file_open(fifo, &ef) == -ENOEXEC);
    CHECK(ksyms_load(fifo, &ks) == -EINVAL && !ks);
    CHECK(symfile_open(dir, false, NULL) == -EISDIR);
}

TEST(nofollow_refuses_a_symlink)
{
    char link[PATH_MAX];
    snprintf(link, sizeof(link), "%s/link", dir);
    CHECK(symlink("/proc/self/exe", link) == 0);
    CHECK(symfile_open(link, true, NULL) == -ELOOP);
    int fd = symfile_open(link, false, NULL);
    CHECK(fd >= 0);
    close(fd);
}

TEST(add_then_open_by_path_and_by_build_id)
{
    char exe[PATH_MAX], cache[256], copy[PATH_MAX + 512], *used;
    uint8_t bid[BUILD_ID_MAX], wrong[BUILD_ID_MAX];
    size_t len = 0;
    struct elf_file ef;
    struct stat st;

    if (self(exe, bid, &len))
        SKIP("this test binary has no build-id");
    snprintf(cache, sizeof(cache), "%s/cache", dir);
    setenv("PERF_BUILDID_DIR", cache, 1);
    CHECK(buildid_cache_open(exe, bid, len, &ef, &used) == -ENOENT);
    CHECK(buildid_cache_add(exe, bid, len) == 0);
    CHECK(buildid_cache_add(exe, bid, len) == 0);            /* already there */
    snprintf(copy, sizeof(copy), "%s%s/", cache, exe);
    for (size_t i = 0; i < len; i++)
        snprintf(copy + strlen(copy), 3, "%02x", bid[i]);
    strcat(copy, "/elf");
    CHECK(lstat(copy, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0777) == 0600);
    CHECK(buildid_cache_open(exe, bid, len, &ef, &used) == 0);
    CHECK_STR(used, copy);
    free(used);
    elf_file_close(&ef);
    /* By build-id alone, through the .build-id link. */
    CHECK(buildid_cache_open(NULL, bid, len, &ef, &used) == 0);
    CHECK(strstr(used, "/.build-id/"));
    free(used);
    elf_file_close(&ef);
    /* A file whose build-id is not the one asked for is not copied. */
    memcpy(wrong, bid, len);
    wrong[0] ^= 0xff;
    CHECK(buildid_cache_add(exe, wrong, len) == -ESTALE);
    CHECK(buildid_cache_open(exe, wrong, len, &ef, &used) == -ENOENT);
    unsetenv("PERF_BUILDID_DIR");
}

TEST(add_never_follows_a_planted_symlink)
{
    char exe[PATH_MAX], cache[256], victim[256], first[PATH_MAX + 512];
    uint8_t bid[BUILD_ID_MAX];
    size_t len = 0;
    struct stat st;

    if (self(exe, bid, &len))
        SKIP("this test binary has no build-id");
    snprintf(cache, sizeof(cache), "%s/cache2", dir);
    snprintf(victim, sizeof(victim), "%s/victim", dir);
    CHECK(mkdir(cache, 0700) == 0 && mkdir(victim, 0700) == 0);
    /* The first directory of the copy's path is a symlink to somewhere else. */
    snprintf(first, sizeof(first), "%s/%.*s", cache, (int)strcspn(exe + 1, "/"), exe + 1);
    CHECK(symlink(victim, first) == 0);
    setenv("PERF_BUILDID_DIR", cache, 1);
    CHECK(buildid_cache_add(exe, bid, len) < 0);
    unsetenv("PERF_BUILDID_DIR");
    CHECK(rmdir(victim) == 0);     /* still empty */
    CHECK(lstat(first, &st) == 0 && S_ISLNK(st.st_mode));
}

int main(void)
{
    if (!mkdtemp(dir))
        return 1;
    RUN(fifo_is_refused_without_blocking);
    RUN(nofollow_refuses_a_symlink);
    RUN(add_then_open_by_path_and_by_build_id);
    RUN(add_never_follows_a_planted_symlink);
    rm_dir();
    return 0;
}
