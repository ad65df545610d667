/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <string.h>
#include "perf/evlist.h"
#include "perf/record.h"

/* A bounded cursor over a record's u64 words. */
struct cursor {
    const uint64_t *p, *end;
};

static int take(struct cursor *c, uint64_t *v)
{
    if (c->p >= c->end)
        return -EINVAL;
    *v = *c->p++;
    return 0;
}

static int skip_words(struct cursor *c, uint64_t n)
{
    if (n > (uint64_t)(c->end - c->p))
        return -EINVAL;
    c->p += n;
    return 0;
}

/* bytes / 8 first: a size near 2^64 (a damaged STACK_USER size) must not wrap to a few words
 * and leave a stack copy claimed far past the record's end. */
static int skip_bytes(struct cursor *c, uint64_t bytes)
{
    return skip_words(c, bytes / 8 + !!(bytes % 8));
}

/* Words of the fixed fields before PERF_SAMPLE_READ. */
static size_t fixed_words(uint64_t st)
{
    return (size_t)(!!(st & PERF_SAMPLE_IDENTIFIER) + !!(st & PERF_SAMPLE_IP) +
                    !!(st & PERF_SAMPLE_TID) + !!(st & PERF_SAMPLE_TIME) +
                    !!(st & PERF_SAMPLE_ADDR) + !!(st & PERF_SAMPLE_ID) +
                    !!(st & PERF_SAMPLE_STREAM_ID) + !!(st & PERF_SAMPLE_CPU) +
                    !!(st & PERF_SAMPLE_PERIOD));
}

static uint64_t read_size_words(uint64_t rf, uint64_t nr)
{
    uint64_t per = 1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST);
    uint64_t hdr = !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) + !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING);
    if (rf & PERF_FORMAT_GROUP)
        return 1 + hdr + nr * per;
    return hdr + per;
}

int sample_parse(const struct evsel *evsel, const struct perf_event_header *h, struct sample *s)
{
    const struct perf_event_attr *a = &evsel->attr;
    uint64_t st = a->sample_type, v;
    struct cursor c;

    /* The fixed fields first, with one bounds check; then the variable-length tail. */
    if (sample_parse_fixed(evsel, h, s))
        return -EINVAL;
    c.p = (const uint64_t *)(h + 1) + fixed_words(st);
    c.end = (const uint64_t *)(h + 1) + (h->size - sizeof(*h)) / 8;
    if (st & PERF_SAMPLE_READ) {
        uint64_t nr = 0, words;
        const uint64_t *start = c.p;
        if (a->read_format & PERF_FORMAT_GROUP) {
            if (c.p >= c.end)
                return -EINVAL;
            nr = *c.p;
            if (nr > 4096)
                return -EINVAL;
        }
        words = read_size_words(a->read_format, nr);
        if (skip_words(&c, words))
            return -EINVAL;
        s->read = start;
        s->read_size = (uint32_t)(words * 8);
    }
    if (st & PERF_SAMPLE_CALLCHAIN) {
        if (take(&c, &s->nr_callchain))
            return -EINVAL;
        s->callchain = c.p;
        if (skip_words(&c, s->nr_callchain))
            return -EINVAL;
    }
    if (st & PERF_SAMPLE_RAW) {
        /* u32 size, then size bytes; the pair is padded to a u64 boundary. */
        const uint8_t *b = (const uint8_t *)c.p;
        uint32_t size;
        if (c.p >= c.end)
            return -EINVAL;
        memcpy(&size, b, 4);
        if ((uint64_t)size + 4 > (uint64_t)(c.end - c.p) * 8)
            return -EINVAL;
        s->raw = b + 4;
        s->raw_size = size;
        if (skip_bytes(&c, (uint64_t)size + 4))
            return -EINVAL;
    }
    if (st & PERF_SAMPLE_BRANCH_STACK) {
        uint64_t nr;
        if (take(&c, &nr))
            return -EINVAL;
        if ((a->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX) && skip_words(&c, 1))
            return -EINVAL;
        if (nr > (uint64_t)(c.end - c.p) / 3 || skip_words(&c, nr * 3))
            return -EINVAL;
    }
    if (st & PERF_SAMPLE_REGS_USER) {
        if (take(&c, &v))
            return -EINVAL;
        s->regs_abi = v;
        s->regs_user = v ? c.p : NULL;
        if (v && skip_words(&c, (uint64_t)__builtin_popcountll(a->sample_regs_user)))
            return -EINVAL;
    }
    if (st & PERF_SAMPLE_STACK_USER) {
        if (take(&c, &v))
            return -EINVAL;
        s->stack_user = v ? (const uint8_t *)c.p : NULL;
        s->stack_size = v;
        if (v && (skip_bytes(&c, v) || take(&c, &s->stack_dyn_size)))
            return -EINVAL;
    }
    /* Later fields (weight, data_src, ...) are not used; the record size bounds them. */
    return 0;
}

