/* SPDX-License-Identifier: MIT */
/* The call-trace interposer: preloaded (LD_PRELOAD) by `prospect trace` into the command it
 * launches. It exports the built-in functions (calltrace_abi.h), each a wrapper that reads the
 * TSC, calls the next definition (dlsym RTLD_NEXT), reads the TSC again and appends one 64-byte
 * slot to the calling thread's ring, a memfd Prospect maps and drains (see calltrace_abi.h).
 * Not part of libpcore: no sanitizers, no Prospect code; embedded in prospect as bytes.
 *
 * Rules that keep the program unharmed and the count exact:
 * - errno is kept across the recording; a disabled function costs one load and a branch.
 * - Calls made by our own machinery (dlsym's calloc while resolving) go straight to the real
 *   function, or to a static bump arena before it is known; they are not the program's calls.
 * - A signal handler that calls a traced function while the thread is inside the recording
 *   code (the commit or the ring's creation) is recorded in a small per-thread side buffer,
 *   flushed after; only its overflow is lost, and counted.
 * - A full ring waits for Prospect (futex on tail, 10 ms steps); after 10 s without progress
 *   the thread gives up on the ring and counts what it drops in `lost`. When Prospect's end of
 *   the socket is closed (it was killed), recording stops at the next wait, in every thread.
 * - The real functions are never the program's own PLT stubs (non-PIE programs that take a
 *   function's address): those jump back through the patched GOT (see real_lookup).
 * - fork: the child gets its own rings (pthread_atfork); without follow it stops tracing. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include "calltrace_abi.h"

#define EXPORT __attribute__((visibility("default")))
#define TLS __attribute__((tls_model("initial-exec"))) static __thread
#define READY (1ull << 63)
#define PENDING_MAX 8

static const struct ct_proto protos[CT_NFUNCS] = {
#define P_(n, r, na, a0, a1, a2) { #n, r, na, { a0, a1, a2 } },
    CT_PROTOS(P_)
#undef P_
};

static volatile uint64_t mask;          /* enabled functions | READY */
static int sock_fd = -1;
static uint64_t sock_ino;
static int follow;
static uint8_t extra_str[CT_NFUNCS];    /* -F's strings beyond the compiled prototypes */
static volatile int init_state;         /* 0 not yet, 1 in progress, 2 done */
static void *real[CT_NFUNCS];
static pthread_key_t exit_key;
static uint64_t image_cookie;
static volatile unsigned generation;    /* attaches so far: rings of an earlier one are dropped */
static volatile int attached_now;       /* GOT entries pointed at the wrappers, watcher alive */
static int exit_key_made;

/* A call and its string slots: no built-in has more than three strings (strcmp's two, strdup's
 * argument and return); more would not fit the static TLS room a -p dlopen has. */
struct pending { struct ct_slot s[3]; };
TLS struct ct_ring_hdr *ring;
TLS struct ct_slot *slots;
TLS int busy;                           /* 1: recording (nested: side buffer), 2: resolving */
TLS int ring_failed;
TLS unsigned ring_gen;                  /* the attach the ring was made for (see reattach) */
TLS unsigned npending;
TLS uint64_t tls_lost;
TLS struct pending pending[PENDING_MAX];

static inline uint64_t tsc(void)
{
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
}

/* ---- the bump arena for allocations before the real allocator is known ---- */
static char arena[64 * 1024] __attribute__((aligned(16)));
static size_t arena_used;

static void *arena_alloc(size_t n)
{
    size_t want = (n + 15) & ~(size_t)15, off;
    if (n > sizeof(arena))
        return NULL;
    off = __atomic_fetch_add(&arena_used, want, __ATOMIC_RELAXED);
    if (off + want > sizeof(arena))
        return NULL;
    return arena + off;
}

static int in_arena(const void *p)
{
    return (const char *)p >= arena && (const char *)p < arena + sizeof(arena);
}

/* ---- set-up ---- */
/* The <strings> field (calltrace_abi.h): a hex digit per built-in. */
static void parse_strings(const char *p)
{
    for (unsigned f = 0; f < CT_NFUNCS; f++, p++) {
        if (*p >= '0' && *p <= '9')
            extra_str[f] = (uint8_t)(*p - '0');
        else if (*p >= 'a' && *p <= 'f')
            extra_str[f] = (uint8_t)(*p - 'a' + 10);
        else
            return;
    }
}

static uint64_t parse_num(const char **s, int base)
{
    uint64_t v = 0;
    const char *p = *s;
    for (;; p++) {
        int d;
        if (*p >= '0' && *p <= '9')
            d = *p - '0';
        else if (base == 16 && *p >= 'a' && *p <= 'f')
            d = *p - 'a' + 10;
        else
            break;
        v = v * (uint64_t)base + (uint64_t)d;
    }
    if (*p == ',')
        p++;
    *s = p;
    return v;
}

static int sock_ok(void)
{
    struct stat st;
    int type = 0;
    socklen_t len = sizeof(type);
    /* The program may have closed our descriptor and reused its number: never send there. */
    return sock_fd >= 0 && !fstat(sock_fd, &st) && S_ISSOCK(st.st_mode) &&
           (uint64_t)st.st_ino == sock_ino &&
           !getsockopt(sock_fd, SOL_SOCKET, SO_TYPE, &type, &len) && type == SOCK_SEQPACKET;
}

static void got_unpatch_all(void);

static void at_fork_child(void)
{
    ring = NULL;
    slots = NULL;
    ring_failed = 0;
    npending = 0;
    if (!follow) {
        mask = READY;
        syscall(SYS_close, sock_fd);    /* not close(): ours, traced */
        sock_fd = -1;
        got_unpatch_all();              /* attached (-p): the child is not traced, nor changed */
    }
}

static void thread_exit(void *arg)
{
    struct ct_ring_hdr *r = arg;
    if (r && r == ring) {
        __atomic_store_n(&r->closed, 1, __ATOMIC_RELEASE);
        ring = NULL;
        slots = NULL;
        munmap(r, CT_HDR_SIZE + (size_t)r->nslots * CT_SLOT_SIZE);
    }
}


