/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "symbol/elf_code.h"
#include "util/strutil.h"

int elf_vaddr_to_offset(const char *path, uint64_t vaddr, uint64_t *offset)
{
    size_t n = 0;
    int fd, ret = -ENOENT;
    Elf *e;

    elf_version(EV_CURRENT);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    e = elf_begin(fd, ELF_C_READ, NULL);
    if (!e || elf_kind(e) != ELF_K_ELF || elf_getphdrnum(e, &n)) {
        ret = -ENOEXEC;
        n = 0;
    }
    for (size_t i = 0; i < n && i < 4096; i++) {
        GElf_Phdr ph;
        if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
            continue;
        if (vaddr >= ph.p_vaddr && vaddr - ph.p_vaddr < ph.p_filesz) {
            *offset = vaddr - ph.p_vaddr + ph.p_offset;
            ret = 0;
            break;
        }
    }
    if (e)
        elf_end(e);
    close(fd);
    return ret;
}

/* Development symlinks may be linker scripts ("libc.so"): only ELF files count. */
static bool is_elf(const char *path)
{
    unsigned char m[4];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    bool ok;
    if (fd < 0)
        return false;
    ok = read(fd, m, 4) == 4 && m[0] == 0x7f && m[1] == 'E' && m[2] == 'L' && m[3] == 'F';
    close(fd);
    return ok;
}

static int try_lib(const char *dir, const char *name, char *out, size_t outlen)
{
    static const char *const pre[] = { "", "", "lib" }, *const suf[] = { "", ".so", ".so" };
    char p[PATH_MAX];

    for (size_t f = 0; f < 3; f++) {
        snprintf(p, sizeof(p), "%s/%s%s%s", dir, pre[f], name, suf[f]);
        if (is_elf(p)) {
            str_copy(out, outlen, p);
            return 0;
        }
    }
    /* "libc" -> "libc.so.6", "m" -> "libm.so.6": versioned names. */
    for (int v = 0; v < 10; v++) {
        snprintf(p, sizeof(p), "%s/%s.so.%d", dir, name, v);
        if (is_elf(p))
            goto found;
        snprintf(p, sizeof(p), "%s/lib%s.so.%d", dir, name, v);
        if (is_elf(p))
            goto found;
    }
    return -ENOENT;
found:
    str_copy(out, outlen, p);
    return 0;
}

int elf_find_library(const char *name, const char *exe, char *out, size_t outlen)
{
    static const char *const std_dirs[] = { "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
                                            "/lib64", "/usr/lib64", "/lib", "/usr/lib",
                                            "/usr/local/lib" };
    const char *llp = getenv("LD_LIBRARY_PATH");
    char dir[PATH_MAX];

    if (strchr(name, '/')) {
        if (!is_elf(name))
            return -ENOENT;
        str_copy(out, outlen, name);
        return 0;
    }
    while (llp && *llp) {
        size_t len = strcspn(llp, ":");
        if (len && len < sizeof(dir)) {
            memcpy(dir, llp, len);
            dir[len] = '\0';
            if (try_lib(dir, name, out, outlen) == 0)
                return 0;
        }
        llp += len + (llp[len] == ':');
    }
    if (exe && strchr(exe, '/')) {
        str_copy(dir, sizeof(dir), exe);
        *strrchr(dir, '/') = '\0';
        if (try_lib(dir[0] ? dir : "/", name, out, outlen) == 0)
            return 0;
    }
    for (size_t i = 0; i < sizeof(std_dirs) / sizeof(*std_dirs); i++)
        if (try_lib(std_dirs[i], name, out, outlen) == 0)
            return 0;
    return -ENOENT;
}


uint8_t *elf_read_code(const char *path, uint64_t vaddr, uint64_t size)
{
    uint64_t off;
    uint8_t *buf;
    int fd;

    if (!size || size > ELF_CODE_MAX || elf_vaddr_to_offset(path, vaddr, &off))
        return NULL;
    if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
        return NULL;
    buf = malloc(size);
    if (buf && pread(fd, buf, size, (off_t)off) != (ssize_t)size) {
        free(buf);
        buf = NULL;
    }
    close(fd);
    return buf;
}

/* The symbol table to list: .symtab, else .dynsym (a stripped program). */
static Elf_Scn *function_table(Elf *e, GElf_Shdr *sh)
{
    Elf_Scn *scn = NULL, *dyn = NULL;
    GElf_Shdr dsh;

    while ((scn = elf_nextscn(e, scn))) {
        if (!gelf_getshdr(scn, sh))
            continue;
        if (sh->sh_type == SHT_SYMTAB)
            return scn;
        if (sh->sh_type == SHT_DYNSYM && !dyn) {
            dyn = scn;
            dsh = *sh;
        }
    }
    if (dyn)
        *sh = dsh;
    return dyn;
}

int elf_function_names(const char *path, void (*fn)(void *arg, const char *name), void *arg)
{
    int fd, ret = 0;
    Elf *e;
    Elf_Scn *scn;
    Elf_Data *data;
    GElf_Shdr sh;

    elf_version(EV_CURRENT);
    if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
        return -errno;
    e = elf_begin(fd, ELF_C_READ, NULL);
    if (!e || elf_kind(e) != ELF_K_ELF) {
        ret = -ENOEXEC;
    } else if ((scn = function_table(e, &sh)) && (data = elf_getdata(scn, NULL)) &&
               sh.sh_entsize) {
        size_t n = sh.sh_size / sh.sh_entsize;
        for (size_t i = 1; i < n; i++) {
            GElf_Sym sym;
            const char *name;
            if (!gelf_getsym(data, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
                sym.st_shndx == SHN_UNDEF)
                continue;
            if ((name = elf_strptr(e, sh.sh_link, sym.st_name)) && name[0])
                fn(arg, name);
        }
    }
    if (e)
        elf_end(e);
    close(fd);
    return ret;
}
