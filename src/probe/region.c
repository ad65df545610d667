/* SPDX-License-Identifier: MIT */
#define LOG_PREFIX "region"
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "symbol/dso.h"
#include "symbol/dwarf_inline.h"
#include "symbol/dwarf_lines.h"
#include "symbol/elf_code.h"
#include "symbol/ifunc.h"
#include "probe/jump_code.h"
#include "probe/region.h"
#include "probe/region_names.h"
#include "util/log.h"
#include "util/strutil.h"


void region_list_init(struct region_list *rl)
{
    memset(rl, 0, sizeof(*rl));
}

void region_list_release(struct region_list *rl)
{
    for (size_t i = 0; i < rl->regions.n; i++) {
        struct region *r = &rl->regions.v[i];
        free(r->spec);
        free(r->label);
        free(r->path);
        free(r->note);
        for (size_t j = 0; j < r->sites.n; j++)
            free(r->sites.v[j]);
        vec_free(&r->sites);
    }
    vec_free(&rl->regions);
    for (size_t i = 0; i < rl->probes.n; i++)
        free(rl->probes.v[i].path);
    vec_free(&rl->probes);
    dso_cache_free(rl->dsos);
    memset(rl, 0, sizeof(*rl));
}

static int add_site_text(struct region *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static int add_site_text(struct region *r, const char *fmt, ...)
{
    char buf[512], *s;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    s = strdup(buf);
    if (!s || vec_push(&r->sites, s)) {
        free(s);
        return -ENOMEM;
    }
    return 0;
}

static int add_probe(struct region_list *rl, const char *path, uint64_t vaddr, bool ret,
                     enum rc_role role, int region, char *err, size_t errlen)
{
    struct probe_point p = { .vaddr = vaddr, .ret = ret, .role = role, .region = region,
                             .idempotent = role == RC_ENTER && region < 0 };
    if (region < 0)     /* an inlined site: idempotent entries, region index encoded */
        p.region = -region - 1;
    int e = elf_vaddr_to_offset(path, vaddr, &p.offset);
    if (e) {
        snprintf(err, errlen, "address 0x%llx is not in a loaded segment of %s",
                 (unsigned long long)vaddr, path);
        return e == -ENOENT ? -EINVAL : e;
    }
    p.path = strdup(path);
    if (!p.path || vec_push(&rl->probes, p)) {
        free(p.path);
        return -ENOMEM;
    }
    return 0;
}

/* A region with a start and an end address (lines, raw addresses). */
static int add_range(struct region_list *rl, int idx, const char *path, uint64_t lo, uint64_t hi,
                     char *err, size_t errlen)
{
    int e;
    if (hi <= lo) {
        snprintf(err, errlen, "region '%s' is empty: its end 0x%llx is not after its start "
                 "0x%llx", rl->regions.v[idx].spec, (unsigned long long)hi,
                 (unsigned long long)lo);
        return -EINVAL;
    }
    if ((e = add_probe(rl, path, lo, false, RC_ENTER, idx, err, errlen)))
        return e;
    /* Reaching the start again while inside is a loop's back edge, not a new entry: a range
     * is active or not (as in Perforator); only function regions nest (recursion). */
    rl->probes.v[rl->probes.n - 1].idempotent = true;
    rl->regions.v[idx].range = true;
    if ((e = add_probe(rl, path, hi, false, RC_EXIT, idx, err, errlen)))
        return e;
    return add_site_text(&rl->regions.v[idx], "%s: enter at 0x%llx, leave at 0x%llx", path,
                         (unsigned long long)lo, (unsigned long long)hi);
}

/* The implementation an IFUNC match resolves to on this machine (see symbol/ifunc.c), or the
 * resolver itself with a note saying why not. Appends to `note`. */
static void resolve_ifunc(struct dso *dso, const char *path, struct symbol_match *m, char *note,
                          size_t notelen)
{
    size_t used = strlen(note);
    uint64_t impl;
    struct symres r;
    int e;

    if (elf_symbol_is_ifunc(path, m->start) != 1)
        return;
    e = ifunc_resolve(path, m->start, &impl);
    if (e) {
        snprintf(note + used, notelen - used, "%s%s is an IFUNC: the implementation it picks "
                 "is known only inside the process (%s); counting its resolver, which runs "
                 "once at load: name the implementation instead", used ? "; " : "", m->name,
                 e == -EPERM ? "Prospect asks for system libraries only" : strerror(-e));
        return;
    }
    if (dso_resolve(dso, impl, &r) == 0 && r.name && !r.bracket && r.start == impl) {
        snprintf(note + used, notelen - used, "%s%s -> %s (IFUNC: the implementation this CPU "
                 "uses)", used ? "; " : "", m->name, r.name);
        m->name = r.name;
        m->size = r.size;
    } else {
        snprintf(note + used, notelen - used, "%s%s -> 0x%llx (IFUNC: the implementation this "
                 "CPU uses; no symbol names it: install the library's debug symbols)", used ?
                 "; " : "", m->name, (unsigned long long)impl);
        m->size = 0;
    }
    m->start = impl;
}

/* The exits of function f (and of its cold part) from its machine code. 0 with *n set, or
 * -EINVAL with the reason in why (the caller falls back to a return probe), -ENOMEM. */
static int function_exits(struct dso *dso, const char *path, const struct symbol_match *f,
                          uint64_t *exits, size_t *n, char *why, size_t whylen)
{
    struct code_part parts[2] = { { .vaddr = f->start, .n = f->size } };
    struct symbol_match cold;
    size_t np = 1;
    int e;

    if (symbol_cold_part(dso, f->name, &cold))
        parts[np++] = (struct code_part){ .vaddr = cold.start, .n = cold.size };
    for (size_t i = 0; i < np; i++)
        parts[i].code = elf_read_code(path, parts[i].vaddr, parts[i].n);
    for (size_t i = 0; i < np; i++)
        if (!parts[i].code) {
            snprintf(why, whylen, "%s", !parts[i].n ? "its symbol has no size"
                     : parts[i].n > ELF_CODE_MAX ? "it is too large to decode"
                     : "its code cannot be read from the file");
            e = -EINVAL;
            goto out;
        }
    e = jump_code_exits(parts, np, f->start, exits, n, why, whylen);
out:
    for (size_t i = 0; i < np; i++)
        free((void *)parts[i].code);
    return e;
}

/* Functions that never return: a call to one ends a fragment as a jump would. */
static bool no_return(const char *name)
{
    static const char *const names[] = { "_Unwind_Resume", "__cxa_throw", "__cxa_rethrow",
                                         "__cxa_bad_cast", "__cxa_bad_typeid", "abort",
                                         "exit", "_exit", "__stack_chk_fail", "longjmp",
                                         "siglongjmp", "__longjmp_chk", "std::terminate()" };
    size_t len = strcspn(name, "@");
    for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++)
        if (strlen(names[i]) == len && !strncmp(name, names[i], len))
            return true;
    return false;
}

