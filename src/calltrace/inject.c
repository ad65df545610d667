/* SPDX-License-Identifier: MIT */
/* Loading the interposer into a running process (see inject.h). */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>
#include <gelf.h>
#include "calltrace/inject.h"
#include "calltrace/protoconf.h"
#include "symbol/elf_dynsym.h"
#include "intarget/calltrace_abi.h"
#include "probe/jump_files.h"

extern const unsigned char prospect_calltrace_preload_so[];
extern const unsigned long prospect_calltrace_preload_so_len;

#define SO_NAME "calltrace_preload.so"

int ct_inject_prepare(struct ct_inject *in, uint64_t mask, bool follow)
{
    char conf[96], strings[CT_NFUNCS + 1], path[PATH_MAX];
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    int e;
    in->listen_fd = -1;
    if ((e = jump_make_dir(in->dir, sizeof(in->dir)))) {
        in->dir[0] = 0;
        return e;
    }
    ct_builtin_strings_field(strings);
    snprintf(conf, sizeof(conf), "A,%d,%llx,%s\n", follow ? 1 : 0, (unsigned long long)mask,
             strings);
    if ((e = jump_write_file(in->dir, SO_NAME, prospect_calltrace_preload_so,
                             prospect_calltrace_preload_so_len, 0700)) ||
        (e = jump_write_file(in->dir, "attach.conf", conf, strlen(conf), 0600)))
        goto fail;
    if (snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/sock", in->dir) >=
        (int)sizeof(sa.sun_path)) {
        e = -ENAMETOOLONG;
        goto fail;
    }
    snprintf(path, sizeof(path), "%s/sock", in->dir);
    in->listen_fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (in->listen_fd < 0 || bind(in->listen_fd, (struct sockaddr *)&sa, sizeof(sa)) ||
        listen(in->listen_fd, 4)) {
        e = -errno;
        goto fail;
    }
    return 0;
fail:
    ct_inject_remove(in);
    return e;
}

void ct_inject_remove(struct ct_inject *in)
{
    static const char *const files[] = { SO_NAME, "attach.conf", "sock" };
    char path[PATH_MAX];
    if (in->listen_fd >= 0)
        close(in->listen_fd);
    in->listen_fd = -1;
    if (!in->dir[0])
        return;
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        snprintf(path, sizeof(path), "%s/%s", in->dir, files[i]);
        unlink(path);
    }
    rmdir(in->dir);
    in->dir[0] = 0;
}

