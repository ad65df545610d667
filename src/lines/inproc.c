/* SPDX-License-Identifier: MIT */
/* The in-process engine of `prospect lines` (inproc.h). */
#define LOG_PREFIX "lines"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "intarget/lines_abi.h"
#include "lines/inproc.h"
#include "lines/inproc_priv.h"
#include "probe/jump_files.h"
#include "probe/reloc_func.h"
#include "util/file.h"
#include "util/vec.h"

extern const unsigned char prospect_entry_hook_so[];
extern const unsigned long prospect_entry_hook_so_len;

/* "in-process: FUNC WHAT" */
static int add_note(struct lines_inproc *ip, const char *func, const char *what)
{
    char s[400];
    snprintf(s, sizeof(s), "in-process: %s %s", func, what);
    if (ip->note)
        ip->note(ip->note_arg, s);
    return 0;
}

/* The counters of function f's probed blocks, sorted by address (blocks are). */
typedef VEC(struct reloc_counter) counter_vec;

static int func_counters(const struct lines_plan *p, size_t f, const long *probe_of,
                         counter_vec *out)
{
    out->n = 0;
    for (size_t b = 0; b < p->blocks.n; b++)
        if (p->blocks.v[b].func == f && probe_of[b] >= 0 &&
            vec_push(out, ((struct reloc_counter){ p->blocks.v[b].start,
                                                   (uint32_t)probe_of[b] })))
            return -ENOMEM;
    return 0;
}

/* The unwind rules of the copy just made (from `mark` on), with its exception table (eh)
 * where it makes calls; without them, a frame of the copy stops backtrace() and debuggers
 * where a call returns into the copy (-v says so), and a C++ copy that calls is refused (an
 * exception would resume in the original's landing pads, or nowhere). 0, -EINVAL (the copy
 * taken back, why said), -ENOMEM. */
static int give_unwind(struct lines_inproc *ip, const char *func, struct reloc_mark mark,
                       const struct elf_fde *eh, bool cxx, char *why, size_t whylen)
{
    struct inproc_cfi_mark cm = inproc_cfi_mark(&ip->cfi);
    const char *lwhy = NULL;
    int e = inproc_cfi_add(&ip->cfi, &ip->rc, mark.places, (uint32_t)ip->rc.code.n);
    if (!e && eh && ip->rc.calls)
        e = inproc_lsda_add(&ip->cfi, eh, &ip->rc, mark.places, (uint32_t)ip->rc.code.n,
                            &lwhy);
    if (e == -ENOMEM)
        return e;
    if (e && lwhy) {
        inproc_cfi_truncate(&ip->cfi, cm);
        reloc_code_truncate(&ip->rc, mark);
        snprintf(why, whylen, "%s (landing pads)", lwhy);
        return -EINVAL;
    }
    if (e && cxx && ip->rc.calls) {
        reloc_code_truncate(&ip->rc, mark);
        snprintf(why, whylen, "a call, and no unwind rules for its copy (C++ exceptions)");
        return -EINVAL;
    }
    if (e)
        add_note(ip, func, e == -ENOTSUP ? "has no unwind table in the process (a rule its "
                 "copy cannot take over)" : "has no unwind table in the process (none in "
                 "the program)");
    return 0;
}

/* The return sites of the copy just made (from `mark` on), patched after its entry (whose
 * check reads 16 bytes). */
static int add_sites(struct lines_inproc *ip, const struct lines_func *fn, const uint8_t *code,
                     struct reloc_mark mark)
{
    int e = 0;
    for (size_t i = mark.sites; i < ip->rc.sites.n && !e; i++) {
        const struct reloc_site *s = &ip->rc.sites.v[i];
        uint64_t at = s->hop ? s->hop : s->addr;
        struct lines_abi_func af = { .vaddr = at, .copy = s->copy, .len = RELOC_SITE_LEN };
        struct lines_abi_func hop = { .vaddr = s->addr, .len = RELOC_HOP_LEN, .hop = s->hop };
        memcpy(af.bytes, code + (at - fn->start), RELOC_SITE_LEN);
        memcpy(hop.bytes, code + (s->addr - fn->start), RELOC_HOP_LEN);
        if (!(e = vec_push(&ip->funcs, af)) && s->hop)
            e = vec_push(&ip->funcs, hop);
        ip->nsites++;
    }
    return e;
}

