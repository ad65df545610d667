/* SPDX-License-Identifier: MIT */
#include <elfutils/libdw.h>
#include <dwarf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>
#include "symbol/dso.h"
#include "symbol/elf_file.h"
#include "unwind/cfi.h"
#include "unwind/ehview.h"
#include "util/hash.h"
#include "util/hashmap.h"

#define LOG_PREFIX "unwind"
#include "util/log.h"

#define VDSO_MAX (1u << 20)
/* Rules are kept in chunks that double from 8 to 256: most DSOs are asked for a few dozen
 * PCs, a few for thousands (shallow.data: 2,351 rules over 51 DSOs, in 51 chunks of 256). */
#define RULES_FIRST_CHUNK 8
#define RULES_MAX_CHUNK 256

struct rule_chunk {
    struct rule_chunk *next;
    size_t used, cap;
    struct uw_rule r[];
};

struct uw_cfi {
    struct dso *dso;
    struct elf_file ef;           /* the code file (its .eh_frame) */
    void *image;                  /* [vdso]: our own copy of the image */
    struct eh_view view;          /* .eh_frame and its search table, mapped (ehview.h) */
    Dwarf_CFI *eh;                /* .eh_frame (of view.elf, else of ef.elf) */
    struct elf_file dbg_ef;       /* the file with DWARF, for .debug_frame, opened on need */
    Dwarf *dbg;
    Dwarf_CFI *debug_frame;
    bool dbg_tried;
    struct hashmap rules;         /* vaddr -> struct uw_rule* */
    struct rule_chunk *chunks;
    struct uw_op *pool;
    size_t npool, cap_pool;
    struct hashmap seqs;          /* ops_key -> 1 + the sequence's offset in pool */
};

/* Our own [vdso]: every process on this kernel maps the same image. */
static int open_vdso(struct uw_cfi *c)
{
    const unsigned char *base = (const void *)getauxval(AT_SYSINFO_EHDR);
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)base;
    uint64_t len;

    if (!base || memcmp(eh->e_ident, ELFMAG, SELFMAG))
        return -ENOENT;
    len = eh->e_shoff + (uint64_t)eh->e_shnum * eh->e_shentsize;
    if (len < sizeof(*eh) || len > VDSO_MAX)
        return -ENOENT;
    c->image = malloc(len);
    if (!c->image)
        return -ENOMEM;
    memcpy(c->image, base, len);
    if (elf_file_open_mem(c->image, len, &c->ef))
        return -ENOENT;
    return 0;
}

/* The file shrank under the view: what libdw read may be zeros. Its CFI is ended and no
 * longer used (what it said before stays). */
static bool eh_changed(struct uw_cfi *c)
{
    if (!eh_view_damaged(&c->view))
        return false;
    if (c->eh) {
        pr_debug("%s: changed while its .eh_frame was read: no longer used",
                 dso_path(c->dso) ? dso_path(c->dso) : "?");
        dwarf_cfi_end(c->eh);
        c->eh = NULL;
    }
    return true;
}

struct uw_cfi *uw_cfi_open(struct dso *dso)
{
    struct uw_cfi *c = calloc(1, sizeof(*c));
    const char *path;
    int err = -ENOENT;

    if (!c) {
        errno = ENOMEM;
        return NULL;
    }
    c->dso = dso;
    c->ef.fd = -1;
    c->dbg_ef.fd = -1;
    c->view.guard = -1;
    hashmap_init(&c->rules);
    hashmap_init(&c->seqs);
    if (dso_kind(dso) == DSO_VDSO) {
        err = open_vdso(c);
    } else if (dso_kind(dso) == DSO_FILE && (path = dso_code_path(dso))) {
        err = elf_file_open(path, &c->ef);
        if (err)
            err = err == -ENOMEM ? err : -ENOENT;
    }
    if (err) {
        uw_cfi_free(c);
        errno = -err;
        return NULL;
    }
    /* NULL without .eh_frame: .debug_frame may do. Through the view when the file has an
     * .eh_frame to map: the search table is found wherever it is listed. */
    c->eh = dwarf_getcfi_elf(eh_view_open(&c->ef, &c->view) ? c->ef.elf : c->view.elf);
    eh_changed(c);
    return c;
}

