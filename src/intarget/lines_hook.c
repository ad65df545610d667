/* SPDX-License-Identifier: MIT */
/* The in-process counting hook of `prospect lines` (plan: lines_abi.h), in the same preloaded
 * library as entry_hook.c, running before main in every image of the command's program:
 * maps the instrumented function copies next to the program (their RIP-relative references
 * must reach it), the shared counters after them, applies the fixes, then replaces each
 * function's first 5 bytes with `jmp copy`. Processes forked later share the counters (a
 * MAP_SHARED file mapping) and the patched code; an exec'd image of the program runs this again
 * and adds into the same counters. The file on disk is never changed. On any doubt a function
 * is left alone, and the log says so (Prospect reports it). */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <threads.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "lines_abi.h"

#define PAGE 4096UL
#define MAX_PLAN (64UL << 20)

struct lh_exe {
    uint64_t bias, lo, hi;
    int found;
};

static char lh_dir[512];
static int lh_log = -1;
/* The copies, and where their counters' prefixes are: turned into `lock` (lh_lock) before a
 * second thread or process can run them. */
static uint8_t *lh_code;
static uint64_t lh_csize;
static uint32_t *lh_sites;
static uint32_t lh_nsites;
static int lh_locked;

static void lh_say(const char *what, unsigned long n)
{
    char buf[256];
    int len = snprintf(buf, sizeof(buf), "%d %s %lx\n", (int)getpid(), what, n);
    if (lh_log >= 0 && len > 0 && (size_t)len < sizeof(buf) && write(lh_log, buf, (size_t)len))
        return;
}

static int lh_find_exe(struct dl_phdr_info *info, size_t size, void *arg)
{
    struct lh_exe *e = arg;
    (void)size;
    e->found = 1;     /* the first object is the program */
    e->bias = info->dlpi_addr;
    e->lo = UINT64_MAX;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uint64_t a = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type != PT_LOAD)
            continue;
        e->lo = a < e->lo ? a : e->lo;
        e->hi = a + ph->p_memsz > e->hi ? a + ph->p_memsz : e->hi;
    }
    return 1;
}

static int lh_near(uint64_t a, uint64_t b)
{
    int64_t d = (int64_t)(a - b);
    return d > -0x7ff00000LL && d < 0x7ff00000LL;
}

/* `size` bytes of address space within reach of rel32 from all of the program. */
static uint8_t *lh_reserve(const struct lh_exe *e, uint64_t size)
{
    for (int i = 0; i < 128; i++) {
        uint64_t step = (uint64_t)(i / 2 + 1) << 21;
        uint64_t at = i % 2 ? (e->hi + step + PAGE - 1) & ~(PAGE - 1)
                            : ((e->lo - size - step) & ~(PAGE - 1));
        void *p;
        if (!(i % 2) && e->lo < size + step + 0x10000)
            continue;
        p = mmap((void *)at, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
                 -1, 0);
        if (p == MAP_FAILED)
            continue;
        if (lh_near((uint64_t)p, e->lo) && lh_near((uint64_t)p + size, e->hi))
            return p;
        munmap(p, size);
    }
    return NULL;
}

/* The plan file, whole (malloc'd), checked for size; NULL when absent or malformed. */
static uint8_t *lh_read_plan(struct lines_abi_head *h)
{
    char path[600];
    struct stat st;
    uint8_t *buf = NULL;
    int fd;
    snprintf(path, sizeof(path), "%s/reloc", lh_dir);
    if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0)
        return NULL;
    if (!fstat(fd, &st) && st.st_size >= (off_t)sizeof(*h) && (uint64_t)st.st_size < MAX_PLAN &&
        (buf = malloc((size_t)st.st_size)) &&
        pread(fd, buf, (size_t)st.st_size, 0) == st.st_size) {
        memcpy(h, buf, sizeof(*h));
        if (h->magic != LINES_ABI_MAGIC || h->code_size > MAX_PLAN ||
            h->ncounters > MAX_PLAN / 8 || sizeof(*h) + h->code_size +
            (uint64_t)h->nfix * sizeof(struct lines_abi_fix) +
            (uint64_t)h->nfunc * sizeof(struct lines_abi_func) != (uint64_t)st.st_size) {
            free(buf);
            buf = NULL;
        }
    } else {
        free(buf);
        buf = NULL;
    }
    close(fd);
    return buf;
}

