/* SPDX-License-Identifier: MIT */
/* One allocator's replay in a child process (replay_run.h). */
#include "replay/replay_run.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/cpu_pin.h"
#include "util/launch.h"

/* The child program's bytes (build/gen/replay_child_bin.c, made by the Makefile). */
extern const unsigned char prospect_replay_child[];
extern const unsigned long prospect_replay_child_len;

static int write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -errno;
        if (n == 0)
            return -EIO;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Reads exactly len bytes; 0, -EPIPE at an early end, or -errno. */
static int read_all(int fd, void *buf, size_t len)
{
    char *p = buf;
    while (len) {
        ssize_t n = read(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -errno;
        if (n == 0)
            return -EPIPE;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

#ifndef MFD_EXEC
#define MFD_NOEXEC_SEAL 0x0008u
#define MFD_EXEC 0x0010u
#endif

/* A sealed memfd holding bytes; cloexec and executable as asked (the kernel's
 * vm.memfd_noexec may refuse an executable one: -EACCES). fd or -errno. */
static int sealed_memfd(const char *name, const void *a, size_t alen, const void *b, size_t blen,
                        bool cloexec, bool exec)
{
    unsigned flags = MFD_ALLOW_SEALING | (cloexec ? MFD_CLOEXEC : 0);
    int fd = memfd_create(name, flags | (exec ? MFD_EXEC : MFD_NOEXEC_SEAL));
    if (fd < 0 && errno == EINVAL)      /* a kernel before 6.3 knows neither flag */
        fd = memfd_create(name, flags);
    if (fd < 0)
        return -errno;
    int err = write_all(fd, a, alen);
    if (!err && blen)
        err = write_all(fd, b, blen);
    if (!err && fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL))
        err = -errno;
    if (err) {
        close(fd);
        return err;
    }
    return fd;
}

/* The child program as a file: dir (0700, made here) and path (0700) under $TMPDIR or /tmp. */
static int child_file(char *dir, size_t dlen, char *path, size_t plen)
{
    const char *base = getenv("TMPDIR");
    if (!base || base[0] != '/')
        base = "/tmp";
    if ((size_t)snprintf(dir, dlen, "%s/prospect-replay-XXXXXX", base) >= dlen) {
        dir[0] = 0;
        return -ENAMETOOLONG;
    }
    if (!mkdtemp(dir)) {
        int e = -errno;
        dir[0] = 0;
        return e;
    }
    if ((size_t)snprintf(path, plen, "%s/replay_child", dir) >= plen) {
        rmdir(dir);
        dir[0] = 0;
        return -ENAMETOOLONG;
    }
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0700);
    int err = fd < 0 ? -errno : write_all(fd, prospect_replay_child, prospect_replay_child_len);
    if (fd >= 0 && close(fd) && !err)
        err = -errno;
    if (err) {
        unlink(path);
        rmdir(dir);
        dir[0] = 0;
    }
    return err;
}

void replay_result_release(struct replay_result *res)
{
    free(res->ticks);
    free(res->dump);
    memset(res, 0, sizeof(*res));
}

static const char *death(int status, char *buf, size_t len)
{
    if (WIFSIGNALED(status))
        snprintf(buf, len, "killed by signal %d (%s)", WTERMSIG(status),
                 strsignal(WTERMSIG(status)));
    else if (WIFEXITED(status))
        snprintf(buf, len, "exited with status %d", WEXITSTATUS(status));
    else
        snprintf(buf, len, "ended (status 0x%x)", (unsigned)status);
    return buf;
}

static int read_results(int fd, const struct replay_prog *p, const struct replay_run_opts *o,
                        struct replay_result *res, char *msg, size_t len)
{
    int err = read_all(fd, &res->hdr, sizeof(res->hdr));
    if (err)
        return err;
    res->hdr.msg[sizeof(res->hdr.msg) - 1] = 0;
    res->hdr.malloc_from[sizeof(res->hdr.malloc_from) - 1] = 0;
    if (memcmp(res->hdr.magic, RP_RES_MAGIC, 8) || res->hdr.version != RP_VERSION) {
        snprintf(msg, len, "the replay child sent no result header");
        return -EPROTO;
    }
    if (res->hdr.status) {
        snprintf(msg, len, "the replay child failed: %s", res->hdr.msg);
        return res->hdr.status < 0 && res->hdr.status > -4096 ? res->hdr.status : -EIO;
    }
    if (res->hdr.nops != p->nops || res->hdr.repeat != o->repeat ||
        res->hdr.cpuid != (o->cpuid ? 1u : 0u)) {
        snprintf(msg, len, "the replay child answered for another program");
        return -EPROTO;
    }
    res->ticks = malloc(p->nops * o->repeat * sizeof(uint64_t));
    if (!res->ticks)
        return -ENOMEM;
    err = read_all(fd, res->ticks, p->nops * o->repeat * sizeof(uint64_t));
    struct rp_res_tail tail;
    if (!err)
        err = read_all(fd, &tail, sizeof(tail));
    if (!err && memcmp(tail.magic, RP_RES_MAGIC, 8)) {
        snprintf(msg, len, "the replay child's results end in garbage");
        return -EPROTO;
    }
    if (!err)
        res->peak_rss_kb = tail.peak_rss_kb;
    if (!err && o->dump) {
        res->dump = malloc(p->nops * sizeof(*res->dump));
        if (!res->dump)
            return -ENOMEM;
        err = read_all(fd, res->dump, p->nops * sizeof(*res->dump));
    }
    return err;
}

int replay_run(const struct replay_prog *p, const struct replay_alloc *a,
               const struct replay_run_opts *o, struct replay_result *res, char *msg,
               size_t len)
{
    struct rp_prog_hdr h;
    int exe = -1, prog = -1, pipefd[2] = {-1, -1}, err;
    struct launch l = {.pid = -1, .go_fd = -1, .err_fd = -1};

    memset(res, 0, sizeof(*res));
    msg[0] = 0;
    memset(&h, 0, sizeof(h));
    memcpy(h.magic, RP_PROG_MAGIC, 8);
    h.version = RP_VERSION;
    h.flags = (o->dump ? RP_PROG_DUMP : 0) | (o->cpuid ? RP_PROG_CPUID : 0);
    h.nthreads = p->nthreads;
    h.nslots = p->nslots;
    h.warmup = o->warmup;
    h.repeat = o->repeat;
    h.nops = p->nops;

    char path[PATH_MAX], tmpdir[PATH_MAX] = "";
    exe = sealed_memfd("prospect-replay-child", prospect_replay_child,
                       prospect_replay_child_len, NULL, 0, true, true);
    if (exe >= 0) {
        snprintf(path, sizeof(path), "/proc/self/fd/%d", exe);
    } else {
        /* No executable memfd here (vm.memfd_noexec = 2): a file in a private directory. */
        err = child_file(tmpdir, sizeof(tmpdir), path, sizeof(path));
        if (err) {
            snprintf(msg, len, "cannot write the replay child: %s", strerror(-err));
            return err;
        }
    }
    /* The program and the pipe's write end are inherited (not close-on-exec); Prospect has
     * one thread, so no other child can inherit them meanwhile. */
    prog = sealed_memfd("prospect-replay-program", &h, sizeof(h), p->ops,
                        p->nops * sizeof(*p->ops), false, false);
    if (prog < 0) {
        err = prog;
        snprintf(msg, len, "cannot hold the replay program in memory: %s", strerror(-err));
        goto out;
    }
    if (pipe(pipefd) || fcntl(pipefd[0], F_SETFD, FD_CLOEXEC)) {
        err = -errno;
        snprintf(msg, len, "pipe: %s", strerror(-err));
        goto out;
    }
    char pfd[16], rfd[16], preload[300];
    snprintf(pfd, sizeof(pfd), "%d", prog);
    snprintf(rfd, sizeof(rfd), "%d", pipefd[1]);
    snprintf(preload, sizeof(preload), "LD_PRELOAD=%s", a->lib);
    char *argv[] = {path, pfd, rfd, NULL};
    char *env[] = {preload, NULL};
    err = launch_prepare_env(&l, argv, env);
    if (err) {
        snprintf(msg, len, "cannot start the replay child: %s", strerror(-err));
        goto out;
    }
    close(pipefd[1]);
    pipefd[1] = -1;
    close(prog);
    prog = -1;
    err = cpu_pin(l.pid, o->cpu, "/sys/devices/system/cpu/online", msg, len);
    if (err) {
        launch_abort(&l);
        goto out;
    }
    err = launch_go(&l);
    if (err) {
        snprintf(msg, len, "cannot run the replay child: %s", strerror(-err));
        waitpid(l.pid, NULL, 0);
        goto out;
    }
    err = read_results(pipefd[0], p, o, res, msg, len);
    close(pipefd[0]);
    pipefd[0] = -1;
    int status = 0;
    while (waitpid(l.pid, &status, 0) < 0) {
        if (errno != EINTR) {
            if (!err)
                err = -errno;
            break;
        }
    }
    if (!err && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
        char d[80];
        snprintf(msg, len, "the replay child %s", death(status, d, sizeof(d)));
        err = -EIO;
    } else if (err && !msg[0]) {
        char d[80];
        if (err == -EPIPE)
            snprintf(msg, len, "the replay child %s before sending all results",
                     death(status, d, sizeof(d)));
        else
            snprintf(msg, len, "the replay child %s; reading its results: %s",
                     death(status, d, sizeof(d)), strerror(-err));
    }
out:
    if (err)
        replay_result_release(res);
    if (exe >= 0)
        close(exe);
    if (tmpdir[0]) {
        unlink(path);
        rmdir(tmpdir);
    }
    if (prog >= 0)
        close(prog);
    if (pipefd[0] >= 0)
        close(pipefd[0]);
    if (pipefd[1] >= 0)
        close(pipefd[1]);
    return err;
}
