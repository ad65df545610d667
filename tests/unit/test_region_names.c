/* SPDX-License-Identifier: MIT */
/* Region names: gcc clone suffixes, and IFUNC symbols in this machine's libc. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <link.h>
#include <stdlib.h>
#include <unistd.h>
#include "symbol/ifunc.h"
#include "test.h"
#include "probe/region_names.h"

static const char *unclone(const char *name, bool *was)
{
    static char buf[256];
    *was = region_name_unclone(name, buf, sizeof(buf));
    return buf;
}

TEST(clone_suffixes)
{
    bool c;
    CHECK_STR(unclone("busy.isra.0", &c), "busy");
    CHECK(c);
    CHECK_STR(unclone("f.constprop.0.isra.1", &c), "f");
    CHECK(c);
    CHECK_STR(unclone("g.part.12", &c), "g");
    CHECK_STR(unclone("h.cold", &c), "h");
    CHECK_STR(unclone("k.lto_priv.0", &c), "k");
    CHECK_STR(unclone("f(int) [clone .isra.0] [clone .cold]", &c), "f(int)");
    CHECK(c);
    /* Not clone suffixes: kept whole. */
    CHECK_STR(unclone("busy", &c), "busy");
    CHECK(!c);
    CHECK_STR(unclone("name.with.dots", &c), "name.with.dots");
    CHECK(!c);
    CHECK_STR(unclone(".isra.0", &c), ".isra.0");
    CHECK(!c);
    CHECK_STR(unclone("x.isra", &c), "x");
    CHECK_STR(unclone("ns::f(double)", &c), "ns::f(double)");
    CHECK(!c);
}

/* The st_value of a defined dynamic symbol `name` of type `type` in `path`, or 0. */
static uint64_t dynsym_value(const char *path, const char *name, int type)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    Elf_Scn *scn = NULL;
    uint64_t v = 0;
    Elf *e;

    elf_version(EV_CURRENT);
    if (fd < 0)
        return 0;
    e = elf_begin(fd, ELF_C_READ, NULL);
    while (e && !v && (scn = elf_nextscn(e, scn))) {
        GElf_Shdr sh;
        Elf_Data *d = elf_getdata(scn, NULL);
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !d || !sh.sh_entsize)
            continue;
        for (size_t i = 1; i < d->d_size / sh.sh_entsize; i++) {
            GElf_Sym sym;
            const char *n;
            if (gelf_getsym(d, (int)i, &sym) && sym.st_shndx != SHN_UNDEF &&
                GELF_ST_TYPE(sym.st_info) == type &&
                (n = elf_strptr(e, sh.sh_link, sym.st_name)) && !strcmp(n, name)) {
                v = sym.st_value;
                break;
            }
        }
    }
    if (e)
        elf_end(e);
    close(fd);
    return v;
}

/* libc's strlen is an IFUNC on x86_64: ifunc_resolve must give the address the dynamic linker
 * gives (dlsym on the library handle returns the chosen implementation). */
TEST(libc_strlen_ifunc)
{
    void *h = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD), *chosen;
    struct link_map *lm = NULL;
    uint64_t vaddr, plain, impl = 0;

    if (!h || dlinfo(h, RTLD_DI_LINKMAP, &lm) || !lm)
        SKIP("libc.so.6 is not loaded by name here");
    vaddr = dynsym_value(lm->l_name, "strlen", STT_GNU_IFUNC);
    plain = dynsym_value(lm->l_name, "malloc", STT_FUNC);
    chosen = dlsym(h, "strlen");
    if (!vaddr || !plain || !chosen) {
        dlclose(h);
        SKIP("this libc's strlen is not an IFUNC (or malloc not a plain function)");
    }
    CHECK(elf_symbol_is_ifunc(lm->l_name, vaddr) == 1);
    CHECK(elf_symbol_is_ifunc(lm->l_name, plain) == 0);
    CHECK(ifunc_resolve(lm->l_name, vaddr, &impl) == 0);
    CHECK_EQ_U64(impl + lm->l_addr, (uintptr_t)chosen);
    CHECK(impl != vaddr);
    CHECK(ifunc_resolve(lm->l_name, plain, &impl) == -ENOENT);
    dlclose(h);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    RUN(clone_suffixes);
    RUN(libc_strlen_ifunc);
    return 0;
}
