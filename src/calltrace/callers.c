/* SPDX-License-Identifier: MIT */
/* Callers of traced calls: /proc/PID/maps snapshots per registration (see callers.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include "calltrace/callers.h"
#include "symbol/dso.h"

#define MAX_RELOADS 8

struct cmap {
    uint64_t start, end, pgoff, ino;
    uint32_t maj, min;
    char *path, *base;
    struct dso *dso;
};

struct snap {
    uint32_t pid;
    uint64_t image;
    unsigned reloads;
    size_t last;                /* the mapping of the last lookup: callers repeat */
    struct cmap *maps;
    size_t n;
};

struct ct_callers {
    bool symbols;
    struct dso_cache *cache;
    struct snap **snaps;        /* every snapshot, freed at the end */
    size_t nsnaps;
    uint32_t *ring_snap;        /* ring -> snapshot index + 1 */
    size_t nring;
};

struct ct_callers *ct_callers_new(bool symbols)
{
    struct ct_callers *cs = calloc(1, sizeof(*cs));
    if (!cs)
        return NULL;
    cs->symbols = symbols;
    if (symbols && !(cs->cache = dso_cache_new())) {
        free(cs);
        return NULL;
    }
    return cs;
}

static void snap_clear(struct snap *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->maps[i].path);
    free(s->maps);
    s->maps = NULL;
    s->n = 0;
}

void ct_callers_free(struct ct_callers *cs)
{
    if (!cs)
        return;
    for (size_t i = 0; i < cs->nsnaps; i++) {
        snap_clear(cs->snaps[i]);
        free(cs->snaps[i]);
    }
    free(cs->snaps);
    free(cs->ring_snap);
    if (cs->cache)
        dso_cache_free(cs->cache);
    free(cs);
}

/* Reads the executable file mappings of s->pid. 0, -ENOMEM, or -errno of the open (gone). */
static int snap_read(struct snap *s)
{
    char path[64], line[4352];
    FILE *f;
    snprintf(path, sizeof(path), "/proc/%u/maps", s->pid);
    if (!(f = fopen(path, "re")))
        return -errno;
    struct cmap *v = NULL;
    size_t n = 0, cap = 0;
    while (fgets(line, sizeof(line), f)) {
        unsigned long long st, en, off, ino;
        unsigned maj, mn;
        char perms[8];
        int pos = 0;
        if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &st, &en, perms, &off, &maj, &mn,
                   &ino, &pos) < 7 || perms[2] != 'x' || !pos)
            continue;
        char *p = line + pos;
        p[strcspn(p, "\n")] = 0;
        if (p[0] != '/' && p[0] != '[')
            continue;
        if (n == cap) {
            size_t nc = cap ? cap * 2 : 32;
            struct cmap *nv = realloc(v, nc * sizeof(*nv));
            if (!nv)
                goto nomem;
            v = nv;
            cap = nc;
        }
        struct cmap *m = &v[n];
        memset(m, 0, sizeof(*m));
        m->start = st;
        m->end = en;
        m->pgoff = off;
        m->ino = ino;
        m->maj = maj;
        m->min = mn;
        if (!(m->path = strdup(p)))
            goto nomem;
        char *slash = strrchr(m->path, '/');
        m->base = slash ? slash + 1 : m->path;
        n++;
    }
    fclose(f);
    snap_clear(s);
    s->maps = v;
    s->n = n;
    return 0;
nomem:
    fclose(f);
    for (size_t i = 0; i < n; i++)
        free(v[i].path);
    free(v);
    return -ENOMEM;
}

static int ring_slot(struct ct_callers *cs, uint32_t ring)
{
    if (ring >= cs->nring) {
        size_t nn = (size_t)ring + 64;
        uint32_t *v = realloc(cs->ring_snap, nn * sizeof(*v));
        if (!v)
            return -ENOMEM;
        memset(v + cs->nring, 0, (nn - cs->nring) * sizeof(*v));
        cs->ring_snap = v;
        cs->nring = nn;
    }
    return 0;
}

