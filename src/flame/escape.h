/* SPDX-License-Identifier: MIT */
/* Writing untrusted names (symbols, command names) into XML and JSON: escaped, control
 * characters and bytes that are not valid UTF-8 replaced, so a hostile name cannot break the
 * document or its parser. */
#ifndef PROSPECT_FLAME_ESCAPE_H
#define PROSPECT_FLAME_ESCAPE_H
#include <stddef.h>
#include <stdio.h>

/* Writes at most max bytes of s (cut at a character boundary) XML-escaped. */
void xml_put(FILE *f, const char *s, size_t max);
/* Writes s as a JSON string, quotes included. */
void json_put(FILE *f, const char *s);
/* The length of the valid UTF-8 sequence at s (1-4), or 0 when s does not start one. */
size_t utf8_seq_len(const unsigned char *s);
#endif
