#include <capstone/capstone.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "trace/jump_code.h"

/* A capstone x86-64 decoder walking a buffer, with operand details. */
struct dec {
    csh h;
    cs_insn *in;
    const uint8_t *c;
    size_t left;
    uint64_t addr;
};

static int dec_open(struct dec *d, const uint8_t *code, size_t n, uint64_t vaddr)
{
    d->c = code;
    d->left = n;
    d->addr = vaddr;
    if (cs_open(CS_ARCH_X86, CS_MODE_64, &d->h) != CS_ERR_OK)
        return -ENOMEM;
    cs_option(d->h, CS_OPT_DETAIL, CS_OPT_ON);
    d->in = cs_malloc(d->h);
    if (!d->in) {
        cs_close(&d->h);
        return -ENOMEM;
    }
    return 0;
}

/* The next instruction, or false at the end. With `skip`, undecodable bytes are passed over
 * one at a time (a linear sweep through padding or data); without, they end the walk. */
static bool dec_next(struct dec *d, bool skip)
{
    while (d->left) {
        if (cs_disasm_iter(d->h, &d->c, &d->left, &d->addr, d->in))
            return true;
        if (!skip)
            return false;
        d->c++;
        d->left--;
        d->addr++;
    }
    return false;
}

static void dec_close(struct dec *d)
{
    cs_free(d->in, 1);
    cs_close(&d->h);
}

static bool is_control(csh h, const cs_insn *in)
{
    return cs_insn_group(h, in, CS_GRP_JUMP) || cs_insn_group(h, in, CS_GRP_CALL) ||
           cs_insn_group(h, in, CS_GRP_RET) || cs_insn_group(h, in, CS_GRP_INT) ||
           cs_insn_group(h, in, CS_GRP_IRET);
}

/* jmp *%rax, jmp *table(,%rax,8), ...: a target the code does not show. */
static bool is_indirect_jump(csh h, const cs_insn *in)
{
    return cs_insn_group(h, in, CS_GRP_JUMP) && in->detail->x86.op_count == 1 &&
           in->detail->x86.operands[0].type != X86_OP_IMM;
}

static bool reads_rip(const cs_insn *in)
{
    const cs_detail *d = in->detail;
    for (uint8_t i = 0; i < d->regs_read_count; i++)
        if (d->regs_read[i] == X86_REG_RIP)
            return true;
    for (uint8_t i = 0; i < d->x86.op_count; i++) {
        const cs_x86_op *op = &d->x86.operands[i];
        if (op->type == X86_OP_REG && op->reg == X86_REG_RIP)
            return true;
        if (op->type == X86_OP_MEM && (op->mem.base == X86_REG_RIP ||
                                       op->mem.index == X86_REG_RIP))
            return true;
    }
    return false;
}

static int add_fix(struct jump_prefix *p, unsigned disp_off, unsigned insn_end, uint64_t target)
{
    if (p->nfix == JUMP_MAX_FIX)
        return -EINVAL;
    p->fix[p->nfix].disp_off = disp_off;
    p->fix[p->nfix].insn_end = insn_end;
    p->fix[p->nfix].target = target;
    p->nfix++;
    return 0;
}

/* A conditional jump with an 8- or 32-bit displacement: its condition (0x0-0xf), else -1. */
static int jcc_condition(const cs_insn *in)
{
    const uint8_t *op = in->detail->x86.opcode;
    if (in->detail->x86.op_count != 1 || in->detail->x86.operands[0].type != X86_OP_IMM)
        return -1;
    if (op[0] >= 0x70 && op[0] <= 0x7f)
        return op[0] - 0x70;
    if (op[0] == 0x0f && op[1] >= 0x80 && op[1] <= 0x8f)
        return op[1] - 0x80;
    return -1;
}

/* The RIP-relative memory operand of `in` (copied to stub offset `at`), if we can rewrite it. */
static int rip_fix(const cs_insn *in, unsigned at, struct jump_prefix *p, char *why, size_t wl)
{
    const cs_x86 *x = &in->detail->x86;
    bool mem_rip = false;

    for (uint8_t i = 0; i < x->op_count; i++)
        if (x->operands[i].type == X86_OP_MEM && x->operands[i].mem.base == X86_REG_RIP &&
            x->operands[i].mem.index == X86_REG_INVALID)
            mem_rip = true;
    if (!mem_rip || x->encoding.disp_size != 4 || !x->encoding.disp_offset ||
        add_fix(p, at + x->encoding.disp_offset, at + in->size,
                in->address + in->size + (uint64_t)x->disp)) {
        snprintf(why, wl, "'%s %s' uses the instruction pointer in a way that cannot be moved",
                 in->mnemonic, in->op_str);
        return -EINVAL;
    }
    return 0;
}

