/* SPDX-License-Identifier: MIT */
/* perf.data writer. Layout: header, the events' ids and attrs (as known at the first record),
 * data, feature table and bodies, and, only if the events changed during the recording, their
 * final ids and attrs. perf finds every part through offsets, except the feature table, which
 * must start right where the data section ends.
 *
 * The header is written at the first record without features (what a recording killed with
 * SIGKILL leaves: Prospect's reader then reads the records to the end of the file with a
 * warning), its data size is brought up to date after each round (perf reads that much), and
 * it is written whole at close with the features. */
#define LOG_PREFIX "perfdata"
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "perf/perfdata_feat.h"
#include "perf/perfdata_tracing.h"
#include "perf/perfdata_write.h"
#include "util/file.h"
#include "util/log.h"
#include "util/outfile.h"
#include "util/vec.h"

#define WBUF_SIZE (1u << 20)

struct wbuild_id {
    int32_t pid;
    uint16_t cpumode;
    uint8_t len;
    uint8_t id[20];
    char *path;
};

struct perfdata_writer {
    char path[512];
    int fd;
    const struct evlist *evl;
    uint8_t *buf;
    size_t nbuf;
    uint64_t pos;             /* file offset of buf[0] */
    uint64_t data_start;
    bool begun;               /* header, ids and attrs written (data starts at data_start) */
    uint64_t attrs_off;       /* where they are: 0 = not written at the start */
    size_t attrs_nev;         /* the events and ids they describe */
    uint64_t *attrs_ids;
    size_t attrs_nids;
    int err;                  /* first write error (sticky) */
    uint64_t err_off;
    uint64_t samples;
    uint64_t since_round;     /* records since the last FINISHED_ROUND */
    uint64_t first_time, last_time;
    VEC(struct wbuild_id) bids;
    /* Pipe mode (perf's -o -): a stream, never sought; the events and features go first as
     * records, from meta, since no header can be rewritten at the end. */
    bool pipe;
    const struct perfdata_write_meta *meta;
};


/* n bytes at off, or where the stream is when off is STREAM. */
#define STREAM UINT64_MAX
static int write_all(int fd, const void *p, size_t n, uint64_t off)
{
    const uint8_t *b = p;
    while (n) {
        ssize_t w = off == STREAM ? write(fd, b, n) : pwrite(fd, b, n, (off_t)off);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        if (w == 0)
            return -EIO;
        b += w;
        n -= (size_t)w;
        if (off != STREAM)
            off += (uint64_t)w;
    }
    return 0;
}

static int flush(struct perfdata_writer *w)
{
    int ret;

    if (w->err || !w->nbuf)
        return w->err;
    ret = write_all(w->fd, w->buf, w->nbuf, w->pipe ? STREAM : w->pos);
    if (ret) {
        w->err = ret;
        w->err_off = w->pos;
        return ret;
    }
    w->pos += w->nbuf;
    w->nbuf = 0;
    return 0;
}

static int append(struct perfdata_writer *w, const void *p, size_t n)
{
    if (w->err || !n)           /* nothing to copy (no ids, an empty body: p may be NULL) */
        return w->err;
    if (n > WBUF_SIZE - w->nbuf && flush(w))
        return w->err;
    if (n > WBUF_SIZE) {
        int ret = write_all(w->fd, p, n, w->pipe ? STREAM : w->pos);
        if (ret) {
            w->err = ret;
            w->err_off = w->pos;
            return ret;
        }
        w->pos += n;
        return 0;
    }
    memcpy(w->buf + w->nbuf, p, n);
    w->nbuf += n;
    return 0;
}

static uint64_t offset_now(const struct perfdata_writer *w)
{
    return w->pos + w->nbuf;
}

static int open_any(int fd, const char *path, const struct evlist *evl,
                    const struct perfdata_write_meta *pipe_meta, struct perfdata_writer **out,
                    struct perfdata_error *err)
{
    struct perfdata_writer *w;
    struct perf_file_header zero;
    struct perf_pipe_file_header ph = { PERFDATA_MAGIC, sizeof(ph) };
    int ret;

