/* SPDX-License-Identifier: MIT */
/* One function's code -> blocks of one source line, entered only at their start (Zydis). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "lines/lines.h"

enum insn_kind { I_PLAIN, I_JCC, I_JMP, I_IJMP, I_STOP };

struct insn {
    uint64_t table;             /* I_IJMP through `jmp *table(,%r,8)` (absolute entries) */
    uint64_t addr;
    uint16_t size;
    uint8_t kind;
    bool leader, ext, call, nop, unsafe, select, packed, is_ret;
    bool flow;                  /* a leader for control flow's sake, not a line change */
    bool reached;               /* a branch target, an address taken, or fallen into */
    uint64_t target;            /* I_JCC/I_JMP, a call: direct target (a call's: 0 if none) */
};

static int classify(const struct x86_insn *in, struct insn *out)
{
    const ZydisDecodedOperand *o = x86_indirect_operand(in);
    ZydisMnemonic m = in->d.mnemonic;

    out->kind = I_PLAIN;
    if (x86_is_ret(in) || x86_is_iret(in) || m == ZYDIS_MNEMONIC_UD2 ||
        m == ZYDIS_MNEMONIC_HLT || m == ZYDIS_MNEMONIC_INT3)
        out->kind = I_STOP;
    else if (x86_is_jump(in)) {
        bool uncond = x86_is_uncond_jump(in);
        bool direct = x86_direct_target(in, &out->target);
        out->kind = !direct ? (uncond ? I_IJMP : I_STOP) : uncond ? I_JMP : I_JCC;
        if (o && o->type == ZYDIS_OPERAND_TYPE_MEMORY && o->mem.base == ZYDIS_REGISTER_NONE &&
            o->mem.index != ZYDIS_REGISTER_NONE && o->mem.scale == 8)
            out->table = (uint64_t)o->mem.disp.value;
    }
    return 0;
}

/* Does it work on several elements of a vector register at once (a vectorized loop runs its
 * body once per several source iterations)? Scalar SSE (addsd) has one element. */
static bool packed(const struct x86_insn *in)
{
    for (unsigned i = 0; i < in->d.operand_count_visible; i++) {
        const ZydisDecodedOperand *o = &in->op[i];
        if (o->type == ZYDIS_OPERAND_TYPE_REGISTER && o->reg.value >= ZYDIS_REGISTER_XMM0 &&
            o->reg.value <= ZYDIS_REGISTER_ZMM31 && o->element_count > 1)
            return true;
    }
    return false;
}

/* RIP-relative addresses taken (`lea f+0x10(%rip)`): code there may be entered unseen. */
static uint64_t rip_address(const struct x86_insn *in)
{
    uint64_t a;
    if (in->d.mnemonic != ZYDIS_MNEMONIC_LEA || x86_rip_operand(in, &a) < 0)
        return 0;
    return a;
}

bool lines_insn_unprobeable(const struct x86_insn *in)
{
    ZydisMnemonic m = in->d.mnemonic;
    ZydisInstructionCategory c = in->d.meta.category;

    for (unsigned i = 0; i < in->d.length; i++) {
        uint8_t b = in->bytes[i];
        /* Prefixes arch/x86/kernel/uprobes.c refuses (lock, es/cs/ss/ds), VEX/EVEX forms it
         * may: a false alarm on such a byte elsewhere in the instruction only moves the probe
         * or asks the kernel. */
        if (b == 0xf0 || b == 0x26 || b == 0x2e || b == 0x36 || b == 0x3e || b == 0x62 ||
            b == 0xc4 || b == 0xc5 || b == 0x8f)
            return true;
    }
    return x86_is_int(in) || x86_is_iret(in) || (in->d.attributes & ZYDIS_ATTRIB_IS_PRIVILEGED) ||
           c == ZYDIS_CATEGORY_SYSCALL || c == ZYDIS_CATEGORY_IO ||
           c == ZYDIS_CATEGORY_IOSTRINGOP || m == ZYDIS_MNEMONIC_SYSENTER ||
           m == ZYDIS_MNEMONIC_HLT;
}

static size_t find(const struct insn *v, size_t n, uint64_t a)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (v[mid].addr < a)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && v[lo].addr == a ? lo : n;
}

/* Does a jump to the backward target of the conditional branch v[j] follow it (a loop's
 * latch, which the branch was threaded past)? */
static bool latch_jump(const struct insn *v, size_t n, size_t j)
{
    if (v[j].target >= v[j].addr)
        return false;
    for (size_t k = j + 1; k < n; k++)
        if (v[k].kind == I_JMP && v[k].target == v[j].target)
            return true;
    return false;
}

/* Entries of a jump table at `table` (width 4: offsets from the table; 8: addresses) that
 * land on instructions of the function [vaddr, vaddr + n) become block starts. Returns how
 * many. */
