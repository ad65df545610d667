/* SPDX-License-Identifier: MIT */
/* A flat profile: symbol-level hits aggregated by (DSO, symbol), or by address where nothing
 * resolved, sorted by period. One per section of the Prospect report. */
#ifndef PROSPECT_REPORT_PROFILE_H
#define PROSPECT_REPORT_PROFILE_H
#include <stdbool.h>
#include <stdint.h>
#include "session/symbolize.h"
#include "util/hashmap.h"
#include "util/vec.h"

struct prof_row {
    const char *sym;          /* NULL: unresolved, see addr */
    struct dso *dso;          /* user rows */
    const char *module;       /* kernel rows: NULL for the core kernel */
    uint64_t addr;            /* unresolved rows: the address */
    bool kernel, bracket;
    uint64_t samples, period;
};

struct profile {
    VEC(struct prof_row) rows;
    struct hashmap index;     /* key hash -> row index + 1 (probing on mismatch) */
    uint64_t samples, period;
};

void profile_init(struct profile *pr);
void profile_release(struct profile *pr);
/* A sym_hit_fn: adds one hit to the profile passed as arg. */
int profile_add(void *profile, const struct sym_hit *h);
/* Sorts rows by period, most first (ties by samples, then name, for stable output). */
void profile_sort(struct profile *pr);
/* A process's USER and KERNEL profiles, sorted. Both are initialized here and the caller
 * releases them, also on error. 0 or -errno. */
int profile_process(struct profile *user, struct profile *kern, struct process *p,
                    const struct ksyms *ks);
/* The global kernel profile: every process's kernel hits (session_kernel_hits), into kern
 * (initialized by the caller, not sorted). 0 or -errno. */
int global_kernel_profile(const struct session *s, const struct ksyms *ks, struct profile *kern);
/* Events of process p (user and kernel): percentages are shares of periods, as perf's are, so
 * a sample that stands for more events weighs more. */
static inline uint64_t process_period(const struct process *p)
{
    return p->user_period + p->kernel_period;
}

/* The file a row belongs to, for display ("libc.so.6", "[kernel.kallsyms]", "[ext4]"). */
const char *prof_row_dso_name(const struct prof_row *r, char *buf, size_t len);
#endif
