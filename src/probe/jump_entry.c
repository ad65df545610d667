/* SPDX-License-Identifier: MIT */
#define LOG_PREFIX "jump"
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "symbol/dso.h"
#include "symbol/elf_program.h"
#include "probe/jump_code.h"
#include "probe/jump_entry.h"
#include "probe/jump_files.h"
#include "probe/region_trace.h"
#include "util/file.h"
#include "util/log.h"
#include "util/vec.h"

/* The entry hook, built from src/intarget/entry_hook.c and embedded by the Makefile. */
extern const unsigned char prospect_entry_hook_so[];
extern const unsigned long prospect_entry_hook_so_len;

#define MAX_FUNC (1u << 20)     /* longer functions are read up to here */
#define MAX_CODE (64u << 20)    /* code scanned for branches into a moved prefix */

struct cand {
    size_t probe;               /* the entry probe; for a function the return probe follows */
    bool point;                 /* a point probe inside code (line, address, inlined range),
                                 * else a function entry */
    bool with_ret;              /* a function entry whose return probe follows: it moves too */
    bool exit;                  /* a function's exit probe at a `ret`: the jump goes in the
                                 * instructions before it, the probe moves there (below) */
    bool moved_back;            /* exit: the probe was moved to the jump's place */
    uint64_t ret_vaddr, ret_offset;
    int64_t ret_adjust;         /* the exit probe as it was, to put back if it stays */
    unsigned guard;             /* bytes from the jump's place that no branch may land inside
                                 * (up to the ret for an exit) */
    struct jump_prefix pre;
    uint8_t bytes[32];
    bool ok;
    bool swept;                 /* refused by the sweep: something jumps into its bytes */
};

typedef VEC(struct cand) cand_vec;
typedef VEC(char) char_buf;