void uw_cfi_free(struct uw_cfi *c)
{
    if (!c)
        return;
    if (c->eh)
        dwarf_cfi_end(c->eh);   /* dwarf_getcfi_elf's CFI is the caller's to end */
    eh_view_close(&c->view);
    if (c->dbg)
        dwarf_end(c->dbg);
    if (c->dbg_ef.elf)
        elf_file_close(&c->dbg_ef);
    if (c->ef.elf)
        elf_file_close(&c->ef);
    free(c->image);
    hashmap_release(&c->rules);
    hashmap_release(&c->seqs);
    while (c->chunks) {
        struct rule_chunk *n = c->chunks->next;
        free(c->chunks);
        c->chunks = n;
    }
    free(c->pool);
    free(c);
}

/* .debug_frame, from the file with DWARF (separate debug info or the code file itself). */
static Dwarf_CFI *debug_frame(struct uw_cfi *c)
{
    const char *path;
    GElf_Shdr sh;

    if (c->dbg_tried)
        return c->debug_frame;
    c->dbg_tried = true;
    if (dso_kind(c->dso) != DSO_FILE || !(path = dso_debug_path(c->dso)))
        return NULL;
    /* dwarf_begin inflates every compressed debug section up front (most of a report's time
     * when it ran for every DSO): only for a file that has a .debug_frame at all. */
    if (elf_file_open(path, &c->dbg_ef))
        return NULL;
    if (!elf_find_section(c->dbg_ef.elf, ".debug_frame", 0, &sh))
        return NULL;
    c->dbg = dwarf_begin_elf(c->dbg_ef.elf, DWARF_C_READ, NULL);
    if (c->dbg)
        c->debug_frame = dwarf_getcfi(c->dbg);
    return c->debug_frame;
}

static uint64_t ops_key(const Dwarf_Op *ops, size_t n)
{
    uint64_t h = hash_u64(n);
    for (size_t i = 0; i < n; i++)
        h = hash_u64(h ^ ops[i].atom ^ hash_u64(ops[i].number ^ hash_u64(ops[i].number2)));
    return h;
}

static bool same_ops(const struct uw_op *p, const Dwarf_Op *ops, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i].atom != ops[i].atom || p[i].n1 != ops[i].number || p[i].n2 != ops[i].number2)
            return false;
    return true;
}

/* A sequence of ops met before in this file is shared: a few dozen (CFA = rsp + 8, rbp at
 * CFA - 16, ...) make most of a file's rules, each of 17 registers and a CFA. */
static int add_ops(struct uw_cfi *c, const Dwarf_Op *ops, size_t n, struct uw_expr *e)
{
    uint64_t key = ops_key(ops, n);
    uintptr_t seen = (uintptr_t)hashmap_get(&c->seqs, key);

    if (n > 255)
        return -E2BIG;
    if (seen && seen - 1 + n <= c->npool && same_ops(c->pool + seen - 1, ops, n)) {
        e->off = (uint32_t)(seen - 1);
        e->n = (uint8_t)n;
        return 0;
    }
    if (c->npool + n > c->cap_pool) {
        size_t cap = c->cap_pool ? c->cap_pool * 2 : 256;
        while (cap < c->npool + n)
            cap *= 2;
        struct uw_op *p = realloc(c->pool, cap * sizeof(*p));
        if (!p)
            return -ENOMEM;
        c->pool = p;
        c->cap_pool = cap;
    }
    e->off = (uint32_t)c->npool;
    e->n = (uint8_t)n;
    for (size_t i = 0; i < n; i++)
        c->pool[c->npool++] = (struct uw_op){ ops[i].atom, ops[i].number, ops[i].number2 };
    /* Not shared when the key is taken (a collision) or there is no memory for it. */
    if (!seen)
        hashmap_put(&c->seqs, key, (void *)(uintptr_t)(e->off + 1));
    return 0;
}

/* Copies what libdw says of one frame into r; the Dwarf_Frame is freed by the caller. */
static int fill_rule(struct uw_cfi *c, Dwarf_Frame *f, struct uw_rule *r)
{
    Dwarf_Op *ops, mem[3];
    size_t n;
    Dwarf_Addr start, end;
    int ra = dwarf_frame_info(f, &start, &end, &r->signal);

    if (ra < 0 || ra >= DW_NREGS)
        return 0;                       /* an RA column we cannot hold: no rule */
    r->ra = (uint8_t)ra;
    r->row_start = start;
    if (dwarf_frame_cfa(f, &ops, &n) || !n)
        return 0;
    if (add_ops(c, ops, n, &r->cfa) == -ENOMEM)
        return -ENOMEM;
    r->cfa.kind = UW_VAL;
    for (int i = 0; i < DW_NREGS; i++) {
        struct uw_expr *e = &r->reg[i];
        if (dwarf_frame_register(f, i, mem, &ops, &n)) {
            e->kind = UW_UNDEF;
            continue;
        }
        if (!n) {
            e->kind = ops ? UW_UNDEF : UW_SAME;
            continue;
        }
        e->kind = UW_AT;
        if (ops[n - 1].atom == DW_OP_stack_value) {
            e->kind = UW_VAL;
            n--;
        }
        int err = add_ops(c, ops, n, e);
        if (err == -ENOMEM)
            return err;
        if (err)
            e->kind = UW_UNDEF;
    }
    r->found = true;
    return 0;
}

