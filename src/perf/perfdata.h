/* SPDX-License-Identifier: MIT */
/* perf.data reader: the file producer of the record stream. The file is mapped, its header and
 * attr section validated and turned into a struct evlist, its feature sections parsed into a
 * struct perfdata_info (for `report --header`), and its data section walked once, delivering
 * each record in time order to a record_fn, exactly as live collection does.
 *
 * Every byte is untrusted. Damage in the header or attr section is fatal (-EINVAL and an error
 * naming the byte offset); damage in the data section stops the walk at the bad record, and what
 * was read before it is still delivered (perfdata_stats says where and why it stopped). Records
 * that are framed correctly but do not decode are skipped and counted. */
#ifndef PROSPECT_PERF_PERFDATA_H
#define PROSPECT_PERF_PERFDATA_H
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "perf/evlist.h"
#include "perf/perfdata_format.h"
#include "perf/record.h"

/* Where and why reading failed: formatted as "PATH: offset 0x1234: MESSAGE". */
struct perfdata_error {
    char path[512];
    bool has_offset;
    uint64_t offset;
    char msg[256];
};
/* Formats an error as one line without a trailing newline. */
void perfdata_error_str(const struct perfdata_error *e, char *buf, size_t len);
/* Fills err (if not NULL) and returns ret: `return perfdata_set_error(err, path, -EINVAL, true,
 * off, "...", ...);`. */
