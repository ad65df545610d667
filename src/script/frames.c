/* SPDX-License-Identifier: MIT */
/* The code part of a perf script line: the sampled address, or the call chain below the line
 * ("\t<addr> <sym>+0x<off> (<dso>)" per frame), named as perf names them. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <linux/perf_event.h>
#include <string.h>
#include "perf/evlist.h"
#include "script/script_priv.h"
#include "model/frame.h"
#include "session/session.h"
#include "symbol/dso.h"
#include "symbol/ksyms.h"
#include "symbol/ksyms_cache.h"
#include "symbol/shortname.h"
#include "util/strutil.h"
#include "unwind/unwind.h"

/* Kernel symbols at the first kernel frame: --kallsyms, else the copy cached for the file's
 * kernel build-id (when its _text is where the file's kernel was), else /proc/kallsyms. */
static void load_ksyms(struct script *sc)
{
    char src[4096];
    int err;

    sc->ks_tried = true;
    if (sc->kallsyms) {
        if ((err = ksyms_load(sc->kallsyms, &sc->ks)))
            snprintf(sc->knote, sizeof(sc->knote), "cannot read %.200s: %s", sc->kallsyms,
                     strerror(-err));
        return;
    }
    if (sc->kbid_len && !ksyms_cache_load(sc->kbid, sc->kbid_len, 0, &sc->ks, src, sizeof(src))) {
        uint64_t text = ksyms_lookup(sc->ks, "_text");
        if (!sc->ktext || text == sc->ktext)
            return;
        ksyms_free(sc->ks);
        sc->ks = NULL;
    }
    if ((err = ksyms_load("/proc/kallsyms", &sc->ks)))
        snprintf(sc->knote, sizeof(sc->knote), "/proc/kallsyms: %s", err == -EACCES ?
                 "kernel addresses are hidden (kernel.kptr_restrict)" : strerror(-err));
}

static void name_kernel(struct script *sc, uint64_t ip, struct frame_name *fn)
{
    struct ksym_res r;

    fn->shown = ip;
    fn->dso = "[kernel.kallsyms]";
    if (!sc->ks_tried)
        load_ksyms(sc);
    if (!sc->ks || ksyms_resolve(sc->ks, ip, &r) || !r.name)
        return;
    fn->sym = r.name;
    fn->off = ip - r.start;
    if (r.module) {
        /* perf names a module's frames after it: "[ext4]" */
        snprintf(sc->modname, sizeof(sc->modname), "[%s]", r.module);
        fn->dso = sc->modname;
    }
}

/* A demangled C++ name as perf shows it (no parameters), made once per name. */
static const char *short_name(struct script *sc, const char *full)
{
    char *s = hashmap_get(&sc->short_names, (uint64_t)(uintptr_t)full);

    if (s)
        return s;
    if (!(s = malloc(strlen(full) + 1)))
        return full;
    symbol_short_name(full, false, s);
    if (hashmap_put(&sc->short_names, (uint64_t)(uintptr_t)full, s)) {
        free(s);
        return full;
    }
    return s;
}

/* perf's anonymous memory: its name for it is the JIT map file's */
static bool is_anon_memory(const char *path)
{
    return !strcmp(path, "//anon") || !strncmp(path, "/anon_hugepage", 14) ||
           !strncmp(path, "/dev/zero", 9);
}

void script_name_frame(struct script *sc, struct process *p, uint64_t ip, bool kernel,
                       struct frame_name *fn)
{
    struct map *m;
    struct symres r;

