/* SPDX-License-Identifier: MIT */
/* Version 2 call records of the trace file (format in tracefile.h): a call coded against the
 * previous one and its function's last, in a few bytes. */
#ifndef PROSPECT_CALLTRACE_TRACEFILE_PACK_H
#define PROSPECT_CALLTRACE_TRACEFILE_PACK_H
#include <stddef.h>
#include <stdint.h>
#include "calltrace/tracefile.h"

#define TF_TAG_FUNC 1u
#define TF_TAG_CALL 0x80u
#define TF_PACK_MAX (1 + 12 * 10)   /* tag, then at most 12 varints */

/* Makes room for functions 0..n-1 in s (new ones start at 0). 0 or -ENOMEM. */
int tf_state_funcs(struct tracefile_state *s, uint32_t n);
void tf_state_release(struct tracefile_state *s);
/* Codes r (r->func < s->nfuncs) into b (TF_PACK_MAX bytes) and moves s on. Bytes used. */
size_t tf_pack_call(struct tracefile_state *s, const struct call_rec *r, unsigned char *b);
/* Decodes the call at p (len bytes, the tag first) into r and moves s on. Bytes used, or 0
 * with *why set (truncated, or a function without a name record). */
size_t tf_unpack_call(struct tracefile_state *s, const unsigned char *p, size_t len,
                      struct call_rec *r, const char **why);
#endif
