/* SPDX-License-Identifier: MIT */
/* perf report --stdio's call-chain layouts, from a row's chain trie (callgraph/chaintree.h).
 * The layout (margins, "|" columns, "--P%--" labels) is perf's so that scripts and eyes used
 * to perf read it alike. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "report/chaingraph.h"
#include "util/strutil.h"

enum { MARGIN = 12, MAX_MASK_DEPTH = 63 };

int chain_params_parse(const char *s, struct chain_params *p, char *why, size_t len)
{
    char buf[256], *save = NULL, *tok;
    double d;

    if (strlen(s) >= sizeof(buf)) {
        snprintf(why, len, "-g '%.40s...': too long", s);
        return -EINVAL;
    }
    strcpy(buf, s);
    for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        static const char *const modes[] = { "none", "graph", "fractal", "flat", "folded" };
        size_t m;
        for (m = 0; m < sizeof(modes) / sizeof(*modes) && strcmp(tok, modes[m]); m++)
            ;
        if (m < sizeof(modes) / sizeof(*modes))
            p->mode = (enum chain_mode)m, p->mode_set = true;
        else if (!strcmp(tok, "caller") || !strcmp(tok, "callee"))
            p->callee = !strcmp(tok, "callee"), p->order_set = true;
        else if (!strcmp(tok, "function") || !strcmp(tok, "percent"))
            ;                 /* perf's defaults, the only key and value shown */
        else if (!parse_double(tok, &d) && d <= 100 && !p->min_set)
            p->min_percent = d, p->min_set = true;
        else {
            snprintf(why, len, "-g: unknown or unsupported '%.40s' (mode graph, fractal, "
                     "flat, folded or none; a threshold; caller or callee)", tok);
            return -EINVAL;
        }
    }
    return 0;
}

static double pct(uint64_t v, uint64_t total)
{
    return total ? 100.0 * (double)v / (double)total : 0;
}

static void put_str(struct obuf *ob, const char *s)
{
    obuf_put(ob, s, strlen(s));
}

static void put_spaces(struct obuf *ob, size_t n)
{
    while (n--)
        obuf_char(ob, ' ');
}

static void put_pct(struct obuf *ob, uint64_t v, uint64_t total)
{
    char num[32];
    int n = snprintf(num, sizeof(num), "%.2f%%", pct(v, total));
    obuf_put(ob, num, (size_t)n);
}

static void put_name(struct obuf *ob, const struct chain_print *p, uint32_t sym)
{
    char nbuf[256], pbuf[1024];
    const struct cg_sym *s = &p->cy->syms[sym];

    put_str(ob, str_printable(cg_sym_name(s, nbuf, sizeof(nbuf)), pbuf, sizeof(pbuf)));
    if (s->inlined)
        put_str(ob, " (inlined)");
}

static bool has_bit(uint64_t mask, unsigned i)
{
    return i <= MAX_MASK_DEPTH && (mask >> i & 1);
}

static uint64_t without_bit(uint64_t mask, unsigned i)
{
    return i <= MAX_MASK_DEPTH ? mask & ~(1ull << i) : mask;
}

static uint64_t with_bit(uint64_t mask, unsigned i)
{
    return i <= MAX_MASK_DEPTH ? mask | 1ull << i : mask;
}

/* The line of "|" columns between siblings. */
static void graph_line(struct obuf *ob, unsigned depth, uint64_t mask, size_t left)
{
    put_spaces(ob, MARGIN + left);
    for (unsigned i = 0; i < depth; i++)
        put_str(ob, has_bit(mask, i) ? "|          " : "           ");
    obuf_char(ob, '\n');
}

/* One entry of a radix node: the first carries the node's share ("--P%--"). */
static void graph_entry(struct obuf *ob, const struct chain_print *p, uint32_t sym,
                        unsigned depth, uint64_t mask, bool first, uint64_t value,
                        uint64_t total, size_t left)
{
    put_spaces(ob, MARGIN + left);
    for (unsigned i = 0; i < depth; i++) {
        obuf_char(ob, has_bit(mask, i) ? '|' : ' ');
        if (first && i == depth - 1) {
            put_str(ob, "--");
            put_pct(ob, value, total);
            put_str(ob, "--");
        } else {
            put_spaces(ob, 10);
        }
    }
    if (sym == UINT32_MAX)
        put_str(ob, "[...]");
    else
        put_name(ob, p, sym);
    obuf_char(ob, '\n');
}

/* The minimum period a child of node `at` needs to be shown. */
static uint64_t min_hit(const struct chain_print *p, const struct ct_node *at)
{
    if (p->params->mode == CHAIN_FRACTAL)
        return (uint64_t)ceil((double)(at->cumul - at->hit) * p->params->min_percent / 100.0);
    return (uint64_t)((double)p->total * (p->params->min_percent / 100.0));
}

/* The next shown child of node `at` after child c (0: the first). */
static uint32_t shown_child(const struct chaintree *t, const struct chain_print *p, uint32_t at,
                            uint32_t c)
{
    uint64_t least = min_hit(p, &t->nodes[at]);

    for (c = c ? t->nodes[c].next : t->nodes[at].child; c; c = t->nodes[c].next)
        if (t->nodes[c].cumul >= least)
            return c;
    return 0;
}

