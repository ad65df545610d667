/* SPDX-License-Identifier: MIT */
/* Turns a session's hits into symbol-level hits: each distinct address is resolved once, by a
 * merge walk over the DSO's sorted symbols (user) or kallsyms (kernel). Reports aggregate the
 * results by whatever keys they sort on. */
#ifndef PROSPECT_SESSION_SYMBOLIZE_H
#define PROSPECT_SESSION_SYMBOLIZE_H
#include <stdbool.h>
#include <stdint.h>
#include "session/session.h"

struct ksyms;

struct sym_hit {
    const struct process *proc;
    struct dso *dso;          /* NULL for kernel hits and hits outside every map */
    const char *module;       /* kernel hits: module name, NULL for the core kernel */
    const char *sym;          /* resolved name (or a->b bracket); NULL if unresolved */
    uint64_t addr;            /* DSO vaddr (user), kernel address, or raw ip (unmapped) */
    uint64_t sym_start;       /* start of the symbol when resolved */
    bool kernel, bracket;
    bool demangled;           /* sym is demangled C++ (symres.demangled) */
    uint64_t samples, period;
};

typedef int (*sym_hit_fn)(void *arg, const struct sym_hit *h);

/* Loads, all at once (dso_load_all), the symbols of every DSO with user hits in these
 * processes, before symbolize_user is called on each in this order. 0 or -ENOMEM. */
int symbolize_load(struct process *const *procs, size_t n);
/* User hits of one process (every map, live and retired, plus unmapped hits). */
int symbolize_user(struct process *p, sym_hit_fn fn, void *arg);
/* Kernel hits of one hit store (a process's khits or the session's global kernel hits). */
int symbolize_kernel(const struct hitstore *hs, const struct process *p, const struct ksyms *ks,
                     sym_hit_fn fn, void *arg);
#endif
