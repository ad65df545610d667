/* SPDX-License-Identifier: MIT */
/* .dynsym walks (see elf_dynsym.h). */
#include "symbol/elf_dynsym.h"

#include <stddef.h>

int elf_dynsym_each(Elf *elf, elf_dynsym_fn fn, void *arg)
{
    Elf_Scn *scn = NULL;
    while (elf && (scn = elf_nextscn(elf, scn))) {
        GElf_Shdr sh;
        Elf_Data *d;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !sh.sh_entsize ||
            !(d = elf_getdata(scn, NULL)))
            continue;
        for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
            GElf_Sym s;
            const char *name;
            int r;
            if (gelf_getsym(d, (int)i, &s) && s.st_name &&
                (name = elf_strptr(elf, sh.sh_link, s.st_name)) && (r = fn(arg, &s, name)))
                return r;
        }
    }
    return 0;
}
