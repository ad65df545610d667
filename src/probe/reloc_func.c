/* SPDX-License-Identifier: MIT */
/* Whole-function relocation with counters (reloc_func.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lazylib/x86insn.h"
#include "probe/reloc_func.h"

/* The flags `inc` changes; CF it keeps. */
#define INC_FLAGS (ZYDIS_CPUFLAG_OF | ZYDIS_CPUFLAG_SF | ZYDIS_CPUFLAG_ZF | ZYDIS_CPUFLAG_AF | \
                   ZYDIS_CPUFLAG_PF)
#define FAST_LEN RELOC_FAST_LEN     /* ds (or lock) incq disp32(%rip) */
#define SLOW_LEN RELOC_SLOW_LEN     /* lea -128(%rsp),%rsp; pushfq; lock incq; popfq; lea 128 */
#define FLAG_SCAN 64               /* instructions looked at for a flags reader */

enum kind { K_PLAIN, K_JCC, K_JMP, K_CALL, K_CALLI, K_RET, K_STOP };
/* How the copy makes a call: as a call (the return address is the copy's); by a jmp to the
 * original's own call instruction, left intact, whose return site jumps back to the copy
 * (the return stack buffer stays paired); by pushing the original's return address and
 * jumping (where the original's call is overwritten). */
enum how { HOW_COPY, HOW_ORIG, HOW_PUSH };

/* One instruction of the function, as the copy needs it. */
struct rinsn {
    uint64_t addr, target;         /* target: a direct branch's, or the RIP operand's */
    uint32_t copy;                 /* offset in the copy (its counter first) */
    uint8_t len, kind, cc, disp_off;
    bool rip;
    uint32_t tested, written;      /* INC_FLAGS read, written */
    long counter;                  /* -1: none */
    bool slow, calls;
    bool can_push;                 /* a call that may become push slot(%rip); jmp */
    uint8_t how;                   /* a call: enum how */
    uint8_t modrm_off;             /* an indirect call's ModRM byte */
    uint32_t slot;                 /* HOW_PUSH: the return address's slot (copy offset) */
    uint64_t hop;                  /* struct reloc_site's */
};

typedef VEC(struct rinsn) rinsn_vec;

/* "WHAT at 0xADDR" */
static int refuse(char *why, size_t whylen, const char *what, uint64_t addr)
{
    snprintf(why, whylen, "%s at 0x%llx", what, (unsigned long long)addr);
    return -EINVAL;
}

static bool is_loop_like(const struct x86_insn *in)
{
    switch (in->d.mnemonic) {
    case ZYDIS_MNEMONIC_LOOP: case ZYDIS_MNEMONIC_LOOPE: case ZYDIS_MNEMONIC_LOOPNE:
    case ZYDIS_MNEMONIC_JRCXZ: case ZYDIS_MNEMONIC_JECXZ: case ZYDIS_MNEMONIC_JCXZ:
    case ZYDIS_MNEMONIC_XBEGIN:
        return true;
    default:
        return false;
    }
}

/* Can an indirect call become `push; jmp` with the same operand? A near call (ff /2) whose
 * operand does not depend on rsp (the push moves it). */
static bool calli_can_jump(const struct x86_insn *in)
{
    const ZydisDecodedOperand *o = x86_indirect_operand(in);
    uint8_t off = in->d.raw.modrm.offset;
    if (in->d.opcode != 0xff || !off || off >= in->d.length || (in->bytes[off] >> 3 & 7) != 2 ||
        !o)
        return false;
    if (o->type == ZYDIS_OPERAND_TYPE_REGISTER)
        return o->reg.value != ZYDIS_REGISTER_RSP;
    return o->type == ZYDIS_OPERAND_TYPE_MEMORY && o->mem.base != ZYDIS_REGISTER_RSP &&
           o->mem.index != ZYDIS_REGISTER_RSP;
}

