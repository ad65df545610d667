/* SPDX-License-Identifier: MIT */
/* perf.data reader: validation of header and attrs, the record walk, time ordering. */
#define LOG_PREFIX "perfdata"
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "perf/event.h"
#include "perf/ordered.h"
#include "perf/perfdata_feat.h"
#include "perf/perfdata_internal.h"
#include "util/log.h"

#define MAX_ATTR_SIZE 4096      /* far above any perf_event_attr so far (136 bytes in 6.3) */
#define MAX_EVENTS 4096

/* ---- names ---- */

struct name_match {
    const struct perf_event_attr *attr;
    const char *found;
    char buf[64];
};

static int match_generic(void *arg, const char *name, const struct perf_event_attr *a)
{
    struct name_match *m = arg;

    if (a->type != m->attr->type || a->config != m->attr->config)
        return 0;
    snprintf(m->buf, sizeof(m->buf), "%s", name);
    m->found = m->buf;
    return 1;
}

static bool desc_matches(const struct perfdata_event_desc *e, const uint64_t *ids, size_t nr_ids)
{
    for (size_t j = 0; j < e->nr_ids; j++)
        for (size_t k = 0; k < nr_ids; k++)
            if (e->ids[j] == ids[k])
                return true;
    return false;
}

/* The event's name: what perf recorded in HEADER_EVENT_DESC (matched by id, or by position
 * when the file has no ids), else a generic name, else type and config. */
static void event_name(const struct perfdata *pd, size_t idx, const struct perf_event_attr *attr,
                       const uint64_t *ids, size_t nr_ids, char *out, size_t len)
{
    const struct perfdata_info *info = &pd->info;
    struct name_match m = { .attr = attr };

    for (size_t i = 0; i < info->nr_events; i++) {
        const struct perfdata_event_desc *e = &info->events[i];
        bool hit = nr_ids ? desc_matches(e, ids, nr_ids) : i == idx;
        if (hit && e->name && e->name[0]) {
            snprintf(out, len, "%s", e->name);
            return;
        }
    }
    event_foreach_generic("software", match_generic, &m);
    if (!m.found)
        event_foreach_generic("hardware", match_generic, &m);
    if (!m.found && attr->type == PERF_TYPE_HW_CACHE)
        event_foreach_generic("cache", match_generic, &m);
    if (m.found)
        snprintf(out, len, "%s", m.found);
    else
        snprintf(out, len, "type%u/config%#llx", attr->type, (unsigned long long)attr->config);
}

/* ---- header and attrs ---- */

static int check_header(struct perfdata *pd, struct perfdata_error *err)
{
    const char *p = pd->path;
    uint64_t magic, hsize;

    if (pd->size == 0)
        return perfdata_set_error(err, p, -EINVAL, false, 0, "file is empty");
    if (pd->size < 16)
        return perfdata_set_error(err, p, -EINVAL, true, pd->size,
                       "file is too short for a perf.data header (%llu bytes)",
                       (unsigned long long)pd->size);
    if (perfdata_pin(pd, 0, sizeof(struct perf_file_header)))
        return perfdata_shrank(pd, err, 0);
    memcpy(&magic, pd->map, 8);
    memcpy(&hsize, pd->map + 8, 8);
    if (magic == PERFDATA_MAGIC_SWAP)
        return perfdata_set_error(err, p, -EOPNOTSUPP, true, 0,
                       "perf.data from a machine of the other byte order is not supported");
    if (magic == PERFDATA_MAGIC_V1)
        return perfdata_set_error(err, p, -EOPNOTSUPP, true, 0,
                       "perf.data version 1 (PERFFILE, perf before 2.6.38) is not supported");
    if (magic == 0 && pd->size >= sizeof(struct perf_file_header))
        return perfdata_set_error(err, p, -EINVAL, true, 0,
                       "header was never written: the recording did not finish (interrupted?)");
    if (magic != PERFDATA_MAGIC)
        return perfdata_set_error(err, p, -EINVAL, true, 0, "not a perf.data file (no PERFILE2 magic)");
    if (hsize == sizeof(struct perf_pipe_file_header)) {
        pd->pipe = true;
        return 0;
    }
    /* 72 bytes: the layout before the feature bitmap existed. */
    if (hsize != sizeof(struct perf_file_header) &&
        hsize != offsetof(struct perf_file_header, features))
        return perfdata_set_error(err, p, -EINVAL, true, 8, "header size %llu is not one perf writes (%zu)",
                       (unsigned long long)hsize, sizeof(struct perf_file_header));
    if (pd->size < hsize)
        return perfdata_set_error(err, p, -EINVAL, true, pd->size,
                       "file is truncated inside the header (%llu of %llu bytes)",
                       (unsigned long long)pd->size, (unsigned long long)hsize);
    memset(&pd->hdr, 0, sizeof(pd->hdr));
    memcpy(&pd->hdr, pd->map, hsize);
    return 0;
}

