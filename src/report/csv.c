/* SPDX-License-Identifier: MIT */
#include <inttypes.h>
#include <string.h>
#include "report/csv.h"
#include "util/strutil.h"

static void end(FILE *f, bool last)
{
    fputc(last ? '\n' : ',', f);
}

void csv_field(FILE *f, const char *s, bool last)
{
    csv_field_sep(f, s, ',', last);
}

void csv_u64(FILE *f, uint64_t v, bool last)
{
    fprintf(f, "%" PRIu64, v);
    end(f, last);
}

void csv_double(FILE *f, double v, int decimals, bool last)
{
    fprintf(f, "%.*f", decimals, v);
    end(f, last);
}

void csv_row(FILE *f, const char *const *fields, size_t n)
{
    for (size_t i = 0; i < n; i++)
        csv_field(f, fields[i], i + 1 == n);
}

/* Control characters and malformed UTF-8 are escaped as the text reports print them (\xNN),
 * so a symbol name cannot move a terminal's cursor or break a UTF-8 reader; a field with the
 * separator, a quote or escape is quoted. */
void csv_field_sep(FILE *f, const char *s, char sep, bool last)
{
    bool quote = false;
    char esc[5];

    if (!s)
        s = "";
    for (const char *p = s; *p && !quote;) {
        size_t n = str_char_escape(p, esc);
        quote = *p == sep || *p == '"' || esc[0];
        p += n;
    }
    if (quote)
        fputc('"', f);
    for (const char *p = s; *p;) {
        size_t n = str_char_escape(p, esc);
        if (*p == '"')
            fputc('"', f);
        if (esc[0])
            fputs(esc, f);
        else
            fwrite(p, 1, n, f);
        p += n;
    }
    if (quote)
        fputc('"', f);
    fputc(last ? '\n' : sep, f);
}
