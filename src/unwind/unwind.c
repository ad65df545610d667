/* SPDX-License-Identifier: MIT */
#include <dwarf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "model/frame.h"
#include "model/process.h"
#include "perf/evlist.h"
#include "perf/record.h"
#include "symbol/dso.h"
#include "unwind/callsite.h"
#include "unwind/cfi.h"
#include "unwind/eval.h"
#include "unwind/unwind.h"
#include "util/hash.h"
#include "util/hashmap.h"

#define LOG_PREFIX "unwind"
#include "util/log.h"

/* What fix_fp_leaf decided for one (leaf frame, next frame) pair: the same few thousand pairs
 * recur in every sample of a profile, and deciding costs several table lookups, a CFI rule and
 * a call-site decode. Maps in stacks are kept alive (in_stack), so their addresses name them. */
#define LEAF_MEMO 4096                /* entries, a power of 2 (direct-mapped) */
struct leaf_memo {
    const struct map *m, *rm;         /* NULL m: an empty entry */
    uint64_t addr, raddr;
    uint64_t abs;                     /* the hidden caller's address in rm, 0 when none */
};

/* Does a caller call a leaf's function (calls_leaf)? The leaf's many sampled PCs ask it of one
 * caller again and again; each answer costs decoding the caller. */
#define CALLS_MEMO 1024               /* entries, a power of 2 (direct-mapped) */
struct calls_memo {
    const struct uw_cfi *rc;          /* NULL: an empty entry */
    const struct dso *ldso;
    uint64_t target, leaf;            /* the caller's and the leaf's starts */
    bool calls;
};

struct unwinder {
    struct hashmap cfis;              /* struct dso * -> struct uw_cfi *, or &no_cfi */
    struct uw_callsites *calls;
    struct unwind_stats st;
    struct leaf_memo *memo;           /* LEAF_MEMO entries, allocated on first use */
    struct calls_memo *calls_memo;    /* CALLS_MEMO entries, allocated on first use */
};

static char no_cfi;                   /* marks a DSO without usable CFI */

struct unwinder *unwinder_new(void)
{
    struct unwinder *uw = calloc(1, sizeof(*uw));
    if (!uw)
        return NULL;
    hashmap_init(&uw->cfis);
    uw->calls = uw_callsites_new();
    if (!uw->calls) {
        free(uw);
        return NULL;
    }
    return uw;
}

static void free_cfis(struct unwinder *uw)
{
    for (size_t i = 0; i < uw->cfis.cap; i++)
        if (uw->cfis.vals[i] && uw->cfis.vals[i] != &no_cfi)
            uw_cfi_free(uw->cfis.vals[i]);
    hashmap_release(&uw->cfis);
}

void unwinder_free(struct unwinder *uw)
{
    if (!uw)
        return;
    free_cfis(uw);
    uw_callsites_free(uw->calls);
    free(uw->memo);
    free(uw->calls_memo);
    free(uw);
}

void unwinder_drop_cfi(struct unwinder *uw)
{
    if (!uw)
        return;
    free_cfis(uw);
    hashmap_init(&uw->cfis);
    uw_callsites_clear(uw->calls);    /* keyed by the CFIs just freed */
    free(uw->memo);                   /* a cache: rebuilt if samples come again */
    uw->memo = NULL;
    free(uw->calls_memo);             /* keyed by the CFIs just freed */
    uw->calls_memo = NULL;
}

const struct unwind_stats *unwinder_stats(const struct unwinder *uw)
{
    return &uw->st;
}

void unwinder_log_stats(const struct unwinder *uw)
{
    const struct unwind_stats *s = &uw->st;
    pr_debug("%llu samples unwound from their stack copy, %llu user frames; ends: outermost "
             "frame %llu, copy too short %llu, no map or JIT %llu, no CFI %llu, bad rule %llu, "
             "no progress %llu, depth limit %llu; frames by rbp without CFI %llu; frameless "
             "leaves given their caller %llu",
             (unsigned long long)s->dwarf_samples, (unsigned long long)s->frames,
             (unsigned long long)s->end_of_stack, (unsigned long long)s->snapshot_end,
             (unsigned long long)s->no_map, (unsigned long long)s->no_cfi,
             (unsigned long long)s->bad_rule, (unsigned long long)s->no_progress,
             (unsigned long long)s->max_depth, (unsigned long long)s->fp_frames,
             (unsigned long long)s->leaf_fixed);
}