/* Can control reach the end of an inlined fragment by falling through its last instruction?
 * Not after a jump, a return or a call that never returns (a catch handler's fragment ends
 * with `call _Unwind_Resume`): an exit probe there would sit on whatever follows (padding
 * the kernel may refuse, another function's hot code) and never mean this instance's end. */
static bool fragment_falls_through(struct dso *dso, const char *path,
                                   const struct addr_range *rg)
{
    uint8_t *code = elf_read_code(path, rg->lo, rg->hi - rg->lo);
    struct symres sr;
    uint64_t callee;
    bool falls;

    if (!code)
        return true;
    falls = jump_code_falls_through(code, rg->hi - rg->lo, rg->lo, &callee);
    free(code);
    if (falls && callee && !dso_resolve(dso, callee, &sr) && sr.name && !sr.bracket &&
        no_return(sr.name))
        falls = false;
    return falls;
}

struct jump_to {
    uint64_t target;
    bool found;
};

static void on_jump_to(void *arg, uint64_t t)
{
    struct jump_to *j = arg;
    j->found |= t == j->target;
}

/* Does code of the inlined instance branch to `target` (its loop's exit at a fragment end)? */
static bool instance_jumps_to(const char *path, const struct inline_site *is, uint64_t target)
{
    struct jump_to j = { .target = target };
    for (size_t r = 0; r < is->nr_ranges && !j.found; r++) {
        const struct addr_range *rg = &is->ranges[r];
        uint8_t *code = elf_read_code(path, rg->lo, rg->hi - rg->lo);
        if (!code)
            return true;
        jump_code_branch_targets(code, rg->hi - rg->lo, rg->lo, on_jump_to, &j);
        free(code);
    }
    return j.found;
}

/* A function's entry, and its exits: a probe on every return instruction and tail call (the
 * return address stays the program's own, so exceptions unwind and longjmp works as without
 * Prospect); when they cannot be found in the code, a return probe (uretprobe), which
 * replaces the return address while the function runs. */
