#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "trace/launch.h"
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
