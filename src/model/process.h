/* SPDX-License-Identifier: MIT */
/* The model's processes: each image of a pid (an incarnation), its threads, its address-space
 * maps and the hits taken in them. The session builds them from records; the unwinder, the
 * call-graph store and the reports read them. */
#ifndef PROSPECT_MODEL_PROCESS_H
#define PROSPECT_MODEL_PROCESS_H
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "model/hitstore.h"
#include "util/vec.h"

struct dso;

struct map {
    uint64_t start, end, pgoff;
    struct dso *dso;              /* never NULL for maps made from records */
    uint32_t prot, flags;
    struct hitstore hits;         /* user hits at absolute addresses in [start, end) */
    bool in_stack;                /* a kept call stack has a frame in it: keep it when retired */
};

struct process {
    pid_t pid, ppid;
    char comm[32];
    int incarnation;              /* 0 for the first image of this pid, +1 per exec or reuse */
    bool exited, execed, is_self, is_idle;
    bool is_launcher;             /* Prospect's child before its exec: the exec renames it */
    VEC(uint32_t) tids;           /* its other threads by_tid maps here (until a grace second
                                     after their EXIT: see session_release_exited) */
    VEC(struct map *) maps;       /* live maps, sorted by start, non-overlapping */
    VEC(struct map *) retired;    /* replaced or unmapped maps, kept for their hits */
    struct map *last_map;         /* lookup cache */
    struct hitstore unmapped;     /* user hits outside every known map */
    struct hitstore khits;        /* kernel hits (addresses in the kernel) */
    uint64_t user_samples, kernel_samples, other_samples;
    uint64_t user_period, kernel_period;
    uint64_t first_time, last_time;
};

struct process *process_new(pid_t pid, const char *comm);
void process_free(struct process *p);
/* Maps [start, start+len) of dso at file offset pgoff; overlapped parts of older maps are
 * replaced (an old map keeps the hits it already had). 0, -EINVAL or -ENOMEM. */
int process_add_map(struct process *p, uint64_t start, uint64_t len, uint64_t pgoff,
                    struct dso *dso, uint32_t prot, uint32_t flags);
/* Gives dst a copy of src's live maps (fork): same DSOs, fresh hit stores. */
int process_copy_maps(struct process *dst, const struct process *src);
/* Removes tid from p's threads (order not kept). */
void process_drop_tid(struct process *p, uint32_t tid);
/* Retires every live map (exec replaces the address space). */
int process_retire_all_maps(struct process *p);

/* Samples of any mode taken in process p. */
static inline uint64_t process_samples(const struct process *p)
{
    return p->user_samples + p->kernel_samples + p->other_samples;
}

/* The next incarnation of pid after old (an exec or a reused pid; NULL: its first), named
 * comm: old's parent kept. NULL on -ENOMEM. */
struct process *process_next(const struct process *old, pid_t pid, const char *comm);
/* The map of p that contains addr, or NULL. */
struct map *process_find_map(struct process *p, uint64_t addr);
#endif