int sample_parse_fixed(const struct evsel *evsel, const struct perf_event_header *h,
                       struct sample *s)
{
    const struct perf_event_attr *a = &evsel->attr;
    uint64_t st = a->sample_type;
    const uint64_t *p = (const uint64_t *)(h + 1);
    size_t words = 0;

    s->evsel = evsel;
    s->cpumode = h->misc & PERF_RECORD_MISC_CPUMODE_MASK;
    s->period = a->freq ? 0 : a->sample_period;
    s->ip = s->time = s->addr = s->id = s->stream_id = 0;
    s->pid = s->tid = s->cpu = 0;
    s->nr_callchain = 0;
    s->callchain = NULL;
    s->read = s->raw = NULL;
    s->read_size = s->raw_size = 0;
    s->regs_abi = 0;
    s->regs_user = NULL;
    s->stack_user = NULL;
    s->stack_size = s->stack_dyn_size = 0;
    words = fixed_words(st);
    if (h->size < sizeof(*h) || (h->size - sizeof(*h)) / 8 < words)
        return -EINVAL;
    if (st & PERF_SAMPLE_IDENTIFIER)
        s->id = *p++;
    if (st & PERF_SAMPLE_IP)
        s->ip = *p++;
    if (st & PERF_SAMPLE_TID) {
        s->pid = (uint32_t)*p;
        s->tid = (uint32_t)(*p++ >> 32);
    }
    if (st & PERF_SAMPLE_TIME)
        s->time = *p++;
    if (st & PERF_SAMPLE_ADDR)
        s->addr = *p++;
    if (st & PERF_SAMPLE_ID)
        s->id = *p++;
    if (st & PERF_SAMPLE_STREAM_ID)
        s->stream_id = *p++;
    if (st & PERF_SAMPLE_CPU)
        s->cpu = (uint32_t)*p++;
    if (st & PERF_SAMPLE_PERIOD)
        s->period = *p++;
    return 0;
}

int sample_id_parse(const struct evsel *evsel, const struct perf_event_header *h,
                    struct sample *s)
{
    const struct perf_event_attr *a = &evsel->attr;
    uint64_t st = a->sample_type, v;
    int n = 0;
    const uint64_t *p;
    size_t words;

