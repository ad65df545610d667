/* SPDX-License-Identifier: MIT */
#include "script/tracefmt.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <event-parse.h>
#include <trace-seq.h>
#include "perf/perfdata.h"

struct tracefmt {
    struct tep_handle *tep;
    struct trace_seq seq;
};

struct tracefmt *tracefmt_new(void)
{
    struct tracefmt *tf = calloc(1, sizeof(*tf));

    if (!tf || !(tf->tep = tep_alloc())) {
        free(tf);
        return NULL;
    }
    trace_seq_init(&tf->seq);
    return tf;
}

void tracefmt_free(struct tracefmt *tf)
{
    if (!tf)
        return;
    trace_seq_destroy(&tf->seq);
    tep_free(tf->tep);
    free(tf);
}

int tracefmt_add(struct tracefmt *tf, const struct perfdata_info *in, const char *name)
{
    const char *colon = strchr(name, ':');
    char sys[128], *fmt = NULL;
    int err;

    if (!colon || (size_t)(colon - name) >= sizeof(sys))
        return -ENOENT;
    memcpy(sys, name, (size_t)(colon - name));
    sys[colon - name] = '\0';
    if ((err = perfdata_tracepoint_format(in, sys, colon + 1, &fmt)))
        return err;
    /* libtraceevent keeps its own copy of what it needs from the text. */
    err = tep_parse_event(tf->tep, fmt, strlen(fmt), sys) ? -EINVAL : 0;
    free(fmt);
    return err;
}

size_t tracefmt_print(struct tracefmt *tf, const void *raw, uint32_t raw_size, int cpu,
                      char *buf, size_t len)
{
    struct tep_record rec = { .data = (void *)raw, .size = (int)raw_size, .cpu = cpu };
    size_t n;

    trace_seq_reset(&tf->seq);
    if (raw_size >= 2 && tep_data_type(tf->tep, &rec) >= 0 &&
        tep_find_event(tf->tep, tep_data_type(tf->tep, &rec)))
        tep_print_event(tf->tep, &tf->seq, &rec, "%s", TEP_PRINT_INFO);
    trace_seq_terminate(&tf->seq);
    n = tf->seq.len;
    if (len) {
        size_t k = n < len ? n : len - 1;
        memcpy(buf, tf->seq.buffer, k);
        buf[k] = '\0';
    }
    return n;
}
