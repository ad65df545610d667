/* SPDX-License-Identifier: MIT */
/* Stripped libraries (brackets), separate debug info, build-id checks and corrupt files. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "test.h"
#include "symbol/dso.h"
#include "util/strutil.h"

static uint64_t nm_addr(const char *file, const char *name)
{
    char cmd[1024], line[512];
    uint64_t addr = 0;
    FILE *f;

    snprintf(cmd, sizeof(cmd), "nm '%s/%s'", FIXTURE_DIR, file);
    f = popen(cmd, "r");
    if (!f)
        return 0;
    while (fgets(line, sizeof(line), f)) {
        unsigned long long a;
        char type, sym[400];
        if (sscanf(line, "%llx %c %399s", &a, &type, sym) == 3 && !strcmp(sym, name))
            addr = a;
    }
    pclose(f);
    return addr;
}

static struct dso *fixture_bid(struct dso_cache *c, const char *file, const uint8_t *bid,
                               size_t len)
{
    char path[1024];
    snprintf(path, sizeof(path), "%s/%s", FIXTURE_DIR, file);
    return dso_cache_get(c, DSO_FILE, path, bid, len, 0);
}

static struct dso *fixture(struct dso_cache *c, const char *file)
{
    return fixture_bid(c, file, NULL, 0);
}

static const char *tmpdir(void)
{
    const char *t = getenv("TEST_TMP");
    return t ? t : "/tmp";
}

TEST(stripped_library_brackets)
{
    struct dso_cache *c = dso_cache_new();
    struct dso *d = fixture(c, "libsym-stripped.so");
    struct symres r, r2;
    uint64_t head = nm_addr("libsym.so", "lib_s_head"), mid = nm_addr("libsym.so", "lib_s_mid");
    uint64_t tail = nm_addr("libsym.so", "lib_s_tail"), last = nm_addr("libsym.so", "lib_s_last");
    uint64_t first = nm_addr("libsym.so", "lib_first");

    CHECK(head && mid && tail && last && first);
    CHECK(dso_status(d) == DSO_OK_DYNSYM);
    /* exported functions keep their names */
    CHECK(dso_resolve(d, first + 2, &r) == 0);
    CHECK_STR(r.name, "lib_first");
    CHECK(!r.bracket);
    CHECK_EQ_U64(r.start, first);
    /* static functions between exported ones: the bracket of their neighbours */
    CHECK(dso_resolve(d, mid + 1, &r) == 0);
    CHECK_STR(r.name, "lib_first->lib_second");
    CHECK(r.bracket);
    CHECK_EQ_U64(r.start, first);
    CHECK(dso_resolve(d, mid + 5, &r2) == 0);
    CHECK(r2.name == r.name);   /* one interned string per gap */
    CHECK(dso_resolve(d, tail, &r) == 0);
    CHECK_STR(r.name, "lib_third->lib_fourth");
    /* before the first and after the last dynamic symbol: the edge forms; before the first,
     * crt's functions and lib_s_head, split at their FDE starts (lib_s_head's is its entry,
     * nm's address of it in the unstripped build) */
    char want[64];
    snprintf(want, sizeof(want), "(start)->lib_first+%#llx", (unsigned long long)head);
    CHECK(dso_resolve(d, head, &r) == 0);
    CHECK_STR(r.name, want);
    CHECK(r.bracket);
    CHECK_EQ_U64(r.start, head);
    CHECK_EQ_U64(r.gap_start, head);
    CHECK(r.gap_end > head && r.gap_end <= first);
    CHECK(dso_resolve(d, last + 3, &r) == 0);
    CHECK_STR(r.name, "lib_fourth->(end)");
    CHECK(dso_debug_path(d) == NULL);
    dso_cache_free(c);
}

TEST(unstripped_library_names_statics)
{
    struct dso_cache *c = dso_cache_new();
    struct dso *d = fixture(c, "libsym.so");
    struct symres r;

    CHECK(dso_status(d) == DSO_OK_SYMTAB);
    CHECK(dso_resolve(d, nm_addr("libsym.so", "lib_s_mid") + 1, &r) == 0);
    CHECK_STR(r.name, "lib_s_mid");
    CHECK(!r.bracket);
    dso_cache_free(c);
}

TEST(debuglink_gives_full_symbols)
{
    struct dso_cache *c = dso_cache_new();
    struct dso *d = fixture(c, "libsym-dbglink.so");
    struct symres r;
    const char *dp;

    CHECK(dso_status(d) == DSO_OK_SYMTAB);
    CHECK(dso_resolve(d, nm_addr("libsym.so", "lib_s_tail") + 1, &r) == 0);
    CHECK_STR(r.name, "lib_s_tail");
    dp = dso_debug_path(d);
    CHECK(dp && str_ends(dp, "/libsym-dbglink.debug"));
    dso_cache_free(c);
}


static int bid_hex(struct dso *d, char *hex, uint8_t *bid, size_t *len)
{
    if (dso_build_id(d, bid, len) || *len < 2)
        return -1;
    for (size_t i = 0; i < *len; i++)
        snprintf(hex + 2 * i, 3, "%02x", bid[i]);
    return 0;
}

