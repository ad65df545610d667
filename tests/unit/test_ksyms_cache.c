/* The kallsyms cache: saved copies are found by kernel build-id and used only for the kernel
 * placement (_text) a profile was recorded with. */
#include <errno.h>
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

int main(void)
{
    RUN(save_then_load_for_the_same_placement);
    RUN(perf_build_id_cache_path);
    return 0;
}
