/* Internal to src/symbol/: the DSO struct shared by the cache and the loaders. */
#ifndef PROSPECT_SYMBOL_DSO_INTERNAL_H
#define PROSPECT_SYMBOL_DSO_INTERNAL_H
#include "symbol/dso.h"
#include "symbol/elf_file.h"
#include "symbol/symtab.h"

struct dso {
    struct dso_cache *cache;
    struct dso *hnext;            /* cache hash chain */
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
    bool loaded;
    enum dso_status status;
    struct symtab tab;
    struct load_seg *segs;        /* PT_LOAD segments, for dso_map_to_vaddr */
    size_t nsegs;
    char *debug_path;             /* the ELF with DWARF, or NULL */
    char *code_path;              /* the file the symbols came from (build-id cache, symfs) */
};

const char *dso_cache_debug_root(const struct dso_cache *cache);
/* --symfs (NULL when unset): files are read at <symfs><path>. */
const char *dso_cache_symfs(const struct dso_cache *cache);
/* The build-id the profile recorded for a path (dso_cache_add_build_id): 0 or -ENOENT. */
int dso_cache_recorded_build_id(const struct dso_cache *cache, const char *path, uint8_t *out,
                                size_t *len);

/* Loaders, called once by dso_load; each sets status (and segs/tab/debug_path). */
int dso_load_file(struct dso *dso);
int dso_load_vdso(struct dso *dso);
int dso_load_jitmap(struct dso *dso);
/* Symbols and segments from an already-open ELF (shared by files and the vdso image). */
int dso_load_elf(struct dso *dso, struct elf_file *ef, const char *path);
#endif
