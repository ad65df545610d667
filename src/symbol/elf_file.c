/* SPDX-License-Identifier: MIT */
/* Opening untrusted ELF files: libelf does the parsing, we check every extent against the size. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "symbol/elf_file.h"
#include "symbol/symfile.h"

#define LOG_PREFIX "symbol"
#include "util/log.h"

void symbol_elf_init(void)
{
    static bool done;
    if (!done) {
        elf_version(EV_CURRENT);
        done = true;
    }
}

/* true if [off, off+len) lies within size, without overflow. */
static bool in_bounds(uint64_t off, uint64_t len, uint64_t size)
{
    return off <= size && len <= size - off;
}

static int validate(struct elf_file *ef, const char *what)
{
    GElf_Ehdr eh;
    size_t phnum, shnum, shstrndx;
    Elf_Scn *scn = NULL;

    if (elf_kind(ef->elf) != ELF_K_ELF || !gelf_getehdr(ef->elf, &eh))
        goto bad;
    if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN)
        goto bad;
    if (elf_getphdrnum(ef->elf, &phnum) || elf_getshdrnum(ef->elf, &shnum))
        goto bad;
    /* libelf quietly reports zero sections when the table lies beyond the end of the file;
     * a truncated file must be reported as bad, not as "no symbols". */
    if (eh.e_shoff && eh.e_shnum > shnum)
        shnum = eh.e_shnum;
    if (shnum > 1 && (!eh.e_shentsize || shnum > ef->size / eh.e_shentsize ||
                      !in_bounds(eh.e_shoff, (uint64_t)shnum * eh.e_shentsize, ef->size)))
        goto bad;
    if (eh.e_phoff && eh.e_phnum != PN_XNUM && eh.e_phnum > phnum)
        phnum = eh.e_phnum;
    if (phnum && (!eh.e_phentsize || phnum > ef->size / eh.e_phentsize ||
                  !in_bounds(eh.e_phoff, (uint64_t)phnum * eh.e_phentsize, ef->size)))
        goto bad;
    if (shnum > 1 && elf_getshdrstrndx(ef->elf, &shstrndx))
        goto bad;
    for (size_t i = 0; i < phnum; i++) {
        GElf_Phdr ph;
        if (!gelf_getphdr(ef->elf, (int)i, &ph))
            goto bad;
    }
    while ((scn = elf_nextscn(ef->elf, scn))) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh))
            goto bad;
        if (sh.sh_type != SHT_NOBITS && !in_bounds(sh.sh_offset, sh.sh_size, ef->size))
            goto bad;
    }
    if (shnum > 1 && elf_ndxscn(elf_getscn(ef->elf, shnum - 1)) != shnum - 1)
        goto bad;
    return 0;
bad:
    pr_debug("%s: not a valid ELF file (%s)", what, elf_errmsg(-1));
    return -ENOEXEC;
}

int elf_file_open(const char *path, struct elf_file *ef)
{
    struct stat st;
    int err;

    symbol_elf_init();
    memset(ef, 0, sizeof(*ef));
    /* Not open(): a FIFO planted at a mapped path would block it forever. */
    ef->fd = symfile_open(path, false, &st);
    if (ef->fd < 0) {
        err = ef->fd == -EINVAL ? -ENOEXEC : ef->fd;
        ef->fd = -1;
        return err;
    }
    ef->size = (uint64_t)st.st_size;
    /* ELF_C_READ (pread on demand), not mmap: a file truncated under us must not SIGBUS. */
    ef->elf = elf_begin(ef->fd, ELF_C_READ, NULL);
    if (!ef->elf) {
        err = -ENOEXEC;
        goto fail;
    }
    err = validate(ef, path);
    if (err)
        goto fail;
    return 0;
fail:
    elf_file_close(ef);
    return err;
}

int elf_file_open_mem(void *buf, size_t len, struct elf_file *ef)
{
    int err;

    symbol_elf_init();
    memset(ef, 0, sizeof(*ef));
    ef->fd = -1;
    ef->size = len;
    ef->elf = elf_memory(buf, len);
    if (!ef->elf)
        return -ENOEXEC;
    err = validate(ef, "(memory image)");
    if (err)
        elf_file_close(ef);
    return err;
}

void elf_file_close(struct elf_file *ef)
{
    if (ef->elf)
        elf_end(ef->elf);
    if (ef->fd >= 0)
        close(ef->fd);
    ef->elf = NULL;
    ef->fd = -1;
}