    *out = NULL;
    w = calloc(1, sizeof(*w));
    if (!w || !(w->buf = malloc(WBUF_SIZE))) {
        free(w);
        close(fd);
        return perfdata_set_error(err, path, -ENOMEM, false, 0, "out of memory");
    }
    snprintf(w->path, sizeof(w->path), "%s", path);
    w->evl = evl;
    w->fd = fd;
    w->pipe = pipe_meta != NULL;
    w->meta = pipe_meta;
    memset(&zero, 0, sizeof(zero));
    ret = w->pipe ? append(w, &ph, sizeof(ph)) : append(w, &zero, sizeof(zero));
    if (!ret)
        ret = flush(w);
    if (ret) {
        perfdata_set_error(err, path, ret, true, 0, "cannot write: %s", strerror(-ret));
        perfdata_writer_abort(w);
        return ret;
    }
    w->data_start = w->pos;
    *out = w;
    return 0;
}

int perfdata_writer_open_fd(int fd, const char *path, const struct evlist *evl,
                            struct perfdata_writer **out, struct perfdata_error *err)
{
    return open_any(fd, path, evl, NULL, out, err);
}

int perfdata_writer_open_pipe(int fd, const char *path, const struct evlist *evl,
                              const struct perfdata_write_meta *meta,
                              struct perfdata_writer **out, struct perfdata_error *err)
{
    static const struct perfdata_write_meta none;
    return open_any(fd, path, evl, meta ? meta : &none, out, err);
}

int perfdata_writer_open(const char *path, const struct evlist *evl,
                         struct perfdata_writer **out, struct perfdata_error *err)
{
    bool created;
    int fd = outfile_create_fd(path, 0600, &created);

    *out = NULL;
    if (fd < 0)
        return perfdata_set_error(err, path, fd, false, 0, "cannot create: %s",
                                  outfile_strerror(fd));
    return perfdata_writer_open_fd(fd, path, evl, out, err);
}

/* The events' ids, then their attr entries pointing at them (8-byte aligned). Returns the
 * attr section's offset. */
static uint64_t append_attrs(struct perfdata_writer *w, uint64_t *id_off)
{
    const struct evlist *evl = w->evl;
    uint64_t attrs;

    if (offset_now(w) % 8) {
        static const uint8_t pad[8];
        append(w, pad, 8 - offset_now(w) % 8);
    }
    for (size_t i = 0; i < evl->nr; i++) {
        id_off[i] = offset_now(w);
        append(w, evl->sel[i].ids, evl->sel[i].nr_ids * sizeof(uint64_t));
    }
    attrs = offset_now(w);
    for (size_t i = 0; i < evl->nr; i++) {
        struct perf_file_attr fa;
        memset(&fa, 0, sizeof(fa));
        fa.attr = evl->sel[i].attr;
        fa.attr.size = sizeof(fa.attr);
        fa.ids.offset = id_off[i];
        fa.ids.size = evl->sel[i].nr_ids * sizeof(uint64_t);
        append(w, &fa, sizeof(fa));
    }
    return attrs;
}

/* All ids of the events, in order, into a new array (what the early attrs described). */
static uint64_t *all_ids(const struct evlist *evl, size_t *n)
{
    uint64_t *v;
    size_t k = 0;

    *n = 0;
    for (size_t i = 0; i < evl->nr; i++)
        *n += evl->sel[i].nr_ids;
    if (!(v = malloc((*n ? *n : 1) * sizeof(uint64_t))))
        return NULL;
    for (size_t i = 0; i < evl->nr; i++)
        for (size_t j = 0; j < evl->sel[i].nr_ids; j++)
            v[k++] = evl->sel[i].ids[j];
    return v;
}

static void header_base(struct perf_file_header *hdr, const struct perfdata_writer *w,
                        uint64_t attrs_off, size_t nev)
{
    memset(hdr, 0, sizeof(*hdr));
    hdr->magic = PERFDATA_MAGIC;
    hdr->size = sizeof(*hdr);
    hdr->attr_size = sizeof(struct perf_file_attr);
    hdr->attrs.offset = attrs_off;
    hdr->attrs.size = nev * sizeof(struct perf_file_attr);
    hdr->data.offset = w->data_start;
}

