/* SPDX-License-Identifier: MIT */
/* One file's CFI (src/unwind/cfi.c, ehview.c, mapguard.c): the rules of every PC, looked up
 * through .eh_frame_hdr's binary search table also where the file lists that section after
 * .eh_frame (as libLLVM-14 does; elfutils 0.188 alone then scans .eh_frame), and a file that
 * shrinks under the report. */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "symbol/dso.h"
#include "unwind/cfi.h"
#include "test.h"

#define LATE FIXTURE_DIR "/libehlate.so"

struct layout {
    size_t eh_ndx, hdr_ndx;       /* section indexes */
    uint64_t eh_off;              /* .eh_frame's file offset */
    uint64_t text, text_end;      /* .text's addresses */
    uint64_t first_fde;           /* the first FDE's offset in .eh_frame */
};

static int read_layout(const char *path, struct layout *l)
{
    int fd = open(path, O_RDONLY);
    Elf *e;
    Elf_Scn *scn = NULL;
    size_t shstrndx;
    int ret = -1;

    memset(l, 0, sizeof(*l));
    elf_version(EV_CURRENT);
    if (fd < 0)
        return -1;
    if (!(e = elf_begin(fd, ELF_C_READ, NULL)) || elf_getshdrstrndx(e, &shstrndx))
        goto out;
    while ((scn = elf_nextscn(e, scn))) {
        GElf_Shdr sh;
        const char *name;
        if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(e, shstrndx, sh.sh_name)))
            continue;
        if (!strcmp(name, ".eh_frame_hdr"))
            l->hdr_ndx = elf_ndxscn(scn);
        if (!strcmp(name, ".text")) {
            l->text = sh.sh_addr;
            l->text_end = sh.sh_addr + sh.sh_size;
        }
        if (strcmp(name, ".eh_frame"))
            continue;
        l->eh_ndx = elf_ndxscn(scn);
        l->eh_off = sh.sh_offset;
        /* The first FDE, with libdw's own walker. */
        Elf_Data *d = elf_rawdata(scn, NULL);
        GElf_Ehdr eh;
        Dwarf_Off off = 0, next;
        Dwarf_CFI_Entry ent;
        if (!d || !gelf_getehdr(e, &eh))
            goto out;
        while (!dwarf_next_cfi(eh.e_ident, d, true, off, &next, &ent)) {
            if (!dwarf_cfi_cie_p(&ent)) {
                l->first_fde = off;
                break;
            }
            off = next;
        }
    }
    ret = l->eh_ndx && l->hdr_ndx && l->text && l->first_fde ? 0 : -1;
out:
    if (e)
        elf_end(e);
    close(fd);
    return ret;
}

/* libdw's own CFI of a file, as dwarf_getcfi_elf gives it for the file as it is. */
struct plain {
    int fd;
    Elf *e;
    Dwarf_CFI *cfi;
};

static int plain_open(const char *path, struct plain *p)
{
    p->fd = open(path, O_RDONLY);
    p->e = p->fd >= 0 ? elf_begin(p->fd, ELF_C_READ, NULL) : NULL;
    p->cfi = p->e ? dwarf_getcfi_elf(p->e) : NULL;
    return p->cfi ? 0 : -1;
}

static void plain_close(struct plain *p)
{
    if (p->cfi)
        dwarf_cfi_end(p->cfi);
    if (p->e)
        elf_end(p->e);
    if (p->fd >= 0)
        close(p->fd);
}

static bool same_ops(const struct uw_cfi *c, const struct uw_expr *x, const Dwarf_Op *ops,
                     size_t n)
{
    const struct uw_op *o = uw_cfi_ops(c, x);
    if (x->n != n)
        return false;
    for (size_t i = 0; i < n; i++)
        if (o[i].atom != ops[i].atom || o[i].n1 != ops[i].number ||
            o[i].n2 != ops[i].number2)
            return false;
    return true;
}