static int appendf(char_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int appendf(char_buf *b, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || vec_reserve(b, (size_t)n + 1))
        return -ENOMEM;
    va_start(ap, fmt);
    vsnprintf(b->v + b->n, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->n += (size_t)n;
    return 0;
}

/* Bytes as two hex digits each, as the entry hook reads them. */
static int append_hex(char_buf *b, const uint8_t *v, unsigned n)
{
    int e = 0;
    for (unsigned i = 0; i < n && !e; i++)
        e = appendf(b, "%02x", v[i]);
    return e;
}

struct jump_entry {
    char dir[256];              /* jump_make_dir takes directories of at most 200 bytes */
    struct image_id prog[IMAGE_WATCH_MAX];   /* the programs with jump entries */
    size_t nprog;
    char *env[3];
    int slot_region[JUMP_MAX_SLOTS];
    unsigned nslots;
    char *log;                  /* the hook's log, once read */
    size_t loglen;
    bool log_read;
    char log_why[160];          /* why the log was not read or not trusted, or "" */
    unsigned log_bad, log_first_bad;    /* malformed lines, ignored */
};

/* A -v site line: why the probe stays a uprobe, or (why NULL) how many bytes were moved. */
static int note(struct region_list *rl, const struct probe_point *p, const char *why,
                unsigned moved)
{
    struct region *r = &rl->regions.v[p->region];
    char buf[640], what[64], *s;
    if (p->function && p->role == RC_ENTER)
        snprintf(what, sizeof(what), "entry");
    else if (p->function)
        snprintf(what, sizeof(what), "exit probe at 0x%llx", (unsigned long long)p->vaddr);
    else
        snprintf(what, sizeof(what), "probe at 0x%llx", (unsigned long long)p->vaddr);
    if (why)
        snprintf(buf, sizeof(buf), "%s: %s: %s stays a uprobe: %s", p->path, r->label, what,
                 why);
    else if (p->function && p->role == RC_ENTER)
        snprintf(buf, sizeof(buf), "%s: %s: jump entry (first %u bytes moved to a stub; the "
                 "entry probe%s on Prospect's trampoline, no single-step)", p->path,
                 r->label, moved, p->uret ? " and the return probe" : "");
    else
        snprintf(buf, sizeof(buf), "%s: %s: jump at 0x%llx (%u bytes moved to a stub; the "
                 "probe is on Prospect's trampoline, no single-step)", p->path, r->label,
                 (unsigned long long)p->vaddr, moved);
    s = strdup(buf);
    if (!s || vec_push(&r->sites, s)) {
        free(s);
        return -ENOMEM;
    }
    return 0;
}

/* A probe at a point of the code (not a function's entry or exit): lines, addresses, inlined
 * ranges. It can move to a slot on its own. */
static bool is_point(const struct region_list *rl, size_t i)
{
    const struct probe_point *p = &rl->probes.v[i];
    return !p->ret && !p->function;
}

static bool is_function_entry(const struct region_list *rl, size_t i)
{
    const struct probe_point *p = &rl->probes.v[i];
    return p->role == RC_ENTER && p->function && !p->ret && p->func_size;
}

/* A function's exit probe found in its code (a return or a tail call): one at a `ret` can be
 * seen through a jump placed in the instructions before it. */
static bool is_code_exit(const struct region_list *rl, size_t i)
{
    const struct probe_point *p = &rl->probes.v[i];
    return p->function && p->role == RC_EXIT && !p->ret && !p->uret;
}

/* A function entry followed by its return probe (at the same place: it moves along). */
static bool has_return_probe(const struct region_list *rl, size_t i)
{
    const struct probe_point *p = &rl->probes.v[i], *q = &rl->probes.v[i + 1];
    return i + 1 < rl->probes.n && q->ret && q->uret && q->offset == p->offset &&
           !strcmp(q->path, p->path);
}

struct sweep {
    cand_vec *c;
    const struct region_list *rl;
    size_t from, to;            /* candidates of this file */
};

static void on_target(void *arg, uint64_t t)
{
    struct sweep *sw = arg;
    for (size_t k = sw->from; k < sw->to; k++) {
        struct cand *c = &sw->c->v[k];
        uint64_t v = sw->rl->probes.v[c->probe].vaddr;
        if (c->ok && t > v && t < v + (c->guard > c->pre.len ? c->guard : c->pre.len)) {
            c->ok = false;
            c->swept = true;
        }
    }
}

/* Another symbol (an alternate entry) inside a prefix. */
static void on_symbol(void *arg, const struct symbol_match *m)
{
    on_target(arg, m->start);
}

static bool same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return !stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* gcc moves a function's unlikely blocks to "f.cold" ("f(int) [clone .cold]"): a switch's jump
 * table in one part can target the other, which neither the indirect-jump check of one
 * symbol nor the branch sweep sees. Is `name` such a part, or does it have one? */
static bool split_function(struct dso *dso, const char *name)
{
    struct symbol_match cold;
    return symbol_is_cold_part(name) || symbol_cold_part(dso, name, &cold);
}

/* The code a candidate is checked against: a function entry's function, or the function that
 * contains a point (which must decode up to it and have no indirect jump). *at is the
 * probe's offset in *code. 0 with reason[0] set when the candidate cannot move; -ENOMEM. */
static int cand_code(int fd, struct dso *dso, const struct probe_point *p, bool point,
                     uint8_t **code, size_t *n, size_t *at, char *reason, size_t rlen)
{
    uint64_t start = p->vaddr, size = p->func_size;
    struct symres sr;
    int e;

    *code = NULL;
    *at = 0;
    if (point) {
        if (dso_resolve(dso, p->vaddr, &sr) || !sr.name || sr.bracket || !sr.size ||
            p->vaddr < sr.start || p->vaddr >= sr.start + sr.size) {
            snprintf(reason, rlen, "no function symbol with a size covers it");
            return 0;
        }
        start = sr.start;
        size = sr.size;
        *at = p->vaddr - start;
        if (split_function(dso, sr.name)) {
            snprintf(reason, rlen, "its function is split into hot and cold parts (a jump "
                     "table in one can land in the other)");
            return 0;
        }
    }
    if (size > MAX_FUNC || p->offset < *at) {
        snprintf(reason, rlen, "its function is too large to check");
        return 0;
    }
    *n = size;
    *code = malloc(size + 1);
    if (!*code)
        return -ENOMEM;
    if (pread(fd, *code, size, (off_t)(p->offset - *at)) != (ssize_t)size) {
        snprintf(reason, rlen, "its code cannot be read from the file");
        return 0;
    }
    if (point && (e = jump_code_check_function(*code, size, start, p->vaddr, reason, rlen)) ==
                 -ENOMEM) {
        free(*code);
        *code = NULL;
        return e;
    }
    return 0;
}

/* Is probe q one of the candidates [from, to) (an entry or its return probe, or a point)?
 * Candidates at one place share a slot. */
static bool is_cand_probe(const cand_vec *cands, size_t from, size_t to, size_t q)
{
    for (size_t k = from; k < to; k++)
        if (cands->v[k].probe == q || (cands->v[k].with_ret && cands->v[k].probe + 1 == q))
            return true;
    return false;
}

/* An exit probe that stays a uprobe goes back to its ret. */
static void exit_put_back(struct region_list *rl, struct cand *c)
{
    struct probe_point *p = &rl->probes.v[c->probe];
    if (!c->moved_back)
        return;
    p->vaddr = c->ret_vaddr;
    p->offset = c->ret_offset;
    p->sp_adjust = c->ret_adjust;
    c->moved_back = false;
}

/* Two jumps whose moved bytes overlap (a short function's entry and the jump placed before
 * its ret) would patch each other: the later one stays a uprobe. */
static int settle_overlaps(struct region_list *rl, cand_vec *cands)
{
    for (size_t b = 0; b < cands->n; b++) {
        const struct probe_point *pb = &rl->probes.v[cands->v[b].probe];
        for (size_t a = 0; a < b && cands->v[b].ok; a++) {
            const struct probe_point *pa = &rl->probes.v[cands->v[a].probe];
            if (!cands->v[a].ok || pa->offset == pb->offset || strcmp(pa->path, pb->path) ||
                pa->offset >= pb->offset + cands->v[b].pre.len ||
                pb->offset >= pa->offset + cands->v[a].pre.len)
                continue;
            cands->v[b].ok = false;
            exit_put_back(rl, &cands->v[b]);
            if (note(rl, pb, "its bytes overlap those another jump moves", 0))
                return -ENOMEM;
        }
    }
    return 0;
}

/* Candidates at one place share a slot, so they move together or not at all: one that stays a
 * uprobe would put its int3 where the jump must go. */
static int settle_shared(struct region_list *rl, cand_vec *cands)
{
    for (size_t a = 0; a < cands->n; a++) {
        const struct probe_point *pa = &rl->probes.v[cands->v[a].probe];
        bool all_ok = true;
        for (size_t b = 0; b < cands->n; b++) {
            const struct probe_point *pb = &rl->probes.v[cands->v[b].probe];
            if (pb->offset == pa->offset && !strcmp(pb->path, pa->path))
                all_ok &= cands->v[b].ok;
        }
        if (!all_ok && cands->v[a].ok) {
            cands->v[a].ok = false;
            if (note(rl, pa, "another region's probe at the same place stays a uprobe", 0))
                return -ENOMEM;
        }
    }
    return 0;
}

/* An exit at a `ret` (the probe at *at in code): the jump goes at the start of the
 * instructions before it (jump_code_exit_point), where the probe moves, its stack pointer
 * adjusted by what they do before the ret. 0 with reason set when it cannot; -ENOMEM. */
static int exit_jump_place(struct cand *c, struct probe_point *p, const uint8_t *code,
                           size_t n, size_t *at, char *reason, size_t rlen)
{
    uint64_t start = p->vaddr - *at, place;
    int64_t delta;
    int e = jump_code_exit_point(code, n, start, p->vaddr, &place, &delta, reason, rlen);

    if (e)
        return e == -ENOMEM ? e : 0;
    if (place == start) {     /* the entry's place: one probe hit cannot be both */
        snprintf(reason, rlen, "its return is within its first 5 bytes");
        return 0;
    }
    c->ret_vaddr = p->vaddr;
    c->ret_offset = p->offset;
    c->ret_adjust = p->sp_adjust;
    c->moved_back = true;
    c->guard = (unsigned)(p->vaddr + 1 - place);
    p->offset -= p->vaddr - place;
    p->vaddr = place;
    p->sp_adjust += delta;
    *at = place - start;
    return 0;
}

/* Checks the candidates [from, to), all in one file. */
static int check_file(struct region_list *rl, cand_vec *cands, size_t from, size_t to,
                      const char *exe)
{
    const char *path = rl->probes.v[cands->v[from].probe].path;
    struct elf_program prog;
    struct dso *dso = NULL;
    const char *why = NULL;
    uint8_t *buf = NULL;
    size_t total = 0;
    int fd = -1, e;

    e = elf_program_read(path, &prog);
    if (e == -ENOMEM)
        return e;
    if (e)
        why = "it is not a readable ELF file";
    else if (!prog.executable)
        why = "it is in a shared library (one loaded later would not be patched)";
    else if (!same_file(path, exe))
        why = "it is not in the command's own program (the hook would have to pass through "
              "other programs to reach it)";
    else if (!prog.interp)
        why = "the program is statically linked (nothing can be preloaded)";
    else if (prog.sanitizer)
        why = "the program needs a sanitizer runtime, which must be loaded first";
    else if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
        why = "the program cannot be read";
    if (!why && !(dso = dso_cache_get(rl->dsos, DSO_FILE, path, NULL, 0, 0))) {
        e = -ENOMEM;
        goto out;
    }
    for (size_t k = from; k < to && !why; k++) {
        struct cand *c = &cands->v[k];
        struct probe_point *p = &rl->probes.v[c->probe];
        char reason[200] = "";
        uint8_t *code = NULL;
        size_t n = 0, at = 0;

        /* An exception landing pad is entered by the unwinder, not by a branch the sweep
         * can see; one could sit inside the bytes moved at a point (never inside a function's
         * first bytes, which hold no call, nor in the straight run of pops and moves that
         * ends at a ret: a landing pad starts by taking the exception, and never returns). */
        if (c->point && !c->exit && prog.cxx) {
            if ((e = note(rl, p, "the program uses C++ exceptions, whose landing pads are not "
                          "branches that can be checked", 0)))
                goto out;
            continue;
        }
        e = cand_code(fd, dso, p, c->point, &code, &n, &at, reason, sizeof(reason));
        if (e == -ENOMEM)
            goto out;
        if (!reason[0] && c->exit &&
            (e = exit_jump_place(c, p, code, n, &at, reason, sizeof(reason))) == -ENOMEM) {
            free(code);
            goto out;
        }
        if (!reason[0] && (e = (c->exit ? jump_code_prefix_to_ret : jump_code_prefix)(
                               code + at, n - at, p->vaddr, &c->pre, reason,
                               sizeof(reason))) == -ENOMEM) {
            free(code);
            goto out;
        }
        if (!reason[0]) {
            memcpy(c->bytes, code + at, c->pre.len);
            c->ok = true;
            for (size_t q = 0; q < rl->probes.n; q++) {
                const struct probe_point *o = &rl->probes.v[q];
                /* Candidates at this very place (itself included) share its slot. */
                if (!(o->offset == p->offset && is_cand_probe(cands, from, to, q)) &&
                    o->offset >= p->offset &&
                    o->offset < p->offset + c->pre.len && !strcmp(o->path, p->path)) {
                    c->ok = false;
                    snprintf(reason, sizeof(reason), "another probe is in its first %u bytes",
                             c->pre.len);
                }
            }
        }
        free(code);
        e = 0;
        if (!c->ok && (e = note(rl, p, reason, 0)))
            goto out;
    }
    if (why) {
        for (size_t k = from; k < to; k++)
            if ((e = note(rl, &rl->probes.v[cands->v[k].probe], why, 0)))
                goto out;
        e = 0;
        goto out;
    }
    /* No code may jump into the middle of a moved prefix. */
    for (size_t s = 0; s < prog.ncode; s++)
        total += prog.code[s].size;
    struct sweep sw = { .c = cands, .rl = rl, .from = from, .to = to };
    dso_foreach_symbol(dso, on_symbol, &sw);
    if (total <= MAX_CODE)
        for (size_t s = 0; s < prog.ncode; s++) {
            const struct code_seg *cs = &prog.code[s];
            free(buf);
            buf = malloc(cs->size);
            if (!buf) {
                e = -ENOMEM;
                goto out;
            }
            if (pread(fd, buf, cs->size, (off_t)cs->off) != (ssize_t)cs->size)
                total = MAX_CODE + 1;
            else if ((e = jump_code_branch_targets(buf, cs->size, cs->vaddr, on_target, &sw)))
                goto out;
        }
    for (size_t k = from; k < to; k++) {
        struct cand *c = &cands->v[k];
        const struct probe_point *p = &rl->probes.v[c->probe];
        if (c->ok && total > MAX_CODE) {
            c->ok = false;
            e = note(rl, p, "the program's code could not "
                     "be scanned for jumps into the function's first bytes", 0);
        } else if (c->swept) {
            e = note(rl, p, "other code jumps into its first bytes, takes an address inside "
                     "them, or a symbol starts there", 0);
        }
        if (e)
            goto out;
    }
out:
    free(buf);
    if (fd >= 0)
        close(fd);
    elf_program_release(&prog);
    return e;
}

static void remember_program(struct jump_entry *j, const struct stat *st)
{
    struct image_id id = { major(st->st_dev), minor(st->st_dev), st->st_ino };
    for (size_t i = 0; i < j->nprog; i++)
        if (!memcmp(&j->prog[i], &id, sizeof(id)))
            return;
    if (j->nprog < IMAGE_WATCH_MAX)
        j->prog[j->nprog++] = id;
}

/* The slot of an earlier candidate at the same place as candidate k, or -1. */
static int shared_slot(const struct region_list *rl, const cand_vec *cands, const int *slots,
                       size_t k)
{
    const struct probe_point *p = &rl->probes.v[cands->v[k].probe];
    for (size_t i = 0; i < k; i++) {
        const struct probe_point *o = &rl->probes.v[cands->v[i].probe];
        if (cands->v[i].ok && o->offset == p->offset && !strcmp(o->path, p->path))
            return slots[i];
    }
    return -1;
}

static int make_dir(struct jump_entry *j, const cand_vec *cands, struct region_list *rl,
                    char *err, size_t errlen)
{
    static uint8_t tramp[JUMP_TRAMP_SIZE];
    char_buf plan = { 0 };
    char path[PATH_MAX];
    const char *pre = getenv("LD_PRELOAD");
    int *slots, e;

    /* Private (0700 directory, 0600 files): nobody else can change the plan or write to the
     * log. A command that switches to another user before exec cannot load the hook; its
     * images without the trampoline are reported (docs/stat.md). */
    if ((e = jump_make_dir(j->dir, sizeof(j->dir)))) {
        snprintf(err, errlen, "no temporary directory the command could load the entry hook "
                 "from (tried $TMPDIR, /tmp, /var/tmp, /dev/shm: missing, not writable or "
                 "noexec)");
        return e;
    }
    slots = malloc((cands->n + 1) * sizeof(*slots));
    if (!slots)
        return -ENOMEM;
    for (size_t k = 0; k < cands->n; k++)
        slots[k] = -1;
    jump_trampoline_fill(tramp);
    e = appendf(&plan, "prospect-jump 1 %x\n", JUMP_TRAMP_SIZE);
    for (size_t k = 0; k < cands->n && !e; k++) {
        const struct cand *c = &cands->v[k];
        struct probe_point *p = &rl->probes.v[c->probe];
        struct stat st;
        if (!c->ok || (slots[k] = shared_slot(rl, cands, slots, k)) >= 0)
            continue;
        slots[k] = (int)j->nslots;
        if (stat(p->path, &st)) {
            e = -errno;
            break;
        }
        remember_program(j, &st);
        /* site <slot> <dev> <ino> <vaddr> <len> <bytes> <stub len> <stub> <nfix> fixes... */
        if ((e = appendf(&plan, "site %x %llx %llx %llx %x ", j->nslots,
                         (unsigned long long)st.st_dev, (unsigned long long)st.st_ino,
                         (unsigned long long)p->vaddr, c->pre.len)) ||
            (e = append_hex(&plan, c->bytes, c->pre.len)) ||
            (e = appendf(&plan, " %x ", c->pre.stub_len)) ||
            (e = append_hex(&plan, c->pre.stub, c->pre.stub_len)) ||
            (e = appendf(&plan, " %x", c->pre.nfix)))
            break;
        for (unsigned f = 0; f < c->pre.nfix && !e; f++)
            e = appendf(&plan, " %x %x %llx", c->pre.fix[f].disp_off, c->pre.fix[f].insn_end,
                        (unsigned long long)c->pre.fix[f].target);
        if (!e)
            e = appendf(&plan, "\n");
        j->slot_region[j->nslots++] = p->region;
    }
    if (e || (e = jump_write_file(j->dir, "plan", plan.v, plan.n, 0600)) ||
        (e = jump_write_file(j->dir, "trampoline", tramp, sizeof(tramp), 0600)) ||
        (e = jump_write_file(j->dir, "entry_hook.so", prospect_entry_hook_so,
                        prospect_entry_hook_so_len, 0700)) ||
        (e = jump_write_file(j->dir, "log", NULL, 0, 0600)))
        goto fail;
    vec_free(&plan);
    if (asprintf(&j->env[0], "LD_PRELOAD=%s%s%s/entry_hook.so", pre && *pre ? pre : "",
                 pre && *pre ? ":" : "", j->dir) < 0 ||
        asprintf(&j->env[1], "PROSPECT_JUMP_PLAN=%s", j->dir) < 0) {
        j->env[0] = j->env[1] = NULL;
        free(slots);
        return -ENOMEM;
    }
    for (size_t k = 0; k < cands->n; k++)
        if (cands->v[k].ok && note(rl, &rl->probes.v[cands->v[k].probe], NULL,
                                   cands->v[k].pre.len)) {
            free(slots);
            return -ENOMEM;
        }
    /* Move the probes. */
    snprintf(path, sizeof(path), "%s/trampoline", j->dir);
    for (size_t k = 0; k < cands->n; k++) {
        const struct cand *c = &cands->v[k];
        if (!c->ok)
            continue;
        for (size_t q = c->probe; q <= c->probe + c->with_ret; q++) {
            struct probe_point *p = &rl->probes.v[q];
            char *np = strdup(path);
            if (!np) {
                free(slots);
                return -ENOMEM;
            }
            free(p->path);
            p->path = np;
            p->offset = (uint64_t)slots[k] * JUMP_SLOT_SIZE;
            p->jump = true;
        }
    }
    free(slots);
    return 0;
fail:
    free(slots);
    vec_free(&plan);
    snprintf(err, errlen, "cannot write the entry hook's files in %s: %s", j->dir, strerror(-e));
    return e;
}

int jump_entry_plan(struct jump_entry **out, struct region_list *rl, const char *exe,
                    char *err, size_t errlen)
{
    cand_vec cands = { 0 };
    struct jump_entry *j = NULL;
    size_t nok = 0;
    int e = 0;

    *out = NULL;
    for (size_t i = 0; i < rl->probes.n; i++)
        if ((is_function_entry(rl, i) || is_point(rl, i) || is_code_exit(rl, i)) &&
            (e = vec_push(&cands, ((struct cand){ .probe = i,
                                                 .point = is_point(rl, i) || is_code_exit(rl, i),
                                                 .exit = is_code_exit(rl, i),
                                                 .with_ret = is_function_entry(rl, i) &&
                                                             has_return_probe(rl, i) }))))
            goto out;
    /* Candidates of one file are checked together (one scan of its code). */
    for (size_t from = 0, to; from < cands.n; from = to) {
        const char *path = rl->probes.v[cands.v[from].probe].path;
        for (to = from + 1; to < cands.n; to++)
            if (strcmp(rl->probes.v[cands.v[to].probe].path, path))
                break;
        if ((e = check_file(rl, &cands, from, to, exe)))
            goto out;
    }
    if ((e = settle_overlaps(rl, &cands)) || (e = settle_shared(rl, &cands)))
        goto out;
    for (size_t k = 0; k < cands.n; k++) {
        if (cands.v[k].ok && nok == JUMP_MAX_SLOTS) {
            cands.v[k].ok = false;
            if ((e = note(rl, &rl->probes.v[cands.v[k].probe], "more than 256 jump entries", 0)))
                goto out;
        }
        nok += cands.v[k].ok;
    }
    if (!nok)
        goto out;
    j = calloc(1, sizeof(*j));
    if (!j) {
        e = -ENOMEM;
        goto out;
    }
    if ((e = make_dir(j, &cands, rl, err, errlen))) {
        /* Not fatal: the functions keep their uprobes (err says why, for a note). */
        jump_entry_free(j);
        j = NULL;
        for (size_t k = 0; k < cands.n && e != -ENOMEM; k++)
            if (cands.v[k].ok)
                e = note(rl, &rl->probes.v[cands.v[k].probe], err, 0) ? -ENOMEM : 0;
        if (e != -ENOMEM)
            e = 0;
        goto out;
    }
    *out = j;
    pr_debug("%zu jump entries, files in %s", nok, j->dir);
out:
    for (size_t k = 0; k < cands.n; k++)
        if (!cands.v[k].ok || !*out)
            exit_put_back(rl, &cands.v[k]);
    vec_free(&cands);
    if (e == -ENOMEM && !err[0])
        snprintf(err, errlen, "out of memory");
    return e;
}

int jump_entry_watch(const struct jump_entry *j, struct image_watch *w)
{
    char path[PATH_MAX];
    struct stat st;
    snprintf(path, sizeof(path), "%s/trampoline", j->dir);
    if (stat(path, &st))
        return -errno;
    memset(w, 0, sizeof(*w));
    w->tramp = (struct image_id){ major(st.st_dev), minor(st.st_dev), st.st_ino };
    memcpy(w->prog, j->prog, j->nprog * sizeof(*j->prog));
    w->nprog = j->nprog;
    return 0;
}

char *const *jump_entry_env(const struct jump_entry *j)
{
    return j->env;
}

#define LOG_MAX (1 << 20)
#define LOG_LINE_MAX 255        /* the hook writes lines of at most 255 bytes */

/* One line of the hook's log, parsed. */
struct log_entry {
    unsigned long pid;
    bool fail;
    long slot;                  /* -1: the whole process */
    const char *reason;         /* fail lines: printable, up to the line's end */
    int rlen;
};

/* A well-formed line (without its '\n'): "<pid> ok <hex>" or "<pid> fail <hex|-> <reason>". */
static bool parse_entry(const char *l, size_t n, struct log_entry *e)
{
    char buf[LOG_LINE_MAX + 1], *end;
    size_t at;

    if (n == 0 || n > LOG_LINE_MAX || memchr(l, '\0', n) || l[0] < '1' || l[0] > '9')
        return false;
    memcpy(buf, l, n);
    buf[n] = '\0';
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)buf[i] < 0x20 || buf[i] == 0x7f)
            return false;
    e->pid = strtoul(buf, &end, 10);
    if (!strncmp(end, " ok ", 4)) {
        end += 4;
        if (!isxdigit((unsigned char)*end))
            return false;
        strtoul(end, &end, 16);
        e->fail = false;
        return *end == '\0';
    }
    if (strncmp(end, " fail ", 6))
        return false;
    end += 6;
    e->fail = true;
    if (*end == '-') {
        e->slot = -1;
        end++;
    } else if (isxdigit((unsigned char)*end)) {
        e->slot = (long)strtoul(end, &end, 16);
        if (e->slot >= JUMP_MAX_SLOTS)
            return false;
    } else {
        return false;
    }
    if (*end != ' ' || !end[1])
        return false;
    at = (size_t)(end + 1 - buf);
    e->reason = l + at;
    e->rlen = (int)(n - at);
    return true;
}

