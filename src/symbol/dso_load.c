/* SPDX-License-Identifier: MIT */
/* A DSO's ELF file: locating it (inode and build-id checks, segments) apart from loading its
 * symbols (.symtab, own or from separate debug info, else .dynsym with brackets): the
 * unwinder needs only the former. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "symbol/buildid_cache.h"
#include "symbol/debuginfo.h"
#include "symbol/debuginfod_client.h"
#include "symbol/dso_internal.h"
#include "symbol/symfile.h"
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
static long read_table(const struct elf_file *e, const struct elf_file *main, GElf_Word type,
                       struct symtab *out, bool brackets)
{
    struct symtab_builder b = {0};
    GElf_Shdr sh;
    Elf_Scn *scn = elf_find_section(e->elf, NULL, type, &sh);
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

/* Whether a file's build-id is the one wanted (the kernel's may be zero-padded to 20 bytes). */
static bool build_id_equal(const uint8_t *want, size_t want_len, const uint8_t *have,
                           size_t have_len)
{
    if (!have_len || want_len < have_len || memcmp(want, have, have_len))
        return false;
    for (size_t i = have_len; i < want_len; i++)
        if (want[i])
            return false;
    return true;
}

/* A debug file fetched or cached by build-id: opened if it is that build's. */
static int open_by_build_id(const char *cand, const struct dso *dso, struct elf_file *dbg)
{
    uint8_t bid[BUILD_ID_MAX];
    size_t len = 0;

    if (elf_file_open(cand, dbg))
        return -ENOENT;
    if (!elf_read_build_id(dbg->elf, bid, sizeof(bid), &len) && len == dso->fbid_len &&
        !memcmp(bid, dso->fbid, len))
        return 0;
    pr_debug("%s: not the debug file of this build, ignored", cand);
    elf_file_close(dbg);
    return -ENOENT;
}

/* Separate debug info, nearest first: the debug root by build-id or debuglink, perf's
 * build-id cache (~/.debug/.build-id/xx/rest/debug), then debuginfod. 0, -ENOENT, -ENOMEM. */
static int find_debug(const struct dso *dso, const char *path, Elf *main, struct elf_file *dbg,
                      char **dbg_path)
{
    char dir[4096], cand[4300];
    int err, n;

    if (!debuginfo_find(dso_cache_debug_root(dso->cache), path, main, dso->fbid, dso->fbid_len,
                        dbg, dbg_path))
        return 0;
    if (dso->fbid_len < 2)
        return -ENOENT;
    if (!buildid_cache_dir(dir, sizeof(dir))) {
        n = snprintf(cand, sizeof(cand), "%s/.build-id/%02x/", dir, dso->fbid[0]);
        for (size_t i = 1; i < dso->fbid_len && n > 0 && (size_t)n + 3 < sizeof(cand); i++)
            n += snprintf(cand + n, sizeof(cand) - (size_t)n, "%02x", dso->fbid[i]);
        if (n > 0 && (size_t)n + 7 < sizeof(cand)) {
            snprintf(cand + n, sizeof(cand) - (size_t)n, "/debug");
            if (!open_by_build_id(cand, dso, dbg))
                return (*dbg_path = strdup(cand)) ? 0 : (elf_file_close(dbg), -ENOMEM);
        }
    }
    err = symbol_debuginfod_fetch(dso->fbid, dso->fbid_len, dbg_path);
    if (err)
        return err == -ENOMEM ? err : -ENOENT;
    if (open_by_build_id(*dbg_path, dso, dbg)) {
        free(*dbg_path);
        *dbg_path = NULL;
        return -ENOENT;
    }
    pr_debug("%s: debug info from debuginfod, %s", path, *dbg_path);
    return 0;
}

/* Looks for separate debug info once (find_debug), remembering the file found and whether
 * it has DWARF. 0 or -ENOMEM. */