/* ---- loaded into a running process: GOT entries instead of LD_PRELOAD ----
 * prospect trace -p writes this library, "attach.conf" ("A,<follow>,<mask hex>") and a listening
 * socket "sock" into a private directory, and makes one thread of the process dlopen the
 * library (ptrace, for that one call). The constructor connects, then points every GOT entry
 * (JUMP_SLOT, GLOB_DAT) of the built-in functions in every loaded object at the wrappers. A
 * watcher thread waits for prospect's detach request (or the socket's end), writes every entry
 * back as it was and answers: the process calls the real functions again. The library stays
 * mapped (a thread could still be inside a wrapper). */
#include <elf.h>
#include <link.h>
#include <sys/un.h>

#define MAX_PATCHES 4096
struct patch { uint64_t *slot; uint64_t old; int relro; };
static struct patch patches[MAX_PATCHES];
static unsigned npatches;
static uint64_t wrappers[CT_NFUNCS];
static char self_dir[512];

/* Reads self_dir's attach.conf and connects to its socket: 1 when attach.conf is there (m
 * then 0 when the socket is not), 0 when not loaded by trace -p. */
static int attach_connect(uint64_t *m)
{
    char path[600], buf[128];
    size_t len = 0;
    int fd, s;
    ssize_t n;
    while (self_dir[len])
        len++;
    for (size_t i = 0; i <= len; i++)
        path[i] = self_dir[i];
    const char *conf = "attach.conf";
    for (size_t i = 0; conf[i]; i++)
        path[len + i] = conf[i], path[len + i + 1] = 0;
    fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return 0;
    n = (ssize_t)syscall(SYS_read, fd, buf, sizeof(buf) - 1);
    syscall(SYS_close, fd);
    if (n < 4 || buf[0] != 'A' || buf[1] != ',')
        return 0;
    buf[n] = 0;
    const char *p = buf + 2;
    follow = (int)parse_num(&p, 10);
    *m = parse_num(&p, 16);
    parse_strings(p);
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    if (len + 5 > sizeof(sa.sun_path))
        return 1;
    for (size_t i = 0; i < len; i++)
        sa.sun_path[i] = self_dir[i];
    sa.sun_path[len] = 's', sa.sun_path[len + 1] = 'o', sa.sun_path[len + 2] = 'c';
    sa.sun_path[len + 3] = 'k';
    s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    struct stat st;
    if (s < 0 || connect(s, (struct sockaddr *)&sa, sizeof(sa)) || fstat(s, &st)) {
        if (s >= 0)
            syscall(SYS_close, s);
        *m = 0;
        return 1;
    }
    sock_fd = s;
    sock_ino = (uint64_t)st.st_ino;
    return 1;
}

/* Loaded by trace -p: this library's directory holds attach.conf and the socket. */
static int attach_setup(uint64_t *m)
{
    Dl_info di;
    if (!dladdr((void *)attach_setup, &di) || !di.dli_fname)
        return 0;
    size_t len = 0;
    while (di.dli_fname[len])
        len++;
    while (len && di.dli_fname[len - 1] != '/')
        len--;
    if (!len || len >= sizeof(self_dir) - 16)
        return 0;
    for (size_t i = 0; i < len; i++)
        self_dir[i] = di.dli_fname[i];
    self_dir[len] = 0;
    return attach_connect(m);
}

static void put_slot(uint64_t *slot, uint64_t v, int relro)
{
    uintptr_t page = (uintptr_t)slot & ~(uintptr_t)4095;
    if (relro && mprotect((void *)page, 4096, PROT_READ | PROT_WRITE))
        return;
    __atomic_store_n(slot, v, __ATOMIC_RELEASE);
    if (relro)
        mprotect((void *)page, 4096, PROT_READ);
}

static int one_object(struct dl_phdr_info *info, size_t size, void *arg)
{
    uint64_t m = *(uint64_t *)arg;
    const ElfW(Dyn) *dyn = NULL;
    uintptr_t base = info->dlpi_addr, relro_lo = 0, relro_hi = 0;
    Dl_info me;
    (void)size;
    if (dladdr((void *)one_object, &me) && (uintptr_t)me.dli_fbase == base)
        return 0;                   /* ourselves */
    for (int i = 0; i < info->dlpi_phnum; i++) {
        if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
            dyn = (const ElfW(Dyn) *)(base + info->dlpi_phdr[i].p_vaddr);
        if (info->dlpi_phdr[i].p_type == PT_GNU_RELRO) {
            relro_lo = base + info->dlpi_phdr[i].p_vaddr;
            relro_hi = relro_lo + info->dlpi_phdr[i].p_memsz;
        }
    }
    if (!dyn || (info->dlpi_name && info->dlpi_name[0] == 'l' && info->dlpi_name[1] == 'i' &&
                 info->dlpi_name[2] == 'n' && info->dlpi_name[3] == 'u' &&
                 info->dlpi_name[4] == 'x' && info->dlpi_name[5] == '-'))
        return 0;                   /* the vdso: its dynamic section is not relocated */
    uintptr_t jmprel = 0, rela = 0, symtab = 0, strtab = 0;
    size_t pltsz = 0, relasz = 0, strsz = 0;
    for (const ElfW(Dyn) *d = dyn; d->d_tag != DT_NULL; d++) {
        switch (d->d_tag) {
        case DT_JMPREL: jmprel = d->d_un.d_ptr; break;
        case DT_PLTRELSZ: pltsz = d->d_un.d_val; break;
        case DT_RELA: rela = d->d_un.d_ptr; break;
        case DT_RELASZ: relasz = d->d_un.d_val; break;
        case DT_SYMTAB: symtab = d->d_un.d_ptr; break;
        case DT_STRTAB: strtab = d->d_un.d_ptr; break;
        case DT_STRSZ: strsz = d->d_un.d_val; break;
        default: break;
        }
    }
    if (!symtab || !strtab)
        return 0;
    /* ld.so relocates these addresses in place, except where it cannot. */
    if (symtab < base) symtab += base;
    if (strtab < base) strtab += base;
    if (jmprel && jmprel < base) jmprel += base;
    if (rela && rela < base) rela += base;
    for (int pass = 0; pass < 2; pass++) {
        const ElfW(Rela) *r = (const ElfW(Rela) *)(pass ? rela : jmprel);
        size_t nr = (pass ? relasz : pltsz) / sizeof(ElfW(Rela));
        if (!r)
            continue;
        for (size_t i = 0; i < nr; i++) {
            unsigned type = (unsigned)ELF64_R_TYPE(r[i].r_info);
            size_t si = ELF64_R_SYM(r[i].r_info);
            if ((type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT) || !si)
                continue;
            const ElfW(Sym) *sym = (const ElfW(Sym) *)symtab + si;
            if (sym->st_name >= strsz)
                continue;
            const char *name = (const char *)strtab + sym->st_name;
            for (unsigned f = 0; f < CT_NFUNCS; f++) {
                if (!(m & (1ull << f)))
                    continue;
                const char *a = protos[f].name, *b = name;
                while (*a && *a == *b)
                    a++, b++;
                if (*a || *b)
                    continue;
                uint64_t *slot = (uint64_t *)(base + r[i].r_offset);
                int relro = (uintptr_t)slot >= relro_lo && (uintptr_t)slot < relro_hi;
                if (npatches == MAX_PATCHES)
                    return 1;
                patches[npatches++] = (struct patch){ slot, *slot, relro };
                put_slot(slot, wrappers[f], relro);
            }
        }
    }
    return 0;
}