/* The CFI of a map's file: NULL (errno ENOENT) for anonymous/JIT code and files without CFI. */
static struct uw_cfi *cfi_of(struct unwinder *uw, const struct map *m)
{
    void *v = hashmap_get(&uw->cfis, (uint64_t)(uintptr_t)m->dso);
    enum dso_kind k = dso_kind(m->dso);

    if (v) {
        errno = ENOENT;
        return v == &no_cfi ? NULL : v;
    }
    v = k == DSO_FILE || k == DSO_VDSO ? uw_cfi_open(m->dso) : NULL;
    if (!v && k != DSO_FILE && k != DSO_VDSO)
        errno = ENOENT;
    if (!v && errno == ENOMEM)
        return NULL;
    if (hashmap_put(&uw->cfis, (uint64_t)(uintptr_t)m->dso, v ? v : &no_cfi)) {
        uw_cfi_free(v);
        errno = ENOMEM;
        return NULL;
    }
    errno = ENOENT;
    return v;
}

static int push_frame(struct frame **frames, size_t *cap, uint32_t *n, uint64_t addr,
                      struct map *m)
{
    if (*n == *cap) {
        size_t c = *cap ? *cap * 2 : 64;
        struct frame *f = realloc(*frames, c * sizeof(*f));
        if (!f)
            return -ENOMEM;
        *frames = f;
        *cap = c;
    }
    (*frames)[(*n)++] = (struct frame){ .addr = addr, .map = m };
    if (m)
        m->in_stack = true;            /* a map replaced later must outlive the stack */
    return 0;
}

/* Unwinds one frame: the caller's registers from this frame's rule. 1 to go on, 0 when the
 * unwind ends (counted), -ENOMEM. */
static int step(struct unwinder *uw, const struct uw_cfi *c, const struct uw_rule *r,
                const struct uw_stack *stk, struct uw_regs *regs, bool *activation)
{
    struct uw_regs out = { .valid = 0 };
    uint64_t cfa;

    if (uw_eval(uw_cfi_ops(c, &r->cfa), r->cfa.n, regs, stk, NULL, &cfa)) {
        uw->st.bad_rule++;
        return 0;
    }
    for (int i = 0; i < DW_NREGS; i++) {
        const struct uw_expr *e = &r->reg[i];
        uint64_t v;
        switch (e->kind) {
        case UW_SAME:
            if (uw_reg_known(regs, i)) {
                out.r[i] = regs->r[i];
                out.valid |= 1u << i;
            }
            break;
        case UW_AT:
            if (!uw_eval(uw_cfi_ops(c, e), e->n, regs, stk, &cfa, &v) &&
                !uw_stack_read(stk, v, &out.r[i]))
                out.valid |= 1u << i;
            break;
        case UW_VAL:
            if (!uw_eval(uw_cfi_ops(c, e), e->n, regs, stk, &cfa, &out.r[i]))
                out.valid |= 1u << i;
            break;
        default:
            break;
        }
    }
    if (!uw_reg_known(&out, DW_RSP)) {    /* the psABI: the caller's sp is the CFA */
        out.r[DW_RSP] = cfa;
        out.valid |= 1u << DW_RSP;
    }
    if (!uw_reg_known(&out, r->ra)) {
        /* Undefined RA: the outermost frame; unreadable: the copy ended first. */
        if (r->reg[r->ra].kind == UW_UNDEF)
            uw->st.end_of_stack++;
        else
            uw->st.snapshot_end++;
        return 0;
    }
    if (!out.r[r->ra]) {
        uw->st.end_of_stack++;
        return 0;
    }
    /* A caller's frame lies above its callee's; a signal frame may point anywhere. */
    if (!r->signal && out.r[DW_RSP] <= regs->r[DW_RSP]) {
        uw->st.no_progress++;
        return 0;
    }
    out.r[DW_RIP] = out.r[r->ra];
    out.valid |= 1u << DW_RIP;
    *activation = r->signal;
    *regs = out;
    return 1;
}

