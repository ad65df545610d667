/* SPDX-License-Identifier: MIT */
/* What `prospect replay` and its child (src/intarget/replay_child.c) exchange: the replay
 * program (a file the child maps) and the results (a pipe back). Both ends are built from this
 * header on the same machine, so the layout is native; the parent still checks every size and
 * count it reads back (the child runs a foreign allocator and may die half-way). */
#ifndef PROSPECT_INTARGET_REPLAY_WIRE_H
#define PROSPECT_INTARGET_REPLAY_WIRE_H
#include <stdint.h>

#define RP_PROG_MAGIC "PRSPRPL1"
#define RP_RES_MAGIC "PRSPRES1"
#define RP_VERSION 1u
#define RP_NONE 0xffffffffu         /* no slot: a NULL pointer */
#define RP_MAX_THREADS 1024u
#define RP_MAX_OPS (1u << 30)
#define RP_CYCLES_MIGRATED (1ull << 63)   /* in a result: start and end read on other CPUs */

enum rp_kind {
    RP_MALLOC = 0,      /* slot = malloc(a) */
    RP_CALLOC = 1,      /* slot = calloc(a, b) */
    RP_REALLOC = 2,     /* slot = realloc(src, a) (src RP_NONE: NULL) */
    RP_FREE = 3,        /* free(src) (src RP_NONE: free(NULL)) */
    RP_NKINDS
};

#define RP_PROG_DUMP 0x1u           /* send the executed-call log back */
#define RP_PROG_CPUID 0x2u          /* cpuid barriers (Paoloni) instead of lfence */

struct rp_prog_hdr {
    char magic[8];
    uint32_t version;
    uint32_t flags;                 /* RP_PROG_* */
    uint32_t nthreads;              /* 1..RP_MAX_THREADS */
    uint32_t nslots;                /* result slots (one per allocating op) */
    uint32_t warmup, repeat;        /* untimed passes, then timed passes (>= 1) */
    uint64_t nops;                  /* followed by nops struct rp_op */
};

struct rp_op {
    uint8_t kind;                   /* enum rp_kind */
    uint8_t pad[3];
    uint32_t thread;                /* replay thread, < nthreads */
    uint32_t slot;                  /* where the result goes (allocating ops), else RP_NONE */
    uint32_t src;                   /* the slot freed or reallocated, or RP_NONE */
    uint64_t a, b;                  /* size (calloc: nmemb, size) */
};

struct rp_res_hdr {
    char magic[8];
    uint32_t version;
    int32_t status;                 /* 0, else -errno with msg */
    char msg[160];
    char malloc_from[256];          /* the object that defines malloc in the child */
    uint64_t floor;                 /* ticks subtracted from every call */
    double hz;
    uint64_t base_rss_kb;           /* the child's peak RSS (VmHWM) before the first pass */
    uint32_t nthreads;
    uint32_t repeat;                /* timed passes that follow */
    uint64_t nops;
    uint32_t cpuid;                 /* 1: the child timed with cpuid barriers, 0: lfence */
    uint32_t pad;
};
/* Then, per timed pass, nops uint64_t net ticks (RP_CYCLES_MIGRATED may be set), then a
 * struct rp_res_tail, then with RP_PROG_DUMP one struct rp_dump per op, in op order, from the
 * last pass. */

/* The child's peak RSS from /proc/self/status VmHWM: getrusage's ru_maxrss of a child also
 * counts the image it was forked from before exec (an ASan prospect's shadow memory). */
struct rp_res_tail {
    char magic[8];                  /* RP_RES_MAGIC */
    uint64_t peak_rss_kb;           /* 0 when /proc could not be read */
};

struct rp_dump {
    uint32_t seq;                   /* the order the child executed the op in */
    uint32_t tid;                   /* the kernel thread id that ran it (gettid) */
    uint32_t src_op;                /* the op whose result it freed/reallocated, or RP_NONE */
    uint32_t null_result;           /* 1 when the allocation returned NULL */
};
#endif
