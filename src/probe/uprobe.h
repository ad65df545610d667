/* SPDX-License-Identifier: MIT */
/* Dynamic uprobes for region tracing, created through tracefs (uprobe_events) and opened as
 * PERF_TYPE_TRACEPOINT events.
 *
 * Why not the `uprobe` PMU (config1 = path pointer)? On an inherited event the kernel re-reads
 * that user pointer in the context of the task that forks, so with attr.inherit every fork and
 * pthread_create of the target fails with EFAULT (measured on 6.18). Tracefs probes are named
 * kernel objects, so inherited copies need no user memory and threads/children work.
 *
 * All probes of one Prospect process live in the tracefs group "prospect_<pid>"; they are
 * deleted by uprobe_set_free (after the perf events on them are closed), and groups left
 * behind by a Prospect that was killed are removed when the next one starts. */
#ifndef PROSPECT_PROBE_UPROBE_H
#define PROSPECT_PROBE_UPROBE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct uprobe_set;

/* NULL with errno: tracefs_dir()'s errors (tracefs is mounted first when it may be), ENOTSUP
 * without uprobe_events (CONFIG_UPROBE_EVENTS), EACCES when it is not writable. */
struct uprobe_set *uprobe_set_new(void);
/* Creates (or reuses) a probe at a file offset of an ELF file; `ret` makes it a return probe
 * (uretprobe). Writes the tracepoint id for perf_event_attr.config. 0 or -errno. */
int uprobe_set_add(struct uprobe_set *s, const char *path, uint64_t offset, bool ret,
                   uint64_t *tp_id);
/* The same with tracefs fetch arguments (e.g. "a0=%di:u64 rv=%ax:u64"), recorded in each hit's
 * raw tracepoint data after the probe's address fields (src/calltrace/uprobe_attach.c). */
int uprobe_set_add_fetch(struct uprobe_set *s, const char *path, uint64_t offset, bool ret,
                         const char *fetch, uint64_t *tp_id);
/* Appends a probe to the set's tracefs event `event` (made by its first probe; each probe of
 * it needs the same fetch argument names and types, and an entry event takes no return
 * probes). All the probes of one event cost one kernel grace period when it is closed and
 * removed, against one per event (40-100 ms each here, one after the other). A probe's hits
 * tell which probe they are by an immediate fetch argument (e.g. "fn=\3:u32"). -EEXIST when
 * the event has a probe at that place already. 0 or -errno. */
int uprobe_set_append(struct uprobe_set *s, const char *event, const char *path,
                      uint64_t offset, bool ret, const char *fetch, uint64_t *tp_id);
/* Deletes every probe of the set; the perf events opened on them must be closed first. */
void uprobe_set_free(struct uprobe_set *s);
/* Removes probe groups of Prospect processes that no longer run. Returns how many. */
int uprobe_cleanup_stale(void);
/* The tracefs directory with a writable uprobe_events, or NULL with errno as uprobe_set_new. */
const char *uprobe_tracefs(void);
/* What uprobe_set_new's errno means, and what to do. */
const char *uprobe_advice(int err);
#endif
