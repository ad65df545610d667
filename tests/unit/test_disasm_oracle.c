/* SPDX-License-Identifier: MIT */
/* The decoder against objdump (the oracle): every executable section of Debian's libc, libm,
 * ld.so, libstdc++ and python3.11 is disassembled as annotate does (ann_disasm over each
 * objdump symbol block) and compared instruction by instruction: the same boundaries, no
 * "(bad)" where objdump decodes, and the same mnemonic or one of the spellings listed in
 * docs/annotate.md ("Instruction spelling"). */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "annotate/disasm.h"
#include "test.h"

struct oinsn {
    uint64_t addr;
    char mnem[32];
    bool bad;
};

struct block {
    struct oinsn *v;
    size_t n, cap;
};

struct totals {
    size_t insns, boundary, bad, spelled, differ;
    char first_diff[256];
};

/* objdump's mnemonic: the first word of its text that is not a prefix (rep, lock, cs...). */
static void objdump_mnemonic(const char *text, char *out, size_t len)
{
    static const char *const prefixes[] = {
        "rep", "repz", "repnz", "repe", "repne", "lock", "notrack", "bnd", "data16", "data32",
        "addr32", "cs", "ds", "es", "ss", "fs", "gs", "xacquire", "xrelease", "rex", "rex.W",
        "rex.B", "rex.R", "rex.X", "rex.WB", "rex.WR", "rex.WX", "rex.RB", "rex.XB", "rex.WRB",
        "rex.WXB", "rex.RXB", "rex.WRXB", "rex.RX", "rex.WRX",
    };
    const char *p = text + strspn(text, " ");

    for (;;) {
        size_t w = strcspn(p, " \n"), i;
        for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
            if (strlen(prefixes[i]) == w && !strncmp(p, prefixes[i], w))
                break;
        if (i == sizeof(prefixes) / sizeof(prefixes[0]) || !p[w] || p[w] == '\n') {
            snprintf(out, len, "%.*s", (int)w, p);
            return;
        }
        p += w;
        p += strspn(p, " ");
    }
}

/* The last word of our mnemonic text ("lock cmpxchg" -> "cmpxchg"). */
static const char *last_word(const char *s)
{
    const char *sp = strrchr(s, ' ');
    return sp ? sp + 1 : s;
}

struct xsec {
    uint64_t addr, size;
    const uint8_t *data;
};

struct image {
    int fd;
    Elf *elf;
    struct xsec s[32];
    size_t n;
};

static int image_open(struct image *im, const char *path)
{
    Elf_Scn *scn = NULL;

    memset(im, 0, sizeof(*im));
    elf_version(EV_CURRENT);
    if ((im->fd = open(path, O_RDONLY)) < 0)
        return -errno;
    if (!(im->elf = elf_begin(im->fd, ELF_C_READ, NULL)))
        return -EINVAL;
    while ((scn = elf_nextscn(im->elf, scn)) && im->n < 32) {
        GElf_Shdr sh;
        Elf_Data *d;
        if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_EXECINSTR) ||
            sh.sh_type != SHT_PROGBITS || !(d = elf_getdata(scn, NULL)) || !d->d_buf)
            continue;
        im->s[im->n++] = (struct xsec){ sh.sh_addr, sh.sh_size, d->d_buf };
    }
    return 0;
}

static void image_close(struct image *im)
{
    elf_end(im->elf);
    close(im->fd);
}

static const struct xsec *section_of(const struct image *im, uint64_t a)
{
    for (size_t i = 0; i < im->n; i++)
        if (a >= im->s[i].addr && a - im->s[i].addr < im->s[i].size)
            return &im->s[i];
    return NULL;
}

/* Two spellings of one instruction (objdump's, ours): see docs/annotate.md. */
static bool same_spelling(const char *o, const char *z);

static void note_diff(struct totals *t, const char *what, uint64_t a, const char *o,
                      const char *z)
{
    if (!t->first_diff[0])
        snprintf(t->first_diff, sizeof(t->first_diff), "%s at %#llx: objdump '%s', ours '%s'",
                 what, (unsigned long long)a, o, z);
}

/* Decodes one objdump block [v[0].addr, end) as annotate does and compares. */
static void compare_block(const struct image *im, const struct block *b, uint64_t end,
                          struct totals *t)
{
    const struct xsec *s = section_of(im, b->v[0].addr);
    struct ann_insn *z;
    size_t j = 0;
    long n;

