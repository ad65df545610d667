/* SPDX-License-Identifier: MIT */
/* Whose a running process is, from the Uid line of /proc/PID/status (readable by anyone). */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>
#include "util/proc_owner.h"

int proc_other_user(pid_t pid, uid_t *uid)
{
    char path[64], line[256];
    unsigned long r, e, s;
    int found = 0;
    FILE *f;

    snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
    if (!(f = fopen(path, "re")))
        return -errno;
    while (!found && fgets(line, sizeof(line), f))
        found = sscanf(line, "Uid: %lu %lu %lu", &r, &e, &s) == 3;
    fclose(f);
    if (!found)
        return -EINVAL;
    if (uid)
        *uid = (uid_t)r;
    /* The kernel's check (PTRACE_MODE_*_REALCREDS) compares our real uid with all three. */
    uid_t me = getuid();
    return geteuid() != 0 && (r != me || e != me || s != me);
}
