/* SPDX-License-Identifier: MIT */
/* The messages every probe-based command (stat, lines, trace) gives about its measured program
 * (src/probe/target.h), worded once. */
#ifndef PROSPECT_CMD_TARGET_MSG_H
#define PROSPECT_CMD_TARGET_MSG_H
#include "probe/target.h"

/* "cannot run 'PROG': why"; the shell's exit status for it: 127 not found, else 126. */
int cmd_exec_error(const char *cmd, const char *prog, int err);
/* probe_target_prepare's failure, by step. */
void cmd_prepare_error(const char *cmd, const char *prog, enum probe_prepare_step step, int err);
/* "command terminated by signal N (name)" when wstatus says a signal ended the command. */
void cmd_note_signaled(const char *cmd, int wstatus);
#endif