/* Sorts one decoded instruction into what the copy does with it. */
static int classify(const struct x86_insn *in, struct rinsn *r, bool no_calls, char *why,
                    size_t whylen)
{
    uint64_t t;
    int rip = x86_rip_operand(in, &r->target);

    if (in->d.cpu_flags) {
        r->tested = in->d.cpu_flags->tested & INC_FLAGS;
        r->written = (in->d.cpu_flags->modified | in->d.cpu_flags->set_0 |
                      in->d.cpu_flags->set_1 | in->d.cpu_flags->undefined) & INC_FLAGS;
    } else {
        r->tested = INC_FLAGS;
    }
    if (is_loop_like(in))
        return refuse(why, whylen, "loop, jrcxz or xbegin", in->addr);
    if (rip < 0 && x86_uses_rip(in))
        return refuse(why, whylen, "an indexed RIP-relative operand", in->addr);
    if (x86_is_call(in))
        r->calls = true;
    if (x86_is_call(in) && no_calls)
        return refuse(why, whylen, "a call in a function with landing pads (C++ "
                      "exceptions)", in->addr);
    if (x86_direct_target(in, &t)) {
        r->target = t;
        r->kind = x86_is_call(in) ? K_CALL : x86_is_uncond_jump(in) ? K_JMP : K_JCC;
        r->can_push = r->kind == K_CALL;
        r->cc = in->d.opcode & 0xf;
        return 0;
    }
    if (rip >= 0) {
        r->rip = true;
        r->disp_off = in->d.raw.disp.offset;
    }
    if (x86_is_jump(in)) {
        if (!r->rip)
            return refuse(why, whylen, "an indirect jump (a jump table?)", in->addr);
        r->kind = K_STOP;                  /* a tail call through a pointer */
    } else if (x86_is_call(in)) {
        r->kind = K_CALLI;
        r->can_push = calli_can_jump(in);
        r->modrm_off = in->d.raw.modrm.offset;
    } else if (x86_is_ret(in)) {
        r->kind = K_RET;
    } else if (x86_is_control(in) && !x86_is_int(in) && in->d.mnemonic != ZYDIS_MNEMONIC_SYSCALL) {
        r->kind = K_STOP;
    }
    return 0;
}

static int decode_all(const uint8_t *code, size_t n, uint64_t vaddr, bool no_calls,
                      rinsn_vec *out, char *why, size_t whylen)
{
    ZydisDecoder dec;
    int e = x86_decoder_init(&dec);

    for (size_t at = 0; !e && at < n;) {
        struct x86_insn in;
        struct rinsn r = { .addr = vaddr + at, .counter = -1 };
        if (!x86_decode(&dec, code + at, n - at, vaddr + at, &in))
            return refuse(why, whylen, "code that does not decode", vaddr + at);
        r.len = in.d.length;
        if ((e = classify(&in, &r, no_calls, why, whylen)))
            return e;
        if (r.rip && r.target > vaddr && r.target < vaddr + n)
            return refuse(why, whylen, "an address inside the function taken",
                          r.addr);
        e = vec_push(out, r);
        at += r.len;
    }
    return e;
}

