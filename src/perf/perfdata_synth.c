/* SPDX-License-Identifier: MIT */
/* Records perf writes that the kernel does not: the kernel's own text mapping. perf report
 * places kernel samples through it ("[kernel.kallsyms]_text"); without it perf warns that
 * kernel maps were restricted and leaves kernel samples unresolved. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "perf/perfdata_write.h"
#include "perf/record.h"

int perfdata_synth_kernel_mmap(const struct evlist *evl, uint64_t start, uint64_t end,
                               void *buf, size_t len)
{
    static const char name[] = "[kernel.kallsyms]_text";
    const struct evsel *sel = evl->nr ? &evl->sel[0] : NULL;
    struct rec_mmap m;
    size_t name_len = (sizeof(name) + 7) / 8 * 8, size = sizeof(m) + name_len;
    uint64_t st, trailer[8], id;
    size_t nt = 0;

    if (!sel)
        return -EINVAL;
    st = sel->attr.sample_type;
    id = sel->nr_ids ? sel->ids[0] : 0;
    if (sel->attr.sample_id_all) {
        /* sample_id trailer in the kernel's order; zero pid/tid/time/cpu as perf writes. */
        if (st & PERF_SAMPLE_TID)
            trailer[nt++] = 0;
        if (st & PERF_SAMPLE_TIME)
            trailer[nt++] = 0;
        if (st & PERF_SAMPLE_ID)
            trailer[nt++] = id;
        if (st & PERF_SAMPLE_STREAM_ID)
            trailer[nt++] = 0;
        if (st & PERF_SAMPLE_CPU)
            trailer[nt++] = 0;
        if (st & PERF_SAMPLE_IDENTIFIER)
            trailer[nt++] = id;
    }
    size += nt * 8;
    if (size > len)
        return -ENOSPC;
    memset(&m, 0, sizeof(m));
    m.h.type = PERF_RECORD_MMAP;
    m.h.misc = PERF_RECORD_MISC_KERNEL;
    m.h.size = (uint16_t)size;
    m.pid = (uint32_t)-1;
    m.tid = 0;
    m.start = start;
    m.len = end - start;
    m.pgoff = start;
    memset(buf, 0, size);
    memcpy(buf, &m, sizeof(m));
    memcpy((char *)buf + sizeof(m), name, sizeof(name));
    memcpy((char *)buf + sizeof(m) + name_len, trailer, nt * 8);
    return (int)size;
}
