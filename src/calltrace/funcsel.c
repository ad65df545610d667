/* SPDX-License-Identifier: MIT */
/* -e specs -> the mask of built-in functions (see funcsel.h). */
#include <errno.h>
#include <fnmatch.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "calltrace/callfmt.h"
#include "calltrace/funcsel.h"
#include "intarget/calltrace_abi.h"

uint64_t ct_default_mask(void)
{
    return (1ull << CT_F_malloc) | (1ull << CT_F_free) | (1ull << CT_F_calloc) |
           (1ull << CT_F_realloc) | (1ull << CT_F_posix_memalign) |
           (1ull << CT_F_aligned_alloc) | (1ull << CT_F_memalign) | (1ull << CT_F_valloc);
}

/* The built-ins all come from glibc's libc.so.6 (libpthread's are there since 2.34). */
static int lib_ok(const char *lib)
{
    static const char *const libs[] = { "libc", "libc.so", "libc.so.6", "libpthread",
                                        "libpthread.so.0", "c", "pthread" };
    for (size_t i = 0; i < sizeof(libs) / sizeof(libs[0]); i++)
        if (!fnmatch(lib, libs[i], 0))
            return 1;
    return 0;
}

static int one(const char *item, uint64_t *mask, struct ct_any_list *any, char *err,
               size_t errlen)
{
    char buf[256];
    const char *glob = buf, *lib = NULL;
    char *sep;
    uint64_t m = 0;
    if (!*item) {
        snprintf(err, errlen, "empty function name in -e");
        return -EINVAL;
    }
    if (strlen(item) >= sizeof(buf)) {
        snprintf(err, errlen, "-e item too long: %.40s...", item);
        return -EINVAL;
    }
    strcpy(buf, item);
    if ((sep = strchr(buf, ':'))) {
        *sep = 0;
        lib = buf;
        glob = sep + 1;
    } else if ((sep = strchr(buf, '@'))) {
        *sep = 0;
        lib = sep + 1;
    }
    bool wild = strpbrk(glob, "*?[") != NULL;
    if (any && (!lib || lib_ok(lib)))
        for (unsigned i = 0; i < ct_func_count(); i++)
            if (!fnmatch(glob, ct_func_name(i), 0))
                m |= 1ull << i;
    /* Not (only) built-ins: the exported functions of the library, traced by uprobes. A glob
     * without a library stays within the built-ins (what it always meant). */
    if (any && ((lib && !lib_ok(lib)) || !m || (wild && lib))) {
        struct ct_any_spec *s;
        if (any->n == sizeof(any->v) / sizeof(any->v[0])) {
            snprintf(err, errlen, "too many -e items");
            return -EINVAL;
        }
        s = &any->v[any->n++];
        memset(s, 0, sizeof(*s));
        snprintf(s->item, sizeof(s->item), "%s", item);
        snprintf(s->lib, sizeof(s->lib), "%s", lib ? lib : "");
        if (strlen(glob) >= sizeof(s->glob)) {
            snprintf(err, errlen, "-e item too long: %.40s...", item);
            return -EINVAL;
        }
        snprintf(s->glob, sizeof(s->glob), "%s", glob);
        *mask |= m;
        return 0;
    }
    if (lib && !lib_ok(lib)) {
        snprintf(err, errlen, "'%s': only libc's built-in functions can be traced yet "
                 "(see prospect trace --list)", item);
        return -EINVAL;
    }
    for (unsigned i = 0; i < ct_func_count(); i++)
        if (!fnmatch(glob, ct_func_name(i), 0))
            m |= 1ull << i;
    if (!m) {
        snprintf(err, errlen, "'%s' matches no built-in function: only those with a built-in "
                 "prototype can be traced yet (see prospect trace --list)", item);
        return -EINVAL;
    }
    *mask |= m;
    return 0;
}

int ct_funcsel_parse_any(const char *spec, uint64_t *mask, struct ct_any_list *any, char *err,
                         size_t errlen)
{
    char *copy = strdup(spec), *save = NULL;
    int e = 0;
    if (!copy)
        return -ENOMEM;
    if (!*spec) {
        snprintf(err, errlen, "empty -e");
        e = -EINVAL;
    }
    for (char *t = strtok_r(copy, "+", &save); t && !e; t = strtok_r(NULL, "+", &save))
        e = one(t, mask, any, err, errlen);
    free(copy);
    return e;
}

int ct_funcsel_parse(const char *spec, uint64_t *mask, char *err, size_t errlen)
{
    return ct_funcsel_parse_any(spec, mask, NULL, err, errlen);
}
