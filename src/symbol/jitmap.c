/* SPDX-License-Identifier: MIT */
/* Anonymous executable memory: symbols from the JIT convention file /tmp/perf-PID.map, lines
 * "START SIZE name" (hex numbers, name to end of line). Untrusted: bad lines are skipped. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "symbol/dso_internal.h"
#include "symbol/symfile.h"

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

/* Parses a whole map text of len bytes (modified in place) into a builder; counts skipped
 * lines. A NUL byte inside a line (a corrupt or hostile file) makes that line bad; the lines
 * after it are still read. */
static int parse_map(char *text, size_t len, const char *path, struct symtab_builder *b,
                     size_t *bad)
{
    char *line = text, *stop = text + len;
    bool warned = false;

    while (line < stop) {
        char *eol = memchr(line, '\n', (size_t)(stop - line)), *p, *end;
        uint64_t start, size;
        int err;

        if (!eol)
            eol = stop;
        *eol = '\0';
        if (strlen(line) != (size_t)(eol - line)) {
            if (!warned)
                pr_warn("%s: offset %zu: NUL byte in a line: line skipped", path,
                        (size_t)(line - text) + strlen(line));
            warned = true;
            (*bad)++;
            line = eol + 1;
            continue;
        }
        end = eol;
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
        line = eol + 1;
    }
    return 0;
}

int dso_load_jitmap(struct dso *dso)
{
    char path[64], *text;
    struct symtab_builder b = {0};
    struct stat st;
    size_t bad = 0, len;
    int err;

    /* Anyone can create /tmp/perf-PID.map before the process does: only a regular file (not
     * a FIFO, which would block the read forever; not a symlink) owned by us or root, as perf
     * accepts it. */
    snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)dso->pid);
    err = symfile_read_all(path, true, &text, &len, JITMAP_MAX, &st);
    if (!err && st.st_uid && st.st_uid != geteuid()) {
        free(text);
        err = -EPERM;
    }
    if (err) {
        if (err == -ENOENT) {
            pr_debug("%s: %s", path, strerror(-err));
        } else if (err != -ENOMEM) {
            pr_warn("%s: %s: ignored", path, err == -EPERM ? "not owned by you or root"
                    : err == -ELOOP ? "a symbolic link" : symfile_strerror(err));
        }
        dso->status = err == -ENOENT ? DSO_MISSING : DSO_REFUSED;
        return err == -ENOMEM ? err : 0;
    }
    err = parse_map(text, len, path, &b, &bad);
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
