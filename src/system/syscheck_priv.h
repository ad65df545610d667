/* SPDX-License-Identifier: MIT */
/* Shared by the check_*.c files of src/system/. */
#ifndef PROSPECT_SYSTEM_SYSCHECK_PRIV_H
#define PROSPECT_SYSTEM_SYSCHECK_PRIV_H
#include <sched.h>
#include <stdint.h>
#include "system/syscheck.h"

/* Everything one run knows: where to read and what earlier checks found. */
struct sc_ctx {
    const char *root;       /* "" for the live system, else a directory without trailing '/' */
    bool live, privileged;
    int cpu;
    cpu_set_t online;
    cpu_set_t isolated;     /* isolcpus / sysfs isolated (filled by the isolation checks) */
    char *cmdline;          /* /proc/cmdline or "" */
    char *cpuinfo_flags;    /* the first "flags" line of /proc/cpuinfo, or NULL */
    struct syscheck *sc;
};

/* Reads root + path (capped at max bytes, NUL-terminated). 0 or -errno (-EFBIG when larger). */
int sc_read(const struct sc_ctx *c, const char *path, char **buf, size_t max);
/* Reads a small file holding one integer. 0, -errno or -EINVAL. */
int sc_read_long(const struct sc_ctx *c, const char *path, long *out);
/* Reads a one-line file into buf (trailing newline removed). 0 or -errno. */
int sc_read_line(const struct sc_ctx *c, const char *path, char *buf, size_t len);
/* root + path into buf. */
void sc_path(const struct sc_ctx *c, const char *path, char *buf, size_t len);
/* The value of kernel parameter `name` in the command line ("" when given without a value),
 * copied into buf; false when absent. */
bool sc_cmdline_param(const struct sc_ctx *c, const char *name, char *buf, size_t len);
/* True when `flag` is a word of the cpuinfo flags line. */
bool sc_has_flag(const struct sc_ctx *c, const char *flag);

/* Appends an item (advice may be NULL). Long strings are truncated. 0 or -ENOMEM. */
int sc_add(struct sc_ctx *c, const char *name, enum check_status st, const char *value,
           const char *advice);

/* The root prefix of sc_path without the trailing '/' ("" for /). Returns false when too long. */
bool sc_root_prefix(const char *root, char *buf, size_t len);

int check_isolation(struct sc_ctx *c);
int check_irq(struct sc_ctx *c);
int check_cpufreq(struct sc_ctx *c);
int check_smt(struct sc_ctx *c);
int check_kernel_knobs(struct sc_ctx *c);
int check_clock(struct sc_ctx *c);
int check_load(struct sc_ctx *c);
#endif
