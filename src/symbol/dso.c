/* SPDX-License-Identifier: MIT */
/* The DSO cache (one struct dso per kind+path+build-id), accessors, resolution, name search. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "symbol/dso_internal.h"
#include "util/hash.h"
#include "util/strutil.h"
#include "util/vec.h"

struct recorded_build_id {
    char *path;
    uint8_t id[BUILD_ID_MAX];
    size_t len;
};

struct dso_cache {
    struct dso **buckets;
    size_t nbuckets, count;
    char *debug_root;
    char *symfs, *symfs_debug_root;
    VEC(struct recorded_build_id) recorded;
};

#define DEFAULT_DEBUG_ROOT "/usr/lib/debug"

struct dso_cache *dso_cache_new(void)
{
    struct dso_cache *c = calloc(1, sizeof(*c));
    if (!c)
        return NULL;
    c->nbuckets = 64;
    c->buckets = calloc(c->nbuckets, sizeof(*c->buckets));
    if (!c->buckets) {
        free(c);
        return NULL;
    }
    return c;
}

static void dso_free(struct dso *d)
{
    symtab_release(&d->tab);
    free(d->segs);
    free(d->debug_path);
    free(d->sep_debug);
    free(d->code_path);
    free(d->path);
    free(d);
}

void dso_cache_free(struct dso_cache *cache)
{
    if (!cache)
        return;
    for (size_t i = 0; i < cache->nbuckets; i++) {
        struct dso *d = cache->buckets[i], *next;
        for (; d; d = next) {
            next = d->hnext;
            dso_free(d);
        }
    }
    free(cache->buckets);
    free(cache->debug_root);
    free(cache->symfs);
    free(cache->symfs_debug_root);
    for (size_t i = 0; i < cache->recorded.n; i++)
        free(cache->recorded.v[i].path);
    vec_free(&cache->recorded);
    free(cache);
}

void dso_hold(struct dso *d)
{
    if (d)
        d->nmaps++;
}

void dso_unhold(struct dso *d)
{
    if (d && d->nmaps)
        d->nmaps--;
}

size_t dso_cache_drop_unmapped(struct dso_cache *cache)
{
    size_t freed = 0;

    for (size_t i = 0; i < cache->nbuckets; i++) {
        struct dso **link = &cache->buckets[i];
        while (*link) {
            struct dso *d = *link;
            if (d->nmaps || d->located || d->loaded) {
                link = &d->hnext;
                continue;
            }
            *link = d->hnext;
            dso_free(d);
            cache->count--;
            freed++;
        }
    }
    return freed;
}

size_t dso_cache_size(const struct dso_cache *cache)
{
    return cache->count;
}

int dso_cache_set_debug_root(struct dso_cache *cache, const char *dir)
{
    char *s = strdup(dir);
    if (!s)
        return -ENOMEM;
    free(cache->debug_root);
    cache->debug_root = s;
    return 0;
}

const char *dso_cache_debug_root(const struct dso_cache *cache)
{
    if (cache->debug_root)
        return cache->debug_root;
    return cache->symfs_debug_root ? cache->symfs_debug_root : DEFAULT_DEBUG_ROOT;
}

int dso_cache_set_symfs(struct dso_cache *cache, const char *dir)
{
    size_t len = strlen(dir);
    char *s, *dbg;

    while (len > 1 && dir[len - 1] == '/')   /* joined with absolute paths */
        len--;
    s = strndup(dir, len);
    dbg = s ? malloc(len + sizeof(DEFAULT_DEBUG_ROOT)) : NULL;
    if (!dbg) {
        free(s);
        return -ENOMEM;
    }
    snprintf(dbg, len + sizeof(DEFAULT_DEBUG_ROOT), "%s%s", s, DEFAULT_DEBUG_ROOT);
    free(cache->symfs);
    free(cache->symfs_debug_root);
    cache->symfs = s;
    cache->symfs_debug_root = dbg;
    return 0;
}