/* No CFI for the PC (code built without unwind tables, JIT code): one step of the frame
 * pointer chain, as libdw's x86_64 backend (and so perf) falls back to: the caller's rbp at
 * [rbp], its return address at [rbp + 8], its sp rbp + 16. Only when rbp points into the
 * copy at or above sp and the return address lies in a map of the process: a frameless
 * function's rbp is not its own frame (its caller is then skipped, as in -g chains) and
 * may hold anything. 1 to go on, 0 when there is no such frame. */
static int fp_step(struct unwinder *uw, struct process *p, const struct uw_stack *stk,
                   struct uw_regs *regs, bool *activation)
{
    uint64_t bp = regs->r[DW_RBP], next_bp, ra;

    if (!uw_reg_known(regs, DW_RBP) || (bp & 7) || bp < regs->r[DW_RSP] ||
        uw_stack_read(stk, bp, &next_bp) || uw_stack_read(stk, bp + 8, &ra) || !ra ||
        !process_find_map(p, ra))
        return 0;
    regs->r[DW_RBP] = next_bp;
    regs->r[DW_RSP] = bp + 16;
    regs->r[DW_RIP] = ra;
    regs->valid = 1u << DW_RBP | 1u << DW_RSP | 1u << DW_RIP;
    *activation = false;
    uw->st.fp_frames++;
    return 1;
}

/* The user frames of a sample with registers and a stack copy, appended to frames. */
static int unwind_dwarf(struct unwinder *uw, struct process *p, const struct sample *smp,
                        struct uw_regs regs, struct frame **frames, size_t *cap,
                        uint32_t *n)
{
    struct uw_stack stk;
    bool activation = true;          /* the sampled ip is exact, not a return address */
    uint32_t first = *n;
    int err;

    uw->st.dwarf_samples++;
    stk.base = regs.r[DW_RSP];
    stk.buf = smp->stack_user;
    stk.len = smp->stack_dyn_size;
    if (stk.len > smp->stack_size) {
        uw->st.bad_dyn_size++;
        stk.len = smp->stack_size;
    }
    for (;;) {
        uint64_t pc = regs.r[DW_RIP], vaddr;
        struct map *m = process_find_map(p, pc);
        struct uw_cfi *c;
        const struct uw_rule *r;

        /* A return address is kept as pc - 1, inside its call (as the kernel chains are). */
        err = push_frame(frames, cap, n, activation ? pc : pc - 1, m);
        if (err)
            return err;
        uw->st.frames++;
        if (*n - first >= UNWIND_MAX_FRAMES) {
            uw->st.max_depth++;
            return 0;
        }
        if (!m || dso_kind(m->dso) == DSO_ANON) {
            if (fp_step(uw, p, &stk, &regs, &activation))
                continue;
            uw->st.no_map++;         /* JIT or unknown code: no CFI to go on with */
            return 0;
        }
        c = cfi_of(uw, m);
        if (!c && errno == ENOMEM)
            return -ENOMEM;
        r = NULL;
        if (c && !dso_map_to_vaddr(m->dso, m->start, m->pgoff, pc, &vaddr) &&
            !(r = uw_cfi_rule(c, activation ? vaddr : vaddr - 1)))
            return -ENOMEM;
        if (!r || !r->found) {
            if (fp_step(uw, p, &stk, &regs, &activation))
                continue;
            uw->st.no_cfi++;
            return 0;
        }
        if (step(uw, c, r, &stk, &regs, &activation) <= 0)
            return 0;
    }
}

/* Is the CFA at this frame's PC computed from rsp, i.e. has the function not (yet, or any
 * more) set up its frame pointer? */
static bool frameless_at(const struct uw_cfi *c, const struct uw_rule *r)
{
    const struct uw_op *op = uw_cfi_ops(c, &r->cfa);
    return r->found && r->cfa.n == 1 &&
           (op->atom == DW_OP_breg0 + DW_RSP || (op->atom == DW_OP_bregx && op->n1 == DW_RSP));
}

