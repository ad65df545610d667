/* SPDX-License-Identifier: MIT */
/* Internal to the in-process engine's -p part (inproc_pid*.c): where the program is in the
 * running process, and the system calls that map the copies into it. */
#ifndef PROSPECT_LINES_INPROC_PID_H
#define PROSPECT_LINES_INPROC_PID_H
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include "probe/ptrace_stop.h"
#include "symbol/elf_program.h"

struct pid_layout {
    uint64_t bias;                /* added to the file's addresses */
    uint64_t lo, hi;              /* the program's mappings (and its .bss after them) */
    uint64_t site;                /* code of the program where a `syscall` may be written */
};

/* From /proc/PID/maps: the mappings of the file `exe` (its stat), seg one of its code
 * segments. 0, -ENOENT (not mapped), -errno. */
int pid_read_layout(pid_t pid, const struct stat *exe, const struct code_seg *seg,
                    struct pid_layout *lay);
/* Maps dir/code (csize bytes, read and execute, private) and, after it, slot 0 of
 * dir/counters (nsize bytes, shared) within reach of the program's code and data, by
 * system calls of its thread 0. *base = where. 0, -ERANGE (no room), -errno. */
int pid_map_copies(struct pt_world *w, const struct pid_layout *lay, const char *dir,
                   uint64_t csize, uint64_t nsize, uint64_t *base);
/* Takes a mapping made above out again (after a failure). */
void pid_unmap_copies(struct pt_world *w, const struct pid_layout *lay, uint64_t base,
                      uint64_t size);
/* Does a seccomp filter (or strict mode) watch pid's system calls? The calls made in it could
 * be refused, or kill it. True too when /proc/PID/status cannot be read. */
bool pid_filtered(pid_t pid);
/* Calls fn(arg, word) for each 8-byte word of thread t's stack, from its rsp up to the end
 * of the mapping that holds rsp (a few MiB at most), read through /proc/PID/mem. 0 or -errno. */
int pid_scan_stack(const struct pt_world *w, size_t t,
                   void (*fn)(void *, uint64_t), void *arg);
/* The processes that map the file `code` (its stat) now, in a malloc'd array. 0 or -errno. */
int pid_find_mappers(const struct stat *code, pid_t **out, size_t *n);
#endif