static int search_debug(struct dso *dso, Elf *code)
{
    struct elf_file dbg = { .fd = -1 };
    char *dbg_path = NULL;
    int err;

    if (dso->debug_searched || dso->kind != DSO_FILE)
        return 0;
    err = find_debug(dso, dso->code_path, code, &dbg, &dbg_path);
    if (err == -ENOMEM)
        return err;
    dso->debug_searched = true;
    if (err)
        return 0;
    dso->sep_debug = dbg_path;
    dso->sep_has_dwarf = has_section_data(dbg.elf, ".debug_info");
    elf_file_close(&dbg);
    return 0;
}

/* Reads a dropped string table again (symtab_drop_names) from the file it came from, if
 * that is still the same file. */
static int reload_names(void *arg, char *buf, size_t len)
{
    struct dso *dso = arg;
    struct stat st;
    size_t done = 0;
    int fd = symfile_open(dso->names_path, false, &st), err = 0;

    if (fd < 0)
        return fd;
    if (st.st_dev != dso->names_dev || st.st_ino != dso->names_ino ||
        st.st_size != dso->names_size || st.st_mtim.tv_sec != dso->names_mtime.tv_sec ||
        st.st_mtim.tv_nsec != dso->names_mtime.tv_nsec)
        err = -ESTALE;
    while (!err && done < len) {
        ssize_t r = pread(fd, buf + done, len - done, (off_t)(dso->tab.strtab_off + done));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            err = r < 0 ? -errno : -ENODATA;
        else
            done += (size_t)r;
    }
    close(fd);
    if (err)
        pr_debug("%s: symbol names cannot be read again: %s", dso->names_path, strerror(-err));
    return err;
}

/* The table just read from e (at path) can drop its string table and read it again. */
static void names_from(struct dso *dso, const struct elf_file *e, const char *path)
{
    struct stat st;

    if (!dso->tab.strtab_len || e->fd < 0 || !path || fstat(e->fd, &st))
        return;
    dso->names_path = path;
    dso->names_dev = st.st_dev;
    dso->names_ino = st.st_ino;
    dso->names_size = st.st_size;
    dso->names_mtime = st.st_mtim;
    dso->tab.reload = reload_names;
    dso->tab.reload_arg = dso;
}

/* The symbols of an open ELF whose segments are already read: its own .symtab, else the
 * separate debug info's, else .dynsym with brackets split at the FDE starts. Corrupt symbols leave the DSO without
 * symbols (DSO_BAD_ELF); its segments stay, they were valid. 0 or -ENOMEM. */
static int load_syms(struct dso *dso, struct elf_file *ef, const char *path)
{
    long n;
    int err = 0;

    n = read_table(ef, ef, SHT_SYMTAB, &dso->tab, false);
    if (n < 0) {
        err = (int)n;
        goto out;
    }
    if (n > 0)
        names_from(dso, ef, dso->code_path);
    if (!n && dso->kind == DSO_FILE) {
        struct elf_file dbg = { .fd = -1 };
        if ((err = search_debug(dso, ef->elf)))
            goto out;
        /* Reopened: still the build's own debug file (when the build has an id). */
        if (dso->sep_debug && (dso->fbid_len ? !open_by_build_id(dso->sep_debug, dso, &dbg)
                                             : !elf_file_open(dso->sep_debug, &dbg))) {
            n = read_table(&dbg, ef, SHT_SYMTAB, &dso->tab, false);
            if (n > 0)
                names_from(dso, &dbg, dso->sep_debug);
            elf_file_close(&dbg);
            if (n < 0) {
                pr_debug("%s: bad symbol table in debug file", path);
                if (n == -ENOMEM) {
                    err = -ENOMEM;
                    goto out;
                }
                n = 0;
            }
        }
    }
    if (n > 0) {
        dso->status = DSO_OK_SYMTAB;
        return 0;
    }
    n = read_table(ef, ef, SHT_DYNSYM, &dso->tab, true);
    if (n < 0) {
        err = (int)n;
        goto out;
    }
    if (n > 0) {
        names_from(dso, ef, dso->code_path);
        if ((err = symtab_read_parts(&dso->tab, ef->elf)))   /* only -ENOMEM */
            goto out;
    }
    dso->status = n > 0 ? DSO_OK_DYNSYM : DSO_NO_SYMBOLS;
    pr_debug("%s: %s", path, dso_status_str(dso->status));
    return 0;
out:
    symtab_release(&dso->tab);
    if (err == -ENOMEM)
        return err;
    pr_debug("%s: corrupt ELF data", path);
    dso->status = DSO_BAD_ELF;
    return 0;
}

