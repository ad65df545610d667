/* SPDX-License-Identifier: MIT */
/* Errors of the perf.data reader and writer: the file, the byte offset where known, and what
 * was wrong, for the one-line messages the commands print. */
#include <stdarg.h>
#include <stdio.h>
#include "perf/perfdata.h"

int perfdata_set_errorv(struct perfdata_error *err, const char *path, int ret, bool has_off,
                        uint64_t off, const char *fmt, va_list ap)
{
    if (!err)
        return ret;
    snprintf(err->path, sizeof(err->path), "%s", path);
    err->has_offset = has_off;
    err->offset = off;
    vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
    return ret;
}

int perfdata_set_error(struct perfdata_error *err, const char *path, int ret, bool has_off,
                       uint64_t off, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ret = perfdata_set_errorv(err, path, ret, has_off, off, fmt, ap);
    va_end(ap);
    return ret;
}

void perfdata_error_str(const struct perfdata_error *e, char *buf, size_t len)
{
    if (e->has_offset)
        snprintf(buf, len, "%s: offset 0x%llx: %s", e->path, (unsigned long long)e->offset, e->msg);
    else
        snprintf(buf, len, "%s: %s", e->path, e->msg);
}