    memset(fn, 0, sizeof(*fn));
    fn->shown = ip;
    if (kernel) {
        name_kernel(sc, ip, fn);
        return;
    }
    if (!p)
        return;
    if (!(m = process_find_map(p, ip))) {
        struct process *old = hashmap_get(&sc->before_exec, (uint64_t)p->pid);
        if (!old || old == p || !(m = process_find_map(old, ip)))
            return;
    }
    fn->map = m;
    fn->dso = dso_path(m->dso);
    if (dso_kind(m->dso) == DSO_ANON && is_anon_memory(fn->dso)) {
        /* perf names anonymous code after its JIT map file, at absolute addresses */
        snprintf(sc->anon_name, sizeof(sc->anon_name), "/tmp/perf-%d.map", (int)p->pid);
        fn->dso = sc->anon_name;
        fn->absolute = true;
    }
    if (dso_map_to_vaddr(m->dso, m->start, m->pgoff, ip, &fn->vaddr))
        return;
    if (dso_resolve(m->dso, fn->vaddr, &r) || !r.name || r.bracket)
        return;                   /* perf has no name between a stripped DSO's symbols */
    fn->sym = r.demangled ? short_name(sc, r.name) : r.name;
    fn->off = fn->vaddr - r.start;
}

static void put_str(struct obuf *o, const char *s)
{
    obuf_put(o, s, strlen(s));
}

/* "%16" PRIx64, without printf. */
static void put_hex16(struct obuf *o, uint64_t v)
{
    char b[16];
    int n = 0;

    do {
        b[15 - n++] = "0123456789abcdef"[v & 15];
        v >>= 4;
    } while (v);
    for (int i = n; i < 16; i++)
        b[15 - i] = ' ';
    obuf_put(o, b, 16);
}

static void put_hex(struct obuf *o, uint64_t v)
{
    char b[16];
    int n = 0;

    do {
        b[15 - n++] = "0123456789abcdef"[v & 15];
        v >>= 4;
    } while (v);
    obuf_put(o, b + 16 - n, (size_t)n);
}

/* perf's srcline: "\n  FILE:LINE" (the file's base name) where DWARF knows the address, ":0"
 * where a compilation unit covers it without a line for it, nothing where none covers it (a
 * program's _start from crt1.o) or without DWARF; the kernel's: "[kernel.kallsyms][ADDRESS]". */
static void put_srcline(struct script *sc, const struct frame_name *fn, bool kernel)
{
    struct ann_srcpos pos;
    struct ann_src *s = NULL;
    char line[48];

    if (!kernel && (!fn->map || fn->absolute ||
                    !(s = ann_src_cache_get(&sc->src, fn->map->dso)) ||
                    !ann_src_covers(s, fn->vaddr)))
        return;                   /* perf: nothing for code without DWARF */
    put_str(sc->out, "\n  ");
    if (!kernel) {
        /* perf: ":0" where the file has DWARF but no line for the address */
        if (ann_src_lookup(s, fn->vaddr, &pos))
            pos = (struct ann_srcpos){ NULL, 0, NULL };
        put_str(sc->out, pos.file ? path_basename(pos.file) : "");
        snprintf(line, sizeof(line), ":%u", pos.line);
        put_str(sc->out, line);
        return;
    }
    put_str(sc->out, fn->dso);    /* the kernel: "[kernel.kallsyms][ADDRESS]" */
    snprintf(line, sizeof(line), "[%" PRIx64 "]", fn->shown);
    put_str(sc->out, line);
}

/* One address: [ip] [sym[+0xoff]] [(dso)] [srcline], as the fields say. */
static void put_frame(struct script *sc, unsigned fields, const struct frame_name *fn,
                      bool kernel)
{
    struct obuf *o = sc->out;

    if (fields & SF_BIT(SF_IP))
        put_hex16(o, fn->shown);
    if (fields & (SF_BIT(SF_SYM) | SF_BIT(SF_SYMOFF))) {
        obuf_char(o, ' ');
        put_str(o, fn->sym ? fn->sym : "[unknown]");
        if (fn->sym && (fields & SF_BIT(SF_SYMOFF))) {
            put_str(o, "+0x");
            put_hex(o, fn->off);
        }
    }
    if (fields & SF_BIT(SF_DSO)) {
        put_str(o, " (");
        put_str(o, fn->dso ? fn->dso : "[unknown]");
        obuf_char(o, ')');
    }
    if (fields & SF_BIT(SF_SRCLINE))
        put_srcline(sc, fn, kernel);
}

