/* SPDX-License-Identifier: MIT */
/* Output formats shared by the report renderers. */
#ifndef PROSPECT_REPORT_FORMAT_H
#define PROSPECT_REPORT_FORMAT_H

enum report_format { REPORT_TEXT, REPORT_CSV, REPORT_JSON };

/* "text", "csv" or "json"; -EINVAL otherwise. */
int report_format_parse(const char *s, enum report_format *out);
#endif
