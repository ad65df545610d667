/* SPDX-License-Identifier: MIT */
/* The kallsyms cache: saved copies are found by kernel build-id and used only for the kernel
 * placement (_text) a profile was recorded with. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "test.h"
#include "symbol/ksyms.h"
#include "symbol/ksyms_cache.h"

static const uint8_t bid[20] = { 0xe4, 0xf1, 0x8d, 0x9d, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
                                 12, 13, 14, 15, 16 };
static const char text[] = "ffffffff81000000 T _text\n"
                           "ffffffff81000100 T do_work\n"
                           "ffffffff81002000 T _etext\n";

TEST(save_then_load_for_the_same_placement)
{
    char dir[] = "/tmp/prospect-kcache.XXXXXX", used[4096], path[4096];
    struct ksyms *ks;
    struct ksym_res r;
    CHECK(mkdtemp(dir));
    setenv("XDG_CACHE_HOME", dir, 1);
    CHECK(ksyms_cache_path(0, bid, sizeof(bid), path, sizeof(path)) == 0);
    CHECK(strstr(path, "/prospect/kallsyms/e4f18d9d01020304"));
    CHECK(ksyms_cache_save(bid, sizeof(bid), text, strlen(text)) == 0);
    CHECK(ksyms_cache_load(bid, sizeof(bid), 0xffffffff81000000ULL, &ks, used, sizeof(used)) == 0);
    CHECK_STR(used, path);
    CHECK(ksyms_resolve(ks, 0xffffffff81000180ULL, &r) == 0);
    CHECK_STR(r.name, "do_work");
    ksyms_free(ks);
    /* Another boot put the kernel elsewhere (KASLR): the copy does not describe it. */
    CHECK(ksyms_cache_load(bid, sizeof(bid), 0xffffffffa0000000ULL, &ks, used, sizeof(used)) ==
          -ENOENT);
    /* Another kernel: nothing cached. */
    {
        uint8_t other[20] = { 1 };
        CHECK(ksyms_cache_load(other, sizeof(other), 0, &ks, used, sizeof(used)) == -ENOENT);
    }
    {
        char cmd[200];
        snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
        CHECK(system(cmd) == 0);
    }
    unsetenv("XDG_CACHE_HOME");
}

TEST(perf_build_id_cache_path)
{
    char path[4096];
    setenv("HOME", "/home/u", 1);
    unsetenv("PERF_BUILDID_DIR");
    CHECK(ksyms_cache_path(1, bid, 4, path, sizeof(path)) == 0);
    CHECK_STR(path, "/home/u/.debug/[kernel.kallsyms]/e4f18d9d/kallsyms");
    /* perf's variable for the cache directory wins over ~/.debug, as in perf. */
    setenv("PERF_BUILDID_DIR", "/srv/bid", 1);
    CHECK(ksyms_cache_path(1, bid, 4, path, sizeof(path)) == 0);
    CHECK_STR(path, "/srv/bid/[kernel.kallsyms]/e4f18d9d/kallsyms");
    unsetenv("PERF_BUILDID_DIR");
    CHECK(ksyms_cache_path(1, bid, 0, path, sizeof(path)) == -EINVAL);
}


/* A text with aliases, a data symbol, a bad line and modules, for the binary form. */
static const char mtext[] = "ffffffff81000000 T _text\n"
                            "ffffffff81000100 t do_work\n"
                            "ffffffff81000100 T alias_work\n"
                            "ffffffff81000200 D some_data\n"
                            "not a kallsyms line\n"
                            "ffffffff81002000 T _etext\n"
                            "ffffffffc0000000 t ext4_fill\t[ext4]\n"
                            "ffffffffc0000100 t ext4_sync\t[ext4]\n"
                            "ffffffffc0001000 T xfs_mount\t[xfs]\n";
static const char mtext2[] = "ffffffff81000000 T _text\n"
                             "ffffffff81000100 t new_work\n"
                             "ffffffffc0000000 t btrfs_x\t[btrfs]\n";

static bool same_str(const char *a, const char *b)
{
    return a == b || (a && b && !strcmp(a, b));
}

