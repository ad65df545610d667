/* SPDX-License-Identifier: MIT */
/* Feature sections: parsing (bounds-checked, damage is counted, never fatal) and building. */
#define LOG_PREFIX "perfdata"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "perf/perfdata_feat.h"
#include "perf/perfdata_tracing.h"
#include "util/log.h"

/* A bounded reader over [pos, end) of the mapped file; any overrun sets `bad` and yields 0s. */
struct rd {
    const uint8_t *file;
    uint64_t pos, end;
    int bad;
    uint64_t bad_at;
};

static int rd_need(struct rd *r, uint64_t n)
{
    if (r->bad)
        return -1;
    if (n > r->end - r->pos) {
        r->bad = 1;
        r->bad_at = r->pos;
        return -1;
    }
    return 0;
}

static void rd_bytes(struct rd *r, void *out, size_t n)
{
    if (rd_need(r, n)) {
        memset(out, 0, n);
        return;
    }
    memcpy(out, r->file + r->pos, n);
    r->pos += n;
}

static uint32_t rd_u32(struct rd *r)
{
    uint32_t v;
    rd_bytes(r, &v, sizeof(v));
    return v;
}

static uint64_t rd_u64(struct rd *r)
{
    uint64_t v;
    rd_bytes(r, &v, sizeof(v));
    return v;
}

static uint64_t rd_left(const struct rd *r)
{
    return r->bad ? 0 : r->end - r->pos;
}

/* u32 len + len bytes (NUL-padded); the string is what precedes the first NUL. */
static char *rd_string(struct rd *r)
{
    uint32_t len = rd_u32(r);
    char *s;

    if (rd_need(r, len))
        return NULL;
    s = strndup((const char *)r->file + r->pos, len);
    r->pos += len;
    if (!s) {
        r->bad = 2;         /* out of memory, not damage */
        r->bad_at = r->pos;
    }
    return s;
}

/* perf_event_attr of `sz` bytes on disk into a full struct: copy what both know, zero the rest. */
static void rd_attr(struct rd *r, struct perf_event_attr *attr, uint32_t sz)
{
    size_t take = sz < sizeof(*attr) ? sz : sizeof(*attr);

    memset(attr, 0, sizeof(*attr));
    if (rd_need(r, sz))
        return;
    memcpy(attr, r->file + r->pos, take);
    attr->size = sizeof(*attr);
    r->pos += sz;
}

static void parse_string_feat(struct rd *r, char **out)
{
    free(*out);
    *out = rd_string(r);
}

static void parse_cmdline(struct rd *r, struct perfdata_info *info)
{
    uint32_t nr = rd_u32(r);

    if (r->bad)
        return;
    if (nr > rd_left(r) / 4) {     /* each string takes at least its u32 length */
        r->bad = 1;
        r->bad_at = r->pos;
        return;
    }
    info->cmdline = calloc(nr ? nr : 1, sizeof(char *));
    if (!info->cmdline) {
        r->bad = 2;
        return;
    }
    for (uint32_t i = 0; i < nr && !r->bad; i++) {
        info->cmdline[i] = rd_string(r);
        if (info->cmdline[i])
            info->nr_cmdline = i + 1;
    }
}

static void parse_event_desc(struct rd *r, struct perfdata_info *info)
{
    uint32_t nr = rd_u32(r), sz = rd_u32(r);

    if (r->bad)
        return;
    if (sz < PERF_ATTR_SIZE_VER0_ || sz > 4096 || nr > rd_left(r) / ((uint64_t)sz + 8)) {
        r->bad = 1;
        r->bad_at = r->pos - 8;
        return;
    }
    info->events = calloc(nr ? nr : 1, sizeof(*info->events));
    if (!info->events) {
        r->bad = 2;
        return;
    }
    for (uint32_t i = 0; i < nr && !r->bad; i++) {
        struct perfdata_event_desc *e = &info->events[i];
        uint32_t nr_ids;

        info->nr_events = i + 1;
        rd_attr(r, &e->attr, sz);
        nr_ids = rd_u32(r);
        e->name = rd_string(r);
        if (r->bad)
            break;
        if (nr_ids > rd_left(r) / 8) {
            r->bad = 1;
            r->bad_at = r->pos;
            break;
        }
        e->ids = malloc((nr_ids ? nr_ids : 1) * sizeof(uint64_t));
        if (!e->ids) {
            r->bad = 2;
            break;
        }
        rd_bytes(r, e->ids, (size_t)nr_ids * 8);
        e->nr_ids = nr_ids;
    }
}

