/* SPDX-License-Identifier: MIT */
/* The "src" data (html/source.h): per function, its files, its source lines (the rows of
 * `annotate --source`) and its instructions (the lines of `annotate`), each with its hits. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "annotate/annotate.h"
#include "annotate/lineview.h"
#include "annotate/render.h"
#include "annotate/source.h"
#include "html/jsonw.h"
#include "html/source.h"
#include "symbol/dso.h"

#define PUT_LIT(ob, lit) obuf_put(ob, lit, sizeof(lit) - 1)

/* Instruction flags for the page. */
enum { INSN_JUMP_TARGET = 1, INSN_JUMP_DOWN = 2, INSN_JUMP_UP = 4, INSN_CALL = 8 };

static void put_str_or_null(struct obuf *ob, const char *s)
{
    if (s)
        jsonw_str(ob, s);
    else
        PUT_LIT(ob, "null");
}

/* The file's index in files (names interned by the DWARF handle: pointer, then text). */
static size_t file_index(const char **files, size_t *nf, const char *file)
{
    for (size_t i = 0; i < *nf; i++)
        if (files[i] == file || !strcmp(files[i], file))
            return i;
    files[*nf] = file;
    return (*nf)++;
}

/* Rows as [file, line, hits, text]; file -1 for instructions without a line. */
static void put_rows(struct obuf *ob, struct ann_sources *text, const struct ann_srcrow *rows,
                     size_t n, const char **files, size_t *nf)
{
    PUT_LIT(ob, ",\"rows\":[");
    for (size_t i = 0; i < n; i++) {
        const struct ann_srcrow *r = &rows[i];
        obuf_put(ob, i ? ",[" : "[", i ? 2 : 1);
        if (r->file)
            obuf_u64(ob, file_index(files, nf, r->file));
        else
            PUT_LIT(ob, "-1");
        obuf_char(ob, ',');
        obuf_u64(ob, r->line);
        obuf_char(ob, ',');
        obuf_u64(ob, r->samples);
        obuf_char(ob, ',');
        put_str_or_null(ob, r->file ? ann_source_line(text, r->file, r->line) : NULL);
        obuf_char(ob, ']');
    }
    obuf_char(ob, ']');
}

/* The row (index in rows) of an instruction's source line; rows are few per function. */
static size_t row_of(const struct ann_srcrow *rows, size_t n, const struct ann_line *ln)
{
    for (size_t i = 0; i < n; i++) {
        if (!ln->file ? !rows[i].file
                      : rows[i].file && rows[i].line == ln->line &&
                        (rows[i].file == ln->file || !strcmp(rows[i].file, ln->file)))
            return i;
    }
    return n;
}

static unsigned insn_flags(const struct ann_func *f, const struct ann_line *ln)
{
    const struct ann_insn *in = &ln->insn;
    unsigned fl = ln->jump_target ? INSN_JUMP_TARGET : 0;

    if (in->jump && in->has_target && in->target >= f->start && in->target < f->start + f->size)
        fl |= in->target > in->addr ? INSN_JUMP_DOWN : INSN_JUMP_UP;
    if (in->call)
        fl |= INSN_CALL;
    return fl;
}

/* Instructions as [address (hex), hits, text, row, flags, inlined function or null]. */
static void put_insns(struct obuf *ob, const struct ann_listing *l,
                      const struct ann_srcrow *rows, size_t nrows)
{
    char text[512], addr[24];

    PUT_LIT(ob, ",\"insns\":[");
    for (size_t i = 0; i < l->n; i++) {
        const struct ann_line *ln = &l->lines[i];
        ann_insn_text(l, ln, text, sizeof(text));
        snprintf(addr, sizeof(addr), "%" PRIx64, ln->insn.addr);
        obuf_put(ob, i ? ",[" : "[", i ? 2 : 1);
        jsonw_str(ob, addr);
        obuf_char(ob, ',');
        obuf_u64(ob, ln->samples);
        obuf_char(ob, ',');
        jsonw_str(ob, text);
        obuf_char(ob, ',');
        obuf_u64(ob, row_of(rows, nrows, ln));
        obuf_char(ob, ',');
        obuf_u64(ob, insn_flags(l->func, ln));
        obuf_char(ob, ',');
        put_str_or_null(ob, ln->inlined);
        obuf_char(ob, ']');
    }
    obuf_char(ob, ']');
}

