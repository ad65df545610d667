/* SPDX-License-Identifier: MIT */
/* A parsed kallsyms table in binary form, kept beside the cached text copy so that a report
 * loads it with one read instead of parsing 5 MB of text. The file is untrusted: every count,
 * offset and length is checked, and it is tied to the text it was made from (size, mtime,
 * inode) so a stale one is never used. */
#ifndef PROSPECT_SYMBOL_KSYMS_BIN_H
#define PROSPECT_SYMBOL_KSYMS_BIN_H
#include <stddef.h>
#include <stdint.h>

struct ksyms;

/* Identity of the text file a binary form was made from. */
struct ksyms_src {
    uint64_t size, ino, dev;
    int64_t mtime_sec, mtime_nsec;
};

/* The binary form of a table: a malloc'd buffer in *buf. 0 or -ENOMEM, -EFBIG. */
int ksyms_bin_encode(const struct ksyms *ks, const struct ksyms_src *src, char **buf,
                     size_t *len);
/* A table from a binary form made from `src`, used in place: takes ownership of the mapping
 * (map, len) from mmap (unmapped on failure or by ksyms_free). 0, -EINVAL (corrupt or not this format), -ESTALE (made from another
 * text), -ENOMEM. */
int ksyms_bin_decode(void *map, size_t len, const struct ksyms_src *src, struct ksyms **out);
#endif
