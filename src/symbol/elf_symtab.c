/* Function symbols from an ELF .symtab or .dynsym section into a symtab builder. */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include "symbol/elf_file.h"
#include "symbol/symtab.h"

/* Untyped symbols in executable sections (hand-written assembly entry points) are code too;
 * perf lists them, so reports agree. */
static bool is_text_label(Elf *e, const GElf_Sym *s)
{
    GElf_Shdr sh;
    Elf_Scn *scn;

    if (s->st_shndx >= SHN_LORESERVE)
        return false;
    scn = elf_getscn(e, s->st_shndx);
    return scn && gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_EXECINSTR);
}

long elf_read_funcs(Elf *e, Elf_Scn *scn, struct symtab_builder *b)
{
    GElf_Shdr sh;
    Elf_Data *d;
    size_t count;
    long added = 0;

    if (!gelf_getshdr(scn, &sh) || !sh.sh_entsize)
        return -ENOEXEC;
    d = elf_getdata(scn, NULL);
    if (!d)
        return -ENOEXEC;
    /* gelf_getsym bounds-checks the index against d_size; sh_link names the string table and
     * elf_strptr checks the offset and the terminating NUL. */
    count = d->d_size / sh.sh_entsize;
    if (count > INT_MAX)
        return -ENOEXEC;
    for (size_t i = 1; i < count; i++) {
        GElf_Sym s;
        const char *name;
        int type, err;

        if (!gelf_getsym(d, (int)i, &s))
            return -ENOEXEC;
        type = GELF_ST_TYPE(s.st_info);
        if (!s.st_name || s.st_shndx == SHN_UNDEF)
            continue;
        if (type == STT_NOTYPE ? !is_text_label(e, &s) : type != STT_FUNC && type != STT_GNU_IFUNC)
            continue;
        name = elf_strptr(e, sh.sh_link, s.st_name);
        if (!name || !*name)
            continue;
        err = symtab_add(b, name, s.st_value, s.st_size, GELF_ST_BIND(s.st_info));
        if (err)
            return err;
        added++;
    }
    return added;
}