int jump_code_prefix(const uint8_t *code, size_t size, uint64_t vaddr, struct jump_prefix *out,
                     char *why, size_t whylen)
{
    struct dec d;
    const cs_insn *in;
    int e;

    memset(out, 0, sizeof(*out));
    if ((e = dec_open(&d, code, size, vaddr)))
        return e;
    in = d.in;
    /* The prefix. */
    while (out->len < JUMP_MIN_LEN) {
        unsigned at = out->stub_len;
        int cc;
        if (!dec_next(&d, false)) {
            snprintf(why, whylen, "%s", d.left ? "its first bytes do not decode"
                                               : "it is shorter than 5 bytes");
            e = -EINVAL;
            goto out;
        }
        if (at + 6 > JUMP_MAX_STUB || at + in->size > JUMP_MAX_STUB) {
            snprintf(why, whylen, "its first instructions are too long to move");
            e = -EINVAL;
            goto out;
        }
        cc = cs_insn_group(d.h, in, CS_GRP_JUMP) ? jcc_condition(in) : -1;
        if (cc >= 0) {
            uint64_t t = (uint64_t)in->detail->x86.operands[0].imm;
            if (t >= vaddr && t < vaddr + out->len + in->size) {
                snprintf(why, whylen, "'%s %s' jumps back into its first bytes", in->mnemonic,
                         in->op_str);
                e = -EINVAL;
                goto out;
            }
            out->stub[at] = 0x0f;               /* jcc rel32 */
            out->stub[at + 1] = (uint8_t)(0x80 + cc);
            out->stub_len += 6;
            if (add_fix(out, at + 2, at + 6, t)) {
                snprintf(why, whylen, "too many references to move");
                e = -EINVAL;
                goto out;
            }
            out->len += in->size;
            continue;
        }
        if (is_control(d.h, in)) {
            snprintf(why, whylen, "'%s %s' within its first 5 bytes transfers control",
                     in->mnemonic, in->op_str);
            e = -EINVAL;
            goto out;
        }
        memcpy(out->stub + at, in->bytes, in->size);
        out->stub_len += in->size;
        if (reads_rip(in) && (e = rip_fix(in, at, out, why, whylen)))
            goto out;
        out->len += in->size;
    }
    /* The rest: an indirect jump might land inside the prefix (jump tables). */
    while (dec_next(&d, true)) {
        if (is_indirect_jump(d.h, in)) {
            snprintf(why, whylen, "it has an indirect jump ('%s %s' at 0x%llx), which could "
                     "land in its first bytes", in->mnemonic, in->op_str,
                     (unsigned long long)in->address);
            e = -EINVAL;
            goto out;
        }
    }
out:
    dec_close(&d);
    return e;
}

int jump_code_branch_targets(const uint8_t *code, size_t n, uint64_t vaddr,
                             void (*fn)(void *arg, uint64_t target), void *arg)
{
    struct dec d;
    int e;

    if ((e = dec_open(&d, code, n, vaddr)))
        return e;
    while (dec_next(&d, true)) {
        const cs_insn *in = d.in;
        const cs_x86 *x = &in->detail->x86;
        if ((cs_insn_group(d.h, in, CS_GRP_JUMP) || cs_insn_group(d.h, in, CS_GRP_CALL)) &&
            x->op_count == 1 && x->operands[0].type == X86_OP_IMM)
            fn(arg, (uint64_t)x->operands[0].imm);
        /* lea f+3(%rip): an address taken, maybe called through a pointer later. */
        for (uint8_t i = 0; i < x->op_count; i++)
            if (x->operands[i].type == X86_OP_MEM && x->operands[i].mem.base == X86_REG_RIP)
                fn(arg, in->address + in->size + (uint64_t)x->operands[i].mem.disp);
    }
    dec_close(&d);
    return 0;
}

int jump_code_check_function(const uint8_t *code, size_t n, uint64_t start, uint64_t point,
                             char *why, size_t whylen)
{
    bool boundary = point == start;
    struct dec d;
    int e;

    if ((e = dec_open(&d, code, n, start)))
        return e;
    while (!e && dec_next(&d, false)) {
        const cs_insn *in = d.in;
        boundary |= in->address == point;
        if (is_indirect_jump(d.h, in)) {
            snprintf(why, whylen, "its function has an indirect jump ('%s %s' at 0x%llx), which "
                     "could land in the bytes to move", in->mnemonic, in->op_str,
                     (unsigned long long)in->address);
            e = -EINVAL;
        }
    }
    if (!e && d.left) {
        snprintf(why, whylen, "its function does not decode at 0x%llx",
                 (unsigned long long)d.addr);
        e = -EINVAL;
    }
    if (!e && !boundary) {
        snprintf(why, whylen, "0x%llx is not the start of an instruction",
                 (unsigned long long)point);
        e = -EINVAL;
    }
    dec_close(&d);
    return e;
}
