/* Loading a DSO's symbols from its ELF file: build-id check, segments, .symtab (own or from
 * separate debug info), else .dynsym with brackets. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "symbol/debuginfo.h"
#include "symbol/dso_internal.h"
#include "util/strutil.h"

#define LOG_PREFIX "symbol"
#include "util/log.h"

#define DELETED_SUFFIX " (deleted)"

static bool has_section_data(Elf *e, const char *name)
{
    GElf_Shdr sh;
    return elf_find_section(e, name, 0, &sh) && sh.sh_type != SHT_NOBITS && sh.sh_size;
}

/* Reads the function symbols of the first section of `type` in e, plus the PLT slots of the
 * mapped file `main`, into a fresh table. Returns the count of symbols from the section (the
 * table is only built when there are some), or -ENOEXEC / -ENOMEM. */
static long read_table(Elf *e, Elf *main, GElf_Word type, struct symtab *out, bool brackets)
{
    struct symtab_builder b = {0};
    GElf_Shdr sh;
    Elf_Scn *scn = elf_find_section(e, NULL, type, &sh);
    long n, plt = 0;
    int err;

    if (!scn)
        return 0;
    n = elf_read_funcs(e, scn, &b);
    if (n > 0)
        plt = elf_read_plt(main, &b);
    if (n <= 0 || plt < 0) {
        symtab_builder_release(&b);
        return n <= 0 ? n : plt;
    }
    err = symtab_finish(&b, out, brackets);
    return err ? err : n;
}

/* The kernel's build-id may be zero-padded to 20 bytes. */
static bool build_id_equal(const struct dso *dso)
{
    if (!dso->fbid_len || dso->kbid_len < dso->fbid_len ||
        memcmp(dso->kbid, dso->fbid, dso->fbid_len))
        return false;
    for (size_t i = dso->fbid_len; i < dso->kbid_len; i++)
        if (dso->kbid[i])
            return false;
    return true;
}

int dso_load_elf(struct dso *dso, struct elf_file *ef, const char *path)
{
    struct elf_file dbg = { .fd = -1 };
    char *dbg_path = NULL;
    long n;
    int err;

    err = elf_read_loads(ef->elf, &dso->segs, &dso->nsegs);
    if (err)
        goto out;
    if (ef->fd >= 0 && has_section_data(ef->elf, ".debug_info")) {
        dso->debug_path = strdup(path);
        if (!dso->debug_path)
            return -ENOMEM;
    }
    n = read_table(ef->elf, ef->elf, SHT_SYMTAB, &dso->tab, false);
    if (n < 0) {
        err = (int)n;
        goto out;
    }
    if ((!n || !dso->debug_path) && dso->kind == DSO_FILE &&
        !debuginfo_find(dso_cache_debug_root(dso->cache), path, ef->elf, dso->fbid,
                        dso->fbid_len, &dbg, &dbg_path)) {
        if (!dso->debug_path && has_section_data(dbg.elf, ".debug_info")) {
            dso->debug_path = dbg_path;
            dbg_path = NULL;
        }
        if (!n) {
            n = read_table(dbg.elf, ef->elf, SHT_SYMTAB, &dso->tab, false);
            if (n < 0) {
                pr_debug("%s: bad symbol table in debug file", path);
                if (n == -ENOMEM) {
                    err = -ENOMEM;
                    goto out;
                }
                n = 0;
            }
        }
        free(dbg_path);
        elf_file_close(&dbg);
    }
    if (n > 0) {
        dso->status = DSO_OK_SYMTAB;
        return 0;
    }
    n = read_table(ef->elf, ef->elf, SHT_DYNSYM, &dso->tab, true);
    if (n < 0) {
        err = (int)n;
        goto out;
    }
    dso->status = n > 0 ? DSO_OK_DYNSYM : DSO_NO_SYMBOLS;
    pr_debug("%s: %s", path, dso_status_str(dso->status));
    return 0;
out:
    symtab_release(&dso->tab);
    free(dso->segs);
    dso->segs = NULL;
    dso->nsegs = 0;
    if (err == -ENOMEM)
        return err;
    pr_debug("%s: corrupt ELF data", path);
    dso->status = DSO_BAD_ELF;
    return 0;
}

/* Whether the file at path is the one that was mapped: 1 yes, 0 no (same device, other
 * inode), -1 cannot tell (no identity, unreadable, or another device number as overlay
 * filesystems report). */
static int same_inode(const struct dso *dso, const char *path)
{
    struct stat st;
    if (!dso->has_fid || stat(path, &st))
        return -1;
    if (major(st.st_dev) != dso->fid_maj || minor(st.st_dev) != dso->fid_min)
        return -1;
    return st.st_ino == dso->fid_ino;
}

int dso_load_file(struct dso *dso)
{
    struct elf_file ef;
    char *stripped = NULL;
    const char *path = dso->path;
    bool deleted = str_ends(path, DELETED_SUFFIX);
    int err;

    if (deleted) {
        /* The file was replaced or removed after it was mapped: whatever is at the old path
         * now is only trusted if its build-id or inode proves it is the same file. */
        if (!dso->kbid_len && !dso->has_fid) {
            dso->status = DSO_MISSING;
            return 0;
        }
        stripped = strndup(path, strlen(path) - strlen(DELETED_SUFFIX));
        if (!stripped)
            return -ENOMEM;
        path = stripped;
    }
    switch (same_inode(dso, path)) {
    case 0:
        pr_debug("%s: a different file (inode) than the one mapped", path);
        dso->status = deleted ? DSO_MISSING : DSO_BUILD_ID_MISMATCH;
        free(stripped);
        return 0;
    case -1:
        if (deleted && !dso->kbid_len) {
            dso->status = DSO_MISSING;
            free(stripped);
            return 0;
        }
        break;
    default:
        break;
    }
    err = elf_file_open(path, &ef);
    if (err) {
        pr_debug("%s: %s", path, strerror(-err));
        dso->status = err == -ENOEXEC && !deleted ? DSO_BAD_ELF : DSO_MISSING;
        free(stripped);
        return err == -ENOMEM ? err : 0;
    }
    if (elf_read_build_id(ef.elf, dso->fbid, sizeof(dso->fbid), &dso->fbid_len))
        dso->fbid_len = 0;
    if (dso->kbid_len && !build_id_equal(dso)) {
        pr_debug("%s: build-id differs from the mapped file's", path);
        dso->status = deleted ? DSO_MISSING : DSO_BUILD_ID_MISMATCH;
        err = 0;
    } else {
        err = dso_load_elf(dso, &ef, path);
    }
    elf_file_close(&ef);
    free(stripped);
    return err;
}