/* Is the call at t in a caller's DSO one into the leaf's function (ls, of ldso)? Across DSOs
 * it goes through the caller's PLT, "name@plt": into the leaf's DSO when that defines name
 * (the leaf itself, an alias, or an IFUNC whose implementation on this machine the leaf is). */
static bool call_is_into(struct dso *cdso, uint64_t t, struct dso *ldso, const struct symres *ls)
{
    struct symres p;
    struct symbol_match m;
    char name[256];
    size_t len;

    if (cdso == ldso)
        return t == ls->start;
    if (dso_resolve(cdso, t, &p) || !p.name || p.bracket || p.start != t)
        return false;
    len = strlen(p.name);
    if (len <= 4 || len - 4 >= sizeof(name) || strcmp(p.name + len - 4, "@plt"))
        return false;
    memcpy(name, p.name, len - 4);
    name[len - 4] = '\0';
    return !strcmp(name, ls->name) || dso_find_symbols(ldso, name, &m, 1) > 0;
}

/* Does the function at target (a symbol's start in the caller's DSO) call the leaf's function
 * directly? A chain read through a register that was no frame pointer (code built without
 * them) can end at any stale return address; the function called before that address is then
 * no caller of the leaf, and is not added. 1, 0, -ENOMEM. */
static int calls_leaf(struct unwinder *uw, struct uw_cfi *rc, struct dso *cdso, uint64_t target,
                      struct dso *ldso, uint64_t leaf_vaddr)
{
    uint64_t t[512];
    struct symres cs, ls;
    struct calls_memo *e = NULL;
    size_t n;
    int err;

    if (dso_resolve(cdso, target, &cs) || !cs.name || cs.bracket || cs.start != target ||
        !cs.size || dso_resolve(ldso, leaf_vaddr, &ls) || !ls.name || ls.bracket)
        return 0;
    if (!uw->calls_memo)
        uw->calls_memo = calloc(CALLS_MEMO, sizeof(*uw->calls_memo));
    if (uw->calls_memo) {
        e = &uw->calls_memo[hash_u64(target ^ hash_u64(ls.start ^ (uint64_t)(uintptr_t)rc)) &
                            (CALLS_MEMO - 1)];
        if (e->rc == rc && e->ldso == ldso && e->target == target && e->leaf == ls.start)
            return e->calls;
    }
    err = uw_direct_calls(uw->calls, rc, target, target + cs.size, t, 512, &n);
    if (err == -ENOMEM)
        return err;
    bool calls = false;
    for (size_t i = 0; !err && i < n && !calls; i++)
        calls = call_is_into(cdso, t[i], ldso, &ls);
    if (e)
        *e = (struct calls_memo){ .rc = rc, .ldso = ldso, .target = target, .leaf = ls.start,
                                  .calls = calls };
    return calls;
}

/* The hidden caller of the frameless user leaf f[u] whose kernel walk gave f[u + 1] next:
 * 1 with its address and map, 0 when f[u] has its frame (or nothing says), -ENOMEM. */
static int hidden_caller(struct unwinder *uw, struct process *p, const struct frame *f,
                         uint32_t u, uint64_t *abs_out, struct map **tm_out)
{
    struct map *m = (struct map *)f[u].map, *rm = (struct map *)f[u + 1].map, *tm;
    uint64_t vaddr, ret_vaddr, target, abs;
    struct uw_cfi *c, *rc;
    const struct uw_rule *r;
    int err;

    if (dso_kind(m->dso) != DSO_FILE || dso_kind(rm->dso) != DSO_FILE)
        return 0;
    if (!(c = cfi_of(uw, m)) || !(rc = cfi_of(uw, rm)))
        return errno == ENOMEM ? -ENOMEM : 0;
    if (dso_map_to_vaddr(m->dso, m->start, m->pgoff, f[u].addr, &vaddr))
        return 0;
    r = uw_cfi_rule(c, vaddr);
    if (!r)
        return -ENOMEM;
    if (!frameless_at(c, r))
        return 0;
    /* f[u + 1] is kept as its return address - 1. */
    if (dso_map_to_vaddr(rm->dso, rm->start, rm->pgoff, f[u + 1].addr + 1, &ret_vaddr))
        return 0;
    err = uw_call_target(uw->calls, rc, ret_vaddr, &target);
    if (err)
        return err == -ENOMEM ? err : 0;
    if ((err = calls_leaf(uw, rc, rm->dso, target, m->dso, vaddr)) <= 0)
        return err;
    /* The callee is in the caller's file, at the same distance as in the file. */
    abs = f[u + 1].addr + 1 - (ret_vaddr - target);
    tm = process_find_map(p, abs);
    if (!tm || tm->dso != rm->dso)
        return 0;
    *abs_out = abs;
    *tm_out = tm;
    return 1;
}