static bool section_ok(const struct perfdata *pd, const struct perf_file_section *s)
{
    return s->offset <= pd->size && s->size <= pd->size - s->offset;
}

int perfdata_attr_copy(struct perfdata *pd, size_t idx, const uint8_t *e, uint32_t asz,
                       uint64_t off, struct perf_event_attr *attr, struct perfdata_error *err)
{
    if (asz > sizeof(*attr)) {
        /* A newer perf: its extra fields are harmless only while they are unused (zero). */
        for (uint64_t i = sizeof(*attr); i < asz; i++)
            if (e[i])
                return perfdata_set_error(err, pd->path, -EOPNOTSUPP, true, off + i,
                               "event %zu: perf_event_attr of %u bytes (newer perf?) uses fields "
                               "this reader does not know (it knows %zu bytes)",
                               idx, asz, sizeof(*attr));
    }
    memset(attr, 0, sizeof(*attr));
    memcpy(attr, e, asz < sizeof(*attr) ? asz : sizeof(*attr));
    attr->size = sizeof(*attr);
    if ((attr->sample_type & PERF_SAMPLE_READ) &&
        (attr->read_format & ~(uint64_t)(PERF_FORMAT_TOTAL_TIME_ENABLED |
                                         PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID |
                                         PERF_FORMAT_GROUP | PERF_FORMAT_LOST)))
        return perfdata_set_error(err, pd->path, -EOPNOTSUPP, true,
                       off + offsetof(struct perf_event_attr, read_format),
                       "event %zu: read_format %#llx has bits this reader does not know", idx,
                       (unsigned long long)attr->read_format);
    return 0;
}

/* One attr entry at `off`: copies what this build knows of it into *attr (zero-filling what an
 * older perf did not write) and returns its ids section. */
static int read_attr(struct perfdata *pd, size_t idx, uint64_t off, struct perf_event_attr *attr,
                     struct perf_file_section *ids, struct perfdata_error *err)
{
    const uint8_t *e = pd->map + off;
    uint64_t room = pd->hdr.attr_size - sizeof(struct perf_file_section);
    uint32_t asz;
    int ret;

    memcpy(&asz, e + offsetof(struct perf_event_attr, size), sizeof(asz));
    if (asz == 0)
        asz = PERF_ATTR_SIZE_VER0_;
    if (asz < PERF_ATTR_SIZE_VER0_ || asz > room)
        return perfdata_set_error(err, pd->path, -EINVAL, true, off + 4,
                       "event %zu: perf_event_attr size %u does not fit the file's attr entries "
                       "(%llu bytes)", idx, asz, (unsigned long long)room);
    ret = perfdata_attr_copy(pd, idx, e, asz, off, attr, err);
    if (ret)
        return ret;
    /* The ids section follows the attr as the writer sized it (what perf does too). */
    memcpy(ids, e + asz, sizeof(*ids));
    if (!section_ok(pd, ids) || ids->size % 8)
        return perfdata_set_error(err, pd->path, -EINVAL, true, off + asz,
                       "event %zu: ids section (offset %#llx, %llu bytes) is outside the file or "
                       "not a whole number of ids", idx, (unsigned long long)ids->offset,
                       (unsigned long long)ids->size);
    return 0;
}

