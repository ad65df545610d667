/* SPDX-License-Identifier: MIT */
/* The measured program of the probe-based tools: launch or attach, jump entries, the wait. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "probe/target.h"

volatile sig_atomic_t probe_stop_signal;
volatile sig_atomic_t probe_stop_count;

static void on_stop_signal(int sig)
{
    probe_stop_signal = sig;
    probe_stop_count++;
}

void probe_stop_handlers_install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}

double probe_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static bool has_command(const struct probe_target *t)
{
    return !t->attach_pid && t->argv && t->argv[0];
}

void probe_target_init(struct probe_target *t, pid_t attach_pid, char *const *argv)
{
    memset(t, 0, sizeof(*t));
    t->attach_pid = attach_pid;
    t->argv = argv;
    t->l = (struct launch){ .pid = -1, .go_fd = -1, .err_fd = -1 };
}

int probe_target_resolve(struct probe_target *t)
{
    if (t->attach_pid) {
        char link[64];
        ssize_t n;
        snprintf(link, sizeof(link), "/proc/%d/exe", (int)t->attach_pid);
        if ((n = readlink(link, t->exe, sizeof(t->exe) - 1)) < 0)
            return -errno;
        t->exe[n] = '\0';
        return 0;
    }
    return launch_resolve(t->argv[0], t->exe, sizeof(t->exe));
}

int probe_target_plan_jumps(struct probe_target *t, struct region_list *rl, char *err,
                            size_t errlen)
{
    if (!has_command(t))
        return 0;
    return jump_entry_plan(&t->je, rl, t->exe, err, errlen);
}

/* The jump entries' settings, then the caller's, as one NULL-terminated array (owned). */
static int merge_env(struct probe_target *t, char *const *env)
{
    char *const *je_env = t->je ? jump_entry_env(t->je) : NULL;
    size_t n = 0, a = 0, b = 0;

    while (je_env && je_env[a])
        a++;
    while (env && env[b])
        b++;
    if (!(t->env = calloc(a + b + 1, sizeof(*t->env))))
        return -ENOMEM;
    for (size_t i = 0; i < a; i++)
        t->env[n++] = je_env[i];
    for (size_t i = 0; i < b; i++)
        t->env[n++] = env[i];
    return 0;
}

int probe_target_prepare(struct probe_target *t, char *const *env, enum probe_prepare_step *step)
{
    int e;

    *step = PROBE_STEP_START;
    if (has_command(t) && ((e = merge_env(t, env)) ||
                           (e = launch_prepare_env(&t->l, t->argv, t->env))))
        return e;
    *step = PROBE_STEP_WATCH;
    if (t->je && (e = jump_entry_watch(t->je, &t->watch))) {
        launch_abort(&t->l);
        return e;
    }
    return 0;
}

pid_t probe_target_pid(const struct probe_target *t)
{
    return t->attach_pid ? t->attach_pid : t->l.pid;
}

const struct image_watch *probe_target_watch(const struct probe_target *t)
{
    return t->je ? &t->watch : NULL;
}

void probe_target_abort(struct probe_target *t)
{
    launch_abort(&t->l);
}

int probe_target_go(struct probe_target *t)
{
    int e;
    if (t->l.pid <= 0 || !(e = launch_go(&t->l)))
        return 0;
    waitpid(t->l.pid, NULL, 0);
    return e;
}

/* launch_wait for at most until `stop` (0: no limit), from now. */
static int wait_until(struct launch_wait_opts *w, double stop, int *wstatus)
{
    double left = stop ? stop - probe_now_s() : 0;
    w->duration = stop ? (left > 1e-6 ? left : 1e-6) : 0;
    return launch_wait(w, wstatus);
}

int probe_target_wait(struct probe_target *t, const struct probe_wait *pw, double t0,
                      int *wstatus, bool *running)
{
    double end = pw->duration > 0 ? t0 + pw->duration : 0;
    double next = pw->interval > 0 && pw->on_interval ? t0 + pw->interval : 0;
    int e;

    t->w = (struct launch_wait_opts){ .child = t->l.pid > 0 ? t->l.pid : 0,
                                      .attach_pid = t->attach_pid,
                                      .stop_signal = &probe_stop_signal,
                                      .stop_count = &probe_stop_count,
                                      .tick = pw->tick, .tick_arg = pw->tick_arg };
    *running = false;
    while ((e = wait_until(&t->w, next && (!end || next < end) ? next : end, wstatus)) == -ETIME) {
        if (next && probe_now_s() >= next - 1e-6) {
            pw->on_interval(pw->interval_arg, probe_now_s() - t0);
            next += pw->interval;
        }
        if (end && probe_now_s() >= end - 1e-6) {
            *running = t->w.child > 0;
            return 0;
        }
    }
    return e;
}

int probe_target_wait_rest(struct probe_target *t, int *wstatus)
{
    t->w.duration = 0;
    t->w.tick = NULL;   /* nothing is measured any more */
    t->w.tick_arg = NULL;
    return launch_wait(&t->w, wstatus);
}

size_t probe_target_unpatched(struct probe_target *t, const uint32_t *pids, size_t n,
                              uint32_t *first)
{
    size_t silent = 0;

    *first = 0;
    for (size_t i = 0; i < n; i++)
        if (!jump_entry_process_failed(t->je, pids[i]) && !silent++)
            *first = pids[i];
    return silent;
}

void probe_target_problems(struct probe_target *t, const struct region_list *rl,
                           void (*fn)(void *arg, const char *msg), void *arg)
{
    jump_entry_problems(t->je, rl, fn, arg);
}

void probe_target_release(struct probe_target *t)
{
    jump_entry_free(t->je);
    t->je = NULL;
    free(t->env);
    t->env = NULL;
}