static void got_unpatch_all(void)
{
    for (unsigned i = npatches; i-- > 0;)
        put_slot(patches[i].slot, patches[i].old, patches[i].relro);
    npatches = 0;
}

static void *watcher(void *arg)
{
    char b[16];
    ssize_t n;
    (void)arg;
    /* Prospect sends one message to detach; an error or end of the socket means the same. */
    do
        n = recv(sock_fd, b, sizeof(b), 0);
    while (n < 0 && errno == EINTR);
    got_unpatch_all();
    mask = READY;
    struct ct_wake w = { CT_DETACHED_MAGIC };
    send(sock_fd, &w, sizeof(w), MSG_NOSIGNAL);
    __atomic_store_n(&attached_now, 0, __ATOMIC_RELEASE);
    return NULL;
}

static void got_patch_all(uint64_t m);

/* ---- the real functions ---- */
struct object { const char *name; uintptr_t lo, hi; };
struct objects { struct object o[64]; unsigned n; };

static int list_object(struct dl_phdr_info *info, size_t size, void *arg)
{
    struct objects *l = arg;
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    (void)size;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_LOAD) {
            uintptr_t a = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
            lo = a < lo ? a : lo;
            hi = a + info->dlpi_phdr[i].p_memsz > hi ? a + info->dlpi_phdr[i].p_memsz : hi;
        }
    if (l->n < sizeof(l->o) / sizeof(l->o[0]) && lo < hi)
        l->o[l->n++] = (struct object){ info->dlpi_name, lo, hi };
    return 0;
}

/* A non-PIE program that takes a function's address defines it as its own PLT stub (an
 * undefined symbol with a value): a lookup would find that stub, which jumps through the GOT
 * entry we patch, back into the wrapper. Such an address is never the real function. */
static int is_plt_stub(void *p)
{
    Dl_info di;
    const ElfW(Sym) *sym = NULL;
    return dladdr1(p, &di, (void **)&sym, RTLD_DL_SYMENT) && sym &&
           sym->st_shndx == SHN_UNDEF;
}

/* The definition in the first object after the one holding `after` (0: from the first), in
 * load order (the global search order), that defines name itself: its own handle's lookup,
 * kept when it lies in that object. This library is never one. Needs no caller address,
 * unlike RTLD_NEXT (which a return probe on dlsym hides). */
static void *lookup_after(const char *name, uintptr_t after)
{
    struct objects l = { .n = 0 };
    uintptr_t self = (uintptr_t)(void *)lookup_after;
    int past = !after;
    dl_iterate_phdr(list_object, &l);
    for (unsigned i = 0; i < l.n; i++) {
        const struct object *o = &l.o[i];
        int mine = self >= o->lo && self < o->hi;
        if (!past) {
            past = after >= o->lo && after < o->hi;
            continue;
        }
        if (mine || !o->name || !o->name[0])
            continue;
        void *h = dlopen(o->name, RTLD_LAZY | RTLD_NOLOAD);
        void *p = h ? dlsym(h, name) : NULL;
        if (h)
            dlclose(h);
        if (p && (uintptr_t)p >= o->lo && (uintptr_t)p < o->hi && !is_plt_stub(p))
            return p;
    }
    return NULL;
}

/* The next definition of name: after this library when preloaded; when loaded late (trace
 * -p), the global one, unless that is the program's PLT stub: then the library's. */
static void *real_lookup(const char *name, int attached)
{
    void *p = dlsym(attached ? RTLD_DEFAULT : RTLD_NEXT, name);
    if (p && !is_plt_stub(p))
        return p;
    return lookup_after(name, attached ? 0 : (uintptr_t)(void *)real_lookup);
}

static void do_init(void)
{
    const char *env = getenv(CT_ENV);
    uint64_t m = 0;
    int attached;
    busy = 2;
    image_cookie = tsc() ^ ((uint64_t)(uintptr_t)&image_cookie << 16);
    /* Loaded into a running process (prospect trace -p, through dlopen): the next definitions
     * are the global ones, RTLD_NEXT would look only after this late object. */
    attached = attach_setup(&m);
    for (int i = 0; i < CT_NFUNCS; i++)
        real[i] = real_lookup(protos[i].name, attached);
    if (attached) {
        /* m and the socket came from attach_setup */
    } else if (env && env[0] == '1' && env[1] == ',') {
        const char *p = env + 2;
        sock_fd = (int)parse_num(&p, 10);
        sock_ino = parse_num(&p, 10);
        uint64_t root = parse_num(&p, 10);
        follow = (int)parse_num(&p, 10);
        m = parse_num(&p, 16);
        parse_strings(p);
        if (!follow && root != (uint64_t)getppid())
            m = 0;                  /* a child, not followed (e.g. after fork + exec) */
        if (!sock_ok()) {
            m = 0;
            sock_fd = -1;
        }
    }
    for (int i = 0; i < CT_NFUNCS; i++)
        if (!real[i])
            m &= ~(1ull << i);
    if (m) {
        pthread_atfork(NULL, NULL, at_fork_child);
        if (pthread_key_create(&exit_key, thread_exit))
            exit_key = (pthread_key_t)-1;
        exit_key_made = 1;
    }
    busy = 0;
    mask = m | READY;
    if (attached && m)
        got_patch_all(m);
}

