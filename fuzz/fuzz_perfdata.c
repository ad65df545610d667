/* libFuzzer target for the perf.data reader: open (header, attrs, features), then walk the
 * records in time order and in file order, decoding each as a consumer would, and feed them
 * to the session (processes, maps, hit stores, call stacks) as `prospect report` does. Any crash,
 * sanitizer report, leak or hang is a bug: the reader must reject or skip damaged input. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "callgraph/stacks.h"
#include "perf/perfdata.h"
#include "session/session.h"
#include "unwind/unwind.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int consume(void *arg, const struct evlist *evl, const struct perf_event_header *h,
                   uint64_t time)
{
    const struct evsel *sel = evlist_evsel_for(evl, h);
    struct sample s;
    uint64_t *sum = arg;

    if (h->type >= 64)        /* perf's own records: no sample_id trailer */
        return 0;
    if (h->type == PERF_RECORD_SAMPLE && sel && sample_parse(sel, h, &s) == 0) {
        for (uint64_t i = 0; i < s.nr_callchain; i++)
            *sum += s.callchain[i];
        *sum += s.ip + s.period;
    } else if (sel) {
        if (sample_id_parse(sel, h, &s) == 0)
            *sum += s.time;
    }
    if (record_string(h))
        *sum += strlen(record_string(h));
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* The reader expects 8-byte aligned input like an mmap; misaligned records inside are its
     * own business. */
    static uint64_t buf[(1 << 20) / 8];
    unsigned modes[] = { 0, PERFDATA_FILE_ORDER, PERFDATA_USER_RECORDS };
    uint64_t sum = 0;

    if (size > sizeof(buf))
        return 0;
    memcpy(buf, data, size);
    for (size_t m = 0; m < sizeof(modes) / sizeof(*modes); m++) {
        struct perfdata *pd;
        struct perfdata_error err;
        char line[1024];

        if (perfdata_open_mem(buf, size, "fuzz.data", &pd, &err)) {
            perfdata_error_str(&err, line, sizeof(line));
            return 0;
        }
        (void)perfdata_info(pd);
        if (m == 0) {
            /* With call stacks kept as `report --children` keeps them: chains walked, user
             * stacks unwound from their copies (src/unwind/). */
            struct session s;
            struct cg_store cs;
            cg_store_init(&cs);
            cs.unwind = unwinder_new();
            if (session_init(&s) == 0) {
                s.chains = cs.unwind ? &cs : NULL;
                if (perfdata_process(pd, session_record, &s, 0, &err))
                    perfdata_error_str(&err, line, sizeof(line));
                session_release(&s);
            }
            unwinder_free(cs.unwind);
            cg_store_release(&cs);
        } else if (perfdata_process(pd, consume, &sum, modes[m], &err)) {
            perfdata_error_str(&err, line, sizeof(line));
        }
        perfdata_close(pd);
    }
    return sum == 42 ? 0 : 0;
}