    memset(s, 0, sizeof(*s));
    s->evsel = evsel;
    s->cpumode = h->misc & PERF_RECORD_MISC_CPUMODE_MASK;
    if (!a->sample_id_all)
        return -ENOENT;
    n += !!(st & PERF_SAMPLE_TID) + !!(st & PERF_SAMPLE_TIME) + !!(st & PERF_SAMPLE_ID) +
         !!(st & PERF_SAMPLE_STREAM_ID) + !!(st & PERF_SAMPLE_CPU) + !!(st & PERF_SAMPLE_IDENTIFIER);
    if (h->size < sizeof(*h))
        return -EINVAL;
    words = (h->size - sizeof(*h)) / 8;
    if ((size_t)n > words)
        return -EINVAL;
    p = (const uint64_t *)((const char *)h + h->size) - n;
    if (st & PERF_SAMPLE_TID) {
        v = *p++;
        s->pid = (uint32_t)v;
        s->tid = (uint32_t)(v >> 32);
    }
    if (st & PERF_SAMPLE_TIME)
        s->time = *p++;
    if (st & PERF_SAMPLE_ID)
        s->id = *p++;
    if (st & PERF_SAMPLE_STREAM_ID)
        s->stream_id = *p++;
    if (st & PERF_SAMPLE_CPU)
        s->cpu = (uint32_t)*p++;
    if (st & PERF_SAMPLE_IDENTIFIER)
        s->id = *p++;
    return 0;
}

size_t record_min_size(uint32_t type)
{
    switch (type) {
    case PERF_RECORD_MMAP: return sizeof(struct rec_mmap) + 1;
    case PERF_RECORD_MMAP2: return sizeof(struct rec_mmap2) + 1;
    case PERF_RECORD_COMM: return sizeof(struct rec_comm) + 1;
    case PERF_RECORD_FORK:
    case PERF_RECORD_EXIT: return sizeof(struct rec_fork);
    case PERF_RECORD_LOST: return sizeof(struct rec_lost);
    case PERF_RECORD_LOST_SAMPLES: return sizeof(struct rec_lost_samples);
    case PERF_RECORD_THROTTLE:
    case PERF_RECORD_UNTHROTTLE: return sizeof(struct rec_throttle);
    default: return sizeof(struct perf_event_header);
    }
}

const char *record_string(const struct perf_event_header *h)
{
    size_t off;
    const char *s;

    switch (h->type) {
    case PERF_RECORD_MMAP: off = offsetof(struct rec_mmap, filename); break;
    case PERF_RECORD_MMAP2: off = offsetof(struct rec_mmap2, filename); break;
    case PERF_RECORD_COMM: off = offsetof(struct rec_comm, comm); break;
    default: return NULL;
    }
    if (h->size <= off)
        return NULL;
    s = (const char *)h + off;
    return memchr(s, '\0', h->size - off) ? s : NULL;
}

const char *record_type_name(uint32_t type)
{
    static const char *const names[] = {
        [PERF_RECORD_MMAP] = "MMAP", [PERF_RECORD_LOST] = "LOST", [PERF_RECORD_COMM] = "COMM",
        [PERF_RECORD_EXIT] = "EXIT", [PERF_RECORD_THROTTLE] = "THROTTLE",
        [PERF_RECORD_UNTHROTTLE] = "UNTHROTTLE", [PERF_RECORD_FORK] = "FORK",
        [PERF_RECORD_READ] = "READ", [PERF_RECORD_SAMPLE] = "SAMPLE",
        [PERF_RECORD_MMAP2] = "MMAP2", [PERF_RECORD_AUX] = "AUX",
        [PERF_RECORD_ITRACE_START] = "ITRACE_START", [PERF_RECORD_LOST_SAMPLES] = "LOST_SAMPLES",
        [PERF_RECORD_SWITCH] = "SWITCH", [PERF_RECORD_SWITCH_CPU_WIDE] = "SWITCH_CPU_WIDE",
        [PERF_RECORD_NAMESPACES] = "NAMESPACES", [PERF_RECORD_KSYMBOL] = "KSYMBOL",
        [PERF_RECORD_BPF_EVENT] = "BPF_EVENT", [PERF_RECORD_CGROUP] = "CGROUP",
        [PERF_RECORD_TEXT_POKE] = "TEXT_POKE", [PERF_RECORD_AUX_OUTPUT_HW_ID] = "AUX_OUTPUT_HW_ID",
    };
    if (type < sizeof(names) / sizeof(*names) && names[type])
        return names[type];
    return "UNKNOWN";
}
