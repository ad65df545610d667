/* SPDX-License-Identifier: MIT */
/* The copies' exception tables (src/lines/inproc_lsda.c) on a real C++ program
 * (tests/workloads/lines_eh.cc at -O0, the fixture eh-prog): every function with landing pads
 * gets its two LSDAs and the FDE over its original; then its .gcc_except_table damaged (all
 * 0xff, all 0x80, bytes changed at random): each function is taken or refused with a reason,
 * nothing read out of bounds (ASan), the tables as before a refusal; its .eh_frame damaged at
 * random: read in bounds. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <unistd.h>
#include "test.h"
#include "lines/inproc_priv.h"

#define PROG FIXTURE_DIR "/eh-prog"

struct outcome {
    size_t taken, refused;
};

static bool same_mark(struct inproc_cfi_mark a, struct inproc_cfi_mark b)
{
    return a.ins == b.ins && a.fdes == b.fdes && a.lsdas == b.lsdas && a.lrels == b.lrels;
}

/* Relocates each function with an LSDA (no counters) and translates its table. -1: setup. */
static int translate_all(const char *exe, struct outcome *o)
{
    struct inproc_cfi c;
    struct inproc_code code = { 0 };
    struct reloc_code rc = { 0 };
    uint32_t at;
    int e = -1;

    memset(o, 0, sizeof(*o));
    if (elf_program_read(exe, &code.prog) || inproc_read_code(&code, exe) ||
        inproc_cfi_open(&c, exe))
        goto out;
    for (size_t i = 0; i < c.lsda.n; i++) {
        const struct elf_fde *eh = &c.lsda.v[i];
        const uint8_t *b = inproc_code_at(&code, eh->lo, eh->hi - eh->lo);
        struct reloc_mark m = reloc_code_mark(&rc);
        struct inproc_cfi_mark cm;
        const char *why = NULL;
        uint32_t entry;
        char rwhy[200];
        if (!b || reloc_function(&rc, b, eh->hi - eh->lo, eh->lo, NULL, 0, false, &entry, rwhy,
                                 sizeof(rwhy)) ||
            inproc_cfi_add(&c, &rc, m.places, (uint32_t)rc.code.n))
            continue;
        cm = inproc_cfi_mark(&c);
        e = inproc_lsda_add(&c, eh, &rc, m.places, (uint32_t)rc.code.n, &why);
        if (e == -ENOTSUP && why && *why && same_mark(cm, inproc_cfi_mark(&c)))
            o->refused++;
        else if (!e && c.fdes.n == cm.fdes + 1 && c.fdes.v[cm.fdes - 1].lsda >= 0 &&
                 c.fdes.v[cm.fdes].orig == eh->lo && c.lsdas.n > cm.lsdas)
            o->taken++;
        else {
            e = -1;
            goto out;
        }
    }
    e = inproc_cfi_table(&c, &rc, &at) ? -1 : 0;
out:
    reloc_code_release(&rc);
    inproc_cfi_close(&c);
    inproc_code_release(&code);
    return e;
}

TEST(every_function_with_landing_pads_gets_tables_of_its_copy)
{
    struct outcome o;
    CHECK(translate_all(PROG, &o) == 0);
    CHECK_EQ_U64(o.refused, 0);
    CHECK(o.taken >= 6);             /* leaf .. catch_here and main */
}

/* The file offset and size of eh-prog's section `name`. */
static int section_of(const char *path, const char *name, off_t *off, size_t *size)
{
    int fd = open(path, O_RDONLY), found = -1;
    Elf *e;
    Elf_Scn *scn = NULL;
    size_t shstrndx;
    elf_version(EV_CURRENT);
    if (fd < 0 || !(e = elf_begin(fd, ELF_C_READ, NULL))) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    if (!elf_getshdrstrndx(e, &shstrndx))
        while ((scn = elf_nextscn(e, scn))) {
            GElf_Shdr sh;
            const char *n;
            if (gelf_getshdr(scn, &sh) && (n = elf_strptr(e, shstrndx, sh.sh_name)) &&
                !strcmp(n, name)) {
                *off = (off_t)sh.sh_offset;
                *size = sh.sh_size;
                found = 0;
            }
        }
    elf_end(e);
    close(fd);
    return found;
}

/* A copy of eh-prog at path whose section `name` is `fill`, or (fill < 0) changed at random,
 * one byte in 8 (seeded). */
static int damaged(const char *path, const char *name, int fill, uint32_t seed)
{
    char cmd[600];
    off_t off;
    size_t size;
    uint8_t *b;
    int fd, e = -1;
    snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", PROG, path);
    if (system(cmd) || section_of(path, name, &off, &size) || !(b = malloc(size)))
        return -1;
    if ((fd = open(path, O_RDWR)) >= 0 && pread(fd, b, size, off) == (ssize_t)size) {
        for (size_t i = 0; i < size; i++) {
            seed ^= seed << 13, seed ^= seed >> 17, seed ^= seed << 5;   /* xorshift32 */
            if (fill >= 0)
                b[i] = (uint8_t)fill;
            else if (!(seed & 7))
                b[i] = (uint8_t)(seed >> 8);
        }
        e = pwrite(fd, b, size, off) == (ssize_t)size ? 0 : -1;
    }
    if (fd >= 0)
        close(fd);
    free(b);
    return e;
}

TEST(a_damaged_exception_table_is_refused_or_read_in_bounds)
{
    char dir[] = "/tmp/test_inproc_lsda.XXXXXX", path[100];
    struct outcome o;
    size_t refused = 0, taken = 0;
    if (!mkdtemp(dir))
        SKIP("no temporary directory");
    snprintf(path, sizeof(path), "%s/eh-prog", dir);
    CHECK(damaged(path, ".gcc_except_table", 0xff, 1) == 0);          /* no call-site table */
    CHECK(translate_all(path, &o) == 0);
    CHECK_EQ_U64(o.taken, 0);
    CHECK(o.refused >= 6);
    CHECK(damaged(path, ".gcc_except_table", 0x80, 1) == 0);          /* an LPStart of its own */
    CHECK(translate_all(path, &o) == 0);
    CHECK_EQ_U64(o.taken, 0);
    CHECK(o.refused >= 6);
    for (uint32_t seed = 1; seed <= 50; seed++) {
        CHECK(damaged(path, ".gcc_except_table", -1, seed * 2654435761u) == 0);
        CHECK(translate_all(path, &o) == 0);
        refused += o.refused;
        taken += o.taken;
    }
    CHECK(refused > 0);
    CHECK(taken > 0);
    unlink(path);
    rmdir(dir);
}

/* The FDEs' LSDA pointers and the CIEs' personality pointers are read by elf_read_fdes. */
TEST(a_damaged_eh_frame_is_read_in_bounds)
{
    char dir[] = "/tmp/test_inproc_lsda.XXXXXX", path[100];
    struct outcome o;
    if (!mkdtemp(dir))
        SKIP("no temporary directory");
    snprintf(path, sizeof(path), "%s/eh-prog", dir);
    for (uint32_t seed = 1; seed <= 30; seed++) {
        CHECK(damaged(path, ".eh_frame", -1, seed * 2654435761u) == 0);
        CHECK(translate_all(path, &o) == 0);
    }
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    RUN(every_function_with_landing_pads_gets_tables_of_its_copy);
    RUN(a_damaged_exception_table_is_refused_or_read_in_bounds);
    RUN(a_damaged_eh_frame_is_read_in_bounds);
    return 0;
}