/* Whether ks answers every lookup as the table parsed from `t` does. */
static bool same_as(const struct ksyms *ks, const char *t)
{
    struct ksyms *ref;
    char *copy = malloc(strlen(t) + 1);
    bool ok;
    strcpy(copy, t);
    if (!ks || ksyms_parse(copy, strlen(t), &ref))
        return false;
    ok = ksyms_count(ks) == ksyms_count(ref) && ksyms_bad_lines(ks) == ksyms_bad_lines(ref);
    for (const char *l = t; ok && *l; l = strchr(l, '\n') + 1) {
        uint64_t a = strtoull(l, NULL, 16);
        uint64_t probes[] = { a - 1, a, a + 1, a + 0x7f };
        for (size_t i = 0; ok && i < sizeof(probes) / sizeof(probes[0]); i++) {
            struct ksym_res x, y;
            ksyms_resolve(ks, probes[i], &x);
            ksyms_resolve(ref, probes[i], &y);
            ok = same_str(x.name, y.name) && same_str(x.module, y.module) &&
                 x.start == y.start && x.end == y.end;
        }
    }
    ok = ok && ksyms_lookup(ks, "_etext") == ksyms_lookup(ref, "_etext");
    ksyms_free(ref);
    return ok;
}

#define CHECK_ANY(e) do { if (!(e)) perror(#e); } while (0)
static char kdir[] = "/tmp/prospect-kbin.XXXXXX";
static char tpath[4096], bpath[4200];

static void setup(const char *t)
{
    strcpy(kdir, "/tmp/prospect-kbin.XXXXXX");
    CHECK_ANY(mkdtemp(kdir));
    setenv("XDG_CACHE_HOME", kdir, 1);
    ksyms_cache_path(0, bid, sizeof(bid), tpath, sizeof(tpath));
    snprintf(bpath, sizeof(bpath), "%s.bin", tpath);
    ksyms_cache_save(bid, sizeof(bid), t, strlen(t));
}

static void teardown(void)
{
    char cmd[200];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", kdir);
    if (system(cmd))
        perror("rm");
    strcpy(kdir, "/tmp/prospect-kbin.XXXXXX");
    unsetenv("XDG_CACHE_HOME");
}

/* Loads through the cache; NULL on failure. */
static struct ksyms *load(void)
{
    struct ksyms *ks;
    char used[4096];
    if (ksyms_cache_load(bid, sizeof(bid), 0, &ks, used, sizeof(used)) || strcmp(used, tpath))
        return NULL;
    return ks;
}

static bool write_file(const char *path, const void *p, size_t n)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    bool ok = fd >= 0 && write(fd, p, n) == (ssize_t)n;
    if (fd >= 0)
        close(fd);
    return ok;
}