static int read_attrs(struct perfdata *pd, struct perfdata_error *err)
{
    const struct perf_file_header *h = &pd->hdr;
    uint64_t nr;

    if (h->attr_size == 0)
        return perfdata_set_error(err, pd->path, -EINVAL, true, 16,
                       "attr_size is 0: the recording did not finish (perf record killed?)");
    if (h->attr_size < PERF_ATTR_SIZE_VER0_ + sizeof(struct perf_file_section) ||
        h->attr_size > MAX_ATTR_SIZE || h->attr_size % 8)
        return perfdata_set_error(err, pd->path, -EINVAL, true, 16,
                       "attr_size %llu is not the size of a perf_event_attr entry",
                       (unsigned long long)h->attr_size);
    if (!section_ok(pd, &h->attrs))
        return perfdata_set_error(err, pd->path, -EINVAL, true, 24,
                       "attr section (offset %#llx, %llu bytes) runs past the end of the file "
                       "(%llu bytes)", (unsigned long long)h->attrs.offset,
                       (unsigned long long)h->attrs.size, (unsigned long long)pd->size);
    if (h->attrs.size == 0)
        return perfdata_set_error(err, pd->path, -EINVAL, true, 24, "no events: the attr section is empty");
    if (h->attrs.size % h->attr_size)
        return perfdata_set_error(err, pd->path, -EINVAL, true, 24,
                       "attr section size %llu is not a multiple of attr_size %llu",
                       (unsigned long long)h->attrs.size, (unsigned long long)h->attr_size);
    nr = h->attrs.size / h->attr_size;
    if (nr > MAX_EVENTS)
        return perfdata_set_error(err, pd->path, -EINVAL, true, 24, "%llu events is implausibly many",
                       (unsigned long long)nr);
    if (perfdata_pin(pd, h->attrs.offset, h->attrs.size))
        return perfdata_shrank(pd, err, h->attrs.offset);
    for (uint64_t i = 0; i < nr; i++) {
        uint64_t off = h->attrs.offset + i * h->attr_size;
        struct perf_event_attr attr;
        struct perf_file_section ids;
        uint64_t *idv;
        int ret = read_attr(pd, (size_t)i, off, &attr, &ids, err);

        if (ret)
            return ret;
        if (perfdata_pin(pd, ids.offset, ids.size))
            return perfdata_shrank(pd, err, ids.offset);
        if (!(idv = malloc(ids.size ? ids.size : 8)))
            return perfdata_set_error(err, pd->path, -ENOMEM, false, 0, "out of memory");
        memcpy(idv, pd->map + ids.offset, ids.size);
        ret = perfdata_add_event(pd, (size_t)i, &attr, idv, ids.size / 8, h->attrs.offset, err);
        free(idv);
        if (ret)
            return ret;
    }
    return 0;
}

int perfdata_add_event(struct perfdata *pd, size_t idx, const struct perf_event_attr *attr,
                       const uint64_t *ids, size_t nr_ids, uint64_t off,
                       struct perfdata_error *err)
{
    struct evsel *sel;
    char name[256];

    if (pd->evl.nr >= MAX_EVENTS)
        return perfdata_set_error(err, pd->path, -EINVAL, true, off, "more than %d events is "
                                  "implausibly many", MAX_EVENTS);
    sel = evlist_add(&pd->evl, attr, "");
    if (!sel)
        return perfdata_set_error(err, pd->path, -ENOMEM, false, 0, "out of memory");
    for (size_t j = 0; j < nr_ids; j++)
        if (evsel_add_id(sel, ids[j]))
            return perfdata_set_error(err, pd->path, -ENOMEM, false, 0, "out of memory");
    event_name(pd, idx, attr, sel->ids, sel->nr_ids, name, sizeof(name));
    free(sel->name);
    if (!(sel->name = strdup(name)))
        return perfdata_set_error(err, pd->path, -ENOMEM, false, 0, "out of memory");
    return 0;
}

/* After the last event: can samples be told apart and ordered by time? */
static int finish_events(struct perfdata *pd, uint64_t off, struct perfdata_error *err)
{
    bool ordered = true;

    if (pd->evl.nr == 0)
        return perfdata_set_error(err, pd->path, -EINVAL, true, off, "no events: the file "
                                  "describes none");
    for (size_t i = 0; i < pd->evl.nr; i++) {
        const struct perf_event_attr *a = &pd->evl.sel[i].attr;
        if (!(a->sample_type & PERF_SAMPLE_TIME) || !a->sample_id_all)
            ordered = false;
    }
    if (evlist_finalize(&pd->evl))
        return perfdata_set_error(err, pd->path, -EINVAL, true, off,
                       "the %zu events cannot be told apart: their sample formats place the "
                       "sample id differently", pd->evl.nr);
    pd->time_ordered = ordered;
    return 0;
}

/* The feature sections (after the data): pinned, then parsed. */
static int parse_features(struct perfdata *pd, struct perfdata_error *err)
{
    const struct perf_file_header *h = &pd->hdr;
    uint64_t table = h->data.offset + h->data.size, k = 0;

    if (table >= h->data.offset && table < pd->size) {
        if (perfdata_pin(pd, table, pd->size - table))
            return perfdata_shrank(pd, err, table);
        /* Bodies are after the table in every file perf writes, but offsets may point
         * anywhere. */
        for (unsigned bit = 0; bit < PERFDATA_FEAT_BITS; bit++) {
            struct perf_file_section sec;
            if (!(h->features[bit / 64] & (1ULL << (bit % 64))))
                continue;
            if (16 * (k + 1) > pd->size - table)
                break;
            memcpy(&sec, pd->map + table + 16 * k++, sizeof(sec));
            if (section_ok(pd, &sec) && perfdata_pin(pd, sec.offset, sec.size))
                return perfdata_shrank(pd, err, sec.offset);
        }
    }
    if (perfdata_info_parse(pd->map, pd->size, h, pd->path, &pd->info))
        return perfdata_set_error(err, pd->path, -ENOMEM, false, 0, "out of memory");
    return 0;
}

