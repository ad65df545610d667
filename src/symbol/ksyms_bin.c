/* SPDX-License-Identifier: MIT */
/* Layout (native x86_64 byte order): a 96-byte header (magic, version, counts, the source
 * text's identity, a checksum), then u64 addr[n] (sorted), u32 name[n] (offsets into the blob),
 * u32 mod[n] (0: core kernel, else 1 + index into modoff), u32 modoff[m], and the blob of
 * NUL-terminated names, zero-padded to a multiple of 8 bytes. The checksum (Fletcher-style
 * sums of the file's 64-bit words, the sums themselves as 0) catches any corrupted byte, which
 * the structural checks alone would miss in an address or a count; it costs a pass over the
 * words the checks read anyway. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "symbol/ksyms_bin.h"
#include "symbol/ksyms_priv.h"

static const char MAGIC[8] = "PRKSYMB";   /* with its NUL */
enum { VERSION = 1, HDR = 96 };

struct hdr {
    char magic[8];
    uint32_t version, n, m, pad;
    uint64_t bad, blob_len;
    uint64_t size, ino, dev;
    int64_t mtime_sec, mtime_nsec;
    uint64_t sum_a, sum_b;
};
_Static_assert(sizeof(struct hdr) == HDR, "header layout");

/* The two sums of a whole file (len a multiple of 8) whose header is `h` with sums 0: a word's
 * change always changes the first. */
static void checksum(const struct hdr *h, const char *file, size_t len, uint64_t *sa,
                     uint64_t *sb)
{
    uint64_t a = 0, b = 0, w;
    for (size_t i = 0; i < HDR; i += 8) {
        memcpy(&w, (const char *)h + i, 8);
        a += w;
        b += a;
    }
    for (size_t i = HDR; i < len; i += 8) {
        memcpy(&w, file + i, 8);
        a += w;
        b += a;
    }
    *sa = a;
    *sb = b;
}

/* Index of a module name among the first *m (+1), appended when new. Modules are few. */
static uint32_t mod_index(const char **mods, uint32_t *m, const char *mod)
{
    for (uint32_t i = *m; i-- > 0;)
        if (mods[i] == mod || !strcmp(mods[i], mod))
            return i + 1;
    mods[*m] = mod;
    return ++*m;
}

int ksyms_bin_encode(const struct ksyms *ks, const struct ksyms_src *src, char **buf,
                     size_t *len)
{
    const char **mods;
    uint32_t *mod, m = 0, last = 0;
    const char *last_mod = NULL;
    size_t blob = 0, n = ks->n, total;
    struct hdr h;
    char *out, *p;
    int err = -ENOMEM;

    *buf = NULL;
    if (ks->map)
        return -EINVAL;   /* made from text only */
    if (n > UINT32_MAX / 2)
        return -EFBIG;
    for (size_t i = 0; i < n; i++)
        blob += strlen(ks->v[i].name) + 1;
    mods = malloc((n + 1) * sizeof(*mods));
    mod = malloc((n + 1) * sizeof(*mod));
    if (!mods || !mod)
        goto out;
    for (size_t i = 0; i < n; i++) {
        const char *md = ks->v[i].module;
        if (!md) {
            mod[i] = 0;
            continue;
        }
        if (md != last_mod) {
            uint32_t before = m;
            last = mod_index(mods, &m, md);
            if (m != before)
                blob += strlen(md) + 1;
            last_mod = md;
        }
        mod[i] = last;
    }
    if (blob > UINT32_MAX) {
        err = -EFBIG;
        goto out;
    }
    blob += (8 - (HDR + 4 * (size_t)m + blob) % 8) % 8;   /* the file: whole 64-bit words */
    total = HDR + 16 * n + 4 * (size_t)m + blob;
    if (!(out = calloc(1, total)))
        goto out;
    memset(&h, 0, sizeof(h));
    memcpy(h.magic, MAGIC, sizeof(h.magic));
    h.version = VERSION;
    h.n = (uint32_t)n;
    h.m = m;
    h.bad = ks->bad;
    h.blob_len = blob;
    h.size = src->size;
    h.ino = src->ino;
    h.dev = src->dev;
    h.mtime_sec = src->mtime_sec;
    h.mtime_nsec = src->mtime_nsec;
    {
        char *addr = out + HDR, *name = addr + 8 * n, *modp = name + 4 * n;
        char *modoff = modp + 4 * n, *b = modoff + 4 * (size_t)m;
        uint32_t off = 0;
        p = b;
        for (size_t i = 0; i < n; i++) {
            size_t l = strlen(ks->v[i].name) + 1;
            memcpy(addr + 8 * i, &ks->v[i].addr, 8);
            memcpy(name + 4 * i, &off, 4);
            memcpy(modp + 4 * i, &mod[i], 4);
            memcpy(p, ks->v[i].name, l);
            p += l;
            off += (uint32_t)l;
        }
        for (uint32_t i = 0; i < m; i++) {
            size_t l = strlen(mods[i]) + 1;
            memcpy(modoff + 4 * (size_t)i, &off, 4);
            memcpy(p, mods[i], l);
            p += l;
            off += (uint32_t)l;
        }
    }
    checksum(&h, out, total, &h.sum_a, &h.sum_b);
    memcpy(out, &h, HDR);
    *buf = out;
    *len = total;
    err = 0;
out:
    free(mods);
    free(mod);
    return err;
}

