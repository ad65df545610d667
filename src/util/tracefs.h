/* SPDX-License-Identifier: MIT */
/* Where tracefs is, mounting it first when it is not mounted and we may (as perf's tools do).
 *
 * A fresh VM or container has an empty /sys/kernel/tracing: the kernel has tracefs but nothing
 * mounted it. Tracepoint events and uprobes both need it, so the first caller mounts it when
 * the kernel lists tracefs in /proc/filesystems, the mount point is empty and the mount is
 * allowed (root or CAP_SYS_ADMIN); the mount stays, as perf's does. */
#ifndef PROSPECT_UTIL_TRACEFS_H
#define PROSPECT_UTIL_TRACEFS_H

#define TRACEFS_MOUNT_POINT "/sys/kernel/tracing"

/* The mounted tracefs directory, or NULL with errno: ENOENT the kernel has no tracefs (or no
 * mount point), EPERM not mounted and this user may not mount it, EBUSY not mounted and the
 * mount point is not empty, EACCES mounted but not readable by this user. The answer is computed once. */
const char *tracefs_dir(void);
/* Where tracefs is mounted already, or NULL: never mounts it, nor touches debugfs's tracing
 * directory (which the kernel automounts on access); for callers that only look (completion). */
const char *tracefs_mounted_dir(void);
/* One sentence saying what `err` (an errno from tracefs_dir, positive) means and what to do. */
const char *tracefs_advice(int err);
#endif
