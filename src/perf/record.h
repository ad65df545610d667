/* SPDX-License-Identifier: MIT */
/* The record stream: perf_event records as the kernel writes them into ring buffers and as
 * perf.data stores them. Both producers (live ring buffers, perf.data reader) hand these same
 * bytes to consumers (session, perf.data writer); this file decodes them with bounds checks. */
#ifndef PROSPECT_PERF_RECORD_H
#define PROSPECT_PERF_RECORD_H
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct evsel;
struct evlist;

/* Record bodies (the kernel's layouts; all multi-byte fields are host-endian). */
struct rec_mmap {
    struct perf_event_header h;
    uint32_t pid, tid;
    uint64_t start, len, pgoff;
    char filename[];
};

struct rec_mmap2 {
    struct perf_event_header h;
    uint32_t pid, tid;
    uint64_t start, len, pgoff;
    union {
        struct { uint32_t maj, min; uint64_t ino, ino_generation; };
        struct { uint8_t build_id_size, reserved1; uint16_t reserved2; uint8_t build_id[20]; };
    };
    uint32_t prot, flags;
    char filename[];
};

struct rec_comm {
    struct perf_event_header h;
    uint32_t pid, tid;
    char comm[];
};

struct rec_fork {           /* PERF_RECORD_FORK and PERF_RECORD_EXIT */
    struct perf_event_header h;
    uint32_t pid, ppid, tid, ptid;
    uint64_t time;
};

struct rec_lost {
    struct perf_event_header h;
    uint64_t id, lost;
};

struct rec_lost_samples {
    struct perf_event_header h;
    uint64_t lost;
};

struct rec_throttle {       /* PERF_RECORD_THROTTLE and PERF_RECORD_UNTHROTTLE */
    struct perf_event_header h;
    uint64_t time, id, stream_id;
};

/* A decoded PERF_RECORD_SAMPLE, or the sample_id trailer of another record. Pointers point into
 * the record and live as long as it does. Fields not in the sample_type are zero. */
struct sample {
    const struct evsel *evsel;
    uint64_t ip, time, addr, id, stream_id, period;
    uint32_t pid, tid, cpu;
    uint16_t cpumode;          /* h.misc & PERF_RECORD_MISC_CPUMODE_MASK */
    uint64_t nr_callchain;
    const uint64_t *callchain;
    const void *read;          /* PERF_SAMPLE_READ payload, read_size bytes */
    uint32_t read_size;
    const void *raw;           /* PERF_SAMPLE_RAW payload */
    uint32_t raw_size;
    uint64_t regs_abi;         /* PERF_SAMPLE_REGS_USER: 0 = no user registers (kernel thread) */
    const uint64_t *regs_user; /* one word per bit of attr.sample_regs_user, in bit order */
    const uint8_t *stack_user; /* PERF_SAMPLE_STACK_USER: the copy of the user stack from sp */
    uint64_t stack_size;       /* bytes at stack_user (attr.sample_stack_user) */
    uint64_t stack_dyn_size;   /* bytes the kernel filled, as recorded (unchecked) */
};

/* Decodes a PERF_RECORD_SAMPLE according to evsel's attr. -EINVAL if the record is too short
 * or its fields are inconsistent (e.g. a callchain longer than the record). */
int sample_parse(const struct evsel *evsel, const struct perf_event_header *h, struct sample *out);

/* Decodes only the fixed-position fields that precede PERF_SAMPLE_READ (identifier, ip,
 * pid/tid, time, addr, id, stream_id, cpu, period), with a single bounds check: for consumers
 * that do not need call chains and run on records a reader already validated (or that are
 * counted as bad when this fails). -EINVAL if the record is too short. */
int sample_parse_fixed(const struct evsel *evsel, const struct perf_event_header *h,
                       struct sample *out);

/* Decodes the sample_id trailer of a non-sample record (needs attr.sample_id_all). Returns
 * -ENOENT when the attr has no sample_id_all, -EINVAL when the record is too short. */
int sample_id_parse(const struct evsel *evsel, const struct perf_event_header *h,
                    struct sample *out);

/* Returns the string field of a COMM/MMAP/MMAP2 record, or NULL if it is not NUL-terminated
 * inside the record (a corrupt record must not be read past its end). */
const char *record_string(const struct perf_event_header *h);

/* Minimum size of each fixed-layout record type; 0 for types without a fixed body. */
size_t record_min_size(uint32_t type);

/* Human-readable record type name ("SAMPLE", "MMAP2", ... or "UNKNOWN"). */
const char *record_type_name(uint32_t type);

/* Consumers of the record stream implement this. `time` is the record's timestamp (0 if
 * unknown). A negative return stops the producer and is propagated. */
typedef int (*record_fn)(void *arg, const struct evlist *evlist,
                         const struct perf_event_header *h, uint64_t time);
#endif