static struct uw_rule *new_rule(struct uw_cfi *c)
{
    if (!c->chunks || c->chunks->used == c->chunks->cap) {
        size_t cap = !c->chunks ? RULES_FIRST_CHUNK :
                     c->chunks->cap < RULES_MAX_CHUNK ? c->chunks->cap * 2 : RULES_MAX_CHUNK;
        struct rule_chunk *ch = malloc(sizeof(*ch) + cap * sizeof(ch->r[0]));
        if (!ch)
            return NULL;
        ch->next = c->chunks;
        ch->used = 0;
        ch->cap = cap;
        c->chunks = ch;
    }
    struct uw_rule *r = &c->chunks->r[c->chunks->used++];
    memset(r, 0, sizeof(*r));
    return r;
}

const struct uw_rule *uw_cfi_rule(struct uw_cfi *c, uint64_t vaddr)
{
    struct uw_rule *r = hashmap_get(&c->rules, vaddr);
    Dwarf_Frame *f = NULL;
    Dwarf_CFI *df;

    if (r)
        return r;
    r = new_rule(c);
    if (!r)
        return NULL;
    if (c->eh && dwarf_cfi_addrframe(c->eh, vaddr, &f))
        f = NULL;
    if (eh_changed(c)) {
        free(f);
        f = NULL;
    }
    if (f || ((df = debug_frame(c)) && !dwarf_cfi_addrframe(df, vaddr, &f))) {
        int err = fill_rule(c, f, r);
        free(f);
        if (err)
            return NULL;
    }
    if (hashmap_put(&c->rules, vaddr, r))
        return NULL;
    return r;
}

const struct uw_op *uw_cfi_ops(const struct uw_cfi *c, const struct uw_expr *e)
{
    return e->n ? c->pool + e->off : NULL;     /* the pool is NULL until an op is kept */
}

int uw_cfi_code(struct uw_cfi *c, uint64_t vaddr, uint8_t *out, size_t n)
{
    size_t np;

    if (elf_getphdrnum(c->ef.elf, &np))
        return -ENOENT;
    for (size_t i = 0; i < np; i++) {
        GElf_Phdr ph;
        if (!gelf_getphdr(c->ef.elf, (int)i, &ph) || ph.p_type != PT_LOAD ||
            !(ph.p_flags & PF_X) || vaddr < ph.p_vaddr || vaddr - ph.p_vaddr > ph.p_filesz ||
            n > ph.p_filesz - (vaddr - ph.p_vaddr))
            continue;
        uint64_t off = ph.p_offset + (vaddr - ph.p_vaddr);
        if (off > c->ef.size || n > c->ef.size - off)
            return -ENOENT;
        /* Read directly: libelf would keep a chunk per call site until the file is closed. */
        if (c->image) {
            memcpy(out, (const char *)c->image + off, n);
            return 0;
        }
        return pread(c->ef.fd, out, n, (off_t)off) == (ssize_t)n ? 0 : -ENOENT;
    }
    return -ENOENT;
}

/* A CFI row beginning at vaddr in the state of a function's entry (CFA = rsp + 8). */
static bool entry_row_at(struct uw_cfi *c, uint64_t vaddr)
{
    const struct uw_rule *r = uw_cfi_rule(c, vaddr);
    const struct uw_op *op;

    if (!r || !r->found || r->row_start != vaddr || r->cfa.n != 1)
        return false;
    op = uw_cfi_ops(c, &r->cfa);
    return (op->atom == DW_OP_bregx && op->n1 == DW_RSP && op->n2 == 8) ||
           (op->atom == DW_OP_breg0 + DW_RSP && op->n1 == 8);
}

bool uw_cfi_is_func_start(struct uw_cfi *c, uint64_t vaddr)
{
    struct symres sr;

    /* The CFI first: it settles nearly every call, and the symbols then need not be loaded
     * while samples are read (either answer alone says yes). */
    if (entry_row_at(c, vaddr))
        return true;
    return !dso_resolve(c->dso, vaddr, &sr) && sr.name && !sr.bracket && sr.start == vaddr;
}