/* Maps dir/name over `at` (fixed, within the reservation). */
static int lh_map(const char *name, void *at, uint64_t size, int prot, int flags, uint64_t off)
{
    char path[600];
    int fd;
    void *p;
    snprintf(path, sizeof(path), "%s/%s", lh_dir, name);
    if ((fd = open(path, ((flags & MAP_SHARED) ? O_RDWR : O_RDONLY) | O_NOFOLLOW |
                   O_CLOEXEC)) < 0)
        return -1;
    p = mmap(at, size, prot, flags | MAP_FIXED, fd, (off_t)off);
    close(fd);
    return p == MAP_FAILED ? -1 : 0;
}

static int lh_fix(uint8_t *code, const struct lines_abi_head *h, const struct lines_abi_fix *f,
                  uint64_t bias, uint64_t vmax, uint64_t counters)
{
    uint64_t end = (uint64_t)code + f->end, to;
    int32_t d;
    if (f->kind == LINES_FIX_ADDRESS) {
        if (f->at != f->end || f->at % 8 || f->at + 8 > h->code_size || f->target >= vmax)
            return -1;
        to = bias + f->target;
        memcpy(code + f->at, &to, 8);
        return 0;
    }
    if (f->end > h->code_size || f->at + 4 > f->end || f->at < 4 ||
        (f->kind == LINES_FIX_COUNTER && f->target >= h->ncounters))
        return -1;
    to = f->kind == LINES_FIX_COUNTER ? counters + 8 * f->target : bias + f->target;
    if (!lh_near(to, end))
        return -1;
    d = (int32_t)(int64_t)(to - end);
    memcpy(code + f->at, &d, 4);
    return 0;
}

/* Writes n bytes of code at fn. */
static int lh_write(uint64_t fn, const uint8_t *bytes, size_t n)
{
    uint64_t lo = fn & ~(PAGE - 1), hi = (fn + n + PAGE - 1) & ~(PAGE - 1);
    if (mprotect((void *)lo, hi - lo, PROT_READ | PROT_WRITE))
        return -1;
    memcpy((void *)fn, bytes, n);
    return mprotect((void *)lo, hi - lo, PROT_READ | PROT_EXEC) ? -1 : 0;
}

/* A return site's 2-byte jmp to the 5-byte one at f->hop. */
static int lh_hop(const struct lh_exe *e, const struct lines_abi_func *f)
{
    uint64_t at = e->bias + f->vaddr;
    int64_t d = (int64_t)(f->hop - (f->vaddr + 2));
    uint8_t jmp[2] = { 0xeb, (uint8_t)(int8_t)d };
    if (f->len != 2 || d < -128 || d > 127 || at < e->lo || at + 2 > e->hi ||
        memcmp((void *)at, f->bytes, 2))
        return -1;
    return lh_write(at, jmp, 2);
}

/* Redirects one function (or return site) to its copy; 0, or -1 (left alone). */
static int lh_patch(const struct lh_exe *e, const struct lines_abi_func *f, uint8_t *code,
                    uint64_t code_size)
{
    uint64_t fn = e->bias + f->vaddr;
    uint8_t jmp[5] = { 0xe9 };
    int32_t d = (int32_t)(int64_t)((uint64_t)code + f->copy - (fn + 5));
    if (f->hop)
        return lh_hop(e, f);
    if (f->len < 5 || f->len > LINES_ABI_CHECK || f->copy >= code_size || fn < e->lo ||
        fn + f->len > e->hi || memcmp((void *)fn, f->bytes, f->len) ||
        !lh_near((uint64_t)code + f->copy, fn + 5))
        return -1;
    memcpy(jmp + 1, &d, 4);
    return lh_write(fn, jmp, 5);
}

/* Hands the copies' unwind table to the program's unwinder (libgcc_s: backtrace(), C++
 * exceptions), loading it as glibc's backtrace() would when the program has not yet. Looked
 * up, not linked: the hook adds no dependency to programs that never unwind. */
