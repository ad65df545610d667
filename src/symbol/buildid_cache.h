/* SPDX-License-Identifier: MIT */
/* perf's build-id cache: copies of the files a profile hit, kept by build-id so that the
 * profile still symbolizes after a file was deleted or rebuilt (`perf record` fills it by
 * default, `perf buildid-cache -a FILE` by hand). Layout (perf 4.x to 6.x):
 *   <dir>/<absolute path>/<build-id hex>/elf    the copy
 *   <dir>/.build-id/<2 hex>/<rest of the hex>   symlink to ../../<absolute path>/<build-id hex>
 * where <dir> is $PERF_BUILDID_DIR, else ~/.debug of the user running Prospect. */
#ifndef PROSPECT_SYMBOL_BUILDID_CACHE_H
#define PROSPECT_SYMBOL_BUILDID_CACHE_H
#include <stddef.h>
#include <stdint.h>
#include "symbol/elf_file.h"

/* The cache directory: 0, -ENOENT (no $PERF_BUILDID_DIR and no absolute $HOME), -ENAMETOOLONG. */
int buildid_cache_dir(char *buf, size_t len);

/* Opens the cached copy of `path` (may be NULL: then by build-id only) with this build-id,
 * after checking that the copy's own build-id is that one. Returns 0 with the copy open in
 * *out and its malloc'd path in *used, -ENOENT when there is none, -ENOMEM. */
int buildid_cache_open(const char *path, const uint8_t *bid, size_t bid_len,
                       struct elf_file *out, char **used);

/* Adds a copy of the file at `path` (absolute), whose build-id must be bid, as perf record
 * does: written to a private temporary file renamed into place, directories made without
 * following symlinks (0700), plus the .build-id link. Already cached: 0 without copying.
 * 0, -errno, -ESTALE when the file's build-id is not bid (replaced since it was mapped). */
int buildid_cache_add(const char *path, const uint8_t *bid, size_t bid_len);
#endif
