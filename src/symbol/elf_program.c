/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "symbol/elf_file.h"
#include "symbol/elf_program.h"

static bool is_sanitizer(const char *lib)
{
    static const char *const rt[] = { "libasan.", "libtsan.", "libhwasan.", "liblsan.",
                                      "libubsan.", "libmsan." };
    for (size_t i = 0; i < sizeof(rt) / sizeof(*rt); i++)
        if (!strncmp(lib, rt[i], strlen(rt[i])))
            return true;
    return false;
}

static void read_needed(Elf *e, struct elf_program *p)
{
    GElf_Shdr sh;
    Elf_Scn *scn = elf_find_section(e, NULL, SHT_DYNAMIC, &sh);
    Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
    GElf_Dyn dyn;

    if (!d || !sh.sh_entsize)
        return;
    for (size_t i = 0; i < sh.sh_size / sh.sh_entsize && gelf_getdyn(d, (int)i, &dyn); i++) {
        const char *name;
        if (dyn.d_tag == DT_NULL)
            break;
        if (dyn.d_tag == DT_FLAGS_1 && (dyn.d_un.d_val & DF_1_PIE))
            p->pie = true;
        if (dyn.d_tag != DT_NEEDED || !(name = elf_strptr(e, sh.sh_link, dyn.d_un.d_val)))
            continue;
        p->sanitizer |= is_sanitizer(name);
        p->cxx |= !strncmp(name, "libstdc++.", 10) || !strncmp(name, "libc++.", 7);
    }
}

int elf_program_read(const char *path, struct elf_program *p)
{
    struct elf_file ef;
    GElf_Ehdr eh;
    size_t phnum;
    int e;

    memset(p, 0, sizeof(*p));
    symbol_elf_init();
    if ((e = elf_file_open(path, &ef)))
        return e;
    if (!gelf_getehdr(ef.elf, &eh) || elf_getphdrnum(ef.elf, &phnum)) {
        e = -ENOEXEC;
        goto out;
    }
    p->code = calloc(phnum + 1, sizeof(*p->code));
    if (!p->code) {
        e = -ENOMEM;
        goto out;
    }
    for (size_t i = 0; i < phnum; i++) {
        GElf_Phdr ph;
        if (!gelf_getphdr(ef.elf, (int)i, &ph)) {
            e = -ENOEXEC;
            goto out;
        }
        if (ph.p_type == PT_INTERP)
            p->interp = true;
        if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X) && ph.p_filesz &&
            ph.p_offset <= ef.size && ph.p_filesz <= ef.size - ph.p_offset)
            p->code[p->ncode++] = (struct code_seg){ ph.p_offset, ph.p_filesz, ph.p_vaddr };
    }
    read_needed(ef.elf, p);
    p->executable = eh.e_type == ET_EXEC || (eh.e_type == ET_DYN && p->pie);
out:
    elf_file_close(&ef);
    if (e)
        elf_program_release(p);
    return e;
}

void elf_program_release(struct elf_program *p)
{
    free(p->code);
    memset(p, 0, sizeof(*p));
}
