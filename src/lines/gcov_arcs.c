/* SPDX-License-Identifier: MIT */
/* gcov -b's call and branch lines of one source line, in gcov's order (gcc 12's gcov.cc:
 * add_line_counts gathers the arcs of the line's blocks in block order, solve_flow_graph
 * sorts each block's arcs by destination block, a call's arc to the function's exit last;
 * output_branch_count prints the calls and the conditional ones). At -O0 gcc lays the
 * blocks out in its own order, so address order stands for gcov's block order. */
#include <stdlib.h>
#include <string.h>
#include "lines/lines.h"

/* Callees whose calls get no arc to the exit in gcc 12 (tree-cfg.cc, need_fake_edge_p):
 * C library built-ins declared nothrow (builtins.def) and functions glibc declares pure or
 * const. Sorted, for bsearch. Noreturn ones (exit, abort) are not here: a block ending in
 * one gets its arc to the exit all the same (add_noreturn_fake_exit_edges). */
static const char *const unlisted[] = {
    "__ctype_b_loc", "__ctype_get_mb_cur_max", "__ctype_tolower_loc", "__ctype_toupper_loc",
    "__errno_location", "abs", "acos", "aligned_alloc", "asin", "atan", "atan2", "atof",
    "atoi", "atol", "atoll", "bcmp", "bzero", "calloc", "cbrt", "ceil", "cos", "cosh", "exp",
    "exp2", "fabs", "floor", "fmax", "fmin", "fmod", "free", "hypot", "index", "isalnum",
    "isalpha", "isascii", "isblank", "iscntrl", "isdigit", "isgraph", "islower", "isprint",
    "ispunct", "isspace", "isupper", "isxdigit", "labs", "llabs", "log", "log10", "log2",
    "malloc", "memchr", "memcmp", "memcpy", "memmove", "mempcpy", "memrchr", "memset", "pow",
    "rawmemchr", "realloc", "rindex", "round", "sin", "sinh", "snprintf", "sprintf", "sqrt",
    "sscanf", "stpcpy", "stpncpy", "strcasecmp", "strcat", "strchr", "strchrnul", "strcmp",
    "strcoll", "strcpy", "strcspn", "strdup", "strlen", "strncasecmp", "strncat", "strncmp",
    "strncpy", "strndup", "strnlen", "strpbrk", "strrchr", "strspn", "strstr", "tan", "tanh",
    "tolower", "toupper", "trunc", "vsnprintf", "vsprintf", "vsscanf", "wcslen",
};

static int by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

bool lines_gcov_unlisted_callee(const char *name)
{
    return bsearch(&name, unlisted, sizeof(unlisted) / sizeof(*unlisted), sizeof(*unlisted),
                   by_name) != NULL;
}

static bool on_line(const struct lines_block *b, unsigned file, unsigned line)
{
    return b->line == line && b->file == file;
}

/* The call ending the block: its returns are its one way out, measured (not assumed). A
 * call with no code after it in the function never returns into it. */
static bool call_arc(const struct lines_block *bl, const struct lines_arc *o,
                     struct lines_gcov_arc *g)
{
    *g = (struct lines_gcov_arc){ .call = true, .from = bl->count };
    if (!bl->nsucc)
        return true;
    if (bl->cond || bl->nsucc != 1 || !o[0].known || o[0].assumed)
        return false;
    g->count = o[0].count;
    return true;
}

void lines_gcov_arcs(const struct lines_plan *p, const struct lines_arcs *a, unsigned file,
                     unsigned line, lines_gcov_arc_fn fn, void *arg)
{
    unsigned ix = 0;

    for (size_t b = 0; b < p->blocks.n; b++) {
        const struct lines_block *bl = &p->blocks.v[b];
        const struct lines_arc *o = &a->v[a->out_first[b]];
        struct lines_gcov_arc g;
        /* gcov 12 takes a function's last block for its exit (add_line_counts: blocks are
         * numbered with the exit second since gcc 8, the check kept the old last) and
         * lists nothing of it: at -O0 that is the last block in address order. */
        bool last = b + 1 == p->blocks.n || p->blocks.v[b + 1].func != bl->func;
        if (!on_line(bl, file, line) || last)
            continue;
        if (p->split_calls && bl->call_ends) {
            if (!bl->call_unlisted && call_arc(bl, o, &g))
                fn(arg, &g, ix++);
            continue;
        }
        if (!bl->cond || bl->nsucc != 2 || !o[0].known || !o[1].known)
            continue;
        /* succ[0] is the branch's target, succ[1] the fall-through: by destination (a
         * threaded latch stands where it was). */
        bool target_first = bl->succ[0] < bl->succ[1] && !bl->latch_threaded;
        for (unsigned k = 0; k < 2; k++) {
            unsigned s = target_first == (k == 0) ? 0 : 1;
            g = (struct lines_gcov_arc){ .fallthrough = s == 1, .count = o[s].count,
                                         .from = bl->count };
            fn(arg, &g, ix++);
        }
    }
}