static int lh_register_unwind(const struct lines_abi_head *h, uint8_t *code)
{
    void (*reg)(void *) = NULL;
    void *lib;
    if (!h->eh_frame || h->eh_frame + 4 > h->code_size)
        return -1;
    *(void **)&reg = dlsym(RTLD_DEFAULT, "__register_frame");
    if (!reg && (lib = dlopen("libgcc_s.so.1", RTLD_NOW | RTLD_LOCAL)))
        *(void **)&reg = dlsym(lib, "__register_frame");
    if (!reg)
        return -1;
    reg(code + h->eh_frame);
    return 0;
}

static int lh_apply(const struct lines_abi_head *h, const uint8_t *plan)
{
    const struct lines_abi_fix *fix = (const void *)(plan + sizeof(*h) + h->code_size);
    const struct lines_abi_func *fn = (const void *)(fix + h->nfix);
    uint64_t csize = (h->code_size + PAGE - 1) & ~(PAGE - 1);
    uint64_t nsize = (h->ncounters * 8 + PAGE - 1) & ~(PAGE - 1), slot;
    struct lh_exe e = { 0 };
    uint8_t *base;
    unsigned ok = 0, bad = 0;

    dl_iterate_phdr(lh_find_exe, &e);
    if (!e.found || !csize || !nsize || !h->nslots ||
        !(base = lh_reserve(&e, csize + PAGE + nsize))) {
        lh_say("fail no-address-space", 0);
        return -1;
    }
    if (lh_map("code", base, csize, PROT_READ | PROT_WRITE, MAP_PRIVATE, 0) ||
        lh_map("counters", base + csize, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, 0)) {
        lh_say("fail cannot-map", 0);
        munmap(base, csize + PAGE + nsize);
        return -1;
    }
    /* A slot of its own: no other process adds into it unless it forks (or the slots ran
     * out: the last one is shared, with `lock` from the start). */
    slot = __atomic_fetch_add((uint64_t *)(base + csize), 1, __ATOMIC_SEQ_CST);
    lh_locked = slot >= h->nslots - 1 || (h->flags & LINES_ABI_LOCK_ALWAYS);
    slot = slot < h->nslots ? slot : h->nslots - 1;
    if (lh_map("counters", base + csize + PAGE, nsize, PROT_READ | PROT_WRITE, MAP_SHARED,
               PAGE + slot * nsize) || !(lh_sites = malloc(h->nfix * sizeof(*lh_sites) + 4))) {
        lh_say("fail cannot-map", 0);
        munmap(base, csize + PAGE + nsize);
        return -1;
    }
    for (uint32_t i = 0; i < h->nfix; i++) {
        if (lh_fix(base, h, &fix[i], e.bias, e.hi - e.bias, (uint64_t)base + csize + PAGE)) {
            lh_say("fail bad-fix", i);
            munmap(base, csize + PAGE + nsize);
            return -1;
        }
        if (fix[i].kind == LINES_FIX_COUNTER) {
            lh_sites[lh_nsites++] = fix[i].at - 4;
            base[fix[i].at - 4] = lh_locked ? LINES_ABI_LOCKED : LINES_ABI_UNLOCKED;
        }
    }
    lh_code = base;
    lh_csize = csize;
    /* Executable only now: the mapping Prospect sees says this image is counted. */
    if (mprotect(base, csize, PROT_READ | PROT_EXEC)) {
        lh_say("fail cannot-protect", 0);
        lh_code = NULL;
        munmap(base, csize + PAGE + nsize);
        return -1;
    }
    if (lh_register_unwind(h, base) && (h->flags & LINES_ABI_NEED_UNWIND)) {
        lh_say("fail no-unwinder", 0);
        lh_code = NULL;
        munmap(base, csize + PAGE + nsize);
        return -1;
    }
    for (uint32_t i = 0; i < h->nfunc; i++) {
        if (lh_patch(&e, &fn[i], base, h->code_size)) {
            lh_say("fail function", i);
            bad++;
        } else {
            ok++;
        }
    }
    lh_say("ok", ok);
    return bad ? -1 : 0;
}

/* From now on the copies' counters are incremented with `lock`: called before the image's
 * second thread or a forked child exists, while this thread is the only one running them. */
static void lh_lock(void)
{
    if (lh_locked || !lh_code)
        return;
    lh_locked = 1;
    if (mprotect(lh_code, lh_csize, PROT_READ | PROT_WRITE))
        return;                          /* cannot happen to a mapping of our own */
    for (uint32_t i = 0; i < lh_nsites; i++)
        lh_code[lh_sites[i]] = LINES_ABI_LOCKED;
    mprotect(lh_code, lh_csize, PROT_READ | PROT_EXEC);
}

