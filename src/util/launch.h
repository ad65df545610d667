/* SPDX-License-Identifier: MIT */
/* Starting a command for measurement: fork, hold the child before exec (a pipe handshake) so
 * events can be opened on its pid, then let it exec. Exec failures come back through a
 * close-on-exec pipe, so "not found" (127) and "not executable" (126) are told apart. */
#ifndef PROSPECT_UTIL_LAUNCH_H
#define PROSPECT_UTIL_LAUNCH_H
#include <signal.h>
#include <stdbool.h>
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
/* The same, with "NAME=value" settings (NULL-terminated) added to the command's environment. */
int launch_prepare_env(struct launch *l, char *const argv[], char *const *env);
/* Releases the child; returns 0 once it has exec'd, or -errno of the failed exec (the child
 * has then exited with 127 or 126). */
int launch_go(struct launch *l);
/* Kills and reaps a child that was never released (setup failed). */
void launch_abort(struct launch *l);
struct launch_wait_opts {
    pid_t child;                  /* the launched command, or 0 */
    pid_t attach_pid;             /* with child 0: the attached process */
    double duration;              /* seconds, 0 = until the process ends */
    volatile sig_atomic_t *stop_signal; /* set by the caller's signal handler (signal number) */
    volatile sig_atomic_t *stop_count;  /* optional: signals received (the handler adds 1) */
    /* Called at least every 100 ms with a fd that becomes readable when the process exits
     * (a pidfd, -1 if unavailable): wait on it and do work (drain ring buffers). NULL: sleep. */
    int (*tick)(void *arg, int timeout_ms, int wake_fd);
    void *tick_arg;
    bool forwarded;               /* state: the stop signal was passed on (keep it between calls) */
};

/* Waits until the command exits (a signal in *stop_signal is passed to it once, with SIGCONT
 * so a stopped command can act on it), or for an attached process (or with neither, for
 * nothing: system-wide counting) until it exits or a signal arrives. *wstatus gets the
 * command's wait status (0 when attached). 0; -ETIME when `duration` ended first (the command
 * or process still runs, untouched: call again to go on waiting); -ECANCELED when a second
 * signal (stop_count >= 2) ended the wait with the command still running (it is left
 * running); or -errno (from waitpid or tick). */
int launch_wait(struct launch_wait_opts *w, int *wstatus);
/* The exit status a shell would give for a waitpid status: the code, or 128+signal. */
int launch_exit_code(int wstatus);
#endif