const char *dso_cache_symfs(const struct dso_cache *cache)
{
    return cache->symfs;
}

int dso_cache_add_build_id(struct dso_cache *cache, const char *path, const uint8_t *bid,
                           size_t len)
{
    struct recorded_build_id r = { .len = len };

    if (!len || len > BUILD_ID_MAX)
        return -EINVAL;
    memcpy(r.id, bid, len);
    r.path = strdup(path);
    if (!r.path || vec_push(&cache->recorded, r)) {
        free(r.path);
        return -ENOMEM;
    }
    return 0;
}

int dso_cache_recorded_build_id(const struct dso_cache *cache, const char *path, uint8_t *out,
                                size_t *len)
{
    for (size_t i = 0; i < cache->recorded.n; i++) {
        const struct recorded_build_id *r = &cache->recorded.v[i];
        if (!strcmp(r->path, path)) {
            memcpy(out, r->id, r->len);
            *len = r->len;
            return 0;
        }
    }
    return -ENOENT;
}

static uint64_t dso_key_hash(enum dso_kind kind, const char *path, const uint8_t *bid,
                             size_t bid_len, pid_t pid)
{
    uint64_t h = hash_bytes(path, strlen(path)) ^ hash_u64((uint64_t)kind + 1);
    if (kind == DSO_ANON)
        h ^= hash_u64((uint64_t)pid << 8);
    if (bid_len)
        h ^= hash_bytes(bid, bid_len) * 31;
    return hash_u64(h);
}

static bool dso_matches(const struct dso *d, enum dso_kind kind, const char *path,
                        const uint8_t *bid, size_t bid_len, pid_t pid)
{
    return d->kind == kind && (kind != DSO_ANON || d->pid == pid) && d->kbid_len == bid_len &&
           (!bid_len || !memcmp(d->kbid, bid, bid_len)) && !strcmp(d->path, path) &&
           !d->has_fid;
}

static int cache_grow(struct dso_cache *c)
{
    size_t nb = c->nbuckets * 2;
    struct dso **b = calloc(nb, sizeof(*b));
    if (!b)
        return -ENOMEM;
    for (size_t i = 0; i < c->nbuckets; i++) {
        struct dso *d = c->buckets[i], *next;
        for (; d; d = next) {
            size_t k = dso_key_hash(d->kind, d->path, d->kbid, d->kbid_len, d->pid) & (nb - 1);
            next = d->hnext;
            d->hnext = b[k];
            b[k] = d;
        }
    }
    free(c->buckets);
    c->buckets = b;
    c->nbuckets = nb;
    return 0;
}

struct dso *dso_cache_get(struct dso_cache *cache, enum dso_kind kind, const char *path,
                          const uint8_t *build_id, size_t build_id_len, pid_t pid)
{
    size_t k;
    struct dso *d;

    if (!path)
        path = "";
    if (!build_id)
        build_id_len = 0;
    if (build_id_len > BUILD_ID_MAX)
        build_id_len = BUILD_ID_MAX;
    k = dso_key_hash(kind, path, build_id, build_id_len, pid) & (cache->nbuckets - 1);
    for (d = cache->buckets[k]; d; d = d->hnext)
        if (dso_matches(d, kind, path, build_id, build_id_len, pid))
            return d;
    if (cache->count >= cache->nbuckets && cache_grow(cache)) {
        errno = ENOMEM;
        return NULL;
    }
    d = calloc(1, sizeof(*d));
    if (!d || !(d->path = strdup(path))) {
        free(d);
        errno = ENOMEM;
        return NULL;
    }
    d->cache = cache;
    d->kind = kind;
    d->pid = kind == DSO_ANON ? pid : 0;
    memcpy(d->kbid, build_id ? build_id : (const uint8_t *)"", build_id_len);
    d->kbid_len = build_id_len;
    k = dso_key_hash(kind, path, build_id, build_id_len, pid) & (cache->nbuckets - 1);
    d->hnext = cache->buckets[k];
    cache->buckets[k] = d;
    cache->count++;
    return d;
}

