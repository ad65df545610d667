/* SPDX-License-Identifier: MIT */
/* The warning for a command whose program changes credentials at exec (cmd.h). */
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <unistd.h>
#include "cmd/cmd.h"
#include "util/launch.h"
#include "util/strutil.h"

void cmd_warn_setid(const char *cmd, const char *program, const char *consequence)
{
    struct stat st;
    struct statvfs fs;
    const char *why = NULL;
    char exe[PATH_MAX], buf[PATH_MAX];

    if (!program || launch_resolve(program, exe, sizeof(exe)) ||
        stat(exe, &st) || !S_ISREG(st.st_mode) ||
        (statvfs(exe, &fs) == 0 && (fs.f_flag & ST_NOSUID)))
        return;
    if ((st.st_mode & S_ISUID) && st.st_uid != geteuid())
        why = "set-user-ID";
    else if ((st.st_mode & S_ISGID) && (st.st_mode & S_IXGRP) && st.st_gid != getegid())
        why = "set-group-ID";
    else if (geteuid() != 0 && getxattr(exe, "security.capability", NULL, 0) > 0)
        why = "given file capabilities";
    if (why)
        fprintf(stderr, "prospect %s: warning: %s is %s:\n  the kernel stops every perf "
                "event of a process whose exec changes its credentials,\n  so %s; measure a "
                "copy without the bit,\n  or run it as its owner\n", cmd,
                str_printable(exe, buf, sizeof(buf)), why, consequence);
}