/* Does our rule say what libdw's frame says: the row, the CFA, and every register? */
static bool same_rule(const struct uw_cfi *c, const struct uw_rule *r, Dwarf_Frame *f)
{
    Dwarf_Addr start, end;
    bool signal;
    Dwarf_Op *ops, mem[3];
    size_t n;
    int ra = dwarf_frame_info(f, &start, &end, &signal);

    if (!r->found || ra != r->ra || start != r->row_start || signal != r->signal)
        return false;
    if (dwarf_frame_cfa(f, &ops, &n) || !same_ops(c, &r->cfa, ops, n))
        return false;
    for (int i = 0; i < DW_NREGS; i++) {
        const struct uw_expr *x = &r->reg[i];
        if (dwarf_frame_register(f, i, mem, &ops, &n)) {
            if (x->kind != UW_UNDEF)
                return false;
            continue;
        }
        if (!n) {
            if (x->kind != (ops ? UW_UNDEF : UW_SAME))
                return false;
            continue;
        }
        bool val = ops[n - 1].atom == DW_OP_stack_value;
        if (x->kind != (val ? UW_VAL : UW_AT) || !same_ops(c, x, ops, n - val))
            return false;
    }
    return true;
}

static int copy_file(const char *from, const char *to)
{
    char buf[65536];
    ssize_t k;
    int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int ret = in >= 0 && out >= 0 ? 0 : -1;

    while (!ret && (k = read(in, buf, sizeof(buf))) > 0)
        ret = write(out, buf, (size_t)k) == k ? 0 : -1;
    if (in >= 0)
        close(in);
    if (out >= 0)
        close(out);
    return ret;
}

/* Every PC of .text: the same rule as libdw finds scanning the file itself. */
TEST(late_hdr_rules_match_libdw)
{
    struct layout l;
    struct plain p;
    struct dso_cache *dc = dso_cache_new();
    struct dso *d = dso_cache_get(dc, DSO_FILE, LATE, NULL, 0, 0);
    struct uw_cfi *c = uw_cfi_open(d);
    size_t found = 0, entries = 0;

    CHECK(read_layout(LATE, &l) == 0);
    CHECK(l.hdr_ndx > l.eh_ndx);          /* the kind of file this is about */
    CHECK(c);
    CHECK(plain_open(LATE, &p) == 0);
    for (uint64_t a = l.text; a < l.text_end; a++) {
        const struct uw_rule *r = uw_cfi_rule(c, a);
        Dwarf_Frame *f = NULL;
        CHECK(r);
        if (dwarf_cfi_addrframe(p.cfi, a, &f)) {
            CHECK(!r->found);
            continue;
        }
        bool same = same_rule(c, r, f);
        free(f);
        CHECK(same);
        found++;
        /* A function's entry: the CFA is rsp + 8, the return address at CFA - 8. */
        const struct uw_op *o = uw_cfi_ops(c, &r->cfa);
        if (r->row_start == a && r->cfa.n == 1 && r->reg[r->ra].kind == UW_AT &&
            ((o->atom == DW_OP_bregx && o->n1 == 7 && o->n2 == 8) ||
             (o->atom == DW_OP_breg7 && o->n1 == 8)))
            entries++;
    }
    plain_close(&p);
    uw_cfi_free(c);
    dso_cache_free(dc);
    CHECK(found > 100);
    CHECK(entries >= 3);                  /* sym_lib.c's functions */
}

/* The search table is what finds the FDE: with the first FDE made unreadable (a length
 * beyond the section), libdw's scan from .eh_frame's start stops there, while the table
 * leads past it to the others' right rules. */
