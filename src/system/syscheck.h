/* SPDX-License-Identifier: MIT */
/* `prospect check`: is this machine quiet enough to measure small things? Each item reads
 * /proc and /sys relative to a root directory (tests point it at fixture trees) and says ok,
 * warn or n/a, what was found and what to do. Library code: nothing is printed here. */
#ifndef PROSPECT_SYSTEM_SYSCHECK_H
#define PROSPECT_SYSTEM_SYSCHECK_H
#include <stdbool.h>
#include <stddef.h>

enum check_status { CHECK_OK, CHECK_WARN, CHECK_NA };

struct check_item {
    char name[32];          /* stable identifier: "isolcpus", "smt", ... */
    enum check_status status;
    char value[512];        /* what was found */
    char advice[512];       /* what to do ("" when nothing) */
};

struct syscheck_opts {
    const char *root;       /* NULL or "/": the live system */
    int cpu;                /* CPU to assess; -1: first isolated CPU, else highest online */
    bool privileged;        /* assess for root (paranoid/kptr limits do not apply) */
};

/* An IRQ that may be delivered to the assessed CPU. */
struct syscheck_irq {
    unsigned irq;
    const char *fixed;      /* why the kernel will not move it (debugfs flags), or NULL */
};

struct syscheck {
    int cpu;                /* the CPU assessed */
    bool cpu_chosen;        /* picked by the check, not given */
    char online[256];       /* the online CPU list, for messages */
    struct check_item *items;
    size_t n, cap;
    struct syscheck_irq *irqs;  /* IRQs that may be delivered to `cpu`, ascending */
    size_t nirqs;
    char irq_target[256];   /* the CPU list to move them to ("" when there is no other CPU) */
};

/* Runs every check. Returns 0; -ENODEV when opts->cpu is not online (sc->cpu is set and
 * syscheck_offline_msg() explains); -ENOENT when root has no CPU list; -ENOMEM. */
int syscheck_run(const struct syscheck_opts *opts, struct syscheck *sc);
void syscheck_release(struct syscheck *sc);
/* Moves every IRQ of sc->irqs to sc->irq_target by writing root/proc/irq/N/smp_affinity_list
 * (check --move-irqs); IRQs known to be fixed are not tried. err[i] is 0 when IRQ sc->irqs[i]
 * moved, else -errno (-EPERM for a fixed one). Returns 0, or -EINVAL with no target. */
int syscheck_move_irqs(const struct syscheck *sc, const char *root, int *err);
/* Why the kernel refused an IRQ move with this errno (a short phrase). */
const char *syscheck_irq_refusal(int err);
/* IRQ numbers as ranges ("24-26 28 30-43"), at most len-1 bytes; the numbers that did not fit
 * are counted in " (+N more)". */
void syscheck_irq_ranges(const struct syscheck_irq *v, size_t n, char *buf, size_t len);
/* "ok", "warn", "n/a". */
const char *check_status_name(enum check_status s);
/* Number of items with status s. */
size_t syscheck_count(const struct syscheck *sc, enum check_status s);
#endif
