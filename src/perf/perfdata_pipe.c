/* SPDX-License-Identifier: MIT */
/* Pipe mode ('perf record -o -'): a 16-byte header, then records only. The events come as
 * HEADER_ATTR records and the feature sections as HEADER_FEATURE records, before
 * FINISHED_INIT (perf 5.17+) or at least before the first sample. The record walk later skips
 * them like any other perf record; here they are read once, features first so that event names
 * come from EVENT_DESC. */
#define LOG_PREFIX "perfdata"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "perf/perfdata_feat.h"
#include "perf/perfdata_internal.h"

enum { PASS_FEATURES, PASS_ATTRS };

/* One HEADER_ATTR record at off: attr (its own size) then ids up to the record's end. */
static int pipe_attr(struct perfdata *pd, size_t idx, uint64_t off, uint16_t size,
                     struct perfdata_error *err)
{
    const uint8_t *e = pd->map + off + sizeof(struct perf_event_header);
    struct perf_event_attr attr;
    uint32_t asz;
    uint64_t *ids;
    size_t nr;
    int ret;

    if (size < sizeof(struct perf_event_header) + PERF_ATTR_SIZE_VER0_)
        return perfdata_set_error(err, pd->path, -EINVAL, true, off,
                                  "HEADER_ATTR record of %u bytes is too short", size);
    memcpy(&asz, e + offsetof(struct perf_event_attr, size), sizeof(asz));
    if (asz == 0)
        asz = PERF_ATTR_SIZE_VER0_;
    if (asz < PERF_ATTR_SIZE_VER0_ || asz > size - sizeof(struct perf_event_header) ||
        (size - sizeof(struct perf_event_header) - asz) % 8)
        return perfdata_set_error(err, pd->path, -EINVAL, true, off + 8 + 4,
                                  "event %zu: perf_event_attr size %u does not fit its "
                                  "HEADER_ATTR record (%u bytes)", idx, asz, size);
    if ((ret = perfdata_attr_copy(pd, idx, e, asz, off + 8, &attr, err)))
        return ret;
    nr = (size - sizeof(struct perf_event_header) - asz) / 8;
    if (!(ids = malloc(nr ? nr * 8 : 8)))
        return perfdata_set_error(err, pd->path, -ENOMEM, false, 0, "out of memory");
    memcpy(ids, e + asz, nr * 8);
    ret = perfdata_add_event(pd, idx, &attr, ids, nr, off, err);
    free(ids);
    return ret;
}

/* One pass over the records before the data. */
static int pipe_pass(struct perfdata *pd, int pass, struct perfdata_error *err)
{
    uint64_t off = pd->data_off, loaded = off;
    size_t nattr = 0;

    while (off < pd->size) {
        struct perf_event_header h;
        uint64_t adv;

        if (off + MAX_RECORD + 16 > loaded) {
            if (perfdata_pin(pd, off, 1u << 20))
                break;  /* the walk says where the stream is cut */
            loaded = off + (1u << 20);
        }
        if (pd->size - off < sizeof(h))
            break;
        memcpy(&h, pd->map + off, sizeof(h));
        if (h.size < sizeof(h) || h.size > pd->size - off)
            break;
        if (h.type == PERF_RECORD_SAMPLE || h.type == PERF_RECORD_FINISHED_INIT_)
            break;
        adv = h.size;
        if (h.type == PERF_RECORD_HEADER_TRACING_DATA_ && h.size >= 12) {
            uint32_t extra;
            memcpy(&extra, pd->map + off + 8, 4);
            adv += extra;
            /* The tracing data follows the record (outside h.size), as the file's section. */
            if (pass == PASS_FEATURES && extra <= pd->size - off - h.size &&
                !perfdata_pin(pd, off + h.size, extra) &&
                perfdata_info_parse_one(pd->map, off + h.size, extra, FEAT_TRACING_DATA,
                                        pd->path, &pd->info))
                return perfdata_set_error(err, pd->path, -ENOMEM, false, 0, "out of memory");
        }
        if (pass == PASS_ATTRS && h.type == PERF_RECORD_HEADER_ATTR_) {
            int ret = pipe_attr(pd, nattr++, off, h.size, err);
            if (ret)
                return ret;
        } else if (pass == PASS_FEATURES && h.type == PERF_RECORD_HEADER_FEATURE_ && h.size >= 16) {
            uint64_t bit;
            memcpy(&bit, pd->map + off + 8, 8);
            /* FEAT_LAST_KNOWN (32) is perf's end-of-features marker here, not a feature; a
             * feature sent twice keeps its first body. */
            if (bit != FEAT_LAST_KNOWN && bit < PERFDATA_FEAT_BITS &&
                !(pd->info.features[bit / 64] & (1ULL << (bit % 64))) &&
                perfdata_info_parse_one(pd->map, off + 16, h.size - 16u, (unsigned)bit,
                                        pd->path, &pd->info))
                return perfdata_set_error(err, pd->path, -ENOMEM, false, 0, "out of memory");
        }
        if (adv > pd->size - off)
            break;
        off += adv;
    }
    return 0;
}

int perfdata_pipe_open(struct perfdata *pd, struct perfdata_error *err)
{
    int ret;

    pd->data_off = sizeof(struct perf_pipe_file_header);
    pd->data_end = pd->size;
    ret = pipe_pass(pd, PASS_FEATURES, err);
    if (!ret)
        ret = pipe_pass(pd, PASS_ATTRS, err);
    if (!ret && pd->evl.nr == 0)
        return perfdata_set_error(err, pd->path, -EINVAL, true, pd->data_off,
                                  "pipe-mode perf.data without a HEADER_ATTR record before the "
                                  "first sample: no events");
    return ret;
}
