/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <string.h>
#include "report/format.h"

int report_format_parse(const char *s, enum report_format *out)
{
    if (!strcmp(s, "text"))
        *out = REPORT_TEXT;
    else if (!strcmp(s, "csv"))
        *out = REPORT_CSV;
    else if (!strcmp(s, "json"))
        *out = REPORT_JSON;
    else
        return -EINVAL;
    return 0;
}
