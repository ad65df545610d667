/* SPDX-License-Identifier: MIT */
/* Internal to jump entries (src/probe/jump_*.c): the files Prospect writes for the entry hook. */
#ifndef PROSPECT_PROBE_JUMP_FILES_H
#define PROSPECT_PROBE_JUMP_FILES_H
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define JUMP_SLOT_SIZE 16            /* must match src/intarget/entry_hook.c */
#define JUMP_MAX_SLOTS 256           /* one page of slots */
#define JUMP_TRAMP_SIZE 4096

/* Creates a fresh private directory "prospect-jump-<pid>-XXXXXX" (mode 0700) in the first of
 * $TMPDIR, /tmp, /var/tmp, /dev/shm that takes it and is not mounted noexec (ld.so could not
 * load the hook from there), removing stale ones of dead prospects on the way (only directories
 * that are ours and 0700; nothing is followed). `dir` gets the path (len >= 256). 0 or -errno
 * (-EPERM: only noexec candidates). */
int jump_make_dir(char *dir, size_t len);
/* Writes `len` bytes as dir/name with `mode` (a new file: O_EXCL, never through a symlink).
 * 0 or -errno. */
int jump_write_file(const char *dir, const char *name, const void *data, size_t len,
                    mode_t mode);
/* The trampoline's JUMP_TRAMP_SIZE bytes: per slot a probed nop, then `jmp *data[slot](%rip)`
 * where the data page follows the trampoline's page in memory. */
void jump_trampoline_fill(uint8_t *t);
/* Removes the hook's files of a jump directory and the directory, if it is ours and 0700. */
void jump_remove_dir(const char *dir);
#endif
