/* SPDX-License-Identifier: MIT */
/* Whose a running process is: a permission error on another user's process has a cause that
 * perf_event_paranoid cannot change (the kernel's ptrace access check). */
#ifndef PROSPECT_UTIL_PROC_OWNER_H
#define PROSPECT_UTIL_PROC_OWNER_H
#include <sys/types.h>

/* 1 when pid runs with a user id (real, effective or saved, /proc/PID/status) other than the
 * caller's real one and the caller is not root, 0 when not, -errno when it cannot be read.
 * *uid (may be NULL): the process's real user id. */
int proc_other_user(pid_t pid, uid_t *uid);
#endif
