/* SPDX-License-Identifier: MIT */
/* A program's code as its ELF file holds it: where an address is in the file, a function's
 * bytes, and shared libraries found by the names users write (probes, annotate, lines, trace). */
#ifndef PROSPECT_SYMBOL_ELF_CODE_H
#define PROSPECT_SYMBOL_ELF_CODE_H
#include <stddef.h>
#include <stdint.h>

#define ELF_CODE_MAX (1u << 20)   /* longer functions are not read (nor decoded) */

/* ELF virtual address -> file offset through the PT_LOAD segment containing it. 0, -errno of
 * the open, -ENOEXEC (not ELF) or -ENOENT (in no segment's file bytes). */
int elf_vaddr_to_offset(const char *path, uint64_t vaddr, uint64_t *offset);
/* `size` bytes (at most ELF_CODE_MAX) of `path` at ELF address `vaddr`: malloc'd, or NULL. */
uint8_t *elf_read_code(const char *path, uint64_t vaddr, uint64_t size);
/* Finds a shared library by name the way users write it ("libc.so.6", "libc", "m"), in
 * LD_LIBRARY_PATH, the program's directory and the standard library directories. Writes a
 * path; 0 or -ENOENT. */
int elf_find_library(const char *name, const char *exe, char *out, size_t outlen);
/* Calls fn with the name of every defined function in path's symbol table (.symtab, else
 * .dynsym): one read of the table, no DWARF, no demangling (shell completion). 0, -errno of
 * the open, or -ENOEXEC. */
int elf_function_names(const char *path, void (*fn)(void *arg, const char *name), void *arg);
#endif
