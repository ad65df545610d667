/* SPDX-License-Identifier: MIT */
/* The allocators `prospect replay --allocator` knows: glibc (no preload) and Debian's
 * libjemalloc2, libtcmalloc-minimal4 and libmimalloc2.0, preloaded; NAME=PATH adds another. */
#ifndef PROSPECT_REPLAY_ALLOCATOR_H
#define PROSPECT_REPLAY_ALLOCATOR_H
#include <stdbool.h>
#include <stddef.h>

struct replay_alloc {
    char name[32];
    char lib[256];              /* "" for glibc: nothing preloaded */
};

/* The default list, for --help and when --allocator is not given. */
extern const char replay_alloc_default[];
/* Parses one entry: a known name, or NAME=PATH (an absolute path). 0 or -EINVAL. */
int replay_alloc_parse(const char *s, struct replay_alloc *a);
/* Whether the library is there to preload (glibc always is). */
bool replay_alloc_installed(const struct replay_alloc *a);
/* The Debian package that provides a known allocator ("" for others). */
const char *replay_alloc_package(const struct replay_alloc *a);
#endif
