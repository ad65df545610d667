/* SPDX-License-Identifier: MIT */
/* stat -r: the probe-cost note (trace/region_cost.h decides) and the progress line. */
#include <time.h>
#include <unistd.h>
#include "cmd/stat_cost.h"
#include "probe/region_cost.h"

static void fmt_ns(double ns, char *buf, size_t len)
{
    if (ns >= 1e9)
        snprintf(buf, len, "%.2f s", ns / 1e9);
    else if (ns >= 1e6)
        snprintf(buf, len, "%.1f ms", ns / 1e6);
    else if (ns >= 1e3)
        snprintf(buf, len, "%.1f us", ns / 1e3);
    else
        snprintf(buf, len, "%.0f ns", ns);
}

void stat_cost_notes(FILE *f, const struct region_list *rl, struct region_counter *rc)
{
    for (size_t i = 0; i < rl->regions.n; i++) {
        const struct rc_result *r = region_counter_total(rc, (int)i);
        struct region_cost c;
        char inside[32], mean[32], per[32], all[32];

        /* Column 0 is the group leader, task-clock (region_trace.h). */
        if (!r || !r->crossings || !r->vals[0].n || rl->regions.v[i].missing)
            continue;
        if (!region_cost_estimate(region_entry_kind(rl, (int)i), rc_stat_mean(&r->vals[0]),
                                  r->vals[0].min, &c))
            continue;
        fmt_ns(c.inside_ns, inside, sizeof(inside));
        fmt_ns(rc_stat_mean(&r->vals[0]), mean, sizeof(mean));
        fmt_ns(c.per_crossing_ns, per, sizeof(per));
        fmt_ns(c.per_crossing_ns * (double)r->calls, all, sizeof(all));
        fprintf(f, "prospect stat: note: %s: each crossing costs ~%s of probe handling (%s),\n"
                "  ~%s of it inside the %s mean task-clock (%.0f%%): counts are right, times are\n"
                "  inflated; ~%s of this run went to its probes (estimate: docs/stat.md, Cost "
                "and skew)\n", rl->regions.v[i].label, per, region_entry_kind_name(c.kind),
                inside, mean, c.share * 100, all);
    }
}

static bool progress_on, progress_tty, progress_shown;
static double progress_t0, progress_last;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void stat_progress_start(bool forced)
{
    progress_tty = isatty(STDERR_FILENO);
    progress_on = forced || progress_tty;
    progress_shown = false;
    progress_t0 = progress_last = now_s();
}

void stat_progress_tick(struct region_counter *rc)
{
    double t = now_s();

    if (!progress_on || t - progress_last < 1.0)
        return;
    progress_last = t;
    progress_shown = true;
    fprintf(stderr, "%sprospect stat: %llu crossings, %.0f s elapsed%s", progress_tty ? "\r" : "",
            (unsigned long long)region_counter_crossings(rc), t - progress_t0,
            progress_tty ? "\033[K" : "\n");
    fflush(stderr);
}

void stat_progress_end(void)
{
    if (progress_on && progress_tty && progress_shown)
        fputs("\r\033[K", stderr);
    progress_on = false;
}