/* Relocates function f, or says why not. */
static int take_function(struct lines_inproc *ip, const struct lines_plan *p, size_t f,
                         const struct inproc_code *c, bool entered, const long *probe_of)
{
    const struct lines_func *fn = &p->funcs.v[f];
    const uint8_t *code = inproc_code_at(c, fn->start, fn->size);
    counter_vec cnt = { 0 };
    struct lines_abi_func af = { .vaddr = fn->start };
    char why[200] = "", why2[220];
    struct reloc_mark mark;
    const struct elf_fde *eh;
    int e = 0;

    if (!code)
        snprintf(why, sizeof(why), "its code is not in one segment of the file");
    else if (fn->size < 5)
        snprintf(why, sizeof(why), "shorter than a jump (%llu bytes)",
                 (unsigned long long)fn->size);
    else if (entered)
        snprintf(why, sizeof(why), "other code enters it elsewhere than at its entry "
                 "(a .cold part, a label's address)");
    if (why[0])
        return add_note(ip, fn->name, (snprintf(why2, sizeof(why2), "keeps uprobes: %s", why), why2));
    if ((e = func_counters(p, f, probe_of, &cnt)))
        return e;
    if (!cnt.n) {
        vec_free(&cnt);
        return 0;
    }
    mark = reloc_code_mark(&ip->rc);
    eh = c->prog.cxx ? inproc_eh_find(&ip->cfi, fn->start, fn->start + fn->size) : NULL;
    e = reloc_function(&ip->rc, code, fn->size, fn->start, cnt.v, cnt.n, false, &af.copy,
                       why, sizeof(why));
    if (!e)
        e = give_unwind(ip, fn->name, mark, eh, c->prog.cxx, why, sizeof(why));
    if (e && e != -EINVAL)
        goto out;                        /* -ENOMEM, -ELIBACC */
    if (e == -EINVAL) {
        vec_free(&cnt);
        return add_note(ip, fn->name, (snprintf(why2, sizeof(why2), "keeps uprobes: %s", why), why2));
    }
    ip->need_unwind |= c->prog.cxx && ip->rc.calls;
    af.len = fn->size < LINES_ABI_CHECK ? (uint32_t)fn->size : LINES_ABI_CHECK;
    memcpy(af.bytes, code, af.len);
    if (!(e = vec_push(&ip->funcs, af)) && !(e = add_sites(ip, fn, code, mark))) {
        while (!e && ip->owner.n < ip->funcs.n)
            e = vec_push(&ip->owner, (uint32_t)f);
        for (size_t k = 0; k < cnt.n; k++)
            ip->counts[cnt.v[k].index] = true;
        ip->nrelocated++;
        e = add_note(ip, fn->name, eh && ip->rc.calls ? "relocated: a counter at each probed "
                     "block, its landing pads in the copy" : "relocated: a counter at each "
                     "probed block");
    }
out:
    vec_free(&cnt);
    return e;
}

static int relocate_all(struct lines_inproc *ip, const struct lines_plan *p,
                        const struct inproc_code *c)
{
    long *probe_of = malloc((p->blocks.n + 1) * sizeof(*probe_of));
    bool *entered = calloc(p->funcs.n + 1, sizeof(*entered));
    int e = 0;
    if (!probe_of || !entered) {
        e = -ENOMEM;
        goto out;
    }
    for (size_t b = 0; b < p->blocks.n; b++)
        probe_of[b] = -1;
    for (size_t i = 0; i < p->probed.n; i++)
        probe_of[p->probed.v[i]] = (long)i;
    if ((e = inproc_entered(p, c, entered)))
        goto out;
    for (size_t f = 0; f < p->funcs.n && !e; f++)
        e = take_function(ip, p, f, c, entered[f], probe_of);
out:
    free(probe_of);
    free(entered);
    return e;
}

#define PAGE 4096UL
#define MAX_SLOTS 64

static size_t slot_size(size_t ncounters)
{
    return (ncounters * 8 + PAGE - 1) & ~(PAGE - 1);
}

