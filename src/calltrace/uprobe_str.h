/* SPDX-License-Identifier: MIT */
/* String arguments of uprobe'd calls (a prototype's `string`, protoconf.h): the entry probe
 * fetches `+0(%REG):string` for each argument register some traced function takes as a string
 * (every probe of the shared event fetches the same), and the sample's __data_loc fields become
 * the call's string slots (calltrace_abi.h's layout). */
#ifndef PROSPECT_CALLTRACE_UPROBE_STR_H
#define PROSPECT_CALLTRACE_UPROBE_STR_H
#include <stddef.h>
#include <stdint.h>
#include "calltrace/collect.h"
#include "intarget/calltrace_abi.h"

#define CT_USTR_SLOT 64u            /* a slot: length byte, then up to CT_STR_MAX bytes */
#define CT_USTR_UNREADABLE CT_STR_UNREADABLE  /* a pointer the kernel could not read */

/* Appends " s0=+0(%di):string ..." for the argument registers in bits to fetch (len bytes). */
void ct_ustr_fetch_args(unsigned bits, char *fetch, size_t len);
/* The string of the __data_loc field at raw + at (raw: the tracepoint data, rawsz bytes) for
 * an argument whose value was v, into slot. */
void ct_ustr_take(const uint8_t *raw, uint32_t rawsz, uint32_t at, uint64_t v, uint8_t *slot);
/* Gives k the strings of its prototype's string arguments from the fetched slots (slots[j]:
 * the j-th register of bits). */
void ct_ustr_to_call(struct ct_call *k, unsigned bits, const uint8_t (*slots)[CT_USTR_SLOT]);
/* Gives k its returned string (the return probe's fetch into slot) when its prototype returns
 * a string. */
void ct_ustr_ret_to_call(struct ct_call *k, const uint8_t *slot);
#endif