    if (!s || end <= b->v[0].addr)
        return;
    if (end > s->addr + s->size)
        end = s->addr + s->size;
    n = ann_disasm(s->data + (b->v[0].addr - s->addr), end - b->v[0].addr, b->v[0].addr,
                   ANN_ATT, &z);
    if (n < 0)
        return;
    for (size_t k = 0, i = 0; k < (size_t)n; k++) {      /* our starts that objdump lacks */
        while (i < b->n && b->v[i].addr < z[k].addr)
            i++;
        if (z[k].addr <= b->v[b->n - 1].addr && (i == b->n || b->v[i].addr != z[k].addr)) {
            t->boundary++;
            note_diff(t, "boundary", z[k].addr, "(elsewhere)", z[k].mnemonic);
        }
    }
    for (size_t i = 0; i < b->n; i++) {
        const struct oinsn *o = &b->v[i];
        while (j < (size_t)n && z[j].addr < o->addr)
            j++;
        t->insns++;
        if (j == (size_t)n || z[j].addr != o->addr) {
            t->boundary++;
            note_diff(t, "boundary", o->addr, o->mnem, j < (size_t)n ? "(elsewhere)" : "(end)");
            continue;
        }
        if (o->bad)
            continue;
        if (z[j].bad) {
            t->bad++;
            note_diff(t, "(bad)", o->addr, o->mnem, "(bad)");
        } else if (!strcmp(o->mnem, last_word(z[j].mnemonic))) {
            continue;
        } else if (same_spelling(o->mnem, last_word(z[j].mnemonic))) {
            t->spelled++;
        } else {
            t->differ++;
            note_diff(t, "mnemonic", o->addr, o->mnem, z[j].mnemonic);
            if (getenv("ORACLE_LIST"))
                printf("DIFF %s %s\n", o->mnem, last_word(z[j].mnemonic));
        }
    }
    free(z);
}

/* An objdump -d line: a block header "0000000000026000 <name>:" (*hdr), an instruction
 * "   26000:\tpush ..." (filled in *o), or neither. */
static bool parse_line(const char *line, bool *hdr, uint64_t *hdr_addr, struct oinsn *o)
{
    char *end;
    const char *tab;
    unsigned long long a = strtoull(line, &end, 16);

    *hdr = false;
    if (end != line && end[0] == ' ' && end[1] == '<' && strstr(end, ">:")) {
        *hdr = true;
        *hdr_addr = a;
        return false;
    }
    if (end == line || *end != ':' || !(tab = strchr(end, '\t')))
        return false;
    o->addr = a;
    o->bad = strstr(tab, "(bad)") != NULL;
    objdump_mnemonic(tab + 1, o->mnem, sizeof(o->mnem));
    return true;
}

static int block_push(struct block *b, const struct oinsn *o)
{
    if (b->n == b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 256;
        struct oinsn *v = realloc(b->v, cap * sizeof(*v));
        if (!v)
            return -ENOMEM;
        b->v = v;
        b->cap = cap;
    }
    b->v[b->n++] = *o;
    return 0;
}

/* Runs objdump over path and compares each of its blocks. 0, or -errno. */
static int compare_file(const char *path, struct totals *t)
{
    char cmd[4200], line[4096];
    struct image im;
    struct block b = { 0 };
    FILE *p;
    int e = image_open(&im, path);

    if (e)
        return e;
    snprintf(cmd, sizeof(cmd), "objdump -d -z -w --no-show-raw-insn '%s' 2>/dev/null", path);
    if (!(p = popen(cmd, "r"))) {
        image_close(&im);
        return -errno;
    }
    while (fgets(line, sizeof(line), p)) {
        struct oinsn o;
        uint64_t ha = 0;
        bool hdr;
        if (parse_line(line, &hdr, &ha, &o)) {
            if ((e = block_push(&b, &o)))
                break;
        } else if (hdr || !strncmp(line, "Disassembly of section", 22)) {
            if (b.n)
                compare_block(&im, &b, hdr ? ha : UINT64_MAX, t);
            b.n = 0;
        }
    }
    if (b.n)
        compare_block(&im, &b, UINT64_MAX, t);
    if (pclose(p) != 0 && !e)
        e = -EIO;
    free(b.v);
    image_close(&im);
    return e;
}

/* o is z with an AT&T operand-size suffix (nopl/nop, decq/dec, fldt/fld), or the reverse
 * (movsd/movsdq, vmovdqu64/vmovdqu64y, vpbroadcastb/vpbroadcastbb). */