int ct_inject_accept(struct ct_inject *in)
{
    int fd = accept4(in->listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
    return fd < 0 ? -errno : fd;
}

/* The run-time address of dlopen in process pid: its libc's load base plus the symbol. */
static int find_dlopen(pid_t pid, uint64_t *addr, char *err, size_t errlen)
{
    char p[64], line[4352], libc[4096] = "";
    unsigned long long base = 0;
    FILE *f;
    snprintf(p, sizeof(p), "/proc/%d/maps", (int)pid);
    if (!(f = fopen(p, "re")))
        return -errno;
    while (fgets(line, sizeof(line), f)) {
        unsigned long long st, off;
        char *path = strchr(line, '/'), *b;
        if (!path || sscanf(line, "%llx-%*x %*s %llx", &st, &off) != 2 || off)
            continue;
        path[strcspn(path, "\n")] = 0;
        b = strrchr(path, '/') + 1;
        if (!strncmp(b, "libc.so", 7) || !strncmp(b, "libc-", 5)) {
            snprintf(libc, sizeof(libc), "%s", path);
            base = st;
            break;
        }
    }
    fclose(f);
    if (!libc[0]) {
        snprintf(err, errlen, "process %d maps no libc (a static program?)", (int)pid);
        return -ENOENT;
    }
    /* dlopen's offset in our own libc, when the process maps that very file (same inode):
     * the symbol tables name it with a version, our dynamic linker knows it exactly. */
    Dl_info di;
    struct stat a, b;
    /* libc's own dlopen (not an interceptor's, e.g. a sanitizer's): looked up in libc. */
    void *libc_h = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
    void *ours = libc_h ? dlsym(libc_h, "dlopen") : NULL;
    if (libc_h)
        dlclose(libc_h);
    char proc_path[PATH_MAX + 32];
    snprintf(proc_path, sizeof(proc_path), "/proc/%d/root%s", (int)pid, libc);
    if (!ours || !dladdr(ours, &di) || !di.dli_fname || stat(di.dli_fname, &a) ||
        stat(proc_path, &b) || a.st_dev != b.st_dev || a.st_ino != b.st_ino) {
        snprintf(err, errlen, "process %d uses another libc than prospect (%s)", (int)pid,
                 libc);
        return -ENOENT;
    }
    *addr = base + (uint64_t)((uintptr_t)ours - (uintptr_t)di.dli_fbase);
    return 0;
}

/* Whether process pid maps an interposer already (an earlier trace -p's: it stays loaded).
 * A second copy would not load: its initial-exec TLS needs static TLS room that the first
 * took. */
static bool has_interposer(pid_t pid)
{
    char p[64], line[4352];
    bool found = false;
    FILE *f;
    snprintf(p, sizeof(p), "/proc/%d/maps", (int)pid);
    if (!(f = fopen(p, "re")))
        return false;
    while (!found && fgets(line, sizeof(line), f)) {
        char *b = strrchr(line, '/');
        found = b && !strncmp(b + 1, SO_NAME, strlen(SO_NAME)) &&
                strchr(" \n", b[1 + strlen(SO_NAME)]);
    }
    fclose(f);
    return found;
}

static int poke(pid_t pid, uint64_t addr, const void *data, size_t len)
{
    for (size_t o = 0; o < len; o += 8) {
        uint64_t w = 0;
        memcpy(&w, (const char *)data + o, len - o < 8 ? len - o : 8);
        if (ptrace(PTRACE_POKEDATA, pid, (void *)(addr + o), (void *)w))
            return -errno;
    }
    return 0;
}

/* Waits for the next stop of pid; -ESRCH when it exited. */
static int wait_stop(pid_t pid, int *sig)
{
    int st;
    for (;;) {
        pid_t r = waitpid(pid, &st, __WALL);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -errno;
        if (WIFEXITED(st) || WIFSIGNALED(st))
            return -ESRCH;
        if (WIFSTOPPED(st)) {
            *sig = WSTOPSIG(st);
            return 0;
        }
    }
}

/* The thread to run dlopen on: one blocked in a system call that holds no lock of libc's (read,
 * poll, sleep, wait...), so that dlopen's own locks (the loader's, malloc's) can be taken; the
 * main thread when none is. */
static pid_t pick_thread(pid_t pid)
{
    static const long safe[] = { 0 /* read */, 7 /* poll */, 23 /* select */, 35 /* nanosleep */,
                                 43 /* accept */, 45 /* recvfrom */, 47 /* recvmsg */,
                                 61 /* wait4 */, 230 /* clock_nanosleep */, 232 /* epoll_wait */,
                                 270 /* pselect6 */, 271 /* ppoll */, 281 /* epoll_pwait */,
                                 288 /* accept4 */, 34 /* pause */, 247 /* waitid */ };
    char p[64], buf[64];
    pid_t best = pid;
    struct dirent *de;
    DIR *d;
    snprintf(p, sizeof(p), "/proc/%d/task", (int)pid);
    if (!(d = opendir(p)))
        return pid;
    while ((de = readdir(d))) {
        long tid = strtol(de->d_name, NULL, 10), nr;
        FILE *f;
        if (tid <= 0)
            continue;
        snprintf(p, sizeof(p), "/proc/%d/task/%ld/syscall", (int)pid, tid);
        if (!(f = fopen(p, "re")))
            continue;
        if (fgets(buf, sizeof(buf), f) && sscanf(buf, "%ld", &nr) == 1)
            for (size_t i = 0; i < sizeof(safe) / sizeof(safe[0]); i++)
                if (nr == safe[i]) {
                    best = (pid_t)tid;
                    if (tid == pid)         /* the main thread is as good as any */
                        goto out;
                }
        fclose(f);
        continue;
out:
        fclose(f);
        break;
    }
    closedir(d);
    return best;
}

/* Runs fn(str, arg) on thread `pid` of process `proc` (ptrace: stopped for the call, its
 * registers restored after): the string below the red zone, a return address of 0 whose fault
 * ends the call. *ret: the return value. 0 or -errno with err set. */
static int remote_call(pid_t proc, pid_t pid, uint64_t fn, const char *str, uint64_t arg,
                       uint64_t *ret, char *err, size_t errlen)
{
    struct user_regs_struct saved, r;
    uint64_t zero = 0;
    int e, sig = 0;
    if (ptrace(PTRACE_ATTACH, pid, NULL, NULL)) {
        e = -errno;
        snprintf(err, errlen, "cannot ptrace process %d for the moment of loading the "
                 "interposer: %s", (int)proc, strerror(errno));
        return e;
    }
    /* Until the SIGSTOP of the attach; other signals that come first are passed on. */
    while (!(e = wait_stop(pid, &sig)) && sig != SIGSTOP)
        ptrace(PTRACE_CONT, pid, NULL, (void *)(long)sig);
    if (e) {
        snprintf(err, errlen, "process %d ended", (int)pid);
        return e;
    }
    if (ptrace(PTRACE_GETREGS, pid, NULL, &saved)) {
        e = -errno;
        goto detach;
    }
    /* At the entry, rsp + 8 is 16-byte aligned, as after a call. */
    r = saved;
    uint64_t at = ((saved.rsp - 1024 - strlen(str)) & ~15ull);
    r.rsp = at - 8;
    r.rip = fn;
    r.rdi = at;
    r.rsi = arg;
    r.rax = 0;
    r.orig_rax = (unsigned long long)-1;   /* no syscall restart on the way */
    if ((e = poke(pid, at, str, strlen(str) + 1)) || (e = poke(pid, r.rsp, &zero, 8)) ||
        ptrace(PTRACE_SETREGS, pid, NULL, &r)) {
        e = e ? e : -errno;
        goto restore;
    }
    ptrace(PTRACE_CONT, pid, NULL, NULL);
    for (;;) {
        if ((e = wait_stop(pid, &sig))) {
            snprintf(err, errlen, "process %d ended while loading the interposer", (int)pid);
            return e;
        }
        if (sig == SIGSEGV || sig == SIGBUS)
            break;
        /* A signal meanwhile: kept pending for later (a stop is not passed on now). */
        ptrace(PTRACE_CONT, pid, NULL, sig == SIGSTOP ? NULL : (void *)(long)sig);
    }
    if (ptrace(PTRACE_GETREGS, pid, NULL, &r)) {
        e = -errno;
        goto restore;
    }
    if (r.rip != 0) {
        snprintf(err, errlen, "loading the interposer into %d faulted at 0x%llx", (int)pid,
                 (unsigned long long)r.rip);
        e = -EFAULT;
    }
    *ret = r.rax;
restore:
    if (ptrace(PTRACE_SETREGS, pid, NULL, &saved) && !e)
        e = -errno;
detach:
    ptrace(PTRACE_DETACH, pid, NULL, NULL);
    if (e && !*err)
        snprintf(err, errlen, "loading the interposer into %d: %s", (int)pid, strerror(-e));
    return e;
}

/* CT_REATTACH_SYM's value (arg: where to put it): stops the walk with 1. */
static int reattach_sym(void *arg, const GElf_Sym *sym, const char *name)
{
    if (strcmp(name, CT_REATTACH_SYM))
        return 0;
    *(uint64_t *)arg = sym->st_value;
    return 1;
}

/* The reattach entry's offset in our interposer (CT_REATTACH_SYM in its .dynsym). */
static int reattach_offset(uint64_t *off)
{
    char *copy = malloc(prospect_calltrace_preload_so_len);
    Elf *e;
    int r;
    if (!copy)
        return -ENOMEM;
    memcpy(copy, prospect_calltrace_preload_so, prospect_calltrace_preload_so_len);
    if (elf_version(EV_CURRENT) == EV_NONE ||
        !(e = elf_memory(copy, prospect_calltrace_preload_so_len))) {
        free(copy);
        return -EINVAL;
    }
    r = elf_dynsym_each(e, reattach_sym, off) ? 0 : -ENOENT;
    elf_end(e);
    free(copy);
    return r;
}

/* Where pid maps the interposer an earlier -p left, when it is this very build (its first
 * page, headers and build-id note, equal to ours). 0, -ENOENT or -ESTALE (another build). */
static int loaded_interposer(pid_t pid, uint64_t *base)
{
    char p[64], line[4352];
    unsigned char page[4096];
    int e = -ENOENT, fd;
    FILE *f;
    snprintf(p, sizeof(p), "/proc/%d/maps", (int)pid);
    if (!(f = fopen(p, "re")))
        return -errno;
    while (e == -ENOENT && fgets(line, sizeof(line), f)) {
        unsigned long long st, off;
        char *b = strrchr(line, '/');
        if (b && !strncmp(b + 1, SO_NAME, strlen(SO_NAME)) &&
            sscanf(line, "%llx-%*x %*s %llx", &st, &off) == 2 && !off) {
            *base = st;
            e = 0;
        }
    }
    fclose(f);
    if (e)
        return e;
    size_t n = prospect_calltrace_preload_so_len < sizeof(page) ?
               prospect_calltrace_preload_so_len : sizeof(page);
    snprintf(p, sizeof(p), "/proc/%d/mem", (int)pid);
    if ((fd = open(p, O_RDONLY | O_CLOEXEC)) < 0)
        return -errno;
    if (pread(fd, page, n, (off_t)*base) != (ssize_t)n ||
        memcmp(page, prospect_calltrace_preload_so, n))
        e = -ESTALE;
    close(fd);
    return e;
}

/* A later -p: the interposer already in the process takes the new directory. */
static int reattach(struct ct_inject *in, pid_t proc, char *err, size_t errlen)
{
    uint64_t base = 0, off = 0, ret = 0;
    int e;
    if ((e = loaded_interposer(proc, &base)) || (e = reattach_offset(&off))) {
        snprintf(err, errlen, "process %d: an earlier -p's interposer%s left no TLS room",
                 (int)proc, e == -ESTALE ? " (another prospect's)" : "");
        return -EEXIST;
    }
    if ((e = remote_call(proc, pick_thread(proc), base + off, in->dir, 0, &ret, err, errlen)))
        return e;
    if ((int)ret == -EBUSY) {
        snprintf(err, errlen, "process %d is being traced by another trace -p", (int)proc);
        return -EBUSY;
    }
    if ((int)ret) {
        snprintf(err, errlen, "the interposer in process %d did not take the new trace: %s",
                 (int)proc, strerror(-(int)ret));
        return (int)ret;
    }
    return 0;
}

int ct_inject_load(struct ct_inject *in, pid_t pid, char *err, size_t errlen)
{
    char path[PATH_MAX];
    uint64_t dlopen_addr = 0, ret = 0;
    int e;

    snprintf(path, sizeof(path), "%s/%s", in->dir, SO_NAME);
    if ((e = find_dlopen(pid, &dlopen_addr, err, errlen)))
        return e;
    if (has_interposer(pid))
        return reattach(in, pid, err, errlen);
    if ((e = remote_call(pid, pick_thread(pid), dlopen_addr, path, RTLD_NOW | RTLD_LOCAL, &ret,
                         err, errlen)))
        return e;
    if (!ret) {
        snprintf(err, errlen, "dlopen of the interposer failed in process %d (a path it "
                 "cannot read? another mount namespace?)", (int)pid);
        return -ENOENT;
    }
    return 0;
}
