/* SPDX-License-Identifier: MIT */
/* Unsigned LEB128 varints written as one base64 string: the page's compact number lists
 * (call paths, stacks, timeline runs). The page decodes them with atob into typed arrays,
 * several times faster to load than the same numbers as JSON (docs/html.md, "The data"). */
#ifndef PROSPECT_HTML_B64_H
#define PROSPECT_HTML_B64_H
#include <stdint.h>
#include "util/obuf.h"

struct b64 {
    struct obuf *ob;
    uint8_t in[3];
    unsigned n;
};

/* Appends v as a varint. */
void b64_varint(struct b64 *b, uint64_t v);
/* Writes the last bytes (with base64's padding): the string is complete. */
void b64_flush(struct b64 *b);
#endif
