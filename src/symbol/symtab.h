/* SPDX-License-Identifier: MIT */
/* Internal to src/symbol/: one DSO's function symbols, sorted by address in one array, names in
 * one arena. Built once by a builder (ELF .symtab/.dynsym, JIT maps), then read-only except for
 * the lazily interned bracket names of stripped DSOs. */
#ifndef PROSPECT_SYMBOL_SYMTAB_H
#define PROSPECT_SYMBOL_SYMTAB_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <gelf.h>
#include "symbol/dso.h"
#include "util/hashmap.h"
#include "util/vec.h"

/* A sym's name: the display name is that of the PLT slot's target demangled, plus "@plt",
 * made when first shown (demangling every slot of a C++ library at load cost more than the
 * rest of its loading). */
#define SYM_PLT_DEMANGLE UINT32_MAX

struct sym {
    uint64_t start, size;  /* size after the zero-size fixup (end at the next symbol) */
    uint32_t name;         /* arena offset of the display (demangled) name, or SYM_PLT_DEMANGLE */
    uint32_t raw;          /* arena offset of the raw name (== name when not mangled) */
};

struct sym_cand {
    uint64_t start, size;
    uint32_t name, raw;
    uint32_t order;        /* insertion order: perf keeps the earlier of two equal aliases */
    uint8_t bind;          /* STB_LOCAL / STB_GLOBAL / STB_WEAK */
};

struct symtab_builder {
    VEC(struct sym_cand) c;
    /* Name offsets below strtab_len are in strtab (a file's string table, adopted), the
     * others in arena + (offset - strtab_len): the names added one by one. */
    char *strtab;
    size_t strtab_len;
    uint64_t strtab_off;   /* its offset in the file */
    bool adopted;
    char *arena;
    size_t len, cap;
    /* The raw entries of the symbol section read last (elf_read_funcs), kept until
     * symtab_finish for the PLT reader when they are the .dynsym it needs. */
    void *raw;
    size_t raw_len, raw_scn;
    const void *raw_elf;
};

/* Reads a dropped string table again: len bytes into buf. 0 or -errno. */
typedef int (*symtab_reload_fn)(void *arg, char *buf, size_t len);

struct symtab {
    struct sym *syms;      /* the chosen symbol per address, ascending */
    size_t n;
    struct sym *aliases;   /* names dropped by the alias choice, still findable by name */
    size_t naliases;
    /* Names at offsets below strtab_len are in strtab, a file's string table (most of it
     * names never shown); the others in arena + (offset - strtab_len). */
    char *strtab;          /* NULL when dropped (symtab_drop_names) */
    size_t strtab_len;
    uint64_t strtab_off;   /* its offset in the file it was read from, for reload */
    symtab_reload_fn reload;   /* NULL: never dropped */
    void *reload_arg;
    struct hashmap shown;  /* symbol index -> its display name, stable across drops */
    char **copies;         /* the names shown copies from strtab, owned */
    size_t ncopies, cap_copies;
    char *arena;
    char **gaps;           /* n+1 interned "lo->hi" names, allocated on first bracket */
    char **dem;            /* demangled names of syms, made on first use (most are never shown) */
    char **dem_aliases;    /* the same for aliases */
    bool brackets;         /* stripped DSO: name the gaps between symbols */
    uint64_t *parts;       /* its FDE starts, ascending: the gaps split there (bracket_part.c) */
    size_t nparts;
    struct hashmap part_names; /* a part's start -> its interned "lo->hi+0xOFF" */
    struct symres last_part;   /* the part found last (sorted lookups meet it again), and */
    long last_part_idx;        /* its gap's symbol index; valid when last_part.name is set */
};

void symtab_builder_release(struct symtab_builder *b);
/* Adds one function symbol; a mangled name is demangled only when it is first shown or
 * searched. 0 or -ENOMEM / -EOVERFLOW. */
int symtab_add(struct symtab_builder *b, const char *raw, uint64_t start, uint64_t size,
               int bind);
/* Makes a string table (len bytes, malloc'd, now the builder's) the builder's, so that
 * names in it are added by offset (symtab_add_at) rather than copied. Only on an empty
 * builder; len must fit in 32 bits. */
void symtab_builder_adopt(struct symtab_builder *b, char *strtab, size_t len);
/* Adds one function symbol whose (raw) name is the NUL-terminated string at arena offset off.
 * 0 or -ENOMEM / -EOVERFLOW. */
int symtab_add_at(struct symtab_builder *b, uint32_t off, uint64_t start, uint64_t size,
                  int bind);
/* A PLT slot "raw@plt" whose display name is raw demangled, plus "@plt", when first shown.
 * 0 or -ENOMEM / -EOVERFLOW. */
int symtab_add_plt(struct symtab_builder *b, const char *raw_plt, uint64_t start,
                   uint64_t size);
/* Same with the display name given (NULL: the raw name). */
int symtab_add_named(struct symtab_builder *b, const char *raw, const char *display,
                     uint64_t start, uint64_t size, int bind);
/* Sorts, chooses one name per address, fixes zero sizes; empties the builder. 0 or -ENOMEM. */
int symtab_finish(struct symtab_builder *b, struct symtab *out, bool brackets);
void symtab_release(struct symtab *t);

/* A name by offset; one below strtab_len needs the string table loaded (symtab_load_names). */
static inline const char *symtab_str(const struct symtab *t, uint32_t off)
{
    return off < t->strtab_len ? t->strtab + off : t->arena + (off - t->strtab_len);
}
/* Frees the string table of a table that can read it again (reload set): the names already
 * shown (symtab_resolve_at) stay; others are read again when needed. Names returned by
 * symtab_find and symtab_foreach before are invalid after it. */
void symtab_drop_names(struct symtab *t);
/* Makes sure the string table is in memory. 0 or -errno (reading it again failed). */
int symtab_load_names(struct symtab *t);
/* Index of the last symbol starting at or below addr, or -1. */
long symtab_index(const struct symtab *t, uint64_t addr);
/* Fills out for addr given its symtab_index; 0 or -ENOMEM (bracket interning). */
int symtab_resolve_at(struct symtab *t, long idx, uint64_t addr, struct symres *out);
/* Reads e's FDE starts (symbol/elf_fde.h) as the points where the brackets split. 0 or
 * -ENOMEM. */
int symtab_read_parts(struct symtab *t, Elf *e);
/* Narrows out, the bracket for addr in the gap after symbol idx, to the part holding addr when
 * the gap holds two FDE starts or more: a part runs from one FDE start to the next (the
 * first from the gap's start), named "lo->hi+0xOFF", OFF its start less lo's (0 for
 * "(start)"), with start and gap_start/gap_end its range. 0 or -ENOMEM. */
int symtab_bracket_part(struct symtab *t, long idx, uint64_t addr, struct symres *out);
void symtab_release_parts(struct symtab *t);
size_t symtab_find(struct symtab *t, const char *name, struct symbol_match *out, size_t max);
void symtab_foreach(struct symtab *t, void (*fn)(void *arg, const struct symbol_match *m),
                    void *arg);
#endif
