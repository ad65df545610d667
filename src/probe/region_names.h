/* SPDX-License-Identifier: MIT */
/* Which function symbols a region's name means (`prospect stat -r NAME`): exact raw or demangled
 * names, partly qualified C++ names (`work`, `Parser::run`, `app::work<app::Parser>`), gcc's
 * clones (`busy.isra.0`, `.constprop.N`, `.part.N`; `.cold` parts belong to their function),
 * and did-you-mean suggestions for a name that matches nothing. */
#ifndef PROSPECT_PROBE_REGION_NAMES_H
#define PROSPECT_PROBE_REGION_NAMES_H
#include <stddef.h>
#include "symbol/dso.h"

#define REGION_NAME_MAX_MATCHES 64

/* The symbols of `dso` that `want` names: one function, with every gcc clone of it (each is a
 * copy that some callers call). Returns how many were written to out (0: none; then `err`
 * says so with up to 5 suggestions), or -ENOTUNIQ when the name means several functions (err
 * lists them). When clones were chosen, `note` says which ("busy -> busy.isra.0 (gcc
 * clone)"), else it is "". `path` names the file in messages. */
long region_names_find(struct dso *dso, const char *path, const char *want,
                       struct symbol_match *out, char *note, size_t notelen, char *err,
                       size_t errlen);

/* The function a symbol's display name belongs to, without gcc clone suffixes ("busy.isra.0"
 * -> "busy", "f(int) [clone .constprop.0]" -> "f(int)"). Writes to out; returns true when the
 * name had such a suffix. */
bool region_name_unclone(const char *name, char *out, size_t len);
#endif
