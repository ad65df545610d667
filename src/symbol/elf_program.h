/* SPDX-License-Identifier: MIT */
/* What a program's ELF headers say about how it starts and where its code is: enough to decide
 * whether Prospect may preload its entry hook into it (src/probe/jump_entry.c). */
#ifndef PROSPECT_SYMBOL_ELF_PROGRAM_H
#define PROSPECT_SYMBOL_ELF_PROGRAM_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct code_seg {
    uint64_t off, size, vaddr;   /* an executable PT_LOAD segment's file bytes */
};

struct elf_program {
    bool executable;      /* ET_EXEC, or ET_DYN marked DF_1_PIE: a program, not a library (libc.so.6
                           * has PT_INTERP too) */
    bool pie;
    bool interp;          /* PT_INTERP: started by the dynamic loader, so LD_PRELOAD applies */
    bool sanitizer;       /* needs a sanitizer runtime (libasan, ...), which must load first */
    bool cxx;             /* needs a C++ runtime (libstdc++, libc++): exceptions may unwind */
    struct code_seg *code;
    size_t ncode;
};

/* 0, -errno if the file cannot be opened, -ENOEXEC if it is not a sane ELF file, -ENOMEM. */
int elf_program_read(const char *path, struct elf_program *p);
void elf_program_release(struct elf_program *p);
#endif