/* The hook's log, read once after the command has run: only a regular file of ours that
 * nobody else may write (0600 in our 0700 directory), counting the lines that do not parse.
 * NULL if there is none to trust (log_why says why). */
static const char *log_text(struct jump_entry *j)
{
    char path[PATH_MAX];
    struct stat st;
    int fd, e;

    if (j->log_read)
        return j->log;
    j->log_read = true;
    snprintf(path, sizeof(path), "%s/log", j->dir);
    fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        snprintf(j->log_why, sizeof(j->log_why), "cannot open it: %s", strerror(errno));
        return NULL;
    }
    if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
        (st.st_mode & 077)) {
        snprintf(j->log_why, sizeof(j->log_why), "it is not a private regular file of ours "
                 "(mode 0600)");
    } else if ((e = file_read_fd(fd, &j->log, &j->loglen, LOG_MAX))) {
        snprintf(j->log_why, sizeof(j->log_why), "cannot read it: %s", e == -EFBIG ?
                 "larger than 1 MiB" : strerror(-e));
        j->log = NULL;
    }
    close(fd);
    for (size_t at = 0, n, line = 1; j->log && at < j->loglen; at += n + 1, line++) {
        struct log_entry le;
        const char *nl = memchr(j->log + at, '\n', j->loglen - at);
        n = nl ? (size_t)(nl - (j->log + at)) : j->loglen - at;
        if (!nl || !parse_entry(j->log + at, n, &le)) {
            if (!j->log_bad++)
                j->log_first_bad = (unsigned)line;
        }
    }
    return j->log;
}

