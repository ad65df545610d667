/* SPDX-License-Identifier: MIT */
/* Jump entries: function regions of a launched program entered without a trap-and-single-step.
 *
 * A uprobe on a function's first instruction costs an int3 trap and, when the kernel cannot
 * emulate that instruction (mov, lea, add...: most leaf functions), a single-step trap as well
 * (~11 us each on this VM, and counted inside the region). For a function whose first
 * instructions can be moved (jump_code.h), Prospect instead:
 *   - writes a trampoline file: per function a slot `nop; ...; jmp *data[slot](%rip)`, and puts
 *     the function's entry and return probes on the slot's nop (emulated: no single-step);
 *   - preloads its entry hook (src/intarget/entry_hook.c) into the command, which, before main,
 *     maps the trampoline next to the program, builds a stub per function (the moved
 *     instructions, then a jump back) and replaces the function's first 5 bytes with
 *     `jmp slot`. The file on disk is untouched; the patch lives in the process's memory.
 * Calls, recursion, threads and fork behave as with probes on the function itself (the return
 * probe sees the same stack). The hook runs again in every image the command execs (LD_PRELOAD
 * is inherited), and logs what it did; prospect reports any process it could not patch.
 *
 * Only for the command's own program (the hook takes itself out of the environment in other
 * programs, so they run unchanged), started by the dynamic loader (LD_PRELOAD must apply),
 * not needing a sanitizer runtime (it insists on loading first); not for shared libraries (a
 * library loaded later with dlopen would not be patched) or attach mode: those keep plain
 * uprobes. */
#ifndef PROSPECT_PROBE_JUMP_ENTRY_H
#define PROSPECT_PROBE_JUMP_ENTRY_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "probe/region.h"

struct jump_entry;

/* Moves the entry and return probes of every function region of the command's program `exe`
 * that qualifies to a trampoline
 * slot (probe_point.jump, path = the trampoline) and writes the hook, the trampoline and the
 * plan into a new directory under $TMPDIR (else /tmp, /var/tmp, /dev/shm: one the command
 * can load code from). -v site notes say which functions were moved and why others were not.
 * *out is NULL when none qualified, or when no directory could take the files (err then says
 * why: the functions keep their uprobes). 0, or -errno with a message in err; *out, when set,
 * is the caller's to free in both cases. */
int jump_entry_plan(struct jump_entry **out, struct region_list *rl, const char *exe,
                    char *err, size_t errlen);
/* NULL-terminated "NAME=value" settings for the command's environment (LD_PRELOAD keeps what
 * the user had, with the hook appended). */
char *const *jump_entry_env(const struct jump_entry *j);
/* Calls fn once per problem the hook logged, e.g. "process 123: sum: the code differs from the
 * file" (those crossings were not counted). The log is read once, after the command ran. */
void jump_entry_problems(struct jump_entry *j, const struct region_list *rl,
                         void (*fn)(void *arg, const char *msg), void *arg);
/* What region_trace must watch to find process images the hook did not patch (the program
 * mapped, the trampoline not: e.g. exec'd with an environment without LD_PRELOAD). 0 or
 * -errno. */
struct image_watch;
int jump_entry_watch(const struct jump_entry *j, struct image_watch *w);
/* Did the hook log that it patched nothing in process `pid` (and said why)? */
bool jump_entry_process_failed(struct jump_entry *j, uint32_t pid);
/* Deletes the directory (call after the probes are gone). */
void jump_entry_free(struct jump_entry *j);
#endif
