/* SPDX-License-Identifier: MIT */
/* Functions without a built-in prototype: specs -> probe targets (see anyfunc.h). */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "calltrace/anyfunc.h"
#include "calltrace/callfmt.h"
#include "intarget/calltrace_abi.h"
#include "symbol/elf_code.h"

static struct ct_any_fn fns[CT_ANY_MAX];
static unsigned nfns;

const struct ct_any_fn *ct_any_fns(unsigned *n)
{
    *n = nfns;
    return fns;
}

const char *ct_any_name(unsigned id)
{
    return id >= CT_NFUNCS && id - CT_NFUNCS < nfns ? fns[id - CT_NFUNCS].name : NULL;
}

static bool is_libc(const char *lib)
{
    static const char *const libs[] = { "libc", "libc.so", "libc.so.6", "libpthread",
                                        "libpthread.so.0", "c", "pthread" };
    for (size_t i = 0; i < sizeof(libs) / sizeof(libs[0]); i++)
        if (!fnmatch(lib, libs[i], 0))
            return true;
    return false;
}

/* The libc prospect runs with: the command's too (same loader, same system). */
static int own_libc(char *out, size_t len)
{
    char line[4352];
    FILE *f = fopen("/proc/self/maps", "re");
    int e = -ENOENT;
    if (!f)
        return -errno;
    while (fgets(line, sizeof(line), f)) {
        char *path = strchr(line, '/'), *base;
        if (!path)
            continue;
        path[strcspn(path, "\n")] = 0;
        base = strrchr(path, '/') + 1;
        if (!strncmp(base, "libc.so", 7)) {
            snprintf(out, len, "%s", path);
            e = 0;
            break;
        }
    }
    fclose(f);
    return e;
}

static bool builtin_taken(const char *name, uint64_t builtin)
{
    for (unsigned i = 0; i < ct_func_count(); i++)
        if ((builtin >> i & 1) && !strcmp(ct_func_name(i), name))
            return true;
    return false;
}

/* Adds the exported functions of path matching glob. The number matched (IFUNCs included),
 * or -errno. */
static int scan(const struct ct_any_spec *s, const char *path, uint64_t builtin,
                unsigned *skipped, char *err, size_t errlen)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC), matched = 0, e = 0;
    bool glob = strpbrk(s->glob, "*?[") != NULL;
    Elf *elf;
    Elf_Scn *scn = NULL;
    if (fd < 0) {
        snprintf(err, errlen, "'%s': cannot open %s: %s", s->item, path, strerror(errno));
        return -errno;
    }
    elf_version(EV_CURRENT);
    if (!(elf = elf_begin(fd, ELF_C_READ, NULL)) || elf_kind(elf) != ELF_K_ELF) {
        snprintf(err, errlen, "'%s': %s is not an ELF file", s->item, path);
        if (elf)
            elf_end(elf);
        close(fd);
        return -ENOEXEC;
    }
    while ((scn = elf_nextscn(elf, scn)) && !e) {
        GElf_Shdr sh;
        Elf_Data *d;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !sh.sh_entsize ||
            !(d = elf_getdata(scn, NULL)))
            continue;
        size_t count = sh.sh_size / sh.sh_entsize;
        for (size_t i = 1; i < count && !e; i++) {
            GElf_Sym sym;
            const char *name;
            uint64_t off;
            if (!gelf_getsym(d, (int)i, &sym) || sym.st_shndx == SHN_UNDEF || !sym.st_value)
                continue;
            unsigned type = GELF_ST_TYPE(sym.st_info), bind = GELF_ST_BIND(sym.st_info);
            if ((type != STT_FUNC && type != STT_GNU_IFUNC) ||
                (bind != STB_GLOBAL && bind != STB_WEAK))
                continue;
            if (!(name = elf_strptr(elf, sh.sh_link, sym.st_name)) || !*name ||
                strlen(name) >= sizeof(fns[0].name) || fnmatch(s->glob, name, 0))
                continue;
            matched++;
            if (builtin_taken(name, builtin))
                continue;
            bool dup = false;
            for (unsigned k = 0; k < nfns && !dup; k++)
                dup = !strcmp(fns[k].name, name) && !strcmp(fns[k].path, path);
            if (dup)
                continue;               /* another symbol version of the same function */
            if (type == STT_GNU_IFUNC) {
                if (!glob) {
                    snprintf(err, errlen, "'%s': %s is an IFUNC (its code is chosen per CPU "
                             "at load): not traced yet", s->item, name);
                    e = -ENOTSUP;
                }
                ++*skipped;
                continue;
            }
            if (nfns == CT_ANY_MAX) {
                snprintf(err, errlen, "'%s': more than %d functions match; narrow the glob",
                         s->item, CT_ANY_MAX);
                e = -E2BIG;
                break;
            }
            if (elf_vaddr_to_offset(path, sym.st_value, &off))
                continue;
            snprintf(fns[nfns].name, sizeof(fns[nfns].name), "%s", name);
            snprintf(fns[nfns].path, sizeof(fns[nfns].path), "%s", path);
            fns[nfns++].off = off;
        }
    }
    elf_end(elf);
    close(fd);
    return e ? e : matched;
}

