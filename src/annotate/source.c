/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "annotate/source.h"
#include "symbol/dso.h"
#include "symbol/symfile.h"
#include "util/file.h"
#include "util/strutil.h"
#include "util/vec.h"

#define TAB_STOP 8

struct src_file {
    char *path;             /* as DWARF names it */
    char *where;            /* where it was read, NULL: not found */
    char *raw;              /* the file's bytes */
    size_t *starts;         /* offset of each line in raw; starts[n] is one past the end */
    unsigned n;
    char **text;            /* printable lines, made on first use */
};

struct ann_sources {
    struct ann_source_opts o;
    uint8_t bid[20];            /* the build being listed, for debuginfod */
    size_t bid_len;
    VEC(struct src_file *) files;
};

struct ann_sources *ann_sources_new(const struct ann_source_opts *opts)
{
    struct ann_sources *s = calloc(1, sizeof(*s));

    if (s && opts)
        s->o = *opts;
    return s;
}

static void file_free(struct src_file *f)
{
    if (!f)
        return;
    for (unsigned i = 0; f->text && i < f->n; i++)
        free(f->text[i]);
    free(f->text);
    free(f->starts);
    free(f->raw);
    free(f->where);
    free(f->path);
    free(f);
}

void ann_sources_free(struct ann_sources *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->files.n; i++)
        file_free(s->files.v[i]);
    vec_free(&s->files);
    free(s);
}

void ann_sources_set_build(struct ann_sources *s, const uint8_t *bid, size_t len)
{
    s->bid_len = len <= sizeof(s->bid) ? len : 0;
    if (s->bid_len)
        memcpy(s->bid, bid, s->bid_len);
}

int ann_prefix_map_parse(char *arg, struct ann_prefix_map *m)
{
    char *eq = strchr(arg, '=');

    if (!eq || eq == arg)
        return -EINVAL;
    *eq = '\0';
    m->old = arg;
    m->new_prefix = eq + 1;
    return 0;
}

/* Reads a candidate: 1 when it is a readable regular file (loaded into f), 0 when not,
 * -ENOMEM. */
static int try_read(struct src_file *f, const char *cand)
{
    size_t len, n = 0, cap = 1024;
    char *buf;
    int err = symfile_read_all(cand, false, &buf, &len, ANN_SOURCE_MAX_BYTES, NULL);

    if (err)
        return err == -ENOMEM ? err : 0;
    f->starts = malloc(cap * sizeof(*f->starts));
    if (!f->starts || !(f->where = strdup(cand))) {
        free(buf);
        return -ENOMEM;
    }
    f->raw = buf;
    for (size_t i = 0; i < len; i++) {
        if (i > 0 && buf[i - 1] != '\n')
            continue;
        if (n + 2 > cap) {
            size_t *p = n < UINT32_MAX / 2 ? realloc(f->starts, 2 * cap * sizeof(*p)) : NULL;
            if (!p)
                return -ENOMEM;
            f->starts = p;
            cap *= 2;
        }
        f->starts[n++] = i;
    }
    f->starts[n] = len;
    f->n = (unsigned)n;
    f->text = calloc(n ? n : 1, sizeof(*f->text));
    return f->text ? 1 : -ENOMEM;
}

/* Tries cand = a + b; 1 found, 0 not, -ENOMEM. */
static int try_join(struct src_file *f, const char *a, const char *sep, const char *b)
{
    char *cand;
    int r;

    if (asprintf(&cand, "%s%s%s", a, sep, b) < 0)
        return -ENOMEM;
    r = try_read(f, cand);
    free(cand);
    return r;
}

/* The rewrites, the path itself, then each --source-dir with ever shorter tails of the path
 * (a/b/c.c, b/c.c, c.c): a tree copied elsewhere keeps its inner layout. */
static int locate(const struct ann_sources *s, struct src_file *f)
{
    const char *p = f->path;
    int r;

    for (size_t i = 0; i < s->o.nmaps; i++) {
        const struct ann_prefix_map *m = &s->o.maps[i];
        size_t n = strlen(m->old);
        if (strncmp(p, m->old, n) || (p[n] && p[n] != '/' && m->old[n - 1] != '/'))
            continue;
        return try_join(f, m->new_prefix, "", p + n);
    }
    if ((r = try_read(f, p)))
        return r;
    for (size_t i = 0; i < s->o.ndirs; i++) {
        for (const char *t = p; t; t = strchr(t, '/')) {
            while (*t == '/')
                t++;
            if (!*t)
                break;
            if ((r = try_join(f, s->o.dirs[i], "/", t)))
                return r;
        }
    }
    if (s->bid_len) {
        char *got;
        if (symbol_debuginfod_source(s->bid, s->bid_len, p, &got))
            return 0;
        r = try_read(f, got);
        free(got);
        return r;
    }
    return 0;
}

static struct src_file *file_get(struct ann_sources *s, const char *path)
{
    struct src_file *f;

    for (size_t i = s->files.n; i-- > 0; )
        if (!strcmp(s->files.v[i]->path, path))
            return s->files.v[i];
    f = calloc(1, sizeof(*f));
    if (!f || !(f->path = strdup(path)) || vec_push(&s->files, f)) {
        file_free(f);
        return NULL;
    }
    if (locate(s, f) <= 0) {     /* not found (or out of memory): no text, asked once */
        free(f->raw);
        free(f->starts);
        free(f->text);
        free(f->where);
        f->raw = NULL;
        f->starts = NULL;
        f->text = NULL;
        f->where = NULL;
        f->n = 0;
    }
    return f;
}

/* One line as shown: tabs to spaces, NUL and CR out, cut, then escaped. */
static char *make_text(const char *b, const char *e)
{
    char tmp[ANN_SOURCE_LINE_MAX + 1], out[ANN_SOURCE_LINE_MAX + 8];
    size_t n = 0;

    while (e > b && (e[-1] == '\n' || e[-1] == '\r'))
        e--;
    for (; b < e && n < ANN_SOURCE_LINE_MAX; b++) {
        if (*b == '\t') {
            do
                tmp[n++] = ' ';
            while (n % TAB_STOP && n < ANN_SOURCE_LINE_MAX);
        } else {
            tmp[n++] = *b ? *b : '?';
        }
    }
    /* A multi-byte character cut in two would be escaped: drop its head instead. */
    if (b < e)
        while (n > 0 && ((unsigned char)tmp[n - 1] & 0xc0) == 0x80)
            n--;
    if (b < e && n > 0 && ((unsigned char)tmp[n - 1] & 0xc0) == 0xc0)
        n--;
    tmp[n] = '\0';
    return strdup(str_printable(tmp, out, sizeof(out)));
}

const char *ann_source_line(struct ann_sources *s, const char *path, unsigned line)
{
    struct src_file *f = path ? file_get(s, path) : NULL;

    if (!f || !f->where || line == 0 || line > f->n)
        return NULL;
    if (!f->text[line - 1])
        f->text[line - 1] = make_text(f->raw + f->starts[line - 1], f->raw + f->starts[line]);
    return f->text[line - 1];
}

unsigned ann_source_nlines(struct ann_sources *s, const char *path)
{
    struct src_file *f = path ? file_get(s, path) : NULL;
    return f && f->where ? f->n : 0;
}

const char *ann_source_where(struct ann_sources *s, const char *path)
{
    struct src_file *f = path ? file_get(s, path) : NULL;
    return f ? f->where : NULL;
}