static int add_function_probes(struct region_list *rl, int idx, const char *path,
                               struct dso *dso, const struct symbol_match *f, char *err,
                               size_t errlen)
{
    uint64_t exits[CODE_MAX_EXITS];
    char why[200] = "";
    size_t nx = 0, first;
    int e;

    if ((e = function_exits(dso, path, f, exits, &nx, why, sizeof(why))) == -ENOMEM)
        return e;
    first = rl->probes.n;
    if ((e = add_probe(rl, path, f->start, false, RC_ENTER, idx, err, errlen)))
        return e;
    rl->probes.v[first].func_size = f->size;
    if (!why[0]) {
        for (size_t i = 0; i < nx; i++)
            if ((e = add_probe(rl, path, exits[i], false, RC_EXIT, idx, err, errlen)))
                return e;
        for (size_t i = first; i < rl->probes.n; i++) {
            rl->probes.v[i].function = true;
            rl->probes.v[i].sp_adjust = rl->probes.v[i].role == RC_EXIT ? 8 : 0;
        }
        return add_site_text(&rl->regions.v[idx], "%s: function %s at 0x%llx (entry probe, "
                             "exit probes on its %zu return(s) and tail call(s))", path,
                             f->name, (unsigned long long)f->start, nx);
    }
    if ((e = add_probe(rl, path, f->start, true, RC_EXIT, idx, err, errlen)))
        return e;
    /* Both ends of a uretprobe pair: the kernel's nesting limit applies to them. */
    for (size_t i = first; i < rl->probes.n; i++)
        rl->probes.v[i].function = rl->probes.v[i].uret = true;
    return add_site_text(&rl->regions.v[idx], "%s: function %s at 0x%llx (entry and return "
                         "probes: its exits are not known, %s)", path, f->name,
                         (unsigned long long)f->start, why);
}

static int add_function(struct region_list *rl, int idx, const char *path, const char *name,
                        char *err, size_t errlen)
{
    struct dso *dso = dso_cache_get(rl->dsos, DSO_FILE, path, NULL, 0, 0);
    struct symbol_match m[REGION_NAME_MAX_MATCHES];
    struct inline_site *sites = NULL;
    const char *dbg, *dwarf_name = name;
    char note[1024], fn[512];
    enum dso_status st;
    long nsites = 0, found;
    size_t n;
    int e = 0;

    if (!dso)
        return -ENOMEM;
    st = dso_status(dso);
    if (st == DSO_MISSING || st == DSO_BAD_ELF) {
        snprintf(err, errlen, "%s: %s", path, dso_status_str(st));
        return -ENOENT;
    }
    found = region_names_find(dso, path, name, m, note, sizeof(note), err, errlen);
    if (found < 0)
        return (int)found;
    n = (size_t)found;
    /* DWARF names a C function without the clone suffix ("busy", not "busy.isra.0"). */
    if (n) {
        region_name_unclone(m[0].name, fn, sizeof(fn));
        if (!strchr(fn, '('))
            dwarf_name = fn;
    }
    for (size_t i = 0; i < n; i++)
        resolve_ifunc(dso, path, &m[i], note, sizeof(note));
    if (note[0] && !(rl->regions.v[idx].note = strdup(note)))
        return -ENOMEM;
    dbg = dso_debug_path(dso);
    if (dbg) {
        nsites = dwarf_inline_sites(dbg, dwarf_name, &sites);
        if (nsites < 0)
            nsites = 0;
    }
    if (n == 0 && nsites == 0) {
        size_t used = strlen(err);
        if (!dbg && used < errlen)
            snprintf(err + used, errlen - used, " (no DWARF: inlined copies cannot be found)");
        return -ENOENT;
    }
    err[0] = '\0';
    /* Every clone of the function is a copy that some callers call: each counts. */
    for (size_t i = 0; i < n; i++)
        if ((e = add_function_probes(rl, idx, path, dso, &m[i], err, errlen)))
            goto out;
    /* An inlined instance is inside while the pc is in one of its ranges. Entries: its
     * entry pc, and the start of every other fragment that is not the continuation of
     * another (control may enter there from outside, e.g. a copy made by loop unrolling);
     * entering from inside is ignored. Exits: every fragment end that does not start
     * another fragment. */
    for (long s = 0; s < nsites; s++) {
        struct inline_site *is = &sites[s];
        char where[300] = "";
        if (is->call_file)
            snprintf(where, sizeof(where), " called at %s:%u", path_basename(is->call_file),
                     is->call_line);
        if ((e = add_probe(rl, path, is->entry, false, RC_ENTER, -idx - 1, err, errlen)))
            goto out;
        for (size_t r = 0; r < is->nr_ranges; r++) {
            const struct addr_range *rg = &is->ranges[r];
            bool cont = false, exit_inner = false, has_entry = is->entry >= rg->lo &&
                                                              is->entry < rg->hi;
            for (size_t q = 0; q < is->nr_ranges; q++) {
                cont |= is->ranges[q].hi == rg->lo;
                exit_inner |= is->ranges[q].lo == rg->hi;
            }
            if (!cont && !has_entry &&
                (e = add_probe(rl, path, rg->lo, false, RC_ENTER, -idx - 1, err, errlen)))
                goto out;
            exit_inner |= !fragment_falls_through(dso, path, rg) &&
                          !instance_jumps_to(path, is, rg->hi);
            if (!exit_inner &&
                (e = add_probe(rl, path, rg->hi, false, RC_EXIT, idx, err, errlen)))
                goto out;
            if ((e = add_site_text(&rl->regions.v[idx], "%s: inlined %s in %s%s: range %zu/%zu "
                                   "[0x%llx, 0x%llx)%s%s", path, dwarf_name,
                                   is->caller ? is->caller : "?", where, r + 1, is->nr_ranges,
                                   (unsigned long long)rg->lo, (unsigned long long)rg->hi,
                                   has_entry ? " entry pc" : (cont ? "" : " entry probe at start"),
                                   exit_inner ? "" : ", exit probe at end")))
                goto out;
        }
    }
out:
    inline_sites_free(sites, nsites > 0 ? (size_t)nsites : 0);
    return e;
}

