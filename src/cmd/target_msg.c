/* SPDX-License-Identifier: MIT */
/* The probe-based commands' messages about their measured program. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include "cmd/cmd.h"
#include "cmd/target_msg.h"

int cmd_exec_error(const char *cmd, const char *prog, int err)
{
    cmd_error(cmd, "cannot run '%s': %s", prog, strerror(-err));
    return err == -ENOENT ? 127 : 126;
}

void cmd_prepare_error(const char *cmd, const char *prog, enum probe_prepare_step step, int err)
{
    if (step == PROBE_STEP_WATCH)
        cmd_error(cmd, "cannot read the entry hook's trampoline: %s", strerror(-err));
    else
        cmd_error(cmd, "cannot start '%s': %s", prog, strerror(-err));
}

void cmd_note_signaled(const char *cmd, int wstatus)
{
    if (WIFSIGNALED(wstatus))
        fprintf(stderr, "prospect %s: command terminated by signal %d (%s)\n", cmd,
                WTERMSIG(wstatus), strsignal(WTERMSIG(wstatus)));
}
