/* SPDX-License-Identifier: MIT */
/* libFuzzer target for the symbol readers: inputs starting with "\177ELF" go through the ELF
 * path (validation, build-id, debuglink, segments, .symtab/.dynsym, PLT, resolution, search)
 * and the DWARF paths (line tables: file:line -> address; inlined instances, through libdw),
 * anything else through the kallsyms parser. Run with tests/fuzz/fuzz-symbols.sh. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "symbol/dwarf_inline.h"
#include "symbol/dwarf_lines.h"
#include "symbol/elf_file.h"
#include "symbol/ksyms.h"
#include "symbol/symtab.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void exercise_table(struct symtab *t)
{
    struct symres r;
    struct symbol_match m[4];
    uint64_t base = t->n ? t->syms[0].start : 0;

    for (uint64_t a = 0; a < 64; a++) {
        uint64_t addr = base + a * 37;
        symtab_resolve_at(t, symtab_index(t, addr), addr, &r);
    }
    symtab_find(t, "main", m, 4);
}

static void fuzz_elf(const uint8_t *data, size_t size)
{
    void *buf = malloc(size);
    struct elf_file ef;
    uint8_t bid[BUILD_ID_MAX];
    size_t bid_len, nsegs;
    char link[256];
    uint32_t crc;
    struct load_seg *segs;

    if (!buf)
        return;
    memcpy(buf, data, size);   /* libelf may convert the image in place */
    if (elf_file_open_mem(buf, size, &ef)) {
        free(buf);
        return;
    }
    elf_read_build_id(ef.elf, bid, sizeof(bid), &bid_len);
    elf_read_debuglink(ef.elf, link, sizeof(link), &crc);
    if (!elf_read_loads(ef.elf, &segs, &nsegs))
        free(segs);
    for (int dyn = 0; dyn < 2; dyn++) {
        struct symtab_builder b = {0};
        struct symtab t;
        GElf_Shdr sh;
        Elf_Scn *scn = elf_find_section(ef.elf, NULL, dyn ? SHT_DYNSYM : SHT_SYMTAB, &sh);
        if (!scn || elf_read_funcs(&ef, scn, &b) < 0 || elf_read_plt(&ef, &b) < 0 ||
            symtab_finish(&b, &t, dyn)) {
            symtab_builder_release(&b);
            continue;
        }
        exercise_table(&t);
        symtab_release(&t);
    }
    elf_file_close(&ef);
    free(buf);
}

/* The DWARF readers take a path: the input goes to a memfd named through /proc/self/fd. */
static void fuzz_dwarf(const uint8_t *data, size_t size)
{
    static int fd = -1;
    static const char *const files[] = { "dwarf_seed.c", "sym_prog.c", "sym_hot.c", "sym_cxx.cc" };
    static const char *const funcs[] = { "leaf", "work", "main", "ns::Widget::get" };
    char path[64], err[256];
    struct inline_site *sites;
    uint64_t addr;

    if (fd < 0 && (fd = memfd_create("fuzz-dwarf", 0)) < 0)
        return;
    if (ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size)
        return;
    snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
    for (size_t f = 0; f < sizeof(files) / sizeof(*files); f++)
        for (unsigned line = 1; line < 40; line += 3)
            dwarf_line_addr(path, files[f], line, &addr, err, sizeof(err));
    for (size_t f = 0; f < sizeof(funcs) / sizeof(*funcs); f++) {
        long n = dwarf_inline_sites(path, funcs[f], &sites);
        if (n > 0)
            inline_sites_free(sites, (size_t)n);
    }
}

static void fuzz_kallsyms(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    struct ksyms *ks;
    struct ksym_res r;

    if (!text)
        return;
    memcpy(text, data, size);
    if (ksyms_parse(text, size, &ks))
        return;
    for (uint64_t a = 0; a < 16; a++)
        ksyms_resolve(ks, 0xffffffff81000000ULL + a * 0x800, &r);
    ksyms_lookup(ks, "schedule");
    ksyms_free(ks);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size >= 4 && !memcmp(data, "\177ELF", 4)) {
        fuzz_elf(data, size);
        fuzz_dwarf(data, size);
    }
    else
        fuzz_kallsyms(data, size);
    return 0;
}
