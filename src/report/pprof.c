/* SPDX-License-Identifier: MIT */
/* Stacks -> profile.proto -> gzip. Field numbers from profile.proto:
 *   Profile: 1 sample_type, 2 sample, 3 mapping, 4 location, 5 function, 6 string_table,
 *            10 duration_nanos, 11 period_type, 12 period
 *   ValueType: 1 type, 2 unit (string indices)      Sample: 1 location_id, 2 value, 3 label
 *   Label: 1 key, 2 str, 3 num                       Line: 1 function_id
 *   Mapping: 1 id, 2 memory_start, 3 memory_limit, 4 file_offset, 5 filename, 6 build_id,
 *            7 has_functions
 *   Location: 1 id, 2 mapping_id, 3 address, 4 line
 *   Function: 1 id, 2 name, 3 system_name, 4 filename
 * Location ids of a sample are leaf first, as in the cg_store. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "flame/strtab.h"
#include "model/process.h"
#include "report/pbwire.h"
#include "report/pprof.h"
#include "symbol/dso.h"
#include "util/hash.h"
#include "util/hashmap.h"

/* (a, b) -> id, open addressing. */
struct pair_slot {
    uint64_t a, b;
    uint64_t id;              /* 0: empty */
};

struct pairs {
    struct pair_slot *s;
    size_t cap, n;
};

static size_t pair_hash(uint64_t a, uint64_t b)
{
    return (size_t)hash_u64(a ^ hash_u64(b));
}

/* The slot of (a, b): its id, or 0 to be filled by the caller (n counted here). */
static struct pair_slot *pairs_find(struct pairs *t, uint64_t a, uint64_t b)
{
    size_t j;

    if ((t->n + 1) * 2 > t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 1024;
        struct pair_slot *s = calloc(cap, sizeof(*s));
        if (!s)
            return NULL;
        for (size_t i = 0; i < t->cap; i++) {
            if (!t->s[i].id)
                continue;
            for (j = pair_hash(t->s[i].a, t->s[i].b) & (cap - 1); s[j].id; j = (j + 1) & (cap - 1))
                ;
            s[j] = t->s[i];
        }
        free(t->s);
        t->s = s;
        t->cap = cap;
    }
    for (j = pair_hash(a, b) & (t->cap - 1); t->s[j].id; j = (j + 1) & (t->cap - 1))
        if (t->s[j].a == a && t->s[j].b == b)
            return &t->s[j];
    t->s[j].a = a;
    t->s[j].b = b;
    t->n++;
    return &t->s[j];
}

struct enc {
    struct pbuf out, msg, sub, ids, vals;
    struct strtab strs;
    struct pairs maps;
    uint32_t *loc_of;         /* per distinct frame of the store: its location id, 0 unseen */
    uint64_t nmaps, nlocs;
    int err;
};

static int64_t str(struct enc *e, const char *s)
{
    uint32_t i = 0;
    if (!e->err)
        e->err = strtab_intern(&e->strs, s, &i);
    return i;
}

static void value_type(struct enc *e, uint32_t field, const char *type, const char *unit)
{
    pb_reset(&e->msg);
    pb_uint(&e->msg, 1, (uint64_t)str(e, type));
    pb_uint(&e->msg, 2, (uint64_t)str(e, unit));
    pb_message(&e->out, field, &e->msg);
}

static void hex(const uint8_t *id, size_t len, char *out)
{
    for (size_t i = 0; i < len; i++)
        sprintf(out + 2 * i, "%02x", id[i]);
    out[2 * len] = '\0';
}

/* The mapping id of m (0: outside every map), written when first seen. */
static uint64_t mapping(struct enc *e, const struct map *m, const struct pprof_opts *o)
{
    struct pair_slot *sl;
    uint8_t id[BUILD_ID_MAX];
    size_t idlen = sizeof(id);
    char idhex[2 * BUILD_ID_MAX + 1] = "";

    if (!m)
        return 0;
    if (!(sl = pairs_find(&e->maps, (uint64_t)(uintptr_t)m, 0))) {
        e->err = -ENOMEM;
        return 0;
    }
    if (sl->id)
        return sl->id;
    sl->id = ++e->nmaps;
    pb_reset(&e->msg);
    pb_uint(&e->msg, 1, sl->id);
    if (m == &kernel_map) {
        /* One mapping for the kernel, over the upper half of the address space. */
        pb_uint(&e->msg, 2, 0xffff800000000000ULL);
        pb_uint(&e->msg, 3, UINT64_MAX);
        pb_uint(&e->msg, 5, (uint64_t)str(e, "[kernel.kallsyms]"));
        if (o->kernel_build_id && o->kernel_build_id_len <= BUILD_ID_MAX)
            hex(o->kernel_build_id, o->kernel_build_id_len, idhex);
    } else {
        pb_uint(&e->msg, 2, m->start);
        pb_uint(&e->msg, 3, m->end);
        pb_uint(&e->msg, 4, m->pgoff);
        pb_uint(&e->msg, 5, (uint64_t)str(e, dso_path(m->dso)));
        if (dso_build_id(m->dso, id, &idlen) == 0 && idlen <= BUILD_ID_MAX)
            hex(id, idlen, idhex);
    }
    if (idhex[0])
        pb_uint(&e->msg, 6, (uint64_t)str(e, idhex));
    pb_uint(&e->msg, 7, 1);
    pb_message(&e->out, 3, &e->msg);
    return sl->id;
}