static void init(void)
{
    int expect = 0;
    if (__atomic_compare_exchange_n(&init_state, &expect, 1, 0, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE)) {
        int saved = errno;
        do_init();
        errno = saved;
        __atomic_store_n(&init_state, 2, __ATOMIC_RELEASE);
    }
    /* Another thread initializes: this call goes untraced to the real function (or the
     * arena), like every call made before the interposer is ready. */
}

__attribute__((constructor)) static void ct_ctor(void)
{
    if (!(mask & READY))
        init();
}

static void fill_wrappers(void);

static void got_patch_all(uint64_t m)
{
    pthread_t t;
    pthread_attr_t at;
    /* The calls made on this thread meanwhile are ours (pthread_create's free of a cached
     * stack's TLS): not traced. */
    busy = 2;
    fill_wrappers();
    attached_now = 1;
    dl_iterate_phdr(one_object, &m);
    pthread_attr_init(&at);
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    pthread_create(&t, &at, watcher, NULL);
    pthread_attr_destroy(&at);
    busy = 0;
}

/* A later trace -p on this process (a second copy of this library could not load: its TLS
 * needs static TLS room this one took): prospect calls this through ptrace with its new
 * private directory. Threads drop the rings of the earlier attach at their next call. 0, or
 * -EBUSY while an earlier attach is still on, -ENOTCONN when the new socket does not answer. */
EXPORT int prospect_ct_reattach(const char *dir)
{
    uint64_t m = 0;
    size_t len = 0;
    if (__atomic_load_n(&attached_now, __ATOMIC_ACQUIRE) || busy)
        return -EBUSY;
    while (dir[len])
        len++;
    if (!len || len >= sizeof(self_dir) - 16)
        return -ENAMETOOLONG;
    for (size_t i = 0; i <= len; i++)
        self_dir[i] = dir[i];
    if (self_dir[len - 1] != '/')
        self_dir[len] = '/', self_dir[len + 1] = 0;
    if (sock_fd >= 0)
        syscall(SYS_close, sock_fd);
    sock_fd = -1;
    if (!attach_connect(&m) || !m)
        return -ENOTCONN;
    for (int i = 0; i < CT_NFUNCS; i++)
        if (!real[i])
            m &= ~(1ull << i);
    if (exit_key == (pthread_key_t)-1 || !exit_key_made) {
        pthread_atfork(NULL, NULL, at_fork_child);
        if (pthread_key_create(&exit_key, thread_exit))
            exit_key = (pthread_key_t)-1;
        exit_key_made = 1;
    }
    npatches = 0;
    __atomic_add_fetch(&generation, 1, __ATOMIC_RELEASE);
    mask = m | READY;
    got_patch_all(m);
    return 0;
}

/* ---- the ring ---- */
/* Prospect's end of the socket is closed (killed, even by SIGKILL): nobody will drain the
 * rings again, so recording stops for every thread at once and no call waits for room. */
static int prospect_gone(void)
{
    struct pollfd p = { .fd = sock_fd, .events = POLLRDHUP };
    /* Not a number the program reused for a descriptor of its own (its hang-up is not ours). */
    if (!sock_ok() || syscall(SYS_poll, &p, 1, 0) <= 0 ||
        !(p.revents & (POLLHUP | POLLRDHUP | POLLERR | POLLNVAL)))
        return 0;
    mask = READY;
    return 1;
}

static void new_ring(void)
{
    unsigned n = CT_SLOTS_DEFAULT;
    size_t size = CT_HDR_SIZE + (size_t)n * CT_SLOT_SIZE;
    struct ct_hello h;
    struct msghdr msg = { 0 };
    struct iovec iov = { &h, sizeof(h) };
    char cbuf[CMSG_SPACE(sizeof(int))] __attribute__((aligned(8)));
    struct cmsghdr *c;
    void *p;
    int fd;

    ring_failed = 1;
    if (!sock_ok())
        return;
    fd = (int)syscall(SYS_memfd_create, "prospect-calltrace", MFD_CLOEXEC);
    if (fd < 0)
        return;
    if (ftruncate(fd, (off_t)size)) {
        syscall(SYS_close, fd);
        return;
    }
    p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        syscall(SYS_close, fd);
        return;
    }
    struct ct_ring_hdr *r = p;
    r->magic = CT_MAGIC;
    r->nslots = n;
    r->pid = (uint32_t)getpid();
    r->tid = (uint32_t)gettid();
    h.magic = CT_MAGIC;
    h.pid = r->pid;
    h.tid = r->tid;
    h.nslots = n;
    h.image = image_cookie;
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = cbuf;
    msg.msg_controllen = sizeof(cbuf);
    c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    *(int *)(void *)CMSG_DATA(c) = fd;
    ssize_t sent;
    do
        sent = sendmsg(sock_fd, &msg, MSG_NOSIGNAL);
    while (sent < 0 && errno == EINTR);
    syscall(SYS_close, fd);
    if (sent != (ssize_t)sizeof(h)) {
        munmap(p, size);
        return;
    }
    /* Wait (at most 2 s) until Prospect has the ring and this process's maps: a short-lived
     * program could be gone before its callers are named. */
    for (int i = 0; i < 200 && !__atomic_load_n(&r->acked, __ATOMIC_ACQUIRE); i++) {
        struct timespec ts = { 0, 10 * 1000 * 1000 };
        if (prospect_gone()) {
            munmap(p, size);
            return;
        }
        syscall(SYS_futex, &r->acked, FUTEX_WAIT, 0, &ts, NULL, 0);
    }
    r->lost = tls_lost;
    tls_lost = 0;
    ring = r;
    slots = (struct ct_slot *)(void *)((char *)p + CT_HDR_SIZE);
    ring_failed = 0;
    if (exit_key != (pthread_key_t)-1)
        pthread_setspecific(exit_key, r);
}

