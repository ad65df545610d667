/* SPDX-License-Identifier: MIT */
/* PLT stubs have no symbols of their own; naming each slot after its relocation's target
 * ("malloc@plt") is what perf and objdump show, so hits in stubs do not land in _init. */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "symbol/elf_file.h"
#include "symbol/symtab.h"

#define PLT_ENTRY 16   /* x86 and x86-64: 16-byte header (lazy .plt only), 16-byte slots */

static int add_plt_sym(struct symtab_builder *b, const char *name, uint64_t addr)
{
    char raw[512], disp[1024];
    size_t len = strlen(name);
    char *dem;

    if (len + 4 < sizeof(raw)) {
        memcpy(raw, name, len);
        memcpy(raw + len, "@plt", 5);
        /* A C++ target is demangled when the slot is first shown (symtab.h). */
        if (name[0] == '_' && (name[1] == 'Z' || name[1] == 'R'))
            return symtab_add_plt(b, raw, addr, PLT_ENTRY);
        return symtab_add_named(b, raw, NULL, addr, PLT_ENTRY, STB_GLOBAL);
    }
    dem = symbol_demangle(name);
    snprintf(raw, sizeof(raw), "%s@plt", name);
    snprintf(disp, sizeof(disp), "%s@plt", dem ? dem : name);
    free(dem);
    return symtab_add_named(b, raw, disp, addr, PLT_ENTRY, STB_GLOBAL);
}

struct plt {
    Elf_Scn *rel, *dyn;
    GElf_Shdr rel_sh, plt_sh, dyn_sh;
    uint64_t header;
    bool rela;
};

/* The relocation section, the slots and the dynamic symbols they name. 0 when there is no
 * PLT to name. */
static int find_plt(Elf *e, struct plt *p)
{
    GElf_Ehdr eh;
    Elf_Scn *plt;

    if (!gelf_getehdr(e, &eh) || (eh.e_machine != EM_X86_64 && eh.e_machine != EM_386))
        return 0;
    p->header = PLT_ENTRY;
    p->rela = true;
    p->rel = elf_find_section(e, ".rela.plt", 0, &p->rel_sh);
    if (!p->rel) {
        p->rel = elf_find_section(e, ".rel.plt", 0, &p->rel_sh);
        p->rela = false;
    }
    /* With IBT the slots called by code are in .plt.sec, which has no header. */
    plt = elf_find_section(e, ".plt.sec", 0, &p->plt_sh);
    if (plt)
        p->header = 0;
    else
        plt = elf_find_section(e, ".plt", 0, &p->plt_sh);
    if (!p->rel || !plt || p->plt_sh.sh_type == SHT_NOBITS || !p->rel_sh.sh_entsize ||
        p->rel_sh.sh_type != (p->rela ? SHT_RELA : SHT_REL))
        return 0;
    p->dyn = elf_getscn(e, p->rel_sh.sh_link);
    if (!p->dyn || !gelf_getshdr(p->dyn, &p->dyn_sh) || p->dyn_sh.sh_type != SHT_DYNSYM)
        return 0;
    return 1;
}

/* Any ELF, through libelf's conversions. */
static long read_plt_gelf(Elf *e, const struct plt *p, struct symtab_builder *b)
{
    Elf_Data *rd = elf_getdata(p->rel, NULL), *dd = elf_getdata(p->dyn, NULL);
    size_t count;
    long added = 0;

    if (!rd || !dd)
        return 0;
    count = rd->d_size / p->rel_sh.sh_entsize;
    if (count > INT_MAX)
        return 0;
    for (size_t i = 0; i < count; i++) {
        uint64_t info, off = p->header + (uint64_t)i * PLT_ENTRY;
        const char *name = "";
        GElf_Sym sym;
        int err;

        if (off + PLT_ENTRY > p->plt_sh.sh_size)
            break;
        if (p->rela) {
            GElf_Rela r;
            if (!gelf_getrela(rd, (int)i, &r))
                break;
            info = r.r_info;
        } else {
            GElf_Rel r;
            if (!gelf_getrel(rd, (int)i, &r))
                break;
            info = r.r_info;
        }
        if (GELF_R_SYM(info) && GELF_R_SYM(info) <= INT_MAX &&
            gelf_getsym(dd, (int)GELF_R_SYM(info), &sym)) {
            const char *n = elf_strptr(e, p->dyn_sh.sh_link, sym.st_name);
            if (n)
                name = n;
        }
        err = add_plt_sym(b, name, p->plt_sh.sh_addr + off);
        if (err)
            return err;
        added++;
    }
    return added;
}