static char *read_all(const char *path, size_t *n)
{
    struct stat st;
    char *p;
    int fd = open(path, O_RDONLY);
    if (fd < 0 || fstat(fd, &st) || !(p = malloc((size_t)st.st_size + 1)) ||
        read(fd, p, (size_t)st.st_size) != st.st_size) {
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    close(fd);
    p[st.st_size] = '\0';
    *n = (size_t)st.st_size;
    return p;
}

/* Rewrites the text copy in place with other bytes of the same length, keeping its mtime: a
 * load that still answers as the original text read the binary form. */
static bool scribble_text_keep_identity(void)
{
    struct stat st;
    size_t n;
    char *p = read_all(tpath, &n);
    bool ok;
    if (!p || stat(tpath, &st))
        return false;
    for (char *q = strstr(p, "do_work"); q; q = NULL)
        memcpy(q, "do_XXXX", 7);
    {
        int fd = open(tpath, O_WRONLY);
        struct timespec ts[2] = { st.st_atim, st.st_mtim };
        ok = fd >= 0 && write(fd, p, n) == (ssize_t)n;
        if (fd >= 0)
            close(fd);
        ok = ok && !utimensat(AT_FDCWD, tpath, ts, 0);
    }
    free(p);
    return ok;
}

TEST(binary_form_round_trip)
{
    struct ksyms *ks;
    struct stat st;
    setup(mtext);
    ks = load();                       /* parses the text, writes the binary form */
    CHECK(same_as(ks, mtext));
    ksyms_free(ks);
    CHECK(lstat(bpath, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0777) == 0600);
    CHECK(scribble_text_keep_identity());
    ks = load();                       /* the binary form: the original symbols */
    CHECK(same_as(ks, mtext));
    ksyms_free(ks);
    teardown();
}

/* Each record saves the same kallsyms again: the copy keeps its identity, so the binary form
 * made from it is still the one loaded (it was re-parsed and rewritten after every record). */
TEST(same_text_saved_again_keeps_binary_form)
{
    struct ksyms *ks;
    struct stat a, b;
    setup(mtext);
    ksyms_free(load());
    CHECK(stat(tpath, &a) == 0);
    CHECK(ksyms_cache_save(bid, sizeof(bid), mtext, strlen(mtext)) == 0);
    CHECK(stat(tpath, &b) == 0);
    CHECK(a.st_ino == b.st_ino && a.st_mtim.tv_sec == b.st_mtim.tv_sec &&
          a.st_mtim.tv_nsec == b.st_mtim.tv_nsec);
    CHECK(scribble_text_keep_identity());
    ks = load();                       /* the binary form still: the original symbols */
    CHECK(same_as(ks, mtext));
    ksyms_free(ks);
    /* Other text of the same length is written. */
    {
        char *t = strdup(mtext), *q;
        CHECK(t && (q = strstr(t, "ext4_sync")));
        memcpy(q, "ext4_sink", 9);
        CHECK(ksyms_cache_save(bid, sizeof(bid), t, strlen(t)) == 0);
        ks = load();
        CHECK(ks && !same_as(ks, mtext));
        ksyms_free(ks);
        free(t);
    }
    teardown();
}

TEST(stale_binary_form_ignored)
{
    struct ksyms *ks;
    struct stat st;
    struct timespec ts[2];
    setup(mtext);
    ksyms_free(load());
    /* A new copy (another inode, size, mtime): the old binary form does not describe it. */
    CHECK(ksyms_cache_save(bid, sizeof(bid), mtext2, strlen(mtext2)) == 0);
    ks = load();
    CHECK(same_as(ks, mtext2));
    ksyms_free(ks);
    /* Edited in place, same size, only the mtime moved: still stale. */
    {
        size_t n;
        char *p = read_all(tpath, &n), *q;
        CHECK(p && (q = strstr(p, "new_work")));
        memcpy(q, "old_work", 8);
        CHECK(stat(tpath, &st) == 0);
        CHECK(write_file(tpath, p, n));
        ts[0] = st.st_atim;
        ts[1] = st.st_mtim;
        ts[1].tv_sec += 10;
        CHECK(utimensat(AT_FDCWD, tpath, ts, 0) == 0);
        ks = load();
        struct ksym_res r;
        CHECK(ks && ksyms_resolve(ks, 0xffffffff81000100ULL, &r) == 0);
        CHECK_STR(r.name, "old_work");
        CHECK(same_as(ks, p));
        ksyms_free(ks);
        free(p);
    }
    teardown();
}

/* Every truncation and every flipped byte of a binary form: the text is parsed instead, with
 * the same answers, and no crash (run under ASan/UBSan). */
TEST(corrupt_binary_form_falls_back)
{
    size_t n;
    char *good;
    setup(mtext);
    ksyms_free(load());
    CHECK((good = read_all(bpath, &n)) && n > 96);
    for (size_t off = 0; off < n; off++) {
        struct ksyms *ks;
        CHECK(write_file(bpath, good, off));
        ks = load();
        if (!same_as(ks, mtext)) {
            printf("FAIL corrupt_binary_form_falls_back: truncated at %zu\n", off);
            ksyms_free(ks);
            CHECK(0);
        }
        ksyms_free(ks);
    }
    for (size_t off = 0; off < n; off++) {
        for (int bit = 0; bit < 8; bit += 7) {
            struct ksyms *ks;
            good[off] ^= (char)(1 << bit);
            CHECK(write_file(bpath, good, n));
            good[off] ^= (char)(1 << bit);
            ks = load();
            if (!same_as(ks, mtext)) {
                printf("FAIL corrupt_binary_form_falls_back: bit %d of byte %zu\n", bit, off);
                ksyms_free(ks);
                CHECK(0);
            }
            ksyms_free(ks);
        }
    }
    /* The fallback wrote a good binary form again. */
    {
        size_t m;
        char *again = read_all(bpath, &m);
        CHECK(again && m == n && !memcmp(again, good, n));
        free(again);
    }
    free(good);
    teardown();
}

/* A symlink in place of the binary form is neither read nor written through. */
TEST(binary_form_symlink_not_followed)
{
    char target[4300];
    size_t n;
    char *p;
    struct ksyms *ks;
    struct stat st;
    setup(mtext);
    snprintf(target, sizeof(target), "%s/target", kdir);
    CHECK(write_file(target, "keep", 4));
    CHECK(symlink(target, bpath) == 0);
    ks = load();
    CHECK(same_as(ks, mtext));
    ksyms_free(ks);
    CHECK((p = read_all(target, &n)) && n == 4 && !memcmp(p, "keep", 4));
    free(p);
    CHECK(lstat(bpath, &st) == 0 && S_ISREG(st.st_mode));   /* replaced by a real file */
    teardown();
}

int main(void)
{
    RUN(save_then_load_for_the_same_placement);
    RUN(perf_build_id_cache_path);
    RUN(binary_form_round_trip);
    RUN(same_text_saved_again_keeps_binary_form);
    RUN(stale_binary_form_ignored);
    RUN(corrupt_binary_form_falls_back);
    RUN(binary_form_symlink_not_followed);
    return 0;
}
