#include <inttypes.h>
#include <string.h>
#include "report/csv.h"

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

void csv_field_sep(FILE *f, const char *s, char sep, bool last)
{
    if (!s)
        s = "";
    if (strchr(s, sep) || strpbrk(s, "\"\n\r")) {
        fputc('"', f);
        for (; *s; s++) {
            if (*s == '"')
                fputc('"', f);
            fputc(*s, f);
        }
        fputc('"', f);
    } else {
        fputs(s, f);
    }
    fputc(last ? '\n' : sep, f);
}
