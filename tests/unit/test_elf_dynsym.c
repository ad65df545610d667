/* SPDX-License-Identifier: MIT */
/* .dynsym walks (src/symbol/elf_dynsym.c), on the ELF files this test runs from: the test
 * imports elf_version (undefined in its .dynsym), libelf exports it at the offset the dynamic
 * loader resolved it to; a callback's non-zero result stops the walk. */
#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>
#include "symbol/elf_dynsym.h"
#include "test.h"

struct find {
    const char *name;
    GElf_Sym sym;
    unsigned visits;
};

static int find_name(void *arg, const GElf_Sym *sym, const char *name)
{
    struct find *f = arg;
    f->visits++;
    if (strcmp(name, f->name))
        return 0;
    f->sym = *sym;
    return 1;
}

static int stop_at_once(void *arg, const GElf_Sym *sym, const char *name)
{
    (void)sym;
    (void)name;
    ++*(unsigned *)arg;
    return 7;
}

static Elf *open_elf(const char *path, int *fd)
{
    elf_version(EV_CURRENT);
    *fd = open(path, O_RDONLY | O_CLOEXEC);
    return *fd < 0 ? NULL : elf_begin(*fd, ELF_C_READ, NULL);
}

static void close_elf(Elf *e, int fd)
{
    elf_end(e);
    if (fd >= 0)
        close(fd);
}

TEST(import_is_undefined)
{
    int fd;
    Elf *e = open_elf("/proc/self/exe", &fd);
    struct find f = { .name = "elf_version" };
    CHECK(e);
    CHECK_EQ_U64(elf_dynsym_each(e, find_name, &f), 1);
    CHECK(f.sym.st_shndx == SHN_UNDEF);
    close_elf(e, fd);
}

TEST(export_at_its_address)
{
    Dl_info di;
    int fd;
    CHECK(dladdr((void *)elf_version, &di) && di.dli_fname && di.dli_saddr);
    Elf *e = open_elf(di.dli_fname, &fd);
    struct find f = { .name = "elf_version" };
    CHECK(e);
    CHECK_EQ_U64(elf_dynsym_each(e, find_name, &f), 1);
    CHECK(f.sym.st_shndx != SHN_UNDEF);
    CHECK_EQ_U64(f.sym.st_value, (uintptr_t)di.dli_saddr - (uintptr_t)di.dli_fbase);
    close_elf(e, fd);
}

TEST(non_zero_stops)
{
    int fd;
    unsigned n = 0;
    Elf *e = open_elf("/proc/self/exe", &fd);
    struct find f = { .name = "no such symbol" };
    CHECK(e);
    CHECK_EQ_U64(elf_dynsym_each(e, stop_at_once, &n), 7);
    CHECK_EQ_U64(n, 1);
    CHECK_EQ_U64(elf_dynsym_each(e, find_name, &f), 0);
    CHECK(f.visits > 1);
    CHECK_EQ_U64(elf_dynsym_each(NULL, stop_at_once, &n), 0);
    close_elf(e, fd);
}

int main(void)
{
    RUN(import_is_undefined);
    RUN(export_at_its_address);
    RUN(non_zero_stops);
    return 0;
}
