/* SPDX-License-Identifier: MIT */
/* libFuzzer target for the perf.data reader: open (header, attrs, features), then walk the
 * records in time order and in file order, decoding each as a consumer would, and feed them
 * to the session (processes, maps, hit stores, call stacks) as `prospect report` does. Any crash,
 * sanitizer report, leak or hang is a bug: the reader must reject or skip damaged input. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "callgraph/capture.h"
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
    /* The reader expects aligned input like an mmap (malloc: 16 bytes); misaligned records
     * inside are its own business. Exactly the file's bytes: a read past the end is caught by
     * ASan as it would fault past a mapped file's last page (a 1 MiB static buffer hid such
     * reads). */
    unsigned modes[] = { 0, PERFDATA_FILE_ORDER, PERFDATA_USER_RECORDS };
    uint64_t sum = 0;
    void *buf = malloc(size ? size : 1);

    if (!buf)
        return 0;
    memcpy(buf, data, size);
    for (size_t m = 0; m < sizeof(modes) / sizeof(*modes); m++) {
        struct perfdata *pd;
        struct perfdata_error err;
        char line[1024];

        if (perfdata_open_mem(buf, size, "fuzz.data", &pd, &err)) {
            perfdata_error_str(&err, line, sizeof(line));
            break;
        }
        (void)perfdata_info(pd);
        if (m == 0) {
            /* With call stacks kept as `report --children` keeps them: chains walked, user
             * stacks unwound from their copies (src/unwind/). */
            struct session s;
            struct cg_store cs;
            struct cg_capture cap;
            cg_store_init(&cs);
            cg_capture_init(&cap, &cs, unwinder_new());
            if (session_init(&s) == 0) {
                if (cap.unwind)
                    (void)session_add_sink(&s, cg_capture_sink(&cap));   /* room for one */
                if (perfdata_process(pd, session_record, &s, 0, &err))
                    perfdata_error_str(&err, line, sizeof(line));
                session_release(&s);
            }
            unwinder_free(cap.unwind);
            cg_capture_release(&cap);
            cg_store_release(&cs);
        } else if (perfdata_process(pd, consume, &sum, modes[m], &err)) {
            perfdata_error_str(&err, line, sizeof(line));
        }
        perfdata_close(pd);
    }
    free(buf);
    return sum == 42 ? 0 : 0;
}
