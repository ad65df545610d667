/* SPDX-License-Identifier: MIT */
/* IFUNC symbols (STT_GNU_IFUNC) and the implementation they choose on this machine. */
#ifndef PROSPECT_SYMBOL_IFUNC_H
#define PROSPECT_SYMBOL_IFUNC_H
#include <stdbool.h>
#include <stdint.h>

/* Is a defined symbol at ELF vaddr of `path` (in .symtab or .dynsym) an IFUNC? 1, 0, -errno. */
int elf_symbol_is_ifunc(const char *path, uint64_t vaddr);

/* The ELF vaddr of the implementation that the IFUNC at `vaddr` of the shared library `path`
 * chooses on this machine, answered by Prospect's own dynamic linker (see ifunc.c for when that
 * is the target's answer). 0, or -EPERM (not loadable here: not already loaded and not a
 * root-owned library under /lib, /lib64, /usr/lib or /usr/lib64), -ESTALE (what loads is another file), -ENOENT (the
 * dynamic symbol table has no IFUNC there), -EXDEV (it chose code in another file). */
int ifunc_resolve(const char *path, uint64_t vaddr, uint64_t *impl);
#endif
