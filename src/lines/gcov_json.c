/* SPDX-License-Identifier: MIT */
/* gcov's JSON intermediate format (gcc 12's gcov.cc, output_json_intermediate_file), the
 * file lcov's geninfo reads from gcov: {"format_version": "1", "current_working_directory",
 * "data_file", "files": [{"file", "functions": [{"name", "demangled_name", "start_line",
 * "end_line", "blocks", "blocks_executed", "execution_count"...}], "lines": [{"line_number",
 * "function_name", "count", "unexecuted_block", "branches": [{"count", "throw",
 * "fallthrough"}]}]}]}, gzip'd. Counts are Prospect's (gcov's rule, docs/lines.md). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include "lines/gcov.h"
#include "report/json.h"
#include "util/outfile.h"
#include "util/strutil.h"

struct jfile {
    struct json *j;
    const struct lines_plan *p;
    const struct lines_arcs *a;
    unsigned file;
};

static void function_obj(struct jfile *g, size_t fi)
{
    const struct lines_plan *p = g->p;
    const struct lines_func *fn = &p->funcs.v[fi];
    struct lines_func_sum sum;
    unsigned first = 0, last = 0;

    lines_func_summary(p, g->a, fi, &sum);
    if (sum.entry >= p->blocks.n || p->blocks.v[sum.entry].file != g->file ||
        !p->blocks.v[sum.entry].line)
        return;
    first = last = p->blocks.v[sum.entry].line;
    for (size_t b = 0; b < p->blocks.n; b++)
        if (p->blocks.v[b].func == fi && p->blocks.v[b].file == g->file &&
            p->blocks.v[b].line > last)
            last = p->blocks.v[b].line;
    json_begin_object(g->j, NULL);
    json_str(g->j, "name", fn->name);
    json_str(g->j, "demangled_name", fn->name);
    json_u64(g->j, "start_line", first);
    json_u64(g->j, "start_column", 0);
    json_u64(g->j, "end_line", last);
    json_u64(g->j, "end_column", 0);
    json_u64(g->j, "blocks", sum.blocks);
    json_u64(g->j, "blocks_executed", sum.run);
    json_u64(g->j, "execution_count", sum.calls);
    json_end_object(g->j);
}

/* A branch's way, in gcov's order (gcc 12's JSON has no calls: they are left out). */
static void branch_obj(void *arg, const struct lines_gcov_arc *a, unsigned ix)
{
    struct jfile *g = arg;

    (void)ix;
    if (a->call)
        return;
    json_begin_object(g->j, NULL);
    json_u64(g->j, "count", a->count);
    json_bool(g->j, "throw", false);
    json_bool(g->j, "fallthrough", a->fallthrough);
    json_end_object(g->j);
}

/* The line's blocks: its function, whether one never ran, its known branches. */
static void line_obj(struct jfile *g, const struct lines_count *c)
{
    const struct lines_plan *p = g->p;
    const char *func = NULL;
    bool unrun = false;

    json_begin_object(g->j, NULL);
    json_u64(g->j, "line_number", c->line);
    for (size_t b = 0; b < p->blocks.n; b++)
        if (p->blocks.v[b].line == c->line && p->blocks.v[b].file == c->file) {
            func = func ? func : p->funcs.v[p->blocks.v[b].func].name;
            unrun |= !p->blocks.v[b].count;
        }
    if (func)
        json_str(g->j, "function_name", func);
    json_u64(g->j, "count", c->count);
    json_bool(g->j, "unexecuted_block", unrun && c->count);
    json_begin_array(g->j, "branches");
    lines_gcov_arcs(p, g->a, c->file, c->line, branch_obj, g);
    json_end_array(g->j);
    json_end_object(g->j);
}

static void file_obj(struct jfile *g, const struct lines_count *c, size_t n)
{
    char path[PATH_MAX];
    lines_plain_path(g->p->files.v[g->file].path, path, sizeof(path));
    json_begin_object(g->j, NULL);
    json_str(g->j, "file", path);
    json_begin_array(g->j, "functions");
    for (size_t fi = 0; fi < g->p->funcs.n; fi++)
        function_obj(g, fi);
    json_end_array(g->j);
    json_begin_array(g->j, "lines");
    for (size_t k = 0; k < n; k++)
        line_obj(g, &c[k]);
    json_end_array(g->j);
    json_end_object(g->j);
}

static void document(FILE *f, const struct lines_report *r, const struct lines_arcs *a)
{
    struct json j;
    char cwd[PATH_MAX];

    json_init(&j, f);
    json_begin_object(&j, NULL);
    json_str(&j, "format_version", "1");
    json_str(&j, "gcc_version", "prospect lines");
    json_str(&j, "current_working_directory", getcwd(cwd, sizeof(cwd)) ? cwd : "/");
    json_str(&j, "data_file", r->plan->exe);
    json_begin_array(&j, "files");
    for (size_t i = 0, k; i < r->n; i = k) {
        for (k = i + 1; k < r->n && r->counts[k].file == r->counts[i].file; k++)
            ;
        struct jfile g = { .j = &j, .p = r->plan, .a = a, .file = r->counts[i].file };
        file_obj(&g, r->counts + i, k - i);
    }
    json_end_array(&j);
    json_end_object(&j);
    json_finish(&j);
}

/* buf (len bytes) gzip'd into f. 0 or -EIO/-ENOMEM. */
static int write_gzip(FILE *f, const char *buf, size_t len)
{
    z_stream z = { 0 };
    unsigned char out[65536];
    int zr;

    if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY))
        return -ENOMEM;
    z.next_in = (unsigned char *)buf;
    z.avail_in = (uInt)len;
    do {
        z.next_out = out;
        z.avail_out = sizeof(out);
        zr = deflate(&z, Z_FINISH);
        fwrite(out, 1, sizeof(out) - z.avail_out, f);
    } while (zr == Z_OK);
    deflateEnd(&z);
    return zr == Z_STREAM_END ? 0 : -EIO;
}

int lines_write_gcov_json(const struct lines_report *r, const char *dir, char *err,
                          size_t errlen)
{
    struct lines_arcs a;
    struct outfile of = { 0 };
    char out[PATH_MAX], *buf = NULL;
    size_t len = 0;
    FILE *mem;
    int e;

    if ((size_t)snprintf(out, sizeof(out), "%s/%s.gcov.json.gz", dir,
                         path_basename(r->plan->exe)) >= sizeof(out))
        return snprintf(err, errlen, "%s: name too long", dir), -ENAMETOOLONG;
    if ((e = lines_arcs_solve(r->plan, &a)))
        return snprintf(err, errlen, "%s", strerror(-e)), e;
    if (!(mem = open_memstream(&buf, &len))) {
        lines_arcs_release(&a);
        return snprintf(err, errlen, "%s", strerror(ENOMEM)), -ENOMEM;
    }
    document(mem, r, &a);
    fclose(mem);
    lines_arcs_release(&a);
    if ((e = outfile_open(&of, out, 0644))) {
        free(buf);
        return snprintf(err, errlen, "cannot write %s: %s", out, outfile_strerror(e)), e;
    }
    e = write_gzip(of.fp, buf, len);
    free(buf);
    if (e) {
        outfile_abort(&of);
        return snprintf(err, errlen, "cannot compress %s", out), e;
    }
    if ((e = outfile_commit(&of)))
        snprintf(err, errlen, "writing %s failed: %s", out, strerror(-e));
    return e;
}
