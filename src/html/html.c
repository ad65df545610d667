/* SPDX-License-Identifier: MIT */
/* The HTML page: head, the data as script-safe JSON, the embedded scripts. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "flame/assets.h"
#include "flame/flametree.h"
#include "html/assets.h"
#include "html/b64.h"
#include "html/html.h"
#include "html/jsonw.h"
#include "html/paths.h"
#include "session/session.h"

#define PUT_LIT(ob, lit) obuf_put(ob, lit, sizeof(lit) - 1)

/* No request can leave the page: everything it needs is inline. */
static const char head[] =
    "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
    "script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:\">\n"
    "<meta name=\"generator\" content=\"prospect\">\n<title>Prospect profile</title>\n<style>\n";

static void put_key_str(struct obuf *ob, const char *key, const char *val)
{
    obuf_char(ob, ',');
    jsonw_str(ob, key);
    obuf_char(ob, ':');
    if (val)
        jsonw_str(ob, val);
    else
        obuf_put(ob, "null", 4);
}

static void put_key_u64(struct obuf *ob, const char *key, uint64_t v)
{
    obuf_char(ob, ',');
    jsonw_str(ob, key);
    obuf_char(ob, ':');
    obuf_u64(ob, v);
}

static void write_meta(struct obuf *ob, const struct cg_store *cs, const struct html_opts *o)
{
    PUT_LIT(ob, "\"meta\":{\"version\":1");
    put_key_str(ob, "title", o->title ? o->title : "Prospect profile");
    put_key_str(ob, "input", o->input);
    put_key_str(ob, "event", o->event);
    put_key_str(ob, "command", o->command);
    put_key_str(ob, "unit", o->by_period ? "ns" : "samples");
    put_key_u64(ob, "samples", cs->samples);
    put_key_u64(ob, "period", cs->period);
    put_key_u64(ob, "distinct_stacks", cs->nstacks);
    put_key_u64(ob, "duration_ns", o->duration_ns);
    put_key_u64(ob, "cpus", o->nr_cpus);
    PUT_LIT(ob, ",\"notes\":[");
    for (size_t i = 0; i < o->nnotes; i++) {
        if (i)
            obuf_char(ob, ',');
        jsonw_str(ob, o->notes[i]);
    }
    obuf_put(ob, "]}", 2);
}

/* A list, NAME:[a,b,...]; the previous one closed. */
static void open_list(struct obuf *ob, const char *name, bool first)
{
    obuf_put(ob, first ? ",\n" : "],\n", first ? 2 : 3);
    jsonw_str(ob, name);
    obuf_put(ob, ":[", 2);
}

static void write_tables(struct obuf *ob, const struct html_paths *p, const struct cg_syms *cy)
{
    open_list(ob, "str", true);
    for (size_t i = 0; i < p->strs.n; i++) {
        if (i)
            obuf_char(ob, ',');
        jsonw_str(ob, strtab_get(&p->strs, (uint32_t)i));
    }
    open_list(ob, "sym", false);             /* name, DSO, kind (enum flame_kind) */
    for (size_t i = 0; i < cy->nsyms; i++) {
        if (i)
            obuf_char(ob, ',');
        obuf_u64(ob, p->sym_name[i]);
        obuf_char(ob, ',');
        obuf_u64(ob, p->sym_dso[i]);
        obuf_char(ob, ',');
        obuf_u64(ob, flame_sym_kind(&cy->syms[i]));
    }
    open_list(ob, "proc", false);            /* pid, command */
    for (size_t i = 0; i < p->nprocs; i++) {
        if (i)
            obuf_char(ob, ',');
        obuf_u64(ob, (uint64_t)p->procs[i]->pid);
        obuf_char(ob, ',');
        obuf_u64(ob, p->proc_comm[i]);
    }
}

static int cmp_str(const void *a, const void *b, void *arg)
{
    const struct strtab *t = arg;
    return strcmp(strtab_get(t, *(const uint32_t *)a), strtab_get(t, *(const uint32_t *)b));
}

/* Each string's rank in byte order (varints), the order the SVG gives sibling frames: the
 * page sorts frames by numbers instead of comparing names (a sort of every name cost the
 * flame graph's first drawing 30 ms on a system-wide file). */
static int write_order(struct obuf *ob, const struct strtab *t)
{
    size_t n = t->n ? t->n : 1;
    uint32_t *by = malloc(n * sizeof(*by)), *rank = malloc(n * sizeof(*rank));
    struct b64 b = { .ob = ob };

    if (!by || !rank) {
        free(by);
        free(rank);
        return -ENOMEM;
    }
    for (uint32_t i = 0; i < t->n; i++)
        by[i] = i;
    qsort_r(by, t->n, sizeof(*by), cmp_str, (void *)t);
    for (uint32_t i = 0; i < t->n; i++)
        rank[by[i]] = i;
    PUT_LIT(ob, ",\n\"ord\":\"");
    for (uint32_t i = 0; i < t->n; i++)
        b64_varint(&b, rank[i]);
    b64_flush(&b);
    obuf_char(ob, '"');
    free(by);
    free(rank);
    return 0;
}