/* At the first record the events are open and their ids known: write them and a header that
 * says "data to the end of the file", so that a recording killed now is still readable. */
static int begin_pipe(struct perfdata_writer *w);

static int begin(struct perfdata_writer *w)
{
    struct perf_file_header hdr;
    uint64_t *id_off;
    size_t nev = w->evl ? w->evl->nr : 0;

    if (w->pipe)
        return begin_pipe(w);
    w->begun = true;
    if (!nev || w->err || offset_now(w) != sizeof(hdr))
        return w->err;      /* no events yet (tests): the header is written at close only */
    if (!(id_off = calloc(nev, sizeof(uint64_t))) ||
        !(w->attrs_ids = all_ids(w->evl, &w->attrs_nids))) {
        free(id_off);
        return 0;           /* not fatal: the attrs go after the data at close, as before */
    }
    w->attrs_off = append_attrs(w, id_off);
    free(id_off);
    w->attrs_nev = nev;
    if (offset_now(w) % 8) {
        static const uint8_t pad[8];
        append(w, pad, 8 - offset_now(w) % 8);
    }
    w->data_start = offset_now(w);
    header_base(&hdr, w, w->attrs_off, nev);
    if (flush(w))
        return w->err;
    if ((w->err = write_all(w->fd, &hdr, sizeof(hdr), 0)))
        w->err_off = 0;
    return w->err;
}

/* Do the attrs written at the start still describe the events (same events, same ids)? */
static bool early_attrs_current(const struct perfdata_writer *w)
{
    size_t n;
    uint64_t *now;
    bool same;

    if (!w->attrs_off || w->evl->nr != w->attrs_nev)
        return false;
    if (!(now = all_ids(w->evl, &n)))
        return false;
    same = n == w->attrs_nids && !memcmp(now, w->attrs_ids, n * sizeof(uint64_t));
    free(now);
    return same;
}

/* The sample's time, if its event records one (for HEADER_SAMPLE_TIME). */
static void track_time(struct perfdata_writer *w, const struct perf_event_header *h)
{
    const struct evsel *sel = w->evl ? evlist_evsel_for(w->evl, h) : NULL;
    uint64_t st, t;
    size_t idx;

    if (!sel || !((st = sel->attr.sample_type) & PERF_SAMPLE_TIME))
        return;
    idx = !!(st & PERF_SAMPLE_IDENTIFIER) + !!(st & PERF_SAMPLE_IP) + !!(st & PERF_SAMPLE_TID);
    if (sizeof(*h) + (idx + 1) * 8 > h->size)
        return;
    memcpy(&t, (const uint8_t *)(h + 1) + idx * 8, 8);
    if (!w->first_time || t < w->first_time)
        w->first_time = t;
    if (t > w->last_time)
        w->last_time = t;
}

int perfdata_writer_write(struct perfdata_writer *w, const struct perf_event_header *h)
{
    if (h->size < sizeof(*h))
        return -EINVAL;
    if (!w->begun && begin(w))
        return w->err;
    if (h->type == PERF_RECORD_SAMPLE) {
        w->samples++;
        track_time(w, h);
    }
    w->since_round++;
    return append(w, h, h->size);
}

int perfdata_writer_round(struct perfdata_writer *w)
{
    struct perf_event_header h = { .type = PERF_RECORD_FINISHED_ROUND_, .size = sizeof(h) };

    if (!w->since_round)        /* an empty round orders nothing: keep the file small */
        return w->err;
    w->since_round = 0;
    if (append(w, &h, sizeof(h)) || flush(w))
        return w->err;
    /* Each round on disk and in the early header's data size: a recording killed with
     * SIGKILL loses at most the last round, and perf reads what is there. */
    if (w->attrs_off && !w->pipe) {
        uint64_t size = w->pos - w->data_start;
        if ((w->err = write_all(w->fd, &size, sizeof(size),
                                offsetof(struct perf_file_header, data.size))))
            w->err_off = offsetof(struct perf_file_header, data.size);
    }
    return w->err;
}

