/* SPDX-License-Identifier: MIT */
/* Caller and callee trees as indented text. */
#include <errno.h>
#include <string.h>
#include "callgraph/tree.h"
#include "report/callgraph_out.h"
#include "util/strutil.h"

enum { INDENT_MAX = 60 };     /* deeper levels print at this indentation (depth shown) */

static double share(uint64_t v, uint64_t total)
{
    return total ? 100.0 * (double)v / (double)total : 0;
}

/* The next node to print after `at` in depth-first order, skipping hidden subtrees. */
static uint32_t next_node(const struct cg_tree *t, uint32_t at, unsigned *depth, bool down)
{
    if (down && t->nodes[at].child) {
        ++*depth;
        return t->nodes[at].child;
    }
    while (at && !t->nodes[at].next) {
        at = t->nodes[at].parent;
        --*depth;
    }
    return at ? t->nodes[at].next : 0;
}

int report_calltree(FILE *f, const struct cg_store *cs, const struct cg_syms *cy,
                    const struct calltree_opts *o)
{
    uint64_t total = o->total_period ? o->total_period : cs->period;
    char nbuf[256], pbuf[1024], ebuf[1024], lead[16];
    struct cg_tree t;
    unsigned depth = 1;
    int err = cg_tree_build(cs, cy, o->name, o->callers, &t);

    if (!err)
        err = cg_tree_sort(&t);
    if (!err && !t.nodes[0].child)
        err = -ENOENT;
    if (err) {
        cg_tree_release(&t);
        return err;
    }
    fprintf(f, "# %s of %s: %s (%% of every sample's period)\n#\n",
            o->callers ? "Callers" : "Callees", str_printable(o->name, pbuf, sizeof(pbuf)),
            o->callers ? "who calls it, innermost call first" : "what it spends its time in");
    for (uint32_t at = t.nodes[0].child; at;) {
        const struct cg_node *n = &t.nodes[at];
        const struct cg_sym *s = &cy->syms[n->sym];
        double pc = share(n->period, total);
        bool shown = pc >= o->percent_limit;
        unsigned indent = 2 * (depth - 1);
        const char *name;

        if (shown) {
            lead[0] = '\0';
            if (indent > INDENT_MAX) {
                snprintf(lead, sizeof(lead), "(%u) ", depth);
                indent = INDENT_MAX;
            }
            name = str_printable(cg_sym_name(s, nbuf, sizeof(nbuf)), pbuf, sizeof(pbuf));
            if (!o->wide) {
                size_t room = 100 - 11 - indent - strlen(lead) - 4;
                name = str_elide(name, room < 20 ? 20 : room, ebuf, sizeof(ebuf));
            }
            fprintf(f, "%9.2f%%  %*s%s%s%s\n", pc, (int)indent, "", lead, name,
                    s->kernel ? " [k]" : s->inlined ? " (inlined)" : "");
        }
        at = next_node(&t, at, &depth, shown);
    }
    cg_tree_release(&t);
    return fflush(f) || ferror(f) ? -EIO : 0;
}
