/* SPDX-License-Identifier: MIT */
/* The on-disk layout of perf.data ("PERFILE2", the format perf 6.1 reads and writes), from the
 * public description in the kernel's tools/perf/Documentation/perf.data-file-format.txt.
 *
 *   file header (104 bytes)
 *   ids of each event (u64 arrays)      } anywhere: located by the header and the attr entries
 *   attr section: perf_event_attr + ids  }
 *   data section: the record stream
 *   feature table: one perf_file_section per bit set in the header's feature bitmap, in bit
 *   order, starting right after the data section; then the feature bodies it points at.
 *
 * All fields are in the byte order of the writing machine; a byte-swapped magic means a file
 * from the other endianness. Feature bodies and some user records are not 8-byte aligned:
 * read them with memcpy, never through casted pointers. */
#ifndef PROSPECT_PERF_PERFDATA_FORMAT_H
#define PROSPECT_PERF_PERFDATA_FORMAT_H
#include <linux/perf_event.h>
#include <stdint.h>

#define PERFDATA_MAGIC      0x32454c4946524550ULL   /* "PERFILE2" read as a host u64 */
#define PERFDATA_MAGIC_SWAP 0x50455246494c4532ULL   /* the same from an other-endian host */
#define PERFDATA_MAGIC_V1   0x454c494646524550ULL   /* "PERFFILE": version 1, not supported */

struct perf_file_section {
    uint64_t offset;      /* from the start of the file */
    uint64_t size;
};

#define PERFDATA_FEAT_BITS 256

struct perf_file_header {
    uint64_t magic;
    uint64_t size;                      /* sizeof(struct perf_file_header) */
    uint64_t attr_size;                 /* stride of the attr section: attr + ids section */
    struct perf_file_section attrs;
    struct perf_file_section data;
    struct perf_file_section event_types;   /* unused since long ago; zero */
    uint64_t features[PERFDATA_FEAT_BITS / 64];
};

/* Pipe mode ("perf record -o -"): only magic and size; attrs and features come as records. */
struct perf_pipe_file_header {
    uint64_t magic;
    uint64_t size;
};

/* perf_event_attr grew over time; files carry the writer's size in attr.size (0 = the first). */
#define PERF_ATTR_SIZE_VER0_ 64

/* One attr section entry. The ids section follows the attr, whose on-disk size is
 * header.attr_size - sizeof(struct perf_file_section). */
struct perf_file_attr {
    struct perf_event_attr attr;
    struct perf_file_section ids;
};

/* Feature bits (header.features), in the order their sections appear. */
enum perfdata_feature {
    FEAT_RESERVED = 0,
    FEAT_TRACING_DATA = 1,
    FEAT_BUILD_ID = 2,
    FEAT_HOSTNAME = 3,
    FEAT_OSRELEASE = 4,
    FEAT_VERSION = 5,
    FEAT_ARCH = 6,
    FEAT_NRCPUS = 7,
    FEAT_CPUDESC = 8,
    FEAT_CPUID = 9,
    FEAT_TOTAL_MEM = 10,
    FEAT_CMDLINE = 11,
    FEAT_EVENT_DESC = 12,
    FEAT_CPU_TOPOLOGY = 13,
    FEAT_NUMA_TOPOLOGY = 14,
    FEAT_BRANCH_STACK = 15,
    FEAT_PMU_MAPPINGS = 16,
    FEAT_GROUP_DESC = 17,
    FEAT_AUXTRACE = 18,
    FEAT_STAT = 19,
    FEAT_CACHE = 20,
    FEAT_SAMPLE_TIME = 21,
    FEAT_MEM_TOPOLOGY = 22,
    FEAT_CLOCKID = 23,
    FEAT_DIR_FORMAT = 24,
    FEAT_BPF_PROG_INFO = 25,
    FEAT_BPF_BTF = 26,
    FEAT_COMPRESSED = 27,
    FEAT_CPU_PMU_CAPS = 28,
    FEAT_CLOCK_DATA = 29,
    FEAT_HYBRID_TOPOLOGY = 30,
    FEAT_PMU_CAPS = 31,
    FEAT_LAST_KNOWN = 32,   /* bits from here on are from a newer perf */
};

/* Strings in feature bodies: u32 len (including the NUL and zero padding), then the bytes.
 * perf pads to a multiple of 64; readers must accept any len. */
#define PERFDATA_NAME_ALIGN 64

/* HEADER_NRCPUS body. */
struct perfdata_nrcpus {
    uint32_t nr_cpus_avail;     /* highest present cpu + 1 */
    uint32_t nr_cpus_online;
};

/* HEADER_BUILD_ID body: a sequence of these, each header.size long (not 8-aligned:
 * 36 bytes plus the filename padded to 64). header.misc holds the cpumode of the DSO and
 * PERF_RECORD_MISC_BUILD_ID_SIZE when `size` is valid (else the id is 20 bytes). */
struct perfdata_build_id {
    struct perf_event_header header;
    int32_t pid;                /* -1: the host (kernel and user space alike) */
    uint8_t build_id[20];
    uint8_t size;
    uint8_t reserved[3];
    /* char filename[]: NUL-terminated, padded */
} __attribute__((packed));
#define PERFDATA_BUILD_ID_HDR 36
#ifndef PERF_RECORD_MISC_BUILD_ID_SIZE
#define PERF_RECORD_MISC_BUILD_ID_SIZE (1 << 15)
#endif

/* HEADER_SAMPLE_TIME body. */
struct perfdata_sample_time {
    uint64_t first, last;
};

/* Record types perf itself writes into the data section (never the kernel). */
enum perf_user_record_type {
    PERF_RECORD_USER_TYPE_START_ = 64,
    PERF_RECORD_HEADER_ATTR_ = 64,
    PERF_RECORD_HEADER_EVENT_TYPE_ = 65,
    PERF_RECORD_HEADER_TRACING_DATA_ = 66,
    PERF_RECORD_HEADER_BUILD_ID_ = 67,
    PERF_RECORD_FINISHED_ROUND_ = 68,
    PERF_RECORD_ID_INDEX_ = 69,
    PERF_RECORD_AUXTRACE_INFO_ = 70,
    PERF_RECORD_AUXTRACE_ = 71,
    PERF_RECORD_AUXTRACE_ERROR_ = 72,
    PERF_RECORD_THREAD_MAP_ = 73,
    PERF_RECORD_CPU_MAP_ = 74,
    PERF_RECORD_STAT_CONFIG_ = 75,
    PERF_RECORD_STAT_ = 76,
    PERF_RECORD_STAT_ROUND_ = 77,
    PERF_RECORD_EVENT_UPDATE_ = 78,
    PERF_RECORD_TIME_CONV_ = 79,
    PERF_RECORD_HEADER_FEATURE_ = 80,
    PERF_RECORD_COMPRESSED_ = 81,
    PERF_RECORD_FINISHED_INIT_ = 82,
    PERF_RECORD_USER_TYPE_END_ = 83,
};

/* PERF_RECORD_AUXTRACE: `size` bytes of trace data follow the record (not in header.size). */
struct perfdata_auxtrace {
    struct perf_event_header header;
    uint64_t size, offset, reference;
    uint32_t idx, tid, cpu, reserved;
};

/* PERF_RECORD_HEADER_TRACING_DATA (pipe mode): `size` bytes follow the 12-byte record. */
struct perfdata_tracing_data {
    struct perf_event_header header;
    uint32_t size;
} __attribute__((packed));
#endif