int perfdata_writer_record_fn(void *arg, const struct evlist *evl,
                              const struct perf_event_header *h, uint64_t time)
{
    struct perfdata_writer *w = arg;
    if (h->type == PERF_RECORD_FINISHED_ROUND_)
        return perfdata_writer_round(w);
    return perfdata_writer_write(w, h);
}

int perfdata_writer_add_build_id(struct perfdata_writer *w, int32_t pid, uint16_t cpumode,
                                 const char *path, const uint8_t *id, size_t len)
{
    struct wbuild_id b = { .pid = pid, .cpumode = cpumode };

    if (!path || !id || len == 0 || len > sizeof(b.id))
        return -EINVAL;
    for (size_t i = 0; i < w->bids.n; i++)
        if (w->bids.v[i].pid == pid && !strcmp(w->bids.v[i].path, path))
            return 0;
    b.len = (uint8_t)len;
    memcpy(b.id, id, len);
    if (!(b.path = strdup(path)))
        return -ENOMEM;
    if (vec_push(&w->bids, b)) {
        free(b.path);
        return -ENOMEM;
    }
    return 0;
}

uint64_t perfdata_writer_samples(const struct perfdata_writer *w) { return w->samples; }
uint64_t perfdata_writer_data_bytes(const struct perfdata_writer *w)
{
    return offset_now(w) - w->data_start;
}

void perfdata_writer_abort(struct perfdata_writer *w)
{
    if (!w)
        return;
    if (w->fd >= 0)
        close(w->fd);
    for (size_t i = 0; i < w->bids.n; i++)
        free(w->bids.v[i].path);
    vec_free(&w->bids);
    free(w->attrs_ids);
    free(w->buf);
    free(w);
}

/* ---- machine facts for the feature sections ---- */

/* Value of the first "key<spaces>: value" line of a /proc file, into out. */
static int proc_field(const char *path, const char *key, char *out, size_t len)
{
    char *buf, *line, *save = NULL;
    size_t klen = strlen(key);
    int found = -ENOENT;

    if (file_read_all(path, &buf, NULL, 4 << 20))
        return -ENOENT;
    for (line = buf; line && *line; line = save) {
        char *nl = strchr(line, '\n');
        save = nl ? nl + 1 : NULL;
        if (nl)
            *nl = '\0';
        if (!strncmp(line, key, klen) && (line[klen] == ' ' || line[klen] == '\t' ||
                                          line[klen] == ':')) {
            char *v = strchr(line + klen, ':');
            if (!v)
                continue;
            v++;
            while (*v == ' ' || *v == '\t')
                v++;
            snprintf(out, len, "%s", v);
            found = 0;
            break;
        }
    }
    free(buf);
    return found;
}

/* x86's "vendor,family,model,stepping" as perf writes HEADER_CPUID. */
static int cpuid_string(char *out, size_t len)
{
    char vendor[64], family[16], model[16], stepping[16];

    if (proc_field("/proc/cpuinfo", "vendor_id", vendor, sizeof(vendor)) ||
        proc_field("/proc/cpuinfo", "cpu family", family, sizeof(family)) ||
        proc_field("/proc/cpuinfo", "model", model, sizeof(model)) ||
        proc_field("/proc/cpuinfo", "stepping", stepping, sizeof(stepping)))
        return -ENOENT;
    snprintf(out, len, "%s,%s,%s,%s", vendor, family, model, stepping);
    return 0;
}

/* ---- features ---- */

struct feat_out {
    unsigned bit;
    struct featbuf body;
};

static void build_event_desc(struct featbuf *b, const struct evlist *evl)
{
    featbuf_u32(b, (uint32_t)evl->nr);
    featbuf_u32(b, sizeof(struct perf_event_attr));
    for (size_t i = 0; i < evl->nr; i++) {
        const struct evsel *s = &evl->sel[i];
        struct perf_event_attr a = s->attr;
        a.size = sizeof(a);
        featbuf_put(b, &a, sizeof(a));
        featbuf_u32(b, (uint32_t)s->nr_ids);
        featbuf_string(b, s->name);
        featbuf_put(b, s->ids, s->nr_ids * sizeof(uint64_t));
    }
}

