#include <stdarg.h>
#include <stdio.h>
#include "util/log.h"

int log_verbosity = LOG_WARN;

void log_msg(int level, const char *prefix, const char *fmt, ...)
{
    va_list ap;
    if (level > log_verbosity)
        return;
    fprintf(stderr, "prospect: %s: ", prefix);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}