/* Images of the program that get a slot of their own (a sparse file: untouched slots take
 * no memory); at most 1 GiB of counters. */
static size_t slots_for(size_t ncounters)
{
    size_t n = (1UL << 30) / slot_size(ncounters);
    return n > MAX_SLOTS ? MAX_SLOTS : n < 1 ? 1 : n;
}

/* The counter file: its header page (the next free slot), then the slots, zero. */
static int write_counters(struct lines_inproc *ip)
{
    static const uint8_t zero[PAGE];
    const uint64_t one = 1;
    char path[300];
    int fd, e = jump_write_file(ip->dir, "counters", zero, PAGE, 0600);
    if (e)
        return e;
    snprintf(path, sizeof(path), "%s/counters", ip->dir);
    if ((fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC)) < 0)
        return -errno;
    if (ftruncate(fd, (off_t)(PAGE + slots_for(ip->nprobes) * slot_size(ip->nprobes))))
        e = -errno;
    else if (ip->running && pwrite(fd, &one, sizeof(one), 0) != sizeof(one))
        e = -EIO;                        /* -p: one image, slot 0 */
    close(fd);
    return e;
}

/* reloc: head, code, fixes, functions. */
static int write_plan(struct lines_inproc *ip)
{
    struct lines_abi_head h = { .magic = LINES_ABI_MAGIC, .nfix = (uint32_t)ip->rc.fixes.n,
                                .nfunc = (uint32_t)ip->funcs.n, .eh_frame = ip->eh_frame,
                                .flags = (ip->need_unwind ? LINES_ABI_NEED_UNWIND : 0) |
                                         (ip->lock_always ? LINES_ABI_LOCK_ALWAYS : 0),
                                .dev = ip->exe_st.st_dev,
                                .ino = ip->exe_st.st_ino, .code_size = ip->rc.code.n,
                                .ncounters = ip->nprobes,
                                .nslots = slots_for(ip->nprobes) };
    size_t csize = (ip->rc.code.n + PAGE - 1) & ~(PAGE - 1);
    size_t size = sizeof(h) + ip->rc.code.n + ip->rc.fixes.n * sizeof(struct lines_abi_fix) +
                  ip->funcs.n * sizeof(struct lines_abi_func);
    uint8_t *buf = calloc(1, size + csize), *at;
    int e;

    if (!buf)
        return -ENOMEM;
    memcpy(buf, &h, sizeof(h));
    at = buf + sizeof(h);
    memcpy(at, ip->rc.code.v, ip->rc.code.n);
    at += ip->rc.code.n;
    for (size_t i = 0; i < ip->rc.fixes.n; i++, at += sizeof(struct lines_abi_fix)) {
        const struct reloc_fix *f = &ip->rc.fixes.v[i];
        struct lines_abi_fix af = { f->at, f->end, f->counter ? LINES_FIX_COUNTER : f->abs ?
                                    LINES_FIX_ADDRESS : LINES_FIX_PROGRAM, 0, f->target };
        memcpy(at, &af, sizeof(af));
    }
    memcpy(at, ip->funcs.v, ip->funcs.n * sizeof(struct lines_abi_func));
    /* The code file: the code page-padded. */
    memcpy(buf + size, ip->rc.code.v, ip->rc.code.n);
    if (!(e = jump_write_file(ip->dir, "reloc", buf, size, 0600)) &&
        !(e = jump_write_file(ip->dir, "code", buf + size, csize, 0600)) &&
        !(e = write_counters(ip)) && !ip->running &&
        !(e = jump_write_file(ip->dir, "entry_hook.so", prospect_entry_hook_so,
                              prospect_entry_hook_so_len, 0700)))
        e = jump_write_file(ip->dir, "log", NULL, 0, 0600);
    free(buf);
    return e;
}

static int make_env(struct lines_inproc *ip)
{
    const char *pre = getenv("LD_PRELOAD");
    if (asprintf(&ip->env[0], "LD_PRELOAD=%s%s%s/entry_hook.so", pre && *pre ? pre : "",
                 pre && *pre ? ":" : "", ip->dir) < 0) {
        ip->env[0] = NULL;
        return -ENOMEM;
    }
    if (asprintf(&ip->env[1], "PROSPECT_LINES_PLAN=%s", ip->dir) < 0) {
        ip->env[1] = NULL;
        return -ENOMEM;
    }
    return 0;
}

