/* SPDX-License-Identifier: MIT */
/* HEADER_TRACING_DATA for files with tracepoint events: perf report and perf script need the
 * tracepoints' format descriptions (tracefs' format files) to read their samples' raw fields,
 * and refuse a tracepoint file without them ("broken or missing trace data").
 *
 * Layout (perf's trace-event-info.c, version 0.6): "\027\010\104tracing", "0.6\0", one byte
 * big-endian flag, one byte sizeof(long), u32 page size; "header_page\0" u64 size + tracefs'
 * events/header_page; "header_event\0" u64 size + events/header_event; u32 count of ftrace
 * formats (none here); u32 count of systems, each its name\0, u32 count of events, each u64
 * size + the event's format file; u32 kallsyms size (0), u32 printk formats size (0), u64
 * saved cmdlines size (0). Host-endian, as the rest of the file. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "perf/event.h"
#include "perf/evlist.h"
#include "perf/perfdata_feat.h"
#include "perf/perfdata_tracing.h"
#include "util/file.h"

enum { FORMAT_MAX = 1 << 20 };

static int put_file(struct featbuf *b, const char *path, bool size64)
{
    char *text;
    size_t len;
    int err = file_read_all(path, &text, &len, FORMAT_MAX);

    if (err)
        return err;
    if (size64)
        featbuf_u64(b, len);
    else
        featbuf_u32(b, (uint32_t)len);
    featbuf_put(b, text, len);
    free(text);
    return 0;
}

bool perfdata_has_tracepoints(const struct evlist *evl)
{
    for (size_t i = 0; evl && i < evl->nr; i++)
        if (evl->sel[i].attr.type == PERF_TYPE_TRACEPOINT)
            return true;
    return false;
}

int perfdata_build_tracing_data(struct featbuf *b, const struct evlist *evl)
{
    static const char magic[] = { 23, 8, 68, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
    const char *dir = event_tracefs_dir();
    char path[600];
    uint32_t nsys = 0;
    uint8_t one;
    int err;

    if (!dir)
        return -ENOENT;
    featbuf_put(b, magic, sizeof(magic));
    featbuf_put(b, "0.6", 4);
    one = 0;                                 /* little-endian (x86_64) */
    featbuf_put(b, &one, 1);
    one = sizeof(long);
    featbuf_put(b, &one, 1);
    featbuf_u32(b, (uint32_t)sysconf(_SC_PAGESIZE));
    featbuf_put(b, "header_page", 12);
    snprintf(path, sizeof(path), "%s/header_page", dir);
    if ((err = put_file(b, path, true)))
        return err;
    featbuf_put(b, "header_event", 13);
    snprintf(path, sizeof(path), "%s/header_event", dir);
    if ((err = put_file(b, path, true)))
        return err;
    featbuf_u32(b, 0);                       /* ftrace's own formats: none */
    for (size_t i = 0; i < evl->nr; i++)
        nsys += evl->sel[i].attr.type == PERF_TYPE_TRACEPOINT;
    featbuf_u32(b, nsys);                    /* a system per tracepoint event: perf merges */
    for (size_t i = 0; i < evl->nr; i++) {
        const struct evsel *s = &evl->sel[i];
        const char *colon = s->name ? strchr(s->name, ':') : NULL;
        char sys[256];
        if (s->attr.type != PERF_TYPE_TRACEPOINT)
            continue;
        if (!colon || colon == s->name || (size_t)(colon - s->name) >= sizeof(sys) ||
            strchr(colon + 1, '/') || strchr(s->name, '/'))
            return -EINVAL;
        memcpy(sys, s->name, (size_t)(colon - s->name));
        sys[colon - s->name] = '\0';
        featbuf_put(b, sys, strlen(sys) + 1);
        featbuf_u32(b, 1);
        /* The event name up to a modifier (":u", ...). */
        snprintf(path, sizeof(path), "%s/%s/%.*s/format", dir, sys,
                 (int)strcspn(colon + 1, ":"), colon + 1);
        if ((err = put_file(b, path, true)))
            return err;
    }
    featbuf_u32(b, 0);                       /* kallsyms: perf reads the file's own */
    featbuf_u32(b, 0);                       /* printk formats */
    featbuf_u64(b, 0);                       /* saved cmdlines */
    return b->err;
}
