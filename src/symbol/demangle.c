/* SPDX-License-Identifier: MIT */
/* C++ and Rust demangling through libiberty (the same library binutils and perf use). */
#include <libiberty/demangle.h>
#include <stdlib.h>
#include <string.h>
#include "symbol/dso.h"

char *symbol_demangle(const char *name)
{
    /* Only Itanium C++ (_Z, which also covers Rust legacy) and Rust v0 (_R) names are mangled;
     * skipping the rest keeps plain C symbol tables cheap to load. */
    if (!name || name[0] != '_' || (name[1] != 'Z' && name[1] != 'R'))
        return NULL;
    return cplus_demangle(name, DMGL_PARAMS | DMGL_ANSI);
}

bool symbol_is_cold_part(const char *name)
{
    const char *c = strstr(name, ".cold");
    return c && (c[5] == '\0' || c[5] == '.' || c[5] == ']');
}
