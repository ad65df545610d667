/* SPDX-License-Identifier: MIT */
/* Where the session hands samples beyond its own hits (in the spirit of perf's perf_tool): the
 * call-graph store, the off-CPU tracker. The session knows no consumer by name; each command
 * adds the sinks it reports from (session_add_sink). Any callback may be NULL. */
#ifndef PROSPECT_SESSION_SINK_H
#define PROSPECT_SESSION_SINK_H
#include <stdbool.h>
#include <stdint.h>

struct evsel;
struct process;
struct sample;

struct sample_sink {
    /* Whether the sink takes sel's samples instead of the profiles (off-CPU's switch-outs):
     * such samples never count as on-CPU hits. */
    bool (*claims)(void *arg, const struct evsel *sel);
    /* A claimed sample of process p, fully decoded. */
    int (*claimed)(void *arg, struct process *p, const struct sample *smp);
    /* A claimed sample the filters hide (--pid, --comm...), fully decoded. */
    int (*claimed_hidden)(void *arg, const struct sample *smp);
    /* A kept on-CPU sample: fully decoded, or its fixed fields when its call chain does not
     * decode; period is the one the session counted (clock periods clamped). */
    int (*sample)(void *arg, struct process *p, const struct sample *smp, uint64_t period);
    /* Thread tid switched in at time. */
    int (*switch_in)(void *arg, uint32_t tid, uint64_t time);
    void *arg;
};

#endif