/* Where the records are. perf leaves data.size 0 when it was killed before the end, Prospect a
 * header without features; then the records run to the end of the file. */
static int locate_data(struct perfdata *pd, struct perfdata_error *err)
{
    const struct perf_file_header *h = &pd->hdr;

    if (h->data.offset < sizeof(struct perf_pipe_file_header) || h->data.offset > pd->size)
        return perfdata_set_error(err, pd->path, -EINVAL, true, 40,
                       "data section offset %#llx is outside the file (%llu bytes)",
                       (unsigned long long)h->data.offset, (unsigned long long)pd->size);
    pd->data_off = h->data.offset;
    if (h->data.size == 0) {
        /* Either a complete file without records (its feature table then sits at the data
         * offset and parses) or an interrupted one. */
        bool complete = false;
        if (h->features[0] | h->features[1] | h->features[2] | h->features[3]) {
            int ret = parse_features(pd, err);
            if (ret)
                return ret;
            complete = pd->info.nr_bad_feats == 0;
            if (!complete)
                perfdata_info_release(&pd->info);
        }
        pd->data_end = complete ? pd->data_off : pd->size;
        pd->stats.data_size_missing = !complete;
        return 0;
    }
    if (h->data.size > pd->size - h->data.offset) {
        pd->data_end = pd->size;
        pd->stats.truncated = true;
        pd->stats.bytes_unread = h->data.size - (pd->size - h->data.offset);
        perfdata_set_error(&pd->stats.damage, pd->path, 0, true, pd->size,
                "file is truncated: the data section should end at %#llx",
                (unsigned long long)(h->data.offset + h->data.size));
        return 0;       /* the feature sections were after the data: gone */
    }
    pd->data_end = h->data.offset + h->data.size;
    if (!(h->features[0] | h->features[1] | h->features[2] | h->features[3])) {
        /* perf and Prospect write features at the end of every recording: without any, the
         * recording did not finish (Prospect's header says how much data was complete at the
         * last round; more may follow). */
        pd->data_end = pd->size;
        pd->stats.data_size_missing = true;
        return 0;
    }
    return parse_features(pd, err);
}

static struct perfdata *pd_new(const char *name)
{
    struct perfdata *pd = calloc(1, sizeof(*pd));

    if (!pd)
        return NULL;
    snprintf(pd->path, sizeof(pd->path), "%s", name);
    pd->fd = -1;
    evlist_init(&pd->evl);
    return pd;
}

/* Header, features, attrs (or pipe mode's records); closes pd on failure. */
static int pd_load(struct perfdata *pd, struct perfdata **out, struct perfdata_error *err)
{
    /* Names of events come from HEADER_EVENT_DESC, so features are read before attrs; a
     * damaged feature table does not stop anything. */
    int ret = check_header(pd, err);

    if (!ret && pd->pipe) {
        ret = perfdata_pipe_open(pd, err);
    } else if (!ret) {
        ret = locate_data(pd, err);
        if (!ret)
            ret = read_attrs(pd, err);
    }
    if (!ret)
        ret = finish_events(pd, pd->pipe ? 8 : pd->hdr.attrs.offset, err);
    if (!ret) {
        pd->stats.evsel_samples = calloc(pd->evl.nr, sizeof(uint64_t));
        pd->scratch = malloc(MAX_RECORD + 8);
        if (!pd->stats.evsel_samples || !pd->scratch)
            ret = perfdata_set_error(err, pd->path, -ENOMEM, false, 0, "out of memory");
    }
    if (ret) {
        perfdata_close(pd);
        return ret;
    }
    *out = pd;
    return 0;
}

int perfdata_open_mem(const void *buf, size_t len, const char *name, struct perfdata **out,
                      struct perfdata_error *err)
{
    struct perfdata *pd = pd_new(name);

    *out = NULL;
    if (!pd)
        return perfdata_set_error(err, name, -ENOMEM, false, 0, "out of memory");
    pd->map = buf;
    pd->size = len;
    return pd_load(pd, out, err);
}

