/* SPDX-License-Identifier: MIT */
/* Source lines -> code addresses from the DWARF line table (libdw), for `file:line` regions. */
#ifndef PROSPECT_SYMBOL_DWARF_LINES_H
#define PROSPECT_SYMBOL_DWARF_LINES_H
#include <stddef.h>
#include <stdint.h>

/* The address where `file`:`line` begins: the lowest address of a line-table row for that
 * line that is a statement start (is_stmt). `file` matches a source path exactly or as its
 * trailing path components ("bench.c" matches "/src/bench.c").
 * Returns 0, or:
 *   -ENODATA  the ELF has no DWARF line information (err says to rebuild with -g)
 *   -ENOENT   no compilation unit has that source file
 *   -ERANGE   no statement starts at that line (err lists the nearest lines that have one)
 *   -errno    the file cannot be read
 * err gets a one-line reason on failure. */
int dwarf_line_addr(const char *elf_path, const char *file, unsigned line, uint64_t *addr,
                    char *err, size_t errlen);
#endif