struct dso *dso_cache_get_mapped(struct dso_cache *cache, const char *path, uint32_t maj,
                                 uint32_t min, uint64_t ino)
{
    size_t k;
    struct dso *d;

    if (!ino)
        return dso_cache_get(cache, DSO_FILE, path, NULL, 0, 0);
    k = dso_key_hash(DSO_FILE, path, NULL, 0, 0) & (cache->nbuckets - 1);
    for (d = cache->buckets[k]; d; d = d->hnext)
        if (d->kind == DSO_FILE && d->has_fid && d->fid_ino == ino && d->fid_maj == maj &&
            d->fid_min == min && !d->kbid_len && !strcmp(d->path, path))
            return d;
    /* Created through the plain path so hashing and growth stay in one place; a plain entry
     * for the same path is not reused because dso_matches skips identified ones. */
    d = calloc(1, sizeof(*d));
    if (!d || !(d->path = strdup(path))) {
        free(d);
        errno = ENOMEM;
        return NULL;
    }
    if (cache->count >= cache->nbuckets && cache_grow(cache)) {
        free(d->path);
        free(d);
        errno = ENOMEM;
        return NULL;
    }
    d->cache = cache;
    d->kind = DSO_FILE;
    d->has_fid = true;
    d->fid_maj = maj;
    d->fid_min = min;
    d->fid_ino = ino;
    k = dso_key_hash(DSO_FILE, path, NULL, 0, 0) & (cache->nbuckets - 1);
    d->hnext = cache->buckets[k];
    cache->buckets[k] = d;
    cache->count++;
    return d;
}

const char *dso_path(const struct dso *dso)
{
    return dso->path;
}

const char *dso_short_name(const struct dso *dso)
{
    if (dso->path[0] == '[')
        return dso->path;
    if (dso->kind == DSO_ANON && (!dso->path[0] || !strcmp(dso->path, "//anon")))
        return "[anon]";
    return path_basename(dso->path);
}

enum dso_kind dso_kind(const struct dso *dso)
{
    return dso->kind;
}

enum dso_status dso_status(const struct dso *dso)
{
    dso_load((struct dso *)dso);
    return dso->status;
}

const char *dso_status_str(enum dso_status st)
{
    switch (st) {
    case DSO_UNLOADED: return "not loaded";
    case DSO_OK_SYMTAB: return "symbols";
    case DSO_OK_DYNSYM: return "stripped (dynamic symbols only)";
    case DSO_NO_SYMBOLS: return "no symbols";
    case DSO_MISSING: return "file not found";
    case DSO_BAD_ELF: return "not a valid ELF file";
    case DSO_BUILD_ID_MISMATCH: return "changed on disk since it was mapped (build-id or inode differs)";
    case DSO_REFUSED: return "refused: not a regular file owned by you or root";
    }
    return "unknown";
}

int dso_build_id(struct dso *dso, uint8_t *out, size_t *len)
{
    dso_locate(dso);
    if (dso->fbid_len) {
        memcpy(out, dso->fbid, dso->fbid_len);
        *len = dso->fbid_len;
        return 0;
    }
    if (dso->kbid_len) {
        memcpy(out, dso->kbid, dso->kbid_len);
        *len = dso->kbid_len;
        return 0;
    }
    return -ENOENT;
}

int dso_locate(struct dso *dso)
{
    int err;

    if (dso->kind == DSO_VDSO)
        return dso_load(dso);     /* one small image: segments and symbols together */
    if (dso->located || dso->kind != DSO_FILE)
        return 0;
    dso->located = true;
    err = dso_locate_file(dso);
    if (err == -ENOMEM) {         /* worth retrying: start again from nothing */
        dso->located = false;
        dso->status = DSO_UNLOADED;
        dso->fbid_len = 0;
        free(dso->segs);
        dso->segs = NULL;
        dso->nsegs = 0;
        free(dso->code_path);
        dso->code_path = NULL;
    }
    return err;
}

