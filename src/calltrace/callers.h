/* SPDX-License-Identifier: MIT */
/* Who made a traced call: the object (ltrace's "exe->", "libstdc++.so.6->") and, for -v, the
 * function, from the process's /proc/PID/maps read when its thread registered (re-read, a few
 * times, when a caller lies outside every known mapping: a library dlopen'ed later). */
#ifndef PROSPECT_CALLTRACE_CALLERS_H
#define PROSPECT_CALLTRACE_CALLERS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ct_callers;
struct ct_callers *ct_callers_new(bool symbols);
void ct_callers_free(struct ct_callers *cs);
/* A ring (thread) registered by process pid running image `image`: reads its maps, or shares
 * the snapshot of the same pid and image. 0 or -ENOMEM (a process gone is not an error). */
int ct_callers_ring(struct ct_callers *cs, uint32_t ring, uint32_t pid, uint64_t image);
/* Adds an executable mapping to ring's snapshot (a PERF_RECORD_MMAP2 of the uprobe route:
 * mappings seen as they are made, so a process that ended before its maps were read still has
 * its callers named). A ring without a snapshot gets an empty one of pid. 0 or -ENOMEM. */
int ct_callers_add_map(struct ct_callers *cs, uint32_t ring, uint32_t pid, uint64_t start,
                       uint64_t len,
                       uint64_t pgoff, uint32_t maj, uint32_t min, uint64_t ino,
                       const char *path);
/* The caller's object basename ("?" if unknown) and, when symbols were asked for, the
 * function containing addr ("" if unknown). The strings live until the next call. */
void ct_callers_name(struct ct_callers *cs, uint32_t ring, uint64_t addr, const char **obj,
                     const char **sym);
#endif