static void graph_children(struct obuf *ob, const struct chaintree *t,
                           const struct chain_print *p, uint32_t at, uint64_t total,
                           unsigned depth, uint64_t mask, size_t left)
{
    bool rel = p->params->mode == CHAIN_FRACTAL;
    uint64_t remaining = total, new_mask = mask;

    for (uint32_t c = shown_child(t, p, at, 0), next; c; c = next) {
        uint32_t end = chaintree_run_end(t, c);
        uint64_t cumul = t->nodes[c].cumul;

        remaining -= cumul;
        next = shown_child(t, p, at, c);
        if (!next && (!rel || !remaining))
            new_mask = without_bit(new_mask, depth - 1);
        graph_line(ob, depth, mask, left);
        for (uint32_t v = c, first = 1;; v = t->nodes[v].child, first = 0) {
            graph_entry(ob, p, t->nodes[v].sym, depth, new_mask, first, cumul, total, left);
            if (v == end)
                break;
        }
        graph_children(ob, t, p, end, rel ? t->nodes[end].cumul - t->nodes[end].hit : total,
                       depth + 1, with_bit(new_mask, depth), left);
    }
    if (rel && remaining && remaining != total)   /* fractal: the hidden children's share */
        graph_entry(ob, p, UINT32_MAX, depth, without_bit(new_mask, depth - 1), true,
                    remaining, total, left);
}

/* perf's graph and fractal: a single root with the row's whole period is printed without
 * its share, after "---". */
static void print_graph(struct obuf *ob, const struct chaintree *t, const struct chain_print *p)
{
    uint32_t at = 0, c = shown_child(t, p, 0, 0);
    size_t left = 0;
    bool printed = false;

    if (c && !shown_child(t, p, 0, c) && t->nodes[c].cumul == p->entry) {
        uint32_t end = chaintree_run_end(t, c);
        for (uint32_t v = c;; v = t->nodes[v].child) {
            if (!(v == c && p->skip_first)) {
                put_spaces(ob, MARGIN + left);
                if (!printed) {
                    put_str(ob, "|\n");
                    put_spaces(ob, MARGIN + left);
                    put_str(ob, "---");
                    left += 3;
                    printed = true;
                }
                put_name(ob, p, t->nodes[v].sym);
                obuf_char(ob, '\n');
            }
            if (v == end)
                break;
        }
        at = end;
    }
    graph_children(ob, t, p, at, p->params->mode == CHAIN_FRACTAL ? p->entry : p->total, 1, 1,
                   left);
    if (printed || shown_child(t, p, at, 0))   /* a blank line after a tree, if any */
        obuf_char(ob, '\n');
}

/* flat and folded: the chains that end at a node, by the period ending there. */
struct ends {
    uint32_t *v;
    size_t n;
};

static int cmp_end(const void *a, const void *b, void *arg)
{
    const struct ct_node *nodes = arg;
    uint64_t x = nodes[*(const uint32_t *)a].hit, y = nodes[*(const uint32_t *)b].hit;
    return x > y ? -1 : x < y;
}

static void put_path(struct obuf *ob, const struct chain_print *p, const struct chaintree *t,
                     uint32_t at, bool folded)
{
    if (!at)
        return;
    put_path(ob, p, t, t->nodes[at].parent, folded);
    if (folded) {
        if (t->nodes[at].parent)
            obuf_char(ob, ';');
    } else {
        put_spaces(ob, 16);
    }
    put_name(ob, p, t->nodes[at].sym);
    if (!folded)
        obuf_char(ob, '\n');
}

static int print_ends(struct obuf *ob, const struct chaintree *t, const struct chain_print *p)
{
    uint64_t least = min_hit(p, &t->nodes[0]);
    uint32_t *v = malloc(t->n * sizeof(*v));
    size_t n = 0;

    if (!v)
        return -ENOMEM;
    for (uint32_t i = 1; i < t->n; i++)
        if (t->nodes[i].hit && t->nodes[i].hit >= least)
            v[n++] = i;
    if (n)
        qsort_r(v, n, sizeof(*v), cmp_end, t->nodes);
    for (size_t i = 0; i < n; i++) {
        const struct ct_node *e = &t->nodes[v[i]];
        if (p->params->mode == CHAIN_FOLDED) {
            put_pct(ob, e->hit, p->total);
            obuf_char(ob, ' ');
            put_path(ob, p, t, v[i], true);
            obuf_char(ob, '\n');
        } else {
            put_spaces(ob, 11);
            put_pct(ob, e->cumul, p->total);
            obuf_char(ob, '\n');
            put_path(ob, p, t, v[i], false);
            obuf_char(ob, '\n');
        }
    }
    free(v);
    return 0;
}

void chaingraph_print(struct obuf *ob, const struct chaintree *t, const struct chain_print *p)
{
    switch (p->params->mode) {
    case CHAIN_GRAPH:
    case CHAIN_FRACTAL:
        print_graph(ob, t, p);
        break;
    case CHAIN_FLAT:
    case CHAIN_FOLDED:
        if (print_ends(ob, t, p))
            ob->failed = true;
        break;
    case CHAIN_NONE:
        break;
    }
}
