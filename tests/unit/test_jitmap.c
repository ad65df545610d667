/* SPDX-License-Identifier: MIT */
/* /tmp/perf-PID.map is planted-file territory (issue 9): a FIFO must not block, a symlink or
 * a map owned by another user is refused, and a NUL byte loses only its own line. */
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "test.h"
#include "symbol/dso.h"

static char map[64];   /* this test's own /tmp/perf-PID.map: no other process owns it */

/* Each test starts without a map (a failed one may have left its own). */
static void fresh(void)
{
    unlink(map);
}

static struct dso *load(struct dso_cache **c)
{
    *c = dso_cache_new();
    return *c ? dso_cache_get(*c, DSO_ANON, "//anon", NULL, 0, getpid()) : NULL;
}

TEST(nul_byte_loses_only_its_line)
{
    static const char text[] = "1000 10 bad\0name\n2000 10 after_the_nul\n";
    struct dso_cache *c;
    struct dso *d;
    struct symres r;
    FILE *f = fopen(map, "w");

    CHECK(f && fwrite(text, 1, sizeof(text) - 1, f) == sizeof(text) - 1 && fclose(f) == 0);
    CHECK((d = load(&c)));
    CHECK(dso_status(d) == DSO_OK_SYMTAB);
    CHECK(dso_resolve(d, 0x2004, &r) == 0);
    CHECK_STR(r.name, "after_the_nul");
    CHECK(dso_resolve(d, 0x1004, &r) == 0 && !r.name);
    dso_cache_free(c);
    unlink(map);
}

TEST(fifo_refused_without_blocking)
{
    struct dso_cache *c;
    struct dso *d;

    CHECK(mkfifo(map, 0600) == 0);
    CHECK((d = load(&c)));
    CHECK(dso_status(d) == DSO_REFUSED);
    dso_cache_free(c);
    unlink(map);
}

TEST(symlink_refused)
{
    char target[80];
    struct dso_cache *c;
    struct dso *d;
    FILE *f;

    snprintf(target, sizeof(target), "%s.target", map);
    unlink(target);
    f = fopen(target, "w");
    CHECK(f && fputs("2000 10 via_link\n", f) >= 0 && fclose(f) == 0);
    CHECK(symlink(target, map) == 0);
    CHECK((d = load(&c)));
    CHECK(dso_status(d) == DSO_REFUSED);
    dso_cache_free(c);
    unlink(map);
    unlink(target);
}

TEST(other_owner_refused)
{
    struct passwd *pw = getpwnam("nobody");
    struct dso_cache *c;
    struct dso *d;
    FILE *f;

    if (geteuid() != 0 || !pw || !pw->pw_uid)
        SKIP("needs root and a user 'nobody' to give the map to");
    f = fopen(map, "w");
    CHECK(f && fputs("2000 10 planted\n", f) >= 0 && fclose(f) == 0);
    CHECK(chown(map, pw->pw_uid, pw->pw_gid) == 0);
    CHECK((d = load(&c)));
    CHECK(dso_status(d) == DSO_REFUSED);
    dso_cache_free(c);
    unlink(map);
}

int main(void)
{
    snprintf(map, sizeof(map), "/tmp/perf-%d.map", (int)getpid());
    fresh();
    RUN(nul_byte_loses_only_its_line);
    fresh();
    RUN(fifo_refused_without_blocking);
    fresh();
    RUN(symlink_refused);
    fresh();
    RUN(other_owner_refused);
    unlink(map);
    return 0;
}
