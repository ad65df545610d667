#include <capstone/capstone.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "annotate/disasm.h"

/* The destination of a direct jump or call (one immediate operand), if it is one. */
static bool direct_target(const cs_insn *in, uint64_t *target)
{
    const cs_x86 *x = &in->detail->x86;
    if (x->op_count != 1 || x->operands[0].type != X86_OP_IMM)
        return false;
    *target = (uint64_t)x->operands[0].imm;
    return true;
}

static void set_text(char *dst, size_t cap, const char *src)
{
    snprintf(dst, cap, "%s", src);
}

long ann_disasm(const uint8_t *code, size_t n, uint64_t vaddr, enum ann_syntax syntax,
                struct ann_insn **out)
{
    struct ann_insn *v = NULL;
    size_t cnt = 0, cap = 0;
    const uint8_t *c = code;
    size_t left = n;
    uint64_t addr = vaddr;
    cs_insn *in;
    csh h;

    *out = NULL;
    cs_err e = cs_open(CS_ARCH_X86, CS_MODE_64, &h);
    if (e != CS_ERR_OK)     /* MEMSETUP: libcapstone could not be loaded (src/lazylib/) */
        return e == CS_ERR_MEMSETUP ? -ELIBACC : -EINVAL;
    cs_option(h, CS_OPT_DETAIL, CS_OPT_ON);
    cs_option(h, CS_OPT_SYNTAX, syntax == ANN_INTEL ? CS_OPT_SYNTAX_INTEL : CS_OPT_SYNTAX_ATT);
    in = cs_malloc(h);
    if (!in) {
        cs_close(&h);
        return -ENOMEM;
    }
    while (left) {
        struct ann_insn *ai;
        uint64_t at = addr;

        if (cnt == cap) {
            size_t ncap = cap ? cap * 2 : 64;
            struct ann_insn *nv = realloc(v, ncap * sizeof(*v));
            if (!nv) {
                free(v);
                cs_free(in, 1);
                cs_close(&h);
                return -ENOMEM;
            }
            v = nv;
            cap = ncap;
        }
        ai = &v[cnt++];
        memset(ai, 0, sizeof(*ai));
        ai->addr = at;
        if (!cs_disasm_iter(h, &c, &left, &addr, in)) {
            ai->bad = true;
            ai->size = 1;
            set_text(ai->mnemonic, sizeof(ai->mnemonic), "(bad)");
            c++;
            left--;
            addr++;
            continue;
        }
        ai->size = (uint8_t)in->size;
        ai->jump = cs_insn_group(h, in, CS_GRP_JUMP);
        ai->call = cs_insn_group(h, in, CS_GRP_CALL);
        if (ai->jump || ai->call)
            ai->has_target = direct_target(in, &ai->target);
        set_text(ai->mnemonic, sizeof(ai->mnemonic), in->mnemonic);
        set_text(ai->operands, sizeof(ai->operands), in->op_str);
    }
    cs_free(in, 1);
    cs_close(&h);
    *out = v;
    return (long)cnt;
}
