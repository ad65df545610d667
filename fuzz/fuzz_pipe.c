/* SPDX-License-Identifier: MIT */
/* libFuzzer target for pipe mode ('perf record -o -'): every input is read as a stream after
 * the 16-byte pipe header (added when the input lacks it), so mutations hit the HEADER_ATTR,
 * HEADER_FEATURE and sample records rather than the header's magic; then the call-stack
 * reports as on a file (callgraph_report.c). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "perf/perfdata.h"
#include "callgraph_report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint64_t pipe_header[2] = { 0x32454c4946524550ULL /* "PERFILE2" */, 16 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t off = 0;
    uint8_t *buf;
    struct perfdata *pd;
    struct perfdata_error err;

    if (size < sizeof(pipe_header) || memcmp(data, pipe_header, sizeof(pipe_header)))
        off = sizeof(pipe_header);
    /* Exactly the stream's bytes (malloc: 16-byte aligned): reads past the end are caught. */
    if (!(buf = malloc(off + size)))
        return 0;
    memcpy(buf, pipe_header, off);
    memcpy(buf + off, data, size);
    if (!perfdata_open_mem(buf, off + size, "fuzz.pipe", &pd, &err)) {
        fuzz_callgraph_report(pd);
        perfdata_close(pd);
    }
    free(buf);
    return 0;
}
