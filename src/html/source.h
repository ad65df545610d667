/* SPDX-License-Identifier: MIT */
/* The page's source and assembly view: the hottest functions listed by `prospect annotate`'s
 * engine (annotate/: one model of a function's lines, instructions and hits), written as the
 * data's "src" key (docs/html.md). */
#ifndef PROSPECT_HTML_SOURCE_H
#define PROSPECT_HTML_SOURCE_H
#include "util/obuf.h"

struct session;
struct ksyms;

struct html_source_req {
    struct session *session;  /* the profile's hits (the report's session) */
    const struct ksyms *ks;   /* kernel symbols, or NULL: user functions only */
    unsigned top;             /* functions listed, hottest (self) first; 0: none */
    bool no_bracket;          /* --no-bracket: stripped files' a->b gaps are not listed (the
                                 page names their addresses) */
};

/* Writes ,"src":{...}: each listed function's source lines and instructions with their hits,
 * or why it has none. 0 or -ENOMEM. */
int html_source_write(struct obuf *ob, const struct html_source_req *r);
#endif