int ct_callers_ring(struct ct_callers *cs, uint32_t ring, uint32_t pid, uint64_t image)
{
    if (ring_slot(cs, ring))
        return -ENOMEM;
    /* The newest snapshot of this process image (threads of one process share it). */
    for (size_t i = cs->nsnaps; i-- > 0;)
        if (cs->snaps[i]->pid == pid && cs->snaps[i]->image == image) {
            cs->ring_snap[ring] = (uint32_t)i + 1;
            return 0;
        }
    struct snap *s = calloc(1, sizeof(*s));
    if (!s)
        return -ENOMEM;
    s->pid = pid;
    s->image = image;
    if (snap_read(s) == -ENOMEM) {
        free(s);
        return -ENOMEM;
    }
    struct snap **ns = realloc(cs->snaps, (cs->nsnaps + 1) * sizeof(*ns));
    if (!ns) {
        snap_clear(s);
        free(s);
        return -ENOMEM;
    }
    cs->snaps = ns;
    cs->snaps[cs->nsnaps++] = s;
    cs->ring_snap[ring] = (uint32_t)cs->nsnaps;
    return 0;
}

int ct_callers_add_map(struct ct_callers *cs, uint32_t ring, uint32_t pid, uint64_t start,
                       uint64_t len, uint64_t pgoff, uint32_t maj, uint32_t min, uint64_t ino,
                       const char *path)
{
    struct snap *s;
    if (path[0] != '/' || start + len < start)
        return 0;
    if (ring_slot(cs, ring))
        return -ENOMEM;
    if (!cs->ring_snap[ring]) {
        struct snap **ns = realloc(cs->snaps, (cs->nsnaps + 1) * sizeof(*ns));
        if (!ns)
            return -ENOMEM;
        cs->snaps = ns;
        if (!(s = calloc(1, sizeof(*s))))
            return -ENOMEM;
        s->pid = pid;
        cs->snaps[cs->nsnaps++] = s;
        cs->ring_snap[ring] = (uint32_t)cs->nsnaps;
    }
    s = cs->snaps[cs->ring_snap[ring] - 1];
    for (size_t i = 0; i < s->n; i++)
        if (s->maps[i].start == start && s->maps[i].end == start + len)
            return 0;               /* known already (maps read, or a second thread's copy) */
    struct cmap *v = realloc(s->maps, (s->n + 1) * sizeof(*v));
    if (!v)
        return -ENOMEM;
    s->maps = v;
    struct cmap *m = &v[s->n];
    memset(m, 0, sizeof(*m));
    m->start = start;
    m->end = start + len;
    m->pgoff = pgoff;
    m->ino = ino;
    m->maj = maj;
    m->min = min;
    if (!(m->path = strdup(path)))
        return -ENOMEM;
    m->base = strrchr(m->path, '/') + 1;
    s->n++;
    return 0;
}

static struct cmap *find(struct snap *s, uint64_t addr)
{
    if (s->last < s->n && addr >= s->maps[s->last].start && addr < s->maps[s->last].end)
        return &s->maps[s->last];
    for (size_t i = 0; i < s->n; i++)
        if (addr >= s->maps[i].start && addr < s->maps[i].end) {
            s->last = i;
            return &s->maps[i];
        }
    return NULL;
}

void ct_callers_name(struct ct_callers *cs, uint32_t ring, uint64_t addr, const char **obj,
                     const char **sym)
{
    struct snap *s = ring < cs->nring && cs->ring_snap[ring] ?
                     cs->snaps[cs->ring_snap[ring] - 1] : NULL;
    struct cmap *m = s ? find(s, addr) : NULL;
    *obj = "?";
    *sym = "";
    if (!m && s && s->reloads < MAX_RELOADS) {
        s->reloads++;
        if (!snap_read(s))
            m = find(s, addr);
    }
    if (!m)
        return;
    *obj = m->base;
    if (!cs->symbols || m->path[0] != '/')
        return;
    if (!m->dso)
        m->dso = dso_cache_get_mapped(cs->cache, m->path, m->maj, m->min, m->ino);
    uint64_t vaddr;
    struct symres r;
    /* addr is a return address: the call instruction ends there. */
    if (m->dso && !dso_load(m->dso) &&
        !dso_map_to_vaddr(m->dso, m->start, m->pgoff, addr - 1, &vaddr) &&
        !dso_resolve(m->dso, vaddr, &r) && r.name)
        *sym = r.name;
}