/* The next definitions of the functions below, found once (the constructor asks first, so
 * a fork in a signal handler does not call dlsym). */
static void *lh_real_pthread_create, *lh_real_thrd_create, *lh_real_fork;
static void *lh_real(void **slot, const char *name)
{
    void *f = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (!f) {
        f = dlsym(RTLD_NEXT, name);
        __atomic_store_n(slot, f, __ATOMIC_RELEASE);
    }
    return f;
}

/* The ways a program makes a second thread or process that runs its code at the same time
 * (raw clone system calls are not seen: docs/lines.md). */
__attribute__((visibility("default"))) int pthread_create(pthread_t *t, const pthread_attr_t *a,
                                                          void *(*fn)(void *), void *arg)
{
    int (*real)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *) =
        (int (*)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *))
        lh_real(&lh_real_pthread_create, "pthread_create");
    lh_lock();
    return real ? real(t, a, fn, arg) : EAGAIN;
}

__attribute__((visibility("default"))) int thrd_create(thrd_t *t, thrd_start_t fn, void *arg)
{
    int (*real)(thrd_t *, thrd_start_t, void *) =
        (int (*)(thrd_t *, thrd_start_t, void *))lh_real(&lh_real_thrd_create, "thrd_create");
    lh_lock();
    return real ? real(t, fn, arg) : thrd_error;
}

__attribute__((visibility("default"))) pid_t fork(void)
{
    pid_t (*real)(void) = (pid_t (*)(void))lh_real(&lh_real_fork, "fork");
    lh_lock();
    if (!real) {
        errno = ENOSYS;
        return -1;
    }
    return real();
}

/* In another program the hook takes itself out of LD_PRELOAD and the plan out of the
 * environment, so that program's own children run exactly as without Prospect. */
static void lh_leave(void)
{
    const char *pre = getenv("LD_PRELOAD");
    static char self[600], buf[8192];
    size_t n = 0, sl;
    snprintf(self, sizeof(self), "%s/entry_hook.so", lh_dir);
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
            p += l + (p[l] != '\0');
        }
        buf[n] = '\0';
        if (n)
            setenv("LD_PRELOAD", buf, 1);
        else
            unsetenv("LD_PRELOAD");
    }
    unsetenv("PROSPECT_LINES_PLAN");
}

static int lh_threads(void)
{
    DIR *d = opendir("/proc/self/task");
    struct dirent *de;
    int n = 0;
    if (!d)
        return 0;
    while ((de = readdir(d)))
        n += de->d_name[0] != '.';
    closedir(d);
    return n;
}

/* Is this library the one in `d` (not an outer prospect's hook)? */
static int lh_loaded_from(const char *d)
{
    Dl_info info;
    const char *slash;
    if (!dladdr((void *)lh_threads, &info) || !info.dli_fname ||
        !(slash = strrchr(info.dli_fname, '/')))
        return 0;
    return (size_t)(slash - info.dli_fname) == strlen(d) &&
           !strncmp(info.dli_fname, d, (size_t)(slash - info.dli_fname));
}

__attribute__((constructor)) static void prospect_lines_hook(void)
{
    const char *d = getenv("PROSPECT_LINES_PLAN");
    struct lines_abi_head h;
    struct stat st;
    uint8_t *plan;
    char path[600];

    lh_real(&lh_real_pthread_create, "pthread_create");
    lh_real(&lh_real_thrd_create, "thrd_create");
    lh_real(&lh_real_fork, "fork");
    if (!d || strlen(d) >= sizeof(lh_dir) || !lh_loaded_from(d))
        return;
    strcpy(lh_dir, d);
    snprintf(path, sizeof(path), "%s/log", lh_dir);
    if ((lh_log = open(path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC)) < 0)
        return;
    plan = lh_read_plan(&h);
    if (!plan || stat("/proc/self/exe", &st) || h.dev != (uint64_t)st.st_dev ||
        h.ino != (uint64_t)st.st_ino)
        lh_leave();            /* another program: nothing to do here */
    else if (lh_threads() > 1)
        lh_say("fail threads-running", 0);
    else
        lh_apply(&h, plan);
    free(plan);
    close(lh_log);
    lh_log = -1;
}