TEST(build_id_path_gives_full_symbols)
{
    struct dso_cache *c = dso_cache_new();
    struct dso *d = fixture(c, "libsym-bid.so");
    char hex[41], root[512], sub[560], dir[600], link[700], target[1024];
    uint8_t bid[20];
    size_t len;
    struct symres r;

    /* without the debug root: only dynamic symbols */
    CHECK(dso_status(d) == DSO_OK_DYNSYM);
    CHECK(bid_hex(d, hex, bid, &len) == 0);
    dso_cache_free(c);

    snprintf(root, sizeof(root), "%s/dbgroot", tmpdir());
    snprintf(sub, sizeof(sub), "%s/.build-id", root);
    snprintf(dir, sizeof(dir), "%s/%.2s", sub, hex);
    snprintf(link, sizeof(link), "%s/%s.debug", dir, hex + 2);
    snprintf(target, sizeof(target), "%s/libsym-bid.debug-by-id", FIXTURE_DIR);
    mkdir(root, 0755);
    mkdir(sub, 0755);
    CHECK(mkdir(dir, 0755) == 0 || errno == EEXIST);
    unlink(link);
    CHECK(symlink(target, link) == 0);

    c = dso_cache_new();
    CHECK(dso_cache_set_debug_root(c, root) == 0);
    d = fixture(c, "libsym-bid.so");
    CHECK(dso_status(d) == DSO_OK_SYMTAB);
    CHECK(dso_resolve(d, nm_addr("libsym.so", "lib_s_head") + 1, &r) == 0);
    CHECK_STR(r.name, "lib_s_head");
    CHECK_STR(dso_debug_path(d), link);
    dso_cache_free(c);
}

TEST(build_id_mismatch_gives_no_symbols)
{
    struct dso_cache *c = dso_cache_new();
    uint8_t bid[20], wrong[20], padded[20] = {0};
    size_t len;
    char hex[41];
    struct dso *d;
    struct symres r;

    CHECK(bid_hex(fixture(c, "libsym.so"), hex, bid, &len) == 0);
    memcpy(wrong, bid, len);
    wrong[0] ^= 0xff;
    d = fixture_bid(c, "libsym.so", wrong, len);
    CHECK(dso_status(d) == DSO_BUILD_ID_MISMATCH);
    CHECK(dso_resolve(d, nm_addr("libsym.so", "lib_first"), &r) == 0);
    CHECK(r.name == NULL);
    d = fixture_bid(c, "libsym.so", bid, len);
    CHECK(dso_status(d) == DSO_OK_SYMTAB);
    CHECK_STR(dso_status_str(DSO_BUILD_ID_MISMATCH),
              "changed on disk since it was mapped (build-id or inode differs)");
    /* a shorter build-id reported zero-padded still matches */
    if (len < 20) {
        memcpy(padded, bid, len);
        d = fixture_bid(c, "libsym.so", padded, 20);
        CHECK(dso_status(d) == DSO_OK_SYMTAB);
    }
    dso_cache_free(c);
}

static int copy_file(const char *from, const char *to)
{
    char buf[65536];
    size_t n;
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    int err = in && out ? 0 : -1;
    while (!err && (n = fread(buf, 1, sizeof(buf), in)) > 0)
        if (fwrite(buf, 1, n, out) != n)
            err = -1;
    if (in)
        fclose(in);
    if (out && fclose(out))
        err = -1;
    return err;
}

TEST(deleted_file_trusted_only_by_build_id)
{
    struct dso_cache *c = dso_cache_new();
    char src[1024], copy[600], mapped[700], hex[41];
    uint8_t bid[20], wrong[20];
    size_t len;
    struct dso *d;

    snprintf(src, sizeof(src), "%s/libsym.so", FIXTURE_DIR);
    snprintf(copy, sizeof(copy), "%s/libdel.so", tmpdir());
    snprintf(mapped, sizeof(mapped), "%s (deleted)", copy);
    CHECK(copy_file(src, copy) == 0);
    CHECK(bid_hex(fixture(c, "libsym.so"), hex, bid, &len) == 0);
    d = dso_cache_get(c, DSO_FILE, mapped, bid, len, 0);
    CHECK(dso_status(d) == DSO_OK_SYMTAB);
    CHECK_STR(dso_path(d), mapped);
    memcpy(wrong, bid, len);
    wrong[3] ^= 1;
    CHECK(dso_status(dso_cache_get(c, DSO_FILE, mapped, wrong, len, 0)) == DSO_MISSING);
    CHECK(dso_status(dso_cache_get(c, DSO_FILE, mapped, NULL, 0, 0)) == DSO_MISSING);
    unlink(copy);
    dso_cache_free(c);
}

