/* SPDX-License-Identifier: MIT */
#include <dwarf.h>
#include <errno.h>
#include <stdbool.h>
#include "symbol/dwarf_func.h"

struct func_find {
    uint64_t pc;
    Dwarf_Die die;
    bool found;
};

static int func_at(Dwarf_Die *die, void *arg)
{
    struct func_find *ff = arg;
    if (dwarf_haspc(die, ff->pc) != 1)
        return DWARF_CB_OK;
    ff->die = *die;
    ff->found = true;
    return DWARF_CB_ABORT;
}

int dwarf_function_at(Dwarf *dw, uint64_t pc, Dwarf_Die *out)
{
    struct func_find ff = { .pc = pc };
    Dwarf_Die cu;

    if (!dwarf_addrdie(dw, pc, &cu))
        return -ENOENT;
    dwarf_getfuncs(&cu, func_at, &ff, 0);
    if (!ff.found)
        return -ENOENT;
    *out = ff.die;
    return 0;
}