TEST(late_hdr_lookups_use_search_table)
{
    char dir[] = "/tmp/prospect-cfi-XXXXXX", path[64];
    struct layout l;
    struct plain good, bad;
    struct dso_cache *dc = NULL;
    struct uw_cfi *c = NULL;
    size_t past = 0;
    uint32_t len = 0x7ffffff0;
    int fd;

    CHECK(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/lib.so", dir);
    CHECK(read_layout(LATE, &l) == 0);
    CHECK(copy_file(LATE, path) == 0);
    CHECK((fd = open(path, O_WRONLY)) >= 0);
    CHECK(pwrite(fd, &len, 4, (off_t)(l.eh_off + l.first_fde)) == 4);
    close(fd);
    CHECK(plain_open(LATE, &good) == 0);
    CHECK(plain_open(path, &bad) == 0);
    dc = dso_cache_new();
    c = uw_cfi_open(dso_cache_get(dc, DSO_FILE, path, NULL, 0, 0));
    CHECK(c);
    for (uint64_t a = l.text; a < l.text_end; a++) {
        Dwarf_Frame *f = NULL, *fb = NULL;
        const struct uw_rule *r = uw_cfi_rule(c, a);
        CHECK(r);
        if (dwarf_cfi_addrframe(good.cfi, a, &f))
            continue;
        bool scan_found = !dwarf_cfi_addrframe(bad.cfi, a, &fb);
        free(fb);
        /* Ours: the right rule, or none (the damaged FDE's own range). */
        bool ok = !r->found || same_rule(c, r, f);
        free(f);
        CHECK(ok);
        past += r->found && !scan_found;
    }
    CHECK(past > 0);
    uw_cfi_free(c);
    dso_cache_free(dc);
    plain_close(&good);
    plain_close(&bad);
    unlink(path);
    rmdir(dir);
}

/* The file that showed the problem, when installed: rules at PCs spread over its .text are
 * libdw's own. */
TEST(libllvm14_rules_match_libdw)
{
    static const char *const paths[] = { "/usr/lib/x86_64-linux-gnu/libLLVM-14.so.1",
                                         "/usr/lib/llvm-14/lib/libLLVM-14.so.1" };
    const char *path = NULL;
    struct layout l;
    struct plain p;
    struct dso_cache *dc;
    struct uw_cfi *c;
    size_t found = 0;

    for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]) && !path; i++)
        if (!access(paths[i], R_OK))
            path = paths[i];
    if (!path)
        SKIP("libLLVM-14.so.1 is not installed (the fixture covers the same layout)");
    CHECK(read_layout(path, &l) == 0);
    if (l.hdr_ndx < l.eh_ndx)
        SKIP("this libLLVM-14 lists .eh_frame_hdr before .eh_frame");
    CHECK(plain_open(path, &p) == 0);
    dc = dso_cache_new();
    c = uw_cfi_open(dso_cache_get(dc, DSO_FILE, path, NULL, 0, 0));
    CHECK(c);
    /* 4096 PCs, spread by a multiplicative step so rows of all kinds are met. */
    for (uint64_t i = 0; i < 4096; i++) {
        uint64_t a = l.text + (i * 0x9e3779b97f4a7c15ULL >> 20) % (l.text_end - l.text);
        const struct uw_rule *r = uw_cfi_rule(c, a);
        Dwarf_Frame *f = NULL;
        CHECK(r);
        if (dwarf_cfi_addrframe(p.cfi, a, &f)) {
            CHECK(!r->found);
            continue;
        }
        bool same = same_rule(c, r, f);
        free(f);
        CHECK(same);
        found++;
    }
    uw_cfi_free(c);
    dso_cache_free(dc);
    plain_close(&p);
    CHECK(found > 3000);
}

/* The file truncated while its .eh_frame is mapped: lookups find nothing, never a SIGBUS. */
TEST(file_truncated_under_mapping)
{
    char dir[] = "/tmp/prospect-cfi-XXXXXX", path[64];
    struct layout l;
    struct dso_cache *dc;
    struct uw_cfi *c;
    const struct uw_rule *r;

    CHECK(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/lib.so", dir);
    CHECK(read_layout(LATE, &l) == 0);
    CHECK(copy_file(LATE, path) == 0);
    dc = dso_cache_new();
    c = uw_cfi_open(dso_cache_get(dc, DSO_FILE, path, NULL, 0, 0));
    CHECK(c);
    r = uw_cfi_rule(c, l.text);
    CHECK(r);
    CHECK(truncate(path, 64) == 0);
    for (uint64_t a = l.text + 1; a < l.text_end; a++) {
        r = uw_cfi_rule(c, a);
        CHECK(r);
        CHECK(!r->found);
    }
    uw_cfi_free(c);
    dso_cache_free(dc);
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    RUN(late_hdr_rules_match_libdw);
    RUN(late_hdr_lookups_use_search_table);
    RUN(libllvm14_rules_match_libdw);
    RUN(file_truncated_under_mapping);
    return 0;
}
