/* SPDX-License-Identifier: MIT */
/* Internal to src/symbol/: opening untrusted ELF files with libelf, and small readers for the
 * pieces the symbol code needs (build-id note, PT_LOAD segments, named sections, debuglink). */
#ifndef PROSPECT_SYMBOL_ELF_FILE_H
#define PROSPECT_SYMBOL_ELF_FILE_H
#include <gelf.h>
#include <stddef.h>
#include <stdint.h>

struct elf_file {
    int fd;          /* -1 for in-memory images */
    Elf *elf;
    uint64_t size;   /* bytes in the file/image: the bound for every offset */
};

/* Opens and validates headers, program headers and section extents against the file size.
 * Returns 0, -errno if the file cannot be opened, or -ENOEXEC if it is not a sane ELF file. */
int elf_file_open(const char *path, struct elf_file *ef);
/* Same for an image in memory (the caller keeps buf alive until elf_file_close). */
int elf_file_open_mem(void *buf, size_t len, struct elf_file *ef);
void elf_file_close(struct elf_file *ef);

/* NT_GNU_BUILD_ID from the note sections (or PT_NOTE segments). 0 or -ENOENT. */
int elf_read_build_id(Elf *e, uint8_t *out, size_t cap, size_t *len);

/* The first section called `name` (or of type `type` when name is NULL), or NULL. */
Elf_Scn *elf_find_section(Elf *e, const char *name, GElf_Word type, GElf_Shdr *sh);

/* .gnu_debuglink: the debug file's base name and CRC32. 0, -ENOENT, or -ENOEXEC if malformed. */
int elf_read_debuglink(Elf *e, char *name, size_t cap, uint32_t *crc);

struct load_seg {
    uint64_t off, filesz, memsz, vaddr;
};
/* PT_LOAD segments, malloc'd. 0, -ENOMEM or -ENOEXEC. */
int elf_read_loads(Elf *e, struct load_seg **segs, size_t *n);

struct symtab_builder;
/* Adds the function symbols (STT_FUNC, STT_GNU_IFUNC, and STT_NOTYPE labels in executable
 * sections; defined and named) of a SHT_SYMTAB or SHT_DYNSYM section of ef to an empty
 * builder. In a 64-bit little-endian file the section's string table becomes the builder's
 * arena (names are not copied). Returns the number added, or -ENOEXEC / -ENOMEM. */
long elf_read_funcs(const struct elf_file *ef, Elf_Scn *scn, struct symtab_builder *b);

/* Synthesizes "name@plt" symbols for the x86 PLT slots, one per .rela.plt entry in order, as
 * perf does (an entry without a symbol, e.g. IRELATIVE, gives "@plt"). Returns the number added
 * (0 when there is no PLT or the machine is not x86), or -ENOMEM. When elf_read_funcs just
 * read ef's .dynsym into b, its entries and string table are used again rather than read. */
long elf_read_plt(const struct elf_file *ef, struct symtab_builder *b);

/* A section's bytes in a malloc'd buffer (len + pad bytes): one pread from the file (libelf's
 * ELF_C_READ would keep a copy of its own until elf_end), or a copy from an in-memory image.
 * 0, -ENOEXEC (short read: truncated under us) or -ENOMEM. */
int elf_section_bytes(const struct elf_file *ef, Elf_Scn *scn, const GElf_Shdr *sh, size_t pad,
                      char **out);

/* Calls elf_version() once. */
void symbol_elf_init(void);
#endif
