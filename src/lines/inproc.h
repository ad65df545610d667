/* SPDX-License-Identifier: MIT */
/* The in-process engine of `prospect lines` (docs/lines.md, "Counting"): the program's own
 * code increments the counters. Each chosen function that can be relocated
 * (probe/reloc_func.h) gets an instrumented copy with a counter at each probed block; the
 * preloaded hook (src/intarget/lines_hook.c) maps the copies and a shared counter file into
 * every image of the command's program and redirects the functions' entries. No trap on the
 * hot path; the counts are read from the file when the command has ended. Blocks of the
 * functions it refuses keep their uprobes (-v says why). For the command's own dynamically
 * linked program without a sanitizer runtime; for -p, a C program's running process, the
 * copies put in by ptrace (lines_inproc_attach) and the entries put back at the end. */
#ifndef PROSPECT_LINES_INPROC_H
#define PROSPECT_LINES_INPROC_H
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "lines/count.h"
#include "lines/lines.h"
#include "probe/region.h"
#include "probe/region_trace.h"

struct lines_inproc;

/* Relocates what it can of p's functions in the program `exe` and writes the hook's plan,
 * counters and library into a new private directory; note (may be NULL) gets a line per
 * function, relocated or why not. *out is NULL when nothing qualified (err: a one-line
 * reason, for -v). 0 or -errno (err says why). */
int lines_inproc_plan(struct lines_inproc **out, const struct lines_plan *p, const char *exe,
                      void (*note)(void *, const char *), void *arg, char *err, size_t errlen);
/* The same for -p: no hook, counters `lock`ed throughout, one slot. */
int lines_inproc_plan_pid(struct lines_inproc **out, const struct lines_plan *p,
                          const char *exe, void (*note)(void *, const char *), void *arg,
                          char *err, size_t errlen);
/* -p: stops every thread of pid, leaves out each function a thread is in (its probes stay),
 * maps the copies and the counters into the process and redirects the entries; the threads
 * stay stopped until lines_inproc_resume. 0, or -errno with everything undone, the process
 * running on, and err saying why (its blocks then keep their uprobes). */
int lines_inproc_attach(struct lines_inproc *ip, const struct lines_plan *p, pid_t pid,
                        char *err, size_t errlen);
/* -p: lets the process go on (its uprobes opened). */
void lines_inproc_resume(struct lines_inproc *ip);
/* -p, at the end: in every process still carrying the jumps (the one attached, children it
 * forked) puts the file's bytes back and moves each thread running in a copy to the same
 * instruction of the original. Problems to fn. 0 or -errno. */
int lines_inproc_detach(struct lines_inproc *ip, void (*fn)(void *, const char *), void *arg);
/* Is probe i (p->probed.v[i]) counted in the process? */
bool lines_inproc_counts(const struct lines_inproc *ip, size_t probe);
/* Takes the probes it counts out of rl (their regions stay: region i is probe i's block). */
void lines_inproc_drop_probes(const struct lines_inproc *ip, struct region_list *rl);
/* The -v summary line: functions relocated, bytes, counters that keep the flags. */
void lines_inproc_summary(const struct lines_inproc *ip, char *buf, size_t len);
/* NULL-terminated "NAME=value" settings for the command's environment. */
char *const *lines_inproc_env(const struct lines_inproc *ip);
/* What lines_counter must watch to find images of the program the hook did not patch. */
int lines_inproc_watch(const struct lines_inproc *ip, struct image_watch *w);
/* Copies the counters into the probed blocks' counts; the hook's failures to fn. 0 or -errno. */
int lines_inproc_read(struct lines_inproc *ip, struct lines_plan *p,
                      void (*fn)(void *, const char *), void *arg);
/* Adds its counters to the cost as the in-process kind (LINES_COST_INPROC). */
void lines_inproc_cost(const struct lines_inproc *ip, const struct lines_plan *p,
                       struct lines_cost *cost);
/* Deletes the directory. */
void lines_inproc_free(struct lines_inproc *ip);
#endif