static size_t table_targets(void *ivp, uint64_t table, unsigned width, uint64_t vaddr, size_t n,
                         lines_data_fn data_at, void *arg)
{
    VEC(struct insn) *iv = ivp;
    uint8_t buf[4096];
    size_t got = data_at(arg, table, buf, sizeof(buf)), found = 0;

    for (size_t off = 0; off + width <= got; off += width) {
        uint64_t t;
        size_t k;
        if (width == 4) {
            int32_t rel;
            memcpy(&rel, buf + off, 4);
            t = table + (uint64_t)(int64_t)rel;
        } else {
            memcpy(&t, buf + off, 8);
        }
        if (t < vaddr || t >= vaddr + n)
            break;
        if ((k = find(iv->v, iv->n, t)) < iv->n) {
            iv->v[k].leader = iv->v[k].flow = iv->v[k].ext = iv->v[k].reached = true;
            found++;
        }
    }
    return found;
}

int lines_blocks_cut(struct lines_plan *p, size_t func, const uint8_t *code, size_t n,
                     uint64_t vaddr, lines_line_fn line_of, lines_data_fn data_at, void *arg)
{
    VEC(struct insn) iv = { 0 };
    VEC(uint64_t) taken = { 0 };
    struct redirect { uint64_t from, to; };
    VEC(struct redirect) redir = { 0 };
    size_t first = p->blocks.n;
    size_t off = 0;
    struct x86_insn in;
    ZydisDecoder dec;
    int e = 0;
    bool ijmp = false, leaves = false;

    if ((e = x86_decoder_init(&dec)))
        return e;
    for (; off < n && x86_decode(&dec, code + off, n - off, vaddr + off, &in);
         off += in.d.length) {
        struct insn s = { .addr = in.addr, .size = in.d.length };
        uint64_t t = rip_address(&in);
        classify(&in, &s);
        s.call = x86_is_call(&in);
        if (s.call && !x86_direct_target(&in, &s.target))
            s.target = 0;
        s.nop = in.d.mnemonic == ZYDIS_MNEMONIC_NOP;
        s.unsafe = lines_insn_unprobeable(&in);
        s.select = in.d.meta.category == ZYDIS_CATEGORY_CMOV ||
                   in.d.meta.category == ZYDIS_CATEGORY_SETCC;
        s.packed = packed(&in);
        s.is_ret = x86_is_ret(&in);
        ijmp |= s.kind == I_IJMP;
        if ((t && (e = vec_push(&taken, t))) || (e = vec_push(&iv, s)))
            goto out;
    }
    if (!iv.n)
        goto out;
    iv.v[0].leader = iv.v[0].flow = iv.v[0].ext = true;
    /* A branch out of the function (to its .cold part, a tail jump) may come back anywhere
     * unseen, and so may an indirect jump whose table is not found below: no block of such a
     * function is then known to be entered only by the branches seen. */
    for (size_t i = 0; i < iv.n; i++)
        if ((iv.v[i].kind == I_JCC || iv.v[i].kind == I_JMP) &&
            find(iv.v, iv.n, iv.v[i].target) == iv.n)
            leaves = true;
    for (size_t i = 0; i < iv.n; i++) {
        struct insn *s = &iv.v[i];
        unsigned f0, l0, f1, l1;
        /* gcov -b's call lines: the code after a call counted apart (it may run less, exit,
         * or more, fork, than the call). */
        if (p->split_calls && s->call && i + 1 < iv.n)
            iv.v[i + 1].leader = true;
        if (s->kind != I_PLAIN && i + 1 < iv.n) {
            iv.v[i + 1].leader = iv.v[i + 1].flow = true;
            /* After a jump or a return only a branch reaches the code, or an indirect jump
             * (a jump table) that the analysis cannot follow. */
            if (s->kind != I_JCC && ijmp)
                iv.v[i + 1].ext = true;
        }
        if ((s->kind == I_JCC || s->kind == I_JMP)) {
            size_t k = find(iv.v, iv.n, s->target);
            if (k < iv.n)
                iv.v[k].leader = iv.v[k].flow = iv.v[k].reached = true;
        }
        if (i > 0 && line_of(arg, s->addr, &f1, &l1) &&
            (!line_of(arg, iv.v[i - 1].addr, &f0, &l0) || f0 != f1 || l0 != l1))
            s->leader = true;
    }
    for (size_t i = 0; i < taken.n; i++) {
        size_t k = find(iv.v, iv.n, taken.v[i]);
        if (k < iv.n)
            iv.v[k].leader = iv.v[k].flow = iv.v[k].ext = iv.v[k].reached = true;
    }
    /* Jump tables: a switch's cases are entered by an indirect jump. gcc's position-independent
     * tables hold 32-bit offsets from the table, whose address a `lea` takes; absolute ones
     * (-no-pie) 64-bit addresses, `jmp *table(,%r,8)`. Entries are read while they land in the
     * function; a case found is a block start, entered from outside what the analysis sees. */
    if (ijmp) {
        size_t found = 0;
        for (size_t i = 0; data_at && i < taken.n; i++)
            found += table_targets(&iv, taken.v[i], 4, vaddr, n, data_at, arg);
        for (size_t i = 0; data_at && i < iv.n; i++)
            if (iv.v[i].table)
                found += table_targets(&iv, iv.v[i].table, 8, vaddr, n, data_at, arg);
        leaves |= !found;
    }
    /* Reached by falling in: after anything but a jump, a return or a trap. */
    for (size_t i = 0; i < iv.n; i++)
        if (i == 0 || iv.v[i - 1].kind == I_PLAIN || iv.v[i - 1].kind == I_JCC)
            iv.v[i].reached = true;
    for (size_t i = 0; i < iv.n;) {
        /* Alignment padding after a jump or a return, which nothing branches to: no block
         * (compilers align the label after the padding, so not even a jump table lands on
         * it; gcc's `cs nopw` is one the kernel would refuse to probe). */
        if (iv.v[i].nop && !iv.v[i].reached) {
            while (i < iv.n && iv.v[i].nop && !iv.v[i].reached)
                i++;
            continue;
        }
        struct lines_block b = { .start = iv.v[i].addr, .func = func,
                                 .ext = iv.v[i].ext || leaves };
        size_t j = i;
        if (!line_of(arg, b.start, &b.file, &b.line))
            b.line = 0;
        b.call = iv.v[j].call;
        b.select = iv.v[j].select;
        b.packed = iv.v[j].packed;
        b.fall_in = !iv.v[i].flow;
        b.probe_at = b.start;
        while (j + 1 < iv.n && !iv.v[j + 1].leader && iv.v[j].kind == I_PLAIN) {
            j++;
            b.call |= iv.v[j].call;
            b.select |= iv.v[j].select;
            b.packed |= iv.v[j].packed;
        }
        b.end = iv.v[j].addr + iv.v[j].size;
        b.call_ends = iv.v[j].call;
        b.call_to = b.call_ends ? iv.v[j].target : 0;
        /* A block runs from its start to its end, so any of its instructions counts it: not
         * padding (gcc's `cs nopw` aligning a loop), not one the kernel may refuse. */
        for (size_t k = i; k <= j; k++)
            if (!iv.v[k].nop && !iv.v[k].unsafe) {
                b.probe_at = iv.v[k].addr;
                break;
            }
        {
            const struct insn *l = &iv.v[j];
            bool falls = l->kind == I_PLAIN || l->kind == I_JCC;
            if ((l->kind == I_JCC || l->kind == I_JMP) && find(iv.v, iv.n, l->target) < iv.n)
                b.succ[b.nsucc++] = l->target;
            if (falls && j + 1 < iv.n)
                b.succ[b.nsucc++] = iv.v[j + 1].addr;
            /* A jcc to the next instruction is one way out, not two; one that leaves the
             * function (to its .cold part) leaves a way out the solver cannot see. */
            b.cond = l->kind == I_JCC;
            b.latch_threaded = b.cond && latch_jump(iv.v, iv.n, j);
            /* A return, or a tail call (a jump out of the function): the function returns. */
            b.returns = l->is_ret || (l->kind == I_JMP && find(iv.v, iv.n, l->target) == iv.n);
            if (b.nsucc == 2 && b.succ[0] == b.succ[1]) {
                b.nsucc = 1;
                b.cond = false;
            }
        }
        /* Padding that is fallen into (aligning a loop head) is no code of a line: control
         * goes on to the next block, which gets its predecessors. */
        if (b.probe_at == b.start && iv.v[i].nop && !iv.v[i].ext && b.nsucc == 1 && !b.cond) {
            bool all_nops = true;
            for (size_t k = i; k <= j; k++)
                all_nops &= iv.v[k].nop;
            if (all_nops) {
                if ((e = vec_push(&redir, ((struct redirect){ b.start, b.succ[0] }))))
                    goto out;
                i = j + 1;
                continue;
            }
        }
        if ((e = vec_push(&p->blocks, b)))
            goto out;
        i = j + 1;
    }
    for (size_t k = first; k < p->blocks.n; k++)
        for (unsigned x = 0; x < p->blocks.v[k].nsucc; x++)
            for (size_t r = 0; r < redir.n; r++)     /* in address order: chains resolve */
                if (p->blocks.v[k].succ[x] == redir.v[r].from)
                    p->blocks.v[k].succ[x] = redir.v[r].to;
out:
    vec_free(&iv);
    vec_free(&taken);
    vec_free(&redir);
    return e;
}

size_t lines_block_at(const struct lines_plan *p, uint64_t a)
{
    size_t lo = 0, hi = p->blocks.n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (p->blocks.v[mid].start < a)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < p->blocks.n && p->blocks.v[lo].start == a ? lo : p->blocks.n;
}
