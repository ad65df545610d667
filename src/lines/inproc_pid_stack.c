/* SPDX-License-Identifier: MIT */
/* The stack of a stopped thread, from its rsp up to the end of the mapping that holds it
 * (inproc_pid.h): where a signal frame keeps the pc the handler interrupted. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "lines/inproc_pid.h"

#define STACK_CAP (4UL << 20)          /* a thread's stack read at most this far */
#define CHUNK 65536UL

/* The end of the mapping of process pid holding addr, or 0 (none). */
static uint64_t mapping_end(pid_t pid, uint64_t addr, int *err)
{
    char path[64], line[4096];
    uint64_t end = 0;
    FILE *f;
    snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
    if (!(f = fopen(path, "re"))) {
        *err = -errno;
        return 0;
    }
    while (!end && fgets(line, sizeof(line), f)) {
        unsigned long long a, b;
        if (sscanf(line, "%llx-%llx", &a, &b) == 2 && addr >= a && addr < b)
            end = b;
    }
    fclose(f);
    return end;
}

int pid_scan_stack(const struct pt_world *w, size_t t,
                   void (*fn)(void *, uint64_t), void *arg)
{
    uint64_t at = w->threads.v[t].regs.rsp & ~7UL, end;
    uint64_t *buf;
    int e = 0;

    end = mapping_end(w->pid, at, &e);
    if (e || !end)
        return e;                       /* rsp in no mapping: no frame to find */
    if (end - at > STACK_CAP)
        end = at + STACK_CAP;
    if (!(buf = malloc(CHUNK)))
        return -ENOMEM;
    while (at < end && !e) {
        size_t n = end - at < CHUNK ? (size_t)(end - at) : CHUNK;
        if (!(e = pt_read(w, at, buf, n)))
            for (size_t i = 0; i < n / 8; i++)
                fn(arg, buf[i]);
        at += n;
    }
    free(buf);
    return e;
}
