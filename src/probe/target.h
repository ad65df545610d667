/* SPDX-License-Identifier: MIT */
/* The measured program of the probe-based tools (`stat`, `stat -r`, `stat --markers`, `lines`,
 * `trace`): a command started held before its exec (so probes and counters open on its pid
 * first) or a running process (-p); the jump entries preloaded into the command; the release;
 * the wait, with Ctrl-C, SIGTERM and SIGHUP passed on to the command once (a second one ends
 * the wait, the command left running); --duration and -I intervals. One sequence for every
 * tool: resolve, plan jumps, prepare, open (the tool's own), go, wait, release. The commands
 * print; this returns -errno and says which step failed. */
#ifndef PROSPECT_PROBE_TARGET_H
#define PROSPECT_PROBE_TARGET_H
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "probe/jump_entry.h"
#include "probe/region_trace.h"
#include "util/launch.h"

/* The stop signal (its number) and how many arrived, set by probe_stop_handlers_install's
 * handler: the wait passes the first on to the command, and the tools stop on it. */
extern volatile sig_atomic_t probe_stop_signal;
extern volatile sig_atomic_t probe_stop_count;
/* SIGINT, SIGTERM and SIGHUP (a closed terminal: probes and hook files are cleaned up too) end
 * counting rather than prospect; no SA_RESTART, so poll and waitpid return EINTR. */
void probe_stop_handlers_install(void);

struct probe_target {
    pid_t attach_pid;             /* -p, or 0 */
    char *const *argv;            /* the command when not attached; NULL or empty: none (-a) */
    char exe[PATH_MAX];           /* the program (probe_target_resolve) */
    struct jump_entry *je;        /* the command's jump entries, NULL: plain uprobes */
    struct image_watch watch;     /* with je: the images the tracer checks for the hook */
    struct launch l;              /* the held command (pid -1 when none) */
    struct launch_wait_opts w;    /* the wait, kept between probe_target_wait calls */
    char **env;                   /* the command's added environment (owned) */
};

/* The wait: until the target ends, or `duration` seconds pass, calling on_interval every
 * `interval` seconds and tick (launch_wait_opts' tick) meanwhile. */
struct probe_wait {
    double duration, interval;    /* seconds, 0 for none */
    void (*on_interval)(void *arg, double elapsed_s);
    void *interval_arg;
    int (*tick)(void *arg, int timeout_ms, int wake_fd);
    void *tick_arg;
};

/* Which step of probe_target_prepare failed (the commands word each). */
enum probe_prepare_step { PROBE_STEP_START = 1, PROBE_STEP_WATCH };

void probe_target_init(struct probe_target *t, pid_t attach_pid, char *const *argv);
/* t->exe: /proc/PID/exe's target when attached (as it reads: " (deleted)" is the caller's to
 * judge), else the command as execvp finds it. 0 or -errno (-ENOENT, -EACCES for a command). */
int probe_target_resolve(struct probe_target *t);
/* Jump entries for the command's function regions (jump_entry_plan): none when attached. 0 or
 * -errno with err set; t->je NULL with err set: none could be made (err says why). */
int probe_target_plan_jumps(struct probe_target *t, struct region_list *rl, char *err,
                            size_t errlen);
/* Forks the command held before exec with the jump entries' environment and `env` (NULL-
 * terminated "NAME=value", may be NULL) added, and reads what the tracer must watch for the
 * jump entries. Nothing to start when attached or with no command. 0, or -errno with *step
 * saying which step failed (nothing is left running then). */
int probe_target_prepare(struct probe_target *t, char *const *env, enum probe_prepare_step *step);
/* The pid probes and counters open on: the attached process, the held command, or -1. */
pid_t probe_target_pid(const struct probe_target *t);
/* With jump entries: what region_trace and lines_counter watch; else NULL. */
const struct image_watch *probe_target_watch(const struct probe_target *t);
/* Kills and reaps a held command that was never released (setup failed). */
void probe_target_abort(struct probe_target *t);
/* Releases the held command: 0 once it exec'd, or the exec's -errno (the child has exited with
 * 127 or 126 and is reaped). 0 when there is none. */
int probe_target_go(struct probe_target *t);
/* Waits (launch_wait) as `pw` says; t0 is the monotonic time (probe_now_s) of the release.
 * 0 with *wstatus (*running: --duration ended with the command still running, untouched);
 * -ECANCELED: a second stop signal ended the wait, the command runs on (*wstatus then says
 * the signal, as if it had ended it); or -errno. */
int probe_target_wait(struct probe_target *t, const struct probe_wait *pw, double t0,
                      int *wstatus, bool *running);
/* After --duration: waits for the rest of the command, measuring nothing. As above. */
int probe_target_wait_rest(struct probe_target *t, int *wstatus);
/* Of `n` pids whose images ran without the entry hook, those the hook did not itself log as
 * failed (those were said from its log already): their count, the first in *first. */
size_t probe_target_unpatched(struct probe_target *t, const uint32_t *pids, size_t n,
                              uint32_t *first);
/* Calls fn once per problem the entry hook logged (after the run). */
void probe_target_problems(struct probe_target *t, const struct region_list *rl,
                           void (*fn)(void *arg, const char *msg), void *arg);
/* Deletes the jump entries' files and the environment (after the probes are gone). */
void probe_target_release(struct probe_target *t);
/* CLOCK_MONOTONIC in seconds. */
double probe_now_s(void);
#endif
