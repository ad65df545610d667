/* SPDX-License-Identifier: MIT */
/* libFuzzer target for the call traces `replay` reads: the first byte picks the reader (even:
 * the binary trace of `trace -w`, odd: an `ltrace -o` log), the rest is the file; a trace
 * read is then turned into a replay program, as `prospect replay` does. Seeds: a few small
 * traces and logs with the selector byte in front. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "calltrace/ltrace_log.h"
#include "calltrace/tracefile.h"
#include "replay/replay_prog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct call_trace t;
    struct replay_prog p;
    char msg[256];
    char *copy;
    int err;

    if (!size)
        return 0;
    /* A copy of exactly the file's bytes: reads past its end are caught. */
    if (!(copy = malloc(size - 1 ? size - 1 : 1)))
        return 0;
    memcpy(copy, data + 1, size - 1);
    if (data[0] & 1) {
        struct ltrace_error le;
        err = ltrace_log_read_buf(copy, size - 1, &t, &le);
    } else {
        struct tracefile_error te;
        err = tracefile_read_buf(copy, size - 1, &t, &te);
    }
    if (!err) {
        if (!replay_prog_build(&t, &p, msg, sizeof(msg)))
            replay_prog_release(&p);
        call_trace_release(&t);
    }
    free(copy);
    return 0;
}