/* Room for `need` slots: waits for Prospect while it makes progress. */
static int room(struct ct_ring_hdr *r, uint64_t head, unsigned need)
{
    uint64_t tail = __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
    int idle = 0;
    while (head + need - tail > r->nslots) {
        struct timespec ts = { 0, 10 * 1000 * 1000 };
        if (ring_failed || idle > 1000 || prospect_gone()) {
            ring_failed = 1;        /* Prospect is gone or stuck: stop waiting */
            return 0;
        }
        __atomic_store_n(&r->waiting, 1, __ATOMIC_RELEASE);
        if (!idle) {
            struct ct_wake w = { CT_WAKE_MAGIC };
            send(sock_fd, &w, sizeof(w), MSG_DONTWAIT | MSG_NOSIGNAL);
        }
        syscall(SYS_futex, &r->tail, FUTEX_WAIT, (uint32_t)tail, &ts, NULL, 0);
        uint64_t t2 = __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
        idle = t2 == tail ? idle + 1 : 0;
        tail = t2;
    }
    return 1;
}

static void commit(const struct ct_slot *s, unsigned n)
{
    struct ct_ring_hdr *r = ring;
    if (ring_gen != generation) {
        /* Made for an earlier trace -p (its prospect is gone): a new one for this attach. */
        if (r)
            thread_exit(r);
        r = NULL;
        ring_failed = 0;
        tls_lost = 0;
        ring_gen = generation;
    }
    if (!r) {
        if (ring_failed) {
            tls_lost++;
            return;
        }
        new_ring();
        if (!(r = ring)) {
            tls_lost++;
            return;
        }
    }
    uint64_t head = r->head;
    if (!room(r, head, n)) {
        r->lost++;
        return;
    }
    for (unsigned i = 0; i < n; i++) {
        struct ct_slot *d = &slots[(head + i) & (r->nslots - 1)];
        d->t0 = s[i].t0;
        d->t1 = s[i].t1;
        d->func = s[i].func;
        d->flags = s[i].flags;
        d->args[0] = s[i].args[0];
        d->args[1] = s[i].args[1];
        d->args[2] = s[i].args[2];
        d->ret = s[i].ret;
        d->caller = s[i].caller;
    }
    __atomic_store_n(&r->head, head + n, __ATOMIC_RELEASE);
    /* Crossing half of the ring (from what Prospect has taken): wake it up. */
    uint64_t half = r->nslots / 2;
    if (head - r->tail < half && head + n - r->tail >= half) {
        struct ct_wake w = { CT_WAKE_MAGIC };
        send(sock_fd, &w, sizeof(w), MSG_DONTWAIT | MSG_NOSIGNAL);
    }
    /* Ask for the lines of the calls to come now: the store misses (the ring is larger than
     * the caches, and Prospect read those lines last) overlap the program's own work. */
    __builtin_prefetch(&slots[(head + n + 16) & (r->nslots - 1)], 1, 3);
}

/* Copies up to CT_STR_MAX bytes of s (at most lim) into field f (a slot). */
static void keep_str(uint8_t *f, const char *s, uint64_t lim)
{
    unsigned n = 0;
    if (!s) {
        f[0] = 0xff;            /* NULL */
        return;
    }
    while (n < CT_STR_MAX && n < lim && s[n]) {
        f[1 + n] = (uint8_t)s[n];
        n++;
    }
    f[0] = (uint8_t)n;
    if (n == CT_STR_MAX && n < lim && s[n])
        f[0] |= 0x80;
}

/* Copies the string at s, which the function itself does not read as one (a -F file says it
 * is one), through the kernel: a pointer to unmapped memory is said, never faulted on. The
 * read is split at the page end so that a string ending before it is read whole. */
static void keep_str_safe(uint8_t *f, const char *s)
{
    char b[CT_STR_MAX + 1];
    uintptr_t a = (uintptr_t)s, page_end = (a | 4095) + 1;
    size_t first = page_end - a < sizeof(b) ? page_end - a : sizeof(b);
    struct iovec l = { b, sizeof(b) };
    struct iovec r[2] = { { (void *)s, first }, { (void *)page_end, sizeof(b) - first } };
    long n;
    if (!s) {
        f[0] = 0xff;
        return;
    }
    n = syscall(SYS_process_vm_readv, (long)syscall(SYS_getpid), &l, 1L, r,
                first < sizeof(b) ? 2L : 1L, 0L);
    if (n <= 0) {
        f[0] = CT_STR_UNREADABLE;
        return;
    }
    keep_str(f, b, (uint64_t)n);
}

static int is_str(uint8_t t)
{
    return t == CT_T_STR || t == CT_T_STRN;
}

/* Records one call. Strings are read after the call returned (the program's own call would
 * have faulted first on a bad pointer, except open's path, checked by the kernel: see open);
 * those only a -F file calls strings through keep_str_safe. At most two string slots. */
static void record(unsigned f, uint64_t t0, uint64_t t1, uint64_t a0, uint64_t a1, uint64_t a2,
                   uint64_t ret, void *caller, const char *s0, const char *s1, uint64_t lim)
{
    struct ct_slot s[3];
    const struct ct_proto *p = &protos[f];
    unsigned n = 1;
    int saved = errno;
    s[0].t0 = t0;
    s[0].t1 = t1;
    s[0].func = f;
    s[0].flags = 0;
    s[0].args[0] = a0;
    s[0].args[1] = a1;
    s[0].args[2] = a2;
    s[0].ret = ret;
    s[0].caller = (uint64_t)(uintptr_t)caller;
    const char *given[2] = { s0, s1 };
    unsigned ng = 0, x = extra_str[f];
    for (unsigned i = 0; i < 3 && n < 3; i++) {
        if (i < p->nargs && is_str(p->arg[i]))
            keep_str((uint8_t *)(void *)&s[n++], given[ng++ & 1],
                     p->arg[i] == CT_T_STRN ? lim : UINT64_MAX);
        else if (x & (1u << i))
            keep_str_safe((uint8_t *)(void *)&s[n++], (const char *)(uintptr_t)s[0].args[i]);
    }
    if (ret && n < 3 && (p->ret == CT_T_STR || (x & CT_XSTR_RET))) {
        /* strdup's copy, strchr's match: a string the function itself returned. */
        if (p->ret == CT_T_STR)
            keep_str((uint8_t *)(void *)&s[n++], (const char *)(uintptr_t)ret, UINT64_MAX);
        else
            keep_str_safe((uint8_t *)(void *)&s[n++], (const char *)(uintptr_t)ret);
        s[0].flags |= CT_SF_RETSTR;
    }
    s[0].flags |= n - 1;
    if (busy) {
        /* A signal handler interrupted our own recording: keep it for later. */
        if (npending < PENDING_MAX) {
            for (unsigned i = 0; i < n; i++)
                pending[npending].s[i] = s[i];
            npending++;
        } else if (ring) {
            __atomic_fetch_add(&ring->lost, 1, __ATOMIC_RELAXED);
        } else {
            tls_lost++;
        }
        errno = saved;
        return;
    }
    busy = 1;
    commit(s, n);
    while (npending) {
        struct pending *q = &pending[--npending];
        commit(q->s, 1 + CT_SF_NSTR(q->s[0].flags));
    }
    busy = 0;
    errno = saved;
}

