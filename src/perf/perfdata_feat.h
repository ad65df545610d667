/* SPDX-License-Identifier: MIT */
/* Feature sections of perf.data (the metadata after the data section): parsing for the reader,
 * serialization for the writer. Internal to src/perf/perfdata_*. */
#ifndef PROSPECT_PERF_PERFDATA_FEAT_H
#define PROSPECT_PERF_PERFDATA_FEAT_H
#include <stddef.h>
#include <stdint.h>
#include "perf/perfdata.h"

/* Parses every feature section of a mapped file into info. Damaged sections are skipped and
 * counted in info (never fatal); returns 0 or -ENOMEM. `path` names the file in messages. */
int perfdata_info_parse(const uint8_t *file, uint64_t file_size,
                        const struct perf_file_header *hdr, const char *path,
                        struct perfdata_info *info);
/* One feature body at [off, off + size) of file (pipe mode's HEADER_FEATURE records): sets its
 * bit and parses it as perfdata_info_parse does. 0 or -ENOMEM. */
int perfdata_info_parse_one(const uint8_t *file, uint64_t off, uint64_t size, unsigned bit,
                            const char *path, struct perfdata_info *info);
void perfdata_info_release(struct perfdata_info *info);

/* A growable byte buffer for building feature bodies. */
struct featbuf {
    uint8_t *p;
    size_t n, cap;
    int err;          /* sticky -ENOMEM */
};
void featbuf_put(struct featbuf *b, const void *data, size_t len);
void featbuf_u32(struct featbuf *b, uint32_t v);
void featbuf_u64(struct featbuf *b, uint64_t v);
/* A perf header string: u32 length (NUL included, padded to 64), bytes, zero padding. */
void featbuf_string(struct featbuf *b, const char *s);
/* Zero bytes up to the next multiple of `align`. */
void featbuf_pad(struct featbuf *b, size_t align);
void featbuf_free(struct featbuf *b);
#endif