/* A frame-pointer chain whose user leaf has no frame of its own: the kernel's walk started at
 * the caller's frame and gave the caller's return address first, so the caller is missing.
 * The call just before that return address names it. */
static int fix_fp_leaf(struct unwinder *uw, struct process *p, struct frame **frames,
                       size_t *cap, uint32_t *n)
{
    struct frame *f = *frames;
    struct leaf_memo *e = NULL;
    uint32_t u = 0;
    uint64_t abs = 0;
    struct map *tm = NULL;
    int ret;

    while (u < *n && f[u].map == &kernel_map)
        u++;
    /* A kernel frame after the user leaf (a chain out of order, as in some -a files) is no
     * caller to look through: kernel_map has no DSO. */
    if (u + 1 >= *n || !f[u].map || !f[u + 1].map || f[u + 1].map == &kernel_map)
        return 0;
    if (!uw->memo)
        uw->memo = calloc(LEAF_MEMO, sizeof(*uw->memo));
    if (uw->memo) {
        uint64_t h = hash_u64(f[u].addr ^ hash_u64(f[u + 1].addr ^
                                                   (uint64_t)(uintptr_t)f[u + 1].map));
        e = &uw->memo[h & (LEAF_MEMO - 1)];
        if (e->m == f[u].map && e->rm == f[u + 1].map && e->addr == f[u].addr &&
            e->raddr == f[u + 1].addr) {
            if (!e->abs)
                return 0;
            abs = e->abs;
            tm = (struct map *)e->rm;
            goto insert;
        }
    }
    ret = hidden_caller(uw, p, f, u, &abs, &tm);
    if (ret < 0)
        return ret;
    /* Remembered when it depends on the two frames' maps alone: no caller, or one in the
     * caller's own map (another map of the process may be replaced later). */
    if (e && (!ret || tm == f[u + 1].map))
        *e = (struct leaf_memo){ .m = f[u].map, .rm = f[u + 1].map, .addr = f[u].addr,
                                 .raddr = f[u + 1].addr, .abs = ret ? abs : 0 };
    if (!ret)
        return 0;
insert:
    if ((ret = push_frame(frames, cap, n, 0, NULL)))
        return ret;
    f = *frames;
    memmove(&f[u + 2], &f[u + 1], (*n - u - 2) * sizeof(*f));
    f[u + 1] = (struct frame){ .addr = abs, .map = tm };
    tm->in_stack = true;
    uw->st.leaf_fixed++;
    return 1;
}

int unwind_sample(struct unwinder *uw, struct process *p, const struct sample *smp,
                  struct frame **frames, size_t *cap, uint32_t *n)
{
    if (smp->regs_abi && smp->regs_user && smp->stack_user && smp->evsel) {
        struct uw_regs regs;
        uint32_t k = 0;
        if (uw_regs_from_sample(smp->evsel->attr.sample_regs_user, smp->regs_user, &regs)) {
            uw->st.bad_regs++;       /* nothing to unwind from: the frames as the chain has them */
            return 0;
        }
        /* Kernel frames stay; the user part comes from the stack copy. */
        while (k < *n && (*frames)[k].map == &kernel_map)
            k++;
        *n = k;
        int err = unwind_dwarf(uw, p, smp, regs, frames, cap, n);
        return err < 0 ? err : 1;
    }
    if (smp->nr_callchain)
        return fix_fp_leaf(uw, p, frames, cap, n);
    return 0;
}