/* ---- the wrappers ---- */
#define ON(id) (__builtin_expect((mask & ((1ull << (id)) | READY)) == \
                                 ((1ull << (id)) | READY), 1) && busy != 2)
#define REAL(id, type) ((type)real[id])
#define CALLER __builtin_return_address(0)
#define U(x) ((uint64_t)(uintptr_t)(x))

static void *real_or_init(unsigned id)
{
    if (!(mask & READY) && !busy)
        init();
    return real[id];
}

EXPORT void *malloc(size_t n)
{
    typedef void *(*fn)(size_t);
    if (!ON(CT_F_malloc)) {
        fn r = (fn)real_or_init(CT_F_malloc);
        return r ? r(n) : arena_alloc(n);
    }
    uint64_t t0 = tsc();
    void *p = REAL(CT_F_malloc, fn)(n);
    uint64_t t1 = tsc();
    record(CT_F_malloc, t0, t1, n, 0, 0, U(p), CALLER, NULL, NULL, 0);
    return p;
}

EXPORT void free(void *p)
{
    typedef void (*fn)(void *);
    if (in_arena(p))
        return;
    if (!ON(CT_F_free)) {
        fn r = (fn)real_or_init(CT_F_free);
        if (r)
            r(p);
        return;
    }
    uint64_t t0 = tsc();
    REAL(CT_F_free, fn)(p);
    uint64_t t1 = tsc();
    record(CT_F_free, t0, t1, U(p), 0, 0, 0, CALLER, NULL, NULL, 0);
}

EXPORT void *calloc(size_t n, size_t sz)
{
    typedef void *(*fn)(size_t, size_t);
    if (!ON(CT_F_calloc)) {
        fn r = (fn)real_or_init(CT_F_calloc);
        if (r)
            return r(n, sz);
        if (sz && n > SIZE_MAX / sz)
            return NULL;
        return arena_alloc(n * sz);     /* static memory: already zero */
    }
    uint64_t t0 = tsc();
    void *p = REAL(CT_F_calloc, fn)(n, sz);
    uint64_t t1 = tsc();
    record(CT_F_calloc, t0, t1, n, sz, 0, U(p), CALLER, NULL, NULL, 0);
    return p;
}

static void *arena_realloc(void *old, size_t n)
{
    void *(*m)(size_t) = (void *(*)(size_t))real[CT_F_malloc];
    char *p = m ? m(n) : arena_alloc(n);
    size_t avail = (size_t)(arena + sizeof(arena) - (char *)old);
    if (p)
        for (size_t i = 0; i < n && i < avail; i++)
            p[i] = ((char *)old)[i];
    return p;
}

EXPORT void *realloc(void *old, size_t n)
{
    typedef void *(*fn)(void *, size_t);
    if (in_arena(old))
        return arena_realloc(old, n);
    if (!ON(CT_F_realloc)) {
        fn r = (fn)real_or_init(CT_F_realloc);
        return r ? r(old, n) : (old ? NULL : arena_alloc(n));
    }
    uint64_t t0 = tsc();
    void *p = REAL(CT_F_realloc, fn)(old, n);
    uint64_t t1 = tsc();
    record(CT_F_realloc, t0, t1, U(old), n, 0, U(p), CALLER, NULL, NULL, 0);
    return p;
}

EXPORT int posix_memalign(void **out, size_t al, size_t n)
{
    typedef int (*fn)(void **, size_t, size_t);
    if (!ON(CT_F_posix_memalign)) {
        fn r = (fn)real_or_init(CT_F_posix_memalign);
        return r ? r(out, al, n) : ENOMEM;
    }
    uint64_t t0 = tsc();
    int e = REAL(CT_F_posix_memalign, fn)(out, al, n);
    uint64_t t1 = tsc();
    record(CT_F_posix_memalign, t0, t1, U(out), al, n, (uint64_t)(int64_t)e, CALLER, NULL,
           NULL, 0);
    return e;
}

