/* SPDX-License-Identifier: MIT */
/* libpfm4's view of this CPU: its PMU model, event names -> perf_event_attr, oprofile's generic
 * names mapped to this model's, suggestions for names the model lacks, and listings (ophelp). */
#ifndef PROSPECT_PERF_EVENT_PFM_H
#define PROSPECT_PERF_EVENT_PFM_H
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>

/* The core PMU model libpfm4 encodes names for ("amd64_fam19h_zen4"), or NULL when it knows
 * none. When libpfm4 does not know this CPU (a newer family), the newest model of the same
 * vendor it knows is used; event_pfm_model_note() then says so ("" otherwise). The user's
 * LIBPFM_FORCE_PMU is libpfm4's own override and wins. */
const char *event_pfm_model(void);
const char *event_pfm_model_note(void);

/* True when the kernel exposes a hardware PMU ("cpu" in /sys/bus/event_source/devices): false
 * in a VM without a virtual PMU, where every hardware event fails to open. */
bool event_pmu_exposed(void);

/* Encodes a libpfm4 name ("RETIRED_INSTRUCTIONS:u", "pmu::EVENT:UMASK", "L2_LINES_IN:0xf0")
 * into a's type/config/config1/config2/exclude_user/exclude_kernel; canon gets libpfm4's full
 * name (pmu::EVENT:UMASK...). 0, -ENOENT (no such event on this model) or -EINVAL (a bad unit
 * mask or modifier; err says which, from libpfm4). */
int event_pfm_encode(const char *name, struct perf_event_attr *a, char *canon, size_t canonlen,
                     char *err, size_t errlen);

/* oprofile's generic names (CPU_CLK_UNHALTED, INST_RETIRED, LLC_MISSES, ...): the name of this
 * model's equivalent event in out ("CYCLES_NOT_IN_HALT"), or the perf generic name ("cycles")
 * when the model has none or is unknown. -ENOENT for a name that is not one of them. */
int event_oprofile_equivalent(const char *name, char *out, size_t len, bool *is_pfm);

/* "A, B or C": up to three names of the model (and perf's generic ones) close to name (edit
 * distance, or containing it). Empty when nothing is close. */
void event_pfm_suggest(const char *name, char *buf, size_t len);

/* True if libpfm4 knows a PMU model of that name that this machine's CPU is not ("amd64_fam19h_zen3"
 * on a Zen 4): its event names are valid elsewhere but not encoded here. */
bool event_pfm_other_model(const char *pmu);

/* Listing: every PMU model libpfm4 uses here (the core one and others it detects), then its
 * events with descriptions and unit masks. Callbacks stop the walk when they return non-zero. */
struct pfm_umask_info {
    const char *name, *desc;
    unsigned long long code;
    bool is_default;
};
struct pfm_event_listing {
    const char *pmu, *pmu_desc;
    const char *name, *desc;
    unsigned long long code;
    const struct pfm_umask_info *umasks;
    size_t nr_umasks;
};
int event_pfm_foreach_pmu(int (*fn)(void *arg, const char *pmu, const char *desc, int nevents),
                          void *arg);
int event_pfm_foreach_event(const char *pmu,
                            int (*fn)(void *arg, const struct pfm_event_listing *ev), void *arg);
#endif
