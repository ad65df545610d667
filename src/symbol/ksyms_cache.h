/* SPDX-License-Identifier: MIT */
/* Copies of /proc/kallsyms kept by kernel build-id, as perf keeps them in its build-id cache
 * (~/.debug/[kernel.kallsyms]/<build-id>/kallsyms). A copy taken when a profile was recorded
 * describes the kernel as it was then (modules, KASLR), and reading a file is much cheaper
 * than making the kernel format /proc/kallsyms again (~40 ms here). */
#ifndef PROSPECT_SYMBOL_KSYMS_CACHE_H
#define PROSPECT_SYMBOL_KSYMS_CACHE_H
#include <stddef.h>
#include <stdint.h>

struct ksyms;

/* Path of a cached copy: which 0 is Prospect's ($XDG_CACHE_HOME or ~/.cache/prospect/kallsyms/
 * <build-id>), which 1 perf's (~/.debug/[kernel.kallsyms]/<build-id>/kallsyms). 0, or
 * -ENOENT when there is no home directory, -ENAMETOOLONG. */
int ksyms_cache_path(int which, const uint8_t *bid, size_t bid_len, char *buf, size_t len);

/* Loads the first cached copy for this kernel build-id whose _text is at `text` (the kernel's
 * address when the profile was recorded), or with text 0 the first copy at all (the caller
 * then checks _text itself). Returns 0 and the path used, or -ENOENT when no copy fits (the
 * caller reads /proc/kallsyms). */
int ksyms_cache_load(const uint8_t *bid, size_t bid_len, uint64_t text, struct ksyms **out,
                     char *used, size_t used_len);

/* Saves the kallsyms text into Prospect's cache for this build-id (atomically: a temporary
 * file renamed into place; mode 0600). 0 or -errno. */
int ksyms_cache_save(const uint8_t *bid, size_t bid_len, const char *text, size_t text_len);
#endif
