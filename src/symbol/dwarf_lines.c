/* SPDX-License-Identifier: MIT */
#define LOG_PREFIX "dwarf"
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "symbol/dwarf_lines.h"
#include "util/log.h"
#include "util/strutil.h"

/* "bench.c" matches "bench.c", "/a/bench.c" and "./bench.c", never "mybench.c". */
static bool file_matches(const char *src, const char *want)
{
    size_t ls = strlen(src), lw = strlen(want);
    if (str_starts(want, "./"))
        return file_matches(src, want + 2);
    if (ls < lw || strcmp(src + ls - lw, want))
        return false;
    return ls == lw || src[ls - lw - 1] == '/';
}

int dwarf_line_addr(const char *elf_path, const char *file, unsigned line, uint64_t *addr,
                    char *err, size_t errlen)
{
    Dwarf_Off off = 0, next;
    size_t hsize;
    bool file_seen = false, found = false;
    unsigned below = 0, above = 0;   /* nearest statement lines around `line` */
    uint64_t best = 0;
    Dwarf *dw;
    int fd;

    fd = open(elf_path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        snprintf(err, errlen, "%s: %s", elf_path, strerror(e));
        return -e;
    }
    dw = dwarf_begin(fd, DWARF_C_READ);
    if (!dw) {
        close(fd);
        snprintf(err, errlen, "%s has no DWARF line information: DWARF is needed for file:line "
                 "regions; rebuild with -g", elf_path);
        return -ENODATA;
    }
    while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
        Dwarf_Die cudie;
        Dwarf_Lines *lines;
        size_t nlines;

        if (!dwarf_offdie(dw, off + hsize, &cudie) ||
            dwarf_getsrclines(&cudie, &lines, &nlines) != 0) {
            off = next;
            continue;
        }
        for (size_t i = 0; i < nlines; i++) {
            Dwarf_Line *l = dwarf_onesrcline(lines, i);
            const char *src;
            bool stmt = false, end = false;
            Dwarf_Addr a;
            int ln;

            if (!l || !(src = dwarf_linesrc(l, NULL, NULL)) || !file_matches(src, file))
                continue;
            file_seen = true;
            if (dwarf_lineno(l, &ln) || dwarf_lineaddr(l, &a) ||
                dwarf_linebeginstatement(l, &stmt) || dwarf_lineendsequence(l, &end))
                continue;
            if (!stmt || end || ln <= 0)
                continue;
            if ((unsigned)ln == line) {
                if (!found || a < best)
                    best = a;
                found = true;
            } else if ((unsigned)ln < line && (unsigned)ln > below) {
                below = (unsigned)ln;
            } else if ((unsigned)ln > line && (!above || (unsigned)ln < above)) {
                above = (unsigned)ln;
            }
        }
        off = next;
    }
    dwarf_end(dw);
    close(fd);
    if (found) {
        *addr = best;
        pr_debug("%s:%u starts at 0x%llx", file, line, (unsigned long long)best);
        return 0;
    }
    if (!file_seen) {
        snprintf(err, errlen, "no source file '%s' in the DWARF line table of %s", file, elf_path);
        return -ENOENT;
    }
    {
        char near[64] = "";
        if (below && above)
            snprintf(near, sizeof(near), "; nearest: %s:%u and %s:%u", file, below, file, above);
        else if (below || above)
            snprintf(near, sizeof(near), "; nearest: %s:%u", file, below ? below : above);
        snprintf(err, errlen, "no code starts at %s:%u (only certain line numbers are "
                 "available)%s", file, line, near);
    }
    return -ERANGE;
}
