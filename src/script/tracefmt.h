/* SPDX-License-Identifier: MIT */
/* Tracepoints' fields as text ("prev_comm=perf prev_pid=20685 ... ==> next_comm=..."), from
 * the format the file recorded (HEADER_TRACING_DATA), printed by libtraceevent as perf does. */
#ifndef PROSPECT_SCRIPT_TRACEFMT_H
#define PROSPECT_SCRIPT_TRACEFMT_H
#include <stddef.h>
#include <stdint.h>

struct perfdata_info;
struct tracefmt;

/* An empty formatter; NULL on -ENOMEM. */
struct tracefmt *tracefmt_new(void);
void tracefmt_free(struct tracefmt *tf);
/* Adds the format of tracepoint NAME ("system:event") from the file: 0, -ENOENT (the file has
 * no format for it), -EINVAL (it does not parse), -ENOMEM. */
int tracefmt_add(struct tracefmt *tf, const struct perfdata_info *in, const char *name);
/* The fields of one raw sample as text into buf (NUL-terminated, cut at len): the length it
 * would have had. A raw payload of no known event gives an empty text. */
size_t tracefmt_print(struct tracefmt *tf, const void *raw, uint32_t raw_size, int cpu,
                      char *buf, size_t len);
#endif
