/* SPDX-License-Identifier: MIT */
/* Function symbols from an ELF .symtab or .dynsym section into a symtab builder. */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
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

/* Any ELF, through libelf's conversions: every name copied into the arena. */
static long read_funcs_gelf(Elf *e, Elf_Scn *scn, const GElf_Shdr *sh, struct symtab_builder *b)
{
    Elf_Data *d = elf_getdata(scn, NULL);
    size_t count;
    long added = 0;

    if (!d)
        return -ENOEXEC;
    /* gelf_getsym bounds-checks the index against d_size; sh_link names the string table and
     * elf_strptr checks the offset and the terminating NUL. */
    count = d->d_size / sh->sh_entsize;
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
        name = elf_strptr(e, sh->sh_link, s.st_name);
        if (!name || !*name)
            continue;
        err = symtab_add(b, name, s.st_value, s.st_size, GELF_ST_BIND(s.st_info));
        if (err)
            return err;
        added++;
    }
    return added;
}

/* A section's bytes in a malloc'd buffer of len + pad bytes: read from the file with one
 * pread (libelf's ELF_C_READ would read it into a buffer of its own, kept until elf_end), or
 * copied from an in-memory image. 0, -ENOEXEC (short: truncated under us) or -ENOMEM. */
int elf_section_bytes(const struct elf_file *ef, Elf_Scn *scn, const GElf_Shdr *sh,
                      size_t pad, char **out)
{
    size_t len = sh->sh_size, done = 0;
    char *buf;

    if (len > SIZE_MAX - pad || !(buf = malloc(len + pad ? len + pad : 1)))
        return -ENOMEM;
    if (ef->fd < 0) {
        Elf_Data *d = elf_rawdata(scn, NULL);
        if (!d || d->d_size != len || (len && !d->d_buf)) {
            free(buf);
            return -ENOEXEC;
        }
        memcpy(buf, d->d_buf, len);
    }
    while (ef->fd >= 0 && done < len) {
        ssize_t r = pread(ef->fd, buf + done, len - done, (off_t)(sh->sh_offset + done));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            free(buf);
            return -ENOEXEC;
        }
        done += (size_t)r;
    }
    *out = buf;
    return 0;
}

/* Executable sections by index, for untyped labels (is_text_label without a lookup each). */
static unsigned char *exec_sections(Elf *e, size_t *n)
{
    unsigned char *v;
    Elf_Scn *scn = NULL;

    if (elf_getshdrnum(e, n) || !(v = calloc(*n ? *n : 1, 1)))
        return NULL;
    while ((scn = elf_nextscn(e, scn))) {
        GElf_Shdr sh;
        size_t i = elf_ndxscn(scn);
        if (i < *n && gelf_getshdr(scn, &sh))
            v[i] = (sh.sh_flags & SHF_EXECINSTR) != 0;
    }
    return v;
}

/* 64-bit little-endian ELF (what runs here) read directly: the string table becomes the
 * builder's arena and names stay offsets into it, with the same checks as read_funcs_gelf
 * (a name must end with a NUL inside the table). -EAGAIN when the file is another kind. */
static long read_funcs_native(const struct elf_file *ef, Elf_Scn *scn, const GElf_Shdr *sh,
                              struct symtab_builder *b)
{
    Elf_Scn *strscn = elf_getscn(ef->elf, sh->sh_link);
    GElf_Shdr ss;
    const char *ident = elf_getident(ef->elf, NULL);
    char *strtab = NULL, *raw = NULL;
    unsigned char *exec = NULL;
    size_t count, nexec = 0, last_nul;
    long added = 0;
    int err;

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
    return -EAGAIN;
#endif
    if (!ident || ident[EI_CLASS] != ELFCLASS64 || ident[EI_DATA] != ELFDATA2LSB ||
        sh->sh_entsize != sizeof(Elf64_Sym) || sh->sh_type == SHT_NOBITS ||
        (sh->sh_flags & SHF_COMPRESSED) || b->c.n || b->len || b->strtab || !strscn ||
        !gelf_getshdr(strscn, &ss) || ss.sh_type != SHT_STRTAB ||
        (ss.sh_flags & SHF_COMPRESSED) || !ss.sh_size || ss.sh_size >= UINT32_MAX)
        return -EAGAIN;
    count = sh->sh_size / sizeof(Elf64_Sym);
    if (count > INT_MAX)
        return -ENOEXEC;
    if ((err = elf_section_bytes(ef, strscn, &ss, 0, &strtab)))
        return err;
    for (last_nul = ss.sh_size; last_nul > 0 && strtab[last_nul - 1]; last_nul--)
        ;
    /* Offsets at or past last_nul have no terminating NUL in the table: elf_strptr refuses
     * them. */
    symtab_builder_adopt(b, strtab, ss.sh_size);
    b->strtab_off = ss.sh_offset;
    if ((err = elf_section_bytes(ef, scn, sh, 0, &raw)))
        return err;
    if (!(exec = exec_sections(ef->elf, &nexec))) {
        free(raw);
        return -ENOMEM;
    }
    if ((err = vec_reserve(&b->c, count))) {
        free(raw);
        free(exec);
        return err;
    }
    for (size_t i = 1; i < count; i++) {
        Elf64_Sym s;
        int type;

        memcpy(&s, raw + i * sizeof(s), sizeof(s));
        type = ELF64_ST_TYPE(s.st_info);
        if (!s.st_name || s.st_shndx == SHN_UNDEF)
            continue;
        if (type == STT_NOTYPE ? s.st_shndx >= SHN_LORESERVE || s.st_shndx >= nexec ||
                                     !exec[s.st_shndx]
                               : type != STT_FUNC && type != STT_GNU_IFUNC)
            continue;
        if (s.st_name >= last_nul || !strtab[s.st_name])
            continue;
        err = symtab_add_at(b, s.st_name, s.st_value, s.st_size, ELF64_ST_BIND(s.st_info));
        if (err) {
            added = err;
            break;
        }
        added++;
    }
    free(exec);
    if (added < 0) {
        free(raw);
        return added;
    }
    free(b->raw);              /* kept for the PLT reader: the .dynsym it needs, often */
    b->raw = raw;
    b->raw_len = sh->sh_size;
    b->raw_scn = elf_ndxscn(scn);
    b->raw_elf = ef->elf;
    return added;
}

long elf_read_funcs(const struct elf_file *ef, Elf_Scn *scn, struct symtab_builder *b)
{
    GElf_Shdr sh;
    long n;

    if (!gelf_getshdr(scn, &sh) || !sh.sh_entsize)
        return -ENOEXEC;
    n = read_funcs_native(ef, scn, &sh, b);
    return n == -EAGAIN ? read_funcs_gelf(ef->elf, scn, &sh, b) : n;
}
