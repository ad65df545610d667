/* Anonymous executable memory: symbols from the JIT convention file /tmp/perf-PID.map, lines
 * "START SIZE name" (hex numbers, name to end of line). Untrusted: bad lines are skipped. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "symbol/dso_internal.h"
#include "util/file.h"

#define LOG_PREFIX "symbol"
#include "util/log.h"

#define JITMAP_MAX (256u << 20)

/* Parses a hex number (optional 0x) and the blank after it; NULL if malformed. */
static char *parse_hex(char *p, uint64_t *out)
{
    uint64_t v = 0;
    int digits = 0;

    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
        p += 2;
    for (; isxdigit((unsigned char)*p); p++, digits++) {
        if (digits == 16)
            return NULL;
        v = v << 4 | (uint64_t)(isdigit((unsigned char)*p) ? *p - '0' : (*p | 0x20) - 'a' + 10);
    }
    if (!digits || (*p != ' ' && *p != '\t'))
        return NULL;
    while (*p == ' ' || *p == '\t')
        p++;
    *out = v;
    return p;
}

/* Parses a whole map text (modified in place) into a builder; counts skipped lines. */
static int parse_map(char *text, struct symtab_builder *b, size_t *bad)
{
    char *line = text;
    while (line && *line) {
        char *eol = strchr(line, '\n'), *p, *end;
        uint64_t start, size;
        int err;

        if (eol)
            *eol = '\0';
        end = line + strlen(line);
        while (end > line && (end[-1] == '\r' || end[-1] == ' '))
            *--end = '\0';
        p = parse_hex(line, &start);
        if (p)
            p = parse_hex(p, &size);
        if (p && *p && size && start + size > start) {
            err = symtab_add(b, p, start, size, 1 /* STB_GLOBAL */);
            if (err)
                return err;
        } else if (*line) {
            (*bad)++;
        }
        line = eol ? eol + 1 : NULL;
    }
    return 0;
}

int dso_load_jitmap(struct dso *dso)
{
    char path[64], *text;
    struct symtab_builder b = {0};
    size_t bad = 0;
    int err;

    snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)dso->pid);
    err = file_read_all(path, &text, NULL, JITMAP_MAX);
    if (err) {
        pr_debug("%s: %s", path, strerror(-err));
        dso->status = DSO_MISSING;
        return err == -ENOMEM ? err : 0;
    }
    err = parse_map(text, &b, &bad);
    free(text);
    if (!err)
        err = symtab_finish(&b, &dso->tab, false);
    if (err) {
        symtab_builder_release(&b);
        return err;
    }
    if (bad)
        pr_debug("%s: %zu malformed lines skipped", path, bad);
    dso->status = dso->tab.n ? DSO_OK_SYMTAB : DSO_NO_SYMBOLS;
    return 0;
}