/* Files as [path, found]: a file not found has its rows without text. */
static void put_files(struct obuf *ob, struct ann_sources *text, const char **files, size_t nf)
{
    PUT_LIT(ob, ",\"files\":[");
    for (size_t i = 0; i < nf; i++) {
        obuf_put(ob, i ? ",[" : "[", i ? 2 : 1);
        jsonw_str(ob, files[i]);
        obuf_put(ob, ann_source_where(text, files[i]) ? ",1]" : ",0]", 3);
    }
    obuf_char(ob, ']');
}

/* Why a listing has no source lines, in annotate's words. */
static void no_lines_reason(const struct ann_func *f, char *buf, size_t len)
{
    const char *dso = ann_func_dso(f), *base = strrchr(dso, '/');

    if (f->kernel)
        snprintf(buf, len, "kernel code: no source lines (no kernel DWARF is read)");
    else
        snprintf(buf, len, "no DWARF line information for %s: no source lines (build with -g)",
                 base ? base + 1 : dso);
}

static int put_listing(struct obuf *ob, struct ann_sources *text, const struct ann_listing *l)
{
    struct ann_srcrow *rows;
    const char **files;
    size_t nrows, nf = 0;
    char why[600];

    if (ann_lineview_build(l, &rows, &nrows))
        return -ENOMEM;
    if (!(files = calloc(nrows ? nrows : 1, sizeof(*files)))) {
        free(rows);
        return -ENOMEM;
    }
    if (!l->has_source) {
        no_lines_reason(l->func, why, sizeof(why));
        PUT_LIT(ob, ",\"nosrc\":");
        jsonw_str(ob, why);
    }
    put_rows(ob, text, rows, nrows, files, &nf);
    put_files(ob, text, files, nf);
    put_insns(ob, l, rows, nrows);
    free(files);
    free(rows);
    return 0;
}

/* One function: {"name","dso","samples", then its listing or "why" it has none}. */
static int put_func(struct obuf *ob, struct ann_set *set, struct ann_sources *text,
                    const struct ann_func *f)
{
    uint8_t bid[BUILD_ID_MAX];
    size_t blen = 0;
    struct ann_listing l;
    char why[512];
    int err;

    PUT_LIT(ob, "{\"name\":");
    jsonw_str(ob, f->report_name ? f->report_name : f->name);
    PUT_LIT(ob, ",\"dso\":");
    jsonw_str(ob, ann_func_dso(f));
    PUT_LIT(ob, ",\"samples\":");
    obuf_u64(ob, f->samples);
    if (f->kernel || dso_build_id(f->dso, bid, &blen))
        blen = 0;
    ann_sources_set_build(text, bid, blen);   /* sources not here: debuginfod, this build */
    err = ann_listing_build(set, f, ANN_ATT, &l, why, sizeof(why));
    if (err == -ENOMEM)
        return err;
    if ((!err || err == -ENOEXEC) && put_listing(ob, text, &l)) {
        ann_listing_release(&l);
        return -ENOMEM;
    }
    if (err) {                 /* -ENOEXEC: the source lines above, no instructions */
        PUT_LIT(ob, ",\"why\":");
        jsonw_str(ob, why);
    }
    ann_listing_release(&l);
    obuf_char(ob, '}');
    return 0;
}

int html_source_write(struct obuf *ob, const struct html_source_req *r)
{
    struct ann_sources *text;
    struct ann_set set;
    size_t k, listed = 0;
    int err;

    if ((err = ann_collect(r->session, r->ks, &set)))
        return err;
    if (!(text = ann_sources_new(NULL))) {
        ann_set_release(&set);
        return -ENOMEM;
    }
    PUT_LIT(ob, ",\n\"src\":{\"top\":");
    obuf_u64(ob, r->top);
    PUT_LIT(ob, ",\"funcs\":[");
    for (k = 0; k < set.funcs.n && listed < r->top && !err; k++) {
        if (r->no_bracket && set.funcs.v[k]->bracket)
            continue;
        if (listed++)
            obuf_put(ob, ",\n", 2);
        err = put_func(ob, &set, text, set.funcs.v[k]);
    }
    PUT_LIT(ob, "],\"more\":");
    obuf_u64(ob, set.funcs.n - listed);
    obuf_char(ob, '}');
    ann_sources_free(text);
    ann_set_release(&set);
    return err;
}