/* The location id of frame i, written (with its mapping) when first seen. */
static uint64_t location(struct enc *e, const struct cg_store *cs, const struct cg_syms *cy,
                         size_t i, const struct pprof_opts *o)
{
    const struct frame *f = cg_frame_at(cs, i);
    uint32_t *id = &e->loc_of[cs->ids[i]];    /* the store's frames are distinct already */
    uint64_t map;

    if (*id)
        return *id;
    *id = (uint32_t)++e->nlocs;
    map = mapping(e, f->map, o);
    pb_reset(&e->msg);
    pb_uint(&e->msg, 1, *id);
    pb_uint(&e->msg, 2, map);
    pb_uint(&e->msg, 3, f->addr);
    pb_reset(&e->sub);
    pb_uint(&e->sub, 1, (uint64_t)cy->frame_sym[i] + 1);    /* function ids: symbol + 1 */
    pb_message(&e->msg, 4, &e->sub);
    pb_message(&e->out, 4, &e->msg);
    return *id;
}

static void functions(struct enc *e, const struct cg_syms *cy)
{
    char buf[256];

    for (size_t i = 0; i < cy->nsyms; i++) {
        const struct cg_sym *s = &cy->syms[i];
        int64_t name = str(e, cg_sym_name(s, buf, sizeof(buf)));
        pb_reset(&e->msg);
        pb_uint(&e->msg, 1, i + 1);
        pb_uint(&e->msg, 2, (uint64_t)name);
        pb_uint(&e->msg, 3, (uint64_t)name);
        pb_uint(&e->msg, 4, (uint64_t)str(e, s->kernel ? cg_sym_dso(s, buf, sizeof(buf))
                                         : s->dso ? dso_path(s->dso) : "[unknown]"));
        pb_message(&e->out, 5, &e->msg);
    }
}

/* A Sample's values and, when known (>= 0), its thread. */
struct tally {
    int64_t tid;
    uint64_t samples, period;
};

static void label(struct enc *e, const char *key, const char *s, int64_t num)
{
    pb_reset(&e->sub);
    pb_uint(&e->sub, 1, (uint64_t)str(e, key));
    if (s)
        pb_uint(&e->sub, 2, (uint64_t)str(e, s));
    else
        pb_uint(&e->sub, 3, (uint64_t)num);
    pb_message(&e->msg, 3, &e->sub);
}

/* One Sample: stack st weighing (samples, period), by thread tid when tid >= 0. */
static void sample(struct enc *e, const struct cg_store *cs, const struct cg_syms *cy,
                   const struct cg_stack *st, const struct tally *t, const struct pprof_opts *o)
{
    pb_reset(&e->ids);
    for (uint32_t k = 0; k < st->n; k++)
        pb_varint(&e->ids, location(e, cs, cy, st->off + k, o));
    pb_reset(&e->vals);
    pb_varint(&e->vals, t->samples);
    pb_varint(&e->vals, t->period);
    pb_reset(&e->msg);
    pb_message(&e->msg, 1, &e->ids);          /* packed repeated uint64 */
    pb_message(&e->msg, 2, &e->vals);         /* packed repeated int64 */
    label(e, "comm", st->proc->comm, 0);
    label(e, "pid", NULL, st->proc->pid);
    if (t->tid >= 0) {
        label(e, "tid", NULL, t->tid);
        label(e, "thread", sample_seq_thread_name(o->seq, (uint32_t)t->tid, st->proc), 0);
    }
    pb_message(&e->out, 2, &e->msg);
}