static void build_build_ids(struct featbuf *b, const struct perfdata_writer *w)
{
    for (size_t i = 0; i < w->bids.n; i++) {
        const struct wbuild_id *e = &w->bids.v[i];
        struct perfdata_build_id r;
        size_t nlen = strlen(e->path) + 1;
        size_t padded = (nlen + PERFDATA_NAME_ALIGN - 1) / PERFDATA_NAME_ALIGN * PERFDATA_NAME_ALIGN;

        if (PERFDATA_BUILD_ID_HDR + padded > UINT16_MAX)
            continue;       /* a path that long cannot be framed; perf would not either */
        memset(&r, 0, sizeof(r));
        r.header.misc = e->cpumode | PERF_RECORD_MISC_BUILD_ID_SIZE;
        r.header.size = (uint16_t)(PERFDATA_BUILD_ID_HDR + padded);
        r.pid = e->pid;
        memcpy(r.build_id, e->id, e->len);
        r.size = e->len;
        featbuf_put(b, &r, PERFDATA_BUILD_ID_HDR);
        featbuf_put(b, e->path, nlen);
        featbuf_put(b, NULL, padded - nlen);
    }
}

/* Builds every feature body this writer emits, in bit order. Returns how many or -ENOMEM. */
static int build_features(struct perfdata_writer *w, const struct perfdata_write_meta *meta,
                          struct feat_out *f, size_t max)
{
    struct perfdata_write_meta none = { 0 };
    struct utsname u;
    char text[512];
    size_t n = 0;
    long conf, onln;

    if (!meta)
        meta = &none;
    if (uname(&u) < 0)
        memset(&u, 0, sizeof(u));
#define NEXT(b) (n < max ? (f[n].bit = (b), memset(&f[n].body, 0, sizeof(f[n].body)), \
                            &f[n++].body) : NULL)
    struct featbuf *b;

    /* Tracepoints' formats, without which perf refuses the file (left out when tracefs cannot
     * be read: the rest of the file is still good for Prospect). */
    if (w->evl && perfdata_has_tracepoints(w->evl) && n < max) {
        f[n].bit = FEAT_TRACING_DATA;
        memset(&f[n].body, 0, sizeof(f[n].body));
        if (perfdata_build_tracing_data(&f[n].body, w->evl) == 0)
            n++;
        else
            featbuf_free(&f[n].body);
    }
    b = NEXT(FEAT_BUILD_ID);
    build_build_ids(b, w);
    b = NEXT(FEAT_HOSTNAME);
    featbuf_string(b, meta->hostname ? meta->hostname : u.nodename);
    b = NEXT(FEAT_OSRELEASE);
    featbuf_string(b, meta->osrelease ? meta->osrelease : u.release);
    b = NEXT(FEAT_VERSION);
    featbuf_string(b, meta->version ? meta->version : "prospect");
    b = NEXT(FEAT_ARCH);
    featbuf_string(b, meta->arch ? meta->arch : u.machine);
    conf = sysconf(_SC_NPROCESSORS_CONF);
    onln = sysconf(_SC_NPROCESSORS_ONLN);
    b = NEXT(FEAT_NRCPUS);
    featbuf_u32(b, conf > 0 ? (uint32_t)conf : 1);
    featbuf_u32(b, onln > 0 ? (uint32_t)onln : 1);
    if (meta->cpudesc || !proc_field("/proc/cpuinfo", "model name", text, sizeof(text))) {
        b = NEXT(FEAT_CPUDESC);
        featbuf_string(b, meta->cpudesc ? meta->cpudesc : text);
    }
    if (!cpuid_string(text, sizeof(text))) {
        b = NEXT(FEAT_CPUID);
        featbuf_string(b, text);
    }
    if (!proc_field("/proc/meminfo", "MemTotal", text, sizeof(text))) {
        b = NEXT(FEAT_TOTAL_MEM);
        featbuf_u64(b, strtoull(text, NULL, 10));
    }
    b = NEXT(FEAT_CMDLINE);
    featbuf_u32(b, (uint32_t)meta->argc);
    for (size_t i = 0; i < meta->argc; i++)
        featbuf_string(b, meta->argv[i]);
    if (w->evl) {
        b = NEXT(FEAT_EVENT_DESC);
        build_event_desc(b, w->evl);
    }
    if (w->samples && w->last_time) {
        b = NEXT(FEAT_SAMPLE_TIME);
        featbuf_u64(b, w->first_time);
        featbuf_u64(b, w->last_time);
    }
