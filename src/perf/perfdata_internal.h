/* SPDX-License-Identifier: MIT */
/* The perf.data reader's state, shared by its files (perfdata_read.c: header, attrs, walk;
 * perfdata_map.c: the mapped file; perfdata_pipe.c: pipe mode; perfdata_zstd.c: compressed
 * records). Internal to src/perf/perfdata_*. */
#ifndef PROSPECT_PERF_PERFDATA_INTERNAL_H
#define PROSPECT_PERF_PERFDATA_INTERNAL_H
#include "perf/ordered.h"
#include "perf/perfdata.h"

#define MAX_RECORD 65536        /* header.size is a u16 */

struct perfdata_zstd;

struct perfdata {
    char path[512];
    const uint8_t *map;
    uint64_t size;
    bool own_map;               /* map is ours: the file itself mapped (file_mapped), or
                                   anonymous memory filled from the file at fd */
    bool file_mapped;           /* map is the file, guarded (util/mapguard.h) in slot guard */
    int guard;
    bool own_buf;               /* map is malloc'd (stdin): freed at close */
    int fd;                     /* the mapped file (re-checked when it shrinks), else -1 */
    struct perf_file_header hdr;
    bool pipe;                  /* pipe mode: attrs and features came as records */
    struct evlist evl;
    struct perfdata_info info;
    struct perfdata_stats stats;
    uint64_t data_off, data_end;
    bool time_ordered;          /* every event has TIME and sample_id_all */
    uint64_t *scratch;          /* aligned copy of a record that sits misaligned in the file */
    uint64_t released;          /* file pages below this were given back (madvise) */
    uint64_t populated;         /* the file is read in up to here ahead of the walk */
    uint64_t shrunk_to;         /* the file's size when it was found shrunk (0: it did not) */
    uint64_t data_end_was;      /* data_end before it was cut to shrunk_to */
    struct perfdata_zstd *zstd; /* decompression state, created at the first COMPRESSED */
    struct perfdata *next;      /* the next of several inputs read as one (perfdata_many.c) */
};

/* perfdata_map.c. The file is mapped and its ranges populated before they are read (header,
 * attrs and features at open, windows ahead of the walk); a populate that fails means the file
 * shrank, and a page lost after that reads as zeros under the SIGBUS guard (damaged). Without a
 * guard slot the bytes live in anonymous memory of its size, read in (pread) range by range.
 * Either way a shrunk file is reported, never a SIGBUS. */
int perfdata_map_file(struct perfdata *pd, int fd, uint64_t size, struct perfdata_error *err);
/* Reads [off, off + len) of the file into map: 0, or -EFAULT when the file shrank under it. */
int perfdata_pin(struct perfdata *pd, uint64_t off, uint64_t len);
/* Fills err with "the file shrank to N bytes while being read" at off; returns -EIO. */
int perfdata_shrank(struct perfdata *pd, struct perfdata_error *err, uint64_t off);
/* Pins the next window of the walk at off. When the file shrank, data_end is cut to its new
 * size (shrunk_to says so) and what is left is pinned. 0, or -EFAULT if even that fails. */
int perfdata_pin_ahead(struct perfdata *pd, uint64_t off);
/* Gives back the pages behind a finished round; queued records there are copied first. */
void perfdata_release_behind(struct perfdata *pd, struct ordered_queue *q, uint64_t *prev_round,
                             uint64_t round_end);
void perfdata_unmap(struct perfdata *pd);
/* Did a page of the mapped file vanish under the walk (read as zeros)? Then shrunk_to is set
 * as if perfdata_pin_ahead had found it. */
bool perfdata_map_damaged(struct perfdata *pd);

/* perfdata_read.c: an attr of asz bytes at e (file offset off) into *attr, refusing fields of
 * a newer perf that are in use. 0 or -EOPNOTSUPP with err filled. */
int perfdata_attr_copy(struct perfdata *pd, size_t idx, const uint8_t *e, uint32_t asz,
                       uint64_t off, struct perf_event_attr *attr, struct perfdata_error *err);
/* perfdata_read.c: the attrs of one event into the evlist (file or HEADER_ATTR record). */
int perfdata_add_event(struct perfdata *pd, size_t idx, const struct perf_event_attr *attr,
                       const uint64_t *ids, size_t nr_ids, uint64_t off,
                       struct perfdata_error *err);

/* perfdata_many.c: adds the stats of a later input's walk into the first's (nr events each). */
void perfdata_stats_add(struct perfdata_stats *to, const struct perfdata_stats *from, size_t nr);

/* perfdata_pipe.c: reads the records before the first kernel record of a pipe-mode file
 * (HEADER_ATTR, HEADER_FEATURE, ...) into the evlist and info. */
int perfdata_pipe_open(struct perfdata *pd, struct perfdata_error *err);

/* perfdata_zstd.c: decompresses one PERF_RECORD_COMPRESSED record: *out holds the bytes of
 * a record cut at the end of the previous one, then this one's output (valid until the next
 * call). 0, -EINVAL (damaged: why says how; the stream restarts), or -ENOMEM. */
int perfdata_zstd_decompress(struct perfdata *pd, const struct perf_event_header *h,
                             const uint8_t **out, size_t *len, char *why, size_t whylen);
/* The walker consumed all but the last n bytes (a cut record): kept for the next call. */
void perfdata_zstd_keep(struct perfdata *pd, size_t n);
/* Bytes kept at the end of the walk: the stream ended inside a record. */
size_t perfdata_zstd_kept(const struct perfdata *pd);
void perfdata_zstd_free(struct perfdata_zstd *z);
#endif
