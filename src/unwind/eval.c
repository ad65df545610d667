/* SPDX-License-Identifier: MIT */
#include <dwarf.h>
#include <errno.h>
#include <string.h>
#include "unwind/eval.h"

#define DEPTH 16

int uw_stack_read(const struct uw_stack *s, uint64_t addr, uint64_t *out)
{
    if (addr < s->base || s->len < 8 || addr - s->base > s->len - 8)
        return -EFAULT;
    memcpy(out, s->buf + (addr - s->base), 8);
    return 0;
}

static int binop(uint8_t atom, uint64_t a, uint64_t b, uint64_t *r)
{
    switch (atom) {
    case DW_OP_and: *r = a & b; return 0;
    case DW_OP_or: *r = a | b; return 0;
    case DW_OP_xor: *r = a ^ b; return 0;
    case DW_OP_plus: *r = a + b; return 0;
    case DW_OP_minus: *r = a - b; return 0;
    case DW_OP_mul: *r = a * b; return 0;
    case DW_OP_shl: *r = b >= 64 ? 0 : a << b; return 0;
    case DW_OP_shr: *r = b >= 64 ? 0 : a >> b; return 0;
    case DW_OP_shra: *r = (uint64_t)((int64_t)a >> (b >= 64 ? 63 : b)); return 0;
    case DW_OP_eq: *r = a == b; return 0;
    case DW_OP_ne: *r = a != b; return 0;
    case DW_OP_ge: *r = (int64_t)a >= (int64_t)b; return 0;
    case DW_OP_gt: *r = (int64_t)a > (int64_t)b; return 0;
    case DW_OP_le: *r = (int64_t)a <= (int64_t)b; return 0;
    case DW_OP_lt: *r = (int64_t)a < (int64_t)b; return 0;
    case DW_OP_div:
        if (!b || ((int64_t)a == INT64_MIN && (int64_t)b == -1))
            return -EINVAL;
        *r = (uint64_t)((int64_t)a / (int64_t)b);
        return 0;
    case DW_OP_mod:
        if (!b)
            return -EINVAL;
        *r = a % b;
        return 0;
    default: return -EINVAL;
    }
}

static int reg_value(const struct uw_regs *regs, uint64_t n, int64_t off, uint64_t *out)
{
    if (n >= DW_NREGS || !uw_reg_known(regs, (int)n))
        return -ENOENT;
    *out = regs->r[n] + (uint64_t)off;
    return 0;
}

int uw_eval(const struct uw_op *ops, size_t n, const struct uw_regs *regs,
            const struct uw_stack *stk, const uint64_t *cfa, uint64_t *out)
{
    uint64_t st[DEPTH], v;
    size_t sp = 0;
    int err;

#define NEED(k) do { if (sp < (k)) return -EINVAL; } while (0)
#define PUSH(x) do { uint64_t x_ = (x); if (sp == DEPTH) return -EINVAL; st[sp++] = x_; } while (0)
    for (size_t i = 0; i < n; i++) {
        const struct uw_op *o = &ops[i];
        uint8_t a = o->atom;

        if (a >= DW_OP_lit0 && a <= DW_OP_lit31) {
            PUSH((uint64_t)(a - DW_OP_lit0));
        } else if (a >= DW_OP_breg0 && a <= DW_OP_breg31) {
            if ((err = reg_value(regs, a - DW_OP_breg0, (int64_t)o->n1, &v)))
                return err;
            PUSH(v);
        } else {
            switch (a) {
            case DW_OP_bregx:
                if ((err = reg_value(regs, o->n1, (int64_t)o->n2, &v)))
                    return err;
                PUSH(v);
                break;
            case DW_OP_addr: case DW_OP_const1u: case DW_OP_const1s: case DW_OP_const2u:
            case DW_OP_const2s: case DW_OP_const4u: case DW_OP_const4s: case DW_OP_const8u:
            case DW_OP_const8s: case DW_OP_constu: case DW_OP_consts:
                PUSH(o->n1);
                break;
            case DW_OP_call_frame_cfa:
                if (!cfa)
                    return -EINVAL;
                PUSH(*cfa);
                break;
            case DW_OP_dup: NEED(1); PUSH(st[sp - 1]); break;
            case DW_OP_drop: NEED(1); sp--; break;
            case DW_OP_over: NEED(2); PUSH(st[sp - 2]); break;
            case DW_OP_pick:
                if (o->n1 >= sp)
                    return -EINVAL;
                PUSH(st[sp - 1 - o->n1]);
                break;
            case DW_OP_swap: NEED(2); v = st[sp - 1]; st[sp - 1] = st[sp - 2]; st[sp - 2] = v;
                break;
            case DW_OP_rot:
                NEED(3);
                v = st[sp - 1];
                st[sp - 1] = st[sp - 2];
                st[sp - 2] = st[sp - 3];
                st[sp - 3] = v;
                break;
            case DW_OP_deref:
                NEED(1);
                if ((err = uw_stack_read(stk, st[sp - 1], &st[sp - 1])))
                    return err;
                break;
            case DW_OP_deref_size:
                NEED(1);
                if (o->n1 == 0 || o->n1 > 8 || (err = uw_stack_read(stk, st[sp - 1], &v)))
                    return o->n1 == 0 || o->n1 > 8 ? -EINVAL : err;
                st[sp - 1] = o->n1 == 8 ? v : v & ((1ULL << (o->n1 * 8)) - 1);
                break;
            case DW_OP_plus_uconst: NEED(1); st[sp - 1] += o->n1; break;
            case DW_OP_neg: NEED(1); st[sp - 1] = -st[sp - 1]; break;
            case DW_OP_not: NEED(1); st[sp - 1] = ~st[sp - 1]; break;
            case DW_OP_abs:
                NEED(1);
                if ((int64_t)st[sp - 1] < 0)
                    st[sp - 1] = -st[sp - 1];
                break;
            case DW_OP_nop: break;
            default:
                NEED(2);
                if ((err = binop(a, st[sp - 2], st[sp - 1], &v)))
                    return err;
                sp--;
                st[sp - 1] = v;
                break;
            }
        }
    }
#undef NEED
#undef PUSH
    if (!sp)
        return -EINVAL;
    *out = st[sp - 1];
    return 0;
}