/* Pipe mode from a stream: everything is read first (a pipe cannot be mapped). */
static int open_stream(int fd, const char *name, struct perfdata **out, struct perfdata_error *err)
{
    struct perfdata *pd = pd_new(name);
    uint8_t *buf = NULL;
    size_t n = 0, cap = 0;

    if (!pd)
        return perfdata_set_error(err, name, -ENOMEM, false, 0, "out of memory");
    for (;;) {
        ssize_t r;
        if (n == cap) {
            uint8_t *nb = realloc(buf, cap = cap ? 2 * cap : 1u << 20);
            if (!nb) {
                free(buf);
                perfdata_close(pd);
                return perfdata_set_error(err, name, -ENOMEM, false, 0, "out of memory");
            }
            buf = nb;
        }
        r = read(fd, buf + n, cap - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            int ret = -errno;
            free(buf);
            perfdata_close(pd);
            return perfdata_set_error(err, name, ret, true, n, "read: %s", strerror(-ret));
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    pd->map = buf;
    pd->size = n;
    pd->own_buf = true;
    if (n == 0) {
        perfdata_close(pd);
        return perfdata_set_error(err, name, -EINVAL, false, 0, "file is empty");
    }
    return pd_load(pd, out, err);
}

int perfdata_open(const char *path, struct perfdata **out, struct perfdata_error *err)
{
    struct perfdata *pd;
    struct stat st;
    int fd, ret;

    *out = NULL;
    if (!strcmp(path, "-")) {
        /* "-" is stdin (perf's convention): a pipe-mode stream, or any file redirected in. */
        if (fstat(STDIN_FILENO, &st) < 0)
            return perfdata_set_error(err, "stdin", -errno, false, 0, "%s", strerror(errno));
        if (!S_ISREG(st.st_mode))
            return open_stream(STDIN_FILENO, "stdin", out, err);
        path = "/dev/stdin";
    }
    /* O_NONBLOCK: opening a FIFO must not wait for a writer (it is refused just below). */
    fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return perfdata_set_error(err, path, -errno, false, 0, "%s", strerror(errno));
    if (fstat(fd, &st) < 0) {
        ret = -errno;
        close(fd);
        return perfdata_set_error(err, path, ret, false, 0, "%s", strerror(-ret));
    }
    if (S_ISDIR(st.st_mode)) {
        close(fd);
        return perfdata_set_error(err, path, -EISDIR, false, 0,
                       "is a directory (perf's directory format, 'perf record --threads', is "
                       "not supported)");
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return perfdata_set_error(err, path, -EINVAL, false, 0,
                                  "not a regular file (a FIFO or device cannot be mapped; "
                                  "'-i -' reads a pipe from stdin)");
    }
    if (st.st_size == 0) {
        close(fd);
        return perfdata_set_error(err, path, -EINVAL, false, 0, "file is empty");
    }
    if (!(pd = pd_new(path))) {
        close(fd);
        return perfdata_set_error(err, path, -ENOMEM, false, 0, "out of memory");
    }
    if ((ret = perfdata_map_file(pd, fd, (uint64_t)st.st_size, err))) {
        close(fd);
        perfdata_close(pd);
        return ret;
    }
    return pd_load(pd, out, err);
}

void perfdata_close(struct perfdata *pd)
{
    if (!pd)
        return;
    perfdata_close(pd->next);
    perfdata_unmap(pd);
    perfdata_zstd_free(pd->zstd);
    evlist_release(&pd->evl);
    perfdata_info_release(&pd->info);
    free(pd->stats.evsel_samples);
    free(pd->scratch);
    free(pd);
}

const struct evlist *perfdata_evlist(const struct perfdata *pd) { return &pd->evl; }
const struct perfdata_info *perfdata_info(const struct perfdata *pd) { return &pd->info; }
const struct perf_file_header *perfdata_header(const struct perfdata *pd) { return &pd->hdr; }
uint64_t perfdata_file_size(const struct perfdata *pd)
{
    uint64_t size = 0;
    for (; pd; pd = pd->next)
        size += pd->size;
    return size;
}
const struct perfdata_stats *perfdata_stats(const struct perfdata *pd) { return &pd->stats; }

/* ---- the record walk ---- */

static void note_bad(struct perfdata *pd, uint64_t off, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void note_bad(struct perfdata *pd, uint64_t off, const char *fmt, ...)
{
    va_list ap;

    if (pd->stats.bad++)
        return;
    va_start(ap, fmt);
    perfdata_set_errorv(&pd->stats.first_bad, pd->path, 0, true, off, fmt, ap);
    va_end(ap);
}

/* Checks a kernel record and finds its time. Returns false (counted as bad) if it does not
 * decode; then it is not delivered. */
static bool check_record(struct perfdata *pd, uint64_t off, const struct perf_event_header *h,
                         uint64_t *time)
{
    const struct evsel *sel;
    struct sample s;
    size_t min = record_min_size(h->type);

    *time = 0;
    if (h->size % 8) {
        /* The kernel writes whole u64 words; anything else is damage. */
        note_bad(pd, off, "%s record size %u is not a multiple of 8", record_type_name(h->type),
                 h->size);
        return false;
    }
    if (h->size < min) {
        note_bad(pd, off, "%s record of %u bytes is shorter than its %zu-byte layout",
                 record_type_name(h->type), h->size, min);
        return false;
    }
    if ((h->type == PERF_RECORD_MMAP || h->type == PERF_RECORD_MMAP2 ||
         h->type == PERF_RECORD_COMM) && !record_string(h)) {
        note_bad(pd, off, "%s record's name is not NUL-terminated", record_type_name(h->type));
        return false;
    }
    sel = evlist_evsel_for(&pd->evl, h);
    if (h->type == PERF_RECORD_SAMPLE) {
        if (!sel) {
            note_bad(pd, off, "sample's event id matches no event in the attr section");
            return false;
        }
        if (sample_parse(sel, h, &s)) {
            note_bad(pd, off, "sample does not match the sample format of event '%s' "
                     "(sample_type %#llx)", sel->name, (unsigned long long)sel->attr.sample_type);
            return false;
        }
        *time = s.time;
        pd->stats.nr_samples++;
        pd->stats.evsel_samples[sel->idx]++;
        if (pd->stats.nr_samples == 1 || s.time < pd->stats.first_sample_time)
            pd->stats.first_sample_time = s.time;
        if (s.time > pd->stats.last_sample_time)
            pd->stats.last_sample_time = s.time;
        return true;
    }
    if (sel && sel->attr.sample_id_all) {
        int r = sample_id_parse(sel, h, &s);
        if (r == -EINVAL) {
            note_bad(pd, off, "%s record is too short for its sample_id trailer",
                     record_type_name(h->type));
            return false;
        }
        if (!r)
            *time = s.time;
    }
    switch (h->type) {
    case PERF_RECORD_LOST: pd->stats.lost += ((const struct rec_lost *)h)->lost; break;
    case PERF_RECORD_LOST_SAMPLES:
        pd->stats.lost_samples += ((const struct rec_lost_samples *)h)->lost;
        break;
    case PERF_RECORD_THROTTLE: pd->stats.throttle++; break;
    case PERF_RECORD_UNTHROTTLE: pd->stats.unthrottle++; break;
    default: break;
    }
    return true;
}

static void stop_at(struct perfdata *pd, uint64_t off, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void stop_at(struct perfdata *pd, uint64_t off, const char *fmt, ...)
{
    va_list ap;

    pd->stats.truncated = true;
    perfdata_map_damaged(pd);       /* zeros where the shrunk file's pages were: say so */
    if (pd->shrunk_to) {
        /* Whatever looked wrong at the new end, the cause is the file shrinking. */
        pd->stats.bytes_unread += pd->data_end_was - off;
        perfdata_shrank(pd, &pd->stats.damage, off);
        return;
    }
    pd->stats.bytes_unread += pd->data_end - off;
    va_start(ap, fmt);
    perfdata_set_errorv(&pd->stats.damage, pd->path, 0, true, off, fmt, ap);
    va_end(ap);
}

static bool is_user_type_known(uint32_t type)
{
    return type >= PERF_RECORD_USER_TYPE_START_ && type < PERF_RECORD_USER_TYPE_END_;
}

/* One walk of the data section. */
struct walk {
    struct perfdata *pd;
    const struct evlist *evl;   /* handed to the consumer: the first file's, with several */
    struct ordered_queue *q;
    record_fn fn;
    void *arg;
    unsigned flags;
    uint64_t prev_round;
    bool inner;                 /* delivering records decompressed from a COMPRESSED one */
};

/* Delivers one framed record at file offset off (of the COMPRESSED record holding it, for
 * decompressed ones). copied: h is not in the mapped file (queue a copy). 0 or the consumer's
 * negative value. */
static int deliver(struct walk *w, const struct perf_event_header *h, uint64_t off, bool copied)
{
    struct perfdata *pd = w->pd;
    uint64_t time;
    int ret = 0;

    pd->stats.nr_records++;
    pd->stats.by_type[h->type < PERFDATA_NR_TYPES ? h->type : 0]++;
    if (h->type >= PERF_RECORD_USER_TYPE_START_) {
        if (!is_user_type_known(h->type)) {
            pd->stats.unknown++;
            return 0;
        }
        if (h->type == PERF_RECORD_FINISHED_ROUND_) {
            if (w->q && (ret = ordered_round(w->q)) < 0)
                return ret;
            if (!w->inner)
                perfdata_release_behind(pd, w->q, &w->prev_round, off);
        }
        if (w->flags & PERFDATA_USER_RECORDS)
            ret = w->fn(w->arg, w->evl, h, 0);
        return ret;
    }
    if (h->type == 0 || h->type >= PERF_RECORD_MAX) {
        pd->stats.unknown++;
        return 0;
    }
    if (!check_record(pd, off, h, &time))
        return 0;
    return w->q ? ordered_push(w->q, w->evl, h, time, copied) : w->fn(w->arg, w->evl, h, time);
}

/* The records of a decompressed COMPRESSED record (at file offset off). Damage inside it is
 * counted as one bad record: the next COMPRESSED record starts a new frame. */
static int walk_decompressed(struct walk *w, const struct perf_event_header *ch, uint64_t off)
{
    struct perfdata *pd = w->pd;
    const uint8_t *buf;
    size_t len, pos = 0;
    char why[160];
    int ret = perfdata_zstd_decompress(pd, ch, &buf, &len, why, sizeof(why));

    w->inner = true;
    if (ret == -ENOMEM) {
        w->inner = false;
        return ret;
    }
    if (ret) {
        note_bad(pd, off, "COMPRESSED record: %s", why);
        w->inner = false;
        return 0;
    }
    pd->stats.compressed++;
    while (pos < len) {
        struct perf_event_header hv;
        const struct perf_event_header *h;

        if (len - pos < sizeof(hv)) {
            perfdata_zstd_keep(pd, len - pos);      /* continues in the next one */
            break;
        }
        memcpy(&hv, buf + pos, sizeof(hv));
        if (hv.size < sizeof(hv)) {
            note_bad(pd, off, "COMPRESSED record: record size %u at decompressed byte %zu is "
                     "smaller than a record header", hv.size, pos);
            break;
        }
        if (hv.size > len - pos) {
            perfdata_zstd_keep(pd, len - pos);
            break;
        }
        if (hv.type == PERF_RECORD_COMPRESSED_ || hv.type == PERF_RECORD_AUXTRACE_ ||
            hv.type == PERF_RECORD_HEADER_TRACING_DATA_) {
            note_bad(pd, off, "COMPRESSED record holds a %s record", perfdata_record_name(hv.type));
            pos += hv.size;
            continue;
        }
        if ((uintptr_t)(buf + pos) % 8) {
            memcpy(pd->scratch, buf + pos, hv.size);
            h = (const struct perf_event_header *)pd->scratch;
        } else {
            h = (const struct perf_event_header *)(buf + pos);
        }
        if ((ret = deliver(w, h, off, true)) < 0)
            break;
        pos += hv.size;
    }
    w->inner = false;
    return ret < 0 ? ret : 0;
}

/* The time-ordered queue's way to the consumer. A queued record points into the mapped file:
 * if the file shrank since it was read, its page now reads as zeros (mapguard), and a record
 * whose header came back zero is not handed on (the walk reports the file shrank). */
static int deliver_queued(void *arg, const struct evlist *evl, const struct perf_event_header *h,
                          uint64_t time)
{
    struct walk *w = arg;
    struct perf_event_header hv;

    memcpy(&hv, h, sizeof(hv));
    if (w->pd->file_mapped && hv.size < sizeof(hv) && perfdata_map_damaged(w->pd))
        return 0;
    return w->fn(w->arg, evl, h, time);
}

/* One file's walk; its records go to fn with evl (the first file's events, ids of all). */
static int process_one(struct perfdata *pd, const struct evlist *evl, record_fn fn, void *arg,
                       unsigned flags, struct perfdata_error *err)
{
    bool ordered = pd->time_ordered && !(flags & (PERFDATA_FILE_ORDER | PERFDATA_USER_RECORDS));
    struct walk w = { .pd = pd, .evl = evl, .fn = fn, .arg = arg, .flags = flags };
    uint64_t off = pd->data_off;
    int ret = 0;

    if (ordered && !(w.q = ordered_new(deliver_queued, &w)))
        return perfdata_set_error(err, pd->path, -ENOMEM, false, 0, "out of memory");
    pd->populated = off;
    while (off < pd->data_end) {
        uint64_t left, adv;
        struct perf_event_header hv;
        const struct perf_event_header *h;
        bool copied = false;

        if (perfdata_pin_ahead(pd, off)) {
            struct perfdata_error e;
            perfdata_shrank(pd, &e, off);
            stop_at(pd, off, "%s", e.msg);
            break;
        }
        if (off >= pd->data_end)
            break;      /* the file shrank to here */
        left = pd->data_end - off;
        if (left < sizeof(hv)) {
            stop_at(pd, off, "record header cut off (%llu bytes left in the data section)",
                    (unsigned long long)left);
            break;
        }
        memcpy(&hv, pd->map + off, sizeof(hv));
        if (hv.size < sizeof(hv)) {
            stop_at(pd, off, "record size %u (type %u) is smaller than a record header",
                    hv.size, hv.type);
            break;
        }
        if (hv.size > left) {
            stop_at(pd, off, "record size %u (%s) runs past the end of the data section "
                    "(%llu bytes left)", hv.size, perfdata_record_name(hv.type),
                    (unsigned long long)left);
            break;
        }
        adv = hv.size;
        if ((uintptr_t)(pd->map + off) % 8) {
            /* Only after a user record with odd padding; parse an aligned copy. */
            memcpy(pd->scratch, pd->map + off, hv.size);
            h = (const struct perf_event_header *)pd->scratch;
            copied = true;
        } else {
            h = (const struct perf_event_header *)(pd->map + off);
        }
        if (hv.type == PERF_RECORD_AUXTRACE_ || hv.type == PERF_RECORD_HEADER_TRACING_DATA_) {
            /* Their payload follows the record, outside header.size. */
            uint64_t extra;
            if (hv.type == PERF_RECORD_AUXTRACE_) {
                if (hv.size < sizeof(struct perfdata_auxtrace)) {
                    stop_at(pd, off, "AUXTRACE record too short (%u bytes)", hv.size);
                    break;
                }
                memcpy(&extra, (const uint8_t *)h + offsetof(struct perfdata_auxtrace, size), 8);
            } else {
                uint32_t sz;
                if (hv.size < sizeof(struct perfdata_tracing_data)) {
                    stop_at(pd, off, "TRACING_DATA record too short (%u bytes)", hv.size);
                    break;
                }
                memcpy(&sz, (const uint8_t *)h + offsetof(struct perfdata_tracing_data, size), 4);
                extra = sz;
            }
            if (extra > left - adv) {
                stop_at(pd, off, "%s payload of %llu bytes runs past the end of the data "
                        "section", perfdata_record_name(hv.type), (unsigned long long)extra);
                break;
            }
            adv += extra;
        }
        if (hv.type == PERF_RECORD_COMPRESSED_) {
            pd->stats.nr_records++;
            pd->stats.by_type[hv.type]++;
            ret = walk_decompressed(&w, h, off);
        } else {
            ret = deliver(&w, h, off, copied);
        }
        if (ret < 0)
            goto consumer_failed;
        off += adv;
    }
    if ((perfdata_map_damaged(pd) || pd->shrunk_to) && !pd->stats.truncated)
        stop_at(pd, off, "shrank");
    if (perfdata_zstd_kept(pd))
        note_bad(pd, off, "the compressed records end inside a record (%zu bytes of it)",
                 perfdata_zstd_kept(pd));
    if (w.q) {
        ret = ordered_flush(w.q);
        pd->stats.late = ordered_late(w.q);
        if (ret < 0)
            goto consumer_failed;
        ordered_free(w.q);
    }
    return 0;

consumer_failed:
    ordered_free(w.q);
    if (ret == -ENOMEM)
        return perfdata_set_error(err, pd->path, ret, false, 0, "out of memory");
    return perfdata_set_error(err, pd->path, ret, true, off, "processing stopped: %s", strerror(-ret));
}

int perfdata_process(struct perfdata *pd, record_fn fn, void *arg, unsigned flags,
                     struct perfdata_error *err)
{
    int ret = process_one(pd, &pd->evl, fn, arg, flags, err);

    /* Several inputs (perfdata_open_many): one after the other, as one. */
    for (struct perfdata *n = pd->next; n && !ret; n = n->next) {
        ret = process_one(n, &pd->evl, fn, arg, flags, err);
        perfdata_stats_add(&pd->stats, &n->stats, pd->evl.nr);
    }
    return ret;
}

const char *perfdata_record_name(uint32_t type)
{
    static const char *const user[] = {
        "HEADER_ATTR", "HEADER_EVENT_TYPE", "HEADER_TRACING_DATA", "HEADER_BUILD_ID",
        "FINISHED_ROUND", "ID_INDEX", "AUXTRACE_INFO", "AUXTRACE", "AUXTRACE_ERROR",
        "THREAD_MAP", "CPU_MAP", "STAT_CONFIG", "STAT", "STAT_ROUND", "EVENT_UPDATE",
        "TIME_CONV", "HEADER_FEATURE", "COMPRESSED", "FINISHED_INIT",
    };
    if (type >= PERF_RECORD_USER_TYPE_START_ && type < PERF_RECORD_USER_TYPE_END_)
        return user[type - PERF_RECORD_USER_TYPE_START_];
    return record_type_name(type);
}