/* Segments of the accepted code file; the file itself is remembered by path and identity.
 * 0 (status DSO_BAD_ELF when the program headers are corrupt) or -ENOMEM. */
static int locate_elf(struct dso *dso, struct elf_file *ef, const char *path)
{
    struct stat st;
    int err = elf_read_loads(ef->elf, &dso->segs, &dso->nsegs);

    if (err == -ENOMEM)
        return err;
    if (err) {
        pr_debug("%s: corrupt ELF data", path);
        dso->status = DSO_BAD_ELF;
        return 0;
    }
    if (ef->fd < 0)
        return 0;
    if (fstat(ef->fd, &st) || !(dso->code_path = strdup(path))) {
        free(dso->segs);
        dso->segs = NULL;
        dso->nsegs = 0;
        return -ENOMEM;
    }
    dso->code_dev = st.st_dev;
    dso->code_ino = st.st_ino;
    dso->code_size = st.st_size;
    dso->code_mtime = st.st_mtim;
    return 0;
}

int dso_load_elf(struct dso *dso, struct elf_file *ef, const char *path)
{
    int err = locate_elf(dso, ef, path);

    if (err || dso->status == DSO_BAD_ELF)
        return err;
    return load_syms(dso, ef, path);
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

/* The build-id the mapped file had: the kernel's for the mapping, else the one the profile
 * recorded for its path (perf.data's HEADER_BUILD_ID). Length 0 when unknown. */
static size_t wanted_build_id(const struct dso *dso, const char *path, uint8_t *out)
{
    size_t len = 0;

    if (dso->kbid_len) {
        memcpy(out, dso->kbid, dso->kbid_len);
        return dso->kbid_len;
    }
    if (!dso_cache_recorded_build_id(dso->cache, dso->path, out, &len) ||
        !dso_cache_recorded_build_id(dso->cache, path, out, &len))
        return len;
    return 0;
}

/* Accepts the file at its path (under --symfs when set) if it is the one that was mapped.
 * Returns 1 when located, 0 with *why set when that file is not usable, or -ENOMEM. */
static int locate_on_disk(struct dso *dso, const char *path, bool deleted, const uint8_t *want,
                          size_t want_len, enum dso_status *why)
{
    const char *symfs = dso_cache_symfs(dso->cache);
    char *disk = NULL;
    struct elf_file ef;
    int err;

    *why = DSO_MISSING;
    if (symfs) {
        /* A copy of the system's files elsewhere: inodes say nothing, build-ids still do. */
        if (asprintf(&disk, "%s%s", symfs, path) < 0)
            return -ENOMEM;
        path = disk;
    } else {
        /* Whatever is at the path of a deleted or replaced file is only trusted if its
         * build-id or inode proves it is the same file. */
        int same = same_inode(dso, path);
        if (same == 0) {
            pr_debug("%s: a different file (inode) than the one mapped", path);
            *why = deleted ? DSO_MISSING : DSO_BUILD_ID_MISMATCH;
            return 0;
        }
        if (deleted && same < 0 && !want_len)
            return 0;
    }
    err = elf_file_open(path, &ef);
    if (err) {
        pr_debug("%s: %s", path, symfile_strerror(err));
        *why = err == -ENOEXEC && !deleted ? DSO_BAD_ELF : DSO_MISSING;
        free(disk);
        return err == -ENOMEM ? err : 0;
    }
    if (elf_read_build_id(ef.elf, dso->fbid, sizeof(dso->fbid), &dso->fbid_len))
        dso->fbid_len = 0;
    if (want_len && !build_id_equal(want, want_len, dso->fbid, dso->fbid_len)) {
        pr_debug("%s: build-id differs from the mapped file's", path);
        *why = deleted ? DSO_MISSING : DSO_BUILD_ID_MISMATCH;
        dso->fbid_len = 0;
        err = 0;
    } else {
        err = locate_elf(dso, &ef, path);
        err = err ? err : 1;
    }
    elf_file_close(&ef);
    free(disk);
    return err;
}

int dso_locate_file(struct dso *dso)
{
    uint8_t want[BUILD_ID_MAX];
    size_t want_len;
    bool deleted = str_ends(dso->path, DELETED_SUFFIX);
    char *path, *used;
    struct elf_file ef;
    enum dso_status why;
    int err;

    path = deleted ? strndup(dso->path, strlen(dso->path) - strlen(DELETED_SUFFIX))
                   : strdup(dso->path);
    if (!path)
        return -ENOMEM;
    want_len = wanted_build_id(dso, path, want);
    err = locate_on_disk(dso, path, deleted, want, want_len, &why);
    if (err) {
        free(path);
        return err < 0 ? err : 0;
    }
    /* Deleted or rebuilt since: perf's build-id cache may hold a copy of the mapped file. */
    err = want_len ? buildid_cache_open(path, want, want_len, &ef, &used) : -ENOENT;
    free(path);
    if (err == -ENOMEM)
        return err;
    if (err) {
        dso->status = why;
        return 0;
    }
    if (elf_read_build_id(ef.elf, dso->fbid, sizeof(dso->fbid), &dso->fbid_len))
        dso->fbid_len = 0;
    err = locate_elf(dso, &ef, used);
    elf_file_close(&ef);
    free(used);
    return err;
}

/* Reopens the located code file: 0, -ESTALE when it was replaced or rewritten since (it is
 * then not read), another -errno. */
static int open_code(struct dso *dso, struct elf_file *ef)
{
    struct stat st;
    int err = elf_file_open(dso->code_path, ef);

    if (err)
        return err;
    if (fstat(ef->fd, &st) || st.st_dev != dso->code_dev || st.st_ino != dso->code_ino ||
        st.st_size != dso->code_size || st.st_mtim.tv_sec != dso->code_mtime.tv_sec ||
        st.st_mtim.tv_nsec != dso->code_mtime.tv_nsec) {
        pr_debug("%s: replaced or changed since it was first opened", dso->code_path);
        elf_file_close(ef);
        return -ESTALE;
    }
    return 0;
}

int dso_load_file(struct dso *dso)
{
    struct elf_file ef;
    int err;

    if (!dso->code_path)
        return 0;   /* dso_locate_file set the status */
    err = open_code(dso, &ef);
    if (err) {
        dso->status = DSO_MISSING;
        return err == -ENOMEM ? err : 0;
    }
    err = load_syms(dso, &ef, dso->code_path);
    elf_file_close(&ef);
    return err;
}

int dso_find_debug_path(struct dso *dso)
{
    struct elf_file ef;
    const char *found = NULL;
    int err;

    if (dso->debug_done || !dso->code_path)
        return 0;
    err = open_code(dso, &ef);
    if (err == -ENOMEM)
        return err;
    if (!err) {
        if (has_section_data(ef.elf, ".debug_info"))
            found = dso->code_path;
        else if (!(err = search_debug(dso, ef.elf)) && dso->sep_has_dwarf)
            found = dso->sep_debug;
        elf_file_close(&ef);
        if (err == -ENOMEM)
            return err;
        if (found && !(dso->debug_path = strdup(found)))
            return -ENOMEM;
    }
    dso->debug_done = true;
    return 0;
}
