/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lazylib/x86insn.h"

int x86_decoder_init(ZydisDecoder *dec)
{
    ZyanStatus s = ZydisDecoderInit(dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
    if (s == ZYAN_STATUS_MISSING_DEPENDENCY)
        return -ELIBACC;
    return ZYAN_SUCCESS(s) ? 0 : -EINVAL;
}

bool x86_decode(const ZydisDecoder *dec, const uint8_t *code, size_t n, uint64_t addr,
                struct x86_insn *out)
{
    out->addr = addr;
    out->bytes = code;
    return n && ZYAN_SUCCESS(ZydisDecoderDecodeFull(dec, code, n, &out->d, out->op));
}

bool x86_is_jump(const struct x86_insn *in)
{
    return in->d.meta.category == ZYDIS_CATEGORY_COND_BR ||
           in->d.meta.category == ZYDIS_CATEGORY_UNCOND_BR;
}

bool x86_is_uncond_jump(const struct x86_insn *in)
{
    return in->d.mnemonic == ZYDIS_MNEMONIC_JMP;
}

bool x86_is_call(const struct x86_insn *in)
{
    return in->d.meta.category == ZYDIS_CATEGORY_CALL;
}

bool x86_is_ret(const struct x86_insn *in)
{
    return in->d.mnemonic == ZYDIS_MNEMONIC_RET && in->d.meta.branch_type != ZYDIS_BRANCH_TYPE_FAR;
}

bool x86_is_iret(const struct x86_insn *in)
{
    ZydisMnemonic m = in->d.mnemonic;
    return m == ZYDIS_MNEMONIC_IRET || m == ZYDIS_MNEMONIC_IRETD || m == ZYDIS_MNEMONIC_IRETQ;
}

bool x86_is_int(const struct x86_insn *in)
{
    return in->d.meta.category == ZYDIS_CATEGORY_INTERRUPT;
}

bool x86_is_control(const struct x86_insn *in)
{
    ZydisInstructionCategory c = in->d.meta.category;
    return x86_is_jump(in) || x86_is_call(in) || in->d.mnemonic == ZYDIS_MNEMONIC_RET ||
           x86_is_iret(in) ||
           x86_is_int(in) || c == ZYDIS_CATEGORY_SYSCALL || c == ZYDIS_CATEGORY_SYSRET;
}

bool x86_direct_target(const struct x86_insn *in, uint64_t *target)
{
    const ZydisDecodedOperand *o = &in->op[0];
    if (!(x86_is_jump(in) || x86_is_call(in)) || in->d.operand_count_visible != 1 ||
        o->type != ZYDIS_OPERAND_TYPE_IMMEDIATE || !o->imm.is_relative)
        return false;
    *target = in->addr + in->d.length + (uint64_t)o->imm.value.s;
    return true;
}

const ZydisDecodedOperand *x86_indirect_operand(const struct x86_insn *in)
{
    const ZydisDecodedOperand *o = &in->op[0];
    if (!(x86_is_jump(in) || x86_is_call(in)) || in->d.operand_count_visible != 1 ||
        o->type == ZYDIS_OPERAND_TYPE_IMMEDIATE)
        return NULL;
    return o;
}

int x86_rip_operand(const struct x86_insn *in, uint64_t *addr)
{
    for (int i = 0; i < in->d.operand_count_visible; i++) {
        const ZydisDecodedOperand *o = &in->op[i];
        if (o->type == ZYDIS_OPERAND_TYPE_MEMORY && o->mem.base == ZYDIS_REGISTER_RIP &&
            o->mem.index == ZYDIS_REGISTER_NONE) {
            *addr = in->addr + in->d.length + (uint64_t)o->mem.disp.value;
            return i;
        }
    }
    return -1;
}

bool x86_uses_rip(const struct x86_insn *in)
{
    for (int i = 0; i < in->d.operand_count; i++) {
        const ZydisDecodedOperand *o = &in->op[i];
        if (o->type == ZYDIS_OPERAND_TYPE_REGISTER && o->reg.value == ZYDIS_REGISTER_RIP &&
            i < in->d.operand_count_visible)
            return true;
        if (o->type == ZYDIS_OPERAND_TYPE_MEMORY && (o->mem.base == ZYDIS_REGISTER_RIP ||
                                                     o->mem.index == ZYDIS_REGISTER_RIP))
            return true;
    }
    return false;
}

bool x86_writes_sp(const struct x86_insn *in)
{
    for (int i = 0; i < in->d.operand_count; i++) {
        const ZydisDecodedOperand *o = &in->op[i];
        ZydisRegister r = o->reg.value;
        if (o->type == ZYDIS_OPERAND_TYPE_REGISTER &&
            (o->actions & ZYDIS_OPERAND_ACTION_MASK_WRITE) &&
            (r == ZYDIS_REGISTER_RSP || r == ZYDIS_REGISTER_ESP || r == ZYDIS_REGISTER_SP ||
             r == ZYDIS_REGISTER_SPL))
            return true;
    }
    return false;
}

int x86_formatter_init(ZydisFormatter *f, enum x86_syntax syntax)
{
    ZyanStatus s = ZydisFormatterInit(f, syntax == X86_INTEL ? ZYDIS_FORMATTER_STYLE_INTEL
                                                             : ZYDIS_FORMATTER_STYLE_ATT);
    if (s == ZYAN_STATUS_MISSING_DEPENDENCY)
        return -ELIBACC;
    if (!ZYAN_SUCCESS(s))
        return -EINVAL;
    /* `0x2f0e(%rip)` as objdump writes it, not the address it refers to; `$0xffffffff` and
     * `$0x4`, not `$-0x01` and `$0x04`. */
    ZydisFormatterSetProperty(f, ZYDIS_FORMATTER_PROP_FORCE_RELATIVE_RIPREL, ZYAN_TRUE);
    ZydisFormatterSetProperty(f, ZYDIS_FORMATTER_PROP_IMM_SIGNEDNESS, ZYDIS_SIGNEDNESS_UNSIGNED);
    ZydisFormatterSetProperty(f, ZYDIS_FORMATTER_PROP_IMM_PADDING, ZYDIS_PADDING_DISABLED);
    ZydisFormatterSetProperty(f, ZYDIS_FORMATTER_PROP_DISP_PADDING, ZYDIS_PADDING_DISABLED);
    ZydisFormatterSetProperty(f, ZYDIS_FORMATTER_PROP_ADDR_PADDING_ABSOLUTE,
                              ZYDIS_PADDING_DISABLED);
    ZydisFormatterSetProperty(f, ZYDIS_FORMATTER_PROP_HEX_UPPERCASE, ZYAN_FALSE);
    return 0;
}

/* Where the mnemonic ends in the formatted text: after the word that starts with its name
 * (prefixes such as "lock" or "rep" come before it). */
static size_t mnemonic_end(const char *text, const char *name)
{
    size_t nl = strlen(name), i = 0;

    while (text[i]) {
        size_t w = strcspn(text + i, " ");
        if (nl && !strncmp(text + i, name, nl))
            return i + w;
        i += w;
        i += strspn(text + i, " ");
    }
    return strcspn(text, " ");
}

/* Zydis' condition-code spellings -> objdump's (jz -> je, setnbe -> seta, cmovnl -> cmovge). */
static const char *const cc_names[][2] = {
    { "z", "e" }, { "nz", "ne" }, { "nbe", "a" }, { "nb", "ae" }, { "nle", "g" }, { "nl", "ge" },
};

static void objdump_cc(char *word, size_t cap)
{
    static const char *const heads[] = { "j", "set", "cmov" };

    for (size_t h = 0; h < sizeof(heads) / sizeof(heads[0]); h++) {
        size_t hl = strlen(heads[h]);
        if (strncmp(word, heads[h], hl))
            continue;
        for (size_t i = 0; i < sizeof(cc_names) / sizeof(cc_names[0]); i++)
            if (!strcmp(word + hl, cc_names[i][0])) {
                snprintf(word + hl, cap - hl, "%s", cc_names[i][1]);
                return;
            }
    }
}

/* The predicates of vcmpps & co. (imm8, 32 of them) and vpcmp[u]b/w/d/q (the first 8). */
static const char *const cmp_pred[32] = {
    "eq", "lt", "le", "unord", "neq", "nlt", "nle", "ord", "eq_uq", "nge", "ngt", "false",
    "neq_oq", "ge", "gt", "true", "eq_os", "lt_oq", "le_oq", "unord_s", "neq_us", "nlt_uq",
    "nle_uq", "ord_s", "eq_us", "nge_uq", "ngt_uq", "false_os", "neq_os", "ge_oq", "gt_oq",
    "true_us",
};
static const char *const vpcmp_pred[8] = { "eq", "lt", "le", "false", "neq", "nlt", "nle",
                                           "true" };

/* `vpcmpub $0x4, a, b, k` -> `vpcmpnequb a, b, k` and `vcmpps $0x1, ...` -> `vcmpltps ...`,
 * as objdump writes them. word: the mnemonic (last word), ops: the operands. */
static void objdump_cmp(char *word, size_t cap, char *ops)
{
    static const char *const sse[] = { "ps", "pd", "ss", "sd", "ph", "sh" };
    char head[8], tail[4], *end;
    unsigned long imm;
    bool vp = !strncmp(word, "vpcmp", 5), v = !vp && !strncmp(word, "vcmp", 4);
    bool legacy = !vp && !v && !strncmp(word, "cmp", 3);

    if ((!vp && !v && !legacy) || strncmp(ops, "$0x", 3))
        return;
    imm = strtoul(ops + 1, &end, 16);
    if (strncmp(end, ", ", 2))
        return;
    snprintf(head, sizeof(head), "%s", vp ? "vpcmp" : v ? "vcmp" : "cmp");
    snprintf(tail, sizeof(tail), "%s", word + strlen(head));
    if (vp) {
        const char *sz = tail[0] == 'u' ? tail + 1 : tail;
        bool ok = strlen(sz) == 1 && strchr("bwdq", sz[0]);
        if (!ok || imm >= 8)
            return;
        snprintf(word, cap, "vpcmp%s%s", vpcmp_pred[imm], tail);
    } else {
        bool ok = false;
        for (size_t i = 0; i < sizeof(sse) / sizeof(sse[0]); i++)
            ok |= !strcmp(tail, sse[i]);
        if (!ok || imm >= (legacy ? 8u : 32u))
            return;
        snprintf(word, cap, "%s%s%s", head, cmp_pred[imm], tail);
    }
    memmove(ops, end + 2, strlen(end + 2) + 1);
}

/* Zydis' AT&T `vmovdqu8y (%rsi), %ymm18`: objdump writes the vector size (x, y, z) only when
 * no register operand has the memory operand's size (vcvtpd2psy (%rax), %xmm0). */
static void objdump_vector_size(char *word, const struct x86_insn *in)
{
    size_t wl = strlen(word), mem = 0;
    const char *base = ZydisMnemonicGetString(in->d.mnemonic);
    bool same = false;

    if (!wl || !strchr("xyz", word[wl - 1]) || strlen(base) != wl - 1 ||
        strncmp(word, base, wl - 1))
        return;
    for (unsigned i = 0; i < in->d.operand_count_visible; i++)
        if (in->op[i].type == ZYDIS_OPERAND_TYPE_MEMORY)
            mem = in->op[i].size;
    for (unsigned i = 0; i < in->d.operand_count_visible; i++)
        same |= in->op[i].type == ZYDIS_OPERAND_TYPE_REGISTER && in->op[i].size == mem;
    if (mem && same)
        word[wl - 1] = '\0';
}

void x86_text(const ZydisFormatter *f, const struct x86_insn *in, char *mnemonic, size_t ml,
              char *operands, size_t ol)
{
    char buf[256], *word;
    size_t end;

    if (!ZYAN_SUCCESS(ZydisFormatterFormatInstruction(f, &in->d, in->op,
                                                      in->d.operand_count_visible, buf,
                                                      sizeof(buf), in->addr, NULL)))
        snprintf(buf, sizeof(buf), "%s", ZydisMnemonicGetString(in->d.mnemonic));
    end = mnemonic_end(buf, ZydisMnemonicGetString(in->d.mnemonic));
    snprintf(operands, ol, "%s", buf + end + strspn(buf + end, " "));
    buf[end] = '\0';
    word = strrchr(buf, ' ') ? strrchr(buf, ' ') + 1 : buf;
    objdump_vector_size(word, in);
    objdump_cc(word, sizeof(buf) - (size_t)(word - buf));
    objdump_cmp(word, sizeof(buf) - (size_t)(word - buf), operands);
    snprintf(mnemonic, ml, "%s", buf);
}
