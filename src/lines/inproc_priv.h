/* SPDX-License-Identifier: MIT */
/* Internal to the in-process engine (src/lines/inproc*.c). */
#ifndef PROSPECT_LINES_INPROC_PRIV_H
#define PROSPECT_LINES_INPROC_PRIV_H
#include <stdbool.h>
#include <stdint.h>
#include "lines/lines.h"
#include "symbol/elf_program.h"

/* The program's executable segments as in its file. */
struct inproc_code {
    struct elf_program prog;
    uint8_t **bytes;              /* per prog.code segment */
};

int inproc_read_code(struct inproc_code *c, const char *exe);
void inproc_code_release(struct inproc_code *c);
/* The file's bytes at [vaddr, vaddr + n), or NULL when they are not all in one segment. */
const uint8_t *inproc_code_at(const struct inproc_code *c, uint64_t vaddr, uint64_t n);
/* Sets entered[f] for each function of p that code outside it branches into, or takes the
 * address of, elsewhere than at its entry (a .cold part's jump back, a label's address).
 * 0 or -errno. */
int inproc_entered(const struct lines_plan *p, const struct inproc_code *c, bool *entered);
#endif
