/* SPDX-License-Identifier: MIT */
/* The entry hook: a tiny shared library that `prospect stat -r` preloads (LD_PRELOAD) into the
 * command it launches. It is not part of libpcore: it runs inside the measured program, is built
 * without sanitizers and embedded into prospect as bytes (see src/probe/jump_entry.c).
 *
 * Why: a uprobe on a function's first instruction costs one int3 trap plus, when the kernel
 * cannot emulate that instruction (mov, lea, add, ... : most leaf functions), a single-step
 * trap, ~11 us on a VM. Instead, before main() runs, this hook replaces the first bytes of
 * each chosen function with `jmp slot`, where `slot` is in a small file Prospect wrote (the
 * trampoline) and holds a nop that Prospect probes (uprobe + uretprobe: the kernel emulates a
 * nop, no single-step), then `jmp *data[slot]` to a stub that runs the moved instructions and
 * jumps back. Prospect decided which functions are safe (see jump_entry.c); this hook only
 * applies the plan, checks the bytes it replaces, and logs what it did.
 *
 * Plan (PROSPECT_JUMP_PLAN names a directory with "plan", "trampoline" and "log"):
 *   prospect-jump 1 <trampoline size>
 *   site <slot> <dev> <ino> <vaddr> <len> <bytes> <stub len> <stub> <nfix> [<off> <end> <target>]...
 * Numbers are hex, byte strings two hex digits per byte. dev/ino name the executable; vaddr
 * and target are its ELF addresses. <bytes> are the function's first bytes as in the file (the
 * hook checks them), <stub> the instructions to run instead, whose RIP-relative 32-bit
 * displacement at <off> (instruction ending at <end>) must reach <target>.
 * Log lines: "<pid> ok <n>" or "<pid> fail <slot or -> <reason>", under 256 bytes; the log is
 * Prospect's private file (0600), which Prospect validates. On any doubt a site is left alone
 * (its crossings are then not counted in that process, and prospect says so from the log). */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define SLOT_SIZE 16
#define STUB_SIZE 64
#define MAX_SITES 256
#define MAX_FIX 4
#define PAGE 4096UL

struct site {
    unsigned slot, len, nfix;
    uint64_t dev, ino, vaddr;
    uint8_t bytes[32];
    unsigned stub_len;
    uint8_t stub[48];
    struct { unsigned disp_off, insn_end; uint64_t target; } fix[MAX_FIX];
};

static struct site sites[MAX_SITES];
static unsigned nsites;
static char dir[512];
static int logfd = -1;

static void log_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void log_line(const char *fmt, ...)
{
    char buf[256];
    int n = snprintf(buf, sizeof(buf), "%d ", (int)getpid());
    va_list ap;
    va_start(ap, fmt);
    n += vsnprintf(buf + n, sizeof(buf) - (size_t)n, fmt, ap);
    va_end(ap);
    if (logfd >= 0 && n > 0 && (size_t)n < sizeof(buf) - 1) {
        buf[n++] = '\n';
        if (write(logfd, buf, (size_t)n) < 0) { /* nothing more to do */ }
    }
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

/* Next hex number of *p; -1 on error. */
static int hexnum(const char **p, uint64_t *v)
{
    const char *s = *p;
    int d, n = 0;
    while (*s == ' ')
        s++;
    *v = 0;
    while ((d = hexval(*s)) >= 0 && n < 16) {
        *v = *v << 4 | (unsigned)d;
        s++;
        n++;
    }
    if (!n || (*s != ' ' && *s != '\n' && *s != '\0'))
        return -1;
    *p = s;
    return 0;
}

static int hexbytes(const char **p, uint8_t *out, unsigned n)
{
    const char *s = *p;
    while (*s == ' ')
        s++;
    for (unsigned i = 0; i < n; i++) {
        int hi = hexval(s[2 * i]), lo = hi < 0 ? -1 : hexval(s[2 * i + 1]);
        if (lo < 0)
            return -1;
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    s += 2 * n;
    if (*s != ' ')
        return -1;
    *p = s;
    return 0;
}

static int parse_site(const char *s, struct site *st)
{
    uint64_t v[6];
    for (int i = 0; i < 5; i++)
        if (hexnum(&s, &v[i]))
            return -1;
    st->slot = (unsigned)v[0];
    st->dev = v[1];
    st->ino = v[2];
    st->vaddr = v[3];
    st->len = (unsigned)v[4];
    if (v[0] >= MAX_SITES || st->len < 5 || st->len > sizeof(st->bytes))
        return -1;
    if (hexbytes(&s, st->bytes, st->len) || hexnum(&s, &v[5]) || v[5] > sizeof(st->stub))
        return -1;
    st->stub_len = (unsigned)v[5];
    if (hexbytes(&s, st->stub, st->stub_len) || hexnum(&s, &v[5]) || v[5] > MAX_FIX)
        return -1;
    st->nfix = (unsigned)v[5];
    for (unsigned i = 0; i < st->nfix; i++) {
        uint64_t a, b, c;
        if (hexnum(&s, &a) || hexnum(&s, &b) || hexnum(&s, &c) || a + 4 > b || b > st->stub_len)
            return -1;
        st->fix[i].disp_off = (unsigned)a;
        st->fix[i].insn_end = (unsigned)b;
        st->fix[i].target = c;
    }
    return 0;
}

/* Reads the plan; returns the trampoline size or 0. */
static uint64_t read_plan(void)
{
    static char buf[64 * 1024];
    char path[600];
    uint64_t tsize = 0;
    ssize_t n;
    int fd;

    snprintf(path, sizeof(path), "%s/plan", dir);
    fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return 0;
    n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    for (char *line = buf, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        if (!strncmp(line, "prospect-jump 1 ", 16)) {
            const char *s = line + 16;
            if (hexnum(&s, &tsize) || tsize % PAGE || tsize > 64 * PAGE)
                return 0;
        } else if (!strncmp(line, "site ", 5) && nsites < MAX_SITES) {
            if (parse_site(line + 5, &sites[nsites]) == 0)
                nsites++;
            else
                log_line("fail - malformed plan line");
        }
    }
    return tsize;
}

struct exe_info {
    uint64_t bias, lo, hi;
    int found;
};

static int find_exe(struct dl_phdr_info *info, size_t size, void *arg)
{
    struct exe_info *e = arg;
    (void)size;
    if (e->found)
        return 1;
    e->found = 1;     /* the first object is the program */
    e->bias = info->dlpi_addr;
    e->lo = UINT64_MAX;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD)
            continue;
        if (info->dlpi_addr + ph->p_vaddr < e->lo)
            e->lo = info->dlpi_addr + ph->p_vaddr;
        if (info->dlpi_addr + ph->p_vaddr + ph->p_memsz > e->hi)
            e->hi = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
    }
    return 1;
}

