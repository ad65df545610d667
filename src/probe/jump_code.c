#include <capstone/capstone.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "probe/jump_code.h"

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

/* With `to_ret`, a `ret` may end the prefix (it runs the same in the stub). */
static int make_prefix(const uint8_t *code, size_t size, uint64_t vaddr, bool to_ret,
                       struct jump_prefix *out, char *why, size_t whylen)
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
        if (to_ret && in->id == X86_INS_RET) {
            memcpy(out->stub + at, in->bytes, in->size);
            out->stub_len += in->size;
            out->len += in->size;
            break;
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
    if (out->len < JUMP_MIN_LEN) {
        snprintf(why, whylen, "fewer than 5 bytes up to its return");
        e = -EINVAL;
        goto out;
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

int jump_code_prefix(const uint8_t *code, size_t size, uint64_t vaddr, struct jump_prefix *out,
                     char *why, size_t whylen)
{
    return make_prefix(code, size, vaddr, false, out, why, whylen);
}

int jump_code_prefix_to_ret(const uint8_t *code, size_t size, uint64_t vaddr,
                            struct jump_prefix *out, char *why, size_t whylen)
{
    return make_prefix(code, size, vaddr, true, out, why, whylen);
}

/* How much `in` moves the stack pointer, when that is known from the instruction alone. */
static bool sp_effect(csh h, const cs_insn *in, int64_t *d)
{
    const cs_x86 *x = &in->detail->x86;
    const cs_x86_op *o = x->operands;
    cs_regs rr, rw;
    uint8_t nr, nw;

    *d = 0;
    if (is_control(h, in))
        return false;
    if (in->id == X86_INS_POP && x->op_count == 1 && o[0].type == X86_OP_REG &&
        o[0].reg != X86_REG_RSP) {
        *d = 8;
        return true;
    }
    if (in->id == X86_INS_PUSH) {
        *d = -8;
        return true;
    }
    if ((in->id == X86_INS_ADD || in->id == X86_INS_SUB) && x->op_count == 2 &&
        o[0].type == X86_OP_REG && o[0].reg == X86_REG_RSP && o[1].type == X86_OP_IMM) {
        *d = in->id == X86_INS_ADD ? o[1].imm : -o[1].imm;
        return true;
    }
    if (in->id == X86_INS_LEA && x->op_count == 2 && o[0].type == X86_OP_REG &&
        o[0].reg == X86_REG_RSP && o[1].mem.base == X86_REG_RSP &&
        o[1].mem.index == X86_REG_INVALID) {
        *d = o[1].mem.disp;
        return true;
    }
    if (cs_regs_access(h, in, rr, &nr, rw, &nw) != CS_ERR_OK)
        return false;
    for (uint8_t i = 0; i < nw; i++)
        if (rw[i] == X86_REG_RSP || rw[i] == X86_REG_ESP || rw[i] == X86_REG_SP)
            return false;
    return true;
}

#define EXIT_RUN 8
int jump_code_exit_point(const uint8_t *code, size_t n, uint64_t start, uint64_t ret_addr,
                         uint64_t *point, int64_t *sp_delta, char *why, size_t whylen)
{
    struct { uint64_t addr; unsigned size; bool known; int64_t d; } run[EXIT_RUN];
    unsigned nrun = 0, bytes;
    struct dec d;
    int e;

    if ((e = dec_open(&d, code, n, start)))
        return e;
    e = -EINVAL;
    snprintf(why, whylen, "its code does not decode up to the return at 0x%llx",
             (unsigned long long)ret_addr);
    while (dec_next(&d, false) && d.in->address <= ret_addr) {
        const cs_insn *in = d.in;
        if (in->address == ret_addr) {
            if (in->id != X86_INS_RET) {
                snprintf(why, whylen, "%s", in->id == X86_INS_JMP ? "it is a tail call (a jmp, "
                         "which the kernel emulates: no single-step)" : "it is not a return");
                break;
            }
            /* Back from the ret over whole instructions until 5 bytes are covered. */
            bytes = in->size;
            *sp_delta = 0;
            for (unsigned k = 0; k < nrun && k < EXIT_RUN; k++) {
                unsigned i = (nrun - 1 - k) % EXIT_RUN;
                if (!run[i].known) {
                    snprintf(why, whylen, "the instruction before its return at 0x%llx "
                             "transfers control or moves the stack pointer in a way that is "
                             "not known", (unsigned long long)run[i].addr);
                    break;
                }
                bytes += run[i].size;
                *sp_delta += run[i].d;
                if (bytes >= JUMP_MIN_LEN) {
                    *point = run[i].addr;
                    e = 0;
                    break;
                }
            }
            if (e && bytes < JUMP_MIN_LEN && nrun < EXIT_RUN)
                snprintf(why, whylen, "fewer than 5 bytes of code before its return");
            break;
        }
        run[nrun % EXIT_RUN].addr = in->address;
        run[nrun % EXIT_RUN].size = in->size;
        run[nrun % EXIT_RUN].known = sp_effect(d.h, in, &run[nrun % EXIT_RUN].d);
        nrun++;
    }
    dec_close(&d);
    if (!e)
        why[0] = '\0';
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

static bool in_parts(const struct code_part *parts, size_t nparts, uint64_t a)
{
    for (size_t i = 0; i < nparts; i++)
        if (a >= parts[i].vaddr && a - parts[i].vaddr < parts[i].n)
            return true;
    return false;
}

/* An indirect jump that dispatches through a jump table: `jmp *t(,%r,8)` (no base), or
 * `jmp *%r` right after `add %x,%r` (gcc's position-independent tables: the table's address
 * plus a signed offset read from it). */
static bool is_table_jump(const cs_insn *in, x86_reg prev_add_dst)
{
    const cs_x86_op *op = &in->detail->x86.operands[0];
    if (op->type == X86_OP_MEM)
        return op->mem.base == X86_REG_INVALID && op->mem.index != X86_REG_INVALID;
    return op->type == X86_OP_REG && op->reg == prev_add_dst;
}

static int exits_of_part(struct dec *d, const struct code_part *parts, size_t nparts,
                         uint64_t entry, uint64_t *exits, size_t *nexits, char *why, size_t wl)
{
    x86_reg prev_add_dst = X86_REG_INVALID;

    while (dec_next(d, false)) {
        const cs_insn *in = d->in;
        const cs_x86 *x = &in->detail->x86;
        bool exit = false;
        x86_reg add_dst = X86_REG_INVALID;

        if (cs_insn_group(d->h, in, CS_GRP_RET) && (in->id == X86_INS_RET)) {
            exit = true;
        } else if (cs_insn_group(d->h, in, CS_GRP_JUMP) && x->op_count == 1 &&
                   x->operands[0].type == X86_OP_IMM) {
            uint64_t t = (uint64_t)x->operands[0].imm;
            if (t == entry || !in_parts(parts, nparts, t)) {
                if (in->id != X86_INS_JMP) {
                    snprintf(why, wl, "'%s %s' at 0x%llx may leave it (a conditional tail "
                             "call)", in->mnemonic, in->op_str,
                             (unsigned long long)in->address);
                    return -EINVAL;
                }
                exit = true;
            }
        } else if (cs_insn_group(d->h, in, CS_GRP_JUMP)) {
            const cs_x86_op *op = &x->operands[0];
            if (x->op_count == 1 && op->type == X86_OP_MEM && op->mem.base == X86_REG_RIP &&
                op->mem.index == X86_REG_INVALID) {
                exit = true;            /* jmp *f@GOTPCREL(%rip): a tail call */
            } else if (x->op_count != 1 || !is_table_jump(in, prev_add_dst)) {
                snprintf(why, wl, "it has an indirect jump ('%s %s' at 0x%llx) that may leave "
                         "it", in->mnemonic, in->op_str, (unsigned long long)in->address);
                return -EINVAL;
            }
        } else if (cs_insn_group(d->h, in, CS_GRP_RET) || cs_insn_group(d->h, in, CS_GRP_IRET)) {
            snprintf(why, wl, "'%s' at 0x%llx leaves it in an unusual way", in->mnemonic,
                     (unsigned long long)in->address);
            return -EINVAL;
        }
        if (in->id == X86_INS_ADD && x->op_count == 2 && x->operands[0].type == X86_OP_REG &&
            x->operands[1].type == X86_OP_REG)
            add_dst = x->operands[0].reg;
        prev_add_dst = add_dst;
        if (!exit)
            continue;
        if (*nexits == CODE_MAX_EXITS) {
            snprintf(why, wl, "it has more than %d returns and tail calls", CODE_MAX_EXITS);
            return -EINVAL;
        }
        exits[(*nexits)++] = in->address;
    }
    if (d->left) {
        snprintf(why, wl, "its code does not decode at 0x%llx", (unsigned long long)d->addr);
        return -EINVAL;
    }
    return 0;
}

int jump_code_exits(const struct code_part *parts, size_t nparts, uint64_t entry,
                    uint64_t *exits, size_t *nexits, char *why, size_t whylen)
{
    int e = 0;

    *nexits = 0;
    for (size_t i = 0; i < nparts && !e; i++) {
        struct dec d;
        if ((e = dec_open(&d, parts[i].code, parts[i].n, parts[i].vaddr)))
            return e;
        e = exits_of_part(&d, parts, nparts, entry, exits, nexits, why, whylen);
        dec_close(&d);
    }
    return e;
}

bool jump_code_falls_through(const uint8_t *code, size_t n, uint64_t vaddr,
                             uint64_t *call_target)
{
    bool falls = true, any = false;
    struct dec d;

    *call_target = 0;
    if (dec_open(&d, code, n, vaddr))
        return true;
    while (dec_next(&d, false)) {
        const cs_x86 *x = &d.in->detail->x86;
        unsigned id = d.in->id;
        any = true;
        *call_target = 0;
        falls = !(id == X86_INS_JMP || id == X86_INS_RET || id == X86_INS_UD2 ||
                  id == X86_INS_INT3);
        if (id == X86_INS_CALL && x->op_count == 1 && x->operands[0].type == X86_OP_IMM)
            *call_target = (uint64_t)x->operands[0].imm;
    }
    if (d.left || !any)
        falls = true;
    dec_close(&d);
    return falls;
}
