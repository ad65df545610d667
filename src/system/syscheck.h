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

struct syscheck {
    int cpu;                /* the CPU assessed */
    bool cpu_chosen;        /* picked by the check, not given */
    char online[256];       /* the online CPU list, for messages */
    struct check_item *items;
    size_t n, cap;
};

/* Runs every check. Returns 0; -ENODEV when opts->cpu is not online (sc->cpu is set and
 * syscheck_offline_msg() explains); -ENOENT when root has no CPU list; -ENOMEM. */
int syscheck_run(const struct syscheck_opts *opts, struct syscheck *sc);
void syscheck_release(struct syscheck *sc);
/* "ok", "warn", "n/a". */
const char *check_status_name(enum check_status s);
/* Number of items with status s. */
size_t syscheck_count(const struct syscheck *sc, enum check_status s);
#endif
