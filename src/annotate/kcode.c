/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "annotate/kcode.h"
#include "symbol/ksyms.h"
#include "symbol/symfile.h"

#define MAX_PHDRS 65536

/* The file offset of [addr, addr+size) in e's PT_LOAD segments, or -ERANGE. */
static int load_offset(Elf *e, uint64_t addr, uint64_t size, uint64_t *off)
{
    size_t n = 0;

    if (elf_getphdrnum(e, &n))
        return -ENOEXEC;
    for (size_t i = 0; i < n && i < MAX_PHDRS; i++) {
        GElf_Phdr ph;
        if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
            continue;
        if (addr >= ph.p_vaddr && addr - ph.p_vaddr < ph.p_filesz &&
            size <= ph.p_filesz - (addr - ph.p_vaddr)) {
            *off = ph.p_offset + (addr - ph.p_vaddr);
            return 0;
        }
    }
    return -ERANGE;
}

/* The address of symbol `name` in e's .symtab, 0 if absent. */
static uint64_t elf_symbol(Elf *e, const char *name)
{
    Elf_Scn *scn = NULL;
    GElf_Shdr sh;

    while ((scn = elf_nextscn(e, scn))) {
        Elf_Data *d;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
            continue;
        if (!(d = elf_getdata(scn, NULL)))
            return 0;
        for (size_t i = 0; i < d->d_size / sh.sh_entsize; i++) {
            GElf_Sym sym;
            const char *s;
            if (gelf_getsym(d, (int)i, &sym) && (s = elf_strptr(e, sh.sh_link, sym.st_name)) &&
                !strcmp(s, name))
                return sym.st_value;
        }
    }
    return 0;
}

int ann_kernel_code(const char *vmlinux, const struct ksyms *ks, uint64_t addr, uint64_t size,
                    uint8_t **out, const char **from, char *err, size_t errlen)
{
    const char *path = vmlinux ? vmlinux : ANN_KCORE;
    uint64_t off = 0, want = addr;
    uint8_t *buf = NULL;
    Elf *e = NULL;
    int fd, ret;

    *out = NULL;
    *from = path;
    elf_version(EV_CURRENT);
    fd = symfile_open(path, false, NULL);
    if (fd < 0) {
        if (!vmlinux && fd == -ENOENT)
            snprintf(err, errlen, "kernel code: no %s on this machine (give --vmlinux FILE, "
                     "an uncompressed image of the running kernel)", ANN_KCORE);
        else
            snprintf(err, errlen, "kernel code: cannot read %s: %s%s", path,
                     symfile_strerror(fd), fd == -EACCES ? " (root only)" : "");
        return fd;
    }
    ret = -ENOEXEC;
    e = elf_begin(fd, ELF_C_READ, NULL);
    if (!e || elf_kind(e) != ELF_K_ELF) {
        snprintf(err, errlen, "kernel code: %s is not an ELF file", path);
        goto out;
    }
    if (vmlinux) {
        /* KASLR: the image is linked at one address, the kernel runs at another. */
        uint64_t img = elf_symbol(e, "_stext"), run = ks ? ksyms_lookup(ks, "_stext") : 0;
        if (!img || !run) {
            snprintf(err, errlen, "kernel code: no _stext in %s%s: cannot place it", path,
                     img ? "'s running kernel symbols" : "");
            goto out;
        }
        want = addr - run + img;
    }
    if ((ret = load_offset(e, want, size, &off))) {
        snprintf(err, errlen, "kernel code: %#llx is not in %s%s", (unsigned long long)addr,
                 path, vmlinux ? " (module code, or not the running kernel's image)" : "");
        goto out;
    }
    if (!(buf = malloc(size ? size : 1))) {
        ret = -ENOMEM;
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    if (pread(fd, buf, size, (off_t)off) != (ssize_t)size) {
        ret = -EIO;
        snprintf(err, errlen, "kernel code: short read of %s at offset %#llx", path,
                 (unsigned long long)off);
        free(buf);
        buf = NULL;
        goto out;
    }
    ret = 0;
    *out = buf;
out:
    if (e)
        elf_end(e);
    close(fd);
    return ret;
}
