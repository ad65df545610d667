/* SPDX-License-Identifier: MIT */
/* Which object `prospect lines` counts: the program, or a shared library it loads, named as
 * stat -r names one (`-f LIB:FUNC`, and `--file LIB:SRC` alike). The probes are uprobes on
 * the library's file, so every process of the command that maps it is counted. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "lines/lines.h"
#include "probe/region.h"
#include "symbol/elf_code.h"

/* The ':' that ends a library's name: a single one, not C++'s "::". */
static const char *lib_colon(const char *s)
{
    for (const char *p = s; *p; p++) {
        if (p[0] == ':' && p[1] == ':')
            p++;
        else if (p[0] == ':')
            return p;
    }
    return NULL;
}

/* One name of a run that counts a library: it names that library too. */
static int one_name(const char *exe, const char **name, char *lib, size_t liblen, bool *named,
                    char *err, size_t errlen)
{
    const char *colon = lib_colon(*name);
    char want[256], path[4096];

    if (!colon) {
        snprintf(err, errlen, "'%s' is the program's and another name a library's: one "
                 "object per run (write LIB:%s)", *name, *name);
        return -EINVAL;
    }
    if ((size_t)(colon - *name) >= sizeof(want) || colon == *name || !colon[1]) {
        snprintf(err, errlen, "cannot parse '%s' (LIB:FUNCTION or LIB:SOURCE)", *name);
        return -EINVAL;
    }
    memcpy(want, *name, (size_t)(colon - *name));
    want[colon - *name] = '\0';
    if (elf_find_library(want, exe, path, sizeof(path))) {
        snprintf(err, errlen, "no library '%s' found (looked in LD_LIBRARY_PATH, the "
                 "program's directory and the system library directories)", want);
        return -ENOENT;
    }
    if (*named && strcmp(lib, path)) {
        snprintf(err, errlen, "'%s' and '%s' are in two objects: one object per run", lib,
                 path);
        return -EINVAL;
    }
    snprintf(lib, liblen, "%s", path);
    *named = true;
    *name = colon + 1;
    return 0;
}

int lines_target(const char *exe, const char **funcs, size_t nfuncs, const char **files,
                 size_t nfiles, char *obj, size_t objlen, char *err, size_t errlen)
{
    bool lib = false, named = false;
    int e;

    snprintf(obj, objlen, "%s", exe);
    for (size_t i = 0; i < nfuncs; i++)
        lib |= lib_colon(funcs[i]) != NULL;
    for (size_t i = 0; i < nfiles; i++)
        lib |= lib_colon(files[i]) != NULL;
    for (size_t i = 0; lib && i < nfuncs; i++)
        if ((e = one_name(exe, &funcs[i], obj, objlen, &named, err, errlen)))
            return e;
    for (size_t i = 0; lib && i < nfiles; i++)
        if ((e = one_name(exe, &files[i], obj, objlen, &named, err, errlen)))
            return e;
    return 0;
}
