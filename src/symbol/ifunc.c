/* SPDX-License-Identifier: MIT */
/* IFUNC symbols (STT_GNU_IFUNC): the symbol is a resolver that the dynamic linker calls once to
 * choose an implementation for this CPU (glibc's memcpy, strlen, cos ...). A probe on the
 * symbol counts the resolver, so regions ask which implementation a process gets.
 *
 * The answer comes from Prospect's own process: it runs on the same machine (same CPU
 * features) and, when it maps the same file (same device and inode), its dynamic linker makes
 * the same choice, so the resolver is called here, where the library is already relocated.
 * Only a library Prospect has loaded anyway (libc, libm) or a root-owned library under the
 * system library directories is loaded for this: loading runs the library's constructors. */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/stat.h>
#include "symbol/elf_file.h"
#include "symbol/ifunc.h"

static bool scn_has_ifunc(Elf_Scn *scn, uint64_t vaddr)
{
    GElf_Shdr sh;
    Elf_Data *d;
    size_t count;

    if (!gelf_getshdr(scn, &sh) || !sh.sh_entsize || !(d = elf_getdata(scn, NULL)))
        return false;
    count = d->d_size / sh.sh_entsize;
    for (size_t i = 1; i < count && i < INT32_MAX; i++) {
        GElf_Sym s;
        if (!gelf_getsym(d, (int)i, &s))
            return false;
        if (s.st_value == vaddr && s.st_shndx != SHN_UNDEF &&
            GELF_ST_TYPE(s.st_info) == STT_GNU_IFUNC)
            return true;
    }
    return false;
}

int elf_symbol_is_ifunc(const char *path, uint64_t vaddr)
{
    struct elf_file ef;
    Elf_Scn *scn = NULL;
    int found = 0, e = elf_file_open(path, &ef);

    if (e)
        return e;
    while (!found && (scn = elf_nextscn(ef.elf, scn))) {
        GElf_Shdr sh;
        if (gelf_getshdr(scn, &sh) && (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM))
            found = scn_has_ifunc(scn, vaddr);
    }
    elf_file_close(&ef);
    return found;
}

/* A library under the system library directories that only root may change. */
static bool system_library(const char *path, const struct stat *st)
{
    static const char *const dirs[] = { "/lib/", "/lib64/", "/usr/lib/", "/usr/lib64/" };
    char real[PATH_MAX];

    if (st->st_uid != 0 || (st->st_mode & (S_IWGRP | S_IWOTH)) || !realpath(path, real))
        return false;
    for (size_t i = 0; i < sizeof(dirs) / sizeof(*dirs); i++)
        if (!strncmp(real, dirs[i], strlen(dirs[i])))
            return true;
    return false;
}

static void *open_same_file(const char *path, const struct stat *st)
{
    void *h = dlopen(path, RTLD_LAZY | RTLD_LOCAL | RTLD_NOLOAD);
    if (h || !system_library(path, st))
        return h;
    return dlopen(path, RTLD_LAZY | RTLD_LOCAL);
}

int ifunc_resolve(const char *path, uint64_t vaddr, uint64_t *impl)
{
    struct stat want, got;
    struct link_map *lm = NULL;
    const ElfW(Sym) *sym = NULL;
    Dl_info info, where;
    uintptr_t resolver, chosen;
    void *h;
    int ret = 0;

    if (stat(path, &want))
        return -errno;
    if (!(h = open_same_file(path, &want)))
        return -EPERM;
    if (dlinfo(h, RTLD_DI_LINKMAP, &lm) || !lm || !lm->l_name || stat(lm->l_name, &got) ||
        got.st_dev != want.st_dev || got.st_ino != want.st_ino) {
        ret = -ESTALE;
        goto out;
    }
    /* The dynamic linker's own symbol table must agree that an IFUNC starts there. */
    resolver = (uintptr_t)lm->l_addr + (uintptr_t)vaddr;
    if (!dladdr1((void *)resolver, &info, (void **)&sym, RTLD_DL_SYMENT) || !sym ||
        sym->st_value != vaddr || ELF64_ST_TYPE(sym->st_info) != STT_GNU_IFUNC ||
        (uintptr_t)info.dli_fbase != (uintptr_t)lm->l_addr) {
        ret = -ENOENT;
        goto out;
    }
    /* x86_64: the dynamic linker calls a resolver with no arguments (dl-irel.h). */
    chosen = ((uintptr_t (*)(void))resolver)();
    if (!dladdr((void *)chosen, &where) || (uintptr_t)where.dli_fbase != (uintptr_t)lm->l_addr) {
        ret = -EXDEV;           /* an implementation in another file */
        goto out;
    }
    *impl = chosen - (uintptr_t)lm->l_addr;
out:
    dlclose(h);
    return ret;
}