TEST(corrupt_files_are_bad_elf)
{
    struct dso_cache *c = dso_cache_new();
    struct symres r;
    struct symbol_match m[2];
    const char *bad[] = { "truncated.elf", "badshoff.elf", "notelf.so" };

    for (size_t i = 0; i < 3; i++) {
        struct dso *d = fixture(c, bad[i]);
        uint64_t v;
        CHECK(dso_status(d) == DSO_BAD_ELF);
        CHECK(dso_resolve(d, 0x1100, &r) == 0 && r.name == NULL);
        CHECK(dso_find_symbols(d, "lib_first", m, 2) == 0);
        CHECK(dso_map_to_vaddr(d, 0x1000, 0, 0x1100, &v) == -ENOENT);
    }
    CHECK(dso_status(fixture(c, "no-such-file.so")) == DSO_MISSING);
    CHECK(dso_status(dso_cache_get(c, DSO_FILE, FIXTURE_DIR, NULL, 0, 0)) == DSO_MISSING);
    dso_cache_free(c);
}

/* Random corruption of a real library: any status is acceptable, a crash or a sanitizer report
 * is not. Mutations favour the ELF header and the section headers at the end of the file. */
TEST(mutated_libraries_never_crash)
{
    char src[1024], path[600];
    FILE *f;
    unsigned char *orig, *buf;
    long size;
    unsigned seed = 12345;
    int statuses[8] = {0};

    snprintf(src, sizeof(src), "%s/libsym.so", FIXTURE_DIR);
    snprintf(path, sizeof(path), "%s/mutant.so", tmpdir());
    f = fopen(src, "rb");
    CHECK(f);
    fseek(f, 0, SEEK_END);
    size = ftell(f);
    rewind(f);
    orig = malloc((size_t)size);
    buf = malloc((size_t)size);
    CHECK(orig && buf && fread(orig, 1, (size_t)size, f) == (size_t)size);
    fclose(f);
    for (int iter = 0; iter < 400; iter++) {
        long len = size;
        struct dso_cache *c = dso_cache_new();
        struct dso *d;
        struct symres r[64];
        uint64_t va[64];
        struct symbol_match m[4];

        memcpy(buf, orig, (size_t)size);
        for (int k = 0; k < 1 + iter % 8; k++) {
            long off;
            seed = seed * 1103515245u + 12345u;
            switch ((seed >> 16) % 3) {
            case 0: off = (long)((seed >> 8) % 64); break;
            case 1: off = size - 1 - (long)((seed >> 8) % 2048); break;
            default: off = (long)((seed >> 4) % (unsigned long)size); break;
            }
            seed = seed * 1103515245u + 12345u;
            buf[off] = (unsigned char)(seed >> 16);
        }
        if (iter % 10 == 9)
            len = (long)((seed >> 3) % (unsigned long)size);
        f = fopen(path, "wb");
        CHECK(f && fwrite(buf, 1, (size_t)len, f) == (size_t)len);
        fclose(f);
        d = dso_cache_get(c, DSO_FILE, path, NULL, 0, 0);
        statuses[dso_status(d) & 7]++;
        for (int i = 0; i < 64; i++)
            va[i] = 0x1000 + (uint64_t)i * 8;
        CHECK(dso_resolve_sorted(d, va, 64, r) == 0);
        dso_find_symbols(d, "lib_first", m, 4);
        dso_debug_path(d);
        dso_cache_free(c);
    }
    unlink(path);
    free(orig);
    free(buf);
    /* the mutations must have exercised both outcomes */
    CHECK(statuses[DSO_BAD_ELF] > 0);
    CHECK(statuses[DSO_OK_SYMTAB] > 0);
}

TEST(inode_identity_detects_a_replaced_file)
{
    struct dso_cache *c = dso_cache_new();
    struct stat st;
    struct dso *same, *other;
    CHECK(c && stat(FIXTURE_DIR "/libsym-stripped.so", &st) == 0);
    same = dso_cache_get_mapped(c, FIXTURE_DIR "/libsym-stripped.so", major(st.st_dev),
                                minor(st.st_dev), st.st_ino);
    other = dso_cache_get_mapped(c, FIXTURE_DIR "/libsym-stripped.so", major(st.st_dev),
                                 minor(st.st_dev), st.st_ino + 1);
    CHECK(same && other && same != other);          /* two inodes, two DSOs */
    CHECK(dso_status(same) == DSO_OK_DYNSYM);
    CHECK(dso_status(other) == DSO_BUILD_ID_MISMATCH);
    /* Another device number (as overlay filesystems report) cannot be compared: trusted. */
    other = dso_cache_get_mapped(c, FIXTURE_DIR "/libsym-stripped.so", major(st.st_dev) + 1, 0, 1);
    CHECK(dso_status(other) == DSO_OK_DYNSYM);
    dso_cache_free(c);
}

int main(void)
{
    RUN(inode_identity_detects_a_replaced_file);
    setvbuf(stdout, NULL, _IOLBF, 0);   /* results survive a sanitizer exit */
    RUN(stripped_library_brackets);
    RUN(unstripped_library_names_statics);
    RUN(debuglink_gives_full_symbols);
    RUN(build_id_path_gives_full_symbols);
    RUN(build_id_mismatch_gives_no_symbols);
    RUN(deleted_file_trusted_only_by_build_id);
    RUN(corrupt_files_are_bad_elf);
    RUN(mutated_libraries_never_crash);
    return 0;
}