int dso_load(struct dso *dso)
{
    int err = 0;

    if (dso->loaded)
        return 0;
    if (dso->kind == DSO_FILE && (err = dso_locate(dso)))
        return err;
    dso->loaded = true;
    switch (dso->kind) {
    case DSO_FILE: err = dso_load_file(dso); break;
    case DSO_VDSO: err = dso_load_vdso(dso); break;
    case DSO_ANON: err = dso_load_jitmap(dso); break;
    case DSO_KERNEL: dso->status = DSO_NO_SYMBOLS; break;   /* resolved through ksyms */
    }
    if (err == -ENOMEM) {
        dso->loaded = false;   /* worth retrying; everything else is a property of the file */
        return err;
    }
    return 0;
}

int dso_map_to_vaddr(struct dso *dso, uint64_t map_start, uint64_t pgoff, uint64_t ip,
                     uint64_t *vaddr)
{
    uint64_t off;

    if (dso->kind == DSO_ANON || dso->kind == DSO_KERNEL) {
        *vaddr = ip;   /* JIT maps and kallsyms use absolute addresses */
        return 0;
    }
    if (ip < map_start)
        return -ENOENT;
    dso_locate(dso);
    off = ip - map_start + pgoff;
    for (size_t i = 0; i < dso->nsegs; i++) {
        const struct load_seg *s = &dso->segs[i];
        if (off >= s->off && off - s->off < s->filesz) {
            *vaddr = off - s->off + s->vaddr;
            return 0;
        }
    }
    /* The page-aligned head of a segment (mapped but before p_offset) still belongs to it. */
    for (size_t i = 0; i < dso->nsegs; i++) {
        const struct load_seg *s = &dso->segs[i];
        uint64_t head = s->off & ~4095ULL;
        if (off >= head && off < s->off) {
            *vaddr = s->vaddr - (s->off - off);
            return 0;
        }
    }
    return -ENOENT;
}

int dso_resolve(struct dso *dso, uint64_t vaddr, struct symres *out)
{
    int err = dso_load(dso);
    if (err) {
        memset(out, 0, sizeof(*out));
        return err;
    }
    return symtab_resolve_at(&dso->tab, symtab_index(&dso->tab, vaddr), vaddr, out);
}

int dso_resolve_sorted(struct dso *dso, const uint64_t *vaddrs, size_t n, struct symres *out)
{
    const struct symtab *t = &dso->tab;
    size_t j = 0;   /* symbols starting at or below the current address */
    int err = dso_load(dso);

    if (err)
        return err;
    for (size_t i = 0; i < n; i++) {
        if (i && vaddrs[i] < vaddrs[i - 1])
            return -EINVAL;
        while (j < t->n && t->syms[j].start <= vaddrs[i])
            j++;
        err = symtab_resolve_at(&dso->tab, (long)j - 1, vaddrs[i], &out[i]);
        if (err)
            return err;
    }
    return 0;
}

size_t dso_find_symbols(struct dso *dso, const char *name, struct symbol_match *out, size_t max)
{
    if (dso_load(dso) || !name)
        return 0;
    return symtab_find(&dso->tab, name, out, max);
}

void dso_foreach_symbol(struct dso *dso, void (*fn)(void *arg, const struct symbol_match *m),
                        void *arg)
{
    if (!dso_load(dso))
        symtab_foreach(&dso->tab, fn, arg);
}

void dso_drop_names(struct dso *dso)
{
    if (dso->loaded)
        symtab_drop_names(&dso->tab);
}

const char *dso_code_path(struct dso *dso)
{
    dso_locate(dso);
    return dso->code_path;
}

const char *dso_debug_path(struct dso *dso)
{
    if (dso->kind != DSO_FILE || dso_locate(dso) || dso_find_debug_path(dso))
        return NULL;
    return dso->debug_path;
}