/* Nodes after the root as varints (html/b64.h): the step back to the parent (parents come
 * first), then what: symbol << 1, or command string << 1 | 1. Stacks, sorted by process then
 * node: the process's step from the previous stack's, the node (its step when the process is
 * the same), the weight; then (stp) each stack's period, unless the weights are periods. */
static void write_paths(struct obuf *ob, const struct html_paths *p, bool by_period)
{
    struct b64 b = { .ob = ob };
    uint64_t prev_proc = 0, prev_node = 0;

    PUT_LIT(ob, "],\n\"nnode\":");
    obuf_u64(ob, p->n);
    PUT_LIT(ob, ",\"node\":\"");
    for (size_t i = 1; i < p->n; i++) {
        const struct html_node *n = &p->nodes[i];
        b64_varint(&b, i - n->parent);
        b64_varint(&b, n->what & HTML_COMM_BIT ? (uint64_t)(n->what & ~HTML_COMM_BIT) << 1 | 1
                                               : (uint64_t)n->what << 1);
    }
    b64_flush(&b);
    PUT_LIT(ob, "\",\n\"nst\":");
    obuf_u64(ob, p->nstacks);
    PUT_LIT(ob, ",\"st\":\"");
    for (size_t i = 0; i < p->nstacks; i++) {
        const struct html_stack *s = &p->stacks[i];
        b64_varint(&b, s->proc - prev_proc);
        b64_varint(&b, s->proc != prev_proc || !i ? s->node : s->node - prev_node);
        b64_varint(&b, s->weight);
        prev_proc = s->proc;
        prev_node = s->node;
    }
    b64_flush(&b);
    obuf_char(ob, '"');
    if (by_period)            /* the weights are the periods */
        return;
    PUT_LIT(ob, ",\"stp\":\"");
    for (size_t i = 0; i < p->nstacks; i++)
        b64_varint(&b, p->stacks[i].period);
    b64_flush(&b);
    obuf_char(ob, '"');
}

int html_write(FILE *f, const struct cg_store *cs, const struct cg_syms *cy,
               const struct html_opts *o)
{
    struct html_paths p;
    struct html_timeline tl = { 0 };
    bool timeline = o->times && o->times->n && !o->by_period;
    struct obuf *ob = NULL;
    int err;

    if ((err = html_paths_build(&p, cs, cy, o->by_period)))
        return err;
    if ((timeline && (err = html_timeline_build(&tl, &p, cs, o->times))) || !(ob = obuf_new(f))) {
        html_timeline_release(&tl);
        html_paths_release(&p);
        return err ? err : -ENOMEM;
    }
    obuf_put(ob, head, sizeof(head) - 1);
    obuf_put(ob, prospect_html_css, strlen(prospect_html_css));
    PUT_LIT(ob, "</style></head>\n<body>\n<div id=\"app\"></div>\n"
            "<script type=\"application/json\" id=\"profile-data\">{");
    write_meta(ob, cs, o);
    write_tables(ob, &p, cy);
    write_paths(ob, &p, o->by_period);
    if ((err = write_order(ob, &p.strs)) ||
        (o->source && (err = html_source_write(ob, o->source)))) {
        html_timeline_release(&tl);
        html_paths_release(&p);
        obuf_close(ob);
        return err;
    }
    if (timeline) {
        PUT_LIT(ob, ",\n");
        html_timeline_write(ob, &tl);
    }
    PUT_LIT(ob, "}</script>\n<script>\n");
    obuf_put(ob, prospect_flame_js, strlen(prospect_flame_js));
    PUT_LIT(ob, "</script>\n<script>\n");
    obuf_put(ob, prospect_source_js, strlen(prospect_source_js));   /* a view html.js adds */
    PUT_LIT(ob, "</script>\n<script>\n");
    obuf_put(ob, prospect_timeline_js, strlen(prospect_timeline_js));
    PUT_LIT(ob, "</script>\n<script>\n");
    obuf_put(ob, prospect_html_js, strlen(prospect_html_js));
    PUT_LIT(ob, "</script>\n</body></html>\n");
    html_timeline_release(&tl);
    html_paths_release(&p);
    bool ok = obuf_close(ob);
    return !ok || fflush(f) || ferror(f) ? -EIO : 0;
}
