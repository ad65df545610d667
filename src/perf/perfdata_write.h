/* SPDX-License-Identifier: MIT */
/* perf.data writer: the file consumer of the record stream, in the layout perf 6.1 reads.
 *
 *   open    creates the file (mode 0600, never through a symlink) with an all-zero header: a
 *           file that stops before the first record has no magic and is plainly unreadable
 *           ("header was never written").
 *   write   the first record writes the events' ids and attrs and a header without feature
 *           sections (an unfinished file: Prospect's reader reads it to the end and warns).
 *           Records are appended exactly as they came from the ring buffers; round() appends
 *           a FINISHED_ROUND after each full drain, so readers can order records by time, puts
 *           the round on disk and the data size in the header: a recording killed with
 *           SIGKILL stays readable, by perf too.
 *   close   appends the feature sections (hostname, osrelease, version, arch, nrcpus, cpudesc,
 *           cpuid, total_mem, cmdline, event_desc, sample_time, build ids), the events' ids and
 *           attrs again if they changed, and last rewrites the header with the sizes.
 */
#ifndef PROSPECT_PERF_PERFDATA_WRITE_H
#define PROSPECT_PERF_PERFDATA_WRITE_H
#include <stddef.h>
#include <stdint.h>
#include "perf/evlist.h"
#include "perf/perfdata.h"

struct perfdata_writer;

/* What the file says about the recording. NULL strings are taken from this machine. */
struct perfdata_write_meta {
    const char *const *argv;      /* the command line that recorded (HEADER_CMDLINE) */
    size_t argc;
    const char *hostname, *osrelease, *arch, *version, *cpudesc;
};

/* Creates `path` (mode 0600: profiles can reveal secrets) for the events of evl, which must
 * stay valid until close; their ids are read at close. Through outfile_create_fd: an existing
 * regular file is -EEXIST, a symlink -ELOOP. 0 or -errno with err filled. */
int perfdata_writer_open(const char *path, const struct evlist *evl,
                         struct perfdata_writer **out, struct perfdata_error *err);
/* The same on an open descriptor (the writer takes it; `path` names it in errors). */
int perfdata_writer_open_fd(int fd, const char *path, const struct evlist *evl,
                            struct perfdata_writer **out, struct perfdata_error *err);
/* Pipe mode, perf's `-o -`: a stream that is never sought (a pipe, or standard output
 * whatever it is), readable as it is written (`prospect report -i -`, `perf report -i -`).
 * The events and the features go first as records (HEADER_ATTR, HEADER_TRACING_DATA,
 * HEADER_FEATURE, FINISHED_INIT), at the first record; meta must stay valid until then.
 * Without the features known only at the end: sample_time and build ids (as perf's pipe
 * mode). */
int perfdata_writer_open_pipe(int fd, const char *path, const struct evlist *evl,
                              const struct perfdata_write_meta *meta,
                              struct perfdata_writer **out, struct perfdata_error *err);
/* Appends one record. Errors are sticky: after a failed write the rest is dropped and close
 * reports the first error. */
int perfdata_writer_write(struct perfdata_writer *w, const struct perf_event_header *h);
/* Appends a FINISHED_ROUND record. */
int perfdata_writer_round(struct perfdata_writer *w);
/* A record_fn adapter (arg = the writer), so the writer plugs in wherever records flow. */
int perfdata_writer_record_fn(void *w, const struct evlist *evl,
                              const struct perf_event_header *h, uint64_t time);
/* Adds a build id for the HEADER_BUILD_ID section: a DSO that got hits. pid -1 is the host
 * (what perf writes); cpumode PERF_RECORD_MISC_KERNEL or _USER. Duplicates are ignored. */
int perfdata_writer_add_build_id(struct perfdata_writer *w, int32_t pid, uint16_t cpumode,
                                 const char *path, const uint8_t *id, size_t len);
/* Finalizes the file and frees the writer. 0 or -errno with err filled (the file then has no
 * header or only the unfinished one). */
int perfdata_writer_close(struct perfdata_writer *w, const struct perfdata_write_meta *meta,
                          struct perfdata_error *err);
/* Frees the writer without finalizing: the file keeps what was flushed (every finished round)
 * under the unfinished header, or stays headerless if no record came. */
void perfdata_writer_abort(struct perfdata_writer *w);

/* The running kernel's build id from its ELF notes (/sys/kernel/notes), for [kernel.kallsyms].
 * 0, or -ENOENT / -errno. */
int perfdata_kernel_build_id(const char *notes_path, uint8_t *out, size_t *len);

/* The PERF_RECORD_MMAP perf writes for the kernel ("[kernel.kallsyms]_text", pid -1), with the
 * sample_id trailer of evl's first event, into buf. Returns its size or -errno. */
int perfdata_synth_kernel_mmap(const struct evlist *evl, uint64_t start, uint64_t end,
                               void *buf, size_t len);

uint64_t perfdata_writer_samples(const struct perfdata_writer *w);
uint64_t perfdata_writer_data_bytes(const struct perfdata_writer *w);
#endif
