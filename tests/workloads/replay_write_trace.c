/* For tests/e2e/replay.sh: writes a Prospect binary trace with the tracefile writer from lines
 * "tid time_ns dur_ns function arg0 arg1 ret" on stdin (numbers decimal or 0x hex), all in
 * one process (pid 100).
 * usage: replay_write_trace OUT.trace < calls.txt */
#include <stdio.h>
#include <stdlib.h>
#include "calltrace/tracefile.h"

int main(int argc, char **argv)
{
    struct call_trace t;
    char fn[256];
    unsigned long long tid, time, dur, a0, a1, ret;
    if (argc != 2) {
        fprintf(stderr, "usage: replay_write_trace OUT.trace < calls.txt\n");
        return 2;
    }
    call_trace_init(&t);
    while (scanf("%llu %llu %llu %255s %lli %lli %lli", &tid, &time, &dur, fn, &a0, &a1, &ret) == 7) {
        int f = call_trace_func(&t, fn);
        struct call_rec r = {.time_ns = time, .dur_ns = dur, .pid = 100,   /* one process */
                             .tid = (uint32_t)tid, .args = {a0, a1}, .ret = ret};
        if (f < 0)
            return 1;
        r.func = (uint32_t)f;
        if (call_trace_add(&t, &r))
            return 1;
    }
    FILE *out = fopen(argv[1], "wb");
    if (!out || tracefile_write(out, &t) || fclose(out))
        return 1;
    call_trace_release(&t);
    return 0;
}
/* SPDX-License-Identifier: MIT */