void ksyms_bin_release(struct ksyms *ks)
{
    if (ks->map)
        munmap(ks->map, ks->map_len);
    ks->map = NULL;
}

int ksyms_bin_decode(void *map, size_t len, const struct ksyms_src *src, struct ksyms **out)
{
    const char *base = map, *blob;
    const uint64_t *addr;
    const uint32_t *name, *mod, *modoff;
    struct hdr h;
    struct ksyms *ks;
    int err = -EINVAL;

    *out = NULL;
    /* The arrays are used in place: the mapping is page-aligned, the header and the u64
     * array a multiple of 8 bytes, so every array is aligned for its type. */
    if (len < HDR || (uintptr_t)map % 8)
        goto bad;
    memcpy(&h, base, HDR);
    if (memcmp(h.magic, MAGIC, sizeof(h.magic)) || h.version != VERSION || h.pad)
        goto bad;
    if (h.size != src->size || h.ino != src->ino || h.dev != src->dev ||
        h.mtime_sec != src->mtime_sec || h.mtime_nsec != src->mtime_nsec) {
        err = -ESTALE;
        goto bad;
    }
    /* n and m are 32-bit: the sum cannot overflow 64 bits once blob_len fits the file. */
    if (len % 8 || h.blob_len == 0 || h.blob_len > len ||
        (uint64_t)HDR + 16 * (uint64_t)h.n + 4 * (uint64_t)h.m + h.blob_len != len)
        goto bad;
    {
        uint64_t a = h.sum_a, b = h.sum_b;
        h.sum_a = h.sum_b = 0;
        checksum(&h, base, len, &h.sum_a, &h.sum_b);
        if (h.sum_a != a || h.sum_b != b)
            goto bad;
    }
    addr = (const uint64_t *)(const void *)(base + HDR);
    name = (const uint32_t *)(const void *)(addr + h.n);
    mod = name + h.n;
    modoff = mod + h.n;
    blob = (const char *)(modoff + h.m);
    if (blob[h.blob_len - 1])      /* so every offset inside names a NUL-terminated string */
        goto bad;
    for (uint32_t i = 0; i < h.m; i++)
        if (modoff[i] >= h.blob_len || !blob[modoff[i]])
            goto bad;
    for (uint32_t i = 0; i < h.n; i++)
        if (name[i] >= h.blob_len || !blob[name[i]] || mod[i] > h.m ||
            (i && addr[i] < addr[i - 1]))
            goto bad;
    if (!(ks = calloc(1, sizeof(*ks)))) {
        err = -ENOMEM;
        goto bad;
    }
    ks->map = map;
    ks->map_len = len;
    ks->addr = addr;
    ks->name_off = name;
    ks->mod = mod;
    ks->mod_off = modoff;
    ks->blob = blob;
    ks->n = h.n;
    ks->bad = (size_t)h.bad;
    *out = ks;
    return 0;
bad:
    munmap(map, len);
    return err;
}
