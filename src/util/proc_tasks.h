/* SPDX-License-Identifier: MIT */
/* The threads of a running process, from /proc/PID/task (for attaching to each). */
#ifndef PROSPECT_UTIL_PROC_TASKS_H
#define PROSPECT_UTIL_PROC_TASKS_H
#include <stddef.h>
#include <sys/types.h>

/* The thread ids of pid now (more may start later), in a malloc'd array. 0, -errno of the
 * directory, -ESRCH when it lists none, -ENOMEM. Names that are not thread ids are skipped. */
int proc_task_ids(pid_t pid, pid_t **out, size_t *n);
#endif