/* The instruction at addr, or -1. */
static long index_of(const rinsn_vec *v, uint64_t addr)
{
    size_t lo = 0, hi = v->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (v->v[mid].addr < addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < v->n && v->v[lo].addr == addr ? (long)lo : -1;
}

/* Might an instruction reached from v[i] read a flag `inc` changes before all are written?
 * Calls and returns end the question (the ABI does not keep flags across them). */
static bool flags_live(const rinsn_vec *v, size_t i)
{
    for (int steps = 0; steps < FLAG_SCAN && i < v->n; steps++) {
        const struct rinsn *r = &v->v[i];
        if (r->tested)
            return true;
        if (r->written == INC_FLAGS || r->kind == K_CALL || r->kind == K_CALLI ||
            r->kind == K_RET)
            return false;
        if (r->kind == K_STOP)
            return true;
        if (r->kind == K_JMP) {
            long t = index_of(v, r->target);
            if (t < 0)
                return true;
            i = (size_t)t;
        } else {
            i++;
        }
    }
    return true;
}

static uint32_t new_len(const struct rinsn *r)
{
    uint32_t push = r->how == HOW_PUSH ? RELOC_PUSH_LEN : 0;
    if (r->how == HOW_ORIG)
        return 5;                          /* jmp to the original's call */
    return push + (r->kind == K_JCC ? 6 : r->kind == K_JMP || r->kind == K_CALL ? 5 : r->len);
}

/* Are the original's bytes [from, from + len) inside it and not yet taken by a patch? */
static bool bytes_free(const uint8_t *used, size_t n, size_t from, size_t len)
{
    if (from + len > n)
        return false;
    for (size_t i = from; i < from + len; i++)
        if (used[i])
            return false;
    return true;
}

/* Free 5 bytes that a jmp rel8 ending at `from` reaches, the nearest to `near`; -1: none. */
static long hop_window(const uint8_t *used, size_t n, size_t from, size_t near)
{
    long best = -1;
    for (long w = (long)from - 128; w <= (long)from + 127; w++) {
        long d = w - (long)near, bd = best - (long)near;
        if (w >= 0 && bytes_free(used, n, (size_t)w, RELOC_SITE_LEN) &&
            (best < 0 || (d < 0 ? -d : d) < (bd < 0 ? -bd : bd)))
            best = w;
    }
    return best;
}

/* How each call is made, and the original's bytes its return site takes: its own call
 * instruction kept and 5 bytes after it, else 5 bytes after it, else 2 there and 5 within a
 * short jmp's reach (the original never runs again but at its entry's jmp, the calls kept
 * and the return sites' jmps). 0 or -ENOMEM. */
static int choose_sites(rinsn_vec *v, uint64_t vaddr, size_t n)
{
    uint8_t *used = calloc(n + 1, 1);
    if (!used)
        return -ENOMEM;
    memset(used, 1, n < RELOC_SITE_LEN ? n : RELOC_SITE_LEN);    /* the entry's jmp */
    for (size_t i = 0; i < v->n; i++) {
        struct rinsn *r = &v->v[i];
        size_t at = r->addr - vaddr, site = at + r->len;
        long w;
        /* A call into the function's own body must go to the copy's. */
        bool inner = r->kind == K_CALL && r->target > vaddr && r->target < vaddr + n;
        if (r->kind != K_CALL && r->kind != K_CALLI)
            continue;
        if (!inner && bytes_free(used, n, at, r->len + RELOC_SITE_LEN)) {
            memset(used + at, 1, r->len + RELOC_SITE_LEN);
            r->how = HOW_ORIG;
        } else if (!r->can_push) {
            continue;
        } else if (bytes_free(used, n, site, RELOC_SITE_LEN)) {
            memset(used + site, 1, RELOC_SITE_LEN);
            r->how = HOW_PUSH;
        } else if (bytes_free(used, n, site, RELOC_HOP_LEN)) {
            memset(used + site, 1, RELOC_HOP_LEN);
            if ((w = hop_window(used, n, site + RELOC_HOP_LEN, at)) < 0) {
                memset(used + site, 0, RELOC_HOP_LEN);
                continue;
            }
            memset(used + w, 1, RELOC_SITE_LEN);
            r->how = HOW_PUSH;
            r->hop = vaddr + (uint64_t)w;
        }
    }
    free(used);
    return 0;
}

/* Attaches the counters and lays the copy out from `base`. */
static int lay_out(rinsn_vec *v, const struct reloc_counter *cnt, size_t ncnt, size_t base,
                   size_t *end, char *why, size_t whylen)
{
    size_t at = base;
    for (size_t k = 0; k < ncnt; k++) {
        long i = index_of(v, cnt[k].addr);
        if (i < 0)
            return refuse(why, whylen, "a block start inside an instruction",
                          cnt[k].addr);
        v->v[i].counter = cnt[k].index;
        v->v[i].slow = flags_live(v, (size_t)i);
    }
    for (size_t i = 0; i < v->n; i++) {
        struct rinsn *r = &v->v[i];
        r->copy = (uint32_t)at;
        at += (r->counter >= 0 ? r->slow ? SLOW_LEN : FAST_LEN : 0) + new_len(r);
        if (at > UINT32_MAX)
            return -ENOMEM;
    }
    for (size_t i = 0; i < v->n; i++)      /* the return addresses' slots, after the code */
        if (v->v[i].how == HOW_PUSH) {
            at = (at + 7) & ~(size_t)7;
            v->v[i].slot = (uint32_t)at;
            at += 8;
        }
    *end = at;
    return at > UINT32_MAX ? -ENOMEM : 0;
}

static void put32(uint8_t *p, int64_t v)
{
    int32_t d = (int32_t)v;
    memcpy(p, &d, 4);
}

/* A displacement at p (instruction ending at `end`, copy offsets) to `target`: inside the
 * function, to its copy; else a fix. */
static int branch_to(struct reloc_code *out, const rinsn_vec *v, size_t p, size_t end,
                     uint64_t target, char *why, size_t whylen)
{
    long t = index_of(v, target);
    if (t >= 0) {
        put32(out->code.v + p, (int64_t)v->v[t].copy - (int64_t)end);
        return 0;
    }
    if (v->n && target > v->v[0].addr && target < v->v[v->n - 1].addr + v->v[v->n - 1].len)
        return refuse(why, whylen, "a branch into the middle of an instruction",
                      target);
    return vec_push(&out->fixes, ((struct reloc_fix){ (uint32_t)p, (uint32_t)end, false, false,
                                                      target }));
}

static int emit_counter(struct reloc_code *out, const struct rinsn *r)
{
    static const uint8_t below[] = { 0x48, 0x8d, 0x64, 0x24, 0x80, 0x9c };
    static const uint8_t above[] = { 0x9d, 0x48, 0x8d, 0xa4, 0x24, 0x80, 0x00, 0x00, 0x00 };
    static const uint8_t inc[] = { RELOC_UNLOCKED, 0x48, 0xff, 0x05, 0, 0, 0, 0 };
    uint8_t *p = out->code.v + out->code.n;
    size_t at = 0;

    if (r->slow) {
        memcpy(p, below, sizeof(below));
        at = sizeof(below);
    }
    memcpy(p + at, inc, sizeof(inc));
    at += sizeof(inc);
    if (vec_push(&out->fixes, ((struct reloc_fix){ (uint32_t)(out->code.n + at - 4),
                                                   (uint32_t)(out->code.n + at), true,
                                                   false, (uint64_t)r->counter })))
        return -ENOMEM;
    if (r->slow) {
        memcpy(p + at, above, sizeof(above));
        at += sizeof(above);
        out->slow++;
    }
    out->code.n += at;
    return 0;
}

/* push slot(%rip): the original's return address, from the slot the hook fills. */
static void emit_push(struct reloc_code *out, const struct rinsn *r)
{
    uint8_t *p = out->code.v + out->code.n;
    p[0] = 0xff;
    p[1] = 0x35;
    put32(p + 2, (int64_t)r->slot - (int64_t)(out->code.n + RELOC_PUSH_LEN));
    out->code.n += RELOC_PUSH_LEN;
}

/* The slots (8-aligned after the code), and the return sites the hook redirects. */
static int emit_slots(struct reloc_code *out, const rinsn_vec *v)
{
    int e = 0;
    for (size_t i = 0; i < v->n && !e; i++) {
        const struct rinsn *r = &v->v[i];
        uint64_t site = r->addr + r->len;
        if (r->how == HOW_COPY)
            continue;
        if (r->how == HOW_PUSH) {
            while (out->code.n % 8)
                out->code.v[out->code.n++] = 0xcc;
            memset(out->code.v + out->code.n, 0, 8);
            out->code.n += 8;
            e = vec_push(&out->fixes, ((struct reloc_fix){ r->slot, r->slot, false, true,
                                                           site }));
        }
        if (!e)
            e = vec_push(&out->sites, ((struct reloc_site){ site, v->v[index_of(v, site)].copy,
                                                            r->hop }));
    }
    return e;
}

static int emit(struct reloc_code *out, const rinsn_vec *v, const uint8_t *code,
                uint64_t vaddr, char *why, size_t whylen)
{
    int e = 0;
    for (size_t i = 0; i < v->n && !e; i++) {
        const struct rinsn *r = &v->v[i];
        struct reloc_place pl = { r->addr, (uint32_t)out->code.n, 0, false };
        uint8_t *p;
        size_t at;
        if (r->counter >= 0 && (e = emit_counter(out, r)))
            break;
        pl.pre = (uint8_t)(out->code.n - pl.copy);
        pl.pushed = r->how == HOW_PUSH;
        out->calls |= r->calls;
        if ((e = vec_push(&out->places, pl)))
            break;
        p = out->code.v + out->code.n;
        at = out->code.n;
        if (r->how == HOW_ORIG) {           /* jmp to the original's call */
            p[0] = 0xe9;
            out->code.n += 5;
            e = vec_push(&out->fixes, ((struct reloc_fix){ (uint32_t)at + 1, (uint32_t)at + 5,
                                                           false, false, r->addr }));
            continue;
        }
        if (r->how == HOW_PUSH) {
            emit_push(out, r);
            p = out->code.v + out->code.n;
            at = out->code.n;
        }
        if (r->kind == K_JCC || r->kind == K_JMP || r->kind == K_CALL) {
            size_t op = r->kind == K_JCC ? 2 : 1;
            if (r->kind == K_JCC) {
                p[0] = 0x0f;
                p[1] = (uint8_t)(0x80 | r->cc);
            } else {
                p[0] = r->kind == K_JMP || r->how == HOW_PUSH ? 0xe9 : 0xe8;
            }
            out->code.n += op + 4;
            e = branch_to(out, v, at + op, at + op + 4, r->target, why, whylen);
        } else {
            memcpy(p, code + (r->addr - vaddr), r->len);
            if (r->how == HOW_PUSH)            /* ff /2 (call) -> ff /4 (jmp) */
                p[r->modrm_off] = (uint8_t)((p[r->modrm_off] & ~0x38) | 0x20);
            out->code.n += r->len;
            if (r->rip)
                e = vec_push(&out->fixes, ((struct reloc_fix){ (uint32_t)(at + r->disp_off),
                                           (uint32_t)(at + r->len), false, false,
                                           r->target }));
        }
    }
    return e;
}

int reloc_function(struct reloc_code *out, const uint8_t *code, size_t n, uint64_t vaddr,
                   const struct reloc_counter *cnt, size_t ncnt, bool no_calls,
                   uint32_t *entry, char *why, size_t whylen)
{
    rinsn_vec v = { 0 };
    struct reloc_mark m = reloc_code_mark(out);
    size_t end;
    int e;

    why[0] = '\0';
    out->calls = false;
    if ((e = decode_all(code, n, vaddr, no_calls, &v, why, whylen)))
        goto out;
    if ((e = choose_sites(&v, vaddr, n)) ||
        (e = lay_out(&v, cnt, ncnt, out->code.n, &end, why, whylen)) ||
        (e = vec_reserve(&out->code, end - out->code.n + 8)))
        goto out;
    *entry = (uint32_t)out->code.n;
    if (!(e = emit(out, &v, code, vaddr, why, whylen)))
        e = emit_slots(out, &v);
out:
    if (e)
        reloc_code_truncate(out, m);
    vec_free(&v);
    return e;
}

struct reloc_mark reloc_code_mark(const struct reloc_code *rc)
{
    return (struct reloc_mark){ rc->code.n, rc->fixes.n, rc->places.n, rc->sites.n, rc->slow };
}

void reloc_code_truncate(struct reloc_code *rc, struct reloc_mark m)
{
    rc->code.n = m.code;
    rc->fixes.n = m.fixes;
    rc->places.n = m.places;
    rc->sites.n = m.sites;
    rc->slow = m.slow;
}

void reloc_code_release(struct reloc_code *rc)
{
    vec_free(&rc->code);
    vec_free(&rc->fixes);
    vec_free(&rc->places);
    vec_free(&rc->sites);
}