static void parse_build_ids(struct rd *r, struct perfdata_info *info)
{
    size_t cap = 0;

    while (!r->bad && r->pos < r->end) {
        struct perfdata_build_id raw;
        struct perfdata_build_id_entry *e;
        uint64_t start = r->pos;

        rd_bytes(r, &raw, PERFDATA_BUILD_ID_HDR);
        if (r->bad)
            break;
        if (raw.header.size < PERFDATA_BUILD_ID_HDR || (uint64_t)raw.header.size - PERFDATA_BUILD_ID_HDR >
                                                           rd_left(r)) {
            r->bad = 1;
            r->bad_at = start;
            break;
        }
        if (info->nr_build_ids == cap) {
            size_t ncap = cap ? cap * 2 : 16;
            void *n = realloc(info->build_ids, ncap * sizeof(*info->build_ids));
            if (!n) {
                r->bad = 2;
                break;
            }
            info->build_ids = n;
            cap = ncap;
        }
        e = &info->build_ids[info->nr_build_ids];
        memset(e, 0, sizeof(*e));
        e->pid = raw.pid;
        e->cpumode = raw.header.misc & PERF_RECORD_MISC_CPUMODE_MASK;
        e->size = (raw.header.misc & PERF_RECORD_MISC_BUILD_ID_SIZE) ? raw.size : 20;
        if (e->size > 20)
            e->size = 20;
        memcpy(e->id, raw.build_id, sizeof(e->id));
        e->path = strndup((const char *)r->file + r->pos, raw.header.size - PERFDATA_BUILD_ID_HDR);
        if (!e->path) {
            r->bad = 2;
            break;
        }
        r->pos += raw.header.size - PERFDATA_BUILD_ID_HDR;
        info->nr_build_ids++;
    }
}

static void parse_pmu_mappings(struct rd *r, struct perfdata_info *info)
{
    uint32_t nr = rd_u32(r);

    if (r->bad)
        return;
    if (nr > rd_left(r) / 8) {
        r->bad = 1;
        r->bad_at = r->pos;
        return;
    }
    info->pmus = calloc(nr ? nr : 1, sizeof(*info->pmus));
    if (!info->pmus) {
        r->bad = 2;
        return;
    }
    for (uint32_t i = 0; i < nr && !r->bad; i++) {
        info->pmus[i].type = rd_u32(r);
        info->pmus[i].name = rd_string(r);
        if (info->pmus[i].name)
            info->nr_pmus = i + 1;
    }
}

/* sched_switch's format is parsed now (off-CPU reads its raw prev_state and next_pid); the
 * section is kept whole for script's tracepoint fields (perfdata_tracepoint_format). */
static void parse_tracing_data(struct rd *r, struct perfdata_info *info)
{
    size_t len = (size_t)(r->end - r->pos);
    int err;

    free(info->sched_switch_format);
    free(info->tracing_data);
    info->tracing_size = 0;
    if ((info->tracing_data = malloc(len ? len : 1))) {
        memcpy(info->tracing_data, r->file + r->pos, len);
        info->tracing_size = len;
    }
    err = perfdata_tracing_format(r->file + r->pos, (size_t)(r->end - r->pos), "sched",
                                  "sched_switch", &info->sched_switch_format);
    if (err == -ENOMEM || err == -EINVAL) {
        r->bad = err == -ENOMEM ? 2 : 1;
        r->bad_at = r->pos;
    }
}

