/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "annotate/disasm.h"
#include "lazylib/x86insn.h"

static void set_bad(struct ann_insn *ai)
{
    ai->bad = true;
    ai->size = 1;
    snprintf(ai->mnemonic, sizeof(ai->mnemonic), "(bad)");
}

static void set_insn(struct ann_insn *ai, const ZydisFormatter *f, const struct x86_insn *in)
{
    ai->size = in->d.length;
    ai->jump = x86_is_jump(in);
    ai->call = x86_is_call(in);
    ai->has_target = x86_direct_target(in, &ai->target);
    x86_text(f, in, ai->mnemonic, sizeof(ai->mnemonic), ai->operands, sizeof(ai->operands));
}

/* `fwait; fnstsw` is the one instruction `fstsw` (9b dd /7 in the SDM, one row in objdump):
 * Zydis decodes the wait apart. in: the fwait at code[0]. */
static void merge_wait(struct ann_insn *ai, const ZydisDecoder *dec, const ZydisFormatter *f,
                       const uint8_t *code, size_t n, uint64_t addr)
{
    static const ZydisMnemonic waited[] = {
        ZYDIS_MNEMONIC_FNSTSW, ZYDIS_MNEMONIC_FNSTCW, ZYDIS_MNEMONIC_FNCLEX,
        ZYDIS_MNEMONIC_FNINIT, ZYDIS_MNEMONIC_FNSAVE, ZYDIS_MNEMONIC_FNSTENV,
    };
    struct x86_insn next;
    char mn[sizeof(ai->mnemonic)];

    if (n < 2 || !x86_decode(dec, code + 1, n - 1, addr + 1, &next))
        return;
    for (size_t i = 0; i < sizeof(waited) / sizeof(waited[0]); i++) {
        if (next.d.mnemonic != waited[i] || ai->size + next.d.length > UINT8_MAX)
            continue;
        x86_text(f, &next, mn, sizeof(mn), ai->operands, sizeof(ai->operands));
        /* fnstsw -> fstsw */
        snprintf(ai->mnemonic, sizeof(ai->mnemonic), "f%.30s", mn + 2 * (mn[0] == 'f' &&
                                                                          mn[1] == 'n'));
        ai->size = (uint8_t)(ai->size + next.d.length);
        return;
    }
}

static int grow(struct ann_insn **v, size_t *cap, size_t cnt)
{
    size_t ncap = *cap ? *cap * 2 : 64;
    struct ann_insn *nv;

    if (cnt < *cap)
        return 0;
    if (!(nv = realloc(*v, ncap * sizeof(**v))))
        return -ENOMEM;
    *v = nv;
    *cap = ncap;
    return 0;
}

long ann_disasm(const uint8_t *code, size_t n, uint64_t vaddr, enum ann_syntax syntax,
                struct ann_insn **out)
{
    struct ann_insn *v = NULL;
    size_t cnt = 0, cap = 0, off = 0;
    ZydisDecoder dec;
    ZydisFormatter fmt;
    int e;

    *out = NULL;
    if ((e = x86_decoder_init(&dec)) ||
        (e = x86_formatter_init(&fmt, syntax == ANN_INTEL ? X86_INTEL : X86_ATT)))
        return e;
    while (off < n) {
        struct x86_insn in;
        struct ann_insn *ai;

        if (grow(&v, &cap, cnt)) {
            free(v);
            return -ENOMEM;
        }
        ai = &v[cnt++];
        memset(ai, 0, sizeof(*ai));
        ai->addr = vaddr + off;
        if (!x86_decode(&dec, code + off, n - off, vaddr + off, &in))
            set_bad(ai);
        else
            set_insn(ai, &fmt, &in);
        if (!ai->bad && in.d.mnemonic == ZYDIS_MNEMONIC_FWAIT)
            merge_wait(ai, &dec, &fmt, code + off, n - off, vaddr + off);
        memcpy(ai->bytes, code + off, ai->size < sizeof(ai->bytes) ? ai->size
                                                                   : sizeof(ai->bytes));
        off += ai->size;
    }
    *out = v;
    return (long)cnt;
}
