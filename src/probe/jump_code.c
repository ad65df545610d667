/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "probe/jump_code.h"
#include "lazylib/x86insn.h"

/* An x86-64 decoder walking a buffer. */
struct dec {
    ZydisDecoder z;
    ZydisFormatter f;
    struct x86_insn in;
    const uint8_t *c;
    size_t left;
    uint64_t addr;
    char text[256];          /* the last instruction shown by insn_text */
};

static int dec_open(struct dec *d, const uint8_t *code, size_t n, uint64_t vaddr)
{
    int e;
    d->c = code;
    d->left = n;
    d->addr = vaddr;
    if ((e = x86_decoder_init(&d->z)) || (e = x86_formatter_init(&d->f, X86_ATT)))
        return e;
    return 0;
}

/* The next instruction, or false at the end. With `skip`, undecodable bytes are passed over
 * one at a time (a linear sweep through padding or data); without, they end the walk. */
static bool dec_next(struct dec *d, bool skip)
{
    while (d->left) {
        if (x86_decode(&d->z, d->c, d->left, d->addr, &d->in)) {
            d->c += d->in.d.length;
            d->left -= d->in.d.length;
            d->addr += d->in.d.length;
            return true;
        }
        if (!skip)
            return false;
        d->c++;
        d->left--;
        d->addr++;
    }
    return false;
}

/* The current instruction as "mnemonic operands", for messages. */
static const char *insn_text(struct dec *d)
{
    char mn[64], ops[160];
    x86_text(&d->f, &d->in, mn, sizeof(mn), ops, sizeof(ops));
    snprintf(d->text, sizeof(d->text), "%s%s%s", mn, ops[0] ? " " : "", ops);
    return d->text;
}

