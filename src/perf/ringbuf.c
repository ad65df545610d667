/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "perf/ringbuf.h"

int ringbuf_map(struct ringbuf *rb, int fd, int cpu, size_t pages)
{
    long psz = sysconf(_SC_PAGESIZE);
    void *p;

    memset(rb, 0, sizeof(*rb));
    rb->fd = -1;
    if (pages == 0 || (pages & (pages - 1)))
        return -EINVAL;
    rb->map_len = (pages + 1) * (size_t)psz;
    p = mmap(NULL, rb->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED)
        return -errno;
    rb->base = p;
    rb->fd = fd;
    rb->cpu = cpu;
    rb->data_size = pages * (size_t)psz;
    return 0;
}

void ringbuf_unmap(struct ringbuf *rb)
{
    if (rb->base)
        munmap(rb->base, rb->map_len);
    free(rb->scratch);
    rb->base = NULL;
    rb->scratch = NULL;
}

long ringbuf_drain(struct ringbuf *rb, int (*fn)(void *arg, const struct perf_event_header *h),
                   void *arg)
{
    struct perf_event_mmap_page *meta = rb->base;
    uint8_t *data = (uint8_t *)rb->base + (rb->map_len - rb->data_size);
    uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
    uint64_t tail = meta->data_tail;
    size_t mask = rb->data_size - 1;
    long count = 0;
    int ret = 0;

    while (tail < head) {
        struct perf_event_header hdr;
        size_t off = tail & mask, first;
        const struct perf_event_header *h;

        /* The header itself may wrap. */
        first = rb->data_size - off;
        if (first >= sizeof(hdr)) {
            memcpy(&hdr, data + off, sizeof(hdr));
        } else {
            memcpy(&hdr, data + off, first);
            memcpy((uint8_t *)&hdr + first, data, sizeof(hdr) - first);
        }
        if (hdr.size < sizeof(hdr) || hdr.size > head - tail || (hdr.size & 7)) {
            /* Cannot happen with a sane kernel; never loop on it. */
            rb->bad_records++;
            tail = head;
            break;
        }
        if (first >= hdr.size) {
            h = (const struct perf_event_header *)(data + off);
        } else {
            if (rb->scratch_cap < hdr.size) {
                uint8_t *ns = realloc(rb->scratch, 65536);
                if (!ns) {
                    ret = -ENOMEM;
                    break;
                }
                rb->scratch = ns;
                rb->scratch_cap = 65536;
            }
            memcpy(rb->scratch, data + off, first);
            memcpy(rb->scratch + first, data, hdr.size - first);
            h = (const struct perf_event_header *)rb->scratch;
        }
        ret = fn(arg, h);
        if (ret < 0)
            break;
        tail += hdr.size;
        count++;
    }
    __atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
    return ret < 0 ? ret : count;
}
