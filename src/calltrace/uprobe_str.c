/* SPDX-License-Identifier: MIT */
/* String arguments of uprobe'd calls (see uprobe_str.h). */
#include "calltrace/uprobe_str.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "calltrace/protoconf.h"
#include "intarget/calltrace_abi.h"

void ct_ustr_fetch_args(unsigned bits, char *fetch, size_t len)
{
    static const char *const reg[CT_ANY_NARGS] = { "di", "si", "dx", "cx" };
    size_t o = strlen(fetch);
    for (unsigned i = 0; i < CT_ANY_NARGS && o < len; i++)
        if (bits & (1u << i))
            o += (size_t)snprintf(fetch + o, len - o, " s%u=+0(%%%s):string", i, reg[i]);
}

void ct_ustr_take(const uint8_t *raw, uint32_t rawsz, uint32_t at, uint64_t v, uint8_t *slot)
{
    uint32_t dl, off, n;
    memset(slot, 0, CT_USTR_SLOT);
    if (!v) {
        slot[0] = 0xff;                     /* NULL: ltrace's nil */
        return;
    }
    slot[0] = CT_USTR_UNREADABLE;
    if (at + 4 > rawsz)
        return;
    memcpy(&dl, raw + at, 4);
    off = dl & 0xffff;
    n = dl >> 16;                           /* with the NUL; 0: the read faulted */
    if (!n || off > rawsz || n > rawsz - off)
        return;
    n = (uint32_t)strnlen((const char *)raw + off, n);
    slot[0] = (uint8_t)(n > CT_STR_MAX ? CT_STR_MAX | 0x80 : n);
    memcpy(slot + 1, raw + off, n > CT_STR_MAX ? CT_STR_MAX : n);
}

/* strncmp's and strncpy's strings (string3): at most the third argument's bytes. */
static void bound_string3(struct ct_call *k, uint8_t *slot)
{
    if (slot[0] == 0xff || slot[0] == CT_USTR_UNREADABLE || k->args[2] >= (slot[0] & 0x7f))
        return;
    slot[0] = (uint8_t)k->args[2];
}

void ct_ustr_to_call(struct ct_call *k, unsigned bits, const uint8_t (*slots)[CT_USTR_SLOT])
{
    const struct ct_uproto *p = ct_call_proto(k->func);
    bool string3 = k->func == CT_F_strncmp || k->func == CT_F_strncpy;
    k->nstr = 0;
    k->strarg = 0;
    for (unsigned a = 0; p && a < p->nargs && k->nstr < 2; a++) {
        if ((p->arg[a] != CT_T_STR && p->arg[a] != CT_T_STRN) || !(bits & (1u << a)))
            continue;
        unsigned j = (unsigned)__builtin_popcount(bits & ((1u << a) - 1));
        memcpy(k->str[k->nstr], slots[j], sizeof(k->str[0]));
        if (string3)
            bound_string3(k, k->str[k->nstr]);
        k->nstr++;
        k->strarg |= (uint8_t)(1u << a);
    }
}

void ct_ustr_ret_to_call(struct ct_call *k, const uint8_t *slot)
{
    const struct ct_uproto *p = ct_call_proto(k->func);
    k->has_rstr = p && p->ret == CT_T_STR && k->ret;
    if (k->has_rstr)
        memcpy(k->rstr, slot, sizeof(k->rstr));
}
