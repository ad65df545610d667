/* SPDX-License-Identifier: MIT */
/* The user registers a --call-graph dwarf sample asks the kernel for (PERF_SAMPLE_REGS_USER):
 * the collector sets the mask, the unwinder reads the registers in its bit order. */
#ifndef PROSPECT_PERF_SAMPLE_REGS_H
#define PROSPECT_PERF_SAMPLE_REGS_H

/* perf's own x86_64 mask: every general register, ip, flags, cs and ss; not ds/es/fs/gs (the
 * kernel refuses them for 64-bit tasks). */
#define PERF_X86_64_USER_REGS_MASK 0xff0fffULL
#endif
