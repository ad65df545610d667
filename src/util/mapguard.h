/* SPDX-License-Identifier: MIT */
/* File mappings that survive their file shrinking under us. Reading a page of a mapping that
 * its (truncated) file no longer backs raises SIGBUS; inside a guarded range the handler maps
 * a page of zeros there instead and marks the range damaged, so the reader (libdw, the perf.data reader) reads
 * zeros and returns, and its caller drops what came of it. Other SIGBUSes go to the handler
 * that was installed before. */
#ifndef PROSPECT_UTIL_MAPGUARD_H
#define PROSPECT_UTIL_MAPGUARD_H
#include <stdbool.h>
#include <stddef.h>

/* Guards [addr, addr + len) (page-aligned addr): a slot >= 0, -ENOSPC when all slots are in
 * use, or -errno when the handler cannot be installed. */
int mapguard_add(const void *addr, size_t len);
/* Was a page of the slot's range replaced by zeros? */
bool mapguard_damaged(int slot);
/* Before the range is unmapped. */
void mapguard_remove(int slot);
#endif
