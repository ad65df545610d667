/* SPDX-License-Identifier: MIT */
/* One mmapped perf ring buffer: the kernel writes records at data_head, we consume them and
 * publish data_tail. Records that wrap around the end are copied into a scratch buffer so
 * consumers always see one contiguous record. */
#ifndef PROSPECT_PERF_RINGBUF_H
#define PROSPECT_PERF_RINGBUF_H
#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

struct ringbuf {
    int fd;
    int cpu;
    void *base;             /* metadata page followed by the data area */
    size_t map_len;
    size_t data_size;       /* power of two */
    uint8_t *scratch;       /* for records that wrap */
    size_t scratch_cap;
    uint64_t bad_records;   /* records with an impossible size (buffer skipped to head) */
};

/* Maps `pages` data pages (a power of two) on fd. Returns 0 or -errno. */
int ringbuf_map(struct ringbuf *rb, int fd, int cpu, size_t pages);
void ringbuf_unmap(struct ringbuf *rb);
/* Hands every complete record to fn (the record is valid only during the call), then frees the
 * space. Stops early and returns fn's negative value if it fails. Returns the record count. */
long ringbuf_drain(struct ringbuf *rb, int (*fn)(void *arg, const struct perf_event_header *h),
                   void *arg);
#endif