/* The next well-formed entry of the log from *at; false at the end. */
static bool next_entry(struct jump_entry *j, size_t *at, struct log_entry *le)
{
    const char *l = log_text(j);
    while (l && *at < j->loglen) {
        const char *nl = memchr(l + *at, '\n', j->loglen - *at);
        size_t n = nl ? (size_t)(nl - (l + *at)) : j->loglen - *at, from = *at;
        *at += n + 1;
        if (nl && parse_entry(l + from, n, le))
            return true;
    }
    return false;
}

bool jump_entry_process_failed(struct jump_entry *j, uint32_t pid)
{
    struct log_entry le;
    size_t at = 0;
    while (j && next_entry(j, &at, &le))
        if (le.fail && le.pid == pid && le.slot < 0)
            return true;
    return false;
}

void jump_entry_problems(struct jump_entry *j, const struct region_list *rl,
                         void (*fn)(void *arg, const char *msg), void *arg)
{
    struct log_entry le;
    size_t at = 0;
    char msg[800];

    if (!j)
        return;
    log_text(j);
    if (j->log_why[0]) {
        snprintf(msg, sizeof(msg), "the entry hook's log %s/log: %s: failures of the hook are "
                 "unknown and may have left crossings uncounted (--entry trap avoids the "
                 "hook)", j->dir, j->log_why);
        fn(arg, msg);
    }
    if (j->log_bad) {
        snprintf(msg, sizeof(msg), "the entry hook's log %s/log: %u malformed line(s) ignored "
                 "(first: line %u)", j->dir, j->log_bad, j->log_first_bad);
        fn(arg, msg);
    }
    while (next_entry(j, &at, &le)) {
        const char *what = "every jump entry";
        if (!le.fail)
            continue;
        if (le.slot >= 0 && (unsigned long)le.slot < j->nslots && j->slot_region[le.slot] >= 0 &&
            (size_t)j->slot_region[le.slot] < rl->regions.n)
            what = rl->regions.v[j->slot_region[le.slot]].label;
        snprintf(msg, sizeof(msg), "process %lu: %s: %.*s; its crossings there were not "
                 "counted (--entry trap counts them)", le.pid, what, le.rlen, le.reason);
        fn(arg, msg);
    }
}

void jump_entry_free(struct jump_entry *j)
{
    if (!j)
        return;
    if (j->dir[0])
        jump_remove_dir(j->dir);
    free(j->env[0]);
    free(j->env[1]);
    free(j->log);
    free(j);
}