#undef NEXT
    for (size_t i = 0; i < n; i++)
        if (f[i].body.err)
            return -ENOMEM;
    return (int)n;
}

/* Pipe mode's start, as perf 6.1 writes it: a HEADER_ATTR record per event (its attr, then
 * its ids), the tracepoints' formats as a HEADER_TRACING_DATA record (its body after the
 * record, 8-byte aligned), each feature as a HEADER_FEATURE record, the end-of-features
 * marker (bit HEADER_LAST_FEATURE), then FINISHED_INIT. */
/* n bytes, then zeros up to the next multiple of 8 (pipe mode's record bodies). */
static void append_padded(struct perfdata_writer *w, const void *p, size_t n)
{
    static const uint8_t pad[8];
    append(w, p, n);
    append(w, pad, (8 - n % 8) % 8);
}

static int begin_pipe(struct perfdata_writer *w)
{
    struct feat_out feats[16];
    const struct evlist *evl = w->evl;
    int nf;

    w->begun = true;
    if (!evl || !evl->nr || w->err)
        return w->err;
    for (size_t i = 0; i < evl->nr; i++) {
        const struct evsel *s = &evl->sel[i];
        struct perf_event_attr a = s->attr;
        size_t size = sizeof(struct perf_event_header) + sizeof(a) + s->nr_ids * 8;
        struct perf_event_header h = { .type = PERF_RECORD_HEADER_ATTR_, .size = (uint16_t)size };
        if (size > UINT16_MAX)
            return w->err = -E2BIG;
        a.size = sizeof(a);
        append(w, &h, sizeof(h));
        append(w, &a, sizeof(a));
        append(w, s->ids, s->nr_ids * 8);
    }
    memset(feats, 0, sizeof(feats));
    nf = build_features(w, w->meta, feats, sizeof(feats) / sizeof(*feats));
    if (nf < 0)
        return w->err = -ENOMEM;
    for (int i = 0; i < nf; i++) {
        const struct featbuf *b = &feats[i].body;
        size_t padded = (b->n + 7) / 8 * 8;
        if (feats[i].bit == FEAT_TRACING_DATA) {
            struct perfdata_tracing_data t = {
                .header = { .type = PERF_RECORD_HEADER_TRACING_DATA_, .size = 16 },
                .size = (uint32_t)padded };
            append_padded(w, &t, sizeof(t));      /* the record: 12 bytes, padded to 16 */
            append_padded(w, b->p, b->n);
        } else if (feats[i].bit != FEAT_BUILD_ID && padded + 16 <= UINT16_MAX) {
            struct perf_event_header h = { .type = PERF_RECORD_HEADER_FEATURE_,
                                           .size = (uint16_t)(16 + padded) };
            uint64_t bit = feats[i].bit;
            append(w, &h, sizeof(h));
            append(w, &bit, 8);
            append_padded(w, b->p, b->n);
        }
    }
    for (size_t i = 0; i < sizeof(feats) / sizeof(*feats); i++)
        featbuf_free(&feats[i].body);
    {
        struct perf_event_header h = { .type = PERF_RECORD_HEADER_FEATURE_, .size = 16 };
        struct perf_event_header fin = { .type = PERF_RECORD_FINISHED_INIT_, .size = 8 };
        uint64_t last = FEAT_LAST_KNOWN;
        append(w, &h, sizeof(h));
        append(w, &last, 8);
        append(w, &fin, sizeof(fin));
    }
    w->data_start = offset_now(w);
    return w->err;
}

