/* SPDX-License-Identifier: MIT */
/* The concrete function DIE holding an address (libdw), for the inline views of annotate and
 * call graphs. */
#ifndef PROSPECT_SYMBOL_DWARF_FUNC_H
#define PROSPECT_SYMBOL_DWARF_FUNC_H
#include <elfutils/libdw.h>
#include <stdint.h>

/* The DW_TAG_subprogram of pc's compilation unit whose ranges hold pc, into *out: 0, or
 * -ENOENT when no CU or function holds it. dwarf_getscopes would go up through an inlined
 * callee's abstract definition; this walks the CU's functions once. */
int dwarf_function_at(Dwarf *dw, uint64_t pc, Dwarf_Die *out);
#endif
