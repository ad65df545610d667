/* SPDX-License-Identifier: MIT */
/* One display name for every report (flat table, folded, SVG, pprof, speedscope, --children):
 * a demangled C++ name as perf shows it, which is libiberty's demangling without parameters:
 * no parameter list, no return type, nothing after the list (" const", "[clone .cold]");
 * template arguments, operators, lambdas and "(anonymous namespace)" stay whole; a local
 * entity keeps its enclosing function's list ("f(int)::S::g"), a thunk its own. */
#ifndef PROSPECT_SYMBOL_SHORTNAME_H
#define PROSPECT_SYMBOL_SHORTNAME_H
#include <stdbool.h>

/* out has room for strlen(full) + 1 bytes (the short name is never longer). A bracket
 * ("lo->hi", "(start)->hi", "lo->(end)") has each end made short; a bracket part's "+0xOFF"
 * stays. */
void symbol_short_name(const char *full, bool bracket, char *out);
#endif