/* Can a hook be preloaded into the program at all (or, running, the copies put in)? NULL,
 * or why not. */
static const char *unfit(const struct elf_program *prog, bool running)
{
    if (running && prog->cxx)
        return "a C++ program (a running process cannot take the copies' unwind table)";
    if (running)
        return prog->executable ? NULL : "it is not a program";
    if (!prog->executable)
        return "it is not a program";
    if (!prog->interp)
        return "the program is statically linked (nothing can be preloaded)";
    if (prog->sanitizer)
        return "the program needs a sanitizer runtime, which must be loaded first";
    return NULL;
}

static int plan_for(struct lines_inproc **out, const struct lines_plan *p, const char *exe,
                    bool running, void (*note)(void *, const char *), void *arg, char *err,
                    size_t errlen)
{
    struct lines_inproc *ip = calloc(1, sizeof(*ip));
    struct inproc_code c = { 0 };
    const char *why;
    int e;

    *out = NULL;
    err[0] = '\0';
    if (!ip || !(ip->counts = calloc(p->probed.n + 1, sizeof(bool)))) {
        free(ip);
        return -ENOMEM;
    }
    ip->cfi.fd = -1;
    ip->nprobes = p->probed.n;
    ip->note = note;
    ip->note_arg = arg;
    ip->running = running;
    if ((e = elf_program_read(exe, &c.prog))) {
        snprintf(err, errlen, "in-process counting: %s is not a readable ELF program", exe);
        e = e == -ENOMEM ? e : 0;
        goto out;
    }
    if ((why = unfit(&c.prog, running)) || stat(exe, &ip->exe_st) || !c.prog.ncode) {
        snprintf(err, errlen, "in-process counting: %s", why ? why : c.prog.ncode ?
                 "the program is gone" : "the program has no code segment");
        goto out;
    }
    ip->code_seg = c.prog.code[0];
    if ((e = inproc_cfi_open(&ip->cfi, exe)) == -ENOMEM ||
        (e = inproc_read_code(&c, exe)) || (e = relocate_all(ip, p, &c)) ||
        (e = inproc_cfi_table(&ip->cfi, &ip->rc, &ip->eh_frame)))
        goto out;
    if (running) {
        ip->lock_always = true;          /* its threads and children are already there */
    } else if ((why = inproc_hidden_threads(ip->cfi.elf))) {
        char s[200];
        snprintf(s, sizeof(s), "in-process: counters locked throughout: the program calls %s "
                 "(threads the hook does not see)", why);
        if (note)
            note(arg, s);
        ip->lock_always = true;
    }
    if (!ip->funcs.n) {
        snprintf(err, errlen, "in-process counting: no function could be relocated");
        goto out;
    }
    if ((e = jump_make_dir(ip->dir, sizeof(ip->dir)))) {
        snprintf(err, errlen, "in-process counting: no temporary directory the command could "
                 "load the hook from ($TMPDIR, /tmp, /var/tmp, /dev/shm)");
        ip->dir[0] = '\0';
        e = 0;
        goto out;
    }
    if ((e = write_plan(ip)) || (!running && (e = make_env(ip))))
        snprintf(err, errlen, "cannot write the in-process plan in %s: %s", ip->dir,
                 strerror(-e));
    else
        *out = ip;
out:
    inproc_code_release(&c);
    if (!*out)
        lines_inproc_free(ip);
    return e;
}

int lines_inproc_plan(struct lines_inproc **out, const struct lines_plan *p, const char *exe,
                      void (*note)(void *, const char *), void *arg, char *err, size_t errlen)
{
    return plan_for(out, p, exe, false, note, arg, err, errlen);
}

int lines_inproc_plan_pid(struct lines_inproc **out, const struct lines_plan *p,
                          const char *exe, void (*note)(void *, const char *), void *arg,
                          char *err, size_t errlen)
{
    return plan_for(out, p, exe, true, note, arg, err, errlen);
}

bool lines_inproc_counts(const struct lines_inproc *ip, size_t probe)
{
    return ip && probe < ip->nprobes && ip->counts[probe];
}

