/* SPDX-License-Identifier: MIT */
/* Regions of a program for `prospect stat -r`: parsing what the user wrote and resolving it
 * to probe points (ELF file + file offset) with the symbol and DWARF modules.
 *
 *   func                 a function (region_names.h: exact symbol, else a unique partly
 *                        qualified or clone match), plus every inlined instance found in DWARF
 *   lib:func             a function in a shared library (libc.so.6:malloc, libc:malloc, or a
 *                        path); an IFUNC resolves to its implementation here (symbol/ifunc.h)
 *   file:L1-file:L2      source lines, end exclusive (file:L1-L2 also accepted)
 *   0xA-0xB              ELF virtual addresses of the program (as objdump shows them), end exclusive
 */
#ifndef PROSPECT_PROBE_REGION_H
#define PROSPECT_PROBE_REGION_H
#include <stdbool.h>
#include <stddef.h>
#include "util/editdist.h"
#include <stdint.h>
#include "probe/region_count.h"
#include "util/vec.h"

struct dso_cache;

struct probe_point {
    char *path;           /* the ELF file probed */
    uint64_t vaddr;       /* ELF virtual address */
    uint64_t offset;      /* file offset (what a uprobe needs) */
    bool ret;             /* return probe */
    enum rc_role role;    /* RC_ENTER or RC_EXIT */
    bool idempotent;      /* an entry that does nothing when already inside (inlined code) */
    bool function;        /* entry or exit of a function region (exits matched by stack
                           * pointer, region_count.h) */
    bool uret;            /* entry or exit of a function whose exit is the kernel's return
                           * probe (its returns could not be found in the code) */
    int64_t sp_adjust;    /* added to an exit's stack pointer to make it the return's: 8 at a
                           * `ret` or a tail call (sp is then the entry's), 0 for a uretprobe */
    bool jump;            /* moved to Prospect's trampoline (jump_entry.h); path is then it */
    uint64_t func_size;   /* a function entry: the symbol's size (0 if unknown) */
    int region;
};

struct region {
    char *spec;           /* as written */
    char *label;          /* as printed: "sum", "bench.c:18-bench.c:23", "libc.so.6:malloc" */
    char *path;           /* the ELF file */
    bool missing;         /* unresolved (kept with --ignore-missing-regions) */
    char *note;           /* what the name resolved to when not what was written (a gcc
                           * clone, an IFUNC's implementation), or NULL */
    bool range;           /* lines or addresses (a start reached again is a loop head) */
    VEC(char *) sites;    /* one line per probed site, for -v */
};

struct region_list {
    VEC(struct region) regions;
    VEC(struct probe_point) probes;
    struct dso_cache *dsos;
};

void region_list_init(struct region_list *rl);
void region_list_release(struct region_list *rl);

/* Resolves one region spec against the program `exe` and appends it. Errors (err gets a
 * one-line message a user can act on):
 *   -EINVAL   malformed spec
 *   -ENOENT   no such function/library/file (err suggests close matches)
 *   -ENOTUNIQ the name matches several functions (err lists them)
 *   -ENODATA  file:line without DWARF ("rebuild with -g")
 *   -ERANGE   no code starts at that line (err names the nearest lines)
 * With `keep_missing`, an unresolvable -ENOENT region is appended with missing=true instead
 * (0 is returned and err still says why). */
int region_add(struct region_list *rl, const char *spec, const char *exe, bool keep_missing,
               char *err, size_t errlen);

#endif
