/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include "unwind/callsite.h"
#include "unwind/cfi.h"
#include "util/hash.h"
#include "lazylib/x86insn.h"

#define CALL_REL32_LEN 5

struct site {
    const struct uw_cfi *cfi;
    uint64_t ret, target;        /* target 0: no direct call there */
    bool used;
};

struct uw_callsites {
    ZydisDecoder dec;
    bool open, tried;            /* the decoder is set up (libZydis loaded) at the first decode */
    struct site *tab;            /* open addressing on (cfi, ret) */
    size_t cap, n;
};

struct uw_callsites *uw_callsites_new(void)
{
    struct uw_callsites *cs = calloc(1, sizeof(*cs));
    return cs;
}

/* Most reports never need a call site (no frameless leaf to complete): libZydis is loaded
 * only when one does. */
static bool ready(struct uw_callsites *cs)
{
    if (!cs->tried) {
        cs->tried = true;
        cs->open = !x86_decoder_init(&cs->dec);
    }
    return cs->open;
}

void uw_callsites_free(struct uw_callsites *cs)
{
    if (!cs)
        return;
    free(cs->tab);
    free(cs);
}

void uw_callsites_clear(struct uw_callsites *cs)
{
    free(cs->tab);
    cs->tab = NULL;
    cs->cap = cs->n = 0;
}

static size_t slot(const struct uw_callsites *cs, const struct uw_cfi *c, uint64_t ret)
{
    return hash_u64(ret ^ (uint64_t)(uintptr_t)c) & (cs->cap - 1);
}

static struct site *lookup(struct uw_callsites *cs, const struct uw_cfi *c, uint64_t ret,
                           bool *fresh)
{
    if ((cs->n + 1) * 2 > cs->cap) {
        size_t cap = cs->cap ? cs->cap * 2 : 256;
        struct site *t = calloc(cap, sizeof(*t)), *old = cs->tab;
        size_t oldcap = cs->cap;
        if (!t)
            return NULL;
        cs->tab = t;
        cs->cap = cap;
        for (size_t i = 0; i < oldcap; i++) {
            if (!old[i].used)
                continue;
            size_t j = slot(cs, old[i].cfi, old[i].ret);
            while (t[j].used)
                j = (j + 1) & (cap - 1);
            t[j] = old[i];
        }
        free(old);
    }
    size_t j = slot(cs, c, ret);
    while (cs->tab[j].used) {
        if (cs->tab[j].cfi == c && cs->tab[j].ret == ret) {
            *fresh = false;
            return &cs->tab[j];
        }
        j = (j + 1) & (cs->cap - 1);
    }
    cs->tab[j] = (struct site){ .cfi = c, .ret = ret, .used = true };
    cs->n++;
    *fresh = true;
    return &cs->tab[j];
}

/* Decodes the 5 bytes before ret: a `call rel32` to a function's first byte, or nothing. */
static uint64_t decode(struct uw_callsites *cs, struct uw_cfi *c, uint64_t ret)
{
    uint8_t code[CALL_REL32_LEN];
    struct x86_insn in;
    uint64_t target = 0;

    if (ret < CALL_REL32_LEN || uw_cfi_code(c, ret - CALL_REL32_LEN, code, sizeof(code)) ||
        !ready(cs))
        return 0;
    if (!x86_decode(&cs->dec, code, sizeof(code), ret - CALL_REL32_LEN, &in))
        return 0;
    if (in.d.length != CALL_REL32_LEN || !x86_is_call(&in) || !x86_direct_target(&in, &target))
        target = 0;
    /* Bytes that only look like a call (the tail of a longer instruction) rarely land on a
     * symbol's first byte. */
    if (target && !uw_cfi_is_func_start(c, target))
        target = 0;
    return target;
}

int uw_call_target(struct uw_callsites *cs, struct uw_cfi *c, uint64_t ret_vaddr,
                   uint64_t *target)
{
    bool fresh;
    struct site *s = lookup(cs, c, ret_vaddr, &fresh);

    if (!s)
        return -ENOMEM;
    if (fresh)
        s->target = decode(cs, c, ret_vaddr);
    if (!s->target)
        return -ENOENT;
    *target = s->target;
    return 0;
}

int uw_direct_calls(struct uw_callsites *cs, struct uw_cfi *c, uint64_t start, uint64_t end,
                    uint64_t *targets, size_t max, size_t *n)
{
    uint8_t *code;
    size_t len = end - start, off = 0;
    struct x86_insn in;
    uint64_t target;

    *n = 0;
    if (end <= start || len > UW_SWEEP_MAX)
        return -ENOENT;
    if (!(code = malloc(len)))
        return -ENOMEM;
    if (uw_cfi_code(c, start, code, len) || !ready(cs)) {
        free(code);
        return -ENOENT;
    }
    /* A linear sweep that stops at the first bytes that do not decode. */
    while (*n < max && off < len && x86_decode(&cs->dec, code + off, len - off, start + off, &in)) {
        if ((x86_is_call(&in) || x86_is_uncond_jump(&in)) && x86_direct_target(&in, &target))
            targets[(*n)++] = target;
        off += in.d.length;
    }
    free(code);
    return 0;
}