#define ALLOC2(name)                                                                      \
EXPORT void *name(size_t a, size_t b)                                                     \
{                                                                                         \
    typedef void *(*fn)(size_t, size_t);                                                  \
    if (!ON(CT_F_##name)) {                                                               \
        fn r = (fn)real_or_init(CT_F_##name);                                             \
        return r ? r(a, b) : NULL;                                                        \
    }                                                                                     \
    uint64_t t0 = tsc();                                                                  \
    void *p = REAL(CT_F_##name, fn)(a, b);                                                \
    uint64_t t1 = tsc();                                                                  \
    record(CT_F_##name, t0, t1, a, b, 0, U(p), CALLER, NULL, NULL, 0);                    \
    return p;                                                                             \
}
ALLOC2(aligned_alloc)
ALLOC2(memalign)

EXPORT void *valloc(size_t n)
{
    typedef void *(*fn)(size_t);
    if (!ON(CT_F_valloc)) {
        fn r = (fn)real_or_init(CT_F_valloc);
        return r ? r(n) : NULL;
    }
    uint64_t t0 = tsc();
    void *p = REAL(CT_F_valloc, fn)(n);
    uint64_t t1 = tsc();
    record(CT_F_valloc, t0, t1, n, 0, 0, U(p), CALLER, NULL, NULL, 0);
    return p;
}

/* mem*: before the real ones are known (our own start-up), plain loops. */
EXPORT void *memcpy(void *d, const void *s, size_t n)
{
    typedef void *(*fn)(void *, const void *, size_t);
    if (!ON(CT_F_memcpy)) {
        fn r = (fn)real[CT_F_memcpy];
        if (r)
            return r(d, s, n);
        for (size_t i = 0; i < n; i++)
            ((volatile char *)d)[i] = ((const char *)s)[i];
        return d;
    }
    uint64_t t0 = tsc();
    void *p = REAL(CT_F_memcpy, fn)(d, s, n);
    uint64_t t1 = tsc();
    record(CT_F_memcpy, t0, t1, U(d), U(s), n, U(p), CALLER, NULL, NULL, 0);
    return p;
}

EXPORT void *memmove(void *d, const void *s, size_t n)
{
    typedef void *(*fn)(void *, const void *, size_t);
    if (!ON(CT_F_memmove)) {
        fn r = (fn)real[CT_F_memmove];
        if (r)
            return r(d, s, n);
        if ((char *)d < (const char *)s)
            for (size_t i = 0; i < n; i++)
                ((volatile char *)d)[i] = ((const char *)s)[i];
        else
            for (size_t i = n; i-- > 0;)
                ((volatile char *)d)[i] = ((const char *)s)[i];
        return d;
    }
    uint64_t t0 = tsc();
    void *p = REAL(CT_F_memmove, fn)(d, s, n);
    uint64_t t1 = tsc();
    record(CT_F_memmove, t0, t1, U(d), U(s), n, U(p), CALLER, NULL, NULL, 0);
    return p;
}

EXPORT void *memset(void *d, int c, size_t n)
{
    typedef void *(*fn)(void *, int, size_t);
    if (!ON(CT_F_memset)) {
        fn r = (fn)real[CT_F_memset];
        if (r)
            return r(d, c, n);
        for (size_t i = 0; i < n; i++)
            ((volatile char *)d)[i] = (char)c;
        return d;
    }
    uint64_t t0 = tsc();
    void *p = REAL(CT_F_memset, fn)(d, c, n);
    uint64_t t1 = tsc();
    record(CT_F_memset, t0, t1, U(d), (uint64_t)(int64_t)c, n, U(p), CALLER, NULL, NULL, 0);
    return p;
}

EXPORT int memcmp(const void *a, const void *b, size_t n)
{
    typedef int (*fn)(const void *, const void *, size_t);
    if (!ON(CT_F_memcmp)) {
        fn r = (fn)real[CT_F_memcmp];
        if (r)
            return r(a, b, n);
        for (size_t i = 0; i < n; i++)
            if (((const unsigned char *)a)[i] != ((const unsigned char *)b)[i])
                return ((const unsigned char *)a)[i] - ((const unsigned char *)b)[i];
        return 0;
    }
    uint64_t t0 = tsc();
    int v = REAL(CT_F_memcmp, fn)(a, b, n);
    uint64_t t1 = tsc();
    record(CT_F_memcmp, t0, t1, U(a), U(b), n, (uint64_t)(int64_t)v, CALLER, NULL, NULL, 0);
    return v;
}

EXPORT size_t strlen(const char *s)
{
    typedef size_t (*fn)(const char *);
    if (!ON(CT_F_strlen)) {
        fn r = (fn)real[CT_F_strlen];
        if (r)
            return r(s);
        size_t n = 0;
        while (((volatile const char *)s)[n])
            n++;
        return n;
    }
    uint64_t t0 = tsc();
    size_t v = REAL(CT_F_strlen, fn)(s);
    uint64_t t1 = tsc();
    record(CT_F_strlen, t0, t1, U(s), 0, 0, v, CALLER, s, NULL, 0);
    return v;
}

EXPORT int strcmp(const char *a, const char *b)
{
    typedef int (*fn)(const char *, const char *);
    if (!ON(CT_F_strcmp)) {
        fn r = (fn)real[CT_F_strcmp];
        if (r)
            return r(a, b);
        size_t i = 0;
        while (a[i] && a[i] == b[i])
            i++;
        return (unsigned char)a[i] - (unsigned char)b[i];
    }
    uint64_t t0 = tsc();
    int v = REAL(CT_F_strcmp, fn)(a, b);
    uint64_t t1 = tsc();
    record(CT_F_strcmp, t0, t1, U(a), U(b), 0, (uint64_t)(int64_t)v, CALLER, a, b, 0);
    return v;
}

EXPORT int strncmp(const char *a, const char *b, size_t n)
{
    typedef int (*fn)(const char *, const char *, size_t);
    if (!ON(CT_F_strncmp)) {
        fn r = (fn)real[CT_F_strncmp];
        if (r)
            return r(a, b, n);
        for (size_t i = 0; i < n; i++)
            if (a[i] != b[i] || !a[i])
                return (unsigned char)a[i] - (unsigned char)b[i];
        return 0;
    }
    uint64_t t0 = tsc();
    int v = REAL(CT_F_strncmp, fn)(a, b, n);
    uint64_t t1 = tsc();
    record(CT_F_strncmp, t0, t1, U(a), U(b), n, (uint64_t)(int64_t)v, CALLER, a, b, n);
    return v;
}

EXPORT char *strcpy(char *d, const char *s)
{
    typedef char *(*fn)(char *, const char *);
    if (!ON(CT_F_strcpy)) {
        fn r = (fn)real[CT_F_strcpy];
        if (r)
            return r(d, s);
        size_t i = 0;
        while ((d[i] = s[i]))
            i++;
        return d;
    }
    uint64_t t0 = tsc();
    char *p = REAL(CT_F_strcpy, fn)(d, s);
    uint64_t t1 = tsc();
    /* s may overlap d only in undefined programs; d now holds the copy of s. */
    record(CT_F_strcpy, t0, t1, U(d), U(s), 0, U(p), CALLER, d, NULL, 0);
    return p;
}

EXPORT char *strncpy(char *d, const char *s, size_t n)
{
    typedef char *(*fn)(char *, const char *, size_t);
    if (!ON(CT_F_strncpy)) {
        fn r = (fn)real[CT_F_strncpy];
        if (r)
            return r(d, s, n);
        size_t i = 0;
        for (; i < n && s[i]; i++)
            d[i] = s[i];
        for (; i < n; i++)
            d[i] = 0;
        return d;
    }
    uint64_t t0 = tsc();
    char *p = REAL(CT_F_strncpy, fn)(d, s, n);
    uint64_t t1 = tsc();
    record(CT_F_strncpy, t0, t1, U(d), U(s), n, U(p), CALLER, d, NULL, n);
    return p;
}

EXPORT char *strdup(const char *s)
{
    typedef char *(*fn)(const char *);
    if (!ON(CT_F_strdup)) {
        fn r = (fn)real_or_init(CT_F_strdup);
        if (r)
            return r(s);
        size_t n = 0;
        while (s[n])
            n++;
        char *p = arena_alloc(n + 1);
        for (size_t i = 0; p && i <= n; i++)
            p[i] = s[i];
        return p;
    }
    uint64_t t0 = tsc();
    char *p = REAL(CT_F_strdup, fn)(s);
    uint64_t t1 = tsc();
    record(CT_F_strdup, t0, t1, U(s), 0, 0, U(p), CALLER, p ? p : s, NULL, 0);
    return p;
}

EXPORT char *strchr(const char *s, int c)
{
    typedef char *(*fn)(const char *, int);
    if (!ON(CT_F_strchr)) {
        fn r = (fn)real[CT_F_strchr];
        if (r)
            return r(s, c);
        for (;; s++) {
            if (*s == (char)c)
                return (char *)s;
            if (!*s)
                return NULL;
        }
    }
    uint64_t t0 = tsc();
    char *p = REAL(CT_F_strchr, fn)(s, c);
    uint64_t t1 = tsc();
    record(CT_F_strchr, t0, t1, U(s), (uint64_t)(int64_t)c, 0, U(p), CALLER, s, NULL, 0);
    return p;
}

/* open: the path pointer may be bad (the kernel says EFAULT, we must not fault); it is kept
 * only when the call did not fail with EFAULT. */
EXPORT int open(const char *path, int flags, ...)
{
    typedef int (*fn)(const char *, int, ...);
    unsigned mode = 0;
    if (flags & (O_CREAT | __O_TMPFILE)) {
        va_list ap;
        va_start(ap, flags);
        mode = va_arg(ap, unsigned);
        va_end(ap);
    }
    if (!ON(CT_F_open)) {
        fn r = (fn)real_or_init(CT_F_open);
        if (r)
            return r(path, flags, mode);
        return (int)syscall(SYS_openat, AT_FDCWD, path, flags, mode);
    }
    uint64_t t0 = tsc();
    int fd = REAL(CT_F_open, fn)(path, flags, mode);
    uint64_t t1 = tsc();
    int bad = fd < 0 && errno == EFAULT;
    record(CT_F_open, t0, t1, U(path), (uint64_t)(int64_t)flags, mode, (uint64_t)(int64_t)fd,
           CALLER, bad ? NULL : path, NULL, 0);
    return fd;
}

#define IO3(name, cv)                                                                       \
EXPORT ssize_t name(int fd, cv void *buf, size_t n)                                       \
{                                                                                         \
    typedef ssize_t (*fn)(int, cv void *, size_t);                                        \
    if (!ON(CT_F_##name)) {                                                               \
        fn r = (fn)real_or_init(CT_F_##name);                                             \
        return r ? r(fd, buf, n) : syscall(SYS_##name, fd, buf, n);                       \
    }                                                                                     \
    uint64_t t0 = tsc();                                                                  \
    ssize_t v = REAL(CT_F_##name, fn)(fd, buf, n);                                        \
    uint64_t t1 = tsc();                                                                  \
    record(CT_F_##name, t0, t1, (uint64_t)(int64_t)fd, U(buf), n, (uint64_t)v, CALLER,    \
           NULL, NULL, 0);                                                                \
    return v;                                                                             \
}
IO3(read, )
IO3(write, const)

EXPORT int close(int fd)
{
    typedef int (*fn)(int);
    if (!ON(CT_F_close)) {
        fn r = (fn)real_or_init(CT_F_close);
        return r ? r(fd) : (int)syscall(SYS_close, fd);
    }
    uint64_t t0 = tsc();
    int v = REAL(CT_F_close, fn)(fd);
    uint64_t t1 = tsc();
    record(CT_F_close, t0, t1, (uint64_t)(int64_t)fd, 0, 0, (uint64_t)(int64_t)v, CALLER,
           NULL, NULL, 0);
    return v;
}

#define MUTEX(name)                                                                       \
EXPORT int name(pthread_mutex_t *m)                                                       \
{                                                                                         \
    typedef int (*fn)(pthread_mutex_t *);                                                 \
    if (!ON(CT_F_##name)) {                                                               \
        fn r = (fn)real_or_init(CT_F_##name);                                             \
        return r ? r(m) : 0;                                                              \
    }                                                                                     \
    uint64_t t0 = tsc();                                                                  \
    int v = REAL(CT_F_##name, fn)(m);                                                     \
    uint64_t t1 = tsc();                                                                  \
    record(CT_F_##name, t0, t1, U(m), 0, 0, (uint64_t)(int64_t)v, CALLER, NULL, NULL, 0); \
    return v;                                                                             \
}
MUTEX(pthread_mutex_lock)
MUTEX(pthread_mutex_trylock)
MUTEX(pthread_mutex_unlock)

/* Hidden aliases: inside this library a plain `malloc` would name the global definition
 * (libc's, when dlopen'ed), not the wrapper. */
#define A_(n, r, na, a0, a1, a2) \
    extern __typeof__(n) ct_w_##n __attribute__((alias(#n), copy(n), visibility("hidden")));
CT_PROTOS(A_)
#undef A_

static void fill_wrappers(void)
{
#define W_(n, r, na, a0, a1, a2) wrappers[CT_F_##n] = (uint64_t)(uintptr_t)ct_w_##n;
    CT_PROTOS(W_)
#undef W_
}