void lines_inproc_drop_probes(const struct lines_inproc *ip, struct region_list *rl)
{
    size_t k = 0;
    for (size_t i = 0; i < rl->probes.n; i++) {
        struct probe_point *pp = &rl->probes.v[i];
        if (pp->region >= 0 && lines_inproc_counts(ip, (size_t)pp->region))
            free(pp->path);
        else
            rl->probes.v[k++] = *pp;
    }
    rl->probes.n = k;
}

void lines_inproc_summary(const struct lines_inproc *ip, char *buf, size_t len)
{
    snprintf(buf, len, "in-process: %zu functions relocated, %zu bytes of copies, %zu of "
             "their counters save the flags, %zu calls return through the original",
             ip->nrelocated, ip->rc.code.n, ip->rc.slow, ip->nsites);
}

char *const *lines_inproc_env(const struct lines_inproc *ip)
{
    return ip->env;
}

int lines_inproc_watch(const struct lines_inproc *ip, struct image_watch *w)
{
    char path[300];
    struct stat st;
    snprintf(path, sizeof(path), "%s/code", ip->dir);
    if (stat(path, &st))
        return -errno;
    memset(w, 0, sizeof(*w));
    w->tramp = (struct image_id){ major(st.st_dev), minor(st.st_dev), st.st_ino };
    w->prog[0] = (struct image_id){ major(ip->exe_st.st_dev), minor(ip->exe_st.st_dev),
                                    ip->exe_st.st_ino };
    w->nprog = 1;
    return 0;
}

/* The hook's failures, one warning each. */
static void report_log(const struct lines_inproc *ip, void (*fn)(void *, const char *),
                       void *arg)
{
    char path[300], *buf = NULL, *line, *save = NULL, msg[400];
    snprintf(path, sizeof(path), "%s/log", ip->dir);
    if (file_read_all(path, &buf, NULL, 1 << 20))
        return;
    for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        unsigned pid;
        char what[64];
        if (sscanf(line, "%u fail %63s", &pid, what) == 2) {
            snprintf(msg, sizeof(msg), "process %u: the in-process counters could not be set "
                     "up (%s): its counts are missing", pid, what);
            fn(arg, msg);
        }
    }
    free(buf);
}

int lines_inproc_read(struct lines_inproc *ip, struct lines_plan *p,
                      void (*fn)(void *, const char *), void *arg)
{
    size_t nsize = slot_size(ip->nprobes), nslots = slots_for(ip->nprobes);
    size_t size = PAGE + nslots * nsize, used;
    char path[300];
    uint8_t *m;
    int fd;

    snprintf(path, sizeof(path), "%s/counters", ip->dir);
    if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0)
        return -errno;
    m = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
    close(fd);
    if (m == MAP_FAILED)
        return -errno;
    used = *(const uint64_t *)m < nslots ? *(const uint64_t *)m : nslots;
    for (size_t i = 0; i < ip->nprobes && i < p->probed.n; i++) {
        uint64_t sum = 0;
        for (size_t s = 0; s < used && ip->counts[i]; s++)
            sum += ((const uint64_t *)(m + PAGE + s * nsize))[i];
        if (ip->counts[i])
            p->blocks.v[p->probed.v[i]].count = sum;
    }
    munmap(m, size);
    report_log(ip, fn, arg);
    return 0;
}

void lines_inproc_cost(const struct lines_inproc *ip, const struct lines_plan *p,
                       struct lines_cost *cost)
{
    for (size_t i = 0; ip && i < ip->nprobes && i < p->probed.n; i++)
        if (ip->counts[i]) {
            cost->probes[LINES_COST_INPROC]++;
            cost->hits[LINES_COST_INPROC] += p->blocks.v[p->probed.v[i]].count;
        }
}

void lines_inproc_free(struct lines_inproc *ip)
{
    if (!ip)
        return;
    inproc_pid_free(ip);
    if (ip->dir[0])
        jump_remove_dir(ip->dir);
    vec_free(&ip->funcs);
    vec_free(&ip->owner);
    reloc_code_release(&ip->rc);
    inproc_cfi_close(&ip->cfi);
    free(ip->env[0]);
    free(ip->env[1]);
    free(ip->counts);
    free(ip);
}
