/* PLT stubs have no symbols of their own; naming each slot after its relocation's target
 * ("malloc@plt") is what perf and objdump show, so hits in stubs do not land in _init. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "symbol/elf_file.h"
#include "symbol/symtab.h"

#define PLT_ENTRY 16   /* x86 and x86-64: 16-byte header (lazy .plt only), 16-byte slots */

static int add_plt_sym(struct symtab_builder *b, const char *name, uint64_t addr)
{
    char raw[512], disp[1024];
    char *dem = symbol_demangle(name);

    snprintf(raw, sizeof(raw), "%s@plt", name);
    snprintf(disp, sizeof(disp), "%s@plt", dem ? dem : name);
    free(dem);
    return symtab_add_named(b, raw, disp, addr, PLT_ENTRY, STB_GLOBAL);
}

long elf_read_plt(Elf *e, struct symtab_builder *b)
{
    GElf_Ehdr eh;
    GElf_Shdr rel_sh, plt_sh, dyn_sh;
    Elf_Scn *rel, *plt, *dyn;
    Elf_Data *rd, *dd;
    uint64_t header = PLT_ENTRY;
    size_t count;
    long added = 0;
    bool rela = true;

    if (!gelf_getehdr(e, &eh) || (eh.e_machine != EM_X86_64 && eh.e_machine != EM_386))
        return 0;
    rel = elf_find_section(e, ".rela.plt", 0, &rel_sh);
    if (!rel) {
        rel = elf_find_section(e, ".rel.plt", 0, &rel_sh);
        rela = false;
    }
    /* With IBT the slots called by code are in .plt.sec, which has no header. */
    plt = elf_find_section(e, ".plt.sec", 0, &plt_sh);
    if (plt)
        header = 0;
    else
        plt = elf_find_section(e, ".plt", 0, &plt_sh);
    if (!rel || !plt || plt_sh.sh_type == SHT_NOBITS || !rel_sh.sh_entsize ||
        rel_sh.sh_type != (rela ? SHT_RELA : SHT_REL))
        return 0;
    dyn = elf_getscn(e, rel_sh.sh_link);
    if (!dyn || !gelf_getshdr(dyn, &dyn_sh) || dyn_sh.sh_type != SHT_DYNSYM)
        return 0;
    rd = elf_getdata(rel, NULL);
    dd = elf_getdata(dyn, NULL);
    if (!rd || !dd)
        return 0;
    count = rd->d_size / rel_sh.sh_entsize;
    if (count > INT_MAX)
        return 0;
    for (size_t i = 0; i < count; i++) {
        uint64_t info, off = header + (uint64_t)i * PLT_ENTRY;
        const char *name = "";
        GElf_Sym sym;
        int err;

        if (off + PLT_ENTRY > plt_sh.sh_size)
            break;
        if (rela) {
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
            const char *n = elf_strptr(e, dyn_sh.sh_link, sym.st_name);
            if (n)
                name = n;
        }
        err = add_plt_sym(b, name, plt_sh.sh_addr + off);
        if (err)
            return err;
        added++;
    }
    return added;
}