/* "file.c:18" -> file, line. 0 or -EINVAL. */
static int split_file_line(const char *s, size_t len, char *file, size_t flen, unsigned *line)
{
    const char *colon = NULL;
    uint64_t v;
    char num[24];

    for (size_t i = 0; i < len; i++)
        if (s[i] == ':')
            colon = s + i;
    if (!colon || colon == s || (size_t)(colon - s) >= flen)
        return -EINVAL;
    len -= (size_t)(colon + 1 - s);
    if (!len || len >= sizeof(num))
        return -EINVAL;
    memcpy(num, colon + 1, len);
    num[len] = '\0';
    if (strspn(num, "0123456789") != len || parse_u64(num, &v) || v == 0 || v > UINT32_MAX)
        return -EINVAL;
    memcpy(file, s, (size_t)(colon - s));
    file[colon - s] = '\0';
    *line = (unsigned)v;
    return 0;
}

static bool is_number(const char *s, size_t len)
{
    char buf[32];
    uint64_t v;
    if (!len || len >= sizeof(buf))
        return false;
    memcpy(buf, s, len);
    buf[len] = '\0';
    return parse_u64(buf, &v) == 0;
}

/* A source file's name (FILE:LINE meant) rather than a library's (LIB:FUNCTION). */
static bool is_source_name(const char *name)
{
    static const char *const ext[] = { "c", "cc", "cpp", "cxx", "c++", "C", "h", "hh", "hpp",
                                       "hxx", "s", "S", "f", "f90", "rs", "go", "m", "mm" };
    const char *dot = strrchr(name, '.');

    for (size_t i = 0; dot && i < sizeof(ext) / sizeof(ext[0]); i++)
        if (!strcmp(dot + 1, ext[i]))
            return true;
    return false;
}

static int add_lines(struct region_list *rl, int idx, const char *exe, const char *spec,
                     const char *dash, char *err, size_t errlen)
{
    char f1[256], f2[256];
    unsigned l1, l2;
    uint64_t a1, a2;
    struct dso *dso;
    const char *dbg;
    int e;

    if (split_file_line(spec, (size_t)(dash - spec), f1, sizeof(f1), &l1))
        return -EINVAL;
    if (split_file_line(dash + 1, strlen(dash + 1), f2, sizeof(f2), &l2)) {
        uint64_t v;
        if (strspn(dash + 1, "0123456789") != strlen(dash + 1) || parse_u64(dash + 1, &v) ||
            v == 0 || v > UINT32_MAX)
            return -EINVAL;
        str_copy(f2, sizeof(f2), f1);
        l2 = (unsigned)v;
    }
    dso = dso_cache_get(rl->dsos, DSO_FILE, exe, NULL, 0, 0);
    if (!dso)
        return -ENOMEM;
    dbg = dso_debug_path(dso);
    if (!dbg) {
        snprintf(err, errlen, "%s has no DWARF: DWARF is needed for file:line regions; rebuild "
                 "with -g", exe);
        return -ENODATA;
    }
    if ((e = dwarf_line_addr(dbg, f1, l1, &a1, err, errlen)) ||
        (e = dwarf_line_addr(dbg, f2, l2, &a2, err, errlen)))
        return e;
    return add_range(rl, idx, exe, a1, a2, err, errlen);
}