static int near(uint64_t a, uint64_t b)
{
    int64_t d = (int64_t)(a - b);
    return d > -0x7ff00000LL && d < 0x7ff00000LL;
}

/* Reserves `size` bytes below (else above) the program, within reach of rel32 jumps. */
static uint8_t *reserve_near(const struct exe_info *e, uint64_t size)
{
    for (int i = 0; i < 128; i++) {
        uint64_t step = (uint64_t)(i / 2 + 1) << 21;
        uint64_t at = i % 2 ? (e->hi + step + PAGE - 1) & ~(PAGE - 1)
                            : ((e->lo - size - step) & ~(PAGE - 1));
        if (!(i % 2) && (e->lo < size + step + 0x10000))
            continue;
        void *p = mmap((void *)at, size, PROT_NONE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
        if (p == MAP_FAILED)
            continue;
        if (near((uint64_t)p, e->lo) && near((uint64_t)p + size, e->hi))
            return p;
        munmap(p, size);
    }
    return NULL;
}

static int write_code(uint64_t addr, const uint8_t *bytes, size_t n)
{
    uint64_t lo = addr & ~(PAGE - 1), hi = (addr + n + PAGE - 1) & ~(PAGE - 1);
    if (mprotect((void *)lo, hi - lo, PROT_READ | PROT_WRITE))
        return -1;
    memcpy((void *)addr, bytes, n);
    return mprotect((void *)lo, hi - lo, PROT_READ | PROT_EXEC);
}

static void put_rel32(uint8_t *at, uint64_t from_end, uint64_t to)
{
    int32_t d = (int32_t)(int64_t)(to - from_end);
    memcpy(at, &d, 4);
}

/* In a process of another program (a shell, a tool the program runs) the hook takes itself
 * out of LD_PRELOAD and the plan out of the environment, so that program's own children run
 * exactly as without Prospect. */
static void leave_environment(void)
{
    const char *pre = getenv("LD_PRELOAD");
    static char self[600], buf[8192];
    size_t n = 0, sl;

    snprintf(self, sizeof(self), "%s/entry_hook.so", dir);
    sl = strlen(self);
    if (pre && strlen(pre) < sizeof(buf)) {
        for (const char *p = pre; *p;) {
            size_t l = strcspn(p, ": \t");
            if (l && !(l == sl && !strncmp(p, self, l))) {
                if (n)
                    buf[n++] = ':';
                memcpy(buf + n, p, l);
                n += l;
            }
            p += l;
            if (*p)
                p++;
        }
        buf[n] = '\0';
        if (n)
            setenv("LD_PRELOAD", buf, 1);
        else
            unsetenv("LD_PRELOAD");
    }
    unsetenv("PROSPECT_JUMP_PLAN");
}

/* Threads other than this one already running (started by a library's constructor): they may
 * be executing the very bytes being replaced, which cannot be done safely from here. */
static int other_threads(void)
{
    DIR *d = opendir("/proc/self/task");
    struct dirent *de;
    int n = 0;
    if (!d)
        return 0;
    while ((de = readdir(d)))
        n += de->d_name[0] != '.';
    closedir(d);
    return n > 1;
}

/* Is `d` the directory this hook was loaded from? A hook of an outer prospect (prospect
 * measuring prospect) must not apply the inner one's plan. */
static int loaded_from(const char *d)
{
    Dl_info info;
    const char *slash;
    if (!dladdr((void *)other_threads, &info) || !info.dli_fname ||
        !(slash = strrchr(info.dli_fname, '/')))
        return 0;
    return (size_t)(slash - info.dli_fname) == strlen(d) &&
           !strncmp(info.dli_fname, d, (size_t)(slash - info.dli_fname));
}

__attribute__((constructor)) static void prospect_entry_hook(void)
{
    const char *d = getenv("PROSPECT_JUMP_PLAN");
    struct exe_info exe = { 0 };
    struct stat st;
    uint64_t tsize, size, *data;
    uint8_t *base, *stubs;
    char path[600];
    unsigned ok = 0, mine = 0;
    int fd;

    if (!d || strlen(d) >= sizeof(dir) || !loaded_from(d))
        return;
    strcpy(dir, d);
    snprintf(path, sizeof(path), "%s/log", dir);
    /* Prospect's private 0600 file: a process that cannot append to it (another user) patches
     * nothing, as its failures would go unreported; Prospect sees the trampoline unmapped. */
    logfd = open(path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
    if (logfd < 0)
        return;
    tsize = read_plan();
    if (!tsize || stat("/proc/self/exe", &st)) {
        leave_environment();
        goto out;
    }
    for (unsigned i = 0; i < nsites; i++)
        mine += sites[i].dev == (uint64_t)st.st_dev && sites[i].ino == (uint64_t)st.st_ino;
    if (!mine) {
        leave_environment();   /* another program: nothing to do here */
        goto out;
    }
    if (other_threads()) {
        log_line("fail - other threads were already running (started by a library), which may "
              "be executing the code to patch");
        goto out;
    }
    dl_iterate_phdr(find_exe, &exe);
    /* trampoline file | data page (stub address per slot) | stubs */
    size = tsize + PAGE + ((MAX_SITES * STUB_SIZE + PAGE - 1) & ~(PAGE - 1));
    if (!exe.found || !(base = reserve_near(&exe, size))) {
        log_line("fail - no address space near the program");
        goto out;
    }
    snprintf(path, sizeof(path), "%s/trampoline", dir);
    fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 || mmap(base, tsize, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_FIXED, fd, 0) ==
                      MAP_FAILED) {
        log_line("fail - cannot map the trampoline");
        if (fd >= 0)
            close(fd);
        munmap(base, size);
        goto out;
    }
    close(fd);
    data = (uint64_t *)(base + tsize);
    stubs = base + tsize + PAGE;
    if (mprotect(data, size - tsize, PROT_READ | PROT_WRITE)) {
        log_line("fail - cannot prepare the stubs");
        munmap(base, size);
        goto out;
    }
    for (unsigned i = 0; i < nsites; i++) {
        struct site *s = &sites[i];
        uint64_t fn = exe.bias + s->vaddr;
        uint8_t *stub = stubs + (size_t)s->slot * STUB_SIZE;
        int bad = 0;

        if (s->dev != (uint64_t)st.st_dev || s->ino != (uint64_t)st.st_ino)
            continue;
        if (fn < exe.lo || fn + s->len > exe.hi || memcmp((void *)fn, s->bytes, s->len)) {
            log_line("fail %x %s", s->slot, *(uint8_t *)fn == 0xcc
                  ? "a breakpoint is already there" : "the code differs from the file");
            continue;
        }
        memcpy(stub, s->stub, s->stub_len);
        for (unsigned f = 0; f < s->nfix; f++) {
            uint64_t end = (uint64_t)stub + s->fix[f].insn_end, to = exe.bias + s->fix[f].target;
            bad |= !near(to, end);
            put_rel32(stub + s->fix[f].disp_off, end, to);
        }
        stub[s->stub_len] = 0xe9;                /* jmp fn+len */
        put_rel32(stub + s->stub_len + 1, (uint64_t)stub + s->stub_len + 5, fn + s->len);
        bad |= !near(fn + s->len, (uint64_t)stub + s->stub_len + 5);
        if (bad) {
            log_line("fail %x out of reach", s->slot);
            continue;
        }
        data[s->slot] = (uint64_t)stub;
    }
    if (mprotect(stubs, size - tsize - PAGE, PROT_READ | PROT_EXEC) ||
        mprotect(data, PAGE, PROT_READ)) {
        log_line("fail - cannot protect the stubs");
        goto out;
    }
    for (unsigned i = 0; i < nsites; i++) {
        struct site *s = &sites[i];
        uint64_t fn = exe.bias + s->vaddr, slot = (uint64_t)base + (uint64_t)s->slot * SLOT_SIZE;
        uint8_t jmp[5] = { 0xe9 };

        if (!data[s->slot] || s->dev != (uint64_t)st.st_dev || s->ino != (uint64_t)st.st_ino)
            continue;
        put_rel32(jmp + 1, fn + 5, slot);
        if (write_code(fn, jmp, 5)) {
            log_line("fail %x cannot write the code", s->slot);
            continue;
        }
        ok++;
    }
    log_line("ok %x", ok);
out:
    if (logfd >= 0)
        close(logfd);
    logfd = -1;
}
