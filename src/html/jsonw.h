/* SPDX-License-Identifier: MIT */
/* JSON that sits inside an HTML <script> element: strings escaped so that no name can end the
 * element or open a comment ("<", ">", "&" as \u escapes), control characters escaped, bytes
 * that are not valid UTF-8 replaced by U+FFFD. */
#ifndef PROSPECT_HTML_JSONW_H
#define PROSPECT_HTML_JSONW_H
#include "util/obuf.h"

/* Writes s as a JSON string, quotes included. */
void jsonw_str(struct obuf *o, const char *s);
#endif