int region_add(struct region_list *rl, const char *spec, const char *exe, bool keep_missing,
               char *err, size_t errlen)
{
    struct region r = { 0 };
    const char *dash = strrchr(spec, '-'), *colon = NULL;
    char lib[PATH_MAX], libname[256];
    int idx, e;

    err[0] = '\0';
    if (!*spec || strlen(spec) > 1024) {
        snprintf(err, errlen, "empty or overlong region");
        return -EINVAL;
    }
    if (!rl->dsos && !(rl->dsos = dso_cache_new()))
        return -ENOMEM;
    r.spec = strdup(spec);
    r.label = strdup(spec);
    r.path = strdup(exe);
    if (!r.spec || !r.label || !r.path || vec_push(&rl->regions, r)) {
        free(r.spec);
        free(r.label);
        free(r.path);
        return -ENOMEM;
    }
    idx = (int)rl->regions.n - 1;

    /* A single ':' (not part of C++ "::") separates a library from a function. */
    for (const char *p = spec; *p; p++) {
        if (p[0] == ':' && p[1] == ':') {
            p++;
            continue;
        }
        if (p[0] == ':') {
            colon = p;
            break;
        }
    }
    if (dash && is_number(spec, (size_t)(dash - spec)) && is_number(dash + 1, strlen(dash + 1))) {
        uint64_t lo, hi;
        char a[32];
        memcpy(a, spec, (size_t)(dash - spec));
        a[dash - spec] = '\0';
        parse_u64(a, &lo);
        parse_u64(dash + 1, &hi);
        e = add_range(rl, idx, exe, lo, hi, err, errlen);
    } else if (dash && colon && colon < dash) {
        e = add_lines(rl, idx, exe, spec, dash, err, errlen);
        if (e == -EINVAL && !err[0])
            snprintf(err, errlen, "cannot parse region '%s': a line region is FILE:LINE-FILE:LINE "
                     "(or FILE:LINE-LINE)", spec);
    } else if (colon) {
        if ((size_t)(colon - spec) >= sizeof(libname) || !colon[1]) {
            snprintf(err, errlen, "cannot parse region '%s' (LIB:FUNCTION)", spec);
            return -EINVAL;
        }
        memcpy(libname, spec, (size_t)(colon - spec));
        libname[colon - spec] = '\0';
        if (strspn(colon + 1, "0123456789") == strlen(colon + 1)) {
            snprintf(err, errlen, "region '%s' has no end: write FILE:LINE-FILE:LINE", spec);
            return -EINVAL;
        }
        bool found = !elf_find_library(libname, exe, lib, sizeof(lib));
        if (!found && is_source_name(libname)) {
            snprintf(err, errlen, "region '%s': '%s' is not a line number (a line region is "
                     "FILE:LINE-FILE:LINE or FILE:LINE-LINE)", spec, colon + 1);
            e = -EINVAL;
        } else if (!found) {
            snprintf(err, errlen, "no library '%s' found (looked in LD_LIBRARY_PATH, the "
                     "program's directory and the system library directories)", libname);
            e = -ENOENT;
        } else {
            char label[600];
            snprintf(label, sizeof(label), "%s:%s", path_basename(lib), colon + 1);
            free(rl->regions.v[idx].label);
            free(rl->regions.v[idx].path);
            rl->regions.v[idx].label = strdup(label);
            rl->regions.v[idx].path = strdup(lib);
            if (!rl->regions.v[idx].label || !rl->regions.v[idx].path)
                return -ENOMEM;
            e = add_function(rl, idx, lib, colon + 1, err, errlen);
        }
    } else {
        e = add_function(rl, idx, exe, spec, err, errlen);
    }
    if (e == -ENOENT && keep_missing) {
        rl->regions.v[idx].missing = true;
        return 0;
    }
    return e;
}
