/* SPDX-License-Identifier: MIT */
/* Internal to src/symbol/: finding separate debug info (Debian's dbgsym layout, objcopy
 * --only-keep-debug + --add-gnu-debuglink). */
#ifndef PROSPECT_SYMBOL_DEBUGINFO_H
#define PROSPECT_SYMBOL_DEBUGINFO_H
#include <stddef.h>
#include <stdint.h>
#include "symbol/elf_file.h"

/* Looks, in order, for <root>/.build-id/xx/rest.debug, then for the .gnu_debuglink name in the
 * file's directory, its .debug/ subdirectory and <root>/<directory>. A candidate is accepted
 * only if its build-id equals the file's (or, without build-ids, its CRC32 matches the
 * debuglink). On success opens it into *out and returns its malloc'd path through *out_path.
 * 0, -ENOENT, -ENOMEM. */
int debuginfo_find(const char *root, const char *path, Elf *main, const uint8_t *build_id,
                   size_t build_id_len, struct elf_file *out, char **out_path);
#endif