/* jmp *%rax, jmp *table(,%rax,8), ...: a target the code does not show. */
static bool is_indirect_jump(const struct x86_insn *in)
{
    return x86_is_jump(in) && x86_indirect_operand(in);
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
static int jcc_condition(const struct x86_insn *in)
{
    uint64_t t;
    if (in->d.encoding != ZYDIS_INSTRUCTION_ENCODING_LEGACY || !x86_direct_target(in, &t))
        return -1;
    if (in->d.opcode_map == ZYDIS_OPCODE_MAP_DEFAULT && in->d.opcode >= 0x70 &&
        in->d.opcode <= 0x7f)
        return in->d.opcode - 0x70;
    if (in->d.opcode_map == ZYDIS_OPCODE_MAP_0F && in->d.opcode >= 0x80 && in->d.opcode <= 0x8f)
        return in->d.opcode - 0x80;
    return -1;
}

/* The RIP-relative memory operand of the current instruction (copied to stub offset `at`),
 * if we can rewrite it. */
static int rip_fix(struct dec *d, unsigned at, struct jump_prefix *p, char *why, size_t wl)
{
    const struct x86_insn *in = &d->in;
    uint64_t target;

    if (x86_rip_operand(in, &target) < 0 || in->d.raw.disp.size != 32 ||
        !in->d.raw.disp.offset ||
        add_fix(p, at + in->d.raw.disp.offset, at + in->d.length, target)) {
        snprintf(why, wl, "'%s' uses the instruction pointer in a way that cannot be moved",
                 insn_text(d));
        return -EINVAL;
    }
    return 0;
}

/* Copies one conditional jump (condition cc, target t) to the stub as `jcc rel32`. */
static int move_jcc(struct dec *d, int cc, uint64_t vaddr, struct jump_prefix *out, char *why,
                    size_t whylen)
{
    unsigned at = out->stub_len;
    uint64_t t = 0;

    x86_direct_target(&d->in, &t);
    if (t >= vaddr && t < vaddr + out->len + d->in.d.length) {
        snprintf(why, whylen, "'%s' jumps back into its first bytes", insn_text(d));
        return -EINVAL;
    }
    out->stub[at] = 0x0f;
    out->stub[at + 1] = (uint8_t)(0x80 + cc);
    out->stub_len += 6;
    if (add_fix(out, at + 2, at + 6, t)) {
        snprintf(why, whylen, "too many references to move");
        return -EINVAL;
    }
    out->len += d->in.d.length;
    return 0;
}

/* Copies the current instruction to the stub as it is (RIP-relative operands fixed later). */
static int move_copy(struct dec *d, struct jump_prefix *out, char *why, size_t whylen)
{
    unsigned at = out->stub_len;
    const struct x86_insn *in = &d->in;
    int e;

    memcpy(out->stub + at, in->bytes, in->d.length);
    out->stub_len += in->d.length;
    if (x86_uses_rip(in) && (e = rip_fix(d, at, out, why, whylen)))
        return e;
    out->len += in->d.length;
    return 0;
}

/* The instructions covering the first JUMP_MIN_LEN bytes, moved to out's stub. */
static int move_first(struct dec *d, uint64_t vaddr, bool to_ret, struct jump_prefix *out,
                      char *why, size_t whylen)
{
    const struct x86_insn *in = &d->in;
    int e, cc;

    while (out->len < JUMP_MIN_LEN) {
        unsigned at = out->stub_len;
        if (!dec_next(d, false)) {
            snprintf(why, whylen, "%s", d->left ? "its first bytes do not decode"
                                                : "it is shorter than 5 bytes");
            return -EINVAL;
        }
        if (at + 6 > JUMP_MAX_STUB || at + in->d.length > JUMP_MAX_STUB) {
            snprintf(why, whylen, "its first instructions are too long to move");
            return -EINVAL;
        }
        cc = x86_is_jump(in) ? jcc_condition(in) : -1;
        if (cc >= 0) {
            if ((e = move_jcc(d, cc, vaddr, out, why, whylen)))
                return e;
            continue;
        }
        if (to_ret && x86_is_ret(in)) {
            memcpy(out->stub + at, in->bytes, in->d.length);
            out->stub_len += in->d.length;
            out->len += in->d.length;
            break;
        }
        if (x86_is_control(in)) {
            snprintf(why, whylen, "'%s' within its first 5 bytes transfers control",
                     insn_text(d));
            return -EINVAL;
        }
        if ((e = move_copy(d, out, why, whylen)))
            return e;
    }
    if (out->len < JUMP_MIN_LEN) {
        snprintf(why, whylen, "fewer than 5 bytes up to its return");
        return -EINVAL;
    }
    return 0;
}

/* With `to_ret`, a `ret` may end the prefix (it runs the same in the stub). */
static int make_prefix(const uint8_t *code, size_t size, uint64_t vaddr, bool to_ret,
                       struct jump_prefix *out, char *why, size_t whylen)
{
    struct dec d;
    int e;

    memset(out, 0, sizeof(*out));
    if ((e = dec_open(&d, code, size, vaddr)))
        return e;
    if ((e = move_first(&d, vaddr, to_ret, out, why, whylen)))
        return e;
    /* The rest: an indirect jump might land inside the prefix (jump tables). */
    while (dec_next(&d, true)) {
        if (is_indirect_jump(&d.in)) {
            snprintf(why, whylen, "it has an indirect jump ('%s' at 0x%llx), which could "
                     "land in its first bytes", insn_text(&d), (unsigned long long)d.in.addr);
            return -EINVAL;
        }
    }
    return 0;
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

static bool is_reg(const ZydisDecodedOperand *o, ZydisRegister r)
{
    return o->type == ZYDIS_OPERAND_TYPE_REGISTER && o->reg.value == r;
}

/* How much `in` moves the stack pointer, when that is known from the instruction alone. */
static bool sp_effect(const struct x86_insn *in, int64_t *d)
{
    const ZydisDecodedOperand *o = in->op;
    ZydisMnemonic m = in->d.mnemonic;
    unsigned nvis = in->d.operand_count_visible;

    *d = 0;
    if (x86_is_control(in))
        return false;
    if (m == ZYDIS_MNEMONIC_POP && nvis == 1 && o[0].type == ZYDIS_OPERAND_TYPE_REGISTER &&
        !is_reg(&o[0], ZYDIS_REGISTER_RSP)) {
        *d = 8;
        return true;
    }
    if (m == ZYDIS_MNEMONIC_PUSH) {
        *d = -8;
        return true;
    }
    if ((m == ZYDIS_MNEMONIC_ADD || m == ZYDIS_MNEMONIC_SUB) && nvis == 2 &&
        is_reg(&o[0], ZYDIS_REGISTER_RSP) && o[1].type == ZYDIS_OPERAND_TYPE_IMMEDIATE) {
        *d = m == ZYDIS_MNEMONIC_ADD ? o[1].imm.value.s : -o[1].imm.value.s;
        return true;
    }
    if (m == ZYDIS_MNEMONIC_LEA && nvis == 2 && is_reg(&o[0], ZYDIS_REGISTER_RSP) &&
        o[1].mem.base == ZYDIS_REGISTER_RSP && o[1].mem.index == ZYDIS_REGISTER_NONE) {
        *d = o[1].mem.disp.value;
        return true;
    }
    return !x86_writes_sp(in);
}

/* At the `ret` at ret_addr: back over whole instructions (run, the last nrun decoded before
 * it) until 5 bytes are covered. */
struct run_insn {
    uint64_t addr;
    unsigned size;
    bool known;
    int64_t d;
};
#define EXIT_RUN 8
static int back_from_ret(const struct run_insn *run, unsigned nrun, unsigned ret_size,
                         uint64_t *point, int64_t *sp_delta, char *why, size_t whylen)
{
    unsigned bytes = ret_size;

    *sp_delta = 0;
    for (unsigned k = 0; k < nrun && k < EXIT_RUN; k++) {
        unsigned i = (nrun - 1 - k) % EXIT_RUN;
        if (!run[i].known) {
            snprintf(why, whylen, "the instruction before its return at 0x%llx transfers "
                     "control or moves the stack pointer in a way that is not known",
                     (unsigned long long)run[i].addr);
            return -EINVAL;
        }
        bytes += run[i].size;
        *sp_delta += run[i].d;
        if (bytes >= JUMP_MIN_LEN) {
            *point = run[i].addr;
            return 0;
        }
    }
    if (nrun < EXIT_RUN)
        snprintf(why, whylen, "fewer than 5 bytes of code before its return");
    return -EINVAL;
}

int jump_code_exit_point(const uint8_t *code, size_t n, uint64_t start, uint64_t ret_addr,
                         uint64_t *point, int64_t *sp_delta, char *why, size_t whylen)
{
    struct run_insn run[EXIT_RUN];
    unsigned nrun = 0;
    struct dec d;
    int e;

    if ((e = dec_open(&d, code, n, start)))
        return e;
    e = -EINVAL;
    snprintf(why, whylen, "its code does not decode up to the return at 0x%llx",
             (unsigned long long)ret_addr);
    while (dec_next(&d, false) && d.in.addr <= ret_addr) {
        const struct x86_insn *in = &d.in;
        struct run_insn *r = &run[nrun % EXIT_RUN];
        if (in->addr == ret_addr) {
            if (!x86_is_ret(in))
                snprintf(why, whylen, "%s", x86_is_uncond_jump(in) ? "it is a tail call (a "
                         "jmp, which the kernel emulates: no single-step)" : "it is not a return");
            else
                e = back_from_ret(run, nrun, in->d.length, point, sp_delta, why, whylen);
            break;
        }
        r->addr = in->addr;
        r->size = in->d.length;
        r->known = sp_effect(in, &r->d);
        nrun++;
    }
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
        const struct x86_insn *in = &d.in;
        uint64_t t;
        if (x86_direct_target(in, &t))
            fn(arg, t);
        /* lea f+3(%rip): an address taken, maybe called through a pointer later. */
        for (unsigned i = 0; i < in->d.operand_count_visible; i++)
            if (in->op[i].type == ZYDIS_OPERAND_TYPE_MEMORY &&
                in->op[i].mem.base == ZYDIS_REGISTER_RIP)
                fn(arg, in->addr + in->d.length + (uint64_t)in->op[i].mem.disp.value);
    }
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
        boundary |= d.in.addr == point;
        if (is_indirect_jump(&d.in)) {
            snprintf(why, whylen, "its function has an indirect jump ('%s' at 0x%llx), which "
                     "could land in the bytes to move", insn_text(&d),
                     (unsigned long long)d.in.addr);
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
static bool is_table_jump(const ZydisDecodedOperand *op, ZydisRegister prev_add_dst)
{
    if (op->type == ZYDIS_OPERAND_TYPE_MEMORY)
        return op->mem.base == ZYDIS_REGISTER_NONE && op->mem.index != ZYDIS_REGISTER_NONE;
    return prev_add_dst != ZYDIS_REGISTER_NONE && is_reg(op, prev_add_dst);
}

/* Is the current instruction an exit (a ret, a tail call)? 0 with *exit set, or -EINVAL with
 * the reason when the function's exits cannot be known from it. */
static int classify_exit(struct dec *d, const struct code_part *parts, size_t nparts,
                         uint64_t entry, ZydisRegister prev_add_dst, bool *exit, char *why,
                         size_t wl)
{
    const struct x86_insn *in = &d->in;
    const ZydisDecodedOperand *op = x86_indirect_operand(in);
    uint64_t t;

    *exit = false;
    if (x86_is_ret(in)) {
        *exit = true;
    } else if (x86_is_jump(in) && x86_direct_target(in, &t)) {
        if (t == entry || !in_parts(parts, nparts, t)) {
            if (!x86_is_uncond_jump(in)) {
                snprintf(why, wl, "'%s' at 0x%llx may leave it (a conditional tail call)",
                         insn_text(d), (unsigned long long)in->addr);
                return -EINVAL;
            }
            *exit = true;
        }
    } else if (x86_is_jump(in)) {
        if (op && op->type == ZYDIS_OPERAND_TYPE_MEMORY && op->mem.base == ZYDIS_REGISTER_RIP &&
            op->mem.index == ZYDIS_REGISTER_NONE) {
            *exit = true;            /* jmp *f@GOTPCREL(%rip): a tail call */
        } else if (!op || !is_table_jump(op, prev_add_dst)) {
            snprintf(why, wl, "it has an indirect jump ('%s' at 0x%llx) that may leave it",
                     insn_text(d), (unsigned long long)in->addr);
            return -EINVAL;
        }
    } else if (in->d.mnemonic == ZYDIS_MNEMONIC_RET || x86_is_iret(in)) {
        snprintf(why, wl, "'%s' at 0x%llx leaves it in an unusual way", insn_text(d),
                 (unsigned long long)in->addr);
        return -EINVAL;
    }
    return 0;
}

static int exits_of_part(struct dec *d, const struct code_part *parts, size_t nparts,
                         uint64_t entry, uint64_t *exits, size_t *nexits, char *why, size_t wl)
{
    ZydisRegister prev_add_dst = ZYDIS_REGISTER_NONE;

    while (dec_next(d, false)) {
        const struct x86_insn *in = &d->in;
        ZydisRegister add_dst = ZYDIS_REGISTER_NONE;
        bool exit;
        int e;

        if ((e = classify_exit(d, parts, nparts, entry, prev_add_dst, &exit, why, wl)))
            return e;
        if (in->d.mnemonic == ZYDIS_MNEMONIC_ADD && in->d.operand_count_visible == 2 &&
            in->op[0].type == ZYDIS_OPERAND_TYPE_REGISTER &&
            in->op[1].type == ZYDIS_OPERAND_TYPE_REGISTER)
            add_dst = in->op[0].reg.value;
        prev_add_dst = add_dst;
        if (!exit)
            continue;
        if (*nexits == CODE_MAX_EXITS) {
            snprintf(why, wl, "it has more than %d returns and tail calls", CODE_MAX_EXITS);
            return -EINVAL;
        }
        exits[(*nexits)++] = in->addr;
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
        const struct x86_insn *in = &d.in;
        ZydisMnemonic m = in->d.mnemonic;
        any = true;
        *call_target = 0;
        falls = !(m == ZYDIS_MNEMONIC_JMP || x86_is_ret(in) || m == ZYDIS_MNEMONIC_UD2 ||
                  m == ZYDIS_MNEMONIC_INT3);
        if (x86_is_call(in))
            x86_direct_target(in, call_target);
    }
    if (d.left || !any)
        falls = true;
    return falls;
}
