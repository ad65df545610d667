/* SPDX-License-Identifier: MIT */
/* Source text for annotate (annotate/source.c): line splitting, untrusted bytes, lookup order,
 * and the per-line view (annotate/lineview.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "annotate/lineview.h"
#include "annotate/render.h"
#include "annotate/source.h"
#include "test.h"

static char dir[] = "/tmp/prospect-test-src-XXXXXX";

static void put(const char *rel, const char *bytes, size_t n)
{
    char p[512];
    FILE *f;
    snprintf(p, sizeof(p), "%s/%s", dir, rel);
    f = fopen(p, "wb");
    fwrite(bytes, 1, n, f);
    fclose(f);
}

static const char *path_of(const char *rel)
{
    static char p[4][512];
    static int k;
    k = (k + 1) % 4;
    snprintf(p[k], sizeof(p[k]), "%s/%s", dir, rel);
    return p[k];
}

TEST(source_lines_split)
{
    static const char text[] = "one\r\ntwo\n\nfour";    /* CRLF, an empty line, no final \n */
    struct ann_sources *s = ann_sources_new(NULL);
    put("a.c", text, sizeof(text) - 1);
    CHECK(s);
    CHECK_EQ_U64(ann_source_nlines(s, path_of("a.c")), 4);
    CHECK_STR(ann_source_line(s, path_of("a.c"), 1), "one");
    CHECK_STR(ann_source_line(s, path_of("a.c"), 3), "");
    CHECK_STR(ann_source_line(s, path_of("a.c"), 4), "four");
    CHECK(!ann_source_line(s, path_of("a.c"), 5));
    CHECK(!ann_source_line(s, path_of("a.c"), 0));
    ann_sources_free(s);
}

TEST(source_untrusted_bytes)
{
    static const char text[] = "\tx = 1;\x1b[31m\x00z\n";
    char longline[3000];
    struct ann_sources *s = ann_sources_new(NULL);
    const char *l;
    put("b.c", text, sizeof(text) - 1);
    memset(longline, 'y', sizeof(longline) - 1);
    longline[sizeof(longline) - 1] = '\n';
    put("c.c", longline, sizeof(longline));
    /* A tab is spaces to the next stop, escape and NUL never reach the terminal raw. */
    CHECK_STR(ann_source_line(s, path_of("b.c"), 1), "        x = 1;\\x1b[31m?z");
    l = ann_source_line(s, path_of("c.c"), 1);
    CHECK(l && strlen(l) <= ANN_SOURCE_LINE_MAX + 4);
    ann_sources_free(s);
}

TEST(source_fifo_is_not_read)
{
    struct ann_sources *s = ann_sources_new(NULL);
    CHECK(mkfifo(path_of("fifo.c"), 0600) == 0);
    CHECK(!ann_source_where(s, path_of("fifo.c")));     /* returns at once: never opened */
    ann_sources_free(s);
}

TEST(source_prefix_map_and_dirs)
{
    char arg[600], other[600];
    struct ann_prefix_map m;
    const char *dirs[1];
    struct ann_source_opts o = { 0 };
    struct ann_sources *s;

    CHECK(mkdir(path_of("tree"), 0700) == 0 && mkdir(path_of("tree/sub"), 0700) == 0);
    put("tree/sub/d.c", "int d;\n", 7);
    snprintf(arg, sizeof(arg), "/gone/build=%s/tree", dir);
    CHECK(ann_prefix_map_parse(arg, &m) == 0);
    CHECK_STR(m.old, "/gone/build");
    snprintf(other, sizeof(other), "=x");
    CHECK(ann_prefix_map_parse(other, &m) == -EINVAL);
    snprintf(other, sizeof(other), "nothing");
    CHECK(ann_prefix_map_parse(other, &m) == -EINVAL);
    CHECK(ann_prefix_map_parse(arg, &m) == -EINVAL);    /* already split at its '=' */
    snprintf(arg, sizeof(arg), "/gone/build=%s/tree", dir);
    CHECK(ann_prefix_map_parse(arg, &m) == 0);
    o.maps = &m;
    o.nmaps = 1;
    s = ann_sources_new(&o);
    CHECK_STR(ann_source_line(s, "/gone/build/sub/d.c", 1), "int d;");
    CHECK(!ann_source_line(s, "/gone/builder/sub/d.c", 1));   /* a whole component only */
    ann_sources_free(s);
    /* --source-dir: ever shorter tails of the path under the directory. */
    dirs[0] = path_of("tree");
    memset(&o, 0, sizeof(o));
    o.dirs = dirs;
    o.ndirs = 1;
    s = ann_sources_new(&o);
    CHECK_STR(ann_source_where(s, "/elsewhere/x/sub/d.c"), path_of("tree/sub/d.c"));
    ann_sources_free(s);
}

TEST(cut_text_keeps_whole_characters)
{
    char buf[64];
    CHECK_STR(ann_cut_text("short", 10, buf, sizeof(buf)), "short");
    CHECK_STR(ann_cut_text("abcdefghijkl", 8, buf, sizeof(buf)), "abcde...");
    CHECK_STR(ann_cut_text("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 5, buf, sizeof(buf)),
              "\xc3\xa9\xc3\xa9...");
}

TEST(lineview_sums_per_line)
{
    struct ann_hit hits[] = {
        { .addr = 0x10, .samples = 1, .period = 10 }, { .addr = 0x14, .samples = 2, .period = 20 },
        { .addr = 0x18, .samples = 4, .period = 40 }, { .addr = 0x1c, .samples = 8, .period = 80 },
        { .addr = 0x20, .samples = 16, .period = 160 },
        { .addr = 0x21, .samples = 32, .period = 320 },   /* between instruction starts */
    };
    struct ann_func f = { .name = "f" };
    struct ann_line lines[5] = {
        { .insn.addr = 0x10, .file = "/a.c", .line = 3 },
        { .insn.addr = 0x14, .file = "/a.c", .line = 4 },
        { .insn.addr = 0x18, .file = "/h.h", .line = 9 },
        { .insn.addr = 0x1c, .file = "/a.c", .line = 3 },
        { .insn.addr = 0x20, .file = NULL },
    };
    struct ann_listing l = { .func = &f, .lines = lines, .n = 5 };
    struct ann_srcrow *r;
    size_t n;

    f.hits.v = hits;
    f.hits.n = sizeof(hits) / sizeof(hits[0]);
    CHECK(ann_lineview_build(&l, &r, &n) == 0);
    CHECK_EQ_U64(n, 4);
    CHECK_STR(r[0].file, "/a.c");
    CHECK_EQ_U64(r[0].line, 3);
    CHECK_EQ_U64(r[0].samples, 9);
    CHECK_EQ_U64(r[0].insns, 2);
    CHECK_EQ_U64(r[1].line, 4);
    CHECK_STR(r[2].file, "/h.h");      /* the other file after the function's own */
    CHECK(!r[3].file);                 /* no line (no DWARF for the hit between): last */
    CHECK_EQ_U64(r[3].samples, 48);
    free(r);
}

int main(void)
{
    char cmd[600];
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    RUN(source_lines_split);
    RUN(source_untrusted_bytes);
    RUN(source_fifo_is_not_read);
    RUN(source_prefix_map_and_dirs);
    RUN(cut_text_keeps_whole_characters);
    RUN(lineview_sums_per_line);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    return system(cmd) != 0;
}