/* x86-64 read directly, with the checks of read_plt_gelf (a name must end inside its string
 * table). The .dynsym and its strings come from b when elf_read_funcs just read them (a
 * stripped file's table), else are read here and freed. -EAGAIN for another kind of file. */
static long read_plt_native(const struct elf_file *ef, const struct plt *p,
                            struct symtab_builder *b)
{
    const char *ident = elf_getident(ef->elf, NULL);
    Elf_Scn *strscn = elf_getscn(ef->elf, p->dyn_sh.sh_link);
    GElf_Shdr ss;
    char *rel = NULL, *dyn = NULL, *str = NULL;
    size_t count, nsyms, str_len, last_nul;
    bool reuse = b->raw && b->raw_elf == ef->elf && b->raw_scn == elf_ndxscn(p->dyn) &&
                 b->adopted && b->raw_len == p->dyn_sh.sh_size;
    long added = 0;
    int err;

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
    return -EAGAIN;
#endif
    if (!ident || ident[EI_CLASS] != ELFCLASS64 || ident[EI_DATA] != ELFDATA2LSB || !p->rela ||
        p->rel_sh.sh_entsize != sizeof(Elf64_Rela) || p->rel_sh.sh_type == SHT_NOBITS ||
        p->dyn_sh.sh_type == SHT_NOBITS || p->dyn_sh.sh_entsize != sizeof(Elf64_Sym) ||
        ((p->rel_sh.sh_flags | p->dyn_sh.sh_flags) & SHF_COMPRESSED) || !strscn ||
        !gelf_getshdr(strscn, &ss) || ss.sh_type != SHT_STRTAB ||
        (ss.sh_flags & SHF_COMPRESSED))
        return -EAGAIN;
    count = p->rel_sh.sh_size / sizeof(Elf64_Rela);
    nsyms = p->dyn_sh.sh_size / sizeof(Elf64_Sym);
    if (count > INT_MAX)
        return 0;
    str_len = ss.sh_size;
    if ((err = elf_section_bytes(ef, p->rel, &p->rel_sh, 0, &rel)) ||
        (!reuse && ((err = elf_section_bytes(ef, p->dyn, &p->dyn_sh, 0, &dyn)) ||
                    (err = elf_section_bytes(ef, strscn, &ss, 0, &str))))) {
        added = err == -ENOMEM ? err : 0;
        goto out;
    }
    if (reuse) {
        dyn = b->raw;
        str_len = b->strtab_len < ss.sh_size ? b->strtab_len : ss.sh_size;
    }
    for (size_t i = 0; i < count; i++) {
        const char *strtab = reuse ? b->strtab : str;
        uint64_t off = p->header + (uint64_t)i * PLT_ENTRY;
        const char *name = "";
        Elf64_Rela r;
        uint64_t idx;

        if (off + PLT_ENTRY > p->plt_sh.sh_size)
            break;
        memcpy(&r, rel + i * sizeof(r), sizeof(r));
        idx = ELF64_R_SYM(r.r_info);
        if (idx && idx <= INT_MAX && idx < nsyms) {
            Elf64_Sym sym;
            memcpy(&sym, dyn + idx * sizeof(sym), sizeof(sym));
            for (last_nul = sym.st_name; last_nul < str_len && strtab[last_nul]; last_nul++)
                ;
            if (last_nul < str_len)
                name = strtab + sym.st_name;
        }
        if ((err = add_plt_sym(b, name, p->plt_sh.sh_addr + off))) {
            added = err;
            break;
        }
        added++;
    }
out:
    free(rel);
    if (!reuse) {
        free(dyn);
        free(str);
    }
    return added;
}

long elf_read_plt(const struct elf_file *ef, struct symtab_builder *b)
{
    struct plt p;
    long n;

    if (!find_plt(ef->elf, &p))
        return 0;
    n = read_plt_native(ef, &p, b);
    return n == -EAGAIN ? read_plt_gelf(ef->elf, &p, b) : n;
}