static bool size_suffix(const char *o, const char *z)
{
    static const char *const sfx[] = { "b", "w", "l", "q", "s", "t", "ll", "x", "y", "z" };
    size_t ol = strlen(o), zl = strlen(z);
    const char *longer = ol > zl ? o : z, *shorter = ol > zl ? z : o;
    size_t sl = strlen(shorter);

    if (strncmp(longer, shorter, sl))
        return false;
    for (size_t i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++)
        if (!strcmp(longer + sl, sfx[i]))
            return true;
    return false;
}

/* objdump's movzbl/movswq/movslq are Zydis' movzx/movsx/movsxd with or without a suffix. */
static bool extend_move(const char *o, const char *z)
{
    if (strlen(o) != 6 || strncmp(o, "mov", 3) || !strchr("wlq", o[5]))
        return false;
    if (o[3] == 'z' && strchr("bw", o[4]))
        return !strncmp(z, "movzx", 5);
    if (o[3] == 's' && strchr("bwl", o[4]))
        return !strncmp(z, "movsx", 5);
    return false;
}

/* Whole-name spellings of one instruction: docs/annotate.md, "Instruction spelling". */
static const char *const spellings[][2] = {
    { "cltq", "cdqe" }, { "cqto", "cqo" }, { "cltd", "cdq" }, { "cwtl", "cwde" },
    { "cbtw", "cbw" }, { "cwtd", "cwd" }, { "movabs", "mov" }, { "xchg", "nop" },
    { "movsl", "movsd" }, { "stosl", "stosd" }, { "lodsl", "lodsd" }, { "scasl", "scasd" },
    { "cmpsl", "cmpsd" }, { "stos", "stosb" }, { "stos", "stosw" }, { "stos", "stosd" },
    { "stos", "stosq" }, { "lods", "lodsb" }, { "lods", "lodsq" }, { "scas", "scasb" },
    { "movs", "movsb" }, { "movs", "movsq" }, { "cmps", "cmpsb" },
    /* AT&T's reversed x87 subtract and divide (binutils' UnixWare compatibility). */
    { "fsub", "fsubr" }, { "fsubr", "fsub" }, { "fsubp", "fsubrp" }, { "fsubrp", "fsubp" },
    { "fdiv", "fdivr" }, { "fdivr", "fdiv" }, { "fdivp", "fdivrp" }, { "fdivrp", "fdivp" },
    { NULL, NULL },
};

static bool same_spelling(const char *o, const char *z)
{
    if (size_suffix(o, z) || extend_move(o, z))
        return true;
    for (size_t i = 0; spellings[i][0]; i++)
        if (!strcmp(o, spellings[i][0]) && !strcmp(z, spellings[i][1]))
            return true;
    return false;
}

static void check_file(const char *test_name_, const char *path)
{
    struct totals t = { 0 };
    int e;

    if (access(path, R_OK))
        SKIP("file missing (scripts/install-deps installs it)");
    if (system("objdump --version >/dev/null 2>&1"))
        SKIP("objdump (binutils) not installed");
    e = compare_file(path, &t);
    CHECK_EQ_U64(e, 0);
    printf("# %s: %zu instructions, %zu spelled differently, first difference: %s\n", path,
           t.insns, t.spelled, t.first_diff[0] ? t.first_diff : "none");
    CHECK(t.insns > 10000);
    CHECK_EQ_U64(t.boundary, 0);
    CHECK_EQ_U64(t.bad, 0);
    CHECK_EQ_U64(t.differ, 0);
}

TEST(oracle_libc) { check_file(test_name_, "/lib/x86_64-linux-gnu/libc.so.6"); }
TEST(oracle_libm) { check_file(test_name_, "/lib/x86_64-linux-gnu/libm.so.6"); }
TEST(oracle_ld_so) { check_file(test_name_, "/lib64/ld-linux-x86-64.so.2"); }
TEST(oracle_libstdcxx) { check_file(test_name_, "/lib/x86_64-linux-gnu/libstdc++.so.6"); }
TEST(oracle_python3_11) { check_file(test_name_, "/usr/bin/python3.11"); }

int main(void)
{
    RUN(oracle_libc);
    RUN(oracle_libm);
    RUN(oracle_ld_so);
    RUN(oracle_libstdcxx);
    RUN(oracle_python3_11);
    return 0;
}