/* The program's DT_NEEDED names, '\0'-separated into buf. The count, or -errno. */
static int needed(const char *exe, char *buf, size_t len)
{
    int fd = open(exe, O_RDONLY | O_CLOEXEC), n = 0;
    size_t o = 0;
    Elf *elf;
    Elf_Scn *scn = NULL;
    if (fd < 0)
        return -errno;
    if (!(elf = elf_begin(fd, ELF_C_READ, NULL))) {
        close(fd);
        return -ENOEXEC;
    }
    while ((scn = elf_nextscn(elf, scn))) {
        GElf_Shdr sh;
        Elf_Data *d;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC || !sh.sh_entsize ||
            !(d = elf_getdata(scn, NULL)))
            continue;
        for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
            GElf_Dyn dyn;
            const char *name;
            if (!gelf_getdyn(d, (int)i, &dyn) || dyn.d_tag != DT_NEEDED ||
                !(name = elf_strptr(elf, sh.sh_link, dyn.d_un.d_val)) ||
                strlen(name) + 1 > len - o)
                continue;
            memcpy(buf + o, name, strlen(name) + 1);
            o += strlen(name) + 1;
            n++;
        }
    }
    elf_end(elf);
    close(fd);
    return n;
}

static int one(const struct ct_any_spec *s, const char *exe, uint64_t builtin,
               unsigned *skipped, char *err, size_t errlen)
{
    char path[4096];
    const char *base = strrchr(exe, '/') ? strrchr(exe, '/') + 1 : exe;
    int m = 0;
    if (!*s->lib || !fnmatch(s->lib, base, 0)) {
        if ((m = scan(s, exe, builtin, skipped, err, errlen)) < 0)
            return m;
        if (*s->lib)
            goto done;
    }
    if (!*s->lib) {
        /* No library named: the program's own (DT_NEEDED) libraries, as ltrace -e does. */
        char names[4096], *p = names;
        int k = needed(exe, names, sizeof(names));
        for (int i = 0; i < k; i++, p += strlen(p) + 1) {
            int n;
            if (elf_find_library(p, exe, path, sizeof(path)))
                continue;
            if ((n = scan(s, path, builtin, skipped, err, errlen)) < 0)
                return n;
            m += n;
        }
    } else if (is_libc(s->lib)) {
        int n;
        if (own_libc(path, sizeof(path))) {
            snprintf(err, errlen, "'%s': cannot find the C library", s->item);
            return -ENOENT;
        }
        if ((n = scan(s, path, builtin, skipped, err, errlen)) < 0)
            return n;
        m += n;
    } else {
        int n;
        if (elf_find_library(s->lib, exe, path, sizeof(path))) {
            snprintf(err, errlen, "'%s': no library %s in LD_LIBRARY_PATH, the program's or "
                     "the system's directories", s->item, s->lib);
            return -ENOENT;
        }
        if ((n = scan(s, path, builtin, skipped, err, errlen)) < 0)
            return n;
        m += n;
    }
done:
    if (!m) {
        snprintf(err, errlen, "'%s' matches no exported function of %s", s->item,
                 *s->lib ? s->lib : "the program or its libraries");
        return -ENOENT;
    }
    return 0;
}

int ct_any_resolve(const struct ct_any_spec *specs, size_t n, const char *exe,
                   uint64_t builtin, unsigned *skipped, char *err, size_t errlen)
{
    int e = 0;
    nfns = 0;
    *skipped = 0;
    for (size_t i = 0; i < n && !e; i++)
        e = one(&specs[i], exe, builtin, skipped, err, errlen);
    return e;
}
