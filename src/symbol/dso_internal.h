/* SPDX-License-Identifier: MIT */
/* Internal to src/symbol/: the DSO struct shared by the cache and the loaders. */
#ifndef PROSPECT_SYMBOL_DSO_INTERNAL_H
#define PROSPECT_SYMBOL_DSO_INTERNAL_H
#include "symbol/dso.h"
#include "symbol/elf_file.h"
#include "symbol/symtab.h"
#include <sys/types.h>
#include <time.h>

struct dso {
    struct dso_cache *cache;
    struct dso *hnext;            /* cache hash chain */
    size_t nmaps;                 /* session maps referring to it (dso_hold) */
    enum dso_kind kind;
    pid_t pid;                    /* DSO_ANON only */
    char *path;
    uint8_t kbid[BUILD_ID_MAX];   /* as reported by the kernel for the mapping */
    size_t kbid_len;
    uint8_t fbid[BUILD_ID_MAX];   /* read from the file */
    size_t fbid_len;
    bool has_fid;                 /* the mapping's file identity is known (MMAP2 maj:min, ino) */
    uint32_t fid_maj, fid_min;
    uint64_t fid_ino;
    bool located;                 /* the code file was looked for (dso_locate) */
    bool loaded;                  /* its symbols were read (dso_load) */
    enum dso_status status;
    struct symtab tab;
    struct load_seg *segs;        /* PT_LOAD segments, for dso_map_to_vaddr */
    size_t nsegs;
    char *debug_path;             /* the ELF with DWARF, or NULL (once debug_done) */
    bool debug_done;              /* debug_path was looked for (dso_find_debug_path) */
    bool debug_searched;          /* separate debug info was looked for: */
    bool sep_has_dwarf;           /* sep_debug has .debug_info */
    char *sep_debug;              /* the separate debug file found, or NULL */
    char *code_path;              /* the file the symbols came from (build-id cache, symfs) */
    dev_t code_dev;               /* code_path's identity when located: symbols are read from */
    ino_t code_ino;               /* the same file or not at all */
    off_t code_size;
    struct timespec code_mtime;
    const char *names_path;       /* the file tab's string table came from (code_path or */
    dev_t names_dev;              /* sep_debug), and its identity, to read it again */
    ino_t names_ino;
    off_t names_size;
    struct timespec names_mtime;
};

const char *dso_cache_debug_root(const struct dso_cache *cache);
/* --symfs (NULL when unset): files are read at <symfs><path>. */
const char *dso_cache_symfs(const struct dso_cache *cache);
/* The build-id the profile recorded for a path (dso_cache_add_build_id): 0 or -ENOENT. */
int dso_cache_recorded_build_id(const struct dso_cache *cache, const char *path, uint8_t *out,
                                size_t *len);

/* Finds the code file of a DSO_FILE (inode and build-id checks, --symfs, perf's build-id
 * cache) and reads its build-id and segments, without its symbols: sets code_path, fbid and
 * segs, or the status saying why there is no usable file. Called once by dso_locate. */
int dso_locate_file(struct dso *dso);
/* Loaders, called once by dso_load (after dso_locate for files); each sets status (and
 * tab/debug_path). */
int dso_load_file(struct dso *dso);
int dso_load_vdso(struct dso *dso);
int dso_load_jitmap(struct dso *dso);
/* Sets debug_path of a located DSO_FILE: its code file when that has DWARF, else separate
 * debug info with DWARF (searched once, shared with the symbol loader). 0 or -ENOMEM. */
int dso_find_debug_path(struct dso *dso);
/* Segments and symbols from an already-open in-memory ELF image (the vdso). */
int dso_load_elf(struct dso *dso, struct elf_file *ef, const char *path);
/* Locates (idempotent; DSO_FILE only does work). 0 or -ENOMEM. */
int dso_locate(struct dso *dso);
#endif