static void parse_one(struct rd *r, unsigned bit, struct perfdata_info *info)
{
    switch (bit) {
    case FEAT_HOSTNAME: parse_string_feat(r, &info->hostname); break;
    case FEAT_OSRELEASE: parse_string_feat(r, &info->osrelease); break;
    case FEAT_VERSION: parse_string_feat(r, &info->version); break;
    case FEAT_ARCH: parse_string_feat(r, &info->arch); break;
    case FEAT_CPUDESC: parse_string_feat(r, &info->cpudesc); break;
    case FEAT_CPUID: parse_string_feat(r, &info->cpuid); break;
    case FEAT_NRCPUS:
        info->nr_cpus_avail = rd_u32(r);
        info->nr_cpus_online = rd_u32(r);
        info->has_nrcpus = !r->bad;
        break;
    case FEAT_TOTAL_MEM: info->total_mem_kb = rd_u64(r); break;
    case FEAT_CMDLINE: parse_cmdline(r, info); break;
    case FEAT_EVENT_DESC: parse_event_desc(r, info); break;
    case FEAT_BUILD_ID: parse_build_ids(r, info); break;
    case FEAT_PMU_MAPPINGS: parse_pmu_mappings(r, info); break;
    case FEAT_SAMPLE_TIME:
        info->first_sample_time = rd_u64(r);
        info->last_sample_time = rd_u64(r);
        info->has_sample_time = !r->bad;
        break;
    case FEAT_CLOCKID:
        info->clockid_res_ns = rd_u64(r);
        info->has_clockid = !r->bad;
        break;
    case FEAT_COMPRESSED: info->compressed = true; break;
    case FEAT_TRACING_DATA: parse_tracing_data(r, info); break;
    default:
        /* Known but not needed (topologies, caches, bpf, ...), or from a newer perf. */
        if (bit >= FEAT_LAST_KNOWN && info->nr_unknown_feats < 32)
            info->unknown_feats[info->nr_unknown_feats++] = bit;
        break;
    }
}

static void note_bad(struct perfdata_info *info, const char *path, uint64_t off, unsigned bit,
                     const char *what)
{
    const char *name = perfdata_feature_name(bit);

    pr_debug("%s: offset %#llx: feature section %u: %s\n", path, (unsigned long long)off, bit,
             what);
    if (info->nr_bad_feats++)
        return;
    snprintf(info->bad_feat.path, sizeof(info->bad_feat.path), "%s", path);
    info->bad_feat.has_offset = true;
    info->bad_feat.offset = off;
    if (bit >= PERFDATA_FEAT_BITS)
        snprintf(info->bad_feat.msg, sizeof(info->bad_feat.msg), "feature table %s", what);
    else
        snprintf(info->bad_feat.msg, sizeof(info->bad_feat.msg), "feature section %s (bit %u) %s",
                 name ? name : "unknown", bit, what);
}

int perfdata_info_parse(const uint8_t *file, uint64_t file_size,
                        const struct perf_file_header *hdr, const char *path,
                        struct perfdata_info *info)
{
    uint64_t table, nr = 0, k = 0;

    memcpy(info->features, hdr->features, sizeof(info->features));
    for (unsigned i = 0; i < PERFDATA_FEAT_BITS / 64; i++)
        nr += (uint64_t)__builtin_popcountll(hdr->features[i]);
    if (!nr)
        return 0;
    table = hdr->data.offset + hdr->data.size;
    if (table < hdr->data.offset || table > file_size || nr * 16 > file_size - table) {
        note_bad(info, path, table, PERFDATA_FEAT_BITS, "runs past the end of the file");
        return 0;
    }
    for (unsigned bit = 0; bit < PERFDATA_FEAT_BITS; bit++) {
        struct perf_file_section sec;

        if (!(hdr->features[bit / 64] & (1ULL << (bit % 64))))
            continue;
        memcpy(&sec, file + table + 16 * k++, sizeof(sec));
        if (sec.offset > file_size || sec.size > file_size - sec.offset) {
            note_bad(info, path, table + 16 * (k - 1), bit, "points past the end of the file");
            continue;
        }
        if (perfdata_info_parse_one(file, sec.offset, sec.size, bit, path, info))
            return -ENOMEM;
    }
    return 0;
}