static int build_id_in(Elf_Data *d, uint8_t *out, size_t cap, size_t *len)
{
    size_t off = 0, next, name_off, desc_off;
    GElf_Nhdr nh;

    while (off < d->d_size && (next = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
        if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && nh.n_descsz > 0 &&
            in_bounds(name_off, 4, d->d_size) && in_bounds(desc_off, nh.n_descsz, d->d_size) &&
            !memcmp((const char *)d->d_buf + name_off, "GNU", 4)) {
            size_t n = nh.n_descsz < cap ? nh.n_descsz : cap;
            memcpy(out, (const char *)d->d_buf + desc_off, n);
            *len = n;
            return 0;
        }
        off = next;
    }
    return -ENOENT;
}

int elf_read_build_id(Elf *e, uint8_t *out, size_t cap, size_t *len)
{
    Elf_Scn *scn = NULL;
    size_t phnum;
    GElf_Shdr sh;

    while ((scn = elf_nextscn(e, scn))) {
        Elf_Data *d;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
            continue;
        d = elf_getdata(scn, NULL);
        if (d && d->d_buf && !build_id_in(d, out, cap, len))
            return 0;
    }
    if (elf_getphdrnum(e, &phnum))
        return -ENOENT;
    for (size_t i = 0; i < phnum; i++) {
        GElf_Phdr ph;
        Elf_Data *d;
        if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_NOTE)
            continue;
        d = elf_getdata_rawchunk(e, (int64_t)ph.p_offset, ph.p_filesz, ELF_T_NHDR);
        if (d && d->d_buf && !build_id_in(d, out, cap, len))
            return 0;
    }
    return -ENOENT;
}

Elf_Scn *elf_find_section(Elf *e, const char *name, GElf_Word type, GElf_Shdr *sh)
{
    Elf_Scn *scn = NULL;
    size_t shstrndx;

    if (name && elf_getshdrstrndx(e, &shstrndx))
        return NULL;
    while ((scn = elf_nextscn(e, scn))) {
        if (!gelf_getshdr(scn, sh))
            continue;
        if (name) {
            const char *n = elf_strptr(e, shstrndx, sh->sh_name);
            if (n && !strcmp(n, name))
                return scn;
        } else if (sh->sh_type == type) {
            return scn;
        }
    }
    return NULL;
}

int elf_read_debuglink(Elf *e, char *name, size_t cap, uint32_t *crc)
{
    GElf_Shdr sh;
    Elf_Scn *scn = elf_find_section(e, ".gnu_debuglink", 0, &sh);
    Elf_Data *d;
    const unsigned char *p, *nul;
    size_t len, crc_off;

    if (!scn)
        return -ENOENT;
    d = elf_getdata(scn, NULL);
    if (!d || !d->d_buf || sh.sh_type == SHT_NOBITS)
        return -ENOEXEC;
    p = d->d_buf;
    nul = memchr(p, '\0', d->d_size);
    if (!nul)
        return -ENOEXEC;
    len = (size_t)(nul - p);
    crc_off = (len + 4) & ~(size_t)3;
    /* A base name only: a debuglink must not lead the search out of the debug directories. */
    if (!len || len >= cap || memchr(p, '/', len) || !in_bounds(crc_off, 4, d->d_size))
        return -ENOEXEC;
    memcpy(name, p, len);
    name[len] = '\0';
    if (elf_getident(e, NULL)[EI_DATA] == ELFDATA2MSB)
        *crc = (uint32_t)p[crc_off] << 24 | (uint32_t)p[crc_off + 1] << 16 |
               (uint32_t)p[crc_off + 2] << 8 | p[crc_off + 3];
    else
        *crc = (uint32_t)p[crc_off + 3] << 24 | (uint32_t)p[crc_off + 2] << 16 |
               (uint32_t)p[crc_off + 1] << 8 | p[crc_off];
    return 0;
}

int elf_read_loads(Elf *e, struct load_seg **segs, size_t *n)
{
    size_t phnum, k = 0;
    struct load_seg *v;

    *segs = NULL;
    *n = 0;
    if (elf_getphdrnum(e, &phnum))
        return -ENOEXEC;
    if (!phnum)
        return 0;
    v = calloc(phnum, sizeof(*v));
    if (!v)
        return -ENOMEM;
    for (size_t i = 0; i < phnum; i++) {
        GElf_Phdr ph;
        if (!gelf_getphdr(e, (int)i, &ph)) {
            free(v);
            return -ENOEXEC;
        }
        if (ph.p_type != PT_LOAD)
            continue;
        v[k++] = (struct load_seg){ ph.p_offset, ph.p_filesz, ph.p_memsz, ph.p_vaddr };
    }
    *segs = v;
    *n = k;
    return 0;
}
