/* SPDX-License-Identifier: MIT */
/* libFuzzer target for call stacks from a perf.data file: `report --children`, `--format
 * folded` and `--format pprof` on it (callgraph_report.c). Seeds: files recorded with -g and
 * with --call-graph dwarf, so that FP chains and the unwinder's registers and stack copies
 * (every one untrusted) are what the mutations hit. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "perf/perfdata.h"
#include "callgraph_report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* Exactly the file's bytes, 16-byte aligned as a mapping is page-aligned: a read past
     * the end is caught by ASan as it would fault past a mapped file's last page. */
    void *buf = malloc(size ? size : 1);
    struct perfdata *pd;
    struct perfdata_error err;

    if (!buf)
        return 0;
    memcpy(buf, data, size);
    if (!perfdata_open_mem(buf, size, "fuzz.data", &pd, &err)) {
        fuzz_callgraph_report(pd);
        perfdata_close(pd);
    }
    free(buf);
    return 0;
}