int perfdata_writer_close(struct perfdata_writer *w, const struct perfdata_write_meta *meta,
                          struct perfdata_error *err)
{
    struct feat_out feats[16];
    struct perf_file_header hdr;
    struct perf_file_section *table = NULL;
    uint64_t features[PERFDATA_FEAT_BITS / 64] = { 0 };
    uint64_t off, attrs_off, data_end;
    int nf, ret = 0;
    const struct evlist *evl = w->evl;
    size_t nev = evl ? evl->nr : 0;

    memset(feats, 0, sizeof(feats));
    memset(&hdr, 0, sizeof(hdr));
    if (!w->begun)
        begin(w);       /* no record at all: the events are still described up front */
    if (w->pipe) {
        /* Everything was said up front: the stream just ends (build ids are not sent, as
         * perf does not in pipe mode). */
        if (!flush(w) && close(w->fd) < 0 && errno != EINTR)
            w->err = -errno;
        w->fd = -1;
        if (w->err)
            ret = perfdata_set_error(err, w->path, w->err, false, 0, "write failed: %s",
                                     strerror(-w->err));
        goto out;
    }
    data_end = offset_now(w);
    if (w->err) {
        ret = perfdata_set_error(err, w->path, w->err, true, w->err_off, "write failed: %s",
                      strerror(-w->err));
        goto out;
    }
    if (nev == 0) {
        ret = perfdata_set_error(err, w->path, -EINVAL, false, 0, "no events to describe");
        goto out;
    }
    nf = build_features(w, meta, feats, sizeof(feats) / sizeof(*feats));
    if (nf < 0 || !(table = calloc((size_t)nf, sizeof(*table)))) {
        ret = perfdata_set_error(err, w->path, -ENOMEM, false, 0, "out of memory");
        goto out;
    }
    /* Feature table right after the data, bodies after it. */
    off = data_end + (uint64_t)nf * sizeof(*table);
    for (int i = 0; i < nf; i++) {
        table[i].offset = off;
        table[i].size = feats[i].body.n;
        off += feats[i].body.n;
        features[feats[i].bit / 64] |= 1ULL << (feats[i].bit % 64);
    }
    append(w, table, (size_t)nf * sizeof(*table));
    for (int i = 0; i < nf; i++)
        append(w, feats[i].body.p, feats[i].body.n);
    /* The events as written at the start, unless they changed since: then after the rest. */
    if (early_attrs_current(w)) {
        attrs_off = w->attrs_off;
    } else {
        uint64_t *id_off = calloc(nev, sizeof(uint64_t));
        if (!id_off) {
            ret = perfdata_set_error(err, w->path, -ENOMEM, false, 0, "out of memory");
            goto out;
        }
        attrs_off = append_attrs(w, id_off);
        free(id_off);
    }
    header_base(&hdr, w, attrs_off, nev);
    hdr.data.size = data_end - w->data_start;
    memcpy(hdr.features, features, sizeof(features));
    if (flush(w)) {
        ret = perfdata_set_error(err, w->path, w->err, true, w->err_off, "write failed: %s",
                      strerror(-w->err));
        goto out;
    }
    /* Everything the header points at is on disk; only now does the header describe it. */
    if (fdatasync(w->fd) < 0 && errno != EINVAL && errno != EROFS) {
        ret = perfdata_set_error(err, w->path, -errno, false, 0, "fdatasync: %s", strerror(errno));
        goto out;
    }
    ret = write_all(w->fd, &hdr, sizeof(hdr), 0);
    if (ret) {
        perfdata_set_error(err, w->path, ret, true, 0, "cannot write the header: %s", strerror(-ret));
        goto out;
    }
    if (close(w->fd) < 0) {
        w->fd = -1;
        ret = perfdata_set_error(err, w->path, -errno, false, 0, "close: %s", strerror(errno));
        goto out;
    }
    w->fd = -1;
out:
    for (size_t i = 0; i < sizeof(feats) / sizeof(*feats); i++)
        featbuf_free(&feats[i].body);
    free(table);
    perfdata_writer_abort(w);
    return ret;
}