int perfdata_info_parse_one(const uint8_t *file, uint64_t off, uint64_t size, unsigned bit,
                            const char *path, struct perfdata_info *info)
{
    struct rd r = { .file = file, .pos = off, .end = off + size };

    if (bit < PERFDATA_FEAT_BITS)
        info->features[bit / 64] |= 1ULL << (bit % 64);
    parse_one(&r, bit, info);
    if (r.bad == 2)
        return -ENOMEM;
    if (r.bad)
        note_bad(info, path, r.bad_at, bit, "is damaged; ignored");
    return 0;
}

void perfdata_info_release(struct perfdata_info *info)
{
    free(info->hostname);
    free(info->osrelease);
    free(info->version);
    free(info->arch);
    free(info->cpudesc);
    free(info->cpuid);
    for (size_t i = 0; i < info->nr_cmdline; i++)
        free(info->cmdline[i]);
    free(info->cmdline);
    for (size_t i = 0; i < info->nr_events; i++) {
        free(info->events[i].name);
        free(info->events[i].ids);
    }
    free(info->events);
    for (size_t i = 0; i < info->nr_build_ids; i++)
        free(info->build_ids[i].path);
    free(info->build_ids);
    for (size_t i = 0; i < info->nr_pmus; i++)
        free(info->pmus[i].name);
    free(info->pmus);
    free(info->sched_switch_format);
    free(info->tracing_data);
    memset(info, 0, sizeof(*info));
}

const char *perfdata_feature_name(unsigned bit)
{
    static const char *const names[FEAT_LAST_KNOWN] = {
        "reserved", "tracing_data", "build_id", "hostname", "osrelease", "version", "arch",
        "nrcpus", "cpudesc", "cpuid", "total_mem", "cmdline", "event_desc", "cpu_topology",
        "numa_topology", "branch_stack", "pmu_mappings", "group_desc", "auxtrace", "stat",
        "cache", "sample_time", "mem_topology", "clockid", "dir_format", "bpf_prog_info",
        "bpf_btf", "compressed", "cpu_pmu_caps", "clock_data", "hybrid_topology", "pmu_caps",
    };
    return bit < FEAT_LAST_KNOWN ? names[bit] : NULL;
}

/* ---- building ---- */

void featbuf_put(struct featbuf *b, const void *data, size_t len)
{
    if (b->err)
        return;
    if (len > b->cap - b->n) {
        size_t ncap = b->cap ? b->cap : 256;
        void *n;
        while (ncap - b->n < len)
            ncap *= 2;
        n = realloc(b->p, ncap);
        if (!n) {
            b->err = -ENOMEM;
            return;
        }
        b->p = n;
        b->cap = ncap;
    }
    if (data)
        memcpy(b->p + b->n, data, len);
    else
        memset(b->p + b->n, 0, len);
    b->n += len;
}

void featbuf_u32(struct featbuf *b, uint32_t v)
{
    featbuf_put(b, &v, sizeof(v));
}

void featbuf_u64(struct featbuf *b, uint64_t v)
{
    featbuf_put(b, &v, sizeof(v));
}

void featbuf_string(struct featbuf *b, const char *s)
{
    size_t len = strlen(s ? s : "") + 1;
    size_t padded = (len + PERFDATA_NAME_ALIGN - 1) / PERFDATA_NAME_ALIGN * PERFDATA_NAME_ALIGN;

    featbuf_u32(b, (uint32_t)padded);
    featbuf_put(b, s ? s : "", len);
    featbuf_put(b, NULL, padded - len);
}

void featbuf_pad(struct featbuf *b, size_t align)
{
    size_t rem = b->n % align;
    if (rem)
        featbuf_put(b, NULL, align - rem);
}

void featbuf_free(struct featbuf *b)
{
    free(b->p);
    memset(b, 0, sizeof(*b));
}
