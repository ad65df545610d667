/* SPDX-License-Identifier: MIT */
/* Process lifecycle and address-space maps (struct process/map are in session.h). */
#ifndef PROSPECT_SESSION_PROCESS_H
#define PROSPECT_SESSION_PROCESS_H
#include <stdio.h>
#include "session/session.h"

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
#endif
