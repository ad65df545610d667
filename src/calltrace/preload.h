/* SPDX-License-Identifier: MIT */
/* The interposer's file: Prospect writes the embedded calltrace_preload.so into a fresh private
 * directory (0700, the file 0700, never through a symlink: src/probe/jump_files.c) that the
 * command preloads from, and removes it at the end. */
#ifndef PROSPECT_CALLTRACE_PRELOAD_H
#define PROSPECT_CALLTRACE_PRELOAD_H
#include <stddef.h>

struct ct_preload {
    char dir[512];
    char *env;          /* "LD_PRELOAD=<existing:>dir/calltrace_preload.so" */
};

/* 0 or -errno (-EPERM: no temporary directory that is not mounted noexec). */
int ct_preload_setup(struct ct_preload *p);
void ct_preload_remove(struct ct_preload *p);
/* 1 if the command (found as execvp would) is an ELF without PT_INTERP (static: nothing
 * can be preloaded), 0 if not or unknown. */
int ct_static_note(const char *cmd);
#endif
