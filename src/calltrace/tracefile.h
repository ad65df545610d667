/* SPDX-License-Identifier: MIT */
/* Library-call traces in memory and on disk (`prospect trace -w`, read by `prospect replay`).
 *
 * File format (little-endian), a stream so a tracer can write while it drains:
 *   header   "PRSPCTRC" (8 bytes), u32 version (2; 1 is still read), u32 reserved (0)
 *   version 2 records (written), each starts with a tag byte:
 *     tag 1, function name: u16 index, u16 length (1..255), then the name's bytes (no NUL).
 *             Indexes are dense from 0, each defined once, before its first call.
 *     tag 0x80 | mask, call: varint function index, zigzag varint time_ns minus the previous
 *             call's, varint dur_ns; when mask bit 6: varint pid, tid, flags (else the previous
 *             call's); for each of mask bits 0-5 set: args[0..3], ret, caller as the zigzag
 *             varint of the value minus the same field of the previous call of that function
 *             (else equal to it). Varints: LEB128, at most 10 bytes. Everything starts at 0.
 *             A loop of malloc(144)/free is ~5 bytes a call (version 1: 80), which is what
 *             `trace -w` costs: the kernel's copy into the page cache.
 *   version 1 records, each starts with u16 kind:
 *     kind 1, function name: as version 2's tag 1.
 *     kind 2, call: u16 flags, u32 function index, u32 pid, u32 tid, u64 time_ns, u64 dur_ns,
 *             u64 args[4], u64 ret, u64 caller  (4+4+4+4+8+8+32+8+8 = 80 bytes with the kind)
 * Calls are in the order they were made in each thread (time order across threads where the
 * clock allows). A file ending inside a record is an error naming the offset; a reader never
 * trusts a length or index it has not checked. */
#ifndef PROSPECT_CALLTRACE_TRACEFILE_H
#define PROSPECT_CALLTRACE_TRACEFILE_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CALL_REC_NO_RETURN 0x1u  /* the call never returned (exit, longjmp): ret, dur unknown */

struct call_rec {
    uint64_t time_ns;       /* since the trace's first call (or its start) */
    uint64_t dur_ns;        /* until the call returned; 0 when not measured */
    uint32_t pid, tid;
    uint32_t func;          /* index in call_trace.funcs */
    uint32_t flags;         /* CALL_REC_* */
    uint64_t args[4];       /* integer/pointer arguments; unused ones 0 */
    uint64_t ret;           /* return value (a pointer for malloc) */
    uint64_t caller;        /* return address in the caller, 0 if unknown */
};

struct call_trace {
    char **funcs;           /* function names, by index */
    uint32_t nfuncs;
    struct call_rec *recs;
    size_t nrecs, cap;
};

void call_trace_init(struct call_trace *t);
void call_trace_release(struct call_trace *t);
/* The index of function `name`, added if new. index or -ENOMEM / -E2BIG (over 65535 names). */
int call_trace_func(struct call_trace *t, const char *name);
/* Appends a copy of r. 0 or -ENOMEM. */
int call_trace_add(struct call_trace *t, const struct call_rec *r);

/* What version 2's calls are coded against: the previous call, and each function's last. */
struct tracefile_state {
    uint64_t time;
    uint32_t pid, tid, flags;
    uint32_t nfuncs;
    uint64_t (*last)[6];        /* by function: args[0..3], ret, caller */
};

/* Streaming writer on an open stream (e.g. an outfile's fp). */
struct tracefile_writer {
    FILE *fp;
    uint32_t nfuncs_written;   /* names 0..n-1 are in the file */
    struct tracefile_state st;
};
/* Starts w on fp (w's memory released by tracefile_writer_release). */
int tracefile_write_header(struct tracefile_writer *w, FILE *fp);
void tracefile_writer_release(struct tracefile_writer *w);
/* Writes name `idx`; indexes must come in order 0, 1, 2... -EINVAL otherwise. */
int tracefile_write_func(struct tracefile_writer *w, uint32_t idx, const char *name);
/* Writes one call; its function must have been written. 0, -EINVAL or -EIO. */
int tracefile_write_call(struct tracefile_writer *w, const struct call_rec *r);
/* Writes a whole trace (names, then calls). */
int tracefile_write(FILE *fp, const struct call_trace *t);

/* Why a read failed: the byte offset in the file and a message. */
struct tracefile_error {
    uint64_t offset;
    char msg[96];
};
/* Whether buf (the file's first bytes) starts a Prospect trace. */
int tracefile_is_trace(const void *buf, size_t len);
/* Reads a whole trace file into t (initialized here). 0; -EINVAL (not a trace, corrupt or
 * truncated: err says where and what), -ENOMEM or -errno of the read. Reads versions 1 and 2. */
int tracefile_read(const char *path, struct call_trace *t, struct tracefile_error *err);
int tracefile_read_buf(const void *buf, size_t len, struct call_trace *t,
                       struct tracefile_error *err);
#endif
