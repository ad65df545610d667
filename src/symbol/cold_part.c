/* SPDX-License-Identifier: MIT */
/* The cold part gcc splits off a function, found among its DSO's symbols. */
#include <stdbool.h>
#include <string.h>
#include "symbol/dso.h"

struct cold_find {
    const char *name;
    size_t len;
    bool found;
    struct symbol_match m;
};

static void find_cold_part(void *arg, const struct symbol_match *m)
{
    struct cold_find *cf = arg;
    if (!cf->found && !strncmp(m->name, cf->name, cf->len) &&
        (!strncmp(m->name + cf->len, ".cold", 5) ||
         !strncmp(m->name + cf->len, " [clone .cold", 13))) {
        cf->found = true;
        cf->m = *m;
    }
}

bool symbol_cold_part(struct dso *dso, const char *name, struct symbol_match *out)
{
    struct cold_find cf = { .name = name, .len = strlen(name) };
    if (symbol_is_cold_part(name))
        return false;
    dso_foreach_symbol(dso, find_cold_part, &cf);
    if (cf.found)
        *out = cf.m;
    return cf.found;
}
