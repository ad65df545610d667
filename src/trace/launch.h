/* Starting a command for measurement: fork, hold the child before exec (a pipe handshake) so
 * events can be opened on its pid, then let it exec. Exec failures come back through a
 * close-on-exec pipe, so "not found" (127) and "not executable" (126) are told apart. */
#ifndef PROSPECT_TRACE_LAUNCH_H
#define PROSPECT_TRACE_LAUNCH_H
#include <stddef.h>
#include <sys/types.h>

struct launch {
    pid_t pid;
    int go_fd;      /* write end: one byte releases the child */
    int err_fd;     /* read end: the child's exec errno, or EOF on success */
};

/* Finds `cmd` as execvp would (PATH when it has no '/'). 0, -ENOENT or -EACCES. */
int launch_resolve(const char *cmd, char *out, size_t outlen);
/* Forks the child, which waits for launch_go. 0 or -errno. */
int launch_prepare(struct launch *l, char *const argv[]);
/* Releases the child; returns 0 once it has exec'd, or -errno of the failed exec (the child
 * has then exited with 127 or 126). */
int launch_go(struct launch *l);
/* Kills and reaps a child that was never released (setup failed). */
void launch_abort(struct launch *l);
/* The exit status a shell would give for a waitpid status: the code, or 128+signal. */
int launch_exit_code(int wstatus);
#endif