/* The sample's frames, leaf first, as perf resolves its chain: the context markers set the
 * mode of the addresses after them; a DWARF sample's user part is unwound from its copy. */
static int chain_frames(struct script *sc, struct process *p, const struct sample *smp,
                        uint32_t *n)
{
    bool kernel = smp->cpumode == PERF_RECORD_MISC_KERNEL;
    uint32_t k = 0;

    if (smp->nr_callchain + 1 > sc->cap_frames) {
        size_t cap = smp->nr_callchain + 64;
        struct frame *f = realloc(sc->frames, cap * sizeof(*f));
        if (!f)
            return -ENOMEM;
        sc->frames = f;
        sc->cap_frames = cap;
    }
    for (uint64_t i = 0; i < smp->nr_callchain; i++) {
        uint64_t ip = smp->callchain[i];
        if (ip >= PERF_CONTEXT_MAX) {
            if (ip != PERF_CONTEXT_KERNEL && ip != PERF_CONTEXT_USER && ip != PERF_CONTEXT_HV &&
                ip != PERF_CONTEXT_GUEST && ip != PERF_CONTEXT_GUEST_KERNEL &&
                ip != PERF_CONTEXT_GUEST_USER) {
                k = 0;            /* as perf: a chain with an invalid context has no frames */
                break;
            }
            kernel = ip == PERF_CONTEXT_KERNEL;
            continue;
        }
        sc->frames[k].addr = ip;
        sc->frames[k++].map = kernel ? &kernel_map : NULL;
    }
    *n = k;
    /* as perf: no user frames from a sample whose stack copy is empty (the kernel could not
     * read the user stack, e.g. in a page fault at exec), though its registers are there */
    if (smp->stack_user && smp->stack_dyn_size && smp->regs_user && smp->regs_abi && sc->uw) {
        int ret = unwind_sample(sc->uw, p, smp, &sc->frames, &sc->cap_frames, n);
        if (ret < 0)
            return ret;
        /* perf's DWARF unwind gives no user frame when the first one is in no map (an exec) */
        uint32_t u = 0;
        while (u < *n && sc->frames[u].map == &kernel_map)
            u++;
        if (u < *n && !sc->frames[u].map)
            *n = u;
    }
    return 0;
}

int script_print_code(struct script *sc, unsigned fields, struct process *p,
                      const struct sample *smp)
{
    struct frame_name fn;
    uint32_t n;
    int err;

    if (!sc->chains || !(smp->evsel->attr.sample_type & PERF_SAMPLE_CALLCHAIN)) {
        obuf_char(sc->out, ' ');
        script_name_frame(sc, p, smp->ip, smp->cpumode == PERF_RECORD_MISC_KERNEL, &fn);
        put_frame(sc, fields, &fn, smp->cpumode == PERF_RECORD_MISC_KERNEL);
        obuf_char(sc->out, '\n');
        return 0;
    }
    obuf_char(sc->out, '\n');
    if ((err = chain_frames(sc, p, smp, &n)))
        return err;
    for (uint32_t i = 0; i < n; i++) {
        const struct frame *f = &sc->frames[i];
        bool kernel = f->map == &kernel_map;
        script_name_frame(sc, p, f->addr, kernel, &fn);
        /* perf prints a user frame's address in its file (the map's offset), not in memory */
        if (fn.map && !fn.absolute)
            fn.shown = f->addr - fn.map->start + fn.map->pgoff;
        if (fields & SF_BIT(SF_IP))
            obuf_char(sc->out, '\t');
        put_frame(sc, fields, &fn, kernel);
        obuf_char(sc->out, '\n');
    }
    obuf_char(sc->out, '\n');
    return 0;
}