int perfdata_set_error(struct perfdata_error *err, const char *path, int ret, bool has_off,
                       uint64_t off, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
int perfdata_set_errorv(struct perfdata_error *err, const char *path, int ret, bool has_off,
                        uint64_t off, const char *fmt, va_list ap)
    __attribute__((format(printf, 6, 0)));

struct perfdata_build_id_entry {
    int32_t pid;              /* -1: host */
    uint16_t cpumode;         /* PERF_RECORD_MISC_KERNEL / _USER / ... */
    uint8_t size;             /* bytes of id used */
    uint8_t id[20];
    char *path;
};

struct perfdata_event_desc {
    char *name;
    struct perf_event_attr attr;
    uint64_t *ids;
    size_t nr_ids;
};

struct perfdata_pmu {
    uint32_t type;
    char *name;
};

/* What the file says about itself (feature sections). Absent fields are NULL / false / 0. */
struct perfdata_info {
    uint64_t features[PERFDATA_FEAT_BITS / 64];   /* bitmap as in the header */
    char *hostname, *osrelease, *version, *arch, *cpudesc, *cpuid;
    bool has_nrcpus;
    uint32_t nr_cpus_avail, nr_cpus_online;
    uint64_t total_mem_kb;
    char **cmdline;
    size_t nr_cmdline;
    struct perfdata_event_desc *events;
    size_t nr_events;
    struct perfdata_build_id_entry *build_ids;
    size_t nr_build_ids;
    struct perfdata_pmu *pmus;
    size_t nr_pmus;
    bool has_sample_time;
    uint64_t first_sample_time, last_sample_time;
    bool has_clockid;
    uint64_t clockid_res_ns;
    bool compressed;          /* HEADER_COMPRESSED: records are zstd-compressed */
    /* HEADER_TRACING_DATA's format of sched:sched_switch (where its raw fields are), if any */
    char *sched_switch_format;
    /* HEADER_TRACING_DATA whole (every tracepoint's format): perfdata_tracepoint_format */
    uint8_t *tracing_data;
    size_t tracing_size;
    /* Feature bits this reader does not know (a newer perf), up to 32 of them. */
    unsigned unknown_feats[32];
    size_t nr_unknown_feats;
    /* Feature sections that were present but damaged (ignored); the first one explained. */
    size_t nr_bad_feats;
    struct perfdata_error bad_feat;
};

/* What the walk of the data section saw. */
#define PERFDATA_NR_TYPES 128
struct perfdata_stats {
    uint64_t nr_records;                 /* framed records read, every type */
    uint64_t by_type[PERFDATA_NR_TYPES]; /* per record type (types >= 128 count as unknown) */
    uint64_t nr_samples;                 /* samples delivered */
    uint64_t *evsel_samples;             /* samples per evsel, by evsel idx */
    uint64_t first_sample_time, last_sample_time;
    uint64_t lost;                       /* sum of PERF_RECORD_LOST.lost */
    uint64_t lost_samples;               /* sum of PERF_RECORD_LOST_SAMPLES.lost */
    uint64_t throttle, unthrottle;
    uint64_t unknown;                    /* records of a type this reader does not know: skipped */
    uint64_t bad;                        /* framed records that did not decode: skipped */
    struct perfdata_error first_bad;     /* the first of them */
    uint64_t compressed;                 /* PERF_RECORD_COMPRESSED records decompressed */
    uint64_t late;                       /* delivered out of time order (beyond a round) */
    bool truncated;                      /* the walk stopped early at damage */
    struct perfdata_error damage;        /* where and why */
    uint64_t bytes_unread;               /* data bytes after the damage */
    bool data_size_missing;              /* unfinished (data size 0, or no features): read to
                                            the end of the file */
};

struct perfdata;

/* Opens and validates a file: header, attr section, feature sections. 0 or -errno with err
 * filled (-ENOENT/-EACCES/... from the file system, -EINVAL for a malformed file,
 * -EOPNOTSUPP for valid but unsupported variants such as another endianness). A regular file
 * is mapped; "-" is stdin, read whole first when it is a pipe (pipe mode). */
int perfdata_open(const char *path, struct perfdata **out, struct perfdata_error *err);
/* The same on bytes in memory (fuzzing, tests); the buffer must outlive the reader. */
int perfdata_open_mem(const void *buf, size_t len, const char *name, struct perfdata **out,
                      struct perfdata_error *err);
/* Several files read as one (perfdata_many.c): the first leads (its header and features,
 * with every file's build ids and time span), the walk reads them in the order given and sums
 * their stats. They must have the same events (-EINVAL names the one that differs); "-" is
 * refused among several. One path is perfdata_open. */
int perfdata_open_many(const char *const *paths, size_t n, struct perfdata **out,
                       struct perfdata_error *err);
void perfdata_close(struct perfdata *pd);

const struct evlist *perfdata_evlist(const struct perfdata *pd);
const struct perfdata_info *perfdata_info(const struct perfdata *pd);
const struct perf_file_header *perfdata_header(const struct perfdata *pd);
uint64_t perfdata_file_size(const struct perfdata *pd);
const struct perfdata_stats *perfdata_stats(const struct perfdata *pd);

enum {
    PERFDATA_FILE_ORDER = 1 << 0,    /* deliver in file order, not time order */
    PERFDATA_USER_RECORDS = 1 << 1,  /* also deliver perf's own record types (>= 64); implies
                                        file order */
};

/* Walks the data section once, calling fn for each record (kernel record types; with
 * PERFDATA_USER_RECORDS also perf's). Records point into the mapped file and are valid until
 * perfdata_close. Samples are validated against their event's sample format before delivery.
 * Returns 0 (check perfdata_stats for damage and skipped records), fn's negative return, or
 * -ENOMEM; err is filled on failure. */
int perfdata_process(struct perfdata *pd, record_fn fn, void *arg, unsigned flags,
                     struct perfdata_error *err);

/* The format text (tracefs's "format" file) of tracepoint system:event as the file recorded
 * it, a malloc'd NUL-terminated copy in *out: 0, -ENOENT (no such event or no tracing data),
 * -EINVAL (damaged), -ENOMEM. */
int perfdata_tracepoint_format(const struct perfdata_info *in, const char *system,
                               const char *event, char **out);
/* Name of a perf record type, including perf's own (>= 64): "SAMPLE", "FINISHED_ROUND", ... */
const char *perfdata_record_name(uint32_t type);
/* Name of a feature bit ("hostname", "build_id", ...), or NULL if unknown. */
const char *perfdata_feature_name(unsigned bit);
#endif
