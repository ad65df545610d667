/* SPDX-License-Identifier: MIT */
/* How deep a call is nested in others of its thread (`trace -n`, ltrace's --indent): a call
 * made while another traced call of the same thread was under way (malloc inside fopen). Calls
 * must be given in the order they began, per thread. */
#ifndef PROSPECT_CALLTRACE_NEST_H
#define PROSPECT_CALLTRACE_NEST_H
#include <stdint.h>

#define CT_NEST_MAX 32u             /* deeper calls count as this deep */

struct ct_nest;
struct ct_nest *ct_nest_new(void);
void ct_nest_free(struct ct_nest *n);
/* The depth (0: called by no traced call) of tid's call over [t0, t1], then remembered as
 * under way until t1. -ENOMEM as a negative value. */
int ct_nest_depth(struct ct_nest *n, uint32_t tid, uint64_t t0, uint64_t t1);
#endif
