/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "util/launch.h"
#include "util/strutil.h"

int launch_resolve(const char *cmd, char *out, size_t outlen)
{
    const char *path = getenv("PATH");
    char buf[PATH_MAX];
    int err = -ENOENT;

    if (strchr(cmd, '/')) {
        if (access(cmd, F_OK))
            return -ENOENT;
        if (access(cmd, X_OK))
            return -EACCES;
        str_copy(out, outlen, cmd);
        return 0;
    }
    if (!path)
        path = "/usr/local/bin:/usr/bin:/bin";
    while (*path) {
        size_t len = strcspn(path, ":");
        struct stat st;
        snprintf(buf, sizeof(buf), "%.*s/%s", (int)(len ? len : 1), len ? path : ".", cmd);
        if (stat(buf, &st) == 0 && S_ISREG(st.st_mode)) {
            if (access(buf, X_OK) == 0) {
                str_copy(out, outlen, buf);
                return 0;
            }
            err = -EACCES;
        }
        path += len + (path[len] == ':');
    }
    return err;
}

int launch_prepare(struct launch *l, char *const argv[])
{
    return launch_prepare_env(l, argv, NULL);
}

int launch_prepare_env(struct launch *l, char *const argv[], char *const *env)
{
    int go[2], ex[2];

    l->pid = -1;
    l->go_fd = l->err_fd = -1;
    if (pipe2(go, O_CLOEXEC))
        return -errno;
    if (pipe2(ex, O_CLOEXEC)) {
        int e = errno;
        close(go[0]);
        close(go[1]);
        return -e;
    }
    l->pid = fork();
    if (l->pid < 0) {
        int e = errno;
        close(go[0]); close(go[1]); close(ex[0]); close(ex[1]);
        return -e;
    }
    if (l->pid == 0) {
        char c;
        int e;
        close(go[1]);
        close(ex[0]);
        /* Wait until the parent has opened the events (EOF: it gave up). */
        if (read(go[0], &c, 1) != 1)
            _exit(127);
        for (size_t i = 0; env && env[i]; i++)
            if (putenv(env[i]))
                _exit(127);
        execvp(argv[0], argv);
        e = errno;
        if (write(ex[1], &e, sizeof(e)) < 0)
            _exit(127);
        _exit(e == ENOENT ? 127 : 126);
    }
    close(go[0]);
    close(ex[1]);
    l->go_fd = go[1];
    l->err_fd = ex[0];
    return 0;
}

int launch_go(struct launch *l)
{
    int e = 0;
    ssize_t n;

    if (write(l->go_fd, "g", 1) != 1)
        e = errno;
    close(l->go_fd);
    l->go_fd = -1;
    if (e)
        return -e;
    do
        n = read(l->err_fd, &e, sizeof(e));
    while (n < 0 && errno == EINTR);
    close(l->err_fd);
    l->err_fd = -1;
    return n == (ssize_t)sizeof(e) ? -e : 0;
}

void launch_abort(struct launch *l)
{
    if (l->go_fd >= 0)
        close(l->go_fd);   /* the child reads EOF and exits */
    if (l->err_fd >= 0)
        close(l->err_fd);
    l->go_fd = l->err_fd = -1;
    if (l->pid > 0) {
        kill(l->pid, SIGKILL);
        waitpid(l->pid, NULL, 0);
        l->pid = -1;
    }
}

int launch_exit_code(int wstatus)
{
    if (WIFEXITED(wstatus))
        return WEXITSTATUS(wstatus);
    if (WIFSIGNALED(wstatus))
        return 128 + WTERMSIG(wstatus);
    return 1;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int tick_sleep(void *arg, int timeout_ms, int wake_fd)
{
    struct pollfd p = { .fd = wake_fd, .events = POLLIN };
    (void)arg;
    if (wake_fd >= 0) {
        poll(&p, 1, timeout_ms);
    } else {
        struct timespec ts = { 0, (long)timeout_ms * 1000000L };
        nanosleep(&ts, NULL);
    }
    return 0;
}

/* Whether an attached process has ended: gone, or exited and not yet reaped by its parent (a
 * zombie answers kill(pid, 0), but its pidfd is readable). */
static bool attached_ended(pid_t pid, int pidfd)
{
    struct pollfd p = { .fd = pidfd, .events = POLLIN };

    if (kill(pid, 0) != 0)
        return true;
    return pidfd >= 0 && poll(&p, 1, 0) > 0;
}

int launch_wait(struct launch_wait_opts *w, int *wstatus)
{
    int (*tick)(void *, int, int) = w->tick ? w->tick : tick_sleep;
    pid_t target = w->child > 0 ? w->child : w->attach_pid;
    double t0 = now_s();
    /* A pidfd becomes readable when the process exits: no polling latency at the end. */
    int pidfd = target > 0 ? (int)syscall(SYS_pidfd_open, target, 0) : -1, err = 0;

    *wstatus = 0;
    for (;;) {
        int ms = 100;
        if (w->duration > 0) {   /* -I intervals are shorter than the usual tick */
            double left = w->duration - (now_s() - t0);
            if (left * 1000 < ms)
                ms = left > 0 ? (int)(left * 1000) + 1 : 0;
        }
        if ((err = tick(w->tick_arg, ms, pidfd)))
            break;
        if (w->child > 0) {
            pid_t r;
            /* Ctrl-C reaches the command through the terminal; a signal sent to Prospect
             * alone is passed on once, and the results cover everything until it exits. */
            if (*w->stop_signal && !w->forwarded) {
                kill(w->child, *w->stop_signal);
                kill(w->child, SIGCONT);
                w->forwarded = true;
            } else if (w->forwarded && w->stop_count && *w->stop_count >= 2) {
                /* Asked twice: the command ignores or defers the signal. Stop waiting and
                 * leave it running rather than hang. */
                err = -ECANCELED;
                break;
            }
            r = waitpid(w->child, wstatus, WNOHANG);
            if (r == w->child)
                break;
            if (r < 0 && errno != EINTR) {
                err = -errno;
                break;
            }
        } else if (*w->stop_signal ||
                   (w->attach_pid > 0 && attached_ended(w->attach_pid, pidfd))) {
            break;
        }
        /* The command is never killed for Prospect's sake: the caller decides what the end
         * of the duration means (stop measuring, print an interval) and may wait again. */
        if (w->duration > 0 && now_s() - t0 >= w->duration) {
            err = -ETIME;
            break;
        }
    }
    if (pidfd >= 0)
        close(pidfd);
    return err;
}
