/* SPDX-License-Identifier: MIT */
/* An ELF's dynamic symbol table (.dynsym), walked entry by entry through libelf: what a program
 * imports (undefined entries) and what a library exports. */
#ifndef PROSPECT_SYMBOL_ELF_DYNSYM_H
#define PROSPECT_SYMBOL_ELF_DYNSYM_H
#include <gelf.h>

/* Called for each .dynsym entry that has a name; a non-zero return stops the walk. */
typedef int (*elf_dynsym_fn)(void *arg, const GElf_Sym *sym, const char *name);

/* Walks elf's .dynsym (NULL or none: nothing). Returns fn's first non-zero result, else 0. */
int elf_dynsym_each(Elf *elf, elf_dynsym_fn fn, void *arg);
#endif