static int cmp_stack_tid(const void *a, const void *b)
{
    const struct seq_sample *x = a, *y = b;
    if (x->stack != y->stack)
        return x->stack < y->stack ? -1 : 1;
    return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* One Sample per distinct (stack, thread) of the sequence, in stack order. */
static void samples_by_thread(struct enc *e, const struct cg_store *cs, const struct cg_syms *cy,
                              const struct pprof_opts *o)
{
    const struct sample_seq *q = o->seq;
    struct seq_sample *v = malloc((q->v.n ? q->v.n : 1) * sizeof(*v));

    if (!v) {
        e->err = -ENOMEM;
        return;
    }
    memcpy(v, q->v.v, q->v.n * sizeof(*v));
    qsort(v, q->v.n, sizeof(*v), cmp_stack_tid);
    for (size_t i = 0, j; i < q->v.n && !e->err; i = j) {
        struct tally t = { v[i].tid, 0, 0 };
        for (j = i; j < q->v.n && !cmp_stack_tid(&v[i], &v[j]); j++) {
            t.samples++;
            t.period += v[j].period;
        }
        if (cs->stacks[v[i].stack].n)
            sample(e, cs, cy, &cs->stacks[v[i].stack], &t, o);
    }
    free(v);
}

static void samples(struct enc *e, const struct cg_store *cs, const struct cg_syms *cy,
                    const struct pprof_opts *o)
{
    if (o->seq) {
        samples_by_thread(e, cs, cy, o);
    } else {
        for (size_t i = 0; i < cs->nstacks && !e->err; i++) {
            const struct cg_stack *st = &cs->stacks[i];
            struct tally t = { -1, st->samples, st->period };
            if (st->n)
                sample(e, cs, cy, st, &t, o);
        }
    }
    if (e->ids.err || e->vals.err)
        e->err = -ENOMEM;
}

/* gzip (RFC 1952) of buf to f. */
static int gzip_write(FILE *f, const uint8_t *buf, size_t len)
{
    z_stream z = { 0 };
    uint8_t chunk[65536];
    int zr;

    if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return -ENOMEM;
    z.next_in = (Bytef *)buf;
    z.avail_in = 0;
    do {
        /* avail_in is 32 bits: feed large buffers in pieces. */
        if (!z.avail_in && len) {
            size_t n = len > (1u << 30) ? (1u << 30) : len;
            z.avail_in = (uInt)n;
            len -= n;
        }
        z.next_out = chunk;
        z.avail_out = sizeof(chunk);
        zr = deflate(&z, len || z.avail_in ? Z_NO_FLUSH : Z_FINISH);
        if (zr == Z_STREAM_ERROR)
            break;
        fwrite(chunk, 1, sizeof(chunk) - z.avail_out, f);
    } while (zr != Z_STREAM_END);
    deflateEnd(&z);
    if (zr != Z_STREAM_END)
        return -ENOMEM;
    return fflush(f) || ferror(f) ? -EIO : 0;
}

/* pprof takes the first mapping for the main binary ("File:", "Build ID:"): the heaviest
 * process's executable, found as the mapping of its frames named like its command. */
static void main_mapping_first(struct enc *e, const struct cg_store *cs,
                               const struct pprof_opts *o)
{
    const struct process *heavy = NULL;
    struct hashmap per_proc;             /* process -> its samples (never 0 once there) */
    uintptr_t best = 0;

    hashmap_init(&per_proc);
    for (size_t i = 0; i < cs->nstacks; i++) {
        const struct cg_stack *st = &cs->stacks[i];
        uint64_t key = (uint64_t)(uintptr_t)st->proc;
        uintptr_t n = (uintptr_t)hashmap_get(&per_proc, key) + (uintptr_t)st->samples;
        if (!st->samples)
            continue;
        if (hashmap_put(&per_proc, key, (void *)n))
            break;                       /* out of memory: only the order of mappings suffers */
        if (n > best) {
            best = n;
            heavy = st->proc;
        }
    }
    hashmap_release(&per_proc);
    for (size_t i = 0; heavy && i < cs->nstacks; i++) {
        const struct cg_stack *st = &cs->stacks[i];
        if (st->proc != heavy)
            continue;
        for (uint32_t k = 0; k < st->n; k++) {
            const struct map *m = cg_frame_at(cs, st->off + k)->map;
            const char *base;
            if (!m || m == &kernel_map)
                continue;
            base = strrchr(dso_path(m->dso), '/');
            base = base ? base + 1 : dso_path(m->dso);
            if (*heavy->comm && !strncmp(base, heavy->comm, strlen(heavy->comm))) {
                mapping(e, m, o);
                return;
            }
        }
    }
}

int report_pprof(FILE *f, const struct cg_store *cs, const struct cg_syms *cy,
                 const struct pprof_opts *o)
{
    const char *type = o->wall ? "wall" : o->off_cpu ? "off-cpu" : o->time_event ? "cpu" : o->event ? o->event :
                       "events";
    const char *unit = o->time_event || o->off_cpu ? "nanoseconds" : "count";
    struct enc e = { 0 };
    int err;

    if (!(e.loc_of = calloc(cs->nuniq ? cs->nuniq : 1, sizeof(*e.loc_of))))
        return -ENOMEM;
    strtab_init(&e.strs);
    str(&e, "");                      /* string_table[0] must be "" */
    value_type(&e, 1, "samples", "count");
    value_type(&e, 1, type, unit);
    functions(&e, cy);
    main_mapping_first(&e, cs, o);
    samples(&e, cs, cy, o);
    pb_uint(&e.out, 10, o->duration_ns);
    value_type(&e, 11, type, unit);
    pb_uint(&e.out, 12, o->period);
    for (size_t i = 0; i < e.strs.n; i++)
        pb_string(&e.out, 6, strtab_get(&e.strs, (uint32_t)i));
    err = e.err ? e.err : e.out.err || e.msg.err || e.sub.err ? -ENOMEM : 0;
    if (!err)
        err = gzip_write(f, e.out.p, e.out.n);
    pb_release(&e.out);
    pb_release(&e.msg);
    pb_release(&e.sub);
    pb_release(&e.ids);
    pb_release(&e.vals);
    strtab_release(&e.strs);
    free(e.maps.s);
    free(e.loc_of);
    return err;
}
